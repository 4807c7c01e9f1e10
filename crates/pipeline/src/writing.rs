//! A batch's output derived and written on threads of their own while the aggregator reads, stages
//! and judges the next batch: its applied submissions first, then its board scores and clubs'
//! standings, derived meanwhile ([`crate::derive`]), and its dead letters, each stream's records
//! with the seals that vouch for them ([`crate::output::append_sealed`]). The batch's input
//! position is committed only once all of its output is durable ([`Writing::wait`]), and the next
//! batch's output is written only after that, so the streams hold the batches in order.
//!
//! Writing (encoding, hashing every record for its seal, the append and its sync) was a third of
//! a batch's time on one core while the other was idle; on its own threads it overlaps the next
//! batch's reading and judging. Deriving (the national boards and the clubs' own fields scored)
//! was another third, done before the next batch was read; it now overlaps it too, at the lowest
//! priority, so that it takes the cores only when the judging leaves them idle.

use std::sync::Arc;
use std::thread::JoinHandle;

use simpairs_events::{Codec, Event, PrivateKey, Stream};
use simpairs_log::{Log, Position};

use crate::output::{Encoded, Sealed};
use crate::{Error, Result, stream_name};

/// What a writing thread needs: where to write, and the key that seals it.
#[derive(Clone)]
pub(crate) struct Writer {
    pub(crate) log: Arc<dyn Log>,
    pub(crate) key: PrivateKey,
    pub(crate) event_id: String,
    /// The low-priority threads the records are encoded on ([`crate::background`]).
    pub(crate) pool: Option<Arc<rayon::ThreadPool>>,
}

/// A batch's output being derived and written, and the input positions to commit once it is
/// durable; `T` is what the deriving kept, given back when it is.
pub(crate) struct Writing<T> {
    thread: JoinHandle<Result<T>>,
    positions: Vec<Position>,
    /// When the batch's work began.
    started: std::time::Instant,
}

/// A thread writing a batch's applied submissions (already encoded); none when it has none.
#[derive(Default)]
pub(crate) struct AppliedWriting(Option<JoinHandle<Result<()>>>);

/// What a batch derived, to write after its applied submissions.
#[derive(Default)]
pub(crate) struct Derived {
    pub(crate) scores: Vec<Event>,
    pub(crate) standings: Vec<Event>,
    pub(crate) dead: Vec<Event>,
}

impl Writer {
    /// Starts writing a batch's applied submissions to the board-scores stream (the projection
    /// ranks the national field from them, so they go first, while the rest is derived).
    pub(crate) fn applied(&self, encoded: Vec<Encoded>) -> AppliedWriting {
        if encoded.is_empty() {
            return AppliedWriting(None);
        }
        let writer = self.clone();
        // At the normal priority, not on the low-priority threads: the leaderboard waits for
        // these.
        AppliedWriting(Some(std::thread::spawn(move || {
            let codec = Codec::new()?;
            crate::output::append_sealed(
                writer.log.as_ref(),
                &codec,
                &writer.key,
                &writer.event_id,
                &stream_name(&writer.event_id, Stream::BoardScores),
                &encoded,
            )
        })))
    }

    /// Derives the rest of a batch with `derive` and writes it once its applied submissions are
    /// written; `positions` are committed when [`Writing::wait`] finds all of it durable, which
    /// also gives back what `derive` kept.
    pub(crate) fn rest<T: Send + 'static>(
        &self,
        applied: AppliedWriting,
        derive: impl FnOnce() -> Result<(Derived, T)> + Send + 'static,
        positions: Vec<Position>,
        started: std::time::Instant,
    ) -> Writing<T> {
        let writer = self.clone();
        let thread = std::thread::spawn(move || {
            let (derived, kept) = derive()?;
            if let Some(applied) = applied.0 {
                applied
                    .join()
                    .map_err(|_| Error::Stopped("writing the applied submissions"))??;
            }
            let codec = Codec::new()?;
            let Derived {
                scores,
                standings,
                dead,
            } = derived;
            writer.append(&codec, Stream::BoardScores, scores)?;
            writer.append(&codec, Stream::Leaderboard, standings)?;
            writer.append(&codec, Stream::DeadLetter, dead)?;
            Ok(kept)
        });
        Writing {
            thread,
            positions,
            started,
        }
    }

    fn append(&self, codec: &Codec, stream: Stream, events: Vec<Event>) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        // Encoded in parallel: a club's board scores and standings are many events.
        let encoded: Vec<Encoded> = crate::background::install(self.pool.as_deref(), || {
            use rayon::prelude::*;
            events
                .par_iter()
                .map(|e| (e.partition_key(), None, codec.encode(e)))
                .collect()
        });
        drop(events);
        self.append_encoded(codec, &stream_name(&self.event_id, stream), &encoded)
    }

    fn append_encoded(&self, codec: &Codec, stream: &str, encoded: &[Encoded]) -> Result<()> {
        let partitions = self.log.partitions(stream)?;
        let sealed = crate::background::install(self.pool.as_deref(), || {
            Sealed::new(
                codec,
                &self.key,
                &self.event_id,
                stream,
                partitions,
                encoded,
            )
        });
        // Appended from this thread, at the normal priority: the append holds the partition's lock
        // while the disk flushes, and the projection's leaderboard, appended to the same stream,
        // waits for it. A low-priority thread would then wait for a core behind the ranking,
        // with the lock held.
        sealed.append(self.log.as_ref())
    }
}

impl<T> Writing<T> {
    /// Waits until the batch's output is durable: then its input positions may be committed.
    /// Returns them, the time since the batch's work began, and what the deriving kept.
    pub(crate) fn wait(self) -> Result<(Vec<Position>, std::time::Duration, T)> {
        let kept = self
            .thread
            .join()
            .map_err(|_| Error::Stopped("writing the aggregator's output"))??;
        Ok((self.positions, self.started.elapsed(), kept))
    }
}
