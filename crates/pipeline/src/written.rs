//! What the aggregator last wrote of each board: it writes a board's scores again only when they
//! changed. A national event has thousands of clubs of tens of boards each, every one a scope of
//! its own, so each scope's hashes are one short list sorted by board, sized to its boards.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use simpairs_events::Event;
use simpairs_events::types::BoardScored;

/// A hash of the table last written for each scope (a club, or `""` for the nation) and board.
#[derive(Debug, Default)]
pub(crate) struct Written(HashMap<String, Vec<(i32, u64)>>);

impl Written {
    /// Moves to `out` the events of `boards` that are not a board's scores written last time for
    /// `scope` (anything but a `BoardScored` always goes).
    pub(crate) fn keep_changed(&mut self, scope: &str, boards: Vec<Event>, out: &mut Vec<Event>) {
        if !self.0.contains_key(scope) {
            self.0
                .insert(scope.to_string(), Vec::with_capacity(boards.len()));
        }
        let Some(last) = self.0.get_mut(scope) else {
            return;
        };
        for event in boards {
            if let Event::BoardScored(b) = &event
                && !changed(last, b.board, table_hash(b))
            {
                continue;
            }
            out.push(event);
        }
    }
}

/// Notes `hash` as `board`'s; whether it differs from the hash noted before.
fn changed(last: &mut Vec<(i32, u64)>, board: i32, hash: u64) -> bool {
    match last.binary_search_by_key(&board, |&(b, _)| b) {
        Ok(at) => std::mem::replace(&mut last[at].1, hash) != hash,
        Err(at) => {
            last.insert(at, (board, hash));
            true
        }
    }
}

/// A hash of what a board's scores say.
fn table_hash(b: &BoardScored) -> u64 {
    // A fast hash (FxHasher): the board scores of thousands of clubs are hashed for every batch,
    // and SipHash's protection against crafted keys buys nothing here (the values are the
    // engine's output, not input from outside).
    let mut h = rustc_hash::FxHasher::default();
    (b.results_count, b.target, b.top, b.datum).hash(&mut h);
    for e in &b.table {
        (e.ns_score, e.count, e.ns_value, e.ew_value).hash(&mut h);
    }
    for s in &b.specials {
        (&s.club_id, &s.key, s.ns_value, s.ew_value).hash(&mut h);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use simpairs_events::types::{Fraction, TableEntry};

    const ZERO: Fraction = Fraction { num: 0, den: 1 };

    fn board(board: i32, ns_score: i32) -> Event {
        Event::BoardScored(BoardScored {
            event_id: "E".into(),
            scope: Default::default(),
            board,
            generation: 1,
            results_count: 1,
            target: 0,
            top: ZERO,
            datum: None,
            table: vec![TableEntry {
                ns_score,
                count: 1,
                ns_value: ZERO,
                ew_value: ZERO,
            }],
            specials: Vec::new(),
        })
    }

    fn boards_kept(written: &mut Written, scope: &str, boards: Vec<Event>) -> Vec<i32> {
        let mut out = Vec::new();
        written.keep_changed(scope, boards, &mut out);
        out.iter()
            .map(|e| match e {
                Event::BoardScored(b) => b.board,
                _ => -1,
            })
            .collect()
    }

    #[test]
    fn a_board_is_written_again_only_when_its_scores_changed() {
        let mut written = Written::default();
        let first = vec![board(3, 100), board(1, 50), board(2, -90)];
        assert_eq!(boards_kept(&mut written, "A", first.clone()), vec![3, 1, 2]);
        assert_eq!(boards_kept(&mut written, "A", first), Vec::<i32>::new());
        // Board 1 changed, board 4 is new; another scope has written nothing yet.
        let later = vec![board(1, 110), board(2, -90), board(4, 0)];
        assert_eq!(boards_kept(&mut written, "A", later.clone()), vec![1, 4]);
        assert_eq!(boards_kept(&mut written, "", later), vec![1, 2, 4]);
        // The generation alone is not a change.
        let mut again = board(3, 100);
        if let Event::BoardScored(b) = &mut again {
            b.generation = 9;
        }
        assert_eq!(
            boards_kept(&mut written, "A", vec![again]),
            Vec::<i32>::new()
        );
    }
}
