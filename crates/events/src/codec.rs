//! [`Codec`]: events to Avro single-object messages and back.

use std::fmt;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::types::Value;
use apache_avro::writer::datum::GenericDatumWriter;
use serde::de::DeserializeOwned;

use crate::direct;
use crate::error::{Error, Result, detail};
use crate::event::{Event, EventType};
use crate::positional::{self, Positional, Write};
use crate::schemas::{Registry, SchemaInfo};

/// The two bytes every message starts with (Avro single-object encoding, format version 1).
pub const MARKER: [u8; 2] = [0xC3, 0x01];

/// Length of the message header: [`MARKER`] and the 8-byte fingerprint.
pub const HEADER_LEN: usize = 10;

/// Splits a message into its writer schema's fingerprint (the header's 8 bytes read as a
/// little-endian `u64`) and its datum (the bytes after the header, exactly as written).
///
/// The datum is what a submission digest covers: verify digests with the datum as
/// received, never with a re-encoding (an older writer schema encodes differently).
pub fn split_message(message: &[u8]) -> Result<(u64, &[u8])> {
    let Some((header, datum)) = message.split_first_chunk::<HEADER_LEN>() else {
        return Err(Error::TooShort { len: message.len() });
    };
    let (marker, fingerprint) = header.split_at(MARKER.len());
    if marker != MARKER {
        return Err(Error::BadMarker {
            found: [marker[0], marker[1]],
        });
    }
    let mut bytes = [0; 8];
    bytes.copy_from_slice(fingerprint);
    Ok((u64::from_le_bytes(bytes), datum))
}

/// A `ResultsRecorded` without its lines: what handling a results-stream record needs before the
/// submission it belongs to is complete (see [`Codec::skim`]).
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

/// A results-stream message as [`Codec::skim`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Skimmed {
    /// A `ResultsRecorded`: its header; its lines were checked, not built.
    Results(ResultsHeader),
    /// Any other event, whole (boxed: the results are the many, and their headers are small).
    Event(Box<Event>),
}

/// Writes the current schema of one record type.
struct Writer {
    header: [u8; HEADER_LEN],
    datum: GenericDatumWriter<'static>,
}

/// Reads one version of one record type.
struct Reader {
    info: &'static SchemaInfo,
    path: ReadPath,
}

/// How a version is read. (apache-avro's `read_deser` cannot resolve schemas yet: it panics
/// when given a reader schema, so an older version goes through `Value`.)
enum ReadPath {
    /// The schema-specific reader of [`direct`], for the version it was written for.
    Specific(SpecificReader),
    /// Current version: decoded straight into the Rust struct.
    Direct(GenericDatumReader<'static>),
    /// Older version: decoded to a `Value`, resolved to the current schema, converted.
    Resolving(GenericDatumReader<'static>),
}

/// Encodes [`Event`]s as Avro single-object messages and decodes them, with the schemas of
/// `schemas/` (embedded, parsed once per process).
///
/// It writes the current version of each schema and reads every version it knows,
/// resolving older ones to the current schema. Building one is cheap after the first;
/// it is `Send + Sync`, so one codec can serve every thread.
pub struct Codec {
    registry: &'static Registry,
    /// At `EventType::index()`.
    writers: Vec<Writer>,
    /// Parallel to `registry.schemas` (current versions first).
    readers: Vec<Reader>,
    /// At `EventType::index()`: the schema-specific writer of [`direct`], where the current
    /// schema is the one it was written for.
    direct_writers: Vec<Option<DirectWriter>>,
}

/// A schema-specific writer of [`direct`]: appends an event's datum (`false` for an event of
/// another type).
type DirectWriter = fn(&Event, &mut Vec<u8>) -> bool;

/// The schema-specific writer of a current schema, if [`direct`] has one for exactly that version.
fn direct_writer(info: &SchemaInfo) -> Option<DirectWriter> {
    match (info.event_type(), info.fingerprint()) {
        (EventType::SubmissionApplied, direct::SUBMISSION_APPLIED) => Some(|event, out| {
            let Event::SubmissionApplied(e) = event else {
                return false;
            };
            direct::write_submission_applied(e, out);
            true
        }),
        (EventType::BoardScored, direct::BOARD_SCORED) => Some(|event, out| {
            let Event::BoardScored(e) = event else {
                return false;
            };
            direct::write_board_scored(e, out);
            true
        }),
        (EventType::StandingsComputed, direct::STANDINGS_COMPUTED) => Some(|event, out| {
            let Event::StandingsComputed(e) = event else {
                return false;
            };
            direct::write_standings_computed(e, out);
            true
        }),
        _ => None,
    }
}

impl fmt::Debug for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Codec")
            .field(
                "schemas",
                &self
                    .registry
                    .schemas
                    .iter()
                    .map(SchemaInfo::path)
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// `$call(args..., Event::X)` for the record type `X` named by an [`EventType`]; the
/// variant constructor fixes the generic record type of `$call`.
macro_rules! by_type {
    ($event_type:expr, $call:ident($($arg:expr),*)) => {
        match $event_type {
            EventType::EventDeclared => $call($($arg,)* Event::EventDeclared),
            EventType::ResultRecorded => $call($($arg,)* Event::ResultRecorded),
            EventType::ResultsRecorded => $call($($arg,)* Event::ResultsRecorded),
            EventType::ResultWithdrawn => $call($($arg,)* Event::ResultWithdrawn),
            EventType::PairEntered => $call($($arg,)* Event::PairEntered),
            EventType::SubmissionSealed => $call($($arg,)* Event::SubmissionSealed),
            EventType::SubmissionApplied => $call($($arg,)* Event::SubmissionApplied),
            EventType::BoardScored => $call($($arg,)* Event::BoardScored),
            EventType::StandingsComputed => $call($($arg,)* Event::StandingsComputed),
            EventType::LeaderboardPublished => $call($($arg,)* Event::LeaderboardPublished),
            EventType::DeadLettered => $call($($arg,)* Event::DeadLettered),
        }
    };
}

/// Decodes a datum written with the current schema straight into its record, by position.
fn read_direct<T: Positional>(
    reader: &GenericDatumReader<'_>,
    datum: &mut &[u8],
    wrap: fn(T) -> Event,
) -> apache_avro::AvroResult<Event> {
    reader
        .read_deser::<positional::Read<T>>(datum)
        .map(|read| wrap(read.0))
}

/// Converts a value already resolved to the current schema into its record.
fn from_resolved<T: DeserializeOwned>(
    value: &Value,
    wrap: fn(T) -> Event,
) -> apache_avro::AvroResult<Event> {
    apache_avro::from_value::<T>(value).map(wrap)
}

/// The error of a schema-specific reader, as the codec reports it.
fn read_error(info: &SchemaInfo, e: direct::ReadError) -> Error {
    match e {
        direct::ReadError::Malformed(detail) => Error::Malformed {
            event_type: info.event_type(),
            version: info.version(),
            detail,
        },
        direct::ReadError::TrailingBytes(count) => Error::TrailingBytes {
            event_type: info.event_type(),
            version: info.version(),
            count,
        },
    }
}

/// A schema-specific reader of [`direct`]: a datum to its event.
type SpecificReader = fn(&[u8]) -> std::result::Result<Event, direct::ReadError>;

/// The schema-specific reader of a schema version, if [`direct`] has one for exactly that
/// version (by fingerprint).
fn specific_reader(info: &SchemaInfo) -> Option<SpecificReader> {
    match (info.event_type(), info.fingerprint()) {
        (EventType::ResultsRecorded, direct::RESULTS_RECORDED) => {
            Some(|datum| direct::read_results_recorded(datum).map(Event::ResultsRecorded))
        }
        (EventType::SubmissionApplied, direct::SUBMISSION_APPLIED) => {
            Some(|datum| direct::read_submission_applied(datum).map(Event::SubmissionApplied))
        }
        (EventType::BoardScored, direct::BOARD_SCORED) => {
            Some(|datum| direct::read_board_scored(datum).map(Event::BoardScored))
        }
        (EventType::StandingsComputed, direct::STANDINGS_COMPUTED) => {
            Some(|datum| direct::read_standings_computed(datum).map(Event::StandingsComputed))
        }
        _ => None,
    }
}

impl Codec {
    /// A codec for every schema in `schemas/`. Fails only if an embedded schema is invalid
    /// (a bug the crate's tests catch).
    pub fn new() -> Result<Codec> {
        let registry = Registry::get()?;
        let built = |info: &'static SchemaInfo, e: apache_avro::Error| Error::Schema {
            path: info.path(),
            detail: e.to_string(),
        };
        let mut writers = Vec::with_capacity(EventType::ALL.len());
        for &event_type in &EventType::ALL {
            let info = registry.current(event_type);
            let mut header = [0; HEADER_LEN];
            header[..MARKER.len()].copy_from_slice(&MARKER);
            header[MARKER.len()..].copy_from_slice(&info.fingerprint().to_le_bytes());
            let datum = GenericDatumWriter::builder(info.schema())
                .build()
                .map_err(|e| built(info, e))?;
            writers.push(Writer { header, datum });
        }
        let mut readers = Vec::with_capacity(registry.schemas.len());
        for info in &registry.schemas {
            let path = if let Some(read) = specific_reader(info) {
                ReadPath::Specific(read)
            } else if info.is_current() {
                ReadPath::Direct(
                    GenericDatumReader::builder(info.schema())
                        .build()
                        .map_err(|e| built(info, e))?,
                )
            } else {
                let current = registry.current(info.event_type());
                ReadPath::Resolving(
                    GenericDatumReader::builder(info.schema())
                        .reader_schema(current.schema())
                        .build()
                        .map_err(|e| built(info, e))?,
                )
            };
            readers.push(Reader { info, path });
        }
        let direct_writers = EventType::ALL
            .iter()
            .map(|&t| direct_writer(registry.current(t)))
            .collect();
        Ok(Codec {
            registry,
            writers,
            readers,
            direct_writers,
        })
    }

    /// Every schema the codec reads: the current version of each record type (in
    /// [`EventType::ALL`] order), then older versions.
    pub fn schemas(&self) -> impl Iterator<Item = &SchemaInfo> + '_ {
        self.registry.schemas.iter()
    }

    /// The schema the codec writes `event_type` with.
    pub fn current_schema(&self, event_type: EventType) -> &SchemaInfo {
        self.registry.current(event_type)
    }

    /// The schema a message was written with, from its header.
    pub fn writer_schema(&self, message: &[u8]) -> Result<&SchemaInfo> {
        let (fingerprint, _) = split_message(message)?;
        self.reader(fingerprint).map(|r| r.info)
    }

    /// `event` as a message: [`MARKER`], the current schema's fingerprint, then the datum.
    ///
    /// # Panics
    /// Never for events built from this crate's types: each type matches its schema, which
    /// the golden-byte tests check for every type.
    pub fn encode(&self, event: &Event) -> Vec<u8> {
        let mut message = Vec::with_capacity(128);
        self.encode_into(event, &mut message);
        message
    }

    /// Appends `event` as a message to `out` (see [`Codec::encode`]), reusing its buffer.
    pub fn encode_into(&self, event: &Event, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.writers[event.event_type().index()].header);
        self.datum_into(event, out);
    }

    /// The message of a `SubmissionApplied` that is not in an [`Event`]: the same bytes as
    /// [`Codec::encode`] of `Event::SubmissionApplied`. The aggregator's state keeps the results
    /// of an applied submission shared with the event it writes (an `Arc`), rather than a copy of
    /// millions of results made only to be encoded.
    pub fn encode_submission_applied(&self, applied: &crate::types::SubmissionApplied) -> Vec<u8> {
        let writer = &self.writers[EventType::SubmissionApplied.index()];
        // About 30 bytes a result.
        let mut message = Vec::with_capacity(HEADER_LEN + 64 + 32 * applied.results.len());
        message.extend_from_slice(&writer.header);
        self.submission_applied_into(applied, &mut message);
        message
    }

    /// Appends the datum of a `SubmissionApplied` to `out`.
    fn submission_applied_into(
        &self,
        applied: &crate::types::SubmissionApplied,
        out: &mut Vec<u8>,
    ) {
        if self.direct_writers[EventType::SubmissionApplied.index()].is_some() {
            direct::write_submission_applied(applied, out);
            return;
        }
        let writer = &self.writers[EventType::SubmissionApplied.index()].datum;
        if let Err(e) = writer.write_ser(out, &Write(applied)) {
            panic!("SubmissionApplied does not match its schema (a bug in simpairs-events): {e}");
        }
    }

    /// The canonical datum bytes of `event` (current schema, no header): what
    /// [`crate::submission_digest`] covers for records this program writes.
    pub fn datum(&self, event: &Event) -> Vec<u8> {
        let mut datum = Vec::with_capacity(128);
        self.datum_into(event, &mut datum);
        datum
    }

    /// Appends the datum of `event` to `out`.
    pub fn datum_into(&self, event: &Event, out: &mut Vec<u8>) {
        if let Some(write) = self.direct_writers[event.event_type().index()]
            && write(event, out)
        {
            return;
        }
        let writer = &self.writers[event.event_type().index()].datum;
        let start = out.len();
        let written = match event {
            Event::EventDeclared(r) => writer.write_ser(out, &Write(r)),
            Event::ResultRecorded(r) => writer.write_ser(out, &Write(r)),
            Event::ResultsRecorded(r) => writer.write_ser(out, &Write(r)),
            Event::ResultWithdrawn(r) => writer.write_ser(out, &Write(r)),
            Event::PairEntered(r) => writer.write_ser(out, &Write(r)),
            Event::SubmissionSealed(r) => writer.write_ser(out, &Write(r)),
            Event::SubmissionApplied(r) => writer.write_ser(out, &Write(r)),
            Event::BoardScored(r) => writer.write_ser(out, &Write(r)),
            Event::StandingsComputed(r) => writer.write_ser(out, &Write(r)),
            Event::LeaderboardPublished(r) => writer.write_ser(out, &Write(r)),
            Event::DeadLettered(r) => writer.write_ser(out, &Write(r)),
        };
        if let Err(e) = written {
            out.truncate(start);
            panic!(
                "{} does not match its schema (a bug in simpairs-events): {e}",
                event.event_type()
            );
        }
    }

    /// Reads a message: finds its writer schema by fingerprint, decodes the datum and, if
    /// it was written with an older version, resolves it to the current one (fields added
    /// since take their defaults).
    ///
    /// Unknown schemas, damaged, truncated or over-long messages give an [`Error`]; no
    /// input makes it panic.
    pub fn decode(&self, message: &[u8]) -> Result<Event> {
        let (fingerprint, datum) = split_message(message)?;
        let reader = self.reader(fingerprint)?;
        let info = reader.info;
        let mut rest = datum;
        let decoded = match &reader.path {
            ReadPath::Specific(read) => return read(datum).map_err(|e| read_error(info, e)),
            ReadPath::Direct(direct) => by_type!(info.event_type(), read_direct(direct, &mut rest)),
            ReadPath::Resolving(resolving) => resolving
                .read_value(&mut rest)
                .and_then(|value| by_type!(info.event_type(), from_resolved(&value))),
        };
        let event = decoded.map_err(|e| Error::Malformed {
            event_type: info.event_type(),
            version: info.version(),
            detail: detail(&e),
        })?;
        if !rest.is_empty() {
            return Err(Error::TrailingBytes {
                event_type: info.event_type(),
                version: info.version(),
                count: rest.len(),
            });
        }
        Ok(event)
    }

    /// Reads a message as [`Codec::decode`] does, with the same errors, but a `ResultsRecorded` only
    /// as far as its header: its lines are checked and counted, not built. A national event's
    /// results arrive in batches that wait, undecoded, until their submission's seal; they are
    /// built once, as the results the submission applies ([`Codec::applied_lines`]).
    pub fn skim(&self, message: &[u8]) -> Result<Skimmed> {
        let (fingerprint, datum) = split_message(message)?;
        let reader = self.reader(fingerprint)?;
        if reader.info.fingerprint() == direct::RESULTS_RECORDED {
            return direct::skim_results_recorded(datum)
                .map(Skimmed::Results)
                .map_err(|e| read_error(reader.info, e));
        }
        Ok(match self.decode(message)? {
            Event::ResultsRecorded(batch) => Skimmed::Results(ResultsHeader::of(&batch)),
            event => Skimmed::Event(Box::new(event)),
        })
    }

    /// Appends the lines of a `ResultsRecorded` message to `out` as the results a submission
    /// applies: each with the batch's board, without the informative lead and table. Any other
    /// message is an error.
    pub fn applied_lines(
        &self,
        message: &[u8],
        out: &mut Vec<crate::types::AppliedResult>,
    ) -> Result<()> {
        let (fingerprint, datum) = split_message(message)?;
        let reader = self.reader(fingerprint)?;
        if reader.info.fingerprint() == direct::RESULTS_RECORDED {
            return direct::read_lines_as_applied(datum, out)
                .map_err(|e| read_error(reader.info, e));
        }
        match self.decode(message)? {
            Event::ResultsRecorded(batch) => {
                let board = batch.board;
                out.extend(batch.results.into_iter().map(|l| l.into_applied(board)));
                Ok(())
            }
            other => Err(Error::Malformed {
                event_type: other.event_type(),
                version: reader.info.version(),
                detail: "expected a ResultsRecorded".into(),
            }),
        }
    }

    fn reader(&self, fingerprint: u64) -> Result<&Reader> {
        self.readers
            .iter()
            .find(|r| r.info.fingerprint() == fingerprint)
            .ok_or(Error::UnknownSchema { fingerprint })
    }
}

#[cfg(test)]
mod tests {
    //! The positional path against apache-avro's own named-field path.

    use proptest::prelude::*;
    use serde::Serialize;

    use super::*;
    use crate::test_samples as common;

    /// The datum apache-avro writes from the derived (named-field) serde impl.
    fn datum_named(codec: &Codec, event: &Event) -> Vec<u8> {
        fn write<T: Serialize>(writer: &GenericDatumWriter<'_>, record: &T) -> Vec<u8> {
            writer.write_ser_to_vec(record).expect("named encoding")
        }
        let writer = &codec.writers[event.event_type().index()].datum;
        match event {
            Event::EventDeclared(r) => write(writer, r),
            Event::ResultRecorded(r) => write(writer, r),
            Event::ResultsRecorded(r) => write(writer, r),
            Event::ResultWithdrawn(r) => write(writer, r),
            Event::PairEntered(r) => write(writer, r),
            Event::SubmissionSealed(r) => write(writer, r),
            Event::SubmissionApplied(r) => write(writer, r),
            Event::BoardScored(r) => write(writer, r),
            Event::StandingsComputed(r) => write(writer, r),
            Event::LeaderboardPublished(r) => write(writer, r),
            Event::DeadLettered(r) => write(writer, r),
        }
    }

    /// Decodes a current-version datum with the derived (named-field) serde impl.
    fn decode_named(codec: &Codec, event_type: EventType, datum: &[u8]) -> Event {
        fn read<T: DeserializeOwned>(
            reader: &GenericDatumReader<'_>,
            mut datum: &[u8],
            wrap: fn(T) -> Event,
        ) -> apache_avro::AvroResult<Event> {
            let event = reader.read_deser::<T>(&mut datum).map(wrap)?;
            assert!(datum.is_empty(), "named decoding left bytes over");
            Ok(event)
        }
        let reader = GenericDatumReader::builder(codec.current_schema(event_type).schema())
            .build()
            .expect("the schema builds a reader");
        by_type!(event_type, read(&reader, datum)).expect("named decoding")
    }

    fn assert_paths_agree(codec: &Codec, event: &Event) {
        let positional = codec.datum(event);
        let named = datum_named(codec, event);
        assert_eq!(
            positional,
            named,
            "{}: the positional field order differs from the schema's",
            event.event_type()
        );
        assert_eq!(&decode_named(codec, event.event_type(), &positional), event);
    }

    #[test]
    fn positional_and_named_encodings_agree_for_every_type() {
        let codec = Codec::new().unwrap();
        for event in common::samples() {
            assert_paths_agree(&codec, &event);
        }
    }

    proptest! {
        #[test]
        fn positional_and_named_encodings_agree_for_random_results(
            single in common::arb::result_recorded(),
            batch in common::arb::results_recorded(),
        ) {
            let codec = Codec::new().unwrap();
            assert_paths_agree(&codec, &Event::ResultRecorded(single));
            assert_paths_agree(&codec, &Event::ResultsRecorded(batch));
        }
    }
}
