//! What a partition must hold, and the checks that make every reader and writer stop, with
//! [`Error::Lost`] or [`Error::Corrupt`], when it does not.
//!
//! Two things say what a partition held: its checkpoint (the last durable batch, see
//! `checkpoint`) and the positions consumer groups committed (they had read everything before
//! them). Both are read *before* the segment files are listed or read: since they are only
//! written after what they describe, they can never claim more than the files read afterwards
//! hold, whatever writers do meanwhile.
//!
//! The checks that need no reading of records run whenever a process first uses a partition:
//! offsets start at 0 (the embedded log deletes nothing), the checkpoint's segment exists, as do
//! as many segment files up to it as the checkpoint counts, and that segment still holds, at the
//! recorded place, the last durable record. The checks that need the records run as they are
//! read: consecutive segments join without a gap, and the partition does not end (or turn into
//! bytes that are not a whole batch) before the checkpoint's end or a committed position.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use tracing::warn;

use super::checkpoint::{self, Checkpoint};
use super::seals;
use super::segment::{self, Place, Problem, ScanEnd, Tally, segment_name};
use super::{PartInfo, group};
use crate::frame::{self, Check};
use crate::{Error, Result};

/// First read when scanning a whole segment to check it.
const CHECK_CHUNK: usize = 1 << 20;

/// A consumer group's committed position in one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Committed {
    pub group: String,
    pub next_offset: u64,
}

/// What a partition is known to have held.
#[derive(Debug, Clone, Default)]
pub(super) struct Expect {
    /// The newest whole checkpoint; `None` for a partition written before checkpoints existed.
    pub checkpoint: Option<Checkpoint>,
    /// The highest position a consumer group committed in the partition.
    pub committed: Option<Committed>,
}

impl Expect {
    /// Reads the checkpoint and the consumer groups' positions; call it before listing or
    /// reading the segments they are checked against.
    pub fn load(part: &PartInfo) -> Result<Expect> {
        let checkpoint = load_checkpoint(part)?;
        let committed = committed_positions(part)?
            .into_iter()
            .max_by_key(|c| c.next_offset);
        Ok(Expect {
            checkpoint,
            committed,
        })
    }

    /// The checkpoint, if it records any durable record.
    pub fn durable(&self) -> Option<&Checkpoint> {
        self.checkpoint.as_ref().filter(|cp| !cp.is_empty())
    }

    /// The checkpoint, if it records a durable batch in the segment `base`.
    pub(crate) fn durable_in(&self, base: u64) -> Option<&Checkpoint> {
        self.durable().filter(|cp| cp.segment == base)
    }
}

/// The partition's checkpoint; `None` if it has none and its stream predates checkpoints.
pub(super) fn load_checkpoint(part: &PartInfo) -> Result<Option<Checkpoint>> {
    match checkpoint::load(&part.dir)? {
        Some(cp) => Ok(Some(cp)),
        None if part.checkpoints => Err(missing_checkpoint(part)),
        None => Ok(None),
    }
}

/// [`Error::MissingCheckpoint`] for the partition.
pub(super) fn missing_checkpoint(part: &PartInfo) -> Error {
    Error::MissingCheckpoint {
        stream: part.stream.clone(),
        partition: part.partition,
        path: checkpoint::path(&part.dir),
    }
}

/// Every consumer group's committed position in the partition, by group name. A group whose
/// positions cannot be read is left out, with a warning: its own consumer reports it, and the
/// other roles do not depend on it (`check` reports it too).
pub(super) fn committed_positions(part: &PartInfo) -> Result<Vec<Committed>> {
    let (all, unreadable) = all_committed(&part.groups_dir)?;
    for e in unreadable {
        warn!(stream = %part.stream, partition = part.partition, "{e}; its position is not held against the partition");
    }
    Ok(all
        .get(&(part.stream.clone(), part.partition))
        .cloned()
        .unwrap_or_default())
}

/// Committed positions of every consumer group, by stream and partition, and the errors of
/// groups whose positions cannot be read.
pub(super) type AllCommitted = (BTreeMap<(String, u32), Vec<Committed>>, Vec<Error>);

/// Every consumer group's committed positions (see [`AllCommitted`]); fails only if the groups'
/// directory cannot be listed.
pub(super) fn all_committed(groups_dir: &Path) -> Result<AllCommitted> {
    let read_error = Error::io("list the consumer groups in", groups_dir);
    let entries = match fs::read_dir(groups_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => return Err(read_error(e)),
    };
    let mut groups = Vec::new();
    for entry in entries {
        let entry = entry.map_err(Error::io("list the consumer groups in", groups_dir))?;
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if let (true, Some(name)) = (is_dir, entry.file_name().to_str()) {
            groups.push((name.to_owned(), entry.path()));
        }
    }
    groups.sort();
    let mut all: BTreeMap<(String, u32), Vec<Committed>> = BTreeMap::new();
    let mut unreadable = Vec::new();
    for (group, dir) in groups {
        let positions = match group::read_positions(&group::positions_path(&dir)) {
            Ok(positions) => positions,
            Err(e) => {
                unreadable.push(e);
                continue;
            }
        };
        for (key, next_offset) in positions {
            all.entry(key).or_default().push(Committed {
                group: group.clone(),
                next_offset,
            });
        }
    }
    Ok((all, unreadable))
}

/// How the checkpoint says what existed, for [`Error::Lost`].
pub(super) fn checkpoint_evidence(cp: &Checkpoint) -> String {
    format!(
        "the partition's checkpoint says its first {} records (offsets 0 to {}) were written durably, ending at byte {} of {}",
        cp.next,
        cp.next.saturating_sub(1),
        cp.end,
        segment_name(cp.segment)
    )
}

/// How a consumer group's position says what existed, for [`Error::Lost`].
pub(super) fn committed_evidence(c: &Committed) -> String {
    format!(
        "consumer group \"{}\" had already read the records before offset {} (its committed position is {})",
        c.group, c.next_offset, c.next_offset
    )
}

/// [`Error::Lost`] in the partition.
pub(super) fn lost(
    part: &PartInfo,
    segment: PathBuf,
    expected_offset: u64,
    found: impl Into<String>,
    evidence: impl Into<String>,
) -> Error {
    Error::Lost {
        stream: part.stream.clone(),
        partition: part.partition,
        segment,
        expected_offset,
        found: found.into(),
        evidence: evidence.into(),
    }
}

fn place<'a>(part: &'a PartInfo, path: &'a Path) -> Place<'a> {
    Place {
        stream: &part.stream,
        partition: part.partition,
        path,
    }
}

/// Checks the segment files a partition has (`bases`, sorted) against what it must hold,
/// reading only the last durable record (and, when a segment is missing, the segments up to it,
/// to name it).
pub(super) fn check_listing(
    part: &PartInfo,
    bases: &[u64],
    expect: &Expect,
    buf: &mut Vec<u8>,
) -> Result<()> {
    let Some(&first) = bases.first() else {
        return check_empty(part, expect);
    };
    if first != 0 {
        return Err(lost(
            part,
            part.dir.join(segment_name(0)),
            0,
            format!(
                "that file is missing, and the first segment file, {}, starts at offset {first}",
                segment_name(first)
            ),
            "a partition's offsets start at 0 and the embedded log never deletes records",
        ));
    }
    if let Some((_, e)) = seal_problems(part, bases, buf)?.into_iter().next() {
        return Err(e);
    }
    let Some(cp) = expect.durable() else {
        return Ok(());
    };
    let counted = bases.partition_point(|&b| b <= cp.segment);
    let upto = &bases[..counted];
    if upto.last() != Some(&cp.segment) {
        walk_sealed(part, upto, buf)?;
        let last = upto.last().copied().unwrap_or(0);
        return Err(lost(
            part,
            part.dir.join(segment_name(cp.segment)),
            cp.segment,
            format!(
                "that file is missing (the segment file before it, {}, is the last one up to there)",
                segment_name(last)
            ),
            checkpoint_evidence(cp),
        ));
    }
    if (counted as u64) < cp.segments {
        walk_sealed(part, upto, buf)?;
        return Err(lost(
            part,
            part.dir.join(segment_name(cp.segment)),
            cp.segment,
            format!(
                "only {counted} of the {} segment files up to and including it are there",
                cp.segments
            ),
            checkpoint_evidence(cp),
        ));
    }
    check_last_durable(part, cp, buf)
}

/// Every segment that a later one follows and that was sealed must still have the size it was
/// sealed with, and the next segment must start where it ended: loss or damage found from the
/// file sizes alone, by segment base offset.
pub(super) fn seal_problems(
    part: &PartInfo,
    bases: &[u64],
    buf: &mut Vec<u8>,
) -> Result<Vec<(u64, Error)>> {
    let seals = seals::load(&part.dir)?;
    let mut problems = Vec::new();
    for pair in bases.windows(2) {
        if let Some(seal) = seals.get(&pair[0])
            && let Some(problem) = check_seal(part, pair[0], pair[1], *seal, buf)?
        {
            problems.push((pair[0], problem));
        }
    }
    Ok(problems)
}

/// The problem, if any, with segment `base`, followed by segment `next_base`, and sealed as
/// `seal`.
fn check_seal(
    part: &PartInfo,
    base: u64,
    next_base: u64,
    seal: seals::Seal,
    buf: &mut Vec<u8>,
) -> Result<Option<Error>> {
    if seal.next < next_base {
        return Ok(Some(lost(
            part,
            part.dir.join(segment_name(seal.next)),
            seal.next,
            format!(
                "that file is missing: the segment file before it, {}, was sealed at offset {} and the next one, {}, starts at offset {next_base}",
                segment_name(base),
                seal.next,
                segment_name(next_base)
            ),
            format!("offsets {} to {} are gone", seal.next, next_base - 1),
        )));
    }
    let path = part.dir.join(segment_name(base));
    let file = open_segment(part, &path, base)?;
    let len = file
        .metadata()
        .map_err(Error::io("read the size of", &path))?
        .len();
    if len > seal.end {
        return Ok(Some(place(part, &path).corrupt(
            seal.next,
            seal.end,
            format_args!(
                "{} byte(s) follow the end the segment had when the next one was started",
                len - seal.end
            ),
        )));
    }
    if len == seal.end {
        return Ok(None);
    }
    // Cut short: name the first offset gone (or the damage found looking for it).
    let mut tally = Tally::new(0, base);
    if let Err(e) = segment::scan(
        &file,
        buf,
        place(part, &path),
        0,
        base,
        CHECK_CHUNK,
        &mut tally,
    ) {
        return Ok(Some(e));
    }
    Ok(Some(lost(
        part,
        path.clone(),
        tally.next_offset,
        format!(
            "the file ends at byte {len}, before byte {} where it ended when the next segment was started",
            seal.end
        ),
        format!(
            "it then held offsets {base} to {} (the partition's seals file says so)",
            seal.next.saturating_sub(1)
        ),
    )))
}

/// A partition without segment files must never have held a record.
fn check_empty(part: &PartInfo, expect: &Expect) -> Result<()> {
    let found = "the partition directory holds no segment file";
    if let Some(cp) = expect.durable() {
        return Err(lost(
            part,
            part.dir.join(segment_name(0)),
            0,
            found,
            checkpoint_evidence(cp),
        ));
    }
    if let Some(c) = expect.committed.as_ref().filter(|c| c.next_offset > 0) {
        return Err(lost(
            part,
            part.dir.join(segment_name(0)),
            0,
            found,
            committed_evidence(c),
        ));
    }
    Ok(())
}

/// Reads every segment of `bases` but the last, checking that each ends with a whole batch and
/// that the next one starts right after it.
pub(super) fn walk_sealed(part: &PartInfo, bases: &[u64], buf: &mut Vec<u8>) -> Result<()> {
    for pair in bases.windows(2) {
        let path = part.dir.join(segment_name(pair[0]));
        let end = scan_sealed(part, &path, pair[0], buf)?;
        check_seam(part, pair[0], end, pair[1])?;
    }
    Ok(())
}

/// Reads a segment that a later one follows: it must end with a whole batch. Returns the offset
/// after its last record.
fn scan_sealed(part: &PartInfo, path: &Path, base: u64, buf: &mut Vec<u8>) -> Result<u64> {
    let file = open_segment(part, path, base)?;
    let at = place(part, path);
    let mut tally = Tally::new(0, base);
    match segment::scan(&file, buf, at, 0, base, CHECK_CHUNK, &mut tally)? {
        ScanEnd::Clean { .. } | ScanEnd::Stopped => Ok(tally.next_offset),
        ScanEnd::Trailing {
            bad_pos,
            bad_offset,
            problem,
        } => Err(at.corrupt(
            bad_offset,
            bad_pos,
            format_args!("{problem}, although a later segment exists"),
        )),
    }
}

/// Checks the join between segment `base`, whose records end before offset `end`, and the
/// next segment, which starts at offset `next_base`.
pub(super) fn check_seam(part: &PartInfo, base: u64, end: u64, next_base: u64) -> Result<()> {
    match end.cmp(&next_base) {
        Ordering::Equal => Ok(()),
        Ordering::Less => Err(lost(
            part,
            part.dir.join(segment_name(end)),
            end,
            format!(
                "that file is missing: the segment file before it, {}, ends at offset {end} and the next one, {}, starts at offset {next_base}",
                segment_name(base),
                segment_name(next_base)
            ),
            format!("offsets {end} to {} are gone", next_base - 1),
        )),
        Ordering::Greater => {
            let path = part.dir.join(segment_name(next_base));
            Err(place(part, &path).corrupt(
                next_base,
                0,
                format_args!(
                    "the segment before it ends at offset {end} but this one starts at offset {next_base}: they overlap"
                ),
            ))
        }
    }
}

/// Opens a segment file the listing showed; its disappearance is loss.
pub(super) fn open_segment(part: &PartInfo, path: &Path, base: u64) -> Result<File> {
    match File::open(path) {
        Ok(file) => Ok(file),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(lost(
            part,
            path.to_path_buf(),
            base,
            "that file is missing (it was there when the partition's files were listed)",
            "a segment file is never deleted",
        )),
        Err(e) => Err(Error::io("open the segment file", path)(e)),
    }
}

/// Checks that the checkpoint's segment still holds, where the checkpoint says, the last
/// durable record: one read, which catches a cut or altered end without reading the segment.
fn check_last_durable(part: &PartInfo, cp: &Checkpoint, buf: &mut Vec<u8>) -> Result<()> {
    let path = part.dir.join(segment_name(cp.segment));
    let file = open_segment(part, &path, cp.segment)?;
    let len = file
        .metadata()
        .map_err(Error::io("read the size of", &path))?
        .len();
    if len < cp.end {
        return Err(cut_short(part, &file, &path, cp, len, buf));
    }
    let size = cp
        .end
        .checked_sub(cp.last)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n <= crate::MAX_RECORD_BYTES + frame::FRAME_OVERHEAD)
        .ok_or_else(|| Error::BadMetadata {
            path: checkpoint::path(&part.dir),
            line: 1,
            reason: format!(
                "the last record is said to start at byte {} and its batch to end at byte {}, which no record can do",
                cp.last, cp.end
            ),
        })?;
    buf.resize(size, 0);
    file.read_exact_at(buf, cp.last)
        .map_err(Error::io("read the segment file", &path))?;
    let at = place(part, &path);
    let offset = cp.next - 1;
    match frame::check(buf) {
        Check::Valid(h)
            if h.offset == offset
                && h.batch_rest == 0
                && h.total_len == size
                && h.crc == cp.last_crc =>
        {
            Ok(())
        }
        Check::Valid(h) => Err(at.corrupt(
            offset,
            cp.last,
            format_args!(
                "the record there has offset {} and checksum {:08x}, not offset {offset} and checksum {:08x} as the checkpoint recorded: the file was replaced or changed",
                h.offset, h.crc, cp.last_crc
            ),
        )),
        Check::Invalid(why) => Err(at.corrupt(
            offset,
            cp.last,
            format_args!("{why}; {}", not_torn_because(cp)),
        )),
        Check::Incomplete { needed } => Err(at.corrupt(
            offset,
            cp.last,
            format_args!(
                "its length field says {needed} bytes, more than the checkpoint's {size}; {}",
                not_torn_because(cp)
            ),
        )),
    }
}

/// Why damage before the checkpoint's end is not a torn write, in words.
fn not_torn_because(cp: &Checkpoint) -> String {
    format!(
        "{}, so this is damage, not the torn end of an interrupted append",
        checkpoint_evidence(cp)
    )
}

/// [`Error::Lost`] for a checkpoint segment of `len` bytes, shorter than the checkpoint's end,
/// naming the first offset gone (or the damage found while looking for it).
fn cut_short(
    part: &PartInfo,
    file: &File,
    path: &Path,
    cp: &Checkpoint,
    len: u64,
    buf: &mut Vec<u8>,
) -> Error {
    let mut tally = Tally::new(0, cp.segment);
    let at = place(part, path);
    if let Err(e) = segment::scan(file, buf, at, 0, cp.segment, CHECK_CHUNK, &mut tally) {
        return e;
    }
    lost(
        part,
        path.to_path_buf(),
        tally.next_offset,
        format!(
            "the file ends at byte {len}, before byte {} where the durable records end",
            cp.end
        ),
        checkpoint_evidence(cp),
    )
}

/// The error for bytes at `bad_pos` of the checkpoint's segment that are not a whole batch,
/// although the checkpoint says the batches up to `cp.end` were durable: loss if the file is
/// shorter than that, damage otherwise. Never a torn tail.
pub(super) fn not_torn(
    part: &PartInfo,
    path: &Path,
    cp: &Checkpoint,
    bad_pos: u64,
    bad_offset: u64,
    problem: &Problem,
    file_len: u64,
) -> Error {
    if file_len < cp.end {
        lost(
            part,
            path.to_path_buf(),
            bad_offset,
            format!(
                "the file ends at byte {file_len}, before byte {} where the durable records end",
                cp.end
            ),
            checkpoint_evidence(cp),
        )
    } else {
        place(part, path).corrupt(
            bad_offset,
            bad_pos,
            format_args!("{problem}; {}", not_torn_because(cp)),
        )
    }
}

/// Checks that a partition whose last segment (`base`) ends at byte `end_pos`, before offset
/// `next`, still holds everything the checkpoint and the consumer groups say it held.
pub(super) fn check_end(
    part: &PartInfo,
    expect: &Expect,
    base: u64,
    end_pos: u64,
    next: u64,
) -> Result<()> {
    let path = part.dir.join(segment_name(base));
    if let Some(cp) = expect.durable() {
        if base < cp.segment {
            return Err(lost(
                part,
                part.dir.join(segment_name(next)),
                next,
                format!(
                    "that file is missing: the partition's last segment file, {}, ends at offset {next}",
                    segment_name(base)
                ),
                checkpoint_evidence(cp),
            ));
        }
        if base == cp.segment && (end_pos < cp.end || next < cp.next) {
            return Err(lost(
                part,
                path,
                next,
                format!(
                    "the file ends at byte {end_pos}, before byte {} where the durable records end",
                    cp.end
                ),
                checkpoint_evidence(cp),
            ));
        }
    }
    match &expect.committed {
        Some(c) if next < c.next_offset => Err(lost(
            part,
            path,
            next,
            format!("the partition ends there, at byte {end_pos} of that file"),
            committed_evidence(c),
        )),
        _ => Ok(()),
    }
}
