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
        for r in results {
            *per_board.entry(r.board).or_default() += 1;
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
        let optional = |t: &Option<simpairs_events::types::Text>| t.as_deref().map_or(0, str::len);
        let longest = |len: &dyn Fn(&AppliedResult) -> usize| results.iter().map(len).max();
        let fields: [(&'static str, Option<usize>); 6] = [
            ("section", longest(&|r| r.section.len())),
            (
                "pair number",
                longest(&|r| r.ns_pair.len().max(r.ew_pair.len())),
            ),
            ("contract", longest(&|r| optional(&r.contract))),
            ("declarer", longest(&|r| optional(&r.declarer))),
            ("fouled-board group", longest(&|r| optional(&r.group))),
            (
                "pair's section or number",
                pairs
                    .iter()
                    .map(|p| p.section.len().max(p.pair.len()))
                    .max(),
            ),
        ];
        fields.into_iter().find_map(|(what, bytes)| {
            let bytes = bytes?;
            (bytes > self.field_bytes as usize).then_some(Exceeded::Field {
                what,
                bytes,
                limit: self.field_bytes,
            })
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
