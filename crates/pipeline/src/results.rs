//! One club's results in force, as the aggregator's state and the projection keep them.
//!
//! A club has a few hundred results, and the whole nation millions. They are kept per club, in
//! table order (section, board, NS pair, EW pair: the order of
//! [`simpairs_events::types::ResultKey`]), each table once, as references into the
//! applied submissions that brought them: the state, replay and the projection share the
//! `SubmissionApplied` they hold, not a copy of every result. A table is found by binary search on the
//! result's own fields, so no key is copied out of a result either. (A map keyed by `ResultKey`
//! with a copy of each result was most of the cost of applying a submission: five strings copied
//! and a map node per result.) The aggregator, which holds a national event's results for as long
//! as it runs, keeps each submission packed from the moment it applies
//! ([`ClubResults::apply_packed`]): about 11 bytes a result instead of 216, read back only when the
//! club sends a correction. Its results come listed in table order, so a club's first submission
//! needs no rows at all.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use simpairs_events::PackedApplied;
use simpairs_events::types::{AppliedResult, Movement, ResultKey, SubmissionApplied};

/// A table's identity borrowed from a result or a key: (section, board, NS pair, EW pair). Tuples
/// compare field by field, as `ResultKey` does.
pub(crate) type Table<'a> = (&'a str, i32, &'a str, &'a str);

pub(crate) fn table_of(r: &AppliedResult) -> Table<'_> {
    (&r.section, r.board, &r.ns_pair, &r.ew_pair)
}

fn table_of_key(k: &ResultKey) -> Table<'_> {
    (&k.section, k.board, &k.ns_pair, &k.ew_pair)
}

/// Whether `r` is the result of the table `key`.
pub(crate) fn is_table(r: &AppliedResult, key: &ResultKey) -> bool {
    table_of(r) == table_of_key(key)
}

/// An applied submission whose results are (or were) in force.
#[derive(Debug, Clone)]
enum Source {
    /// Decoded, shared with the event that announced it.
    Shared(Arc<SubmissionApplied>),
    /// Kept in its encoding ([`ClubResults::apply_packed`]) and decoded again only when asked
    /// (boxed: a club keeps a source or two, and thousands of clubs are held packed).
    Packed {
        packed: PackedApplied,
        decoded: OnceLock<Box<SubmissionApplied>>,
    },
}

impl Source {
    fn submission(&self) -> &SubmissionApplied {
        match self {
            Source::Shared(applied) => applied,
            Source::Packed { packed, decoded } => decoded.get_or_init(|| Box::new(unpack(packed))),
        }
    }
}

/// A submission this program packed.
pub(crate) fn unpack(packed: &PackedApplied) -> SubmissionApplied {
    // Not outside input: bytes this program wrote from a submission it held decoded, in memory
    // since (the round trip is a property test of `PackedApplied`).
    packed
        .unpack()
        .unwrap_or_else(|e| panic!("a packed submission no longer reads: {e}"))
}

/// How a result in force stands to what the club's first applied submission gave for its table
/// ([`ClubResults::filter_since_first`]): what a player is shown of a correction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SinceFirst<'a> {
    /// The first submission's result, or the same result given again.
    Unchanged,
    /// A later submission changed it: the first one's result.
    Corrected(&'a AppliedResult),
    /// A later submission gave a table the first one did not.
    Added,
}

/// A result in force: which of the club's sources brought it, and its place among that
/// submission's results. (Indices, not a pointer each: a national event has millions.)
#[derive(Debug, Clone, Copy)]
struct Row {
    source: u32,
    at: u32,
}

/// One club's results in force: in table order, one per table.
#[derive(Debug, Default, Clone)]
pub struct ClubResults {
    sources: Vec<Source>,
    rows: Vec<Row>,
    /// While `rows` is empty, the rows are the first `given` results of the first source, in the
    /// order given: a club's usual single upload, listed in table order, stores no row at all.
    given: u32,
}

impl ClubResults {
    /// How many tables have a result in force.
    pub fn len(&self) -> usize {
        match self.rows.len() {
            0 => self.given as usize,
            n => n,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`th row in force, in table order.
    fn row(&self, i: usize) -> Row {
        match self.rows.get(i) {
            Some(&row) => row,
            None => Row {
                source: 0,
                at: i as u32,
            },
        }
    }

    fn rows(&self) -> impl ExactSizeIterator<Item = Row> + '_ {
        (0..self.len()).map(|i| self.row(i))
    }

    fn source(&self, row: Row) -> &SubmissionApplied {
        self.sources[row.source as usize].submission()
    }

    fn result(&self, row: Row) -> &AppliedResult {
        &self.source(row).results[row.at as usize]
    }

    /// The results in table order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &AppliedResult> + '_ {
        self.rows().map(|row| self.result(row))
    }

    /// The results in table order, each with the applied submission that brought it.
    pub fn iter_sourced(
        &self,
    ) -> impl ExactSizeIterator<Item = (&AppliedResult, &SubmissionApplied)> + '_ {
        self.rows().map(|row| (self.result(row), self.source(row)))
    }

    /// The results in table order that `keep` keeps, each with how it stands to the club's first
    /// applied submission (looked up for those kept only: a scorecard keeps a pair's boards).
    pub fn filter_since_first<'a>(
        &'a self,
        keep: impl Fn(&AppliedResult) -> bool + 'a,
    ) -> impl Iterator<Item = (&'a AppliedResult, SinceFirst<'a>)> + 'a {
        self.rows()
            .map(|row| (row, self.result(row)))
            .filter(move |(_, r)| keep(r))
            .map(|(row, r)| (r, self.since_first(row, r)))
    }

    fn since_first(&self, row: Row, r: &AppliedResult) -> SinceFirst<'_> {
        if row.source == 0 {
            return SinceFirst::Unchanged;
        }
        // The first submission is kept while the club has results (`drop_unused_sources`); of a
        // table it gave twice, the later result was in force.
        let first = self.sources[0].submission();
        let table = table_of(r);
        match first.results.iter().rev().find(|f| table_of(f) == table) {
            Some(f) if f == r => SinceFirst::Unchanged,
            Some(f) => SinceFirst::Corrected(f),
            None => SinceFirst::Added,
        }
    }

    /// Calls `f` with each result in table order, as [`ClubResults::iter`] gives them, but
    /// decodes packed submissions for this walk only: the aggregator builds a club's field from
    /// its results without keeping them decoded.
    pub fn visit(&self, mut f: impl FnMut(&AppliedResult)) {
        self.with_decoded(|sources| {
            for row in self.rows() {
                f(&sources[row.source as usize].results[row.at as usize]);
            }
        });
    }

    /// Calls `f` with each table of the club's first submission that a later one changed or took
    /// out: the first submission's result, then the result in force with the submission that
    /// brought it, or none where the table was taken out (no line in force is of its table or
    /// seats one of its pairs on its board). Packed submissions are decoded for this walk only,
    /// and only when the club has sent anything since its first.
    pub(crate) fn visit_changed_since_first(
        &self,
        mut f: impl FnMut(&AppliedResult, Option<(&AppliedResult, &SubmissionApplied)>),
    ) {
        if self.rows.is_empty() {
            return;
        }
        self.with_decoded(|sources| {
            let mut now: HashMap<Table, (&AppliedResult, u32)> = HashMap::new();
            let mut seated: HashSet<(&str, i32, Seat)> = HashSet::new();
            for row in self.rows() {
                let r = &sources[row.source as usize].results[row.at as usize];
                now.insert(table_of(r), (r, row.source));
                seated.extend(seats(r).map(|s| (r.section.as_str(), r.board, s)));
            }
            let first = &sources[0].results;
            // Of a table the first submission gave twice, the later result was in force.
            let last: HashMap<Table, usize> = first
                .iter()
                .enumerate()
                .map(|(i, r)| (table_of(r), i))
                .collect();
            for (i, was) in first.iter().enumerate() {
                if last[&table_of(was)] != i {
                    continue;
                }
                match now.get(&table_of(was)) {
                    Some(&(r, source)) if source != 0 && r != was => {
                        f(was, Some((r, sources[source as usize])));
                    }
                    Some(_) => {}
                    None => {
                        let at = |s| seated.contains(&(was.section.as_str(), was.board, s));
                        if !seats(was).into_iter().any(at) {
                            f(was, None);
                        }
                    }
                }
            }
        });
    }

    /// Calls `f` with every source decoded, a packed one that is not kept decoded for this call
    /// only.
    fn with_decoded(&self, f: impl FnOnce(&[&SubmissionApplied])) {
        let unpacked: Vec<Option<SubmissionApplied>> = self
            .sources
            .iter()
            .map(|s| match s {
                Source::Packed { packed, decoded } if decoded.get().is_none() => {
                    Some(unpack(packed))
                }
                _ => None,
            })
            .collect();
        let sources: Vec<&SubmissionApplied> = (unpacked.iter().zip(&self.sources))
            .map(|(unpacked, source)| unpacked.as_ref().unwrap_or_else(|| source.submission()))
            .collect();
        f(&sources);
    }

    /// How many of the results in force each applied submission brought, by submission id (a
    /// submission whose every line a later one replaced has none). Packed submissions are decoded
    /// for this count only.
    pub fn in_force_by_submission(&self) -> HashMap<String, usize> {
        let mut rows = vec![0usize; self.sources.len()];
        for row in self.rows() {
            rows[row.source as usize] += 1;
        }
        let id = |source: &Source| match source {
            Source::Packed { packed, decoded } if decoded.get().is_none() => {
                unpack(packed).submission_id.to_string()
            }
            source => source.submission().submission_id.to_string(),
        };
        (self.sources.iter().zip(rows))
            .filter(|(_, n)| *n > 0)
            .map(|(source, n)| (id(source), n))
            .collect()
    }

    fn find(&self, key: &ResultKey) -> Result<usize, usize> {
        let key = table_of_key(key);
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match table_of(self.result(self.row(mid))).cmp(&key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(low)
    }

    /// The result in force of a table.
    pub fn get(&self, key: &ResultKey) -> Option<&AppliedResult> {
        self.find(key).ok().map(|at| self.result(self.row(at)))
    }

    /// Puts the results of an applied submission in force, then takes its withdrawals out. Each
    /// result replaces the result of its table; where a table is given twice the later one is in
    /// force.
    pub fn apply(&mut self, applied: &Arc<SubmissionApplied>) {
        let results = &applied.results;
        // Every submission the judge applied (all that an index or the aggregator's stream holds)
        // lists its results in table order, each table once: a club's first is then kept as it
        // is, unsorted.
        if results
            .windows(2)
            .all(|w| table_of(&w[0]) < table_of(&w[1]))
        {
            return self.apply_in_order(applied);
        }
        // Put in table order first (as numbers, where the texts are short), so that the sort of
        // `merge` only merges, comparing few texts.
        let mut order = table_order(results);
        keep_last(&mut order, |a, b| {
            table_of(&results[*a as usize]) == table_of(&results[*b as usize])
        });
        let source = Source::Shared(applied.clone());
        self.merge(source, order, &applied.withdrawn);
    }

    /// [`ClubResults::apply`] of a submission whose results are listed in table order, each
    /// table once, as the aggregator's checks give them: a club's first submission is then
    /// kept as it is, with no rows.
    pub(crate) fn apply_in_order(&mut self, applied: &Arc<SubmissionApplied>) {
        let source = Source::Shared(applied.clone());
        self.merge(source, 0..applied.results.len() as u32, &applied.withdrawn);
    }

    /// [`ClubResults::apply_in_order`] of a submission of `results` results kept packed from
    /// the start (the aggregator's: [`crate::announce`]), with its withdrawals. Its results are
    /// decoded only if they must be merged with results already in force, and not kept so.
    pub(crate) fn apply_packed(
        &mut self,
        packed: PackedApplied,
        results: u32,
        withdrawn: &[ResultKey],
    ) {
        let source = Source::Packed {
            packed,
            decoded: OnceLock::new(),
        };
        self.merge(source, 0..results, withdrawn);
    }

    /// Puts the results of `source` in force, listed in table order by `order` (each table once),
    /// then takes `withdrawn` out: the sort below is then a merge of two sorted runs, and none at
    /// all for a club's first submission, whose packed results are then not read at all.
    fn merge(
        &mut self,
        source: Source,
        order: impl IntoIterator<Item = u32>,
        withdrawn: &[ResultKey],
    ) {
        // The rows in force, then the new ones, in a stable sort: a table's new result ends up
        // just after the one in force, and stays. The rows in force are one sorted run already,
        // so the sort is mostly a merge.
        let at = self.sources.len() as u32;
        // Most clubs send one submission: no room kept for more.
        self.sources.reserve_exact(1);
        self.sources.push(source);
        let mut rows: Vec<Row> = self.rows().collect();
        self.given = 0;
        let in_force = rows.len();
        rows.extend(order.into_iter().map(|i| Row { source: at, at: i }));
        let table = |row: &Row| table_of(self.result(*row));
        // A club's first submission is in order already: only a later one has two runs to merge.
        if in_force > 0 {
            rows.sort_by(|a, b| table(a).cmp(&table(b)));
            keep_last(&mut rows, |a, b| table(a) == table(b));
            self.drop_replaced(&mut rows, at);
        }
        debug_assert!(
            rows.is_sorted_by(|a, b| table(a) < table(b)),
            "a submission's results listed out of table order, or a table twice"
        );
        self.rows = rows;
        for key in withdrawn {
            if let Ok(at) = self.find(key) {
                self.rows.remove(at);
            }
        }
        self.drop_unused_sources();
        // Merging (or checking, or withdrawing from) packed submissions decoded them: they go
        // back to their packed size.
        for source in &mut self.sources {
            if let Source::Packed { decoded, .. } = source {
                decoded.take();
            }
        }
        let given = self
            .rows
            .iter()
            .zip(0..)
            .all(|(r, at)| r.source == 0 && r.at == at);
        if given && self.sources.len() == 1 {
            self.given = self.rows.len() as u32;
            self.rows = Vec::new();
        }
    }

    /// Takes out of `rows` (in table order) each result in force on a board where a result of the
    /// new submission (source `at`) seats one of its pairs: a pair plays a board once, so a
    /// corrected line that changes a pair number replaces the line it corrects, as a line of the
    /// same table does (docs/rules.md, "Corrections").
    fn drop_replaced(&self, rows: &mut Vec<Row>, at: u32) {
        let board_of = |row: &Row| {
            let r = self.result(*row);
            (r.section.as_str(), r.board)
        };
        let mut kept = Vec::with_capacity(rows.len());
        for group in rows.chunk_by(|a, b| board_of(a) == board_of(b)) {
            let new: Vec<Seat> = (group.iter())
                .filter(|r| r.source == at)
                .flat_map(|r| seats(self.result(*r)))
                .collect();
            kept.extend(group.iter().filter(|r| {
                r.source == at || !seats(self.result(**r)).iter().any(|s| new.contains(s))
            }));
        }
        *rows = kept;
    }

    /// Forgets the submissions none of whose results are in force any more, but the club's first
    /// while it has results: what a correction changed is shown against it
    /// ([`ClubResults::since_first`]).
    fn drop_unused_sources(&mut self) {
        let mut used = vec![false; self.sources.len()];
        for row in &self.rows {
            used[row.source as usize] = true;
        }
        if !self.rows.is_empty() {
            used[0] = true;
        }
        if used.iter().all(|&u| u) {
            return;
        }
        let mut renumbered = vec![0u32; used.len()];
        let mut kept = 0u32;
        for (i, &u) in used.iter().enumerate() {
            renumbered[i] = kept;
            kept += u32::from(u);
        }
        let mut i = 0;
        self.sources.retain(|_| {
            i += 1;
            used[i - 1]
        });
        for row in &mut self.rows {
            row.source = renumbered[row.source as usize];
        }
    }
}

/// A pair as a board seats it: its direction's key (`NS`, `EW`, or empty for a Howell pair, whose
/// number is the same in either direction) and its number.
pub(crate) type Seat<'a> = (&'static str, &'a str);

/// The two pairs of a result.
pub(crate) fn seats(r: &AppliedResult) -> [Seat<'_>; 2] {
    seats_of(r.movement, &r.ns_pair, &r.ew_pair)
}

/// The two pairs of a table in `movement`.
pub(crate) fn seats_of<'a>(movement: Movement, ns: &'a str, ew: &'a str) -> [Seat<'a>; 2] {
    match movement {
        Movement::Howell => [("", ns), ("", ew)],
        Movement::Mitchell => [("NS", ns), ("EW", ew)],
    }
}

/// The order of `results` by table (section, board, NS pair, EW pair, each text compared as
/// [`str`] does: [`table_of`]), as indices. Tables given twice come out next to
/// each other in the order given (the sort is stable).
pub(crate) fn table_order(results: &[AppliedResult]) -> Vec<u32> {
    /// A text of at most 8 bytes, none of them 0, as a number that orders as the text does
    /// (big-endian, padded with zeros: a shorter text sorts first, as a prefix does).
    fn packed(text: &str) -> Option<u64> {
        let bytes = text.as_bytes();
        if bytes.len() > 8 {
            return None;
        }
        // Byte by byte rather than copied into a padded array: a copy of a length only known
        // at run time is a call to `memcpy`, three for each result.
        let mut number = 0u64;
        for (&byte, shift) in bytes.iter().zip((0..8).rev()) {
            if byte == 0 {
                return None;
            }
            number |= u64::from(byte) << (8 * shift);
        }
        Some(number)
    }
    // Clubs' sections and pair numbers are short: their tables sort as numbers, without a string
    // comparison each time (a club's batches come board by board, but "10" sorts before "2").
    // Each key holds its index, so that an unstable sort of the keys themselves (no lookup
    // each comparison) leaves a table given twice in the order given.
    let mut keys = Vec::with_capacity(results.len());
    for (r, at) in results.iter().zip(0u32..) {
        let (Some(section), Some(ns), Some(ew)) =
            (packed(&r.section), packed(&r.ns_pair), packed(&r.ew_pair))
        else {
            return text_order(results);
        };
        keys.push(((section, r.board, ns, ew), at));
    }
    // A club's results come board by board: each board's few are put in order first, so that the
    // whole is then usually found in order in one pass instead of sorted again.
    for board in keys.chunk_by_mut(|a, b| (a.0.0, a.0.1) == (b.0.0, b.0.1)) {
        board.sort_unstable();
    }
    keys.sort_unstable();
    keys.into_iter().map(|(_, at)| at).collect()
}

/// Of neighbours that are the `same`, keeps the last.
fn keep_last<T>(items: &mut Vec<T>, same: impl Fn(&T, &T) -> bool) {
    // `dedup_by` keeps the first of equal neighbours: the later one is swapped into it first.
    items.dedup_by(|later, kept| {
        let is_same = same(later, kept);
        if is_same {
            std::mem::swap(later, kept);
        }
        is_same
    });
}

/// Lists `results` in the order `order` gives (indices into them, each once: [`table_order`]'s),
/// moving each result once.
pub(crate) fn put_in_order(results: &mut [AppliedResult], mut order: Vec<u32>) {
    debug_assert_eq!(order.len(), results.len());
    // Each cycle of the permutation is walked once; a place done is marked by pointing at itself.
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at] as usize;
            order[at] = at as u32;
            if from == start {
                break;
            }
            results.swap(at, from);
            at = from;
        }
    }
}

/// [`table_order`] comparing the texts themselves, for a club with a long section or pair text.
fn text_order(results: &[AppliedResult]) -> Vec<u32> {
    let mut by_table: Vec<u32> = (0..results.len() as u32).collect();
    by_table.sort_by(|&a, &b| table_of(&results[a as usize]).cmp(&table_of(&results[b as usize])));
    by_table
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::test_result::key;

    fn result(section: &str, board: i32, ns: &str, ew: &str, score: i32) -> AppliedResult {
        AppliedResult {
            section: section.into(),
            ns_score: Some(score),
            ..crate::test_result::table(board, ns, ew)
        }
    }

    fn submission(
        results: Vec<AppliedResult>,
        withdrawn: Vec<ResultKey>,
    ) -> Arc<SubmissionApplied> {
        Arc::new(SubmissionApplied {
            event_id: "E".into(),
            club_id: "C".into(),
            submission_id: "S".into(),
            seal_offset: 0,
            results,
            withdrawn,
            pairs: Vec::new(),
        })
    }

    #[test]
    fn a_result_is_told_against_the_first_submission_even_once_all_of_it_is_replaced() {
        let mut c = ClubResults::default();
        let first = vec![result("A", 1, "1", "2", 420), result("A", 2, "1", "2", 100)];
        c.apply(&submission(first.clone(), Vec::new()));
        // The whole session again: board 1 as it was, board 2 changed, board 3 added.
        let again = vec![
            result("A", 1, "1", "2", 420),
            result("A", 2, "1", "2", -50),
            result("A", 3, "1", "2", 90),
        ];
        c.apply(&submission(again, Vec::new()));
        let since: Vec<(i32, SinceFirst<'_>)> = (c.filter_since_first(|_| true))
            .map(|(r, since)| (r.board, since))
            .collect();
        let expected = [
            (1, SinceFirst::Unchanged),
            (2, SinceFirst::Corrected(&first[1])),
            (3, SinceFirst::Added),
        ];
        assert_eq!(since, expected);
        assert_eq!(
            c.sources.len(),
            2,
            "the first is kept, with none of its results in force"
        );
        let boards: Vec<i32> = c
            .filter_since_first(|r| r.board == 2)
            .map(|(r, _)| r.board)
            .collect();
        assert_eq!(boards, [2]);
    }

    fn scores(c: &ClubResults) -> Vec<(String, i32, String, String, Option<i32>)> {
        c.iter()
            .map(|r| {
                (
                    r.section.to_string(),
                    r.board,
                    r.ns_pair.to_string(),
                    r.ew_pair.to_string(),
                    r.ns_score,
                )
            })
            .collect()
    }

    #[test]
    fn results_are_kept_in_the_order_of_result_keys() {
        let given = vec![
            result("B", 1, "1", "2", 100),
            result("A", 10, "1", "2", 200),
            result("A", 2, "10", "2", 300),
            result("A", 2, "9", "2", 400),
        ];
        let mut c = ClubResults::default();
        c.apply(&submission(given.clone(), Vec::new()));
        let mut expected: Vec<ResultKey> = given
            .iter()
            .map(|r| key(&r.section, r.board, &r.ns_pair, &r.ew_pair))
            .collect();
        expected.sort();
        let kept: Vec<ResultKey> = c
            .iter()
            .map(|r| key(&r.section, r.board, &r.ns_pair, &r.ew_pair))
            .collect();
        assert_eq!(kept, expected);
        for r in &given {
            let k = key(&r.section, r.board, &r.ns_pair, &r.ew_pair);
            assert_eq!(c.get(&k), Some(r));
            assert!(is_table(r, &k));
        }
        assert_eq!(c.get(&key("A", 2, "1", "2")), None);
    }

    #[test]
    fn a_submission_in_table_order_stores_no_rows_until_corrected() {
        let mut c = ClubResults::default();
        let given = vec![result("A", 1, "1", "2", 100), result("A", 2, "1", "2", 50)];
        c.apply(&submission(given.clone(), Vec::new()));
        assert!(c.rows.is_empty());
        assert_eq!(listed(&c), given);
        assert_eq!(c.get(&key("A", 2, "1", "2")), Some(&given[1]));
        c.apply(&submission(vec![result("A", 1, "1", "2", 110)], Vec::new()));
        assert_eq!(c.rows.len(), 2, "two sources: each row is listed");
        assert_eq!(scores(&c)[0].4, Some(110));
        assert_eq!(scores(&c)[1].4, Some(50));
    }

    #[test]
    fn a_corrected_pair_number_replaces_the_line_it_corrects() {
        let mut c = ClubResults::default();
        // Board 2: NS 2 against EW 3, where EW 1 played; board 1 as played.
        c.apply(&submission(
            vec![
                result("A", 1, "1", "1", 420),
                result("A", 1, "2", "2", 450),
                result("A", 2, "1", "2", -110),
                result("A", 2, "2", "3", 600),
            ],
            Vec::new(),
        ));
        // The whole file again, the EW number put right: NS 2 plays board 2 once, against EW 1.
        c.apply(&submission(
            vec![
                result("A", 1, "1", "1", 420),
                result("A", 1, "2", "2", 450),
                result("A", 2, "1", "2", -110),
                result("A", 2, "2", "1", 600),
            ],
            Vec::new(),
        ));
        let tables: Vec<(i32, String, String)> = scores(&c)
            .into_iter()
            .map(|(_, b, ns, ew, _)| (b, ns, ew))
            .collect();
        let expected = [(1, "1", "1"), (1, "2", "2"), (2, "1", "2"), (2, "2", "1")];
        assert_eq!(
            tables,
            expected.map(|(b, ns, ew)| (b, ns.into(), ew.into()))
        );
        // One line alone, the NS number put right (NS 3 played EW 2, entered as NS 2): the line it
        // corrects goes, the other lines of the board stay.
        c.apply(&submission(vec![result("A", 1, "3", "2", 400)], Vec::new()));
        let board_1: Vec<(String, String)> = (scores(&c).into_iter())
            .filter(|t| t.1 == 1)
            .map(|(_, _, ns, ew, _)| (ns, ew))
            .collect();
        assert_eq!(
            board_1,
            [("1".into(), "1".into()), ("3".into(), "2".into())]
        );
        // Another section, or another board, with the same numbers is another pair or play.
        c.apply(&submission(vec![result("B", 2, "2", "1", 100)], Vec::new()));
        assert_eq!(c.len(), 5);
    }

    #[test]
    fn a_howell_pair_plays_a_board_once_in_either_direction() {
        let howell = |board, ns: &str, ew: &str, score| AppliedResult {
            movement: simpairs_events::types::Movement::Howell,
            ..result("A", board, ns, ew, score)
        };
        let mut c = ClubResults::default();
        c.apply(&submission(
            vec![howell(1, "1", "2", 420), howell(1, "3", "4", 450)],
            Vec::new(),
        ));
        // Pair 4 entered as NS against 1, on the line of pairs 3 and 4: that line goes.
        c.apply(&submission(vec![howell(1, "4", "5", 100)], Vec::new()));
        let tables: Vec<(String, String)> = scores(&c)
            .into_iter()
            .map(|(_, _, ns, ew, _)| (ns, ew))
            .collect();
        assert_eq!(tables, [("1".into(), "2".into()), ("4".into(), "5".into())]);
    }

    #[test]
    fn a_later_result_of_a_table_supersedes_and_a_withdrawal_takes_it_out() {
        let mut c = ClubResults::default();
        // A table given twice in one submission: the later one is in force.
        c.apply(&submission(
            vec![
                result("A", 1, "1", "2", 100),
                result("A", 2, "1", "2", 50),
                result("A", 1, "1", "2", 110),
            ],
            Vec::new(),
        ));
        assert_eq!(c.len(), 2);
        assert_eq!(c.get(&key("A", 1, "1", "2")).unwrap().ns_score, Some(110));
        // A correction replaces one table and adds another.
        c.apply(&submission(
            vec![result("A", 2, "1", "2", -50), result("A", 3, "1", "2", 420)],
            Vec::new(),
        ));
        assert_eq!(
            scores(&c),
            vec![
                ("A".into(), 1, "1".into(), "2".into(), Some(110)),
                ("A".into(), 2, "1".into(), "2".into(), Some(-50)),
                ("A".into(), 3, "1".into(), "2".into(), Some(420)),
            ]
        );
        // A withdrawal takes a table out, after the submission's results; one of a table with no
        // result changes nothing.
        c.apply(&submission(
            vec![result("A", 4, "1", "2", 90)],
            vec![
                key("A", 2, "1", "2"),
                key("A", 4, "1", "2"),
                key("B", 1, "1", "2"),
            ],
        ));
        assert_eq!(
            scores(&c),
            vec![
                ("A".into(), 1, "1".into(), "2".into(), Some(110)),
                ("A".into(), 3, "1".into(), "2".into(), Some(420)),
            ]
        );
    }

    /// Short texts (numbers as strings, a NUL now and then) and, sometimes, long ones that share
    /// their first 8 bytes.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => "[0-9]{0,3}",
            1 => "[AB\\x00]{0,3}",
            1 => "Section[AB]{1,3}",
        ]
    }

    fn listed(c: &ClubResults) -> Vec<AppliedResult> {
        c.iter().cloned().collect()
    }

    fn visited(c: &ClubResults) -> Vec<AppliedResult> {
        let mut out = Vec::new();
        c.visit(|r| out.push(r.clone()));
        out
    }

    /// `results` as the judge lets them through: in table order, a table given twice only once
    /// (the judge refuses it; here the later one is kept, as it would be in force).
    fn as_judged(mut results: Vec<AppliedResult>) -> Vec<AppliedResult> {
        let order = table_order(&results);
        put_in_order(&mut results, order);
        keep_last(&mut results, |a, b| table_of(a) == table_of(b));
        results
    }

    /// How many of its sources a club holds decoded.
    fn decoded(c: &ClubResults) -> usize {
        c.sources
            .iter()
            .filter(|s| match s {
                Source::Shared(_) => true,
                Source::Packed { decoded, .. } => decoded.get().is_some(),
            })
            .count()
    }

    proptest! {
        #[test]
        fn packed_submissions_give_the_results_they_would_unpacked(
            submissions in proptest::collection::vec(
                (
                    proptest::collection::vec((0..3i32, 0..3u8, -5..5i32), 1..8),
                    proptest::collection::vec((0..3i32, 0..3u8), 0..3),
                    any::<bool>(),
                ),
                1..6,
            ),
        ) {
            let (mut plain, mut packed) = (ClubResults::default(), ClubResults::default());
            for (results, withdrawn, pack) in submissions {
                let pair = |p: u8| p.to_string();
                let applied = submission(
                    as_judged(results.iter().map(|&(b, p, s)| result("A", b, &pair(p), "9", s)).collect()),
                    withdrawn.iter().map(|&(b, p)| key("A", b, &pair(p), "9")).collect(),
                );
                plain.apply(&applied);
                if pack {
                    let n = applied.results.len() as u32;
                    packed.apply_packed(PackedApplied::pack(&applied), n, &applied.withdrawn);
                } else {
                    packed.apply_in_order(&applied);
                }
                let shared = packed
                    .sources
                    .iter()
                    .filter(|s| matches!(s, Source::Shared(_)))
                    .count();
                prop_assert_eq!(decoded(&packed), shared, "what was packed is not kept decoded");
                let before = decoded(&packed);
                prop_assert_eq!(visited(&packed), listed(&plain));
                prop_assert_eq!(decoded(&packed), before, "a visit keeps nothing decoded");
                prop_assert_eq!(listed(&packed), listed(&plain));
                for r in plain.iter() {
                    let k = key(&r.section, r.board, &r.ns_pair, &r.ew_pair);
                    prop_assert_eq!(packed.get(&k), Some(r));
                }
            }
        }
    }

    proptest! {
        /// Given in any order, a table perhaps twice, or listed as the judge lists them (in
        /// table order, each table once, which is kept as it is), a submission puts the same
        /// results in force.
        #[test]
        fn results_in_any_order_are_in_force_as_the_judge_lists_them(
            submissions in proptest::collection::vec(
                proptest::collection::vec((0..3i32, 0..3u8, -5..5i32), 0..8),
                1..4,
            ),
        ) {
            let (mut given, mut judged) = (ClubResults::default(), ClubResults::default());
            for results in submissions {
                let results: Vec<AppliedResult> = results
                    .iter()
                    .map(|&(b, p, s)| result("A", b, &p.to_string(), "9", s))
                    .collect();
                given.apply(&submission(results.clone(), Vec::new()));
                judged.apply(&submission(as_judged(results), Vec::new()));
                prop_assert_eq!(listed(&given), listed(&judged));
            }
        }
    }

    proptest! {
        #[test]
        fn tables_sort_as_their_texts_do(
            tables in proptest::collection::vec((text(), 0..4i32, text(), text()), 0..40),
        ) {
            let results: Vec<AppliedResult> = tables
                .into_iter()
                .map(|(s, b, ns, ew)| result(&s, b, &ns, &ew, 0))
                .collect();
            let order = table_order(&results);
            let mut sorted: Vec<usize> = order.iter().map(|&i| i as usize).collect();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, (0..results.len()).collect::<Vec<_>>(), "a permutation");
            let tables: Vec<_> = order
                .iter()
                .map(|&i| table_of(&results[i as usize]))
                .collect();
            prop_assert!(tables.windows(2).all(|w| w[0] <= w[1]), "{:?}", tables);
            // A table given twice keeps the order given: the last stays in force.
            let given_order = order
                .windows(2)
                .zip(tables.windows(2))
                .all(|(o, t)| t[0] != t[1] || o[0] < o[1]);
            prop_assert!(given_order, "{:?} {:?}", order, tables);
            // Put in that order, the results are those the order lists, one after the other.
            let gathered: Vec<AppliedResult> =
                order.iter().map(|&i| results[i as usize].clone()).collect();
            let mut put = results.clone();
            put_in_order(&mut put, order);
            prop_assert_eq!(put, gathered);
        }
    }
}
