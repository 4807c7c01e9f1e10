//! The one judge of a submission: whether a sealed submission applies, and what it applies.
//!
//! Every role decides with these functions: the aggregator and `replay` (through
//! [`crate::state::EventState`]) after reading a submission from the log, and `club publish`
//! before it signs (it runs the same state over the records it is about to append:
//! [`crate::publish::preflight`]). So what a club is told at publish time is what the aggregator
//! decides, and the two cannot disagree.
//!
//! The checks, in order: the seal names a declared club, is signed with that club's key and
//! verifies ([`crate::state`] does this as the seal arrives); the records cover exactly the sealed
//! sequences and match the sealed digest; the submission is within the event's [`Limits`]; every
//! record names the club and a declared board; every result passes the checks every traveller line
//! passes ([`simpairs_formats::row::FieldBuilder`]); no table is entered twice. A line whose
//! recorded score differs from its contract is a warning, never a rejection: the recorded score is
//! what the director ruled.

use std::collections::BTreeSet;
use std::fmt;

use simpairs_events::Codec;
use simpairs_events::types::{
    AppliedPair, AppliedResult, ResultKey, SubmissionApplied, SubmissionSealed,
};
use simpairs_scoring::Field;

use crate::known_deals::{KnownDeals, Place};
use crate::limits::Limits;
use crate::pending::{Part, Pending, datum};

/// What the judge knows of the event besides the submission.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The declared boards.
    pub boards: &'a BTreeSet<i32>,
    pub limits: &'a Limits,
    /// The deal of each board as the event knows it (the organiser's hand records, else the
    /// first applied club's), in PBN deal notation.
    pub deals: &'a KnownDeals,
    /// The seal's place in the results stream, which says which hand records hold for it.
    pub place: Place,
}

/// A submission that passed every check: what applies.
#[derive(Debug)]
pub(crate) struct Accepted {
    /// What applies, its results in table order (see [`crate::results::table_order`]; a table
    /// is never given twice).
    pub applied: SubmissionApplied,
    /// The field the results make, built in table order.
    pub field: Field,
    /// Lines that apply but that a director should look at, in sequence order.
    pub warnings: Vec<LineWarning>,
    /// The boards' deals the submission carries: (board, deal).
    pub deals: Vec<(i32, String)>,
    /// How it was read in the terms of the club's results in force ([`crate::sections`]), in
    /// words: set as it applies, in log order.
    pub notes: Vec<String>,
}

/// A line that applies as recorded but deserves a director's look (a recorded score that is not
/// what the contract makes, a score no contract makes at the board's vulnerability).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineWarning {
    /// The record's sequence in the submission (for a file: see [`crate::publish`], which turns it
    /// back into the file's line).
    pub sequence: i32,
    pub field: &'static str,
    pub message: String,
}

/// One reason a submission's content cannot apply.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// A record names another club than the one that sealed the submission.
    OtherClub { sequence: i32, named: String },
    /// A record is for a board the event does not have.
    UnknownBoard { sequence: i32, board: i32 },
    /// A record's bytes cannot be read.
    Unreadable { sequence: i32, detail: String },
    /// A result fails a traveller line's checks.
    Line {
        sequence: i32,
        field: &'static str,
        message: String,
    },
    /// The same table is entered twice.
    SameTable { first: i32, again: i32 },
    /// A limit of the event is exceeded.
    OverLimit(crate::limits::Exceeded),
    /// The club's deals of these boards are not the event's (`of`: whose they are, in words):
    /// another session was played.
    OtherDeals { boards: Vec<i32>, of: String },
}

impl Problem {
    /// The sequence of the record the problem is at, if it is at one.
    pub fn sequence(&self) -> Option<i32> {
        match self {
            Problem::OtherClub { sequence, .. }
            | Problem::UnknownBoard { sequence, .. }
            | Problem::Unreadable { sequence, .. }
            | Problem::Line { sequence, .. } => Some(*sequence),
            Problem::SameTable { first, .. } => Some(*first),
            Problem::OverLimit(_) | Problem::OtherDeals { .. } => None,
        }
    }
}

impl Problem {
    /// What is wrong, without saying where (for a message that names the place its own way).
    pub fn what(&self) -> String {
        match self {
            Problem::OtherClub { named, .. } => {
                format!("it names club {named}, not the club that sealed the submission")
            }
            Problem::UnknownBoard { board, .. } => {
                format!("board {board} is not one of the event's boards")
            }
            Problem::Unreadable { detail, .. } => format!("cannot read it: {detail}"),
            Problem::Line { field, message, .. } => format!("field {field}: {message}"),
            Problem::SameTable { first, again } => {
                format!("records {first} and {again} are the same table entered twice")
            }
            Problem::OverLimit(exceeded) => exceeded.to_string(),
            Problem::OtherDeals { boards, of } => format!(
                "the club's hand records of board(s) {} are not the event's ({of}): it played other deals",
                boards
                    .iter()
                    .map(i32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::SameTable { .. } | Problem::OverLimit(_) | Problem::OtherDeals { .. } => {
                f.write_str(&self.what())
            }
            _ => match self.sequence() {
                Some(sequence) => write!(f, "record {sequence}: {}", self.what()),
                None => f.write_str(&self.what()),
            },
        }
    }
}

/// Why a submission is set aside, in a director's words ([`fmt::Display`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rejection {
    #[error("club {club} is not part of event {event}: its submission {submission} is set aside")]
    UnknownClub {
        club: String,
        event: String,
        submission: String,
    },
    #[error(
        "submission {submission} of club {club} is signed with key {used:?}, but the club's key is {declared:?}"
    )]
    WrongKey {
        club: String,
        submission: String,
        used: String,
        declared: String,
    },
    #[error(
        "the signature of submission {submission} does not verify with club {club}'s key: forged or altered; nothing of it is applied"
    )]
    Forged { club: String, submission: String },
    #[error(
        "submission {submission} of club {club} is signed with key {key}, which the organiser revoked from offset {from_offset} of the results stream"
    )]
    Revoked {
        club: String,
        submission: String,
        key: String,
        from_offset: u64,
    },
    #[error(
        "submission {submission} of club {club} was sealed after the organiser closed the event (amendment {amendment}, from offset {from_offset} of the results stream): the results are final, and it is set aside"
    )]
    Closed {
        club: String,
        submission: String,
        amendment: i64,
        from_offset: u64,
    },
    #[error(
        "submission {submission} of club {club} seals {count} records numbered 0..{count}, but records {arrived} arrived"
    )]
    Incomplete {
        club: String,
        submission: String,
        count: i64,
        arrived: String,
    },
    #[error(
        "the records of submission {submission} of club {club} do not match the digest they were sealed with: altered in transit"
    )]
    Altered { club: String, submission: String },
    #[error("submission {submission} of club {club} is set aside: {}", shown(.problems))]
    Invalid {
        club: String,
        submission: String,
        problems: Vec<Problem>,
    },
}

impl Rejection {
    /// Whether the submission's genuine content may still arrive and apply: its records were
    /// altered, missing or mixed with others on the way, so the club can publish the same file
    /// again. Otherwise the signed content itself is refused, and a copy of it is refused too.
    pub(crate) fn may_arrive_again(&self) -> bool {
        matches!(
            self,
            Rejection::Altered { .. } | Rejection::Incomplete { .. }
        )
    }

    /// Whether the submission was set aside for its deals alone: with other deals known (a
    /// club's withdrawn), it may apply.
    pub(crate) fn for_its_deals(&self) -> bool {
        self.deals_of_boards().is_some()
    }

    /// The boards whose deals the submission was set aside for, when that was its only reason.
    pub(crate) fn deals_of_boards(&self) -> Option<&[i32]> {
        match self {
            Rejection::Invalid { problems, .. } => match problems.as_slice() {
                [Problem::OtherDeals { boards, .. }] => Some(boards),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The first problems, then how many more.
fn shown(problems: &[Problem]) -> String {
    const SHOWN: usize = 5;
    let mut text = problems
        .iter()
        .take(SHOWN)
        .map(Problem::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    if problems.len() > SHOWN {
        text.push_str(&format!("; and {} more", problems.len() - SHOWN));
    }
    text
}

/// Checks a sealed submission whose records are all in (its seal already verified): every sealed
/// record there and nothing else, the digest, the limits and every record's own checks. A pure
/// function of the submission and the context, so submissions are judged in parallel.
pub(crate) fn judge(
    codec: &Codec,
    seal: &SubmissionSealed,
    pending: &Pending,
    context: Context<'_>,
) -> Result<Accepted, Rejection> {
    let (club, submission) = (seal.club_id.clone(), seal.submission_id.clone());
    if !pending.complete_run(seal.count) {
        let arrived = format!("{:?}", pending.sequence_list());
        return Err(Rejection::Incomplete {
            club,
            submission,
            count: seal.count,
            arrived,
        });
    }
    // A batch's bytes enter the digest once, at its first sequence.
    let digest = simpairs_events::submission_digest(
        seal.hash_function,
        pending.records.iter().map(|(_, bytes, _)| datum(bytes)),
    );
    if digest.as_slice() != seal.digest.as_slice() {
        return Err(Rejection::Altered { club, submission });
    }
    let invalid = |problems| Rejection::Invalid {
        club: seal.club_id.clone(),
        submission: seal.submission_id.clone(),
        problems,
    };
    let mut checked = check_records(codec, pending, &seal.club_id, context).map_err(invalid)?;
    if let Some(other) = other_deals(&checked.deals, context.deals, context.place) {
        return Err(invalid(vec![other]));
    }
    let exceeded = context
        .limits
        .check_applied(&checked.results, &checked.pairs);
    if !exceeded.is_empty() {
        return Err(invalid(
            exceeded.into_iter().map(Problem::OverLimit).collect(),
        ));
    }
    let ordered =
        check_results(&seal.club_id, &checked.results, &checked.sequences).map_err(invalid)?;
    // Listed as they are kept: a club's results in force are then its first submission's, as
    // they are, with no order of their own to store.
    crate::results::put_in_order(&mut checked.results, ordered.by_table);
    Ok(Accepted {
        applied: SubmissionApplied {
            event_id: seal.event_id.clone(),
            club_id: seal.club_id.clone(),
            submission_id: seal.submission_id.clone(),
            seal_offset: 0,
            results: std::mem::take(&mut checked.results),
            withdrawn: checked.withdrawn,
            pairs: checked.pairs,
        },
        field: ordered.field,
        warnings: ordered.warnings,
        deals: checked.deals,
        notes: Vec::new(),
    })
}

/// The boards whose deal in `deals` differs from the event's at `place`, and whose deals those
/// are, as a problem; none when every deal is the event's.
fn other_deals(deals: &[(i32, String)], known: &KnownDeals, place: Place) -> Option<Problem> {
    let mut sources = BTreeSet::new();
    let mut boards: Vec<i32> = Vec::new();
    for (board, deal) in deals {
        match known.at(*board, place) {
            Some((k, source)) if !crate::deals::same_deal(k, deal) => {
                boards.push(*board);
                sources.insert(source);
            }
            _ => {}
        }
    }
    if boards.is_empty() {
        return None;
    }
    boards.sort_unstable();
    boards.dedup();
    let of: Vec<String> = sources.iter().map(|s| s.words()).collect();
    Some(Problem::OtherDeals {
        boards,
        of: of.join(" and "),
    })
}

/// An accepted submission's deals against deals learnt since it was judged (from a submission
/// applied before it in the same batch).
pub(crate) fn check_deals_again(
    seal: &SubmissionSealed,
    accepted: Accepted,
    known: &KnownDeals,
    place: Place,
) -> Result<Accepted, Rejection> {
    let Some(other) = other_deals(&accepted.deals, known, place) else {
        return Ok(accepted);
    };
    Err(Rejection::Invalid {
        club: seal.club_id.clone(),
        submission: seal.submission_id.clone(),
        problems: vec![other],
    })
}

/// A submission's records, read: what it applies, before its results are checked.
struct Records {
    results: Vec<AppliedResult>,
    /// The sequence of each result.
    sequences: Vec<i32>,
    withdrawn: Vec<ResultKey>,
    pairs: Vec<AppliedPair>,
    deals: Vec<(i32, String)>,
}

/// Reads every record: each must name the sealing club and a declared board.
fn check_records(
    codec: &Codec,
    pending: &Pending,
    club: &str,
    context: Context<'_>,
) -> Result<Records, Vec<Problem>> {
    let mut problems = Vec::new();
    let capacity = usize::try_from(pending.sequences).unwrap_or(0);
    let mut records = Records {
        results: Vec::with_capacity(capacity),
        sequences: Vec::with_capacity(capacity),
        withdrawn: Vec::new(),
        pairs: Vec::new(),
        deals: Vec::new(),
    };
    for &(sequence, ref message, ref part) in &pending.records {
        let (named, board) = match part {
            Part::Result(r) => (r.club_id.as_str(), Some(r.board)),
            Part::Lines(b) => (b.club_id.as_str(), Some(b.board)),
            Part::Withdrawal(w) => (w.club_id.as_str(), Some(w.board)),
            Part::Pair(p) => (p.club_id.as_str(), None),
            Part::Deal(d) => (d.club_id.as_str(), Some(d.board)),
        };
        if named != club {
            let named = named.to_string();
            problems.push(Problem::OtherClub { sequence, named });
            continue;
        }
        if let Some(board) = board
            && !context.boards.contains(&board)
        {
            problems.push(Problem::UnknownBoard { sequence, board });
            continue;
        }
        if let Err(detail) = records.add(codec, sequence, message, part) {
            problems.push(Problem::Unreadable { sequence, detail });
        }
    }
    if problems.is_empty() {
        Ok(records)
    } else {
        Err(problems)
    }
}

impl Records {
    /// Adds what one record applies.
    fn add(
        &mut self,
        codec: &Codec,
        sequence: i32,
        message: &[u8],
        part: &Part,
    ) -> Result<(), String> {
        match part {
            Part::Result(r) => {
                self.results.push(r.applied());
                self.sequences.push(sequence);
            }
            Part::Lines(_) => {
                let before = self.results.len();
                // Read (and checked) when the record arrived: an error here is damage since.
                if let Err(e) = codec.applied_lines(message, &mut self.results) {
                    self.results.truncate(before);
                    return Err(e.to_string());
                }
                let read = (self.results.len() - before) as i32;
                self.sequences
                    .extend((0..read).map(|i| sequence.saturating_add(i)));
            }
            Part::Withdrawal(w) => self.withdrawn.push(ResultKey {
                section: w.section.clone(),
                board: w.board,
                ns_pair: w.ns_pair.clone(),
                ew_pair: w.ew_pair.clone(),
            }),
            Part::Pair(p) => self.pairs.push(AppliedPair {
                section: p.section.clone(),
                pair: p.pair.clone(),
                direction: p.direction,
                players: p.players.clone(),
            }),
            Part::Deal(d) => {
                crate::deals::check(&d.deal).map_err(|e| format!("board {}: {e}", d.board))?;
                self.deals.push((d.board, d.deal.clone()));
            }
        }
        Ok(())
    }
}

/// A submission's results that passed [`check_results`].
struct CheckedResults {
    /// The results' order by table, as indices.
    by_table: Vec<u32>,
    /// The field they make, built in table order (so that it is the field built from the club's
    /// results in force when this submission is all of them).
    field: Field,
    /// The warnings, in sequence order.
    warnings: Vec<LineWarning>,
}

/// Checks every result as a traveller line is checked, and that no table is entered twice.
/// Otherwise every problem, in sequence order.
fn check_results(
    club: &str,
    results: &[AppliedResult],
    sequences: &[i32],
) -> Result<CheckedResults, Vec<Problem>> {
    let by_table = crate::results::table_order(results);
    let mut builder =
        simpairs_formats::row::FieldBuilder::new(simpairs_scoring::LegalScores::shared());
    builder.reserve(results.len());
    let mut problems = Vec::new();
    // The sequence of each row of the field.
    let mut rows = Vec::with_capacity(results.len());
    for &at in &by_table {
        let sequence = sequences[at as usize];
        let row = crate::field::typed_row(club, &results[at as usize]);
        match builder.push_typed(&row, sequence as u64) {
            Ok(simpairs_formats::row::Added::Result(_)) => rows.push(sequence),
            Ok(simpairs_formats::row::Added::NotPlayed) => {}
            Err(p) => problems.push(Problem::Line {
                sequence,
                field: p.field,
                message: p.message,
            }),
        }
    }
    for (first, again) in builder.field.duplicate_rows() {
        let (a, b) = (rows[first], rows[again]);
        problems.push(Problem::SameTable {
            first: a.min(b),
            again: a.max(b),
        });
    }
    if !problems.is_empty() {
        problems.sort_by_key(|p| p.sequence().unwrap_or(-1));
        return Err(problems);
    }
    let mut warnings: Vec<LineWarning> = builder
        .warnings
        .into_iter()
        .map(|w| LineWarning {
            sequence: i32::try_from(w.line).unwrap_or(i32::MAX),
            field: w.field,
            message: w.message,
        })
        .collect();
    warnings.sort_by_key(|w| w.sequence);
    Ok(CheckedResults {
        by_table,
        field: builder.field,
        warnings,
    })
}
