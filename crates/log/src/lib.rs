//! The simpairs event log.
//!
//! Clubs publish their results as records on a *stream*; the aggregator consumes them and
//! publishes board scores on another stream; the projection consumes those. This crate holds the
//! [`Log`] trait all of them are written against, and the [`EmbeddedLog`]: a log kept in plain
//! files in one directory, needing no server, safe to share between processes. A Kafka backend
//! (elsewhere) implements the same trait.
//!
//! # Model
//! The model is Kafka's, so that both backends behave alike:
//! - a **stream** (a Kafka topic) has a fixed number of **partitions**;
//! - each partition is an ordered sequence of [`Record`]s numbered by dense **offsets** from 0;
//! - [`Log::append`] places each record in the partition it names or, without one, in
//!   [`partition_for_key`] of its key (Kafka's murmur2 partitioner), so records with the same key
//!   stay in order;
//! - a [`Consumer`] belongs to a **consumer group**; it starts at the group's committed position
//!   (or at offset 0) and the caller commits positions only once its own output is durable
//!   (at-least-once: uncommitted records are delivered again after a restart).
//!
//! The API is synchronous: callers run it on plain threads (or `spawn_blocking`).
//!
//! A Kafka backend maps this directly: stream = topic, [`Consumer`] = a consumer with
//! `enable.auto.commit=false` and `auto.offset.reset=earliest`, [`Consumer::commit`] = a
//! synchronous offset commit, producer `partitioner=murmur2_random` (the same placement as
//! [`partition_for_key`]) and `enable.idempotence=true`; its errors become [`Error::Backend`].
//!
//! # Guarantees of the embedded log
//! - **Atomic, durable appends.** The records one [`Log::append`] call puts in one partition are
//!   written with a single write and become visible together or not at all; `append` returns
//!   after one `fsync` per partition written (unless [`Options::fsync`] is off). Records in
//!   *different* partitions of one call are not atomic as a group, as in Kafka.
//!   [`Log::append_derived`] writes the same way without the `fsync`, for records their writer
//!   derives again (a projection's leaderboard); it leaves the checkpoint where it was, so after
//!   a machine crash such records missing from the end of a partition are a torn tail, not loss.
//!   The next durable append to the partition, or its next segment, makes them durable.
//! - **Many processes.** Any number of processes may open the same directory. Appends to a
//!   partition are serialized by an advisory lock (`flock`) on the partition's `lock` file.
//!   Readers never see a partial record or a partial batch; they take no lock, except a shared
//!   one to examine bytes that may be the torn end of an interrupted append.
//! - **Crash safety.** A writer killed at any instant (even `SIGKILL`) leaves at most a torn
//!   batch at the end of the last segment, after the partition's checkpoint. The next writer cuts
//!   it (with a `tracing` warning naming the file and byte position) before appending; readers
//!   ignore it meanwhile; [`repair`] cuts it too and says what it cut.
//! - **Loss is loud.** Each partition keeps a *checkpoint* (where its last durable batch ends,
//!   moved after every append's `fsync`) and *seals* (the size and end of every segment left for
//!   a new one); consumer groups' committed positions say what was read. Whenever a process
//!   first uses a partition, and whenever a reader reaches its end, what the files hold is
//!   checked against them: a missing first, middle or last segment, a segment cut short, a tail
//!   cut or altered before the checkpoint's end (a flipped byte there is damage, never a torn
//!   write), or a partition ending before a committed position is [`Error::Lost`] or
//!   [`Error::Corrupt`] — for reads, consumers, [`Log::end_offset`] and appends alike, naming
//!   stream, partition, file and offsets. Nothing is cut or appended then: never a shorter stream
//!   returned as if whole, never an offset given twice. Damage inside an older segment whose size
//!   is intact is reported by every read that reaches it and by [`check`]. See
//!   `docs/decisions/log-integrity.md` for what is and is not detected, and for streams written
//!   before checkpoints existed (format 1: still read and appended to, checked as far as their
//!   files allow until their first append or [`repair`] gives them a checkpoint).
//! - **One consumer per group.** A consumer holds its group's lock file for its lifetime; a
//!   second consumer of the same group, in any process, fails with [`Error::GroupBusy`].
//! - **No compaction, no retention.** [`StreamConfig::compacted`] and [`StreamConfig::retention`]
//!   are recorded but the embedded log keeps every record forever.
//! - **Limits.** Locks are `flock(2)` advisory locks: use a local file system, not NFS. Readers may
//!   see a batch between its write and the end of its `fsync`; only a machine crash (not a killed
//!   process) in that moment can lose a batch that a reader has already seen.
//!
//! # Layout on disk
//! ```text
//! <dir>/.lock                                   creating streams is serialized on this
//! <dir>/<stream>/stream.meta                    format, partition count and config (text); written last
//! <dir>/<stream>/<partition>/lock               appends to the partition are serialized on this
//! <dir>/<stream>/<partition>/<base offset, 20 digits>.log   segment files
//! <dir>/<stream>/<partition>/checkpoint         the last durable batch (two text slots, below)
//! <dir>/<stream>/<partition>/seals              one text line per segment left for a new one
//! <dir>/_groups/<group>/positions               committed positions of a consumer group (text)
//! <dir>/_groups/<group>/lock                    held by the group's one active consumer
//! ```
//! A segment file is named after the offset of its first record and holds a run of whole
//! batches; the writer starts a new segment before a batch that would take the current one past
//! [`Options::segment_bytes`] (a single batch larger than that gets a segment of its own).
//! Metadata files are replaced atomically (write a temporary file, `fsync`, rename, `fsync` the
//! directory).
//!
//! A segment is a sequence of records, each framed as below; integers are little-endian.
//!
//! | byte       | size | field                                                            |
//! |------------|------|------------------------------------------------------------------|
//! | 0          | 4    | `length`: bytes after this field (`32 + K + V`)                    |
//! | 4          | 4    | `crc`: CRC-32 (IEEE) of bytes `0..4` followed by bytes `8..4+length` |
//! | 8          | 8    | `offset` (u64)                                                     |
//! | 16         | 8    | `timestamp_ms` (i64, milliseconds since the Unix epoch)            |
//! | 24         | 4    | `batch_rest` (u32): records of the same append that follow; 0 ends a batch |
//! | 28         | 4    | `K`: key length (u32)                                              |
//! | 32         | K    | key                                                                |
//! | 32+K       | 4    | `V`: value length (u32)                                            |
//! | 36+K       | V    | value                                                              |
//!
//! A record is *visible* once it is complete, its checksum matches, its offset is the one after
//! its predecessor's, and the record ending its batch (`batch_rest == 0`) is complete too. Key
//! plus value may be at most [`MAX_RECORD_BYTES`].
//!
//! The checkpoint file holds two 256-byte text lines; after each append's `fsync` the writer
//! overwrites the older one in place (one small write, no rename), so a crash or a concurrent
//! reader always finds one whole line, and the newest whole line never claims more than was
//! durable:
//! ```text
//! simpairs-log checkpoint 1 seq=42 next=60 segment=54 segments=7 end=342 last=285 last_crc=1a2b3c4d crc=89abcdef
//! ```
//! (`next`: the offset after the last durable record; `segment`: the base offset of the segment
//! holding it; `segments`: segment files up to that one; `end`: where its batch ends in that
//! file; `last`/`last_crc`: the position and stored checksum of that record; `crc`: CRC-32 of
//! the line before ` crc=`.) The seals file gets one line, flushed, each time a writer starts a
//! new segment: `simpairs-log seal 1 segment=54 end=642 next=63 crc=89abcdef`.
//!
//! # Finding records
//! Each process keeps, per segment, a sparse in-memory index (an entry every 4 KiB) built as
//! records are first read, so a read seeks close to its offset instead of rescanning the
//! segment; the first read of a segment in a process scans it from its start (about 7 million
//! small records per second). A reader notices what other processes appended by reading past the
//! end it knows and by looking for the next segment file. A [`Consumer`] that finds nothing new
//! waits on a condition variable (woken at once by appends through the same [`EmbeddedLog`])
//! with a timeout growing to 2 ms, so a record appended by another process is seen within a few
//! milliseconds without busy-spinning.
//!
//! # Modules
//! - `frame`: the record framing above (pure, no I/O);
//! - `embedded`: the embedded log — streams and their metadata; `embedded::segment` reads frames
//!   and tells a torn tail from damage; `embedded::writer` and `embedded::reader` hold each
//!   partition's appending and reading state; `embedded::group` is the consumer;
//!   `embedded::checkpoint` and `embedded::seals` record what was durable, and
//!   `embedded::integrity` holds the files against them; `embedded::inspect` is [`check`] and
//!   `embedded::repair` is [`repair`];
//! - `partitioner`: Kafka-compatible key hashing;
//! - `error`: the crate's [`Error`].
//!
//! # Example
//! ```
//! use std::time::Duration;
//! use simpairs_log::{EmbeddedLog, Log, Position, Produce, StreamConfig};
//!
//! # fn main() -> simpairs_log::Result<()> {
//! # let tmp = tempfile::tempdir().unwrap();
//! let log = EmbeddedLog::open(tmp.path())?;
//! log.create_stream("results", &StreamConfig::with_partitions(2))?;
//!
//! let placed = log.append(
//!     "results",
//!     &[
//!         Produce::new(b"club-1", b"first result", 1_700_000_000_000),
//!         Produce::new(b"club-1", b"second result", 1_700_000_000_001),
//!     ],
//! )?;
//! let (partition, offset) = placed[0];
//! assert_eq!(placed[1], (partition, offset + 1)); // same key: same partition, in order
//!
//! let mut consumer = log.consumer("aggregator", &["results"])?;
//! let records = consumer.poll(100, Duration::from_millis(100))?;
//! assert_eq!(records.len(), 2);
//! assert_eq!(records[1].value, b"second result");
//!
//! // ... once the effect of these records is durable:
//! consumer.commit(&[records[1].next_position()])?;
//! assert_eq!(consumer.committed("results", partition)?, Some(offset + 2));
//!
//! // Nothing lost or damaged (what `simpairs log check` reports).
//! assert!(simpairs_log::check(tmp.path())?.is_whole());
//! # Ok(())
//! # }
//! ```

mod embedded;
mod error;
mod frame;
mod partitioner;

use std::time::Duration;

pub use embedded::{
    DEFAULT_SEGMENT_BYTES, Durable, EmbeddedLog, GroupPosition, Options, PartitionRepair,
    PartitionReport, RepairOptions, RepairReport, Report, SegmentReport, StreamReport, TornTail,
    check, repair,
};
pub use error::{Error, Kind, Result};
pub use partitioner::partition_for_key;

/// The largest key plus value, in bytes, of one record (64 MiB).
pub const MAX_RECORD_BYTES: usize = 64 << 20;

/// How a stream is created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamConfig {
    /// Number of partitions (at least 1). Fixed once the stream exists.
    pub partitions: u32,
    /// Keep only the latest record per key (Kafka `cleanup.policy=compact`).
    /// Recorded but not applied by the embedded log.
    pub compacted: bool,
    /// Delete records older than this (Kafka `retention.ms`); `None` keeps them forever.
    /// Recorded but not applied by the embedded log.
    pub retention: Option<Duration>,
}

impl StreamConfig {
    /// A stream with `partitions` partitions, not compacted, kept forever.
    pub fn with_partitions(partitions: u32) -> Self {
        StreamConfig {
            partitions,
            compacted: false,
            retention: None,
        }
    }
}

impl Default for StreamConfig {
    /// One partition, not compacted, kept forever.
    fn default() -> Self {
        StreamConfig::with_partitions(1)
    }
}

/// One record to append.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Produce<'a> {
    /// The record key; it chooses the partition when [`Produce::partition`] is `None`.
    pub key: &'a [u8],
    /// The record value.
    pub value: &'a [u8],
    /// When the record was created, in milliseconds since the Unix epoch (Kafka's CreateTime).
    pub timestamp_ms: i64,
    /// The partition to append to; `None` means [`partition_for_key`] of the key.
    pub partition: Option<u32>,
}

impl<'a> Produce<'a> {
    /// A record placed by its key.
    pub fn new(key: &'a [u8], value: &'a [u8], timestamp_ms: i64) -> Self {
        Produce {
            key,
            value,
            timestamp_ms,
            partition: None,
        }
    }

    /// The same record, sent to the given partition.
    pub fn to_partition(self, partition: u32) -> Self {
        Produce {
            partition: Some(partition),
            ..self
        }
    }
}

/// A record read from a stream.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Record {
    /// The stream it was read from.
    pub stream: String,
    /// Its partition.
    pub partition: u32,
    /// Its offset within the partition.
    pub offset: u64,
    /// The timestamp given when it was appended.
    pub timestamp_ms: i64,
    /// Its key.
    pub key: Vec<u8>,
    /// Its value.
    pub value: Vec<u8>,
}

impl Record {
    /// The position just after this record: what to commit once it has been handled.
    pub fn next_position(&self) -> Position {
        Position {
            stream: self.stream.clone(),
            partition: self.partition,
            next_offset: self.offset + 1,
        }
    }
}

/// A consumer group's place in one partition: the next offset it will read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    /// The stream.
    pub stream: String,
    /// The partition.
    pub partition: u32,
    /// The offset of the next record to read (one past the last record handled).
    pub next_offset: u64,
}

/// An append-only, partitioned log of records: the embedded file log or Kafka.
///
/// All methods block the calling thread; none of them panics on bad input or bad bytes on disk.
pub trait Log: Send + Sync {
    /// Creates a stream. Does nothing if it already exists with the same number of partitions
    /// (other settings of an existing stream are left as they are); fails with
    /// [`Error::StreamExists`] if it exists with another number.
    fn create_stream(&self, name: &str, config: &StreamConfig) -> Result<()>;

    /// The number of partitions of a stream.
    fn partitions(&self, stream: &str) -> Result<u32>;

    /// Appends records and returns once they are durable, with the `(partition, offset)` given
    /// to each record, in the order of `records`.
    ///
    /// The records going to one partition are appended atomically, in order, with consecutive
    /// offsets: readers see all of them or none. Batch records into one call: each call costs one
    /// `fsync` per partition it writes to.
    fn append(&self, stream: &str, records: &[Produce<'_>]) -> Result<Vec<(u32, u64)>>;

    /// Appends records that their writer derives again from the rest of the log, such as a view
    /// of it, without waiting for them to reach the disk: they are in the log and readable when
    /// this returns, in order and atomically per partition as with [`Log::append`], and survive
    /// the writer's crash, but a crash of the machine (or of the disk) may lose them, with any
    /// records appended this way after them, until a later [`Log::append`] to the same partition
    /// or a new segment makes them durable. Their writer must notice when they are missing and
    /// write them again; no record that must be kept may depend on them, and no consumer group
    /// may commit positions past them.
    ///
    /// The embedded log skips the append's `fsync`; by default (Kafka, whose brokers decide when
    /// to write to disk and replicate for durability) it is [`Log::append`].
    fn append_derived(&self, stream: &str, records: &[Produce<'_>]) -> Result<Vec<(u32, u64)>> {
        self.append(stream, records)
    }

    /// Reads up to `max` records of one partition, starting at offset `from`, without any
    /// consumer group. Returns fewer (or none) when the partition ends sooner; fails with
    /// [`Error::OffsetOutOfRange`] when `from` is past the end, or before the partition's first
    /// kept record (on Kafka, compaction or retention may have removed the records before it).
    fn read(&self, stream: &str, partition: u32, from: u64, max: usize) -> Result<Vec<Record>>;

    /// The offset the next record appended to the partition will get.
    fn end_offset(&self, stream: &str, partition: u32) -> Result<u64>;

    /// A consumer in `group` reading every partition of `streams`, starting from the group's
    /// committed positions (offset 0 where it has none).
    fn consumer(&self, group: &str, streams: &[&str]) -> Result<Box<dyn Consumer>>;

    /// A consumer that reads every partition of `streams` by itself, for a group that has one
    /// user (an aggregator instance's own position in the results): it never shares the
    /// partitions, and on Kafka it does not join the group at all, so a restarted process does
    /// not wait for its killed predecessor's membership to time out. Positions are committed to
    /// `group` as with [`Log::consumer`]. The embedded log's groups have one consumer anyway.
    fn solo_consumer(&self, group: &str, streams: &[&str]) -> Result<Box<dyn Consumer>> {
        self.consumer(group, streams)
    }

    /// A token for [`Log::wait_for_append`]: take it before reading, and a wait with it returns as
    /// soon as anything is appended after that point. Without a way to be told (the default,
    /// Kafka) the token means nothing.
    fn append_token(&self) -> u64 {
        0
    }

    /// Waits until something is appended after `token` was taken, or `timeout` passes, for a
    /// reader that found nothing new. The embedded log wakes such a reader at once when the
    /// append goes through the same open log (one process); otherwise, and by default, this just
    /// sleeps for `timeout`.
    fn wait_for_append(&self, token: u64, timeout: Duration) {
        let _ = token;
        std::thread::sleep(timeout);
    }
}

/// Reads the partitions of some streams on behalf of a consumer group.
pub trait Consumer: Send {
    /// The next records after this consumer's position, up to `max`, waiting up to `timeout`
    /// for some to arrive. Returns an empty vector when none came in time. Records of one
    /// partition come in offset order; partitions are served in turn.
    fn poll(&mut self, max: usize, timeout: Duration) -> Result<Vec<Record>>;

    /// Durably stores the group's positions for these partitions (the next offset to read).
    /// Call it only once the effect of the records before each position is durable.
    fn commit(&mut self, positions: &[Position]) -> Result<()>;

    /// The group's committed position for a partition, if it has one.
    fn committed(&self, stream: &str, partition: u32) -> Result<Option<u64>>;

    /// Moves this consumer's reading position (not the committed one) for one partition.
    fn seek(&mut self, stream: &str, partition: u32, offset: u64) -> Result<()>;

    /// The partitions this consumer is assigned now: all of its streams' partitions when it is the
    /// group's only member, its share when several consumers form the group.
    fn assignment(&self) -> Result<Vec<(String, u32)>>;
}
