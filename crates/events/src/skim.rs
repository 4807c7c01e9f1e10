//! The results stream's own readers of `ResultsRecorded`, beside its generated one: a batch
//! *skimmed* (its header read, its lines checked, not built: [`crate::Codec::skim`]) and its
//! lines read as the results a submission applies ([`crate::Codec::applied_lines`]); and a
//! `SubmissionApplied` read without building its results ([`crate::Codec::applied_without_results`]).
//!
//! They are written by hand because they read a record into something else than its type,
//! but they find the fields by their positions in the schema ([`Record::FIELDS`], generated),
//! check and skip the fields they do not need with the generated skippers, and read a line
//! with the generated reader of `ResultLine`. A field added to either schema is handled
//! without a change here; a field they read that is renamed or removed fails the build. They
//! are used for the schema the generated codec is for, and held to apache-avro by the same
//! tests.

use crate::types::{
    AppliedPair, AppliedResult, ResultKey, ResultLine, ResultsRecorded, SubmissionApplied,
};
use crate::wire::{Datum, ReadError, Record, Stop, Wire, field_position, read_datum};

const FIELDS: &[&str] = <ResultsRecorded as Record>::FIELDS;
const EVENT_ID: usize = field_position(FIELDS, "event_id");
const CLUB_ID: usize = field_position(FIELDS, "club_id");
const SUBMISSION_ID: usize = field_position(FIELDS, "submission_id");
const BOARD: usize = field_position(FIELDS, "board");
const FIRST_SEQUENCE: usize = field_position(FIELDS, "first_sequence");
const RESULTS: usize = field_position(FIELDS, "results");
const _: () = assert!(
    BOARD < RESULTS,
    "applied_lines reads the board before the lines"
);

/// A `ResultsRecorded` without its lines: what handling a results-stream record needs before the
/// submission it belongs to is complete (see [`crate::Codec::skim`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultsHeader {
    /// The event.
    pub event_id: String,
    /// The club that played the board.
    pub club_id: String,
    /// The submission the lines are part of.
    pub submission_id: String,
    /// Board number of every line.
    pub board: i32,
    /// Sequence of the first line.
    pub first_sequence: i32,
    /// How many lines the batch holds (its sequences are `first_sequence..first_sequence + lines`).
    pub lines: usize,
}

impl ResultsHeader {
    /// The header of a decoded batch.
    pub fn of(batch: &crate::types::ResultsRecorded) -> ResultsHeader {
        ResultsHeader {
            event_id: batch.event_id.clone(),
            club_id: batch.club_id.clone(),
            submission_id: batch.submission_id.clone(),
            board: batch.board,
            first_sequence: batch.first_sequence,
            lines: batch.results.len(),
        }
    }
}

/// Reads the header of a `ResultsRecorded` datum and counts its lines, checking them as the
/// generated reader does without building them.
pub(crate) fn skim_results_recorded(datum: &[u8]) -> Result<ResultsHeader, ReadError> {
    read_datum(datum, |d| {
        let mut header = ResultsHeader {
            event_id: String::new(),
            club_id: String::new(),
            submission_id: String::new(),
            board: 0,
            first_sequence: 0,
            lines: 0,
        };
        for field in 0..FIELDS.len() {
            match field {
                EVENT_ID => header.event_id = d.string("ResultsRecorded.event_id")?,
                CLUB_ID => header.club_id = d.string("ResultsRecorded.club_id")?,
                SUBMISSION_ID => {
                    header.submission_id = d.string("ResultsRecorded.submission_id")?
                }
                BOARD => header.board = d.int("ResultsRecorded.board")?,
                FIRST_SEQUENCE => {
                    header.first_sequence = d.int("ResultsRecorded.first_sequence")?
                }
                RESULTS => header.lines = count_lines(d)?,
                other => ResultsRecorded::skip_field(d, other)?,
            }
        }
        Ok(header)
    })
}

/// The lines of the batch, checked and counted.
fn count_lines(d: &mut Datum<'_>) -> Result<usize, Stop> {
    let mut lines = 0;
    d.each("ResultsRecorded.results", |d| {
        ResultLine::skip(d, "ResultsRecorded.results")?;
        lines += 1;
        Ok(())
    })?;
    Ok(lines)
}

/// Appends the lines of a `ResultsRecorded` datum to `out` as the results a submission applies:
/// each with the batch's board, without the informative lead and table.
pub(crate) fn read_lines_as_applied(
    datum: &[u8],
    out: &mut Vec<AppliedResult>,
) -> Result<(), ReadError> {
    read_datum(datum, |d| {
        let mut board = 0;
        for field in 0..FIELDS.len() {
            match field {
                BOARD => board = d.int("ResultsRecorded.board")?,
                RESULTS => d.each("ResultsRecorded.results", |d| {
                    let line = ResultLine::read(d, "ResultsRecorded.results")?;
                    out.push(line.into_applied(board));
                    Ok(())
                })?,
                other => ResultsRecorded::skip_field(d, other)?,
            }
        }
        Ok(())
    })
}

const APPLIED_FIELDS: &[&str] = <SubmissionApplied as Record>::FIELDS;
const APPLIED_EVENT_ID: usize = field_position(APPLIED_FIELDS, "event_id");
const APPLIED_CLUB_ID: usize = field_position(APPLIED_FIELDS, "club_id");
const APPLIED_SUBMISSION_ID: usize = field_position(APPLIED_FIELDS, "submission_id");
const APPLIED_SEAL_OFFSET: usize = field_position(APPLIED_FIELDS, "seal_offset");
const APPLIED_WITHDRAWN: usize = field_position(APPLIED_FIELDS, "withdrawn");
const APPLIED_PAIRS: usize = field_position(APPLIED_FIELDS, "pairs");

/// Reads a `SubmissionApplied` datum without building its results: they are checked as the
/// generated reader checks them, and left out (`results` is empty).
pub(crate) fn read_applied_without_results(datum: &[u8]) -> Result<SubmissionApplied, ReadError> {
    read_datum(datum, |d| {
        let mut applied = SubmissionApplied {
            event_id: String::new(),
            club_id: String::new(),
            submission_id: String::new(),
            seal_offset: 0,
            results: Vec::new(),
            withdrawn: Vec::new(),
            pairs: Vec::new(),
        };
        for field in 0..APPLIED_FIELDS.len() {
            match field {
                APPLIED_EVENT_ID => applied.event_id = d.string("SubmissionApplied.event_id")?,
                APPLIED_CLUB_ID => applied.club_id = d.string("SubmissionApplied.club_id")?,
                APPLIED_SUBMISSION_ID => {
                    applied.submission_id = d.string("SubmissionApplied.submission_id")?
                }
                APPLIED_SEAL_OFFSET => {
                    applied.seal_offset = d.long("SubmissionApplied.seal_offset")?
                }
                APPLIED_WITHDRAWN => {
                    applied.withdrawn = d.array("SubmissionApplied.withdrawn", |d| {
                        ResultKey::read(d, "SubmissionApplied.withdrawn")
                    })?
                }
                APPLIED_PAIRS => {
                    applied.pairs = d.array("SubmissionApplied.pairs", |d| {
                        AppliedPair::read(d, "SubmissionApplied.pairs")
                    })?
                }
                other => SubmissionApplied::skip_field(d, other)?,
            }
        }
        Ok(applied)
    })
}
