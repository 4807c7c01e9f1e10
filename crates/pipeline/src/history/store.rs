//! The index file: a header, the meta (JSON: what the index covers, the generations, the records
//! set aside), every record's position (varints), then each applied submission's message as the
//! aggregator writes it (the events codec), one after the other in the order they applied.
//!
//! The file is written beside its final name and renamed over it, so a reader sees an old index
//! or a new one, never half of one. A file that does not read back (another version, damaged) is
//! no index: it is built again.

use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use simpairs_events::types::SubmissionApplied;
use simpairs_events::{Codec, Event};

use super::build::Built;
use super::{Covered, DeadLetter, FORMAT, Generation, Index};
use crate::state::Saved;
use crate::{Error, ReplayError, Result};

/// The first bytes of an index file.
const MAGIC: &[u8; 22] = b"simpairs replay index\n";

/// What the index covers and holds, besides the messages.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Meta {
    pub format: u32,
    pub event: String,
    /// What it covers of the declarations stream.
    pub declarations: Covered,
    /// The deal of each board as the event knows it at the end (PBN, from North).
    pub deals: std::collections::BTreeMap<i32, String>,
    pub covered: Vec<Covered>,
    /// Every partition's timestamps never go back.
    pub monotone: bool,
    pub generations: Vec<Generation>,
    pub dead_letters: Vec<DeadLetter>,
    /// The state at the end of what it covers, to read on from there when the log grows.
    pub resume: Saved,
}

fn io(
    path: &Path,
    what: &'static str,
    e: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> Error {
    Error::Index {
        path: path.to_path_buf(),
        what,
        source: e.into(),
    }
}

/// The applied section of an index's first `count` generations, as its file holds it: an index
/// read on from it writes these bytes again instead of encoding the same messages anew.
pub(super) struct Kept {
    bytes: Vec<u8>,
    count: usize,
}

/// Every applied submission of an index, decoded in parallel, with the bytes they were read
/// from.
pub(super) fn applied_kept(index: &Index) -> Result<(Vec<Arc<SubmissionApplied>>, Kept)> {
    let count = index.meta.generations.len();
    if let Some(built) = &index.built {
        let codec = Codec::new()?;
        let applied = built
            .par_iter()
            .map(|message| decoded(&index.path, &codec, message))
            .collect::<Result<Vec<_>>>()?;
        let bytes = built.concat();
        return Ok((applied, Kept { bytes, count }));
    }
    let section = Section::read(index, 0..count)?;
    let codec = Codec::new()?;
    let applied = (0..count)
        .into_par_iter()
        .map(|i| section.decode(&codec, i))
        .collect::<Result<Vec<_>>>()?;
    let kept = Kept {
        bytes: section.bytes,
        count,
    };
    Ok((applied, kept))
}

/// Writes a built index to `path` and returns it open; `kept` is the applied section of the index
/// it was read on from.
pub(super) fn write(path: &Path, built: Built, kept: Option<Kept>) -> Result<Index> {
    let (index, unwritten) = prepare(path, built, kept)?;
    unwritten.write()?;
    Ok(index)
}

/// A built index's file, not written yet ([`prepare`]).
pub(super) struct Unwritten {
    path: PathBuf,
    meta_bytes: Vec<u8>,
    records: Vec<u8>,
    kept: Vec<u8>,
    messages: Arc<[Vec<u8>]>,
}

/// A built index, open as it reads once its file is written, and that file to write
/// ([`Unwritten::write`]); `kept` is the applied section of the index it was read on from. An
/// index built afresh answers from its messages in memory before its file is written.
pub(super) fn prepare(path: &Path, built: Built, kept: Option<Kept>) -> Result<(Index, Unwritten)> {
    let (kept, kept_count) = match kept {
        Some(kept) => (kept.bytes, kept.count),
        None => (Vec::new(), 0),
    };
    let messages: Arc<[Vec<u8>]> = Arc::from(built.applied);
    let mut generations = built.generations;
    debug_assert_eq!(generations.len(), kept_count + messages.len());
    let crcs: Vec<u32> = messages.par_iter().map(|m| crc32fast::hash(m)).collect();
    let mut at = kept.len() as u64;
    for ((g, message), crc) in generations[kept_count..]
        .iter_mut()
        .zip(messages.iter())
        .zip(crcs)
    {
        g.bytes = (at, at + message.len() as u64);
        g.crc = crc;
        at += message.len() as u64;
    }
    let meta = Meta {
        format: FORMAT,
        event: built.event,
        declarations: built.declarations,
        deals: built.deals,
        covered: built.covered,
        monotone: built.monotone,
        generations,
        dead_letters: built.dead_letters,
        resume: built.saved,
    };
    let meta_bytes = serde_json::to_vec(&meta).map_err(|e| io(path, "cannot write", e))?;
    let records = encode_records(&built.records);
    let index = Index {
        path: path.to_path_buf(),
        meta,
        records: built.records,
        applied_at: (MAGIC.len() + 4 + 8 + meta_bytes.len() + 8 + records.len()) as u64,
        // An index read on reads its older messages from the file it was just written to.
        built: (kept_count == 0).then(|| messages.clone()),
        fields: Arc::new(built.fields),
        players: Arc::new(built.players),
        decoded: None,
        file: None,
    };
    let unwritten = Unwritten {
        path: path.to_path_buf(),
        meta_bytes,
        records,
        kept,
        messages,
    };
    Ok((index, unwritten))
}

impl Unwritten {
    /// Writes the file beside its name, then renames it over it (a temporary file that could not
    /// be put in place is removed).
    pub(super) fn write(self) -> Result<()> {
        let path = self.path.as_path();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io(path, "cannot create its directory", e))?;
        }
        let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
        if let Err(e) = self.write_to(&temporary) {
            let _ = std::fs::remove_file(&temporary);
            return Err(io(path, "cannot write", e));
        }
        std::fs::rename(&temporary, path).map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            io(path, "cannot put in place", e)
        })
    }

    fn write_to(&self, temporary: &Path) -> std::io::Result<()> {
        // Messages of a few kilobytes each, gathered into writes of a megabyte: one write each
        // cost the kernel more than the bytes.
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(temporary)?);
        out.write_all(MAGIC)?;
        out.write_all(&FORMAT.to_le_bytes())?;
        out.write_all(&(self.meta_bytes.len() as u64).to_le_bytes())?;
        out.write_all(&self.meta_bytes)?;
        out.write_all(&(self.records.len() as u64).to_le_bytes())?;
        out.write_all(&self.records)?;
        out.write_all(&self.kept)?;
        for m in self.messages.iter() {
            out.write_all(m)?;
        }
        out.flush()
    }
}

/// Reads the index at `path`; `None` if there is none for `event` that this program reads.
pub(super) fn read(path: &Path, event: &str) -> Result<Option<Index>> {
    let file = match std::fs::File::open(path) {
        Ok(file) => Arc::new(file),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path, "cannot open", e)),
    };
    match read_head(&mut std::io::BufReader::new(file.as_ref())) {
        Ok(Some((meta, records, applied_at))) if meta.event == event && meta.format == FORMAT => {
            Ok(Some(Index {
                path: path.to_path_buf(),
                meta,
                records,
                applied_at,
                built: None,
                fields: Arc::default(),
                players: Arc::default(),
                decoded: None,
                file: Some(file),
            }))
        }
        Ok(_) => Ok(None),
        Err(e) => {
            tracing::warn!(path = %path.display(), "the replay index does not read back ({e}); it is built again");
            Ok(None)
        }
    }
}

type Head = (Meta, Vec<Vec<(u64, i64)>>, u64);

fn read_head(file: &mut impl Read) -> std::io::Result<Option<Head>> {
    let mut magic = [0u8; MAGIC.len()];
    file.read_exact(&mut magic)?;
    let mut format = [0u8; 4];
    file.read_exact(&mut format)?;
    if &magic != MAGIC || u32::from_le_bytes(format) != FORMAT {
        return Ok(None);
    }
    let meta_bytes = read_section(file)?;
    let meta: Meta = serde_json::from_slice(&meta_bytes).map_err(std::io::Error::other)?;
    let record_bytes = read_section(file)?;
    let records = decode_records(&record_bytes, meta.covered.len())
        .ok_or_else(|| std::io::Error::other("the record positions are damaged"))?;
    let applied_at = (MAGIC.len() + 4 + 8 + meta_bytes.len() + 8 + record_bytes.len()) as u64;
    Ok(Some((meta, records, applied_at)))
}

/// A section: its length (8 bytes, little-endian), then its bytes.
fn read_section(file: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 8];
    file.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    let mut bytes = Vec::new();
    file.take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(bytes)
}

/// The applied section's bytes of some generations (indices into the generations), one read.
pub(super) struct Section<'i> {
    index: &'i Index,
    start: u64,
    bytes: Vec<u8>,
}

impl<'i> Section<'i> {
    /// Reads the messages of generations `range`.
    pub fn read(index: &'i Index, range: std::ops::Range<usize>) -> Result<Section<'i>> {
        let path = &index.path;
        let generations = index
            .meta
            .generations
            .get(range)
            .ok_or(ReplayError::NoGenerations)?;
        let (Some(first), Some(last)) = (generations.first(), generations.last()) else {
            return Ok(Section {
                index,
                start: 0,
                bytes: Vec::new(),
            });
        };
        let start = first.bytes.0;
        let mut bytes = vec![0u8; (last.bytes.1 - start) as usize];
        // The file the index was read from, even if a newer index has been renamed over it.
        let file = match &index.file {
            Some(file) => file.clone(),
            None => Arc::new(std::fs::File::open(path).map_err(|e| io(path, "cannot open", e))?),
        };
        // Most of a read of a hundred megabytes is the kernel's copy into fresh pages: two
        // threads read a half each.
        let half = bytes.len() / 2;
        let (head, tail) = bytes.split_at_mut(half);
        let at = index.applied_at + start;
        let (a, b) = rayon::join(
            || file.read_exact_at(head, at),
            || file.read_exact_at(tail, at + half as u64),
        );
        a.and(b).map_err(|e| io(path, "cannot read", e))?;
        tracing::debug!(bytes = bytes.len(), "applied section read");
        Ok(Section {
            index,
            start,
            bytes,
        })
    }

    /// The applied submission of generation `i` (an index into the generations, within the
    /// range read), checked against its CRC.
    pub fn decode(&self, codec: &Codec, i: usize) -> Result<Arc<SubmissionApplied>> {
        decoded(&self.index.path, codec, self.message(i)?)
    }

    /// The message of generation `i` (within the range read), checked against its CRC.
    fn message(&self, i: usize) -> Result<&[u8]> {
        let path = &self.index.path;
        let g = &self.index.meta.generations[i];
        let message = g
            .bytes
            .0
            .checked_sub(self.start)
            .and_then(|from| {
                self.bytes
                    .get(from as usize..(g.bytes.1 - self.start) as usize)
            })
            .ok_or_else(|| {
                io(
                    path,
                    "damaged",
                    format!("generation {} is not where it says", g.generation),
                )
            })?;
        if crc32fast::hash(message) != g.crc {
            return Err(io(path, "damaged", format!("generation {}", g.generation)));
        }
        Ok(message)
    }
}

/// The applied submission of an index's message (`path` names the index in errors).
fn decoded(path: &Path, codec: &Codec, message: &[u8]) -> Result<Arc<SubmissionApplied>> {
    match codec.decode(message) {
        Ok(Event::SubmissionApplied(a)) => Ok(Arc::new(a)),
        Ok(other) => Err(io(path, "damaged", other.event_type().to_string())),
        Err(e) => Err(io(path, "damaged", e)),
    }
}

/// Where the applied submissions of some generations come from: their messages (the file's
/// applied section, or what a build has just written when this process built the index: the
/// first replay of a log does not read back what it has just written), decoded one by one; or
/// the submissions decoded already, when several moments are read at once.
pub(super) enum Applied<'i> {
    Messages(Messages<'i>, &'i Path, Codec),
    /// The submissions of the range opened, and the first one's index.
    Decoded(&'i [Arc<SubmissionApplied>], usize),
}

/// The messages of some generations.
pub(super) enum Messages<'i> {
    Read(Section<'i>),
    /// The messages of the range opened, and the first one's index.
    Built(&'i [Vec<u8>], usize),
}

impl<'i> Applied<'i> {
    /// The applied submissions of generations `range` (indices into the generations).
    pub fn open(index: &'i Index, range: std::ops::Range<usize>) -> Result<Applied<'i>> {
        let first = range.start;
        if let Some(decoded) = &index.decoded {
            let opened = decoded.get(range).ok_or(ReplayError::NoGenerations)?;
            return Ok(Applied::Decoded(opened, first));
        }
        let messages = match &index.built {
            Some(built) => {
                Messages::Built(built.get(range).ok_or(ReplayError::NoGenerations)?, first)
            }
            None => Messages::Read(Section::read(index, range)?),
        };
        Ok(Applied::Messages(messages, &index.path, Codec::new()?))
    }

    /// The applied submission of generation `i`, within the range opened.
    pub fn get(&self, i: usize) -> Result<Arc<SubmissionApplied>> {
        match self {
            Applied::Messages(messages, path, codec) => decoded(path, codec, messages.message(i)?),
            Applied::Decoded(opened, first) => i
                .checked_sub(*first)
                .and_then(|at| opened.get(at))
                .cloned()
                .ok_or_else(|| ReplayError::NoGenerations.into()),
        }
    }
}

impl Messages<'_> {
    /// The message of generation `i`, within the range opened.
    fn message(&self, i: usize) -> Result<&[u8]> {
        match self {
            Messages::Read(section) => section.message(i),
            Messages::Built(opened, first) => i
                .checked_sub(*first)
                .and_then(|at| opened.get(at))
                .map(Vec::as_slice)
                .ok_or_else(|| ReplayError::NoGenerations.into()),
        }
    }
}

/// The applied submissions of generations `range`, decoded in parallel.
pub(super) fn applied(
    index: &Index,
    range: std::ops::Range<usize>,
) -> Result<Vec<Arc<SubmissionApplied>>> {
    let applied = Applied::open(index, range.clone())?;
    range.into_par_iter().map(|i| applied.get(i)).collect()
}

/// Every partition's positions: the count, then (offset, timestamp) as varints of their
/// differences from the record before (zig-zag for timestamps, which may go back).
fn encode_records(records: &[Vec<(u64, i64)>]) -> Vec<u8> {
    let mut out = Vec::new();
    for partition in records {
        varint(&mut out, partition.len() as u64);
        let (mut offset, mut ms) = (0u64, 0i64);
        for &(o, t) in partition {
            varint(&mut out, o.wrapping_sub(offset));
            let d = t.wrapping_sub(ms);
            varint(&mut out, ((d << 1) ^ (d >> 63)) as u64);
            (offset, ms) = (o, t);
        }
    }
    out
}

fn decode_records(mut bytes: &[u8], partitions: usize) -> Option<Vec<Vec<(u64, i64)>>> {
    let mut out = Vec::with_capacity(partitions);
    for _ in 0..partitions {
        let count = read_varint(&mut bytes)?;
        let mut partition = Vec::with_capacity(count.min(1 << 24) as usize);
        let (mut offset, mut ms) = (0u64, 0i64);
        for _ in 0..count {
            offset = offset.wrapping_add(read_varint(&mut bytes)?);
            let z = read_varint(&mut bytes)?;
            ms = ms.wrapping_add(((z >> 1) as i64) ^ -((z & 1) as i64));
            partition.push((offset, ms));
        }
        out.push(partition);
    }
    bytes.is_empty().then_some(out)
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_positions_read_back_whatever_their_timestamps() {
        let records = vec![
            vec![
                (0, 1_700_000_000_000),
                (1, 1_700_000_000_005),
                (5, 1_699_999_999_000),
            ],
            vec![],
            vec![(3, i64::MIN), (u64::MAX, i64::MAX)],
        ];
        let bytes = encode_records(&records);
        assert_eq!(decode_records(&bytes, 3), Some(records));
        assert_eq!(decode_records(&bytes[..bytes.len() - 1], 3), None);
    }
}
