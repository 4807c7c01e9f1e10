//! Reading one partition: which segments exist, a sparse index of each, and what is visible.

use std::fs::{File, TryLockError};
use std::io;
use std::path::PathBuf;
use std::time::SystemTime;

use tracing::debug;

use super::PartInfo;
use super::checkpoint::{self, Checkpoint};
use super::integrity::{self, Expect};
use super::segment::{self, FIRST_CHUNK, Place, Problem, ScanEnd, Visit, segment_name};
use crate::frame::Header;
use crate::{Error, Record, Result};

/// Bytes between two entries of a segment's sparse index.
const INDEX_INTERVAL: u64 = 4 << 10;
/// Read buffer capacity kept between reads; a larger one is given back.
const KEEP_BUFFER_BYTES: usize = 1 << 20;
/// Most records a read makes room for before it reads.
const RESERVED_RECORDS: usize = 16_384;

/// What this process knows about reading one partition.
#[derive(Default)]
pub(super) struct Reader {
    /// Known segments, by increasing base offset; empty until the directory is first listed.
    segments: Vec<Seg>,
    /// The segment file last read from, kept open.
    open: Option<(u64, File)>,
    /// Read buffer, reused.
    buf: Vec<u8>,
    /// The partition's lock file, opened when a suspect tail must be examined.
    lock: Option<File>,
    /// What the partition must hold; `None` until the directory is first listed.
    expect: Option<Expect>,
    /// The partition's checkpoint file, kept open once found.
    checkpoint_file: Option<File>,
}

/// The error for a reader used before its partition was listed (a bug, reported rather than
/// panicking).
fn not_opened(part: &PartInfo) -> Error {
    Error::InvalidArgument(format!(
        "stream \"{}\" partition {} was read before its files were listed",
        part.stream, part.partition
    ))
}

/// What is known about one segment.
struct Seg {
    base: u64,
    path: PathBuf,
    /// Sparse (offset, byte position) of record starts in the visible part; starts with (base, 0).
    index: Vec<(u64, u64)>,
    /// End of the visible part: complete, checked batches.
    valid_end: u64,
    /// Offset of the first record after the visible part.
    next_offset: u64,
    /// A later segment exists, so this one will not grow.
    sealed: bool,
    /// Sealed, and read to its end: `next_offset` is final.
    finished: bool,
    /// File length when unfinished bytes were last seen after the visible part.
    stalled_len: Option<u64>,
    /// File length and modification time when those bytes were found, under the lock, to be
    /// a torn tail.
    torn: Option<FileState>,
}

impl Seg {
    fn new(base: u64, path: PathBuf) -> Self {
        Seg {
            base,
            path,
            index: vec![(base, 0)],
            valid_end: 0,
            next_offset: base,
            sealed: false,
            finished: false,
            stalled_len: None,
            torn: None,
        }
    }

    /// Where to start reading to find offset `from` of the visible part: (position, offset).
    fn seek(&self, from: u64) -> (u64, u64) {
        if from >= self.next_offset {
            return (self.valid_end, self.next_offset);
        }
        let i = self.index.partition_point(|&(offset, _)| offset <= from);
        let (offset, pos) = self.index[i.saturating_sub(1)];
        (pos, offset)
    }
}

impl Reader {
    /// Up to `max` visible records from offset `from`.
    pub fn read(&mut self, part: &PartInfo, from: u64, max: usize) -> Result<Vec<Record>> {
        if max == 0 {
            return Ok(Vec::new());
        }
        // Room for a consumer's batch at once, rather than a vector of records grown push by
        // push, as far as records are already known to be there: a poll at the end (a live
        // consumer's, mostly empty) takes no room, and a read of everything grows as it goes.
        let known = usize::try_from(self.end_offset().saturating_sub(from)).unwrap_or(usize::MAX);
        let mut out = Vec::with_capacity(known.min(max).min(RESERVED_RECORDS));
        self.advance(part, from, max, &mut out)?;
        if self.buf.capacity() > KEEP_BUFFER_BYTES {
            self.buf = Vec::new();
        }
        if out.is_empty() {
            let (start, end) = (self.start_offset(), self.end_offset());
            if from < start || from > end {
                return Err(Error::OffsetOutOfRange {
                    stream: part.stream.clone(),
                    partition: part.partition,
                    offset: from,
                    start,
                    end,
                });
            }
        }
        Ok(out)
    }

    /// The offset after the last visible record, after looking for new ones.
    pub fn end(&mut self, part: &PartInfo) -> Result<u64> {
        self.advance(part, u64::MAX, usize::MAX, &mut Vec::new())?;
        if self.buf.capacity() > KEEP_BUFFER_BYTES {
            self.buf = Vec::new();
        }
        Ok(self.end_offset())
    }

    fn start_offset(&self) -> u64 {
        self.segments.first().map_or(0, |s| s.base)
    }

    fn end_offset(&self) -> u64 {
        self.segments.last().map_or(0, |s| s.next_offset)
    }

    /// Collects visible records from `from` into `out` (up to `max` in all), learning about
    /// records and segments appended meanwhile, and refusing to go on where records were lost.
    fn advance(
        &mut self,
        part: &PartInfo,
        from: u64,
        max: usize,
        out: &mut Vec<Record>,
    ) -> Result<()> {
        if self.segments.is_empty() {
            self.open_partition(part)?;
            if self.segments.is_empty() {
                return Ok(());
            }
        } else if from >= self.end_offset() {
            // At the end (a poll for new records, `end_offset`): what is found will be held
            // against the newest checkpoint, read before the files.
            self.refresh_checkpoint(part)?;
        }
        let mut si = match self.segments.partition_point(|s| s.base <= from) {
            0 => return Ok(()), // before the first segment: reported by the caller
            i => i - 1,
        };
        loop {
            if self.scan_segment(part, si, from, max, out)? || out.len() >= max {
                return Ok(());
            }
            let seg = &self.segments[si];
            if let Some(next) = self.segments.get(si + 1) {
                integrity::check_seam(part, seg.base, seg.next_offset, next.base)?;
                si += 1;
                continue;
            }
            if !self.find_next_segment(part, si)? {
                let seg = &self.segments[si];
                let expect = self.expect.as_ref().ok_or_else(|| not_opened(part))?;
                return integrity::check_end(
                    part,
                    expect,
                    seg.base,
                    seg.valid_end,
                    seg.next_offset,
                );
            }
            si += 1;
        }
    }

    /// Lists the partition's segments and checks them against what it must hold.
    fn open_partition(&mut self, part: &PartInfo) -> Result<()> {
        // Committed positions are read once; the checkpoint before every listing.
        let expect = match self.expect.take() {
            Some(mut expect) => {
                expect.checkpoint = integrity::load_checkpoint(part)?;
                expect
            }
            None => Expect::load(part)?,
        };
        let bases = segment::list_segments(&part.dir)?;
        integrity::check_listing(part, &bases, &expect, &mut self.buf)?;
        let known = bases.len();
        self.segments = bases
            .into_iter()
            .enumerate()
            .map(|(i, base)| {
                let mut seg = Seg::new(base, part.dir.join(segment_name(base)));
                seg.sealed = i + 1 < known;
                seg
            })
            .collect();
        self.expect = Some(expect);
        Ok(())
    }

    /// Reads the partition's newest checkpoint (keeping its file open).
    fn refresh_checkpoint(&mut self, part: &PartInfo) -> Result<()> {
        let Some(expect) = self.expect.as_mut() else {
            return Ok(());
        };
        let path = checkpoint::path(&part.dir);
        if self.checkpoint_file.is_none() {
            self.checkpoint_file = checkpoint::open_for_reading(&path)?;
        }
        match &self.checkpoint_file {
            Some(file) => expect.checkpoint = Some(checkpoint::read(file, &path)?),
            None if part.checkpoints => return Err(integrity::missing_checkpoint(part)),
            None => {}
        }
        Ok(())
    }

    /// Whether a writer has started the segment after `si`, the last known one (which is then
    /// sealed and added).
    fn find_next_segment(&mut self, part: &PartInfo, si: usize) -> Result<bool> {
        let seg = &self.segments[si];
        // Not if this one holds no record yet: writers only start a segment after a non-empty one.
        if seg.next_offset == seg.base {
            return Ok(false);
        }
        let base = seg.next_offset;
        let path = part.dir.join(segment_name(base));
        match std::fs::metadata(&path) {
            Ok(_) => {
                // A writer starts a segment at the offset after the last whole batch of the
                // previous one, which therefore holds nothing more.
                self.segments[si].sealed = true;
                self.segments[si].finished = true;
                self.segments.push(Seg::new(base, path));
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::io("look for the segment file", path)(e)),
        }
    }

    /// Reads segment `si` from offset `from` into `out`; returns `true` if it stopped because
    /// `out` holds `max` records.
    fn scan_segment(
        &mut self,
        part: &PartInfo,
        si: usize,
        from: u64,
        max: usize,
        out: &mut Vec<Record>,
    ) -> Result<bool> {
        let Reader {
            segments,
            open,
            buf,
            lock,
            expect,
            ..
        } = self;
        let seg = &mut segments[si];
        if seg.finished && from >= seg.next_offset {
            return Ok(false);
        }
        let file = match open {
            Some((base, file)) if *base == seg.base => file,
            _ => {
                let file = integrity::open_segment(part, &seg.path, seg.base)?;
                &open.insert((seg.base, file)).1
            }
        };
        let durable = expect
            .as_ref()
            .and_then(|e| e.durable_in(seg.base))
            .copied();
        if let Some(torn) = seg.torn
            && from >= seg.next_offset
        {
            // Nothing new unless the file changed since its end was found torn: do not read the
            // torn bytes again on every poll while no writer comes to cut them.
            if FileState::of(file).map_err(Error::io("read the size of", &seg.path))? == torn {
                return Ok(false);
            }
        }
        let path = seg.path.clone();
        let place = Place {
            stream: &part.stream,
            partition: part.partition,
            path: &path,
        };
        let first_chunk = if max == usize::MAX {
            FIRST_CHUNK
        } else {
            // Roughly what `max` small records need, so a poll for a few records reads little.
            (max.saturating_sub(out.len()).saturating_mul(128)).clamp(4 << 10, FIRST_CHUNK)
        };
        let mut pass = Pass {
            seg,
            file,
            buf,
            place,
            part,
            from,
            max,
            first_chunk,
            durable,
        };
        let (pos, offset) = pass.seg.seek(from);
        let (invalid, file_len) = match pass.run(pos, offset, out, false)? {
            PassEnd::Done(full) => return Ok(full),
            PassEnd::Suspect { invalid, file_len } => (invalid, file_len),
        };
        // Something other than a complete batch follows the visible part: an append in
        // progress, the torn end of an interrupted one, or damage.
        let lock_file = match lock {
            Some(file) => &*file,
            None => &*lock.insert(part.open_lock_file_for_reading()?),
        };
        pass.run_locked(lock_file, out, invalid, file_len)
    }
}

impl Pass<'_> {
    /// Looks again at the bytes after the visible part while holding the partition lock, when
    /// no append can be in progress. If an append is in progress, waits for it only when the
    /// bytes fail their checksum or have not changed since the last look; otherwise reports
    /// what is visible now. Returns `true` if the output is full.
    fn run_locked(
        &mut self,
        lock_file: &File,
        out: &mut Vec<Record>,
        invalid: bool,
        file_len: u64,
    ) -> Result<bool> {
        let part = self.part;
        match lock_file.try_lock_shared() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                if !invalid && self.seg.stalled_len != Some(file_len) {
                    self.seg.stalled_len = Some(file_len);
                    return Ok(false);
                }
                lock_file
                    .lock_shared()
                    .map_err(Error::io("lock", part.lock_path()))?;
            }
            Err(TryLockError::Error(e)) => return Err(Error::io("lock", part.lock_path())(e)),
        }
        let _unlock = Unlock(lock_file);
        // No append is in progress: the newest checkpoint says what is durable, and nothing
        // before its end may be taken for a torn tail.
        let base = self.seg.base;
        self.durable = integrity::load_checkpoint(part)?
            .filter(|cp| !cp.is_empty() && cp.segment == base)
            .or(self.durable);
        let (pos, offset) = (self.seg.valid_end, self.seg.next_offset);
        match self.run(pos, offset, out, true)? {
            PassEnd::Done(full) => Ok(full),
            PassEnd::Suspect { .. } => Ok(false),
        }
    }
}

/// How a [`Pass`] ended.
enum PassEnd {
    /// Finished; `true` if because the output is full.
    Done(bool),
    /// Bytes after the visible part must be looked at under the lock (only when not locked).
    Suspect {
        /// They fail their checksum (rather than being cut short).
        invalid: bool,
        /// The file length when they were seen.
        file_len: u64,
    },
}

/// One pass over a segment, from a given position.
struct Pass<'a> {
    seg: &'a mut Seg,
    file: &'a File,
    buf: &'a mut Vec<u8>,
    place: Place<'a>,
    part: &'a PartInfo,
    from: u64,
    max: usize,
    first_chunk: usize,
    /// The checkpoint, if its last durable batch is in this segment.
    durable: Option<Checkpoint>,
}

impl Pass<'_> {
    /// Reads from byte `pos` (offset `offset`) on, into `out`. `locked`: the caller holds the
    /// partition lock, so bytes after the visible part can be judged torn or damaged.
    fn run(
        &mut self,
        pos: u64,
        offset: u64,
        out: &mut Vec<Record>,
        locked: bool,
    ) -> Result<PassEnd> {
        let place = self.place;
        let mut visitor = Collect {
            seg: &mut *self.seg,
            stream: &self.part.stream,
            partition: self.part.partition,
            from: self.from,
            max: self.max,
            out: &mut *out,
            pending: Vec::new(),
            pending_index: Vec::new(),
        };
        let outcome = segment::scan(
            self.file,
            self.buf,
            place,
            pos,
            offset,
            self.first_chunk,
            &mut visitor,
        )?;
        match outcome {
            ScanEnd::Stopped => Ok(PassEnd::Done(true)),
            ScanEnd::Clean { end } => self.clean_end(end, out.len()),
            ScanEnd::Trailing {
                bad_pos,
                bad_offset,
                problem,
            } => self.trailing(bad_pos, bad_offset, &problem, locked),
        }
    }

    /// The segment ends with a whole batch at byte `end`: unless that is before what was read
    /// already or what the checkpoint says is durable.
    fn clean_end(&mut self, end: u64, collected: usize) -> Result<PassEnd> {
        let seg = &mut *self.seg;
        let path = self.place.path;
        if end < seg.valid_end {
            return Err(integrity::lost(
                self.part,
                path.to_path_buf(),
                seg.next_offset,
                format!("the file now ends at byte {end}"),
                format!(
                    "this process had already read its records up to byte {}",
                    seg.valid_end
                ),
            ));
        }
        if let Some(cp) = self.durable.filter(|cp| end < cp.end) {
            return Err(integrity::not_torn(
                self.part,
                path,
                &cp,
                end,
                seg.next_offset,
                &Problem::Unfinished,
                end,
            ));
        }
        seg.finished = seg.sealed;
        Ok(PassEnd::Done(collected >= self.max))
    }

    /// Bytes that are not a whole batch follow the last one, at `bad_pos`: damage if before
    /// what was read or what is durable, or in a sealed segment; otherwise a torn tail (under
    /// the lock) or something to look at under the lock.
    fn trailing(
        &mut self,
        bad_pos: u64,
        bad_offset: u64,
        problem: &Problem,
        locked: bool,
    ) -> Result<PassEnd> {
        let place = self.place;
        let seg = &mut *self.seg;
        if bad_pos < seg.valid_end {
            return Err(place.corrupt(bad_offset, bad_pos, problem));
        }
        if seg.sealed {
            return Err(place.corrupt(
                bad_offset,
                bad_pos,
                format_args!("{problem}, although a later segment exists"),
            ));
        }
        let state = FileState::of(self.file).map_err(place.io("read the size of"))?;
        let file_len = state.len;
        if let Some(cp) = self.durable.filter(|cp| bad_pos < cp.end) {
            return Err(integrity::not_torn(
                self.part, place.path, &cp, bad_pos, bad_offset, problem, file_len,
            ));
        }
        if seg.torn == Some(state) {
            return Ok(PassEnd::Done(false));
        }
        if !locked {
            return Ok(PassEnd::Suspect {
                invalid: matches!(problem, Problem::Invalid(_)),
                file_len,
            });
        }
        segment::check_torn_tail(self.file, place, bad_pos, bad_offset, problem, file_len)?;
        debug!(
            stream = %self.part.stream,
            partition = self.part.partition,
            file = %place.path.display(),
            position = seg.valid_end,
            "ignoring the torn end of an interrupted append until the next append cuts it: {problem}"
        );
        seg.torn = Some(state);
        Ok(PassEnd::Done(false))
    }
}

/// What tells whether a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileState {
    len: u64,
    modified: Option<SystemTime>,
}

impl FileState {
    fn of(file: &File) -> io::Result<FileState> {
        let meta = file.metadata()?;
        Ok(FileState {
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

/// Releases a shared lock when dropped.
struct Unlock<'a>(&'a File);

impl Drop for Unlock<'_> {
    fn drop(&mut self) {
        // Closing the file would release it too; an error here changes nothing for the reader.
        let _ = self.0.unlock();
    }
}

/// Collects records of a segment and extends what is known to be visible.
struct Collect<'a> {
    seg: &'a mut Seg,
    stream: &'a str,
    partition: u32,
    from: u64,
    max: usize,
    out: &'a mut Vec<Record>,
    /// Records after the visible part, waiting for their batch to complete.
    pending: Vec<Record>,
    /// Index entries for those records.
    pending_index: Vec<(u64, u64)>,
}

impl Collect<'_> {
    fn record(&self, header: &Header, frame: &[u8]) -> Record {
        Record {
            stream: self.stream.to_owned(),
            partition: self.partition,
            offset: header.offset,
            timestamp_ms: header.timestamp_ms,
            key: header.key(frame).to_vec(),
            value: header.value(frame).to_vec(),
        }
    }
}

impl Visit for Collect<'_> {
    fn record(&mut self, pos: u64, header: &Header, frame: &[u8]) -> bool {
        if pos < self.seg.valid_end {
            if self.out.len() >= self.max {
                return false;
            }
            if header.offset >= self.from {
                let record = Collect::record(self, header, frame);
                self.out.push(record);
            }
            return true;
        }
        let last_indexed = self
            .pending_index
            .last()
            .or(self.seg.index.last())
            .map_or(0, |&(_, p)| p);
        if pos >= last_indexed + INDEX_INTERVAL {
            self.pending_index.push((header.offset, pos));
        }
        if header.offset >= self.from && self.out.len() + self.pending.len() < self.max {
            let record = Collect::record(self, header, frame);
            self.pending.push(record);
        }
        true
    }

    fn batch_end(&mut self, end: u64, next_offset: u64) -> bool {
        if end > self.seg.valid_end {
            self.seg.valid_end = end;
            self.seg.next_offset = next_offset;
            self.seg.index.append(&mut self.pending_index);
            self.out.append(&mut self.pending);
        }
        self.out.len() < self.max
    }
}
