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
    /// A file or directory operation failed. Permission refused is said as such: it is no
    /// damage, and a log copied for reading is not to be restored from a backup.
    #[error("{}", io_message(action, path, source))]
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

    /// The stream is not in the log although the log shows it was made: a consumer group read
    /// it, or other streams of its family (`<family>.<name>`, an event's) are there. Streams are
    /// never removed, so it was lost or damaged, not yet to be made.
    #[error(
        "stream \"{stream}\" is missing from the log: there is no directory {}, although {evidence}. Streams are never removed, so it was lost or damaged: restore that directory from a backup of the log (`simpairs log check` lists everything missing). Do not make it again (nor declare its event again): it would start empty in place of the records it held",
        dir.display()
    )]
    MissingStream {
        /// The stream.
        stream: String,
        /// Where its directory should be.
        dir: PathBuf,
        /// How the log knows it existed, in words.
        evidence: String,
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

    /// Bytes on disk that are not a valid record, in a place that cannot be a torn tail: before
    /// the last durable append, in a segment that a later one follows, or with valid records
    /// after them.
    #[error(
        "stream \"{stream}\" partition {partition} is damaged: the record with offset {offset} at byte {position} of {} is unreadable ({reason}); nothing was read past it or appended, and the log was not changed. Restore the file from a backup (`simpairs log check` lists every damaged partition); cutting it at byte {position} would lose the records from offset {offset} on",
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

    /// Records the partition held durably (or that a consumer group had already read) are no
    /// longer there: a segment file was deleted, or cut short. A crash never does this: the
    /// files must be restored from a backup.
    #[error(
        "stream \"{stream}\" partition {partition} has lost records: offset {expected_offset} should be in segment file {}, but {found}; {evidence}. Nothing was read past offset {expected_offset} or appended, and the log was not changed. These records had been stored durably, so this is not the torn end of an interrupted write and `simpairs log repair` will not cut it: restore the partition directory {} from a backup (`simpairs log check` lists everything that is missing)",
        segment.display(),
        segment.parent().unwrap_or(segment).display()
    )]
    Lost {
        /// The stream.
        stream: String,
        /// The partition.
        partition: u32,
        /// The segment file that should hold `expected_offset` (it may be missing).
        segment: PathBuf,
        /// The first offset that should be there and is not.
        expected_offset: u64,
        /// What is there instead, in words ("that file is missing", "the file ends at byte 242").
        found: String,
        /// How the log knows the records existed, in words ("the checkpoint file says ...",
        /// "consumer group \"aggregator\" had already read ...").
        evidence: String,
    },

    /// A partition of a stream that keeps checkpoints has lost its checkpoint file, so the log
    /// can no longer tell a cut tail from the end of the partition.
    #[error(
        "stream \"{stream}\" partition {partition} has no checkpoint file ({}), which every partition of this stream keeps; without it the log cannot tell whether records at its end were lost. Restore the partition directory {} from a backup; if you are sure its segment files are whole, `simpairs log repair --rebuild-checkpoints` writes a new checkpoint at their end",
        path.display(),
        path.parent().unwrap_or(path).display()
    )]
    MissingCheckpoint {
        /// The stream.
        stream: String,
        /// The partition.
        partition: u32,
        /// Where the checkpoint file should be.
        path: PathBuf,
    },

    /// A metadata file (stream description, committed positions or checkpoint) that cannot be
    /// parsed.
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
        /// What went wrong (the source's words included).
        message: String,
        /// Whether trying the same call again may succeed: the backend was moving or slow (a
        /// leader changing, a connection lost, a full queue) rather than refusing.
        kind: Kind,
        /// The backend's own error, when there is one (the Kafka backend's is
        /// `simpairs_kafka::Cause`).
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

/// Whether a failed call may succeed if tried again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Trying again may succeed: a timeout, a connection or leader that comes back, a full
    /// queue, another consumer about to let go.
    Retriable,
    /// Trying again fails the same way: the request, the configuration or the data is wrong, or
    /// access is refused.
    Fatal,
}

impl Error {
    /// Whether trying the same call again may succeed ([`Kind`]).
    pub fn kind(&self) -> Kind {
        match self {
            Error::Backend { kind, .. } => *kind,
            Error::Io { source, .. } if transient_io(source.kind()) => Kind::Retriable,
            Error::GroupBusy { .. } => Kind::Retriable,
            _ => Kind::Fatal,
        }
    }

    /// Whether trying the same call again may succeed.
    pub fn is_retriable(&self) -> bool {
        self.kind() == Kind::Retriable
    }

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

/// The words of an [`Error::Io`]: a refused permission names the file and says it is no damage.
fn io_message(action: &str, path: &std::path::Path, source: &io::Error) -> String {
    if source.kind() != io::ErrorKind::PermissionDenied {
        return format!("could not {action} {}: {source}", path.display());
    }
    // What reading paths do is named after reading; anything else changes the log.
    let reading = [
        "read",
        "open the segment",
        "open the checkpoint",
        "list",
        "look for",
    ]
    .iter()
    .any(|verb| action.starts_with(verb));
    let (doing, may) = match reading {
        true => ("reading", "read"),
        false => ("writing", "write to"),
    };
    format!(
        "permission denied {doing} {} (trying to {action}): the log is not damaged by this; run as a user who may {may} the log (its owner), or give that access",
        path.display()
    )
}

/// An I/O failure that may pass: interrupted, would block, timed out.
fn transient_io(kind: io::ErrorKind) -> bool {
    matches!(
        kind,
        io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_and_busy_groups_may_pass_damage_does_not() {
        let io = |kind| Error::Io {
            action: "write to",
            path: PathBuf::from("x"),
            source: io::Error::from(kind),
        };
        assert!(io(io::ErrorKind::TimedOut).is_retriable());
        assert!(!io(io::ErrorKind::PermissionDenied).is_retriable());
        let busy = Error::GroupBusy {
            group: "g".into(),
            path: PathBuf::from("g.lock"),
        };
        assert_eq!(busy.kind(), Kind::Retriable);
        let unknown = Error::UnknownStream { stream: "s".into() };
        assert_eq!(unknown.kind(), Kind::Fatal);
        let backend = Error::Backend {
            backend: "kafka",
            message: "m".into(),
            kind: Kind::Retriable,
            source: None,
        };
        assert!(backend.is_retriable());
    }

    #[test]
    fn a_refused_permission_is_said_as_such_not_as_damage() {
        let denied = |action| Error::Io {
            action,
            path: PathBuf::from("L/s/0/checkpoint"),
            source: io::Error::from(io::ErrorKind::PermissionDenied),
        };
        let said = denied("read the checkpoint").to_string();
        assert!(
            said.starts_with(
                "permission denied reading L/s/0/checkpoint (trying to read the checkpoint)"
            ) && said.contains("not damaged"),
            "{said}"
        );
        let said = denied("create").to_string();
        assert!(
            said.starts_with("permission denied writing L/s/0/checkpoint"),
            "{said}"
        );
    }
}
