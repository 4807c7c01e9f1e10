//! A batch's output derived and written on threads of their own while the aggregator reads, stages
//! and judges the batches after it ([`Output`]): its applied submissions first, then its board
//! scores, derived meanwhile ([`crate::derive`]), beside its clubs' standings and its dead letters
//! (other streams, synced at the same time), each stream's records with the seals that vouch for
//! them ([`crate::output::append_sealed`]). A batch's
//! input position is committed only once all of its output is durable, and the batches are
//! written one at a time, in order, so the streams hold them in order.
//!
//! Writing (encoding, hashing every record for its seal, the append and its sync) was a third of
//! a batch's time on one core while the other was idle; on its own threads it overlaps the next
//! batch's reading and judging. Deriving (the national boards and the clubs' own fields scored)
//! was another third, done before the next batch was read; it now overlaps it too, at the lowest
//! priority, so that it takes the cores only when the judging leaves them idle.
//!
//! Two batches may wait for the writing thread, so that the aggregator judges on while a batch's
//! output is derived or waits for the disk: handing over each batch only once the one before was
//! durable kept it waiting a fifth of its time (docs/benchmarks.md, 2026-12-04).

use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use simpairs_events::{Codec, Event, PrivateKey, Stream};
use simpairs_log::{Log, Position};

use crate::derive::{Derivation, Touched};
use crate::output::{Encoded, Sealed};
use crate::{Error, Result, stream_name};

/// What a writing thread needs: where to write, how to encode, and the key that seals it.
#[derive(Clone)]
pub(crate) struct Writer {
    pub(crate) log: Arc<dyn Log>,
    pub(crate) codec: Arc<Codec>,
    pub(crate) key: PrivateKey,
    pub(crate) event_id: String,
    /// The low-priority threads the records are encoded on ([`crate::background`]).
    pub(crate) pool: Option<Arc<rayon::ThreadPool>>,
}

/// A batch's output, handed to the writing thread: its applied submissions (already encoded),
/// the clubs whose fields it changed, its dead letters, and the input positions to commit once
/// all of it is durable. `tag` is given back then.
pub(crate) struct Job<R> {
    pub(crate) applied: Vec<Encoded>,
    pub(crate) touched: Touched,
    pub(crate) dead: Vec<Event>,
    pub(crate) positions: Vec<Position>,
    pub(crate) tag: R,
}

/// A batch whose output is durable: its input positions may be committed.
pub(crate) struct Durable<R> {
    pub(crate) positions: Vec<Position>,
    /// From the start of the batch's work until its output was durable.
    pub(crate) elapsed: Duration,
    /// Results in the national field with the batch's.
    pub(crate) results: usize,
    pub(crate) tag: R,
}

/// The thread that derives and writes the batches handed to it, one at a time and in order.
/// [`WAITING`] batches wait for it at most: handing over another waits until the thread takes one.
pub(crate) struct Output<R> {
    jobs: Option<mpsc::SyncSender<Job<R>>>,
    durable: mpsc::Receiver<Result<Durable<R>>>,
    thread: JoinHandle<Option<Derivation>>,
    /// Batches handed over and not yet reported durable.
    in_flight: usize,
}

impl<R: Send + 'static> Output<R> {
    /// Starts the writing thread, which keeps `derivation` (the national field) until
    /// [`Output::finish`].
    pub(crate) fn start(writer: Writer, derivation: Derivation) -> Output<R> {
        let (jobs, to_do) = mpsc::sync_channel(WAITING);
        let (tell, durable) = mpsc::channel();
        let thread = std::thread::spawn(move || writer.work(derivation, to_do, tell));
        Output {
            jobs: Some(jobs),
            durable,
            thread,
            in_flight: 0,
        }
    }

    /// Batches handed over whose output is not yet durable.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Hands a batch's output over, waiting while [`WAITING`] batches wait for the thread.
    pub(crate) fn hand(&mut self, job: Job<R>) -> Result<()> {
        // A job the thread did not take is dropped: the thread's error says why.
        let sent = self.jobs.as_ref().map(|jobs| jobs.send(job).is_ok());
        match sent {
            Some(true) => {
                self.in_flight += 1;
                Ok(())
            }
            _ => Err(self.failure()),
        }
    }

    /// Why the thread stopped taking batches: the error it reported after the batches it wrote
    /// (whose positions are then not committed: their output is derived again on the next start).
    fn failure(&mut self) -> Error {
        self.jobs = None;
        self.durable
            .try_iter()
            .find_map(Result::err)
            .unwrap_or(Error::Stopped(WRITING))
    }

    /// The next batch whose output is durable, if one is by now.
    pub(crate) fn durable_now(&mut self) -> Result<Option<Durable<R>>> {
        match self.durable.try_recv() {
            Ok(durable) => self.received(durable).map(Some),
            Err(mpsc::TryRecvError::Empty) => Ok(None),
            Err(mpsc::TryRecvError::Disconnected) => Err(self.failure()),
        }
    }

    /// The next batch whose output is durable, waiting for it; there must be one in flight.
    pub(crate) fn next_durable(&mut self) -> Result<Durable<R>> {
        match self.durable.recv() {
            Ok(durable) => self.received(durable),
            Err(mpsc::RecvError) => Err(self.failure()),
        }
    }

    fn received(&mut self, durable: Result<Durable<R>>) -> Result<Durable<R>> {
        self.in_flight = self.in_flight.saturating_sub(1);
        durable
    }

    /// Hands over nothing more and waits for the batches handed over: each durable one (or the
    /// error that stopped the thread), in order, and the derivation, unless an error lost it.
    pub(crate) fn finish(self) -> (Vec<Result<Durable<R>>>, Option<Derivation>) {
        let Output {
            jobs,
            durable,
            thread,
            ..
        } = self;
        drop(jobs);
        let derivation = thread.join().ok().flatten();
        (durable.try_iter().collect(), derivation)
    }
}

/// How many batches may wait for the writing thread, each with its applied submissions encoded and
/// its clubs' fields (about 7 MB a batch of the bench's national field). With one, ingest ran about
/// 6% slower; with four, 2% quicker, within the noise, holding 4 bytes a result more
/// (docs/benchmarks.md, 2026-12-04).
const WAITING: usize = 2;

/// What [`Error::Stopped`] names when the writing thread stopped.
const WRITING: &str = "writing the aggregator's output";

impl Writer {
    /// The writing thread: each batch handed over derived and written, and reported. Stops at
    /// the first error, which loses the derivation (the aggregator rebuilds it from the log).
    fn work<R>(
        self,
        mut derivation: Derivation,
        to_do: mpsc::Receiver<Job<R>>,
        tell: mpsc::Sender<Result<Durable<R>>>,
    ) -> Option<Derivation> {
        for job in to_do {
            let written = self.write(&mut derivation, job);
            let failed = written.is_err();
            if tell.send(written).is_err() || failed {
                return None;
            }
        }
        Some(derivation)
    }

    /// Writes a batch's applied submissions (the projection ranks the national field from them,
    /// so they go first) while the rest is derived, then the rest.
    fn write<R>(&self, derivation: &mut Derivation, job: Job<R>) -> Result<Durable<R>> {
        let started = job.touched.started;
        let applied = self.applied(job.applied);
        let (scores, standings) = if job.touched.fields.is_empty() {
            Default::default()
        } else {
            derivation.derive(job.touched)?
        };
        if let Some(applied) = applied {
            applied
                .join()
                .map_err(|_| Error::Stopped("writing the applied submissions"))??;
        }
        // The streams are files of their own: the board scores are made durable while the
        // standings and dead letters are, each stream's syncs waiting for its own disk writes only.
        let scores_written = std::thread::scope(|scope| {
            let written = scope.spawn(|| self.append(Stream::BoardScores, scores));
            self.append(Stream::Leaderboard, standings)?;
            self.append(Stream::DeadLetter, job.dead)?;
            written
                .join()
                .map_err(|_| Error::Stopped("writing the board scores"))
        })?;
        scores_written?;
        Ok(Durable {
            positions: job.positions,
            elapsed: started.elapsed(),
            results: derivation.results(),
            tag: job.tag,
        })
    }

    /// Starts writing a batch's applied submissions to the board-scores stream on a thread of
    /// their own; none when it has none.
    fn applied(&self, encoded: Vec<Encoded>) -> Option<JoinHandle<Result<()>>> {
        if encoded.is_empty() {
            return None;
        }
        let writer = self.clone();
        // At the normal priority, not on the low-priority threads: the leaderboard waits for
        // these.
        Some(std::thread::spawn(move || {
            crate::output::append_sealed(
                writer.log.as_ref(),
                &writer.codec,
                &writer.key,
                &writer.event_id,
                &stream_name(&writer.event_id, Stream::BoardScores),
                &encoded,
            )
        }))
    }

    fn append(&self, stream: Stream, events: Vec<Event>) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        // Encoded in parallel: a club's board scores and standings are many events.
        let encoded: Vec<Encoded> = crate::background::install(self.pool.as_deref(), || {
            use rayon::prelude::*;
            events
                .par_iter()
                .map(|e| (e.partition_key(), None, self.codec.encode(e)))
                .collect()
        });
        drop(events);
        self.append_encoded(&stream_name(&self.event_id, stream), &encoded)
    }

    fn append_encoded(&self, stream: &str, encoded: &[Encoded]) -> Result<()> {
        let partitions = self.log.partitions(stream)?;
        let sealed = crate::background::install(self.pool.as_deref(), || {
            Sealed::new(
                &self.codec,
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
