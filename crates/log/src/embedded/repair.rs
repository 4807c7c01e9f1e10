//! [`repair`]: the torn tails a crash leaves cut, partition by partition under its lock, and
//! real loss refused.

use std::fs::OpenOptions;
use std::fs::TryLockError;
use std::path::Path;

use tracing::warn;

use super::checkpoint::{self, Checkpoint};
use super::inspect::{Locking, TornTail, inspect_partition, stream_names};
use super::integrity::{self, Committed};
use super::{GROUPS_DIR, PartInfo, STREAM_META, read_stream_meta, writer};
use crate::{Error, Result};

/// How [`repair`] runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairOptions {
    /// Only this stream (all streams when `None`).
    pub stream: Option<String>,
    /// Write a new checkpoint, at the end of the segment files, for partitions whose checkpoint
    /// is missing or unreadable and that have no other problem. What was cut from their end at
    /// a batch boundary before then can no longer be told: use it only when the segment files
    /// are known to be whole.
    pub rebuild_checkpoints: bool,
    /// `fsync` what is cut and written.
    pub fsync: bool,
}

impl Default for RepairOptions {
    /// All streams, no checkpoint rebuilt, `fsync` on.
    fn default() -> Self {
        RepairOptions {
            stream: None,
            rebuild_checkpoints: false,
            fsync: true,
        }
    }
}

/// What [`repair`] did.
#[derive(Debug)]
#[non_exhaustive]
pub struct RepairReport {
    /// Every partition looked at.
    pub partitions: Vec<PartitionRepair>,
    /// Problems outside the partitions (a stream that cannot be read), left as they are.
    pub problems: Vec<Error>,
}

impl RepairReport {
    /// Whether every partition is now whole (nothing refused).
    pub fn is_whole(&self) -> bool {
        self.problems.is_empty() && self.partitions.iter().all(|p| p.refused.is_empty())
    }
}

/// What [`repair`] did to one partition.
#[derive(Debug)]
#[non_exhaustive]
pub struct PartitionRepair {
    /// The stream.
    pub stream: String,
    /// The partition.
    pub partition: u32,
    /// The torn tail cut off, if any.
    pub cut: Option<TornTail>,
    /// A checkpoint was written at the end of the segment files (a partition written before
    /// checkpoints existed, or a rebuilt one).
    pub checkpoint_written: bool,
    /// Why nothing was changed: loss or damage that only a backup can make good.
    pub refused: Vec<Error>,
}

/// Cuts what a crash can leave — a torn tail after the last durable offset — in every partition
/// (or those of one stream), each under its lock so that it may run beside writers, and writes
/// a checkpoint for partitions written before checkpoints existed once they are checked whole.
///
/// A partition with real loss or damage is left exactly as it is, and the reasons are returned
/// in [`PartitionRepair::refused`]: such records must be restored from a backup.
pub fn repair(dir: impl AsRef<Path>, options: &RepairOptions) -> Result<RepairReport> {
    let dir = dir.as_ref();
    let (committed, unreadable) = integrity::all_committed(&dir.join(GROUPS_DIR))?;
    let mut report = RepairReport {
        partitions: Vec::new(),
        problems: unreadable,
    };
    let names = match &options.stream {
        Some(stream) => vec![stream.clone()],
        None => stream_names(dir)?,
    };
    let mut buf = Vec::new();
    for name in names {
        let meta_path = dir.join(&name).join(STREAM_META);
        let meta = match read_stream_meta(&meta_path) {
            Ok(Some(meta)) => meta,
            Ok(None) => {
                report.problems.push(Error::UnknownStream { stream: name });
                continue;
            }
            Err(e) => {
                report.problems.push(e);
                continue;
            }
        };
        for partition in 0..meta.config.partitions {
            let part = PartInfo::new(dir, &name, partition, meta.checkpoints);
            let groups = committed
                .get(&(name.clone(), partition))
                .cloned()
                .unwrap_or_default();
            report
                .partitions
                .push(repair_partition(&part, groups, options, &mut buf));
        }
    }
    Ok(report)
}

/// Repairs one partition under its (exclusive) lock.
fn repair_partition(
    part: &PartInfo,
    committed: Vec<Committed>,
    options: &RepairOptions,
    buf: &mut Vec<u8>,
) -> PartitionRepair {
    let mut done = PartitionRepair {
        stream: part.stream.clone(),
        partition: part.partition,
        cut: None,
        checkpoint_written: false,
        refused: Vec::new(),
    };
    let lock = match part.open_lock_file() {
        Ok(lock) => lock,
        Err(e) => {
            done.refused.push(e);
            return done;
        }
    };
    match lock.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => match lock.lock() {
            Ok(()) => {}
            Err(e) => {
                done.refused.push(Error::io("lock", part.lock_path())(e));
                return done;
            }
        },
        Err(TryLockError::Error(e)) => {
            done.refused.push(Error::io("lock", part.lock_path())(e));
            return done;
        }
    }
    if let Err(e) = repair_locked(part, committed, options, buf, &mut done) {
        done.refused.push(e);
    }
    // Closing the file releases the lock too.
    let _ = lock.unlock();
    done
}

/// [`repair_partition`] once the lock is held.
fn repair_locked(
    part: &PartInfo,
    committed: Vec<Committed>,
    options: &RepairOptions,
    buf: &mut Vec<u8>,
    done: &mut PartitionRepair,
) -> Result<()> {
    let inspected = inspect_partition(part, committed, Locking::Held, buf);
    let report = inspected.report;
    let cp_path = checkpoint::path(&part.dir);
    let about_checkpoint = |e: &Error| match e {
        Error::MissingCheckpoint { .. } => true,
        Error::BadMetadata { path, .. } => path == &cp_path,
        _ => false,
    };
    let rebuild = options.rebuild_checkpoints
        && !report.problems.is_empty()
        && report.problems.iter().all(about_checkpoint);
    if !report.problems.is_empty() && !rebuild {
        done.refused = report.problems;
        return Ok(());
    }
    if let Some(torn) = report.torn_tail {
        let file = OpenOptions::new()
            .write(true)
            .open(&torn.file)
            .map_err(Error::io("open the segment file", &torn.file))?;
        warn!(
            stream = %part.stream,
            partition = part.partition,
            file = %torn.file.display(),
            position = torn.position,
            cut_bytes = torn.bytes,
            "repair: cutting the torn end of an interrupted append: {}",
            torn.reason
        );
        writer::cut(&file, &torn.file, torn.position, options.fsync)?;
        done.cut = Some(torn);
    }
    if report.durable.is_none() || rebuild {
        let cp = inspected.mark.map_or_else(Checkpoint::default, |mark| {
            Checkpoint::default().after(mark)
        });
        checkpoint::create(&part.dir, &cp, options.fsync)?;
        done.checkpoint_written = true;
    }
    Ok(())
}
