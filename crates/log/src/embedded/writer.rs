//! Appending to one partition: lock, catch up with other processes, cut a torn tail, write.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use tracing::{debug, warn};

use super::segment::{self, Place, ScanEnd, Visit, segment_name};
use super::{Options, PartInfo, sync_dir};
use crate::frame::{self, Header};
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
    /// The segment being appended to, as of the last append; `None` before the first append and
    /// after a failed one, which makes the next append recover from the files.
    active: Option<Active>,
    /// Encoding buffer, reused.
    buf: Vec<u8>,
    /// Read buffer for scanning, reused.
    scan_buf: Vec<u8>,
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
}

impl Writer {
    /// Appends `records` as one batch under the partition's lock and returns the first offset.
    pub fn append(
        &mut self,
        part: &PartInfo,
        options: &Options,
        records: &[&Produce<'_>],
    ) -> Result<u64> {
        let Writer {
            lock,
            active,
            buf,
            scan_buf,
        } = self;
        let lock = match lock {
            Some(file) => file,
            None => lock.insert(part.open_lock_file()?),
        };
        let lock_path = part.lock_path();
        lock.lock().map_err(Error::io("lock", &lock_path))?;
        let result = (|| {
            // Taken out, and put back only if everything works: after any failure the next
            // append starts from what is on disk.
            let mut act = match active.take() {
                Some(mut act) => {
                    catch_up(&mut act, part, options, scan_buf)?;
                    act
                }
                None => recover(part, options, scan_buf)?,
            };
            let first = append_batch(&mut act, part, options, buf, records)?;
            *active = Some(act);
            Ok(first)
        })();
        let unlocked = lock.unlock().map_err(Error::io("unlock", &lock_path));
        if buf.capacity() > KEEP_BUFFER_BYTES {
            *buf = Vec::new();
        }
        if scan_buf.capacity() > KEEP_SCAN_BUFFER_BYTES {
            *scan_buf = Vec::new();
        }
        let first = result?;
        unlocked?;
        Ok(first)
    }
}

/// Encodes and writes one batch to the active segment (rolling first if it is full).
fn append_batch(
    act: &mut Active,
    part: &PartInfo,
    options: &Options,
    buf: &mut Vec<u8>,
    records: &[&Produce<'_>],
) -> Result<u64> {
    let first = act.next_offset;
    let count = records.len();
    buf.clear();
    for (i, record) in records.iter().enumerate() {
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
    if options.fsync {
        act.file
            .sync_data()
            .map_err(Error::io("flush to disk", &act.path))?;
    }
    act.size += buf.len() as u64;
    act.next_offset += count as u64;
    Ok(first)
}

/// Starts a new segment at the next offset.
fn roll(act: &mut Active, part: &PartInfo, options: &Options) -> Result<()> {
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
    };
    Ok(())
}

/// Finds the last segment and its end, cutting a torn tail; creates the first segment of an
/// empty partition.
fn recover(part: &PartInfo, options: &Options, scan_buf: &mut Vec<u8>) -> Result<Active> {
    let bases = segment::list_segments(&part.dir)?;
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
    let (size, next_offset) = scan_to_end(&file, &path, part, options, scan_buf, 0, base)?;
    debug!(stream = %part.stream, partition = part.partition, file = %path.display(), next_offset, "ready to append");
    Ok(Active {
        base,
        path,
        file,
        size,
        next_offset,
    })
}

/// Takes in what other processes appended since this one last held the lock.
fn catch_up(
    act: &mut Active,
    part: &PartInfo,
    options: &Options,
    scan_buf: &mut Vec<u8>,
) -> Result<()> {
    let len = act
        .file
        .metadata()
        .map_err(Error::io("read the size of", &act.path))?
        .len();
    if len < act.size {
        let place = Place {
            stream: &part.stream,
            partition: part.partition,
            path: &act.path,
        };
        return Err(place.corrupt(
            act.next_offset,
            len,
            format_args!(
                "the file was cut to {len} bytes by something else although it held {} bytes of records",
                act.size
            ),
        ));
    }
    if len > act.size {
        (act.size, act.next_offset) = scan_to_end(
            &act.file,
            &act.path,
            part,
            options,
            scan_buf,
            act.size,
            act.next_offset,
        )?;
    }
    // Another process may have started new segments.
    while act.base != act.next_offset {
        let path = part.dir.join(segment_name(act.next_offset));
        let file = match OpenOptions::new().read(true).write(true).open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => return Err(Error::io("open the segment file", path)(e)),
        };
        let base = act.next_offset;
        let (size, next_offset) = scan_to_end(&file, &path, part, options, scan_buf, 0, base)?;
        *act = Active {
            base,
            path,
            file,
            size,
            next_offset,
        };
    }
    Ok(())
}

/// Remembers the end of the last complete batch.
struct LastBatch {
    end: u64,
    next_offset: u64,
}

impl Visit for LastBatch {
    fn record(&mut self, _pos: u64, _header: &Header, _frame: &[u8]) -> bool {
        true
    }

    fn batch_end(&mut self, end: u64, next_offset: u64) -> bool {
        self.end = end;
        self.next_offset = next_offset;
        true
    }
}

/// Scans a segment from a batch boundary to its end and returns the end of its last complete
/// batch and the next offset, cutting a torn tail off the file. Must hold the partition lock.
fn scan_to_end(
    file: &File,
    path: &std::path::Path,
    part: &PartInfo,
    options: &Options,
    scan_buf: &mut Vec<u8>,
    start_pos: u64,
    start_offset: u64,
) -> Result<(u64, u64)> {
    let place = Place {
        stream: &part.stream,
        partition: part.partition,
        path,
    };
    let mut last = LastBatch {
        end: start_pos,
        next_offset: start_offset,
    };
    let outcome = segment::scan(
        file,
        scan_buf,
        place,
        start_pos,
        start_offset,
        RECOVERY_CHUNK,
        &mut last,
    )?;
    if let ScanEnd::Trailing {
        bad_pos,
        bad_offset,
        problem,
    } = outcome
    {
        let file_len = file
            .metadata()
            .map_err(Error::io("read the size of", path))?
            .len();
        segment::check_torn_tail(file, place, bad_pos, bad_offset, &problem, file_len)?;
        warn!(
            stream = %part.stream,
            partition = part.partition,
            file = %path.display(),
            position = last.end,
            cut_bytes = file_len - last.end,
            next_offset = last.next_offset,
            "cutting the torn end of an interrupted append: {problem}"
        );
        file.set_len(last.end)
            .map_err(Error::io("cut the torn end of", path))?;
        if options.fsync {
            file.sync_data().map_err(Error::io("flush to disk", path))?;
        }
    }
    Ok((last.end, last.next_offset))
}
