//! The traveller lines a reader has found, kept in chunks rather than in one vector: a national
//! file holds millions of lines of about 500 bytes each, and one vector would copy them all each
//! time it grew and hold up to twice their size. Chunks are never moved once full, and the field
//! being built frees each one as soon as it has taken its lines.

use super::RawLine;

/// Lines a chunk holds: 34 MB of lines, more than the largest block the system allocator keeps for
/// itself once freed (32 MB), so a chunk the field has taken goes back to the system at once. The
/// first chunk grows as a vector does, so a small file takes only what it needs; a large one
/// leaves at most one chunk partly filled.
const CHUNK: usize = 1 << 16;

/// A reader's traveller lines, in the order it found them.
#[derive(Debug, Default)]
pub(crate) struct RawLines<'a> {
    /// Every chunk but the last holds [`CHUNK`] lines.
    chunks: Vec<Vec<RawLine<'a>>>,
    len: usize,
}

impl<'a> RawLines<'a> {
    pub(crate) fn push(&mut self, line: RawLine<'a>) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(line),
            Some(_) => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(line);
                self.chunks.push(chunk);
            }
            None => self.chunks.push(vec![line]),
        }
        self.len += 1;
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &RawLine<'a>> {
        self.chunks.iter().flatten()
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut RawLine<'a>> {
        self.chunks.iter_mut().flatten()
    }
}

impl<'a> std::ops::Index<usize> for RawLines<'a> {
    type Output = RawLine<'a>;

    fn index(&self, at: usize) -> &RawLine<'a> {
        &self.chunks[at / CHUNK][at % CHUNK]
    }
}

impl<'a> std::ops::IndexMut<usize> for RawLines<'a> {
    fn index_mut(&mut self, at: usize) -> &mut RawLine<'a> {
        &mut self.chunks[at / CHUNK][at % CHUNK]
    }
}

/// The lines by value, each chunk freed once its last line is taken.
impl<'a> IntoIterator for RawLines<'a> {
    type Item = RawLine<'a>;
    type IntoIter = std::iter::Flatten<std::vec::IntoIter<Vec<RawLine<'a>>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.chunks.into_iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: usize) -> RawLine<'static> {
        RawLine {
            board: n.to_string().into(),
            ..RawLine::default()
        }
    }

    fn boards<'l>(lines: impl Iterator<Item = &'l RawLine<'static>>) -> Vec<usize> {
        lines.map(|l| l.board.parse().unwrap()).collect()
    }

    #[test]
    fn lines_across_chunks_keep_their_order_and_places() {
        let count = 2 * CHUNK + 3;
        let mut lines = RawLines::default();
        assert!(lines.is_empty());
        for n in 0..count {
            lines.push(line(n));
        }
        assert_eq!(lines.len(), count);
        assert_eq!(lines.chunks.len(), 3);
        assert_eq!(boards(lines.iter()), (0..count).collect::<Vec<_>>());
        for at in [0, CHUNK - 1, CHUNK, 2 * CHUNK + 2] {
            assert_eq!(lines[at].board, at.to_string());
        }
        lines[CHUNK] = line(7);
        lines.iter_mut().for_each(|l| l.howell = true);
        let taken: Vec<RawLine<'_>> = lines.into_iter().collect();
        assert_eq!(taken.len(), count);
        assert_eq!(taken[CHUNK].board, "7");
        assert_eq!(taken[CHUNK + 1].board, (CHUNK + 1).to_string());
        assert!(taken.iter().all(|l| l.howell));
    }
}
