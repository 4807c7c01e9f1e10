//! The aggregator: consumes an event's results stream, applies each submission when its seal checks out
//! ([`crate::state`]), rescores the boards of the national field and the club's own field with the
//! scoring engine (rayon-parallel), and writes what it derived: `SubmissionApplied` and `BoardScored`
//! to the board-scores stream, each club's own `StandingsComputed` to the leaderboard stream,
//! `DeadLettered` for anything set aside.
//!
//! The national pair totals and places are not written here: the projection ranks the national field
//! from the applied submissions ([`crate::project`]). A national standings event has an entry for
//! every pair of the event (hundreds of thousands), and writing and reading one for every new club
//! cost several times the ranking itself.
//!
//! A batch of records (up to [`AggregateOptions::batch`]) goes through these steps, each as parallel
//! as it can be on two cores:
//!
//! 1. read from the log; the records decoded in chunks on a thread of their own (a batch of one
//!    board's results only *skimmed*: its header read and its lines checked, not built,
//!    [`simpairs_events::Codec::skim`]) while the main thread stages them in log order
//!    ([`EventState::stage`]: cheap bookkeeping per submission);
//! 2. the submissions the batch sealed checked together, in parallel ([`EventState::finish`]):
//!    digest, each result built from its message once, as what applies, and checked as a line of a
//!    file is; what passes is encoded as the `SubmissionApplied` to write and packed on the same
//!    thread ([`crate::announce`]), and applied in the order of the seals, kept packed. A club's
//!    first submission leaves the field its checks built (in table order), so the club's field is
//!    not built again;
//! 3. the applied submissions written (the projection ranks from them), then, on threads of the
//!    lowest priority, the national boards and each new club's own field scored and their
//!    `BoardScored` and `StandingsComputed` written ([`crate::derive`]); the position committed.
//!    This step runs on a writing thread of its own, a batch at a time and in order
//!    ([`crate::writing::Output`]), while the next batches go through steps 1 and 2: batches
//!    judged may wait for the thread while the ones after them are read and judged.
//!
//! Nothing is lost and nothing counts twice: the consumer position is committed only after the output
//! of the records before it is durable. On start the aggregator rebuilds its state by reading the
//! results stream up to the committed position (the log is the source of truth), then carries on. If
//! it was killed between writing output and committing, it derives the same output again: readers
//! keep the latest generation of each board and field, so a repeat changes nothing.
//!
//! Several aggregators of one event (`--instance`) are standbys of each other, not shards: each reads
//! every partition (Neuberg's N, the pair totals and the ranks span the whole field), keeps its
//! position in its own group, and publishes everything it derives. Readers keep the latest
//! generation, so two instances give the leaderboard of one, and when one stops the others' output
//! carries on with no hand-over. (Splitting the publishing through a consumer group was tried and
//! dropped: on Tansu a second member's join could loop on "rebalance in progress" for good, leaving
//! boards nobody published.)

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use simpairs_events::types::DeadLettered;
use simpairs_events::{Codec, Event, PrivateKey, Stream};
use simpairs_log::{Log, Position};
use simpairs_scoring::Field;

use crate::announce::Announcement;
use crate::background::Pace;
use crate::derive::{Derivation, Touched, club_fields};
use crate::state::{Batch, Effect, EventState};
use crate::writing::{Durable, Job, Output, Writer};
use crate::{Result, now_ms, stream_name};

/// The prefix of the aggregators' reading groups (`simpairs-aggregator.<event>.<instance>`).
pub(crate) const GROUP: &str = "simpairs-aggregator";

/// How the aggregator runs.
#[derive(Clone, Debug)]
pub struct AggregateOptions {
    /// Stop once the results stream has no more records (instead of waiting for more).
    pub until_idle: bool,
    /// How long a poll waits for new records.
    pub poll_timeout: Duration,
    /// Most records handled in one batch (one rescore, one commit). A batch's records are held
    /// while it is judged and written; 10,000 records (about 100,000 results of a national field in
    /// batches of one board) caught up with a 3.6 M-result field as fast as 20,000 did, at a peak
    /// 40-50 MB lower, and 20,000 as fast as 200,000 in a third of the memory (docs/benchmarks.md).
    pub batch: usize,
    /// This aggregator's name among several of one event: its reading group is
    /// `simpairs-aggregator.<event>.<instance>`, so that a restarted instance resumes where it
    /// stopped.
    pub instance: String,
    /// Set once the aggregator has rebuilt its state from the log and reads new records (for
    /// a caller that waits for it: a benchmark times a new club only from then on).
    pub ready: Option<Arc<AtomicBool>>,
}

impl Default for AggregateOptions {
    fn default() -> Self {
        AggregateOptions {
            until_idle: false,
            poll_timeout: Duration::from_millis(100),
            batch: 10_000,
            instance: "main".into(),
            ready: None,
        }
    }
}

/// What one batch did, for progress displays and latency measurements.
#[derive(Clone, Debug, Default)]
pub struct BatchReport {
    pub generation: i64,
    pub submissions_applied: usize,
    pub dead_letters: usize,
    pub clubs: usize,
    pub results: usize,
    /// Offsets (results stream) of the seals applied in this batch.
    pub seal_offsets: Vec<i64>,
    /// From the batch's records read until its output was durable: its judging, its wait for
    /// the writing thread, and its rescoring and writing.
    pub elapsed: Duration,
}

/// An event's aggregator.
pub struct Aggregator {
    log: Arc<dyn Log>,
    /// Shared with the writing thread ([`crate::writing::Writer`]).
    codec: Arc<Codec>,
    event_id: String,
    state: EventState,
    /// The national field and what was written of it: away on the writing thread while the
    /// aggregator runs ([`crate::writing::Output`]), and `None` if a batch's writing failed.
    derivation: Option<Derivation>,
    /// Threads of the lowest priority for deriving the board scores and clubs' standings (see
    /// [`crate::background`]): once a club's applied submission is written, the projection ranks
    /// the national field from it, and everything else can wait for the leaderboard. The shared
    /// threads if they cannot be made.
    derive_pool: Option<Arc<rayon::ThreadPool>>,
    /// The key its output is sealed with, declared as one of the event's aggregator keys.
    key: PrivateKey,
    /// The end of the declarations stream when the roster was last read.
    declarations_end: u64,
}

impl Aggregator {
    /// Opens the aggregator of `event_id`: reads its declaration and checks that `key` is one of
    /// the event's aggregator keys.
    pub fn open(log: Arc<dyn Log>, event_id: &str, key: PrivateKey) -> Result<Aggregator> {
        let codec = Codec::new()?;
        let roster = crate::publish::roster(log.as_ref(), &codec, event_id)?;
        let id = key.public().id();
        if roster.aggregators.get(&id) != Some(&key.public()) {
            return Err(crate::KeyError::NotAggregators {
                key: id,
                event: event_id.to_string(),
                declared: roster.aggregators.keys().cloned().collect(),
            }
            .into());
        }
        let options = crate::wire::options_from_wire(&roster.declared)?;
        let mut state = EventState::new();
        state.set_roster(roster);
        let declarations = stream_name(event_id, Stream::Declarations);
        let declarations_end = log.end_offset(&declarations, 0)?;
        let derive_pool = crate::background::pool("aggregator").map(Arc::new);
        Ok(Aggregator {
            log,
            codec: Arc::new(codec),
            event_id: event_id.to_string(),
            state,
            derivation: Some(Derivation::new(event_id, options, derive_pool.clone())),
            derive_pool,
            key,
            declarations_end,
        })
    }

    /// Reads the roster again when the declarations stream grew (an amendment: a club added,
    /// a key rotated or revoked, hand records declared).
    fn refresh_roster(&mut self) -> Result<()> {
        let declarations = stream_name(&self.event_id, Stream::Declarations);
        let end = self.log.end_offset(&declarations, 0)?;
        if end == self.declarations_end {
            return Ok(());
        }
        if let Some((roster, _)) =
            crate::roster::Roster::load(self.log.as_ref(), &self.codec, &self.event_id)?
        {
            self.state.set_roster(roster);
        }
        self.declarations_end = end;
        Ok(())
    }

    /// The event's state as applied so far.
    pub fn state(&self) -> &EventState {
        &self.state
    }

    /// Runs until stopped (or, with `until_idle`, until the results stream is drained). `on_batch` hears
    /// about every batch that applied or set aside something.
    pub fn run(
        &mut self,
        options: &AggregateOptions,
        stop: &AtomicBool,
        mut on_batch: impl FnMut(&BatchReport),
    ) -> Result<()> {
        let results = stream_name(&self.event_id, Stream::Results);
        // Every aggregator reads every partition (Neuberg's N and pair totals span the whole field);
        // its own group keeps its position.
        let reader_group = format!("{GROUP}.{}.{}", self.event_id, options.instance);
        let mut consumer = self.log.solo_consumer(&reader_group, &[&results])?;
        self.rebuild_from_log(consumer.as_ref(), &results)?;
        if let Some(ready) = &options.ready {
            ready.store(true, Ordering::Relaxed);
        }
        let derivation = self.derivation.take().ok_or_else(derivation_lost)?;
        let mut output = Output::start(self.writer(), derivation);
        let ran = self.run_batches(options, stop, consumer.as_mut(), &mut output, &mut on_batch);
        // Whatever stopped the batches, the output handed over is written before returning.
        let (rest, derivation) = output.finish();
        self.derivation = derivation;
        ran?;
        for durable in rest {
            self.settle(consumer.as_mut(), durable?, &mut on_batch)?;
        }
        Ok(())
    }

    /// Reads, stages and judges batches, handing each one's output to `output`, and settles
    /// each batch whose output is durable.
    fn run_batches(
        &mut self,
        options: &AggregateOptions,
        stop: &AtomicBool,
        consumer: &mut dyn simpairs_log::Consumer,
        output: &mut Output<BatchReport>,
        on_batch: &mut impl FnMut(&BatchReport),
    ) -> Result<()> {
        while !stop.load(Ordering::Relaxed) {
            while let Some(durable) = output.durable_now()? {
                self.settle(consumer, durable, on_batch)?;
            }
            let polling = Instant::now();
            // While batches' output is being written, only what is already there is read: with
            // nothing new, the next of them is settled (its position committed) before waiting.
            let timeout = match output.in_flight() {
                0 => options.poll_timeout,
                _ => Duration::ZERO,
            };
            let records = consumer.poll(options.batch, timeout)?;
            if records.is_empty() {
                match output.in_flight() {
                    0 if options.until_idle => break,
                    0 => {}
                    _ => self.settle(consumer, output.next_durable()?, on_batch)?,
                }
                continue;
            }
            tracing::debug!(records = records.len(), elapsed = ?polling.elapsed(), "batch polled");
            // A full batch means more are waiting: the aggregator is working through a backlog.
            let pace = if records.len() >= options.batch {
                Pace::Backlog
            } else {
                Pace::Live
            };
            let batch = self.handle(records, pace)?;
            let job = self.output_of(batch)?;
            output.hand(job)?;
        }
        Ok(())
    }

    /// Stages and judges a batch of records: what applied and what was set aside.
    fn handle(&mut self, mut records: Vec<simpairs_log::Record>, pace: Pace) -> Result<Handled> {
        let started = Instant::now();
        // Amendments are appended before the seals that rely on them: read after the poll,
        // the roster knows every key and club the batch's seals can name.
        self.refresh_roster()?;
        let mut batch = Batch::announcing(&self.codec);
        crate::state::stage_overlapped(&mut self.state, &mut batch, &mut records, 0);
        tracing::debug!(elapsed = ?started.elapsed(), "records staged");
        let finished = self.state.finish(batch);
        let announced = finished.announced.into_iter().map(|(_, a)| a).collect();
        let (applied, dead) = self.sort_effects(announced, finished.effects, &records)?;
        tracing::debug!(elapsed = ?started.elapsed(), applied = applied.len(), "records handled");
        Ok(Handled {
            applied,
            dead,
            fields: finished.fields,
            positions: next_positions(&records),
            pace,
            started,
        })
    }

    /// Commits the input positions of a batch whose output is durable and reports it.
    fn settle(
        &mut self,
        consumer: &mut dyn simpairs_log::Consumer,
        durable: Durable<BatchReport>,
        on_batch: &mut impl FnMut(&BatchReport),
    ) -> Result<()> {
        let Durable {
            positions,
            elapsed,
            results,
            tag: mut report,
        } = durable;
        report.results = results;
        report.elapsed = elapsed;
        // A commit that fails is tried again on its own: deriving the batch again would append
        // its output twice.
        commit_with_retries(consumer, &positions)?;
        tracing::debug!(elapsed = ?report.elapsed, "output appended");
        if report.submissions_applied > 0 || report.dead_letters > 0 {
            on_batch(&report);
        }
        Ok(())
    }

    fn writer(&self) -> Writer {
        Writer {
            log: self.log.clone(),
            codec: self.codec.clone(),
            key: self.key.clone(),
            event_id: self.event_id.clone(),
            pool: self.derive_pool.clone(),
        }
    }

    /// Rebuilds the state from the log up to the committed position: the output of those records
    /// is already durable.
    fn rebuild_from_log(
        &mut self,
        consumer: &dyn simpairs_log::Consumer,
        results: &str,
    ) -> Result<()> {
        let partitions = self.log.partitions(results)?;
        let mut rebuilt = false;
        for partition in 0..partitions {
            let committed = consumer.committed(results, partition)?.unwrap_or(0);
            let derivation = self.derivation.as_mut().ok_or_else(derivation_lost)?;
            // In batches: the submissions each completes are checked together, in parallel. Their
            // effects were written before the position was committed.
            crate::state::read_in_batches(
                self.log.as_ref(),
                results,
                partition,
                0..committed,
                &mut self.state,
                Batch::announcing(&self.codec),
                |_| true,
                |state, _, finished| derivation.fold_in(state, finished),
            )?;
            rebuilt |= committed > 0;
        }
        if rebuilt {
            let clubs = self.state.clubs().len();
            tracing::info!(event = %self.event_id, clubs, "state rebuilt from the log");
        }
        Ok(())
    }

    /// A batch's announcements and effects: what applied, and the dead letters of what was set
    /// aside, in record order.
    fn sort_effects(
        &self,
        mut applied: Vec<Announcement>,
        effects: Vec<(usize, Effect)>,
        records: &[simpairs_log::Record],
    ) -> Result<(Vec<Announcement>, Vec<DeadLettered>)> {
        let mut dead = Vec::new();
        for (index, effect) in effects {
            let record = &records[index];
            match effect {
                // An announcing batch lists what applied as announcements; were one given as an
                // effect, it is written all the same.
                Effect::Applied(a) => applied.push(crate::announce::announcement(&self.codec, &a)),
                Effect::DeadLetter { reason } => dead.push(DeadLettered {
                    event_id: Some(self.event_id.clone()),
                    source_stream: record.stream.clone(),
                    source_partition: record.partition as i32,
                    source_offset: record.offset as i64,
                    reason,
                    payload: self.payload(record)?,
                    at_ms: now_ms(),
                }),
            }
        }
        Ok((applied, dead))
    }

    /// The bytes of a record set aside, for its dead letter. Staging took the values of the
    /// records it read (a submission's waiting records keep them until it is judged) instead of
    /// copying every one, so a record whose value was taken is read again from the log: records
    /// set aside are few.
    fn payload(&self, record: &simpairs_log::Record) -> Result<Vec<u8>> {
        if !record.value.is_empty() {
            return Ok(record.value.clone());
        }
        let (stream, partition, offset) = (&record.stream, record.partition, record.offset);
        let again = self.log.read(stream, partition, offset, 1)?;
        again
            .into_iter()
            .find(|r| r.offset == offset)
            .map(|r| r.value)
            .ok_or(crate::Error::Stopped("reading again a record set aside"))
    }

    /// A batch's output for the writing thread ([`crate::writing`]): its applied submissions, the
    /// fields of the clubs they touched (board scores and standings are derived from them there,
    /// while the next batch is read and judged) and its dead letters.
    fn output_of(&mut self, batch: Handled) -> Result<Job<BatchReport>> {
        let Handled {
            applied,
            dead,
            fields,
            positions,
            pace,
            started,
        } = batch;
        let generation = self.state.applied_count();
        let report = BatchReport {
            generation,
            submissions_applied: applied.len(),
            dead_letters: dead.len(),
            seal_offsets: applied.iter().map(|a| a.seal_offset).collect(),
            clubs: self.state.clubs().len(),
            ..BatchReport::default()
        };
        let touched: BTreeSet<String> = applied.iter().map(|a| a.club_id.clone()).collect();
        // The clubs' fields are made now: one rebuilt after a correction reads the state, which
        // the next batch changes.
        let touched = Touched {
            fields: club_fields(&self.state, touched, fields),
            generation,
            pace,
            started,
        };
        for d in &dead {
            tracing::warn!(event = %self.event_id, offset = d.source_offset, "set aside: {}", d.reason);
        }
        Ok(Job {
            applied: self.applied_records(applied)?,
            touched,
            dead: dead.into_iter().map(Event::DeadLettered).collect(),
            positions,
            tag: report,
        })
    }

    /// Applied submissions as records of the board-scores stream: (key, partition, message). Each
    /// has a key of its own, so that compaction keeps all of them, and goes to its club's
    /// partition, so that a club's stay in order. (Their messages were encoded as they were
    /// judged.)
    fn applied_records(&self, applied: Vec<Announcement>) -> Result<Vec<Encoded>> {
        let partitions = self
            .log
            .partitions(&stream_name(&self.event_id, Stream::BoardScores))?;
        let event = &self.event_id;
        let records = applied
            .into_iter()
            .map(|a| {
                let key = format!("{event}/{}/{}", a.club_id, a.submission_id);
                let partition = simpairs_log::partition_for_key(
                    &Event::submission_applied_key(event, &a.club_id),
                    partitions,
                );
                (key.into_bytes(), Some(partition), a.message)
            })
            .collect();
        Ok(records)
    }
}

/// A batch judged: what applied, the dead letters, the fields the checks built, and the input
/// positions after it, with its pace and when its work began.
struct Handled {
    applied: Vec<Announcement>,
    dead: Vec<DeadLettered>,
    fields: HashMap<String, Field>,
    positions: Vec<Position>,
    pace: Pace,
    started: Instant,
}

/// Why an aggregator cannot go on: a batch's writing failed, and the derivation it held was lost
/// with it (the national field is rebuilt from the log when the aggregator starts again).
fn derivation_lost() -> crate::Error {
    crate::Error::Stopped("an earlier batch's output")
}

/// Commits positions, trying again a few times (with growing pauses) before giving up; an error
/// that trying again cannot cure (access refused, a damaged log) is given up on at once.
fn commit_with_retries(
    consumer: &mut dyn simpairs_log::Consumer,
    positions: &[Position],
) -> Result<()> {
    const ATTEMPTS: u32 = 5;
    let mut pause = Duration::from_millis(100);
    let mut attempt = 1;
    loop {
        match consumer.commit(positions) {
            Ok(()) => return Ok(()),
            Err(e) if attempt < ATTEMPTS && e.is_retriable() => {
                tracing::warn!(
                    attempt,
                    "committing the aggregator's position failed, trying again: {e}"
                );
                std::thread::sleep(pause);
                pause *= 2;
                attempt += 1;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

use crate::output::Encoded;

/// The position after the last of `records` in each partition they come from.
fn next_positions(records: &[simpairs_log::Record]) -> Vec<Position> {
    let mut next: BTreeMap<(&str, u32), u64> = BTreeMap::new();
    for r in records {
        let at = next.entry((r.stream.as_str(), r.partition)).or_default();
        *at = (*at).max(r.offset + 1);
    }
    next.into_iter()
        .map(|((stream, partition), next_offset)| Position {
            stream: stream.to_string(),
            partition,
            next_offset,
        })
        .collect()
}
