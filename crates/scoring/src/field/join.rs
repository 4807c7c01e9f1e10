//! Joining fields read in parallel into one, in order. [`Field::concat`] copies whole parts;
//! [`JoinedRows`] lets each part move its rows straight into the joined field's columns while the
//! other parts are still being read ([`Field::place`]), and a [`Joiner`] takes each placed part's
//! names as soon as the parts before it are taken, so that a large file's results are held once
//! instead of twice and its names are joined while the rest of it is still being read.

use rayon::prelude::*;

use super::{Field, GroupId, PairId};

/// A joined field's result columns, made before its parts are read: each part, read in parallel,
/// moves its rows into its own slice ([`Field::place`]), and [`Joiner::finish`] then renumbers
/// the parts' pairs and closes the room parts left unused.
#[derive(Debug)]
pub struct JoinedRows {
    boards: Vec<u16>,
    ns: Vec<PairId>,
    ew: Vec<PairId>,
    scores: Vec<i32>,
    /// Where each part's slice starts, then where the last one ends.
    starts: Vec<usize>,
}

/// One part's slice of [`JoinedRows`].
#[derive(Debug)]
pub struct RowSlot<'a> {
    boards: &'a mut [u16],
    ns: &'a mut [PairId],
    ew: &'a mut [PairId],
    scores: &'a mut [i32],
}

/// A part whose rows were moved into its [`RowSlot`]: its names and special rows, for a
/// [`Joiner`].
#[derive(Debug)]
pub struct PlacedPart {
    rest: Field,
    rows: usize,
    /// The boards (1 to 64) each of the part's pairs played, one bit a board; `None` when a pair
    /// played a board twice in the part, or a board is above 64.
    boards_played: Option<Vec<u64>>,
}

/// Takes placed parts in order, joining each one's names into the joined field as it comes, then
/// joins their rows ([`Joiner::finish`]): the same field as [`Field::concat`] of the parts.
#[derive(Debug, Default)]
pub struct Joiner {
    out: Field,
    maps: NameMaps,
    lens: Vec<usize>,
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
type NameMaps = Vec<(Vec<GroupId>, Vec<PairId>)>;

impl JoinedRows {
    /// Room for parts of at most `room[k]` results each. The columns are not written here: the
    /// memory is touched first by the part that fills it.
    pub fn new(room: &[usize]) -> JoinedRows {
        let mut starts = Vec::with_capacity(room.len() + 1);
        let mut at = 0;
        for r in room {
            starts.push(at);
            at += r;
        }
        starts.push(at);
        JoinedRows {
            boards: vec![0; at],
            ns: vec![0; at],
            ew: vec![0; at],
            scores: vec![0; at],
            starts,
        }
    }

    /// Each part's slot, in order.
    pub fn slots(&mut self) -> Vec<RowSlot<'_>> {
        let (mut boards, mut ns) = (&mut self.boards[..], &mut self.ns[..]);
        let (mut ew, mut scores) = (&mut self.ew[..], &mut self.scores[..]);
        let mut slots = Vec::with_capacity(self.starts.len().saturating_sub(1));
        for w in self.starts.windows(2) {
            let n = w[1] - w[0];
            let (b, b_rest) = std::mem::take(&mut boards).split_at_mut(n);
            let (p, p_rest) = std::mem::take(&mut ns).split_at_mut(n);
            let (e, e_rest) = std::mem::take(&mut ew).split_at_mut(n);
            let (s, s_rest) = std::mem::take(&mut scores).split_at_mut(n);
            (boards, ns, ew, scores) = (b_rest, p_rest, e_rest, s_rest);
            slots.push(RowSlot {
                boards: b,
                ns: p,
                ew: e,
                scores: s,
            });
        }
        slots
    }

    /// Moves each part's `lens[k]` rows down to follow the part before, closing the room left
    /// unused between them; returns where each part now starts.
    fn close_gaps(&mut self, lens: &[usize]) -> Vec<usize> {
        let mut at = 0;
        let mut starts = Vec::with_capacity(lens.len());
        for (&from, &n) in self.starts.iter().zip(lens) {
            if from != at {
                self.boards.copy_within(from..from + n, at);
                self.ns.copy_within(from..from + n, at);
                self.ew.copy_within(from..from + n, at);
                self.scores.copy_within(from..from + n, at);
            }
            starts.push(at);
            at += n;
        }
        self.boards.truncate(at);
        self.ns.truncate(at);
        self.ew.truncate(at);
        self.scores.truncate(at);
        starts
    }
}

impl RowSlot<'_> {
    /// Copies `part`'s rows to the start of the slot, its pairs renumbered by `pairs` when given.
    fn fill(&mut self, part: &Field, pairs: Option<&[PairId]>) {
        let n = part.len();
        assert!(
            n <= self.boards.len(),
            "a part of {n} results was given room for {}",
            self.boards.len()
        );
        self.boards[..n].copy_from_slice(&part.boards);
        self.scores[..n].copy_from_slice(&part.scores);
        match pairs {
            Some(pairs) => {
                let renumber = |(o, &p): (&mut PairId, &PairId)| *o = pairs[p as usize];
                self.ns.iter_mut().zip(&part.ns).for_each(renumber);
                self.ew.iter_mut().zip(&part.ew).for_each(renumber);
            }
            None => {
                self.ns[..n].copy_from_slice(&part.ns);
                self.ew[..n].copy_from_slice(&part.ew);
            }
        }
    }

    /// Renumbers the first `n` rows' pairs by `pairs`.
    fn renumber(&mut self, n: usize, pairs: &[PairId]) {
        for p in self.ns[..n].iter_mut().chain(&mut self.ew[..n]) {
            *p = pairs[*p as usize];
        }
    }
}

impl Field {
    /// Joins fields read in parallel into one, in order: names are merged once per part and the
    /// result columns are filled in parallel.
    pub fn concat(mut parts: Vec<Field>) -> Field {
        let (mut out, maps) = joined_names(&mut parts);
        let lens: Vec<usize> = parts.iter().map(Field::len).collect();
        let mut rows = JoinedRows::new(&lens);
        rows.slots()
            .into_par_iter()
            .zip(parts.par_iter().zip(maps.par_iter()))
            .for_each(|(mut slot, (part, (_, pairs)))| slot.fill(part, Some(pairs)));
        out.take_rows(rows, &parts, &lens, &maps);
        out
    }

    /// Moves this part's rows into `slot`, which must have room for them, keeping its names and
    /// special rows for [`Field::join`]. The rows keep this part's pair ids until then.
    pub fn place(mut self, slot: &mut RowSlot<'_>) -> PlacedPart {
        slot.fill(&self, None);
        let rows = self.len();
        let boards_played = self.boards_played();
        // Given back now: the next part read on this thread can take the same memory.
        self.boards = Vec::new();
        self.ns = Vec::new();
        self.ew = Vec::new();
        self.scores = Vec::new();
        PlacedPart {
            rest: self,
            rows,
            boards_played,
        }
    }

    /// The boards each pair played, one bit a board, or `None` when a pair played one twice or a
    /// board is above 64.
    fn boards_played(&self) -> Option<Vec<u64>> {
        let mut bits = vec![0u64; self.pairs.len()];
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

    /// Takes the joined columns, the highest board and the parts' special rows.
    fn take_rows(
        &mut self,
        mut rows: JoinedRows,
        parts: &[Field],
        lens: &[usize],
        maps: &NameMaps,
    ) {
        let starts = rows.close_gaps(lens);
        self.take_columns(rows);
        for ((part, (groups, _)), start) in parts.iter().zip(maps).zip(starts) {
            self.take_specials(part, groups, start);
        }
    }

    /// The joined columns, their gaps closed.
    fn take_columns(&mut self, rows: JoinedRows) {
        self.boards = rows.boards;
        self.ns = rows.ns;
        self.ew = rows.ew;
        self.scores = rows.scores;
    }

    /// A part's special rows and highest board, its rows starting at `start` here and its groups
    /// renumbered by `groups`.
    fn take_specials(&mut self, part: &Field, groups: &[GroupId], start: usize) {
        self.max_board = self.max_board.max(part.max_board);
        self.specials
            .extend(part.specials.iter().map(|&(row, mut special)| {
                special.group = special.group.map(|g| groups[g as usize]);
                (row + start as u32, special)
            }));
    }
}

impl Joiner {
    pub fn new() -> Joiner {
        Joiner {
            boards_played: Some(Vec::new()),
            ..Joiner::default()
        }
    }

    /// Joins the names of the next part, in the order of the slots; the part's rows stay where
    /// [`Field::place`] moved them until [`Joiner::finish`].
    pub fn add(&mut self, part: PlacedPart) {
        let PlacedPart {
            mut rest,
            rows,
            boards_played,
        } = part;
        let map = if self.lens.is_empty() {
            take_first_names(&mut self.out, &mut rest);
            let identity = |n: usize| (0..n as u32).collect::<Vec<u32>>();
            (
                identity(self.out.groups.len()),
                identity(self.out.pairs.len()),
            )
        } else {
            self.out.take_names_of(&rest)
        };
        let start = self.lens.iter().sum();
        self.out.take_specials(&rest, &map.0, start);
        self.note_boards_played(boards_played, &map.1);
        self.maps.push(map);
        self.lens.push(rows);
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

    /// The joined field: each part's pairs renumbered in its slot of `rows`, and the room the
    /// parts left unused closed. `rows` must be the rows the parts were placed in, in order.
    pub fn finish(self, mut rows: JoinedRows) -> Joined {
        let Joiner {
            mut out,
            maps,
            lens,
            boards_played,
        } = self;
        rows.slots()
            .into_par_iter()
            .zip(lens.par_iter().zip(maps.par_iter()))
            .for_each(|(mut slot, (&n, (_, pairs)))| slot.renumber(n, pairs));
        rows.close_gaps(&lens);
        out.take_columns(rows);
        Joined {
            field: out,
            no_board_played_twice: boards_played.is_some(),
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
    out.pair_index = std::mem::take(&mut first.pair_index);
    out.numbered = std::mem::take(&mut first.numbered);
    out.labels = std::mem::take(&mut first.labels);
}

/// A field with no results holding every part's names, and each part's map onto them. The first
/// part's names are the joined field's first names, in the same order: they are taken over whole
/// instead of being interned again one by one; the others' are added part by part, in order.
fn joined_names(parts: &mut [Field]) -> (Field, NameMaps) {
    let mut out = Field::new();
    if let Some(first) = parts.first_mut() {
        take_first_names(&mut out, first);
    }
    // Room for every part's pairs and units: the indexes are not rebuilt as they grow.
    let later = parts.iter().skip(1);
    out.pairs
        .reserve(later.clone().map(|p| p.pairs.len()).sum());
    out.pair_index
        .reserve(later.clone().map(|p| p.pair_index.len()).sum());
    let units = later.map(|p| p.numbered.units.len()).sum();
    out.numbered.index.reserve(units);
    out.numbered.units.reserve(units);
    let identity = |n: usize| (0..n as u32).collect::<Vec<u32>>();
    let first_map = (identity(out.groups.len()), identity(out.pairs.len()));
    let later_maps: NameMaps = parts
        .iter()
        .skip(1)
        .map(|part| out.take_names_of(part))
        .collect();
    let maps = std::iter::once(first_map)
        .chain(later_maps)
        .take(parts.len())
        .collect();
    (out, maps)
}
