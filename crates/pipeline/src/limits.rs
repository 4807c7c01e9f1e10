//! The limits of an event: how big a club's submission may be. Checked by `club publish` before
//! anything is written (the file's size first, then the submission) and by the judge
//! ([`crate::judge`]) for whatever reaches the log anyway, so that no upload can make a derived
//! record outgrow the log's record limit or hold the event up.
//!
//! The defaults are far above what a club's session holds (a 40-table club playing 36 boards has
//! 1,440 results) and far below what would stall the aggregator.

use std::fmt;

use simpairs_events::types::{AppliedPair, AppliedResult};

/// How big a submission may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Results in one submission.
    pub results_per_submission: u32,
    /// Results of one board in one submission (tables that played it).
    pub tables_per_board: u32,
    /// Pairs one submission enters.
    pub pairs_per_submission: u32,
    /// Bytes of a player's name or national ID.
    pub name_bytes: u32,
    /// Bytes of any other text of a result: section, pair number, contract, lead, group.
    pub field_bytes: u32,
    /// Bytes of the file a club publishes.
    pub file_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            results_per_submission: 20_000,
            tables_per_board: 1_000,
            pairs_per_submission: 10_000,
            name_bytes: 200,
            field_bytes: 64,
            file_bytes: 32 << 20,
        }
    }
}

/// One limit a submission exceeds, with the figures.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Exceeded {
    Results {
        count: u64,
        limit: u32,
    },
    Tables {
        board: i32,
        count: u64,
        limit: u32,
    },
    Pairs {
        count: u64,
        limit: u32,
    },
    Name {
        pair: String,
        bytes: usize,
        limit: u32,
    },
    Field {
        what: &'static str,
        bytes: usize,
        limit: u32,
    },
    File {
        bytes: u64,
        limit: u64,
    },
}

impl std::error::Error for Exceeded {}

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exceeded::Results { count, limit } => write!(
                f,
                "{count} results in one submission, over the event's limit of {limit}"
            ),
            Exceeded::Tables {
                board,
                count,
                limit,
            } => write!(
                f,
                "board {board} has {count} results, over the event's limit of {limit} tables a board"
            ),
            Exceeded::Pairs { count, limit } => write!(
                f,
                "{count} pairs in one submission, over the event's limit of {limit}"
            ),
            Exceeded::Name { pair, bytes, limit } => write!(
                f,
                "a player of pair {pair} has a name or ID of {bytes} bytes, over the event's limit of {limit}"
            ),
            Exceeded::Field { what, bytes, limit } => write!(
                f,
                "a {what} of {bytes} bytes, over the event's limit of {limit}"
            ),
            Exceeded::File { bytes, limit } => write!(
                f,
                "the file is {bytes} bytes, over the event's limit of {limit} bytes"
            ),
        }
    }
}

impl Limits {
    /// The file's size, before it is read.
    pub fn check_file(&self, bytes: u64) -> Result<(), Exceeded> {
        if bytes > self.file_bytes {
            return Err(Exceeded::File {
                bytes,
                limit: self.file_bytes,
            });
        }
        Ok(())
    }

    /// The count a seal states, before its records are gathered (a seal over the limit need not
    /// be waited for).
    pub(crate) fn check_count(&self, count: i64) -> Result<(), Exceeded> {
        // Each pair entered and each result takes a sequence.
        let most = u64::from(self.results_per_submission) + u64::from(self.pairs_per_submission);
        match u64::try_from(count) {
            Ok(c) if c <= most => Ok(()),
            _ => Err(Exceeded::Results {
                count: u64::try_from(count).unwrap_or(0),
                limit: self.results_per_submission,
            }),
        }
    }

    /// Everything a submission applies. Returns every limit exceeded (one of each kind).
    pub(crate) fn check_applied(
        &self,
        results: &[AppliedResult],
        pairs: &[AppliedPair],
    ) -> Vec<Exceeded> {
        let mut exceeded = Vec::new();
        if results.len() as u64 > u64::from(self.results_per_submission) {
            exceeded.push(Exceeded::Results {
                count: results.len() as u64,
                limit: self.results_per_submission,
            });
        }
        if let Some(e) = self.check_tables(results) {
            exceeded.push(e);
        }
        if pairs.len() as u64 > u64::from(self.pairs_per_submission) {
            exceeded.push(Exceeded::Pairs {
                count: pairs.len() as u64,
                limit: self.pairs_per_submission,
            });
        }
        exceeded.extend(self.check_names(pairs));
        exceeded.extend(self.check_fields(results, pairs));
        exceeded
    }

    /// The board with the most results, if it has too many.
    fn check_tables(&self, results: &[AppliedResult]) -> Option<Exceeded> {
        let mut per_board: rustc_hash::FxHashMap<i32, u64> = Default::default();
        // A club's results come board by board: a run of one board is counted in one look-up.
        for run in results.chunk_by(|a, b| a.board == b.board) {
            *per_board.entry(run[0].board).or_default() += run.len() as u64;
        }
        let (board, count) = per_board
            .into_iter()
            .max_by_key(|&(board, count)| (count, std::cmp::Reverse(board)))?;
        (count > u64::from(self.tables_per_board)).then_some(Exceeded::Tables {
            board,
            count,
            limit: self.tables_per_board,
        })
    }

    fn check_names(&self, pairs: &[AppliedPair]) -> Option<Exceeded> {
        let limit = self.name_bytes as usize;
        pairs.iter().find_map(|p| {
            let bytes = p
                .players
                .iter()
                .map(|pl| {
                    pl.name
                        .len()
                        .max(pl.national_id.as_deref().map_or(0, str::len))
                })
                .max()?;
            (bytes > limit).then(|| Exceeded::Name {
                pair: shorten(&p.pair),
                bytes,
                limit: self.name_bytes,
            })
        })
    }

    /// The first kind of text field with a value over the limit.
    fn check_fields(&self, results: &[AppliedResult], pairs: &[AppliedPair]) -> Option<Exceeded> {
        let longest = Longest::of(results);
        let fields: [(&'static str, usize); 6] = [
            ("section", longest.section),
            ("pair number", longest.pair),
            ("contract", longest.contract),
            ("declarer", longest.declarer),
            ("fouled-board group", longest.group),
            (
                "pair's section or number",
                pairs
                    .iter()
                    .map(|p| p.section.len().max(p.pair.len()))
                    .max()
                    .unwrap_or(0),
            ),
        ];
        fields.into_iter().find_map(|(what, bytes)| {
            (bytes > self.field_bytes as usize).then_some(Exceeded::Field {
                what,
                bytes,
                limit: self.field_bytes,
            })
        })
    }
}

/// The longest of each text field of a submission's results, in bytes (0 when it has none).
#[derive(Default)]
struct Longest {
    section: usize,
    /// Either pair's number.
    pair: usize,
    contract: usize,
    declarer: usize,
    group: usize,
}

impl Longest {
    /// Found in one pass over `results` (a national event has millions).
    fn of(results: &[AppliedResult]) -> Longest {
        let optional = |t: &Option<simpairs_events::types::Text>| t.as_deref().map_or(0, str::len);
        results.iter().fold(Longest::default(), |l, r| Longest {
            section: l.section.max(r.section.len()),
            pair: l.pair.max(r.ns_pair.len()).max(r.ew_pair.len()),
            contract: l.contract.max(optional(&r.contract)),
            declarer: l.declarer.max(optional(&r.declarer)),
            group: l.group.max(optional(&r.group)),
        })
    }
}

/// A text cut to a length fit for a message.
fn shorten(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_result::table;

    fn small() -> Limits {
        Limits {
            tables_per_board: 2,
            field_bytes: 4,
            ..Limits::default()
        }
    }

    #[test]
    fn a_board_s_results_are_counted_wherever_they_are_in_the_submission() {
        // Board 7's three tables are not next to each other: each run of it counts.
        let results: Vec<AppliedResult> = [7, 3, 7, 3, 7]
            .iter()
            .zip(1..)
            .map(|(&board, ns)| table(board, &ns.to_string(), "9"))
            .collect();
        assert_eq!(
            small().check_applied(&results, &[]),
            vec![Exceeded::Tables {
                board: 7,
                count: 3,
                limit: 2
            }]
        );
        assert_eq!(small().check_applied(&results[..4], &[]), vec![]);
    }

    #[test]
    fn of_boards_over_the_limit_the_one_with_most_results_is_named_then_the_lowest() {
        let on = |boards: &[i32]| -> Vec<AppliedResult> {
            boards
                .iter()
                .zip(1..)
                .map(|(&board, ns)| table(board, &ns.to_string(), "9"))
                .collect()
        };
        let tables = |results: &[AppliedResult]| match small().check_tables(results) {
            Some(Exceeded::Tables { board, count, .. }) => Some((board, count)),
            _ => None,
        };
        assert_eq!(tables(&on(&[5, 5, 5, 2, 2, 2, 2])), Some((2, 4)));
        assert_eq!(tables(&on(&[5, 5, 5, 2, 2, 2])), Some((2, 3)));
        assert_eq!(tables(&on(&[5, 5, 2, 2])), None);
        assert_eq!(tables(&[]), None);
    }

    #[test]
    fn each_text_of_a_result_over_the_limit_is_named() {
        let long = || Some("12345".into());
        let cases: [(&str, AppliedResult); 6] = [
            (
                "section",
                AppliedResult {
                    section: "North".into(),
                    ..table(1, "1", "2")
                },
            ),
            ("pair number", table(1, "1", "10002")),
            ("pair number", table(1, "10001", "2")),
            (
                "contract",
                AppliedResult {
                    contract: long(),
                    ..table(1, "1", "2")
                },
            ),
            (
                "declarer",
                AppliedResult {
                    declarer: long(),
                    ..table(1, "1", "2")
                },
            ),
            (
                "fouled-board group",
                AppliedResult {
                    group: long(),
                    ..table(1, "1", "2")
                },
            ),
        ];
        for (what, result) in cases {
            // The long text is in the second result: every result is looked at.
            let results = [table(2, "3", "4"), result];
            assert_eq!(
                small().check_applied(&results, &[]),
                vec![Exceeded::Field {
                    what,
                    bytes: 5,
                    limit: 4
                }],
                "{what}"
            );
        }
        let fits = AppliedResult {
            contract: Some("4NTX".into()),
            ..table(1, "1", "2")
        };
        assert_eq!(small().check_applied(&[fits], &[]), vec![]);
    }
}
