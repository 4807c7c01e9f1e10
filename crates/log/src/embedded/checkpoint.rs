//! A partition's checkpoint: where its last durable batch ends, so that a cut or altered tail,
//! or a deleted segment, is not mistaken for the torn end of an interrupted append.
//!
//! The file holds two fixed-size text lines ("slots"), each a complete checkpoint with its own
//! CRC-32 and a sequence number. A writer (holding the partition lock) overwrites the older
//! slot in place after each append's `fsync`: one small write, no new file, no rename. Whatever
//! a crash or a concurrent reader sees, at least one slot is whole, and the newest whole slot
//! never claims more than was durable when it was written: a checkpoint is a lower bound on
//! what the partition holds.
//!
//! The slot is not flushed by an `fsync` of its own, which would double the cost of a durable
//! append. A killed process loses nothing (the write is in the page cache); a machine crash may
//! lose the last few checkpoint writes, leaving an older, still whole, checkpoint: a lower bound
//! again, so nothing is ever reported lost that was not, and the batches after it (durable, as
//! their `fsync` returned) are read and kept as usual. Only damage done to those few batches
//! after such a crash, before the next append moves the checkpoint, could pass for a torn tail.
//!
//! ```text
//! simpairs-log checkpoint 1 seq=42 next=60 segment=54 segments=7 end=342 last=285 last_crc=1a2b3c4d crc=89abcdef
//! ```
//! - `seq`: how many checkpoints were written before this one; the slot is `seq % 2`;
//! - `next`: the offset after the last durable record (the records before it must all exist);
//! - `segment`: the base offset of the segment file holding that record;
//! - `segments`: how many segment files there are up to and including that one;
//! - `end`: the byte position in that file just after the last durable batch;
//! - `last`, `last_crc`: the byte position of the last durable record and its checksum field,
//!   which tell that the file still holds *that* record;
//! - `crc`: CRC-32 of the line up to the space before `crc=`.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::write_atomically;
use crate::{Error, Result};

/// Name of the checkpoint file, in the partition directory.
pub(super) const CHECKPOINT_FILE: &str = "checkpoint";
/// Start of every slot.
const HEADER: &str = "simpairs-log checkpoint 1";
/// Bytes of one slot, newline included (the longest line possible is about 220 bytes).
const SLOT_BYTES: usize = 256;
/// Slots in the file.
const SLOTS: usize = 2;

/// What a partition held durably when its checkpoint was last written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Checkpoint {
    pub seq: u64,
    pub next: u64,
    pub segment: u64,
    pub segments: u64,
    pub end: u64,
    pub last: u64,
    pub last_crc: u32,
}

impl Checkpoint {
    /// The checkpoint after a batch whose last record starts at `last` of segment `segment` and
    /// whose end is `end`.
    pub fn after(&self, mark: Mark) -> Checkpoint {
        Checkpoint {
            seq: self.seq + 1,
            next: mark.next,
            segment: mark.segment,
            segments: mark.segments,
            end: mark.end,
            last: mark.last,
            last_crc: mark.last_crc,
        }
    }

    /// Whether anything was ever recorded as durable.
    pub fn is_empty(&self) -> bool {
        self.next == 0
    }

    fn line(&self) -> String {
        use std::fmt::Write as _;
        let mut line = String::with_capacity(SLOT_BYTES);
        // Writing to a String cannot fail.
        let _ = write!(
            line,
            "{HEADER} seq={} next={} segment={} segments={} end={} last={} last_crc={:08x}",
            self.seq, self.next, self.segment, self.segments, self.end, self.last, self.last_crc
        );
        let crc = crc32fast::hash(line.as_bytes());
        let _ = write!(line, " crc={crc:08x}");
        // Padded so that every slot has the same size and is overwritten whole.
        let pad = (SLOT_BYTES - 1).saturating_sub(line.len());
        line.extend(std::iter::repeat_n(' ', pad));
        line.push('\n');
        line
    }
}

/// Where the last durable batch of a partition ends, as the writer knows it after an append.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    pub next: u64,
    pub segment: u64,
    pub segments: u64,
    pub end: u64,
    pub last: u64,
    pub last_crc: u32,
}

/// The checkpoint file of a partition directory.
pub(super) fn path(part_dir: &Path) -> PathBuf {
    part_dir.join(CHECKPOINT_FILE)
}

/// Creates the checkpoint file of a new (empty) partition, or of a partition written before
/// checkpoints existed, holding `checkpoint` in slot 0.
pub(super) fn create(part_dir: &Path, checkpoint: &Checkpoint, fsync: bool) -> Result<()> {
    let mut bytes = checkpoint.line().into_bytes();
    bytes.resize(SLOT_BYTES * SLOTS, b' ');
    bytes[SLOT_BYTES * SLOTS - 1] = b'\n';
    // The first write of a slot other than 0 must leave slot 0 alone: write both at once.
    let slot = (checkpoint.seq % SLOTS as u64) as usize;
    if slot != 0 {
        bytes.copy_within(0..SLOT_BYTES, SLOT_BYTES);
        bytes[..SLOT_BYTES - 1].fill(b' ');
        bytes[SLOT_BYTES - 1] = b'\n';
    }
    write_atomically(&path(part_dir), &bytes, fsync)
}

/// Overwrites the slot of `checkpoint` in an open checkpoint file (one small write; see the
/// module docs for why it is not flushed on its own).
pub(super) fn write(file: &File, path: &Path, checkpoint: &Checkpoint) -> Result<()> {
    let slot = checkpoint.seq % SLOTS as u64;
    file.write_all_at(checkpoint.line().as_bytes(), slot * SLOT_BYTES as u64)
        .map_err(Error::io("write the checkpoint", path))
}

/// Opens a checkpoint file for reading and writing (the writer's); `None` if there is none.
pub(super) fn open(path: &Path) -> Result<Option<File>> {
    match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("open the checkpoint", path)(e)),
    }
}

/// Opens a checkpoint file for reading only; `None` if there is none. Readers never write it,
/// and a log the user may read but not write (a backup copy, another user's) must read whole.
pub(super) fn open_for_reading(path: &Path) -> Result<Option<File>> {
    match File::open(path) {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read the checkpoint", path)(e)),
    }
}

/// Reads the newest whole checkpoint of an open checkpoint file.
pub(super) fn read(file: &File, path: &Path) -> Result<Checkpoint> {
    let mut bytes = [0u8; SLOT_BYTES * SLOTS];
    let mut got = 0;
    while got < bytes.len() {
        match file.read_at(&mut bytes[got..], got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io("read the checkpoint", path)(e)),
        }
    }
    newest(&bytes[..got], path)
}

/// Reads the newest whole checkpoint of a partition; `None` if it has no checkpoint file.
pub(super) fn load(part_dir: &Path) -> Result<Option<Checkpoint>> {
    let path = path(part_dir);
    match open_for_reading(&path)? {
        Some(file) => read(&file, &path).map(Some),
        None => Ok(None),
    }
}

/// The newest whole slot of the file's bytes.
fn newest(bytes: &[u8], path: &Path) -> Result<Checkpoint> {
    let mut best: Option<Checkpoint> = None;
    let mut problems = Vec::new();
    for (i, slot) in bytes.chunks(SLOT_BYTES).take(SLOTS).enumerate() {
        match parse_slot(slot) {
            Slot::Blank => {}
            Slot::Bad(why) => problems.push(format!("line {}: {why}", i + 1)),
            Slot::Whole(cp) => {
                if best.is_none_or(|b| cp.seq > b.seq) {
                    best = Some(cp);
                }
            }
        }
    }
    best.ok_or_else(|| Error::BadMetadata {
        path: path.to_path_buf(),
        line: 1,
        reason: if problems.is_empty() {
            "the checkpoint file is empty".to_owned()
        } else {
            format!(
                "neither line of the checkpoint file is whole ({})",
                problems.join("; ")
            )
        },
    })
}

/// What one slot holds.
#[derive(Debug, PartialEq, Eq)]
enum Slot {
    /// Never written.
    Blank,
    /// Damaged, or torn by a write in progress.
    Bad(String),
    Whole(Checkpoint),
}

fn parse_slot(slot: &[u8]) -> Slot {
    if slot.iter().all(|&b| matches!(b, b' ' | b'\n' | 0)) {
        return Slot::Blank;
    }
    let Ok(text) = std::str::from_utf8(slot) else {
        return Slot::Bad("it is not text".to_owned());
    };
    let text = text.trim_end_matches([' ', '\n']);
    let Some((body, crc)) = text.rsplit_once(" crc=") else {
        return Slot::Bad("it has no checksum".to_owned());
    };
    let computed = crc32fast::hash(body.as_bytes());
    if u32::from_str_radix(crc, 16).ok() != Some(computed) {
        return Slot::Bad(format!(
            "its checksum does not match its contents (stored {crc}, computed {computed:08x})"
        ));
    }
    match parse_body(body) {
        Ok(cp) => Slot::Whole(cp),
        Err(why) => Slot::Bad(why),
    }
}

fn parse_body(body: &str) -> std::result::Result<Checkpoint, String> {
    let fields = body
        .strip_prefix(HEADER)
        .ok_or_else(|| format!("it does not start with \"{HEADER}\""))?;
    let mut cp = Checkpoint::default();
    let mut seen = 0;
    for field in fields.split_whitespace() {
        let (key, value) = field
            .split_once('=')
            .ok_or_else(|| format!("\"{field}\" is not \"name=value\""))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|_| format!("\"{value}\" is not a number in \"{field}\""))
        };
        match key {
            "seq" => cp.seq = number()?,
            "next" => cp.next = number()?,
            "segment" => cp.segment = number()?,
            "segments" => cp.segments = number()?,
            "end" => cp.end = number()?,
            "last" => cp.last = number()?,
            "last_crc" => {
                cp.last_crc = u32::from_str_radix(value, 16)
                    .map_err(|_| format!("\"{value}\" is not a checksum in \"{field}\""))?;
            }
            other => return Err(format!("unknown field \"{other}\"")),
        }
        seen += 1;
    }
    if seen != 7 {
        return Err(format!("it has {seen} fields instead of 7"));
    }
    Ok(cp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(seq: u64) -> Checkpoint {
        Checkpoint {
            seq,
            next: 2_037_933,
            segment: u64::MAX,
            segments: u64::MAX,
            end: u64::MAX,
            last: u64::MAX,
            last_crc: 0xdead_beef,
        }
    }

    /// Holds even for root, whom permissions do not stop: a reader's checkpoint file cannot write.
    #[test]
    fn readers_open_the_checkpoint_read_only() {
        let dir = tempfile::tempdir().unwrap();
        create(dir.path(), &sample(0), false).unwrap();
        let path = path(dir.path());
        let file = open_for_reading(&path).unwrap().unwrap();
        assert_eq!(read(&file, &path).unwrap(), sample(0));
        let refused = file.write_at(b"x", 0).unwrap_err();
        assert_eq!(refused.raw_os_error(), Some(9), "EBADF: {refused}");
        assert_eq!(
            open_for_reading(&dir.path().join("none"))
                .unwrap()
                .map(|_| ()),
            None
        );
    }

    #[test]
    fn the_longest_line_fits_its_slot() {
        let line = sample(u64::MAX).line();
        assert_eq!(line.len(), SLOT_BYTES, "{line}");
        assert_eq!(parse_slot(line.as_bytes()), Slot::Whole(sample(u64::MAX)));
    }

    #[test]
    fn the_newest_whole_slot_wins_and_a_torn_one_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        create(dir.path(), &sample(0), false).unwrap();
        let path = path(dir.path());
        let file = open(&path).unwrap().unwrap();
        assert_eq!(read(&file, &path).unwrap(), sample(0));
        write(&file, &path, &sample(1)).unwrap();
        assert_eq!(read(&file, &path).unwrap(), sample(1));
        write(&file, &path, &sample(2)).unwrap();
        assert_eq!(read(&file, &path).unwrap(), sample(2));
        // Slot 0 (seq 2) torn half-way: slot 1 (seq 1) is used.
        file.write_all_at(&[b'x'; 100], 50).unwrap();
        assert_eq!(read(&file, &path).unwrap(), sample(1));
        // Both damaged: an error naming the file and both lines.
        file.write_all_at(&[b'x'; 10], SLOT_BYTES as u64 + 40)
            .unwrap();
        let err = read(&file, &path).unwrap_err().to_string();
        assert!(
            err.contains("neither line of the checkpoint file is whole"),
            "{err}"
        );
        assert!(
            err.contains("line 1: its checksum") && err.contains("line 2:"),
            "{err}"
        );
    }

    #[test]
    fn a_checkpoint_created_in_slot_1_keeps_slot_0_blank() {
        let dir = tempfile::tempdir().unwrap();
        create(dir.path(), &sample(5), false).unwrap();
        assert_eq!(load(dir.path()).unwrap(), Some(sample(5)));
        assert_eq!(load(&dir.path().join("none")).unwrap(), None);
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        for bytes in [
            &b""[..],
            b"\0\0\0",
            &[0xff; 600],
            b"simpairs-log checkpoint 1 crc=0",
        ] {
            let _ = newest(bytes, Path::new("x"));
        }
    }
}
