//! A large file read in chunks on every thread, without a first pass over it to count its lines.
//!
//! The file's body is cut into ranges of equal size. A worker takes the next range, starts its
//! chunk at the line after the first line end at or after the byte before the range (the first
//! chunk at the body's start) and ends it the same way after the range's end, so that the chunks
//! meet at line ends and each line is in one chunk. It reads the chunk with line numbers counted
//! from the chunk's start, and counts the chunk's line ends.
//!
//! A thread of its own takes the chunks in the file's order, and so knows each chunk's first line
//! and the movement the chunks before it gave each section. It puts the chunk's line numbers
//! right. A chunk with a problem or a warning (whose words may name lines), or with a section
//! whose movement differs from the one an earlier chunk gave it, is read again from its first
//! line and knowing those movements, which only a file with mistakes pays for: what it finds is
//! then what reading the whole file in one piece finds. The thread then joins the chunk's names
//! and results into the file's field ([`Joiner`]) while later chunks are still being read.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use simpairs_scoring::field::{Joined, Joiner, Part};
use simpairs_scoring::{LegalScores, Movement};

use crate::csv_row::{Chunk, Layout};
use crate::row::FieldBuilder;

/// Where a file's body is read from: positions count from the body's first byte.
pub(crate) trait Source: Sync {
    /// The body's length in bytes.
    fn len(&self) -> u64;

    /// Reads the body's bytes from `from` to `to` into `buffer`, if they are not at hand.
    fn read(&self, from: u64, to: u64, buffer: &mut Vec<u8>) -> std::io::Result<()>;

    /// The bytes from `from` to `to`, after [`Source::read`] of them into `buffer`.
    fn view<'b>(&'b self, from: u64, to: u64, buffer: &'b [u8]) -> &'b [u8];
}

/// A body held in memory.
pub(crate) struct InMemory<'a>(pub(crate) &'a [u8]);

impl Source for InMemory<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read(&self, _: u64, _: u64, _: &mut Vec<u8>) -> std::io::Result<()> {
        Ok(())
    }

    fn view<'b>(&'b self, from: u64, to: u64, _: &'b [u8]) -> &'b [u8] {
        &self.0[from as usize..to as usize]
    }
}

/// Why a file was not read in chunks.
#[derive(Debug)]
pub(crate) enum Stop {
    /// A quoted field, which may hold a line end: the file must be read as one chunk.
    Quoted,
    /// Text that is not UTF-8: the file is read whole, as the code page it is in
    /// ([`crate::text::as_windows_1252`]).
    NotUtf8,
    Io(std::io::Error),
}

/// What reading a file in chunks needs besides its body.
#[derive(Clone, Copy)]
pub(crate) struct Reading<'a> {
    pub(crate) file: &'a str,
    pub(crate) layout: Layout,
    pub(crate) legal: &'a LegalScores,
    /// The size of the ranges the body is cut into.
    pub(crate) range: u64,
    /// The body's first line's number.
    pub(crate) first_line: u64,
}

/// A chunk read with line numbers from its own start, with where it lies in the body.
struct Relative<'l> {
    chunk: Chunk<'l>,
    part: Part,
    at: std::ops::Range<u64>,
}

/// The field the file's chunks join into; each chunk, its results taken and its line numbers
/// right, is given to `each` in order (on the joining thread). Stops at the first quoted field
/// or error.
pub(crate) fn read_and_join<'l>(
    source: &impl Source,
    reading: Reading<'l>,
    each: impl FnMut(Chunk<'l>) + Send,
) -> Result<Joined, Stop> {
    let ranges = source.len().div_ceil(reading.range.max(1)) as usize;
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        let joining = scope.spawn(|| join_in_order(source, reading, receiver, ranges, each));
        // Ranges are handed out in order, so that chunks are read about in the order they are
        // joined in, and the joining keeps up with the reading.
        (0..rayon::current_num_threads())
            .into_par_iter()
            .for_each_with(sender, |sender, _| {
                let mut buffer = Vec::new();
                while !failed.load(Ordering::Relaxed) {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= ranges {
                        break;
                    }
                    let chunk = read_range(source, reading, k, &mut buffer);
                    if chunk.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    if sender.send((k, chunk)).is_err() {
                        break;
                    }
                }
            });
        let read = std::time::Instant::now();
        let joined = joining.join();
        tracing::debug!(waited = ?read.elapsed(), "csv: chunks read; the joining finished after");
        joined.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The chunk of range `k`, read with line numbers from its start (`None` when a line longer than
/// the range leaves it empty).
fn read_range<'l>(
    source: &impl Source,
    reading: Reading<'l>,
    k: usize,
    buffer: &mut Vec<u8>,
) -> Result<Option<Relative<'l>>, Stop> {
    let Some((at, bytes)) = chunk_bytes(source, reading.range, k, buffer).map_err(Stop::Io)? else {
        return Ok(None);
    };
    if memchr::memchr(b'"', bytes).is_some() {
        return Err(Stop::Quoted);
    }
    let (file, layout, legal) = (reading.file, reading.layout, reading.legal);
    let mut chunk = crate::csv_fast::read_chunk_fast(file, bytes, 0, layout, legal);
    // Looked for only in a chunk with problems, so that a good file costs nothing more.
    if !chunk.problems.is_empty() && std::str::from_utf8(bytes).is_err() {
        return Err(Stop::NotUtf8);
    }
    let part = Part::new(std::mem::take(&mut chunk.builder.field));
    Ok(Some(Relative { chunk, part, at }))
}

/// Where the chunk of range `k` lies in the body, and its bytes; `None` when it is empty.
fn chunk_bytes<'b>(
    source: &'b impl Source,
    range: u64,
    k: usize,
    buffer: &'b mut Vec<u8>,
) -> std::io::Result<Option<(std::ops::Range<u64>, &'b [u8])>> {
    let len = source.len();
    let from = k as u64 * range;
    let to = (from + range).min(len);
    // From the byte before the range, so that a line end just before it counts as its own.
    let read_from = from.saturating_sub(1);
    // Past the range's end, far enough to find the line end that closes its last line.
    let mut past = range.clamp(256, 1 << 16);
    let (bounds, read_to) = loop {
        let read_to = (to + past).min(len);
        source.read(read_from, read_to, buffer)?;
        let bytes = source.view(read_from, read_to, buffer);
        let line_after = |at: u64| {
            let at = (at - read_from) as usize;
            memchr::memchr(b'\n', &bytes[at..]).map(|i| read_from + (at + i) as u64 + 1)
        };
        let start = if k == 0 {
            Some(0)
        } else {
            line_after(read_from)
        };
        let end = if to == len {
            Some(len)
        } else {
            line_after(to - 1)
        };
        match (start, end) {
            (Some(start), Some(end)) => break (start..end, read_to),
            // The body ends without a line end: the chunk runs to it (or has no line of its own).
            _ if read_to == len => break (start.unwrap_or(len)..len, read_to),
            _ => past *= 2,
        }
    };
    if bounds.start >= bounds.end {
        return Ok(None);
    }
    let bytes = source.view(read_from, read_to, buffer);
    let slice = (bounds.start - read_from) as usize..(bounds.end - read_from) as usize;
    Ok(Some((bounds, &bytes[slice])))
}

/// Takes the chunks as they are read, in any order, and joins each one once every chunk before it
/// is joined, with its line numbers put right.
fn join_in_order<'l>(
    source: &impl Source,
    reading: Reading<'l>,
    chunks: mpsc::Receiver<(usize, Result<Option<Relative<'l>>, Stop>)>,
    count: usize,
    mut each: impl FnMut(Chunk<'l>),
) -> Result<Joined, Stop> {
    let mut waiting: Vec<Option<Option<Relative<'l>>>> = (0..count).map(|_| None).collect();
    let (mut joined, mut line) = (0, reading.first_line);
    let mut joiner = Joiner::new();
    let mut movements = Movements::default();
    for (k, chunk) in chunks {
        waiting[k] = Some(chunk?);
        while let Some(chunk) = waiting.get_mut(joined).and_then(Option::take) {
            joined += 1;
            let Some(relative) = chunk else { continue };
            let (line_ends, length) = (
                relative.chunk.line_ends,
                relative.at.end - relative.at.start,
            );
            let (chunk, part) = lines_put_right(source, reading, relative, line, &movements)?;
            movements.learn(&chunk);
            line += line_ends;
            let first = joiner
                .is_empty()
                .then(|| expected_sizes(source.len(), length, &part));
            if let Some((results, _)) = first {
                joiner.reserve(results);
            }
            joiner.add(part);
            // After the first part, whose pairs become the joined field's first ones.
            if let Some((_, pairs)) = first {
                joiner.reserve_pairs(pairs);
            }
            each(chunk);
        }
    }
    Ok(joiner.finish())
}

/// About how many results and pairs a body of `body` bytes has, from its first chunk's, `part`
/// of `chunk` bytes. No row with a result is shorter than 8 bytes (`1,1,2,0` and its line end).
/// Pairs are as many as the chunk's share tells when the file is written club by club (most
/// pairs in one chunk), but no more than a field whose pairs play 16 boards each has: in a file
/// sorted by board the first chunk has nearly every pair.
fn expected_sizes(body: u64, chunk: u64, part: &Part) -> (usize, usize) {
    let share = body as f64 / chunk.max(1) as f64;
    let results = ((part.len() as f64 * share * 1.05) as u64).min(body / 8 + 1) as usize;
    let pairs = ((part.pairs() as f64 * share * 1.05) as usize).min(results / 8);
    (results, pairs)
}

/// The chunk with its line numbers counted from the file's start, its first line being `first`,
/// and its sections checked against the `movements` earlier chunks gave them.
fn lines_put_right<'l>(
    source: &impl Source,
    reading: Reading<'l>,
    relative: Relative<'l>,
    first: u64,
    movements: &Movements,
) -> Result<(Chunk<'l>, Part), Stop> {
    let Relative {
        mut chunk,
        mut part,
        at,
    } = relative;
    if chunk.names_lines() || movements.differ(&chunk) {
        let mut buffer = Vec::new();
        source
            .read(at.start, at.end, &mut buffer)
            .map_err(Stop::Io)?;
        let bytes = source.view(at.start, at.end, &buffer);
        let mut builder = FieldBuilder::new(reading.legal);
        movements.tell(&chunk, &mut builder);
        let scan = crate::csv_fast::Scan::new(&reading.layout);
        let (file, layout) = (reading.file, reading.layout);
        chunk = crate::csv_fast::read_chunk_with(file, bytes, first, layout, builder, scan);
        part = Part::new(std::mem::take(&mut chunk.builder.field));
    } else {
        chunk.move_lines(first);
    }
    Ok((chunk, part))
}

/// The movement the chunks joined so far gave each club's section, with the line that gave it.
#[derive(Default)]
struct Movements(FxHashMap<String, FxHashMap<String, (Movement, u64)>>);

impl Movements {
    fn get(&self, club: &str, section: &str) -> Option<(Movement, u64)> {
        self.0.get(club)?.get(section).copied()
    }

    /// Whether the chunk gives a section another movement than an earlier chunk gave it.
    fn differ(&self, chunk: &Chunk<'_>) -> bool {
        let known = |(club, section, movement, _): &(String, String, Movement, u64)| {
            self.get(club, section).is_some_and(|(m, _)| m != *movement)
        };
        chunk.movements.iter().any(known)
    }

    /// Tells `builder` the movements earlier chunks gave the chunk's sections.
    fn tell(&self, chunk: &Chunk<'_>, builder: &mut FieldBuilder<'_>) {
        for (club, section, ..) in &chunk.movements {
            if let Some((movement, line)) = self.get(club, section) {
                builder.set_movement(club, section, movement, line);
            }
        }
    }

    /// Learns the movements the chunk gives sections no earlier chunk named.
    fn learn(&mut self, chunk: &Chunk<'_>) {
        for (club, section, movement, line) in &chunk.movements {
            let sections = match self.0.get_mut(club.as_str()) {
                Some(sections) => sections,
                None => self.0.entry(club.clone()).or_default(),
            };
            if !sections.contains_key(section.as_str()) {
                sections.insert(section.clone(), (*movement, *line));
            }
        }
    }
}
