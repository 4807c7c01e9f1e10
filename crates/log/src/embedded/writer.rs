//! Appending to one partition: lock, catch up with other processes, check that nothing durable
//! is gone, cut a torn tail, write, and move the checkpoint.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use tracing::{debug, trace, warn};

use super::checkpoint::{self, Checkpoint, Mark};
use super::integrity::{self, Expect};
use super::seals::{self, Seal};
use super::segment::{self, Place, ScanEnd, Tally, segment_name};
use super::{Options, PartInfo, sync_dir};
use crate::frame;
use crate::{Error, Produce, Result};

/// Capacity above which the encoding buffer is given back after a batch.
const KEEP_BUFFER_BYTES: usize = 8 << 20;
/// Capacity above which the scanning buffer is given back after an append (scans are rare).
const KEEP_SCAN_BUFFER_BYTES: usize = 1 << 20;
/// First read when scanning a segment to recover it (it is usually read whole).
const RECOVERY_CHUNK: usize = 1 << 20;

/// The appending side of one partition, in one process.
#[derive(Default)]
pub(super) struct Writer {
    /// The partition's lock file, opened on first use.
    lock: Option<File>,
    /// The partition's checkpoint file, opened on first use (created by the first append to a
    /// partition written before checkpoints existed).
    checkpoint: Option<File>,
    /// The checkpoint this process wrote last: while no other process has appended since, it
    /// is what the file holds, and need not be read again.
    written: Option<Checkpoint>,
    /// The segment being appended to, as of the last append; `None` before the first append and
    /// after a failed one, which makes the next append recover from the files.
    active: Option<Active>,
    /// Encoding buffer, reused.
    buf: Vec<u8>,
    /// Read buffer for scanning, reused.
    scan_buf: Vec<u8>,
}

/// Whether an append waits until its batch is on disk ([`crate::Log::append`]) or not
/// ([`crate::Log::append_derived`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flush {
    Now,
    /// Not flushed, and not in the checkpoint: a machine crash may lose the batch, and the
    /// partition's end is then cut back as a torn tail, not reported as a loss. The next flushed
    /// append to the partition, or its next segment, makes it durable.
    Later,
}

/// The last segment of the partition.
struct Active {
    base: u64,
    path: PathBuf,
    file: File,
    /// Bytes of complete batches in the file.
    size: u64,
    /// Offset of the next record.
    next_offset: u64,
    /// Segment files up to and including this one.
    segments: u64,
}

impl Writer {
    /// Appends `records` as one batch under the partition's lock and returns the first offset.
    pub fn append(
        &mut self,
        part: &PartInfo,
        options: &Options,
        records: &[&Produce<'_>],
        flush: Flush,
    ) -> Result<u64> {
        let lock = match &mut self.lock {
            Some(file) => file,
            lock => lock.insert(part.open_lock_file()?),
        };
        let lock_path = part.lock_path();
        lock.lock().map_err(Error::io("lock", &lock_path))?;
        let result = self.append_locked(part, options, records, flush);
        let unlocked = self
            .lock
            .as_ref()
            .map_or(Ok(()), |lock| lock.unlock())
            .map_err(Error::io("unlock", &lock_path));
        if self.buf.capacity() > KEEP_BUFFER_BYTES {
            self.buf = Vec::new();
        }
        if self.scan_buf.capacity() > KEEP_SCAN_BUFFER_BYTES {
            self.scan_buf = Vec::new();
        }
        let first = result?;
        unlocked?;
        Ok(first)
    }

    /// [`Writer::append`] once the lock is held.
    fn append_locked(
        &mut self,
        part: &PartInfo,
        options: &Options,
        records: &[&Produce<'_>],
        flush: Flush,
    ) -> Result<u64> {
        let cp_path = checkpoint::path(&part.dir);
        // Taken out, and put back only if everything works: after any failure the next append
        // starts from what is on disk.
        let active = self.active.take();
        let untouched = match &active {
            Some(act) => untouched_since(act, part)?,
            None => false,
        };
        let cp = match self.written.take() {
            Some(cp) if untouched => Some(cp),
            _ => self.read_checkpoint(part, &cp_path)?,
        };
        let mut act = match active {
            Some(act) if untouched => act,
            Some(mut act) => {
                let expect = Expect {
                    checkpoint: cp,
                    committed: None,
                };
                catch_up(&mut act, part, options, &mut self.scan_buf, &expect)?;
                integrity::check_end(part, &expect, act.base, act.size, act.next_offset)?;
                act
            }
            None => recover(part, options, &mut self.scan_buf, cp)?,
        };
        let (first, mark) = append_batch(&mut act, part, options, &mut self.buf, records, flush)?;
        self.written = match flush {
            Flush::Now => Some(self.move_checkpoint(part, options, &cp_path, cp, mark)?),
            // A checkpoint never claims more than is durable.
            Flush::Later => cp,
        };
        self.active = Some(act);
        Ok(first)
    }

    /// Writes the checkpoint after a durable batch; returns it.
    fn move_checkpoint(
        &mut self,
        part: &PartInfo,
        options: &Options,
        cp_path: &Path,
        cp: Option<Checkpoint>,
        mark: Mark,
    ) -> Result<Checkpoint> {
        let next = cp.unwrap_or_default().after(mark);
        match &self.checkpoint {
            Some(file) => checkpoint::write(file, cp_path, &next)?,
            None => {
                checkpoint::create(&part.dir, &next, options.fsync)?;
                self.checkpoint = checkpoint::open(cp_path)?;
            }
        }
        Ok(next)
    }

    /// The partition's newest checkpoint, opening its file on first use; `None` for a partition
    /// written before checkpoints existed.
    fn read_checkpoint(&mut self, part: &PartInfo, path: &Path) -> Result<Option<Checkpoint>> {
        if self.checkpoint.is_none() {
            self.checkpoint = checkpoint::open(path)?;
        }
        match &self.checkpoint {
            Some(file) => Ok(Some(checkpoint::read(file, path)?)),
            None if part.checkpoints => Err(integrity::missing_checkpoint(part)),
            None => Ok(None),
        }
    }
}

/// Whether nothing was appended to the partition since this process's last append: the active
/// segment has the size it left, and no later segment was started.
fn untouched_since(act: &Active, part: &PartInfo) -> Result<bool> {
    let len = act
        .file
        .metadata()
        .map_err(Error::io("read the size of", &act.path))?
        .len();
    if len != act.size {
        return Ok(false);
    }
    let next = part.dir.join(segment_name(act.next_offset));
    match std::fs::symlink_metadata(&next) {
        Ok(_) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(Error::io("look for the segment file", next)(e)),
    }
}

/// Encodes and writes one batch to the active segment (rolling first if it is full); returns
/// its first offset and what the checkpoint is to say once it is durable.
fn append_batch(
    act: &mut Active,
    part: &PartInfo,
    options: &Options,
    buf: &mut Vec<u8>,
    records: &[&Produce<'_>],
    flush: Flush,
) -> Result<(u64, Mark)> {
    let first = act.next_offset;
    let count = records.len();
    buf.clear();
    let mut last_start = 0;
    for (i, record) in records.iter().enumerate() {
        last_start = buf.len();
        frame::encode(
            buf,
            first + i as u64,
            record.timestamp_ms,
            (count - 1 - i) as u32,
            record.key,
            record.value,
        );
    }
    if act.size > 0 && act.size + buf.len() as u64 > options.segment_bytes {
        roll(act, part, options)?;
    }
    act.file
        .write_all_at(buf, act.size)
        .map_err(Error::io("write to", &act.path))?;
    if options.fsync && flush == Flush::Now {
        let syncing = std::time::Instant::now();
        act.file
            .sync_data()
            .map_err(Error::io("flush to disk", &act.path))?;
        trace!(stream = %part.stream, bytes = buf.len(), elapsed = ?syncing.elapsed(), "batch flushed to disk");
    }
    let mark = Mark {
        next: first + count as u64,
        segment: act.base,
        segments: act.segments,
        end: act.size + buf.len() as u64,
        last: act.size + last_start as u64,
        last_crc: frame::stored_crc(&buf[last_start..]).unwrap_or_default(),
    };
    act.size = mark.end;
    act.next_offset = mark.next;
    Ok((first, mark))
}

/// Starts a new segment at the next offset, sealing the current one first.
fn roll(act: &mut Active, part: &PartInfo, options: &Options) -> Result<()> {
    let seal = Seal {
        end: act.size,
        next: act.next_offset,
    };
    if options.fsync {
        // Batches appended without a flush (by this process or another) are made durable
        // before the seal says the segment holds them.
        act.file
            .sync_data()
            .map_err(Error::io("flush to disk", &act.path))?;
    }
    seals::append(&part.dir, act.base, seal, options.fsync)?;
    let base = act.next_offset;
    let path = part.dir.join(segment_name(base));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(Error::io("create the segment file", &path))?;
    if options.fsync {
        sync_dir(&part.dir)?;
    }
    debug!(stream = %part.stream, partition = part.partition, file = %path.display(), "started a new segment");
    *act = Active {
        base,
        path,
        file,
        size: 0,
        next_offset: base,
        segments: act.segments + 1,
    };
    Ok(())
}

/// Finds the last segment and its end, checking the partition against its checkpoint and the
/// consumer groups' positions and cutting a torn tail; creates the first segment of an empty
/// partition.
fn recover(
    part: &PartInfo,
    options: &Options,
    scan_buf: &mut Vec<u8>,
    cp: Option<Checkpoint>,
) -> Result<Active> {
    let expect = Expect {
        checkpoint: cp,
        committed: integrity::committed_positions(part)?
            .into_iter()
            .max_by_key(|c| c.next_offset),
    };
    let bases = segment::list_segments(&part.dir)?;
    integrity::check_listing(part, &bases, &expect, scan_buf)?;
    if cp.is_none() {
        // Written before checkpoints existed: read it whole once, since nothing else can tell a
        // missing middle segment; the checkpoint written after this append spares later writers.
        integrity::walk_sealed(part, &bases, scan_buf)?;
    }
    let base = bases.last().copied().unwrap_or(0);
    let path = part.dir.join(segment_name(base));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(bases.is_empty())
        .open(&path)
        .map_err(Error::io("open the segment file", &path))?;
    if bases.is_empty() && options.fsync {
        sync_dir(&part.dir)?;
    }
    let mut act = Active {
        base,
        path,
        file,
        size: 0,
        next_offset: base,
        segments: bases.len().max(1) as u64,
    };
    scan_to_end(&mut act, part, options, scan_buf, &expect)?;
    integrity::check_end(part, &expect, act.base, act.size, act.next_offset)?;
    debug!(stream = %part.stream, partition = part.partition, file = %act.path.display(), next_offset = act.next_offset, "ready to append");
    Ok(act)
}

/// Takes in what other processes appended since this one last held the lock.
fn catch_up(
    act: &mut Active,
    part: &PartInfo,
    options: &Options,
    scan_buf: &mut Vec<u8>,
    expect: &Expect,
) -> Result<()> {
    let len = act
        .file
        .metadata()
        .map_err(Error::io("read the size of", &act.path))?
        .len();
    if len < act.size {
        return Err(integrity::lost(
            part,
            act.path.clone(),
            act.next_offset,
            format!("the file was cut to {len} bytes by something other than this log"),
            format!(
                "this process had appended or read its records up to byte {}",
                act.size
            ),
        ));
    }
    if len > act.size {
        scan_to_end(act, part, options, scan_buf, expect)?;
    }
    // Another process may have started new segments.
    while act.base != act.next_offset {
        let path = part.dir.join(segment_name(act.next_offset));
        let file = match OpenOptions::new().read(true).write(true).open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => return Err(Error::io("open the segment file", path)(e)),
        };
        *act = Active {
            base: act.next_offset,
            path,
            file,
            size: 0,
            next_offset: act.next_offset,
            segments: act.segments + 1,
        };
        scan_to_end(act, part, options, scan_buf, expect)?;
    }
    Ok(())
}

/// Scans the active segment from its known end to the end of the file, taking in complete
/// batches and cutting a torn tail off the file, but only after the checkpoint's end: bytes
/// before it that are not whole batches are loss or damage. Must hold the partition lock.
fn scan_to_end(
    act: &mut Active,
    part: &PartInfo,
    options: &Options,
    scan_buf: &mut Vec<u8>,
    expect: &Expect,
) -> Result<()> {
    let place = Place {
        stream: &part.stream,
        partition: part.partition,
        path: &act.path,
    };
    let mut tally = Tally::new(act.size, act.next_offset);
    let outcome = segment::scan(
        &act.file,
        scan_buf,
        place,
        act.size,
        act.next_offset,
        RECOVERY_CHUNK,
        &mut tally,
    )?;
    (act.size, act.next_offset) = (tally.end, tally.next_offset);
    let ScanEnd::Trailing {
        bad_pos,
        bad_offset,
        problem,
    } = outcome
    else {
        return Ok(());
    };
    let file_len = act
        .file
        .metadata()
        .map_err(Error::io("read the size of", &act.path))?
        .len();
    if let Some(cp) = expect.durable_in(act.base).filter(|cp| bad_pos < cp.end) {
        return Err(integrity::not_torn(
            part, &act.path, cp, bad_pos, bad_offset, &problem, file_len,
        ));
    }
    segment::check_torn_tail(&act.file, place, bad_pos, bad_offset, &problem, file_len)?;
    warn!(
        stream = %part.stream,
        partition = part.partition,
        file = %act.path.display(),
        position = act.size,
        cut_bytes = file_len - act.size,
        next_offset = act.next_offset,
        "cutting the torn end of an interrupted append: {problem}"
    );
    cut(&act.file, &act.path, act.size, options.fsync)
}

/// Cuts a segment file at byte `len`.
pub(super) fn cut(file: &File, path: &Path, len: u64, fsync: bool) -> Result<()> {
    file.set_len(len)
        .map_err(Error::io("cut the torn end of", path))?;
    if fsync {
        file.sync_data().map_err(Error::io("flush to disk", path))?;
    }
    Ok(())
}
