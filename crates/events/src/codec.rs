//! [`Codec`]: events to Avro single-object messages and back.

use std::fmt;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::writer::datum::GenericDatumWriter;

use crate::error::{Error, Result, detail};
use crate::event::{Event, EventType};
use crate::schemas::{Registry, SchemaInfo};
use crate::skim::{self, ResultsHeader};
use crate::wire::{self, ReadError, Wire};

/// The two bytes every message starts with (Avro single-object encoding, format version 1).
pub const MARKER: [u8; 2] = [0xC3, 0x01];

/// Length of the message header: [`MARKER`] and the 8-byte fingerprint.
pub const HEADER_LEN: usize = 10;

/// A message split at the end of its header ([`split_message`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framed<'m> {
    /// The writer schema's fingerprint: the header's 8 bytes read as a little-endian `u64`.
    pub fingerprint: u64,
    /// The bytes after the header, exactly as written.
    pub datum: &'m [u8],
}

/// Splits a message into its writer schema's fingerprint and its datum ([`Framed`]).
///
/// The datum is what a submission digest covers: verify digests with the datum as
/// received, never with a re-encoding (an older writer schema encodes differently).
pub fn split_message(message: &[u8]) -> Result<Framed<'_>> {
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
    Ok(Framed {
        fingerprint: u64::from_le_bytes(bytes),
        datum,
    })
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
    path: WritePath,
}

/// How the current version of a record type is written.
enum WritePath {
    /// By the codec `build.rs` generated from this very schema (`wire.rs`).
    Generated,
    /// By apache-avro, through the type's serde impl (if the generated codec's fingerprint
    /// differed from the registry's: a bug the tests catch).
    Named(GenericDatumWriter<'static>),
}

/// Reads one version of one record type.
struct Reader {
    info: &'static SchemaInfo,
    path: ReadPath,
}

/// How a version is read. (apache-avro's `read_deser` cannot resolve schemas yet: it panics
/// when given a reader schema, so an older version goes through `Value`.)
enum ReadPath {
    /// By the codec `build.rs` generated from this very schema (`wire.rs`).
    Generated,
    /// By apache-avro straight into the Rust struct (a current version without a generated
    /// codec of the same fingerprint: a bug the tests catch).
    Named(GenericDatumReader<'static>),
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

/// The error of a generated reader, as the codec reports it.
fn read_error(info: &SchemaInfo, e: ReadError) -> Error {
    match e {
        ReadError::Malformed(detail) => Error::Malformed {
            event_type: info.event_type(),
            version: info.version(),
            detail,
        },
        ReadError::TrailingBytes(count) => Error::TrailingBytes {
            event_type: info.event_type(),
            version: info.version(),
            count,
        },
    }
}

/// Whether `info` is the schema the generated codec of its record type was generated from.
fn generated_for(info: &SchemaInfo) -> bool {
    wire::generated_fingerprint(info.event_type()) == info.fingerprint()
}

/// The writer of a current schema.
fn writer(info: &'static SchemaInfo) -> Result<Writer> {
    let mut header = [0; HEADER_LEN];
    header[..MARKER.len()].copy_from_slice(&MARKER);
    header[MARKER.len()..].copy_from_slice(&info.fingerprint().to_le_bytes());
    let path = if generated_for(info) {
        WritePath::Generated
    } else {
        WritePath::Named(
            GenericDatumWriter::builder(info.schema())
                .build()
                .map_err(|e| built(info, e))?,
        )
    };
    Ok(Writer { header, path })
}

/// The reader of a schema version.
fn reader(registry: &'static Registry, info: &'static SchemaInfo) -> Result<Reader> {
    let path = if generated_for(info) {
        ReadPath::Generated
    } else if info.is_current() {
        ReadPath::Named(
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
    Ok(Reader { info, path })
}

/// apache-avro could not build a reader or writer of `info`.
fn built(info: &'static SchemaInfo, e: apache_avro::Error) -> Error {
    Error::Schema {
        path: info.path(),
        detail: e.to_string(),
    }
}

impl Codec {
    /// A codec for every schema in `schemas/`. Fails only if an embedded schema is invalid
    /// (a bug the crate's tests catch).
    pub fn new() -> Result<Codec> {
        let registry = Registry::get()?;
        let writers = EventType::ALL
            .iter()
            .map(|&event_type| writer(registry.current(event_type)))
            .collect::<Result<_>>()?;
        let readers = registry
            .schemas
            .iter()
            .map(|info| reader(registry, info))
            .collect::<Result<_>>()?;
        Ok(Codec {
            registry,
            writers,
            readers,
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
        let fingerprint = split_message(message)?.fingerprint;
        self.reader(fingerprint).map(|r| r.info)
    }

    /// `event` as a message: [`MARKER`], the current schema's fingerprint, then the datum.
    ///
    /// # Panics
    /// Never for events built from this crate's types: each type is generated from its
    /// schema, and the golden-byte tests check every type.
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
        match &writer.path {
            WritePath::Generated => applied.write(&mut wire::Out(&mut message)),
            WritePath::Named(named) => {
                if let Err(e) = named.write_ser(&mut message, applied) {
                    panic!(
                        "SubmissionApplied does not match its schema (a bug in simpairs-events): {e}"
                    );
                }
            }
        }
        message
    }

    /// The canonical datum bytes of `event` (current schema, no header): what
    /// [`crate::submission_digest`] covers for records this program writes.
    pub fn datum(&self, event: &Event) -> Vec<u8> {
        let mut datum = Vec::with_capacity(128);
        self.datum_into(event, &mut datum);
        datum
    }

    /// Appends the datum of `event` to `out`.
    pub(crate) fn datum_into(&self, event: &Event, out: &mut Vec<u8>) {
        match &self.writers[event.event_type().index()].path {
            WritePath::Generated => wire::write_event(event, out),
            WritePath::Named(named) => {
                let start = out.len();
                if let Err(e) = wire::write_named(named, event, out) {
                    out.truncate(start);
                    panic!(
                        "{} does not match its schema (a bug in simpairs-events): {e}",
                        event.event_type()
                    );
                }
            }
        }
    }

    /// Reads a message: finds its writer schema by fingerprint, decodes the datum and, if
    /// it was written with an older version, resolves it to the current one (fields added
    /// since take their defaults).
    ///
    /// Unknown schemas, damaged, truncated or over-long messages give an [`Error`]; no
    /// input makes it panic.
    pub fn decode(&self, message: &[u8]) -> Result<Event> {
        let Framed { fingerprint, datum } = split_message(message)?;
        let reader = self.reader(fingerprint)?;
        let info = reader.info;
        let mut rest = datum;
        let decoded = match &reader.path {
            ReadPath::Generated => {
                return wire::read_event(info.event_type(), datum).map_err(|e| read_error(info, e));
            }
            ReadPath::Named(named) => wire::read_named(named, info.event_type(), &mut rest),
            ReadPath::Resolving(resolving) => resolving
                .read_value(&mut rest)
                .and_then(|value| wire::from_value(info.event_type(), &value)),
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
        let Framed { fingerprint, datum } = split_message(message)?;
        let reader = self.reader(fingerprint)?;
        if reader.generated_results() {
            return skim::skim_results_recorded(datum)
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
        let Framed { fingerprint, datum } = split_message(message)?;
        let reader = self.reader(fingerprint)?;
        if reader.generated_results() {
            return skim::read_lines_as_applied(datum, out).map_err(|e| read_error(reader.info, e));
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

impl Reader {
    /// Whether this reads `ResultsRecorded` with the generated codec (which [`skim`] goes with).
    fn generated_results(&self) -> bool {
        self.info.event_type() == EventType::ResultsRecorded
            && matches!(self.path, ReadPath::Generated)
    }
}

#[cfg(test)]
mod tests {
    //! The codec's paths: generated wherever a schema has a generated codec.

    use super::*;
    use crate::test_samples as common;

    #[test]
    fn every_schema_with_a_generated_codec_uses_it() {
        let codec = Codec::new().unwrap();
        for reader in &codec.readers {
            let expected = reader.info.is_current();
            assert_eq!(
                matches!(reader.path, ReadPath::Generated),
                expected,
                "{}",
                reader.info.path()
            );
        }
        for writer in &codec.writers {
            assert!(matches!(writer.path, WritePath::Generated));
        }
        assert!(
            codec
                .reader(
                    codec
                        .current_schema(EventType::ResultsRecorded)
                        .fingerprint()
                )
                .unwrap()
                .generated_results()
        );
        assert_eq!(common::samples().len(), EventType::ALL.len());
    }
}
