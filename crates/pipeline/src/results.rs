//! One club's results in force, as the aggregator's state and the projection keep them.
//!
//! A club has a few hundred results, and the whole nation millions. They are kept per club, in
//! table order (section, board, NS pair, EW pair: the order of
//! [`simpairs_events::types::ResultKey`]), each table once, as references into the
//! applied submissions that brought them: the `SubmissionApplied` the aggregator writes is the one
//! its state reads, shared, not a copy of every result. A table is found by binary search on the
//! result's own fields, so no key is copied out of a result either. (A map keyed by `ResultKey`
//! with a copy of each result was most of the cost of applying a submission: five strings copied
//! and a map node per result.)

use std::sync::Arc;

use simpairs_events::types::{AppliedResult, ResultKey, SubmissionApplied};

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

/// A result in force: the submission that brought it and its place among the submission's results.
#[derive(Debug, Clone)]
struct Row {
    from: Arc<SubmissionApplied>,
    at: usize,
}

impl Row {
    fn result(&self) -> &AppliedResult {
        &self.from.results[self.at]
    }
}

/// One club's results in force: in table order, one per table.
#[derive(Debug, Default, Clone)]
pub struct ClubResults {
    rows: Vec<Row>,
}

impl ClubResults {
    /// How many tables have a result in force.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The results in table order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &AppliedResult> + '_ {
        self.rows.iter().map(Row::result)
    }

    /// The results in table order, each with the applied submission that brought it.
    pub fn iter_sourced(
        &self,
    ) -> impl ExactSizeIterator<Item = (&AppliedResult, &SubmissionApplied)> + '_ {
        self.rows
            .iter()
            .map(|row| (row.result(), row.from.as_ref()))
    }

    fn find(&self, key: &ResultKey) -> Result<usize, usize> {
        self.rows
            .binary_search_by(|r| table_of(r.result()).cmp(&table_of_key(key)))
    }

    /// The result in force of a table.
    pub fn get(&self, key: &ResultKey) -> Option<&AppliedResult> {
        self.find(key).ok().map(|at| self.rows[at].result())
    }

    /// Puts the results of an applied submission in force, then takes its withdrawals out. Each
    /// result replaces the result of its table; where a table is given twice the later one is in
    /// force.
    pub fn apply(&mut self, applied: &Arc<SubmissionApplied>) {
        // Put in table order first (as numbers, where the texts are short), so that the sort of
        // `apply_ordered` only merges, comparing few texts.
        self.apply_ordered(applied, &table_order(&applied.results));
    }

    /// [`ClubResults::apply`], with the submission's results listed in table order
    /// ([`table_order`], as the aggregator's checks give them): the sort below is then a merge of
    /// two sorted runs, and none at all for a club's first submission. A table given twice must be
    /// listed in the order given.
    pub(crate) fn apply_ordered(&mut self, applied: &Arc<SubmissionApplied>, order: &[u32]) {
        // The rows in force, then the new ones, in a stable sort: the results of one table end up
        // next to each other in the order they were given, and the last of them stays. The rows
        // in force are one sorted run already, so the sort is mostly a merge.
        debug_assert_eq!(order.len(), applied.results.len());
        let in_force = self.rows.len();
        self.rows.extend(order.iter().map(|&at| Row {
            from: applied.clone(),
            at: at as usize,
        }));
        // A club's first submission is in order already: only a later one has two runs to merge.
        if in_force > 0 {
            self.rows
                .sort_by(|a, b| table_of(a.result()).cmp(&table_of(b.result())));
        }
        debug_assert!(
            self.rows
                .is_sorted_by(|a, b| table_of(a.result()) <= table_of(b.result())),
            "a submission's results listed out of table order"
        );
        // `dedup_by` keeps the first of equal neighbours: the later row is swapped into it first.
        self.rows.dedup_by(|later, kept| {
            let same = table_of(later.result()) == table_of(kept.result());
            if same {
                std::mem::swap(later, kept);
            }
            same
        });
        for key in &applied.withdrawn {
            if let Ok(at) = self.find(key) {
                self.rows.remove(at);
            }
        }
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
        if bytes.len() > 8 || bytes.contains(&0) {
            return None;
        }
        let mut padded = [0u8; 8];
        padded[..bytes.len()].copy_from_slice(bytes);
        Some(u64::from_be_bytes(padded))
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
    keys.sort_unstable();
    keys.into_iter().map(|(_, at)| at).collect()
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
    use simpairs_events::types::Movement;

    fn result(section: &str, board: i32, ns: &str, ew: &str, score: i32) -> AppliedResult {
        AppliedResult {
            section: section.into(),
            board,
            ns_pair: ns.into(),
            ew_pair: ew.into(),
            movement: Movement::Mitchell,
            contract: None,
            declarer: None,
            tricks: None,
            ns_score: Some(score),
            ew_score: None,
            adjusted: None,
            arrow_switch: false,
            group: None,
            lead: None,
        }
    }

    fn key(section: &str, board: i32, ns: &str, ew: &str) -> ResultKey {
        ResultKey {
            section: section.into(),
            board,
            ns_pair: ns.into(),
            ew_pair: ew.into(),
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
        }
    }
}
