//! A partition's seals: the final size and end offset of every segment a writer left for a new
//! one, so that a segment cut short or a missing segment in the middle of a partition is seen
//! from the file sizes alone, without reading the records.
//!
//! The file `seals` holds one line per roll, appended (and flushed) before the new segment is
//! created:
//! ```text
//! simpairs-log seal 1 segment=54 end=642 next=63 crc=89abcdef
//! ```
//! A seal counts only for a segment that a later one follows: a writer that crashed after
//! writing the line but before creating the next segment may go on appending to the same
//! segment, and seals it again (the last line for a segment wins) when it rolls. A last line cut
//! short by a crash is ignored; any other line that is not whole is an error. Segments written
//! before seals existed have none, and are checked by reading them.

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Name of the seals file, in the partition directory.
const SEALS_FILE: &str = "seals";
/// Start of every line.
const HEADER: &str = "simpairs-log seal 1";

/// How a segment was left when the next one was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Seal {
    /// Its size in bytes.
    pub end: u64,
    /// The offset after its last record: the base offset of the next segment.
    pub next: u64,
}

/// The seals file of a partition directory.
pub(super) fn path(part_dir: &Path) -> PathBuf {
    part_dir.join(SEALS_FILE)
}

/// Appends the seal of segment `base` (and flushes it when `fsync`).
pub(super) fn append(part_dir: &Path, base: u64, seal: Seal, fsync: bool) -> Result<()> {
    let path = path(part_dir);
    let body = format!(
        "{HEADER} segment={base} end={} next={}",
        seal.end, seal.next
    );
    let line = format!("{body} crc={:08x}\n", crc32fast::hash(body.as_bytes()));
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(Error::io("open the seals file", &path))?;
    file.write_all(line.as_bytes())
        .map_err(Error::io("write to the seals file", &path))?;
    if fsync {
        file.sync_data()
            .map_err(Error::io("flush to disk", &path))?;
    }
    Ok(())
}

/// The seals of a partition by segment base offset; empty if it has none.
pub(super) fn load(part_dir: &Path) -> Result<BTreeMap<u64, Seal>> {
    let path = path(part_dir);
    let text = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(Error::io("read the seals file", &path)(e)),
    };
    let mut seals = BTreeMap::new();
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    for (i, line) in lines.iter().enumerate() {
        // The last piece follows the last newline: empty, or a line a crash cut short.
        if i + 1 == lines.len() {
            break;
        }
        let (base, seal) = parse(line).map_err(|reason| Error::BadMetadata {
            path: path.clone(),
            line: i + 1,
            reason,
        })?;
        seals.insert(base, seal);
    }
    Ok(seals)
}

fn parse(line: &[u8]) -> std::result::Result<(u64, Seal), String> {
    let text = std::str::from_utf8(line).map_err(|_| "the line is not text".to_owned())?;
    let (body, crc) = text
        .rsplit_once(" crc=")
        .ok_or_else(|| "the line has no checksum".to_owned())?;
    let computed = crc32fast::hash(body.as_bytes());
    if u32::from_str_radix(crc, 16).ok() != Some(computed) {
        return Err(format!(
            "its checksum does not match its contents (stored {crc}, computed {computed:08x})"
        ));
    }
    let fields = body
        .strip_prefix(HEADER)
        .ok_or_else(|| format!("the line does not start with \"{HEADER}\""))?;
    let mut values = [None; 3];
    for field in fields.split_whitespace() {
        let (key, value) = field
            .split_once('=')
            .ok_or_else(|| format!("\"{field}\" is not \"name=value\""))?;
        let slot = match key {
            "segment" => 0,
            "end" => 1,
            "next" => 2,
            other => return Err(format!("unknown field \"{other}\"")),
        };
        values[slot] = Some(
            value
                .parse::<u64>()
                .map_err(|_| format!("\"{value}\" is not a number in \"{field}\""))?,
        );
    }
    match values {
        [Some(base), Some(end), Some(next)] => Ok((base, Seal { end, next })),
        _ => Err("the line lacks one of segment, end and next".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_round_trip_and_the_last_one_wins() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).unwrap().is_empty());
        append(dir.path(), 0, Seal { end: 100, next: 9 }, false).unwrap();
        append(dir.path(), 9, Seal { end: 50, next: 12 }, true).unwrap();
        append(dir.path(), 9, Seal { end: 80, next: 14 }, false).unwrap();
        let seals = load(dir.path()).unwrap();
        assert_eq!(seals.get(&0), Some(&Seal { end: 100, next: 9 }));
        assert_eq!(seals.get(&9), Some(&Seal { end: 80, next: 14 }));

        // A line cut short by a crash, at the end, is ignored.
        let mut text = fs::read(path(dir.path())).unwrap();
        text.extend_from_slice(b"simpairs-log seal 1 segm");
        fs::write(path(dir.path()), &text).unwrap();
        assert_eq!(load(dir.path()).unwrap().len(), 2);
        // A damaged line before others is an error naming it.
        text[30] ^= 1;
        fs::write(path(dir.path()), &text).unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("seals, line 1: its checksum"), "{err}");
    }
}
