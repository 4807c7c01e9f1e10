//! The crate's error type.

use crate::event::EventType;

/// What can go wrong reading an event (or, for [`Error::Schema`], building the codec).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Fewer bytes than the 10-byte single-object header.
    #[error(
        "the message is {len} bytes long, too short for an event (an event starts with a 10-byte header)"
    )]
    TooShort {
        /// Length of the message.
        len: usize,
    },
    /// The message does not start with the single-object marker `C3 01`.
    #[error(
        "the message is not an event: it starts with bytes {:02X} {:02X} where an event starts with C3 01",
        found[0],
        found[1]
    )]
    BadMarker {
        /// The first two bytes of the message.
        found: [u8; 2],
    },
    /// The header names a schema this program does not know.
    #[error(
        "the message was written with a schema this program does not know (fingerprint {fingerprint:016x}); it is damaged, or comes from a newer program"
    )]
    UnknownSchema {
        /// The fingerprint read from the header, as a little-endian `u64`.
        fingerprint: u64,
    },
    /// The schema is known but the record does not decode with it.
    #[error("the {event_type} record (schema version {version}) is damaged or truncated: {detail}")]
    Malformed {
        /// Type of the record, from the header.
        event_type: EventType,
        /// Version of the writer schema, from the header.
        version: u32,
        /// What the Avro decoder reported.
        detail: String,
    },
    /// The record decoded but bytes were left over after it.
    #[error(
        "the {event_type} record (schema version {version}) is followed by {count} unexpected bytes"
    )]
    TrailingBytes {
        /// Type of the record.
        event_type: EventType,
        /// Version of the writer schema.
        version: u32,
        /// How many bytes were left over.
        count: usize,
    },
    /// An embedded schema file does not parse or is inconsistent (a bug in `schemas/`).
    #[error("schema file {path} is invalid: {detail}")]
    Schema {
        /// Path of the schema file, relative to the repository.
        path: &'static str,
        /// What is wrong with it.
        detail: String,
    },
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Longest Avro detail kept in an error message.
const MAX_DETAIL: usize = 200;

/// Avro's description of a failure, cut to a readable length.
pub(crate) fn detail(error: &apache_avro::Error) -> String {
    let mut text = error.to_string();
    if text.len() > MAX_DETAIL {
        let mut cut = MAX_DETAIL;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}
