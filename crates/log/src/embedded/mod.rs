//! The embedded log: streams in a directory, shared safely between threads and processes.

mod checkpoint;
mod group;
mod inspect;
mod integrity;
mod missing;
mod reader;
mod repair;
mod seals;
mod segment;
mod writer;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tracing::{debug, instrument};

pub use self::inspect::{
    Durable, GroupPosition, PartitionReport, Report, SegmentReport, StreamReport, TornTail, check,
};
use self::reader::Reader;
pub use self::repair::{PartitionRepair, RepairOptions, RepairReport, repair};
use self::writer::{Flush, Writer};
use crate::{
    Consumer, Error, Log, MAX_RECORD_BYTES, Produce, Record, Result, StreamConfig,
    partition_for_key,
};

/// Default size at which a new segment file is started (64 MiB).
pub const DEFAULT_SEGMENT_BYTES: u64 = 64 << 20;
/// Most partitions a stream may have.
const MAX_PARTITIONS: u32 = 10_000;
/// Longest stream or group name.
const MAX_NAME_LEN: usize = 200;
/// Directory of consumer groups, under the log directory.
const GROUPS_DIR: &str = "_groups";
/// Stream description file, in the stream directory.
const STREAM_META: &str = "stream.meta";
/// First line of the description of a stream whose partitions keep a checkpoint file (written
/// since issue 18). Older programs refuse to open such a stream, which is what we want: they
/// would append without moving the checkpoint and cut a damaged tail as if it were torn.
const STREAM_META_HEADER: &str = "simpairs-log stream 2";
/// First line of the description of a stream written before checkpoints existed; it is read as
/// before, and its partitions are checked as far as they can be without a checkpoint.
const STREAM_META_HEADER_V1: &str = "simpairs-log stream 1";
/// Lock file name, in the log directory, a partition directory and a group directory.
const LOCK_FILE: &str = "lock";
/// Lock file serializing stream creation, in the log directory.
const ROOT_LOCK_FILE: &str = ".lock";

/// Settings of an [`EmbeddedLog`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `fsync` appended records, new files and committed positions before returning.
    /// Turn off only for tests and benchmarks: a machine crash may then lose records that
    /// `append` reported as written (a killed process loses nothing either way).
    pub fsync: bool,
    /// Start a new segment file before a batch that would make the current one larger than this.
    pub segment_bytes: u64,
}

impl Default for Options {
    /// `fsync` on, 64 MiB segments.
    fn default() -> Self {
        Options {
            fsync: true,
            segment_bytes: DEFAULT_SEGMENT_BYTES,
        }
    }
}

/// The log kept in files in one directory (see the [crate docs](crate) for the layout and the
/// guarantees).
///
/// Cloning is cheap and shares everything, including what has been learned about the files;
/// consumers made from any clone are woken at once by appends through any other.
#[derive(Clone)]
pub struct EmbeddedLog {
    inner: Arc<Inner>,
}

impl fmt::Debug for EmbeddedLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EmbeddedLog")
            .field("dir", &self.inner.dir)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl EmbeddedLog {
    /// Opens (creating it if needed) the log in `dir`, with default [`Options`].
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        EmbeddedLog::open_with(dir, Options::default())
    }

    /// Opens (creating it if needed) the log in `dir`.
    pub fn open_with(dir: impl AsRef<Path>, options: Options) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        if options.segment_bytes == 0 {
            return Err(Error::InvalidArgument(
                "the segment size must be at least 1 byte".to_owned(),
            ));
        }
        let groups = dir.join(GROUPS_DIR);
        fs::create_dir_all(&groups).map_err(Error::io("create the log directory", &groups))?;
        debug!(dir = %dir.display(), ?options, "opened the embedded log");
        Ok(EmbeddedLog {
            inner: Arc::new(Inner {
                dir,
                options,
                streams: Mutex::new(HashMap::new()),
                wakeup: Wakeup::default(),
            }),
        })
    }

    /// Whether `dir` holds an embedded log (one [`EmbeddedLog::open`] made there before).
    pub fn is_log(dir: &Path) -> bool {
        dir.join(GROUPS_DIR).is_dir()
    }

    /// The directory holding the log.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// The settings the log was opened with.
    pub fn options(&self) -> Options {
        self.inner.options
    }
}

/// What all clones of an [`EmbeddedLog`] and its consumers share.
struct Inner {
    dir: PathBuf,
    options: Options,
    /// Streams used so far, loaded from disk on first use.
    streams: Mutex<HashMap<String, Arc<Stream>>>,
    /// Woken on every append through this log.
    wakeup: Wakeup,
}

impl Inner {
    /// The stream, loading its description on first use.
    fn stream(&self, name: &str) -> Result<Arc<Stream>> {
        if let Some(stream) = lock(&self.streams).get(name) {
            return Ok(stream.clone());
        }
        check_name("stream", name)?;
        let stream_dir = self.dir.join(name);
        let meta = read_stream_meta(&stream_dir.join(STREAM_META))?
            .ok_or_else(|| missing::unknown_or_missing(&self.dir, name))?;
        Ok(self.remember(name, meta))
    }

    /// Adds a stream known to exist to the streams in use (or returns the one already there).
    fn remember(&self, name: &str, meta: StreamMeta) -> Arc<Stream> {
        lock(&self.streams)
            .entry(name.to_owned())
            .or_insert_with(|| Arc::new(Stream::new(&self.dir, name, meta)))
            .clone()
    }
}

/// A stream in use.
struct Stream {
    name: String,
    config: StreamConfig,
    parts: Vec<Partition>,
}

impl Stream {
    fn new(dir: &Path, name: &str, meta: StreamMeta) -> Self {
        let parts = (0..meta.config.partitions)
            .map(|partition| Partition {
                info: PartInfo::new(dir, name, partition, meta.checkpoints),
                writer: Mutex::default(),
                reader: Mutex::default(),
            })
            .collect();
        Stream {
            name: name.to_owned(),
            config: meta.config,
            parts,
        }
    }

    fn part(&self, partition: u32) -> Result<&Partition> {
        self.parts
            .get(partition as usize)
            .ok_or_else(|| Error::UnknownPartition {
                stream: self.name.clone(),
                partition,
                partitions: self.config.partitions,
            })
    }
}

/// One partition of a stream in use: its writer and reader states, each behind its own mutex
/// so that reading does not wait for an append's `fsync`.
struct Partition {
    info: PartInfo,
    writer: Mutex<Writer>,
    reader: Mutex<Reader>,
}

impl Partition {
    fn read(&self, from: u64, max: usize) -> Result<Vec<Record>> {
        lock(&self.reader).read(&self.info, from, max)
    }
}

/// Which partition, and where its files are.
struct PartInfo {
    stream: String,
    partition: u32,
    dir: PathBuf,
    /// The consumer groups' directory of the log (their committed positions say what must exist).
    groups_dir: PathBuf,
    /// The stream was created with checkpoints: a partition without one has lost it.
    checkpoints: bool,
}

impl PartInfo {
    fn new(log_dir: &Path, stream: &str, partition: u32, checkpoints: bool) -> Self {
        PartInfo {
            stream: stream.to_owned(),
            partition,
            dir: log_dir.join(stream).join(partition.to_string()),
            groups_dir: log_dir.join(GROUPS_DIR),
            checkpoints,
        }
    }

    fn lock_path(&self) -> PathBuf {
        self.dir.join(LOCK_FILE)
    }

    fn open_lock_file(&self) -> Result<File> {
        open_lock_file(&self.lock_path())
    }

    /// The lock file, for a shared lock: opened read-only, so that a log the user may read but
    /// not write reads whole (`flock` needs no write access). A partition no writer has locked
    /// yet has none: it is made then, as a writer would.
    fn open_lock_file_for_reading(&self) -> Result<File> {
        let path = self.lock_path();
        match File::open(&path) {
            Ok(file) => Ok(file),
            Err(e) if e.kind() == io::ErrorKind::NotFound => open_lock_file(&path),
            Err(e) => Err(Error::io("read the lock file", &path)(e)),
        }
    }
}

/// Wakes waiting consumers when records are appended through the same log.
#[derive(Default)]
struct Wakeup {
    generation: Mutex<u64>,
    cond: Condvar,
}

impl Wakeup {
    fn notify(&self) {
        let mut generation = lock(&self.generation);
        *generation = generation.wrapping_add(1);
        self.cond.notify_all();
    }

    fn generation(&self) -> u64 {
        *lock(&self.generation)
    }

    /// Waits until the generation is no longer `seen`, or `timeout` has passed.
    fn wait(&self, seen: u64, timeout: Duration) {
        let guard = lock(&self.generation);
        let _unused = self
            .cond
            .wait_timeout_while(guard, timeout, |generation| *generation == seen)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// Locks a mutex; a panic elsewhere while holding it leaves state that is still usable here.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl EmbeddedLog {
    /// Appends `records`, each partition's as one batch, flushed to disk before returning or not.
    fn append_as(
        &self,
        stream: &str,
        records: &[Produce<'_>],
        flush: Flush,
    ) -> Result<Vec<(u32, u64)>> {
        if records.is_empty() {
            return Ok(Vec::new());
        }
        let stream = self.inner.stream(stream)?;
        let partitions = stream.config.partitions;
        let mut batches: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, record) in records.iter().enumerate() {
            let size = record.key.len() + record.value.len();
            if size > MAX_RECORD_BYTES {
                return Err(Error::RecordTooLarge {
                    stream: stream.name.clone(),
                    size,
                    max: MAX_RECORD_BYTES,
                });
            }
            let partition = record
                .partition
                .unwrap_or_else(|| partition_for_key(record.key, partitions));
            stream.part(partition)?;
            batches.entry(partition).or_default().push(i);
        }
        let mut placed = vec![(0, 0); records.len()];
        let result = batches.iter().try_for_each(|(&partition, indices)| {
            if indices.len() > u32::MAX as usize {
                return Err(Error::InvalidArgument(format!(
                    "cannot append more than {} records to one partition in one call",
                    u32::MAX
                )));
            }
            let part = stream.part(partition)?;
            let batch: Vec<&Produce<'_>> = indices.iter().map(|&i| &records[i]).collect();
            let first =
                lock(&part.writer).append(&part.info, &self.inner.options, &batch, flush)?;
            for (k, &i) in indices.iter().enumerate() {
                placed[i] = (partition, first + k as u64);
            }
            Ok(())
        });
        // Partitions written before a failure hold their records: wake their readers anyway.
        self.inner.wakeup.notify();
        result.map(|()| placed)
    }
}

impl Log for EmbeddedLog {
    #[instrument(skip(self, config), fields(dir = %self.inner.dir.display(), partitions = config.partitions))]
    fn create_stream(&self, name: &str, config: &StreamConfig) -> Result<()> {
        check_name("stream", name)?;
        if config.partitions == 0 || config.partitions > MAX_PARTITIONS {
            return Err(Error::InvalidArgument(format!(
                "stream \"{name}\" cannot have {} partitions: between 1 and {MAX_PARTITIONS} are allowed",
                config.partitions
            )));
        }
        let existing = |existing: &StreamConfig| {
            if existing.partitions == config.partitions {
                Ok(())
            } else {
                Err(Error::StreamExists {
                    stream: name.to_owned(),
                    existing: existing.partitions,
                    requested: config.partitions,
                })
            }
        };
        if let Some(stream) = lock(&self.inner.streams).get(name) {
            return existing(&stream.config);
        }
        let dir = &self.inner.dir;
        let root_lock_path = dir.join(ROOT_LOCK_FILE);
        let root_lock = open_lock_file(&root_lock_path)?;
        root_lock
            .lock()
            .map_err(Error::io("lock", &root_lock_path))?;
        // The lock is released when `root_lock` is closed, on every return below.
        let stream_dir = dir.join(name);
        let meta_path = stream_dir.join(STREAM_META);
        if let Some(on_disk) = read_stream_meta(&meta_path)? {
            existing(&on_disk.config)?;
            self.inner.remember(name, on_disk);
            return Ok(());
        }
        let fsync = self.inner.options.fsync;
        for partition in 0..config.partitions {
            let part_dir = stream_dir.join(partition.to_string());
            fs::create_dir_all(&part_dir)
                .map_err(Error::io("create the partition directory", &part_dir))?;
            // Before the description, so that a stream that exists has all its checkpoints.
            checkpoint::create(&part_dir, &checkpoint::Checkpoint::default(), fsync)?;
        }
        if fsync {
            for partition in 0..config.partitions {
                sync_dir(&stream_dir.join(partition.to_string()))?;
            }
        }
        write_atomically(&meta_path, stream_meta_text(config).as_bytes(), fsync)?;
        if fsync {
            sync_dir(dir)?;
        }
        let meta = StreamMeta {
            config: config.clone(),
            checkpoints: true,
        };
        self.inner.remember(name, meta);
        debug!("created the stream");
        Ok(())
    }

    fn partitions(&self, stream: &str) -> Result<u32> {
        Ok(self.inner.stream(stream)?.config.partitions)
    }

    fn append(&self, stream: &str, records: &[Produce<'_>]) -> Result<Vec<(u32, u64)>> {
        self.append_as(stream, records, Flush::Now)
    }

    fn append_derived(&self, stream: &str, records: &[Produce<'_>]) -> Result<Vec<(u32, u64)>> {
        self.append_as(stream, records, Flush::Later)
    }

    fn read(&self, stream: &str, partition: u32, from: u64, max: usize) -> Result<Vec<Record>> {
        self.inner.stream(stream)?.part(partition)?.read(from, max)
    }

    fn end_offset(&self, stream: &str, partition: u32) -> Result<u64> {
        let stream = self.inner.stream(stream)?;
        let part = stream.part(partition)?;
        lock(&part.reader).end(&part.info)
    }

    fn consumer(&self, group: &str, streams: &[&str]) -> Result<Box<dyn Consumer>> {
        Ok(Box::new(group::GroupConsumer::open(
            self.inner.clone(),
            group,
            streams,
        )?))
    }

    fn append_token(&self) -> u64 {
        self.inner.wakeup.generation()
    }

    fn wait_for_append(&self, token: u64, timeout: Duration) {
        self.inner.wakeup.wait(token, timeout);
    }
}

/// Checks that a stream or group name is safe as a directory name and portable to Kafka.
fn check_name(what: &'static str, name: &str) -> Result<()> {
    let reason = if name.is_empty() {
        "it is empty"
    } else if name.len() > MAX_NAME_LEN {
        "it is longer than 200 characters"
    } else if name.starts_with('.') || name.starts_with('_') {
        "names starting with '.' or '_' are reserved"
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        "only letters a-z and A-Z, digits, '.', '_' and '-' are allowed"
    } else {
        return Ok(());
    };
    Err(Error::InvalidName {
        what,
        name: name.to_owned(),
        reason,
    })
}

/// The text of a stream description file.
fn stream_meta_text(config: &StreamConfig) -> String {
    let retention = config
        .retention
        .map_or_else(|| "none".to_owned(), |r| r.as_millis().to_string());
    format!(
        "{STREAM_META_HEADER}\npartitions {}\ncompacted {}\nretention_ms {retention}\n",
        config.partitions, config.compacted
    )
}

/// What a stream description file says.
#[derive(Debug, Clone, PartialEq, Eq)]
struct StreamMeta {
    config: StreamConfig,
    /// Its partitions keep checkpoints (version 2), rather than having been written before
    /// checkpoints existed (version 1).
    checkpoints: bool,
}

/// Reads a stream description file; `None` if there is none.
fn read_stream_meta(path: &Path) -> Result<Option<StreamMeta>> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("read the stream description", path)(e)),
    };
    let bad = |line: usize, reason: String| Error::BadMetadata {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let checkpoints = match lines.next() {
        Some((_, STREAM_META_HEADER)) => true,
        Some((_, STREAM_META_HEADER_V1)) => false,
        _ => {
            return Err(bad(
                1,
                format!(
                    "the file should start with \"{STREAM_META_HEADER}\" (or \"{STREAM_META_HEADER_V1}\", written by older versions)"
                ),
            ));
        }
    };
    let (mut partitions, mut compacted, mut retention) = (None, None, None);
    for (n, line) in lines {
        let Some((key, value)) = line.split_once(' ') else {
            return Err(bad(
                n,
                format!("expected \"setting value\", found \"{line}\""),
            ));
        };
        match key {
            "partitions" => {
                partitions = Some(
                    value
                        .parse::<u32>()
                        .map_err(|_| bad(n, format!("\"{value}\" is not a partition count")))?,
                );
            }
            "compacted" => {
                compacted = Some(
                    value
                        .parse::<bool>()
                        .map_err(|_| bad(n, format!("\"{value}\" is neither true nor false")))?,
                );
            }
            "retention_ms" => {
                retention = Some(match value {
                    "none" => None,
                    ms => Some(Duration::from_millis(ms.parse().map_err(|_| {
                        bad(n, format!("\"{ms}\" is neither \"none\" nor milliseconds"))
                    })?)),
                });
            }
            other => return Err(bad(n, format!("unknown setting \"{other}\""))),
        }
    }
    let last_line = text.lines().count();
    let missing = |what: &str| bad(last_line, format!("the file does not say {what}"));
    let partitions = partitions.ok_or_else(|| missing("the partition count"))?;
    if partitions == 0 {
        return Err(bad(
            last_line,
            "a stream needs at least one partition".to_owned(),
        ));
    }
    Ok(Some(StreamMeta {
        config: StreamConfig {
            partitions,
            compacted: compacted.ok_or_else(|| missing("whether the stream is compacted"))?,
            retention: retention.ok_or_else(|| missing("the retention"))?,
        },
        checkpoints,
    }))
}

/// Opens (creating it) a lock file.
fn open_lock_file(path: &Path) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(Error::io("open the lock file", path))
}

/// Replaces `path` with `contents` so that readers and crashes see the old or the new file,
/// never a mix: a temporary file beside it is written, flushed, and renamed over it.
/// The caller holds a lock that keeps other writers of `path` away.
fn write_atomically(path: &Path, contents: &[u8], fsync: bool) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let mut file = File::create(&tmp).map_err(Error::io("create", &tmp))?;
    file.write_all(contents).map_err(Error::io("write", &tmp))?;
    if fsync {
        file.sync_all().map_err(Error::io("flush to disk", &tmp))?;
    }
    drop(file);
    fs::rename(&tmp, path).map_err(Error::io("replace", path))?;
    if fsync && let Some(dir) = path.parent() {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Flushes a directory's entries (new, renamed files) to disk.
fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(Error::io("flush to disk the directory", dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for good in ["results", "board-scores", "a.b_c-1", "X"] {
            assert!(check_name("stream", good).is_ok(), "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            "_groups",
            "a/b",
            "a b",
            "é",
            &"x".repeat(201),
        ] {
            assert!(check_name("stream", bad).is_err(), "{bad}");
        }
        let err = check_name("stream", "a/b").unwrap_err().to_string();
        assert_eq!(
            err,
            "\"a/b\" cannot be used as a stream name: only letters a-z and A-Z, digits, '.', '_' and '-' are allowed"
        );
    }

    #[test]
    fn stream_meta_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(STREAM_META);
        for config in [
            StreamConfig::with_partitions(3),
            StreamConfig {
                partitions: 1,
                compacted: true,
                retention: Some(Duration::from_secs(86_400)),
            },
        ] {
            write_atomically(&path, stream_meta_text(&config).as_bytes(), true).unwrap();
            let meta = read_stream_meta(&path).unwrap().unwrap();
            assert_eq!(meta.config, config);
            assert!(meta.checkpoints);
        }
        fs::write(
            &path,
            "simpairs-log stream 1\npartitions 2\ncompacted false\nretention_ms none\n",
        )
        .unwrap();
        let old = read_stream_meta(&path).unwrap().unwrap();
        assert_eq!(old.config, StreamConfig::with_partitions(2));
        assert!(!old.checkpoints, "a version 1 stream has no checkpoints");
        fs::write(&path, "simpairs-log stream 2\npartitions x\n").unwrap();
        let err = read_stream_meta(&path).unwrap_err().to_string();
        assert!(
            err.ends_with("line 2: \"x\" is not a partition count"),
            "{err}"
        );
        assert_eq!(read_stream_meta(&dir.path().join("none")).unwrap(), None);
    }
}
