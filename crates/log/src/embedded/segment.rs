//! Segment files: their names, reading their frames, and telling a torn tail from damage.

use std::fmt;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::frame::{self, Check, FRAME_OVERHEAD, Header, Invalid};
use crate::{Error, Result};

/// Suffix of segment file names.
const SEGMENT_SUFFIX: &str = ".log";
/// Digits of the base offset in a segment file name.
const NAME_DIGITS: usize = 20;
/// Bytes read at first by a [`Cursor`]; doubled on each further read up to [`MAX_CHUNK`].
pub(super) const FIRST_CHUNK: usize = 64 << 10;
/// Largest read a [`Cursor`] makes at once (unless one frame is larger). Small enough that the
/// buffer, reused from read to read, stays in the processor's cache while its records are copied
/// out. Grown to 4 MB (and zeroed) for each poll, it made a sixth of the aggregator's misses of
/// the last-level cache (docs/benchmarks.md, 2026-12-07 midday).
const MAX_CHUNK: usize = 256 << 10;
/// Bytes examined at once when looking for valid records after a damaged one.
const SEARCH_CHUNK: usize = 1 << 20;

/// The file name of the segment whose first record has offset `base`.
pub(super) fn segment_name(base: u64) -> String {
    format!("{base:0NAME_DIGITS$}{SEGMENT_SUFFIX}")
}

/// The base offset of a segment file name, or `None` if it is not one.
fn parse_segment_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(SEGMENT_SUFFIX)?;
    if digits.len() != NAME_DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The base offsets of the segments in a partition directory, in increasing order.
pub(super) fn list_segments(dir: &Path) -> Result<Vec<u64>> {
    let entries = std::fs::read_dir(dir).map_err(Error::io("list the partition directory", dir))?;
    let mut bases = Vec::new();
    for entry in entries {
        let entry = entry.map_err(Error::io("list the partition directory", dir))?;
        if let Some(base) = entry.file_name().to_str().and_then(parse_segment_name) {
            bases.push(base);
        }
    }
    bases.sort_unstable();
    Ok(bases)
}

/// Where in the log something is, for error messages.
#[derive(Debug, Clone, Copy)]
pub(super) struct Place<'a> {
    pub stream: &'a str,
    pub partition: u32,
    pub path: &'a Path,
}

impl Place<'_> {
    /// [`Error::Corrupt`] at this place.
    pub(crate) fn corrupt(&self, offset: u64, position: u64, reason: impl fmt::Display) -> Error {
        Error::Corrupt {
            stream: self.stream.to_owned(),
            partition: self.partition,
            offset,
            file: self.path.to_path_buf(),
            position,
            reason: reason.to_string(),
        }
    }

    /// [`Error::Io`] on this place's file. The path is copied only on an error: the scan
    /// asks for this at every record it reads.
    pub fn io(&self, action: &'static str) -> impl FnOnce(io::Error) -> Error + use<'_> {
        move |source| Error::io(action, PathBuf::from(self.path))(source)
    }
}

/// One step through the frames of a segment.
pub(super) enum Step<'b> {
    /// A checksum-valid frame starting at byte `pos`.
    Record {
        pos: u64,
        header: Header,
        frame: &'b [u8],
    },
    /// The file ends at `pos + trailing`; the last `trailing` bytes are not a whole frame.
    End { pos: u64, trailing: usize },
    /// The bytes at `pos` are not a valid frame.
    Invalid { pos: u64, why: Invalid },
}

/// Reads the frames of a file one after another, in large reads into a reusable buffer.
pub(super) struct Cursor<'a> {
    file: &'a File,
    buf: &'a mut Vec<u8>,
    /// File position of `buf[0]`.
    file_pos: u64,
    /// Unconsumed bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    /// A read found the end of the file.
    eof: bool,
    /// Bytes to ask for in the next read.
    chunk: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at byte `pos` of `file`, reading `first_chunk` bytes at first.
    pub fn new(file: &'a File, buf: &'a mut Vec<u8>, pos: u64, first_chunk: usize) -> Self {
        Cursor {
            file,
            buf,
            file_pos: pos,
            start: 0,
            end: 0,
            eof: false,
            chunk: first_chunk.clamp(FRAME_OVERHEAD, MAX_CHUNK),
        }
    }

    /// The next frame, the end of the file, or bytes that are not a frame.
    pub fn next(&mut self) -> io::Result<Step<'_>> {
        loop {
            let pos = self.file_pos + self.start as u64;
            match frame::check(&self.buf[self.start..self.end]) {
                Check::Valid(header) => {
                    let at = self.start;
                    self.start += header.total_len;
                    return Ok(Step::Record {
                        pos,
                        header,
                        frame: &self.buf[at..at + header.total_len],
                    });
                }
                Check::Invalid(why) => return Ok(Step::Invalid { pos, why }),
                Check::Incomplete { needed } => {
                    if self.eof {
                        return Ok(Step::End {
                            pos,
                            trailing: self.end - self.start,
                        });
                    }
                    self.refill(needed)?;
                }
            }
        }
    }

    /// Reads more of the file so that at least `needed` unconsumed bytes are buffered, if the
    /// file has them.
    fn refill(&mut self, needed: usize) -> io::Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.file_pos += self.start as u64;
            self.end -= self.start;
            self.start = 0;
        }
        let target = needed.max(self.chunk);
        self.chunk = (self.chunk * 2).min(MAX_CHUNK);
        if self.buf.len() < target {
            self.buf.resize(target, 0);
        }
        while self.end < target {
            match self.file.read_at(
                &mut self.buf[self.end..target],
                self.file_pos + self.end as u64,
            ) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Told about what a [`scan`] finds.
pub(super) trait Visit {
    /// A valid record in sequence at byte `pos`. Return `false` to stop the scan.
    fn record(&mut self, pos: u64, header: &Header, frame: &[u8]) -> bool;
    /// The batch that ends at byte `end` is complete; `next_offset` follows it. Return `false`
    /// to stop the scan.
    fn batch_end(&mut self, end: u64, next_offset: u64) -> bool;
}

/// Follows a [`scan`]: where the last complete batch ends, its last record, how many records
/// the complete batches hold.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tally {
    /// End of the last complete batch (the scan's start before any).
    pub end: u64,
    /// The offset after it.
    pub next_offset: u64,
    /// Records in complete batches.
    pub records: u64,
    /// Byte position and stored checksum of the last record of the last complete batch.
    pub last: Option<(u64, u32)>,
    /// Records seen of the batch in progress, and its latest record.
    pending: u64,
    pending_last: Option<(u64, u32)>,
}

impl Tally {
    /// A tally of a scan starting at byte `pos`, where offset `offset` starts.
    pub fn new(pos: u64, offset: u64) -> Self {
        Tally {
            end: pos,
            next_offset: offset,
            records: 0,
            last: None,
            pending: 0,
            pending_last: None,
        }
    }

    /// Forgets the records of an unfinished batch, before scanning again from [`Tally::end`].
    pub fn resume(&mut self) {
        self.pending = 0;
        self.pending_last = None;
    }
}

impl Visit for Tally {
    fn record(&mut self, pos: u64, header: &Header, _frame: &[u8]) -> bool {
        self.pending += 1;
        self.pending_last = Some((pos, header.crc));
        true
    }

    fn batch_end(&mut self, end: u64, next_offset: u64) -> bool {
        self.end = end;
        self.next_offset = next_offset;
        self.records += self.pending;
        self.pending = 0;
        self.last = self.pending_last;
        true
    }
}

/// How a [`scan`] ended.
#[derive(Debug)]
pub(super) enum ScanEnd {
    /// The visitor asked to stop.
    Stopped,
    /// The file ends right after a complete batch, at byte `end`.
    Clean { end: u64 },
    /// Something other than a complete batch follows the last one: what is at byte `bad_pos`
    /// (where the record with offset `bad_offset` would be) has `problem`.
    Trailing {
        bad_pos: u64,
        bad_offset: u64,
        problem: Problem,
    },
}

/// What is wrong with the bytes after the last complete batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Problem {
    /// The file ends inside a record.
    Incomplete { trailing: usize },
    /// The file ends after whole records whose batch is not finished.
    Unfinished,
    /// The bytes are not a valid record.
    Invalid(Invalid),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Incomplete { trailing } => write!(
                f,
                "the file ends {trailing} byte(s) into the record, before it is complete"
            ),
            Problem::Unfinished => {
                f.write_str("the file ends before the last records' batch is complete")
            }
            Problem::Invalid(why) => why.fmt(f),
        }
    }
}

/// Walks the frames of a segment from byte `start_pos`, where the record with offset
/// `start_offset` starts, checking that offsets are consecutive and batches well formed, and
/// telling `visit` about records and complete batches.
///
/// `start_pos` need not be at a batch boundary. Records out of sequence are reported as
/// [`Error::Corrupt`] at once: they passed their checksum, so no torn write explains them.
pub(super) fn scan(
    file: &File,
    buf: &mut Vec<u8>,
    place: Place<'_>,
    start_pos: u64,
    start_offset: u64,
    first_chunk: usize,
    visit: &mut dyn Visit,
) -> Result<ScanEnd> {
    let mut cursor = Cursor::new(file, buf, start_pos, first_chunk);
    let mut offset = start_offset;
    // How many records of the current batch must still follow; `None` at a batch boundary
    // (or when the scan started inside a batch and has not yet seen a record).
    let mut expect_rest: Option<u32> = None;
    loop {
        match cursor.next().map_err(place.io("read the segment file"))? {
            Step::Record { pos, header, frame } => {
                if header.offset != offset {
                    return Err(place.corrupt(
                        offset,
                        pos,
                        format_args!(
                            "the record there carries offset {} where {offset} should follow",
                            header.offset
                        ),
                    ));
                }
                if let Some(rest) = expect_rest
                    && header.batch_rest != rest
                {
                    return Err(place.corrupt(
                        offset,
                        pos,
                        format_args!(
                            "its batch should have {rest} more record(s) after it, but it says {}",
                            header.batch_rest
                        ),
                    ));
                }
                if !visit.record(pos, &header, frame) {
                    return Ok(ScanEnd::Stopped);
                }
                offset += 1;
                if header.batch_rest == 0 {
                    expect_rest = None;
                    if !visit.batch_end(pos + header.total_len as u64, offset) {
                        return Ok(ScanEnd::Stopped);
                    }
                } else {
                    expect_rest = Some(header.batch_rest - 1);
                }
            }
            Step::End { pos, trailing } => {
                return Ok(if trailing > 0 {
                    ScanEnd::Trailing {
                        bad_pos: pos,
                        bad_offset: offset,
                        problem: Problem::Incomplete { trailing },
                    }
                } else if expect_rest.is_some() {
                    ScanEnd::Trailing {
                        bad_pos: pos,
                        bad_offset: offset,
                        problem: Problem::Unfinished,
                    }
                } else {
                    ScanEnd::Clean { end: pos }
                });
            }
            Step::Invalid { pos, why } => {
                return Ok(ScanEnd::Trailing {
                    bad_pos: pos,
                    bad_offset: offset,
                    problem: Problem::Invalid(why),
                });
            }
        }
    }
}

/// Decides whether the bytes from `bad_pos` to the end of the file, which are not a complete
/// batch, can be a torn tail (nothing valid after them) or are damage in the middle of the log
/// (a valid record with a later offset follows). Call it only while holding the partition's
/// lock, so that no append is in progress.
pub(super) fn check_torn_tail(
    file: &File,
    place: Place<'_>,
    bad_pos: u64,
    bad_offset: u64,
    problem: &Problem,
    file_len: u64,
) -> Result<()> {
    let found = find_valid_frame_after(file, bad_pos, bad_offset, file_len)
        .map_err(place.io("read the segment file"))?;
    match found {
        Some(at) => Err(place.corrupt(
            bad_offset,
            bad_pos,
            format_args!("{problem}, yet a valid record follows at byte {at}"),
        )),
        None => Ok(()),
    }
}

/// The position of the first checksum-valid frame after `bad_pos` whose offset could follow
/// `bad_offset`, if any.
fn find_valid_frame_after(
    file: &File,
    bad_pos: u64,
    bad_offset: u64,
    file_len: u64,
) -> io::Result<Option<u64>> {
    let overhead = FRAME_OVERHEAD as u64;
    // Offsets a later record could have: at least the damaged one's, at most one per
    // smallest-possible frame in the rest of the file.
    let max_offset = bad_offset.saturating_add(file_len.saturating_sub(bad_pos) / overhead + 1);
    let mut buf = vec![0u8; SEARCH_CHUNK];
    let mut frame_buf = Vec::new();
    let mut window = bad_pos + 1;
    while window + overhead <= file_len {
        let want = (file_len - window).min(SEARCH_CHUNK as u64) as usize;
        let got = read_full_at(file, &mut buf[..want], window)?;
        if got < FRAME_OVERHEAD {
            break;
        }
        let bytes = &buf[..got];
        for i in 0..=got - FRAME_OVERHEAD {
            let at = window + i as u64;
            let Some(total) = frame::raw_total_len(&bytes[i..]) else {
                continue;
            };
            if at + total as u64 > file_len {
                continue;
            }
            match frame::raw_offset(&bytes[i..]) {
                Some(o) if (bad_offset..=max_offset).contains(&o) => {}
                _ => continue,
            }
            let valid = if i + total <= got {
                matches!(frame::check(&bytes[i..i + total]), Check::Valid(_))
            } else {
                frame_buf.resize(total, 0);
                if read_full_at(file, &mut frame_buf, at)? < total {
                    continue;
                }
                matches!(frame::check(&frame_buf), Check::Valid(_))
            };
            if valid {
                return Ok(Some(at));
            }
        }
        window += (got - FRAME_OVERHEAD + 1) as u64;
    }
    Ok(None)
}

/// Reads into all of `buf` from `pos`, stopping early only at the end of the file.
fn read_full_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], pos + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Frames of a few records, to be damaged.
    fn frames(count: u64) -> Vec<u8> {
        let mut out = Vec::new();
        for offset in 0..count {
            let rest = (count - 1 - offset) as u32 % 3;
            frame::encode(
                &mut out,
                offset,
                7,
                rest,
                b"key",
                &vec![offset as u8; offset as usize * 5],
            );
        }
        out
    }

    /// Cases of the property: `SIMPAIRS_FUZZ_CASES`, or 512.
    fn cases() -> u32 {
        std::env::var("SIMPAIRS_FUZZ_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(512)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases()))]

        /// The frame reader over arbitrary bytes, or valid frames cut, lengthened or altered:
        /// it never panics, and what it accepts is in sequence and ends where it says.
        #[test]
        fn the_reader_never_panics_on_any_bytes(
            count in 0u64..12,
            cut in any::<prop::sample::Index>(),
            flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 0..4),
            extra in prop::collection::vec(any::<u8>(), 0..200),
            arbitrary in any::<bool>(),
            chunk in 36usize..300,
        ) {
            let mut bytes = if arbitrary { extra.clone() } else { frames(count) };
            if !arbitrary {
                let keep = cut.index(bytes.len() + 1);
                bytes.truncate(keep.max(bytes.len() / 2));
                bytes.extend_from_slice(&extra);
            }
            for (at, mask) in &flips {
                if !bytes.is_empty() {
                    let i = at.index(bytes.len());
                    bytes[i] ^= mask;
                }
            }
            let mut file = tempfile::tempfile().unwrap();
            std::io::Write::write_all(&mut file, &bytes).unwrap();
            let place = Place { stream: "s", partition: 0, path: Path::new("x.log") };
            let mut tally = Tally::new(0, 0);
            let mut buf = Vec::new();
            match scan(&file, &mut buf, place, 0, 0, chunk, &mut tally) {
                Ok(ScanEnd::Clean { end }) => {
                    prop_assert_eq!(end, bytes.len() as u64);
                    prop_assert_eq!(tally.end, end);
                }
                Ok(ScanEnd::Trailing { bad_pos, bad_offset, problem }) => {
                    prop_assert!(bad_pos >= tally.end && bad_pos <= bytes.len() as u64);
                    prop_assert!(bad_offset >= tally.next_offset);
                    let _ = check_torn_tail(&file, place, bad_pos, bad_offset, &problem, bytes.len() as u64);
                }
                Ok(ScanEnd::Stopped) => prop_assert!(false, "the tally never stops a scan"),
                Err(e) => prop_assert!(matches!(e, Error::Corrupt { .. }), "{e}"),
            }
            prop_assert_eq!(tally.records, tally.next_offset);
        }
    }

    #[test]
    fn names_round_trip() {
        assert_eq!(segment_name(0), "00000000000000000000.log");
        assert_eq!(segment_name(1234), "00000000000000001234.log");
        assert_eq!(parse_segment_name(&segment_name(u64::MAX)), Some(u64::MAX));
        assert_eq!(parse_segment_name("0000000000000000123.log"), None);
        assert_eq!(parse_segment_name("0000000000000000123x.log"), None);
        assert_eq!(parse_segment_name("00000000000000001234.tmp"), None);
        assert_eq!(parse_segment_name("lock"), None);
    }
}
