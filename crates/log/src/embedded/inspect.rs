//! [`check`]: a whole embedded log read and judged partition by partition (also the first step
//! of [`repair`](super::repair)).

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

use super::checkpoint::Mark;
use super::integrity::{self, Committed, Expect};
use super::segment::{self, Place, Problem, ScanEnd, Tally, segment_name};
use super::{GROUPS_DIR, PartInfo, STREAM_META, read_stream_meta};
use crate::{Error, Result};

/// First read when scanning a segment for a check.
const CHECK_CHUNK: usize = 1 << 20;

/// What [`check`] found in a log directory.
#[derive(Debug)]
#[non_exhaustive]
pub struct Report {
    /// The log directory.
    pub dir: PathBuf,
    /// Every stream, by name.
    pub streams: Vec<StreamReport>,
    /// Problems outside any stream's partitions: a consumer group that read records of a stream
    /// or partition that is gone, a group's positions file that cannot be read.
    pub problems: Vec<Error>,
}

/// What [`check`] found in one stream.
#[derive(Debug)]
#[non_exhaustive]
pub struct StreamReport {
    /// The stream's name.
    pub name: String,
    /// Its partitions keep checkpoints (it was created by a version that writes them). Without,
    /// a partition is checked only as far as its files and the groups' positions allow.
    pub checkpoints: bool,
    /// Every partition, in order.
    pub partitions: Vec<PartitionReport>,
    /// Problems with the stream itself (an unreadable description).
    pub problems: Vec<Error>,
}

/// What [`check`] found in one partition.
#[derive(Debug)]
#[non_exhaustive]
pub struct PartitionReport {
    /// The partition number.
    pub partition: u32,
    /// Its directory.
    pub dir: PathBuf,
    /// Its segment files, in order.
    pub segments: Vec<SegmentReport>,
    /// The offset of its first record (0 unless records are missing).
    pub start_offset: u64,
    /// The offset the next record will get.
    pub end_offset: u64,
    /// Readable records.
    pub records: u64,
    /// What its checkpoint says was durable; `None` if it has no readable checkpoint.
    pub durable: Option<Durable>,
    /// Each consumer group's committed position, by group name.
    pub committed: Vec<GroupPosition>,
    /// Bytes after the last whole batch that a crash can leave (cut by the next append or by
    /// [`repair`](super::repair)); not a problem.
    pub torn_tail: Option<TornTail>,
    /// Loss and damage found, each naming files and offsets.
    pub problems: Vec<Error>,
}

/// One segment file, as far as it could be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SegmentReport {
    /// The file.
    pub file: PathBuf,
    /// The offset of its first record (from its name).
    pub base_offset: u64,
    /// The offset after its last readable record.
    pub next_offset: u64,
    /// Readable records in it.
    pub records: u64,
    /// Its size in bytes.
    pub bytes: u64,
}

/// The last durable batch of a partition, as its checkpoint records it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Durable {
    /// The offset after the last durable record.
    pub next_offset: u64,
    /// The segment file holding it.
    pub segment: PathBuf,
    /// The byte position in that file where the durable batches end.
    pub end: u64,
}

/// A consumer group's committed position in a partition.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GroupPosition {
    /// The group.
    pub group: String,
    /// The next offset it will read.
    pub next_offset: u64,
}

/// Bytes after a partition's last whole batch, past what was durable: what a crash leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TornTail {
    /// The segment file.
    pub file: PathBuf,
    /// Where the torn bytes start (the end of the last whole batch).
    pub position: u64,
    /// How many bytes follow it.
    pub bytes: u64,
    /// The offset the next record will get.
    pub next_offset: u64,
    /// What the bytes are, in words.
    pub reason: String,
}

impl Report {
    /// Every problem found, in the log and in its streams and partitions.
    pub fn problems(&self) -> impl Iterator<Item = &Error> {
        self.problems
            .iter()
            .chain(self.streams.iter().flat_map(|s| {
                s.problems
                    .iter()
                    .chain(s.partitions.iter().flat_map(|p| p.problems.iter()))
            }))
    }

    /// Nothing lost or damaged (torn tails aside).
    pub fn is_whole(&self) -> bool {
        self.problems().next().is_none()
    }

    /// Every torn tail, with its stream and partition.
    pub fn torn_tails(&self) -> impl Iterator<Item = (&str, u32, &TornTail)> {
        self.streams.iter().flat_map(|s| {
            s.partitions.iter().filter_map(|p| {
                p.torn_tail
                    .as_ref()
                    .map(|t| (s.name.as_str(), p.partition, t))
            })
        })
    }
}

/// Reads a whole embedded log directory and reports the state of every stream and partition:
/// segments, offsets, records, the last durable offset, the consumer groups' positions, torn
/// tails, and every loss or damage found, with where.
///
/// Nothing is changed. It runs beside writers: a partition's lock is taken (shared, briefly)
/// only to tell a torn tail from an append in progress.
pub fn check(dir: impl AsRef<Path>) -> Result<Report> {
    let dir = dir.as_ref();
    let mut report = Report {
        dir: dir.to_path_buf(),
        streams: Vec::new(),
        problems: Vec::new(),
    };
    let committed = match integrity::all_committed(&dir.join(GROUPS_DIR)) {
        Ok((committed, unreadable)) => {
            report.problems.extend(unreadable);
            committed
        }
        Err(e) => {
            report.problems.push(e);
            BTreeMap::new()
        }
    };
    let mut buf = Vec::new();
    for name in stream_names(dir)? {
        report
            .streams
            .push(check_stream(dir, &name, &committed, &mut buf));
    }
    report
        .problems
        .extend(orphan_positions(dir, &report, &committed));
    Ok(report)
}

/// The names of the stream directories of a log, sorted.
pub(super) fn stream_names(dir: &Path) -> Result<Vec<String>> {
    let entries = fs::read_dir(dir).map_err(Error::io("read the log directory", dir))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(Error::io("read the log directory", dir))?;
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if is_dir && super::check_name("stream", &name).is_ok() {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Checks one stream directory.
fn check_stream(
    dir: &Path,
    name: &str,
    committed: &BTreeMap<(String, u32), Vec<Committed>>,
    buf: &mut Vec<u8>,
) -> StreamReport {
    let mut report = StreamReport {
        name: name.to_owned(),
        checkpoints: false,
        partitions: Vec::new(),
        problems: Vec::new(),
    };
    let meta_path = dir.join(name).join(STREAM_META);
    let meta = match read_stream_meta(&meta_path) {
        Ok(Some(meta)) => meta,
        Ok(None) => {
            report.problems.push(Error::BadMetadata {
                path: meta_path,
                line: 1,
                reason: "the stream's description file is missing, so its partitions cannot be checked; restore it from a backup".to_owned(),
            });
            return report;
        }
        Err(e) => {
            report.problems.push(e);
            return report;
        }
    };
    report.checkpoints = meta.checkpoints;
    for partition in 0..meta.config.partitions {
        let part = PartInfo::new(dir, name, partition, meta.checkpoints);
        let groups = committed
            .get(&(name.to_owned(), partition))
            .cloned()
            .unwrap_or_default();
        report
            .partitions
            .push(inspect_partition(&part, groups, Locking::Shared, buf).report);
    }
    report
}

/// Consumer groups' positions in streams or partitions that do not exist: their records are lost.
fn orphan_positions(
    dir: &Path,
    report: &Report,
    committed: &BTreeMap<(String, u32), Vec<Committed>>,
) -> Vec<Error> {
    let mut problems = Vec::new();
    for ((stream, partition), groups) in committed {
        let known = report.streams.iter().find(|s| &s.name == stream);
        if known.is_some_and(|s| !s.problems.is_empty() || *partition < s.partitions.len() as u32) {
            continue;
        }
        let Some(c) = groups
            .iter()
            .filter(|c| c.next_offset > 0)
            .max_by_key(|c| c.next_offset)
        else {
            continue;
        };
        let part = PartInfo::new(dir, stream, *partition, false);
        let found = match known {
            None => "the stream has no directory with a description in the log",
            Some(_) => "the stream has no such partition",
        };
        problems.push(integrity::lost(
            &part,
            part.dir.join(segment_name(0)),
            0,
            found,
            integrity::committed_evidence(c),
        ));
    }
    problems
}

/// How a partition's lock is held while it is inspected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Locking {
    /// Not held: take it (shared) to judge a suspect tail.
    Shared,
    /// Held (exclusively) by the caller.
    Held,
}

/// A partition as inspected, with what [`repair`] needs.
pub(super) struct Inspected {
    pub report: PartitionReport,
    /// Where the last durable batch ends, from the files (for a new checkpoint).
    pub mark: Option<Mark>,
}

/// One segment as scanned.
struct Scanned {
    base: u64,
    path: PathBuf,
    bytes: u64,
    tally: Tally,
    /// How the scan ended: `None` if it failed (the error is among the problems).
    end: Option<ScanEnd>,
}

/// Reads a whole partition and judges it.
pub(super) fn inspect_partition(
    part: &PartInfo,
    committed: Vec<Committed>,
    locking: Locking,
    buf: &mut Vec<u8>,
) -> Inspected {
    let mut problems = Vec::new();
    // The checkpoint and positions are read before the files (see `integrity`).
    let checkpoint = integrity::load_checkpoint(part).unwrap_or_else(|e| {
        problems.push(e);
        None
    });
    let mut expect = Expect {
        checkpoint,
        committed: committed.iter().max_by_key(|c| c.next_offset).cloned(),
    };
    let bases = segment::list_segments(&part.dir).unwrap_or_else(|e| {
        problems.push(e);
        Vec::new()
    });
    if let Err(e) = integrity::check_listing(part, &bases, &expect, buf) {
        problems.push(e);
    }
    // Segments whose seal shows them cut or lengthened are reported once, by their seal.
    let sealed_bad: Vec<u64> = match integrity::seal_problems(part, &bases, buf) {
        Ok(found) => found
            .into_iter()
            .map(|(base, e)| {
                problems.push(e);
                base
            })
            .collect(),
        Err(e) => {
            problems.push(e);
            Vec::new()
        }
    };
    let mut scanned: Vec<Scanned> = bases
        .iter()
        .map(|&base| scan_whole(part, base, buf, &mut problems))
        .collect();
    check_seams(part, &scanned, &sealed_bad, &mut problems);
    let mut torn_tail = None;
    if let Some(last) = scanned.last_mut() {
        let before = problems.len();
        torn_tail = judge_tail(part, last, &mut expect, locking, buf, &mut problems);
        // Where damage stops the last segment, its "end" is not where the records end.
        if last.end.is_some() && problems.len() == before {
            check_ends(part, &expect, &committed, last, &mut problems);
        }
    }
    dedup_problems(&mut problems);
    let mark = durable_mark(&scanned);
    Inspected {
        report: partition_report(part, &expect, committed, scanned, torn_tail, problems),
        mark,
    }
}

/// The partition's end against its checkpoint, then against each group's position.
fn check_ends(
    part: &PartInfo,
    expect: &Expect,
    committed: &[Committed],
    last: &Scanned,
    problems: &mut Vec<Error>,
) {
    let (base, end, next) = (last.base, last.tally.end, last.tally.next_offset);
    let by_checkpoint = Expect {
        checkpoint: expect.checkpoint,
        committed: None,
    };
    let by_groups = committed.iter().map(|c| Expect {
        checkpoint: None,
        committed: Some(c.clone()),
    });
    for one in std::iter::once(by_checkpoint).chain(by_groups) {
        if let Err(e) = integrity::check_end(part, &one, base, end, next) {
            problems.push(e);
        }
    }
}

/// Reads one segment whole.
fn scan_whole(part: &PartInfo, base: u64, buf: &mut Vec<u8>, problems: &mut Vec<Error>) -> Scanned {
    let path = part.dir.join(segment_name(base));
    let mut scanned = Scanned {
        base,
        path: path.clone(),
        bytes: 0,
        tally: Tally::new(0, base),
        end: None,
    };
    let file = match integrity::open_segment(part, &path, base) {
        Ok(file) => file,
        Err(e) => {
            problems.push(e);
            return scanned;
        }
    };
    scanned.bytes = file.metadata().map_or(0, |m| m.len());
    let place = Place {
        stream: &part.stream,
        partition: part.partition,
        path: &path,
    };
    match segment::scan(&file, buf, place, 0, base, CHECK_CHUNK, &mut scanned.tally) {
        Ok(end) => scanned.end = Some(end),
        Err(e) => problems.push(e),
    }
    scanned
}

/// Consecutive segments must join, and all but the last end with a whole batch (`known`:
/// segments already reported by their seal).
fn check_seams(part: &PartInfo, scanned: &[Scanned], known: &[u64], problems: &mut Vec<Error>) {
    for pair in scanned.windows(2) {
        let [seg, next] = pair else { continue };
        if known.contains(&seg.base) {
            continue;
        }
        if let Some(ScanEnd::Trailing {
            bad_pos,
            bad_offset,
            problem,
        }) = &seg.end
        {
            let place = Place {
                stream: &part.stream,
                partition: part.partition,
                path: &seg.path,
            };
            problems.push(place.corrupt(
                *bad_offset,
                *bad_pos,
                format_args!("{problem}, although a later segment exists"),
            ));
        }
        if seg.end.is_some()
            && let Err(e) = integrity::check_seam(part, seg.base, seg.tally.next_offset, next.base)
        {
            problems.push(e);
        }
    }
}

/// Judges what follows the last whole batch of the last segment: nothing, a torn tail (what a
/// crash leaves), or loss or damage before the durable end.
fn judge_tail(
    part: &PartInfo,
    last: &mut Scanned,
    expect: &mut Expect,
    locking: Locking,
    buf: &mut Vec<u8>,
    problems: &mut Vec<Error>,
) -> Option<TornTail> {
    let Some(ScanEnd::Trailing { .. }) = last.end else {
        return None;
    };
    // Look again with no append in progress, against the newest checkpoint.
    let _lock = match lock_partition(part, locking) {
        Ok(lock) => lock,
        Err(e) => {
            problems.push(e);
            return None;
        }
    };
    if locking == Locking::Shared
        && let Ok(Some(cp)) = integrity::load_checkpoint(part)
    {
        expect.checkpoint = Some(cp);
    }
    match rescan_tail(part, last, expect, buf) {
        Ok(tail) => tail,
        Err(e) => {
            problems.push(e);
            None
        }
    }
}

/// Scans the last segment again from its last whole batch (under the lock) and judges its end.
fn rescan_tail(
    part: &PartInfo,
    last: &mut Scanned,
    expect: &Expect,
    buf: &mut Vec<u8>,
) -> Result<Option<TornTail>> {
    let file = integrity::open_segment(part, &last.path, last.base)?;
    let place = Place {
        stream: &part.stream,
        partition: part.partition,
        path: &last.path,
    };
    let (pos, offset) = (last.tally.end, last.tally.next_offset);
    last.tally.resume();
    let end = segment::scan(&file, buf, place, pos, offset, CHECK_CHUNK, &mut last.tally)?;
    last.bytes = file.metadata().map_err(place.io("read the size of"))?.len();
    let ScanEnd::Trailing {
        bad_pos,
        bad_offset,
        problem,
    } = &end
    else {
        last.end = Some(end);
        return Ok(None);
    };
    let result = tail_of(
        part,
        &file,
        place,
        last,
        expect,
        (*bad_pos, *bad_offset, problem),
    );
    last.end = Some(end);
    result
}

/// The torn tail at `bad` of the last segment, or the error saying why it is not one.
fn tail_of(
    part: &PartInfo,
    file: &File,
    place: Place<'_>,
    last: &Scanned,
    expect: &Expect,
    (bad_pos, bad_offset, problem): (u64, u64, &Problem),
) -> Result<Option<TornTail>> {
    if let Some(cp) = expect.durable_in(last.base).filter(|cp| bad_pos < cp.end) {
        return Err(integrity::not_torn(
            part, &last.path, cp, bad_pos, bad_offset, problem, last.bytes,
        ));
    }
    segment::check_torn_tail(file, place, bad_pos, bad_offset, problem, last.bytes)?;
    Ok(Some(TornTail {
        file: last.path.clone(),
        position: last.tally.end,
        bytes: last.bytes.saturating_sub(last.tally.end),
        next_offset: last.tally.next_offset,
        reason: problem.to_string(),
    }))
}

/// Holds a partition's lock (shared) while dropped later; nothing when the caller holds it.
fn lock_partition(part: &PartInfo, locking: Locking) -> Result<Option<SharedLock>> {
    if locking == Locking::Held {
        return Ok(None);
    }
    let file = part.open_lock_file_for_reading()?;
    file.lock_shared()
        .map_err(Error::io("lock", part.lock_path()))?;
    Ok(Some(SharedLock(file)))
}

/// A shared lock released when dropped.
struct SharedLock(File);

impl Drop for SharedLock {
    fn drop(&mut self) {
        // Closing the file releases it too.
        let _ = self.0.unlock();
    }
}

/// The same problem found by two checks is reported once.
fn dedup_problems(problems: &mut Vec<Error>) {
    let mut seen = Vec::new();
    problems.retain(|e| {
        let text = e.to_string();
        let new = !seen.contains(&text);
        seen.push(text);
        new
    });
}

/// Where the last whole batch of the partition ends, for a checkpoint written from the files.
fn durable_mark(scanned: &[Scanned]) -> Option<Mark> {
    let (i, seg) = scanned
        .iter()
        .enumerate()
        .rev()
        .find(|(_, s)| s.tally.last.is_some())?;
    let (last, last_crc) = seg.tally.last?;
    Some(Mark {
        next: seg.tally.next_offset,
        segment: seg.base,
        segments: i as u64 + 1,
        end: seg.tally.end,
        last,
        last_crc,
    })
}

fn partition_report(
    part: &PartInfo,
    expect: &Expect,
    committed: Vec<Committed>,
    scanned: Vec<Scanned>,
    torn_tail: Option<TornTail>,
    problems: Vec<Error>,
) -> PartitionReport {
    let segments: Vec<SegmentReport> = scanned
        .into_iter()
        .map(|s| SegmentReport {
            file: s.path,
            base_offset: s.base,
            next_offset: s.tally.next_offset,
            records: s.tally.records,
            bytes: s.bytes,
        })
        .collect();
    PartitionReport {
        partition: part.partition,
        dir: part.dir.clone(),
        start_offset: segments.first().map_or(0, |s| s.base_offset),
        end_offset: segments.last().map_or(0, |s| s.next_offset),
        records: segments.iter().map(|s| s.records).sum(),
        segments,
        durable: expect.checkpoint.map(|cp| Durable {
            next_offset: cp.next,
            segment: part.dir.join(segment_name(cp.segment)),
            end: cp.end,
        }),
        committed: committed
            .into_iter()
            .map(|c| GroupPosition {
                group: c.group,
                next_offset: c.next_offset,
            })
            .collect(),
        torn_tail,
        problems,
    }
}
