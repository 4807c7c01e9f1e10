//! Joining fields read in parallel into one, in order. A [`Joiner`] takes each part as soon as
//! the parts before it are taken: it adds the part's names to the joined field's, and appends the
//! part's results with their pairs renumbered, so that a large file's names and results are joined
//! while the rest of it is still being read. [`Field::concat`] joins parts all at once.

use super::{Field, GroupId, PairId};

/// A part to join, with the boards (1 to 64) each of its pairs played, one bit a board: `None`
/// when a pair played a board twice in the part, or a board is above 64. Made where the part was
/// read, while its rows are still in the processor's cache.
#[derive(Debug)]
pub struct Part {
    field: Field,
    boards_played: Option<Vec<u64>>,
}

/// Takes parts in order, joining each one's names and results into the joined field as it comes:
/// the same field as one built from the parts' rows in order.
#[derive(Debug)]
pub struct Joiner {
    out: Field,
    parts: usize,
    /// The boards each joined pair played so far, one bit a board; `None` once one may have been
    /// played twice.
    boards_played: Option<Vec<u64>>,
}

/// A joined field, and whether the quick check found that no pair can have played a board twice
/// (then [`Field::duplicate_rows`] need not look).
#[derive(Debug)]
pub struct Joined {
    pub field: Field,
    pub no_board_played_twice: bool,
}

/// For each part, the ids in the joined field of its groups and of its pairs.
type NameMap = (Vec<GroupId>, Vec<PairId>);

impl Part {
    pub fn new(field: Field) -> Part {
        let boards_played = field.boards_played();
        Part {
            field,
            boards_played,
        }
    }

    /// How many results the part has.
    pub fn len(&self) -> usize {
        self.field.len()
    }

    /// How many pairs the part has.
    pub fn pairs(&self) -> usize {
        self.field.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.field.is_empty()
    }
}

impl Field {
    /// Joins fields read in parallel into one, in order.
    pub fn concat(parts: Vec<Field>) -> Field {
        let mut joiner = Joiner::new();
        joiner.reserve(parts.iter().map(Field::len).sum());
        for part in parts {
            joiner.add(Part::new(part));
        }
        joiner.finish().field
    }

    /// The boards each pair played, one bit a board, or `None` when a pair played one twice or a
    /// board is above 64.
    fn boards_played(&self) -> Option<Vec<u64>> {
        let mut bits = crate::zeroed::written::<u64>(self.pairs.len());
        let rows = self.boards.iter().zip(&self.ns).zip(&self.ew);
        for ((&board, &ns), &ew) in rows {
            let bit = 1u64.checked_shl(u32::from(board).checked_sub(1)?)?;
            for pair in [ns, ew] {
                let b = &mut bits[pair as usize];
                if *b & bit != 0 {
                    return None;
                }
                *b |= bit;
            }
        }
        Some(bits)
    }

    /// Appends a part's results, their pairs renumbered by `pairs` and their groups by `groups`.
    fn append_renumbered(&mut self, part: &Field, (groups, pairs): &NameMap) {
        let start = self.len();
        let renumber = |p: &PairId| pairs[*p as usize];
        self.boards.extend_from_slice(&part.boards);
        self.scores.extend_from_slice(&part.scores);
        self.ns.extend(part.ns.iter().map(renumber));
        self.ew.extend(part.ew.iter().map(renumber));
        self.max_board = self.max_board.max(part.max_board);
        self.specials
            .extend(part.specials.iter().map(|&(row, mut special)| {
                special.group = special.group.map(|g| groups[g as usize]);
                (row + start as u32, special)
            }));
    }
}

impl Default for Joiner {
    fn default() -> Joiner {
        Joiner::new()
    }
}

impl Joiner {
    pub fn new() -> Joiner {
        Joiner {
            out: Field::new(),
            parts: 0,
            boards_played: Some(Vec::new()),
        }
    }

    /// Room for about `results` results in all.
    pub fn reserve(&mut self, results: usize) {
        self.out.reserve(results.saturating_sub(self.out.len()));
    }

    /// Room for about `pairs` pairs in all: a national field's pairs, added part by part,
    /// otherwise moved to an allocation twice as large a dozen times. Asked after the first part
    /// is joined, whose pairs become the joined field's first ones.
    pub fn reserve_pairs(&mut self, pairs: usize) {
        self.out
            .reserve_pairs(pairs.saturating_sub(self.out.pairs.len()));
    }

    /// How many results were joined so far.
    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// Joins the next part, in order.
    pub fn add(&mut self, part: Part) {
        let Part {
            field: mut part,
            boards_played,
        } = part;
        let map = if self.parts == 0 {
            take_first_names(&mut self.out, &mut part);
            let identity = |n: usize| (0..n as u32).collect::<Vec<u32>>();
            (
                identity(self.out.groups.len()),
                identity(self.out.pairs.len()),
            )
        } else {
            self.out.take_names_of(&part)
        };
        self.out.append_renumbered(&part, &map);
        self.note_boards_played(boards_played, &map.1);
        self.parts += 1;
    }

    /// Lays a part's boards played over those of the pairs joined so far.
    fn note_boards_played(&mut self, part: Option<Vec<u64>>, pairs: &[PairId]) {
        let (Some(joined), Some(part)) = (&mut self.boards_played, part) else {
            self.boards_played = None;
            return;
        };
        joined.resize(self.out.pairs.len(), 0);
        for (&bits, &pair) in part.iter().zip(pairs) {
            let seen = &mut joined[pair as usize];
            if *seen & bits != 0 {
                self.boards_played = None;
                return;
            }
            *seen |= bits;
        }
    }

    /// The joined field, its columns' spare room given back.
    pub fn finish(mut self) -> Joined {
        self.out.boards.shrink_to_fit();
        self.out.ns.shrink_to_fit();
        self.out.ew.shrink_to_fit();
        self.out.scores.shrink_to_fit();
        Joined {
            field: self.out,
            no_board_played_twice: self.boards_played.is_some(),
        }
    }
}

/// Takes `first`'s names over whole as the joined field's first names, in the same order, instead
/// of interning them again one by one.
fn take_first_names(out: &mut Field, first: &mut Field) {
    out.clubs = std::mem::take(&mut first.clubs);
    out.sections = std::mem::take(&mut first.sections);
    out.groups = std::mem::take(&mut first.groups);
    out.group_index = std::mem::take(&mut first.group_index);
    out.pairs = std::mem::take(&mut first.pairs);
    out.directions = std::mem::take(&mut first.directions);
    out.pair_index = std::mem::take(&mut first.pair_index);
    out.numbered = std::mem::take(&mut first.numbered);
    out.labels = std::mem::take(&mut first.labels);
}
