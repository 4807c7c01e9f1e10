//! A replay of the whole log kept in memory and read on as the log grows: what a reader that runs
//! for the whole event holds (the website's director listing), instead of judging every seal
//! again from the first record at each reading (seconds of CPU on a national event, beside the
//! aggregator and the projection).
//!
//! Reading on gives what a replay from the first record gives, because records handled in other
//! batches have the same effects (`tests/state_batches.rs`). Replay reads the partitions one
//! after the other, so only records appended to the last partition are read on; records in an
//! earlier one, a change to the declarations (an amendment, a key revoked) or a log that is not
//! the one read (shorter) have it replayed from the first record again.

use simpairs_events::{Codec, Stream};
use simpairs_log::Log;

use super::{Reader, Replay};
use crate::{Result, stream_name};

/// The whole log replayed, and how far it was read.
#[derive(Debug)]
pub struct Follow {
    event: String,
    /// The results in force kept packed (see [`super::replay_packed`]).
    packed: bool,
    codec: Codec,
    /// The event's results stream.
    results: String,
    replay: Replay,
    /// The declarations stream's end when it was replayed.
    declarations: u64,
    /// Each results partition's end, as far as it was read.
    read: Vec<u64>,
}

impl Follow {
    /// Replays the whole log of `event`.
    pub fn start(log: &dyn Log, event: &str, packed: bool) -> Result<Follow> {
        // The ends are taken first: a record appended meanwhile is read at the next reading.
        let (declarations, ends) = ends(log, event)?;
        let codec = Codec::new()?;
        let replay = Replay::declared(log, &codec, event)?;
        let mut follow = Follow {
            event: event.to_string(),
            packed,
            codec,
            results: stream_name(event, Stream::Results),
            replay,
            declarations,
            read: vec![0; ends.len()],
        };
        for (partition, end) in ends.into_iter().enumerate() {
            follow.read_to(log, partition, end)?;
        }
        Ok(follow)
    }

    /// The replay of everything read so far.
    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    /// Reads the records appended since the last reading, or replays the log from its first
    /// record when reading on would not give what a replay gives (see the module's notes).
    /// Returns whether it read on.
    pub fn read_on(&mut self, log: &dyn Log) -> Result<bool> {
        let (declarations, ends) = ends(log, &self.event)?;
        let last = ends.len().checked_sub(1);
        let reads_on = declarations == self.declarations
            && ends.len() == self.read.len()
            && last.is_some_and(|last| {
                ends[..last] == self.read[..last] && ends[last] >= self.read[last]
            });
        let Some(last) = last.filter(|_| reads_on) else {
            *self = Follow::start(log, &self.event, self.packed)?;
            return Ok(false);
        };
        self.read_to(log, last, ends[last])?;
        Ok(true)
    }

    /// Reads `partition` from where it was read to `end`.
    fn read_to(&mut self, log: &dyn Log, partition: usize, end: u64) -> Result<()> {
        let reader = Reader {
            log,
            codec: &self.codec,
            results: &self.results,
            packed: self.packed,
        };
        reader.read(
            &mut self.replay,
            partition as u32,
            self.read[partition]..end,
            None,
        )?;
        self.read[partition] = end;
        Ok(())
    }
}

/// The declarations stream's end, and each results partition's.
fn ends(log: &dyn Log, event: &str) -> Result<(u64, Vec<u64>)> {
    let declarations = log.end_offset(&stream_name(event, Stream::Declarations), 0)?;
    let results = stream_name(event, Stream::Results);
    let ends = (0..log.partitions(&results)?)
        .map(|p| log.end_offset(&results, p))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok((declarations, ends))
}
