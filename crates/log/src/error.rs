//! The one error type of this crate.

use std::io;
use std::path::PathBuf;

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while using a [`Log`](crate::Log).
///
/// Messages are written for the person running the event: they name the stream, partition,
/// offset and file involved, never a debug dump.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory operation failed.
    #[error("could not {action} {}: {source}", path.display())]
    Io {
        /// What was being done, e.g. "write to the segment file".
        action: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },

    /// The stream has not been created.
    #[error("stream \"{stream}\" does not exist; create it first")]
    UnknownStream {
        /// The stream asked for.
        stream: String,
    },

    /// The stream exists but has no such partition.
    #[error(
        "stream \"{stream}\" has {partitions} partition(s), numbered from 0; there is no partition {partition}"
    )]
    UnknownPartition {
        /// The stream.
        stream: String,
        /// The partition asked for.
        partition: u32,
        /// How many partitions the stream has.
        partitions: u32,
    },

    /// `create_stream` was called for an existing stream with a different partition count.
    #[error(
        "stream \"{stream}\" already exists with {existing} partition(s); it cannot be re-created with {requested}"
    )]
    StreamExists {
        /// The stream.
        stream: String,
        /// Its partition count on disk.
        existing: u32,
        /// The partition count asked for.
        requested: u32,
    },

    /// A stream or consumer-group name that cannot be used.
    #[error("\"{name}\" cannot be used as a {what} name: {reason}")]
    InvalidName {
        /// "stream" or "consumer group".
        what: &'static str,
        /// The rejected name.
        name: String,
        /// Why it was rejected.
        reason: &'static str,
    },

    /// A caller-supplied value that cannot be used (for example zero partitions).
    #[error("{0}")]
    InvalidArgument(String),

    /// A record's key and value together exceed [`MAX_RECORD_BYTES`](crate::MAX_RECORD_BYTES).
    #[error(
        "a record for stream \"{stream}\" has {size} bytes of key and value; at most {max} are allowed"
    )]
    RecordTooLarge {
        /// The stream written to.
        stream: String,
        /// Key plus value length.
        size: usize,
        /// The limit.
        max: usize,
    },

    /// Reading at an offset the partition does not hold.
    #[error(
        "stream \"{stream}\" partition {partition} holds offsets {start} up to (not including) {end}; offset {offset} is outside that range"
    )]
    OffsetOutOfRange {
        /// The stream.
        stream: String,
        /// The partition.
        partition: u32,
        /// The offset asked for.
        offset: u64,
        /// The first offset held.
        start: u64,
        /// The next offset to be written.
        end: u64,
    },

    /// Bytes on disk that are not a valid record, in a place that cannot be a torn tail.
    #[error(
        "stream \"{stream}\" partition {partition} is damaged: the record with offset {offset} at byte {position} of {} is unreadable ({reason}); the log was not changed, restore the file from a backup or cut it at byte {position} by hand",
        file.display()
    )]
    Corrupt {
        /// The stream.
        stream: String,
        /// The partition.
        partition: u32,
        /// The offset the damaged record has (or would have had).
        offset: u64,
        /// The segment file.
        file: PathBuf,
        /// Byte position of the damaged record in the file.
        position: u64,
        /// What is wrong with it, in words.
        reason: String,
    },

    /// A metadata file (stream description or committed positions) that cannot be parsed.
    #[error("{}, line {line}: {reason}", path.display())]
    BadMetadata {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },

    /// Another consumer (in this or another process) holds the consumer group.
    #[error(
        "consumer group \"{group}\" is already in use by another consumer ({} is locked); the embedded log allows one consumer per group at a time",
        path.display()
    )]
    GroupBusy {
        /// The group.
        group: String,
        /// Its lock file.
        path: PathBuf,
    },

    /// The consumer was asked about a partition it does not read.
    #[error(
        "this consumer of group \"{group}\" does not read stream \"{stream}\" partition {partition}"
    )]
    NotAssigned {
        /// The consumer's group.
        group: String,
        /// The stream.
        stream: String,
        /// The partition.
        partition: u32,
    },

    /// An error reported by another log backend (for example Kafka), in its own words.
    ///
    /// Backends living in other crates map their errors here, so that every backend can be
    /// used through the one [`Log`](crate::Log) trait.
    #[error("{backend}: {message}")]
    Backend {
        /// The backend's name, e.g. "kafka".
        backend: &'static str,
        /// What went wrong.
        message: String,
    },
}

impl Error {
    /// Wraps an I/O error with what was being done and to which path.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| Error::Io {
            action,
            path,
            source,
        }
    }
}
