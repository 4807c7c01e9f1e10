//! The results stream's own readers of `ResultsRecorded`, beside its generated one: a batch
//! *skimmed* (its header read, its lines checked, not built: [`crate::Codec::skim`]) and its
//! lines read as the results a submission applies ([`crate::Codec::applied_lines`]).
//!
//! They are written by hand because they read a record into something else than its type,
//! but they find the fields by their positions in the schema ([`Record::FIELDS`], generated),
//! check and skip the fields they do not need with the generated skippers, and read a line
//! with the generated reader of `ResultLine`. A field added to either schema is handled
//! without a change here; a field they read that is renamed or removed fails the build. They
//! are used for the schema the generated codec is for, and held to apache-avro by the same
//! tests.

use crate::types::{AppliedResult, ResultLine, ResultsRecorded, Text};
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
    /// The event (held inline: an id is a few words, and a national event has millions of
    /// batches).
    pub event_id: Text,
    /// The club that played the board.
    pub club_id: Text,
    /// The submission the lines are part of.
    pub submission_id: Text,
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
            event_id: batch.event_id.as_str().into(),
            club_id: batch.club_id.as_str().into(),
            submission_id: batch.submission_id.as_str().into(),
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
            event_id: Text::default(),
            club_id: Text::default(),
            submission_id: Text::default(),
            board: 0,
            first_sequence: 0,
            lines: 0,
        };
        for field in 0..FIELDS.len() {
            match field {
                EVENT_ID => header.event_id = d.str("ResultsRecorded.event_id")?.into(),
                CLUB_ID => header.club_id = d.str("ResultsRecorded.club_id")?.into(),
                SUBMISSION_ID => {
                    header.submission_id = d.str("ResultsRecorded.submission_id")?.into()
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
