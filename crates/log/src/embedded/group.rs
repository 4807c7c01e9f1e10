//! Consumer groups of the embedded log: one active consumer per group, committed positions in
//! a small text file replaced atomically.

use std::collections::BTreeMap;
use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::{debug, instrument};

use super::{GROUPS_DIR, Inner, LOCK_FILE, Stream, check_name, open_lock_file, write_atomically};
use crate::{Consumer, Error, Position, Record, Result};

/// Committed positions file, in the group directory.
const POSITIONS_FILE: &str = "positions";
/// First line of the positions file.
const POSITIONS_HEADER: &str = "simpairs-log positions 1";
/// First wait of an idle poll.
const POLL_BACKOFF_MIN: Duration = Duration::from_micros(250);
/// Longest wait of an idle poll before looking at the files again: bounds how late a record
/// appended by another process is seen.
const POLL_BACKOFF_MAX: Duration = Duration::from_millis(2);

/// A consumer of the embedded log.
pub(super) struct GroupConsumer {
    inner: Arc<Inner>,
    group: String,
    positions_path: PathBuf,
    /// Held locked while the consumer lives; closing it releases the lock.
    _lock: File,
    assigned: Vec<Assigned>,
    /// Where the next poll starts, so every partition gets its turn.
    next: usize,
    committed: BTreeMap<(String, u32), u64>,
}

/// A partition read by the consumer.
struct Assigned {
    stream: Arc<Stream>,
    partition: u32,
    position: u64,
}

impl GroupConsumer {
    #[instrument(skip(inner), fields(dir = %inner.dir.display()))]
    pub fn open(inner: Arc<Inner>, group: &str, streams: &[&str]) -> Result<Self> {
        check_name("consumer group", group)?;
        if streams.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "consumer group \"{group}\" was given no stream to read"
            )));
        }
        let dir = inner.dir.join(GROUPS_DIR).join(group);
        fs::create_dir_all(&dir).map_err(Error::io("create the consumer group directory", &dir))?;
        let lock_path = dir.join(LOCK_FILE);
        let lock = open_lock_file(&lock_path)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(Error::GroupBusy {
                    group: group.to_owned(),
                    path: lock_path,
                });
            }
            Err(TryLockError::Error(e)) => return Err(Error::io("lock", lock_path)(e)),
        }
        let positions_path = positions_path(&dir);
        let committed = read_positions(&positions_path)?;
        let mut assigned = Vec::new();
        let mut seen = Vec::new();
        for &name in streams {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            let stream = inner.stream(name)?;
            for partition in 0..stream.config.partitions {
                let position = committed
                    .get(&(name.to_owned(), partition))
                    .copied()
                    .unwrap_or(0);
                assigned.push(Assigned {
                    stream: stream.clone(),
                    partition,
                    position,
                });
            }
        }
        debug!(partitions = assigned.len(), "consumer ready");
        Ok(GroupConsumer {
            inner,
            group: group.to_owned(),
            positions_path,
            _lock: lock,
            assigned,
            next: 0,
            committed,
        })
    }

    /// Reads what is there now, up to `max` records, partitions in turn.
    fn fetch(&mut self, max: usize) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        let count = self.assigned.len();
        for k in 0..count {
            let i = (self.next + k) % count;
            let a = &mut self.assigned[i];
            let records = match a
                .stream
                .part(a.partition)
                .and_then(|part| part.read(a.position, max - out.len()))
            {
                Ok(records) => records,
                // Deliver what was read (positions have moved past it); the error comes back
                // on the next poll, which starts with this partition.
                Err(_) if !out.is_empty() => {
                    self.next = i;
                    return Ok(out);
                }
                Err(e) => return Err(e),
            };
            if let Some(last) = records.last() {
                a.position = last.offset + 1;
            }
            out.extend(records);
            if out.len() >= max {
                // Start after this partition next time.
                self.next = (i + 1) % count;
                return Ok(out);
            }
        }
        self.next = (self.next + 1) % count.max(1);
        Ok(out)
    }

    fn assigned_mut(&mut self, stream: &str, partition: u32) -> Result<&mut Assigned> {
        let group = &self.group;
        self.assigned
            .iter_mut()
            .find(|a| a.stream.name == stream && a.partition == partition)
            .ok_or_else(|| Error::NotAssigned {
                group: group.clone(),
                stream: stream.to_owned(),
                partition,
            })
    }
}

impl Consumer for GroupConsumer {
    fn poll(&mut self, max: usize, timeout: Duration) -> Result<Vec<Record>> {
        if max == 0 {
            return Ok(Vec::new());
        }
        let started = Instant::now();
        let mut backoff = POLL_BACKOFF_MIN;
        loop {
            let seen = self.inner.wakeup.generation();
            let records = self.fetch(max)?;
            let waited = started.elapsed();
            if !records.is_empty() || waited >= timeout {
                return Ok(records);
            }
            self.inner.wakeup.wait(seen, backoff.min(timeout - waited));
            backoff = (backoff * 2).min(POLL_BACKOFF_MAX);
        }
    }

    fn commit(&mut self, positions: &[Position]) -> Result<()> {
        if positions.is_empty() {
            return Ok(());
        }
        let mut committed = self.committed.clone();
        for p in positions {
            self.inner.stream(&p.stream)?.part(p.partition)?;
            committed.insert((p.stream.clone(), p.partition), p.next_offset);
        }
        write_atomically(
            &self.positions_path,
            positions_text(&committed).as_bytes(),
            self.inner.options.fsync,
        )?;
        self.committed = committed;
        Ok(())
    }

    fn committed(&self, stream: &str, partition: u32) -> Result<Option<u64>> {
        self.inner.stream(stream)?.part(partition)?;
        Ok(self.committed.get(&(stream.to_owned(), partition)).copied())
    }

    fn seek(&mut self, stream: &str, partition: u32, offset: u64) -> Result<()> {
        self.assigned_mut(stream, partition)?.position = offset;
        Ok(())
    }

    fn assignment(&self) -> Result<Vec<(String, u32)>> {
        // The embedded log has one consumer per group: it is assigned everything.
        Ok(self
            .assigned
            .iter()
            .map(|a| (a.stream.name.clone(), a.partition))
            .collect())
    }
}

/// The text of a positions file.
fn positions_text(committed: &BTreeMap<(String, u32), u64>) -> String {
    let mut text = format!("{POSITIONS_HEADER}\n");
    for ((stream, partition), next_offset) in committed {
        text.push_str(&format!("{stream} {partition} {next_offset}\n"));
    }
    text
}

/// The positions file of a group directory.
pub(super) fn positions_path(group_dir: &Path) -> PathBuf {
    group_dir.join(POSITIONS_FILE)
}

/// Reads a positions file; empty if there is none.
pub(super) fn read_positions(path: &Path) -> Result<BTreeMap<(String, u32), u64>> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(Error::io("read the committed positions", path)(e)),
    };
    let bad = |line: usize, reason: String| Error::BadMetadata {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    if !matches!(lines.next(), Some((_, POSITIONS_HEADER))) {
        return Err(bad(
            1,
            format!("the file should start with \"{POSITIONS_HEADER}\""),
        ));
    }
    let mut committed = BTreeMap::new();
    for (n, line) in lines {
        let fields: Vec<&str> = line.split(' ').collect();
        let [stream, partition, next_offset] = fields[..] else {
            return Err(bad(
                n,
                format!("expected \"stream partition next-offset\", found \"{line}\""),
            ));
        };
        let partition = partition
            .parse()
            .map_err(|_| bad(n, format!("\"{partition}\" is not a partition number")))?;
        let next_offset = next_offset
            .parse()
            .map_err(|_| bad(n, format!("\"{next_offset}\" is not an offset")))?;
        committed.insert((stream.to_owned(), partition), next_offset);
    }
    Ok(committed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(POSITIONS_FILE);
        assert!(read_positions(&path).unwrap().is_empty());
        let mut committed = BTreeMap::new();
        committed.insert(("results".to_owned(), 0), 17);
        committed.insert(("results".to_owned(), 3), 0);
        committed.insert(("board-scores".to_owned(), 1), u64::MAX);
        write_atomically(&path, positions_text(&committed).as_bytes(), false).unwrap();
        assert_eq!(read_positions(&path).unwrap(), committed);

        fs::write(&path, format!("{POSITIONS_HEADER}\nresults 0 seventeen\n")).unwrap();
        let err = read_positions(&path).unwrap_err().to_string();
        assert!(
            err.ends_with("line 2: \"seventeen\" is not an offset"),
            "{err}"
        );
    }
}
