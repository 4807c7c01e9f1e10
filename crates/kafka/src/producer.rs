//! Appending: one idempotent (or transactional) producer per [`KafkaLog`](crate::KafkaLog),
//! delivery reports routed back to the call that sent each record.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use rdkafka::Message;
use rdkafka::consumer::{BaseConsumer, Consumer as _};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{BaseRecord, DeliveryResult, Producer, ProducerContext, ThreadedProducer};
use rdkafka::{ClientContext, Offset, TopicPartitionList};

use simpairs_log::{Kind, Produce};

use crate::client::{Role, client_config};
use crate::config::KafkaConfig;
use crate::error::{backend, backend_with, caused, describe, describe_code, is_retriable_code};
use crate::{DeliveryMode, Result};

/// How long past `message.timeout.ms` an append waits for delivery reports before it gives up
/// on librdkafka (which promises one report per record within that timeout).
const REPORT_GRACE: Duration = Duration::from_secs(30);
/// Pause before retrying a record the producer's full queue refused.
const QUEUE_FULL_PAUSE: Duration = Duration::from_millis(2);

/// Failed records by the client's message: how many, their partitions, the error code.
type Failures = BTreeMap<String, (usize, Vec<u32>, Option<RDKafkaErrorCode>)>;

/// Where each delivered record was placed, and the failures of the others.
fn tally(
    outcomes: Vec<Option<Outcome>>,
    records: &[(u32, Produce<'_>)],
) -> (Vec<(u32, u64)>, Failures) {
    let mut placed = Vec::with_capacity(records.len());
    let mut failures: Failures = BTreeMap::new();
    for (outcome, (partition, _)) in outcomes.into_iter().zip(records) {
        match outcome {
            Some(Ok(at)) => placed.push(at),
            Some(Err(f)) => {
                let entry = failures.entry(f.text).or_insert((0, Vec::new(), f.code));
                entry.0 += 1;
                if !entry.1.contains(partition) {
                    entry.1.push(*partition);
                }
            }
            None => {
                let entry = failures
                    .entry("no delivery report from the client".to_string())
                    .or_insert((0, Vec::new(), None));
                entry.0 += 1;
            }
        }
    }
    (placed, failures)
}

/// Whether an append that failed may succeed if made again: nothing was refused outright, and
/// every record that failed did so with a code that may pass (a record without a report ran out
/// of time).
fn append_kind(refused: Option<&(usize, String)>, failures: &Failures) -> Kind {
    let passing = refused.is_none()
        && failures
            .values()
            .all(|(_, _, code)| code.is_none_or(is_retriable_code));
    if passing {
        Kind::Retriable
    } else {
        Kind::Fatal
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The outcome of one record: where it landed, or why not.
type Outcome = std::result::Result<(u32, u64), Failure>;

#[derive(Clone, Debug)]
struct Failure {
    code: Option<RDKafkaErrorCode>,
    text: String,
}

/// The records of one append call, waiting for their delivery reports.
struct Batch {
    state: Mutex<BatchState>,
    done: Condvar,
}

struct BatchState {
    outcomes: Vec<Option<Outcome>>,
    remaining: usize,
}

impl Batch {
    fn new(len: usize) -> Self {
        Batch {
            state: Mutex::new(BatchState {
                outcomes: vec![None; len],
                remaining: len,
            }),
            done: Condvar::new(),
        }
    }

    fn complete(&self, index: usize, outcome: Outcome) {
        let mut state = lock(&self.state);
        if let Some(slot) = state.outcomes.get_mut(index)
            && slot.is_none()
        {
            *slot = Some(outcome);
            state.remaining -= 1;
            if state.remaining == 0 {
                self.done.notify_all();
            }
        }
    }

    /// Waits until every record has its outcome or the deadline passes.
    fn wait(&self, deadline: Instant) -> Vec<Option<Outcome>> {
        let mut state = lock(&self.state);
        while state.remaining > 0 {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            state = self
                .done
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        state.outcomes.clone()
    }
}

/// Which record of which batch a delivery report is for.
pub(crate) struct Slot {
    batch: Arc<Batch>,
    index: usize,
}

/// The producer's callbacks: delivery reports go to their batch; client-wide errors are logged
/// and kept for error messages.
pub(crate) struct DeliveryContext {
    last_error: Mutex<Option<String>>,
}

impl ClientContext for DeliveryContext {
    fn error(&self, error: KafkaError, reason: &str) {
        tracing::warn!(target: "simpairs_kafka", error = %describe(&error), reason, "kafka producer");
        *lock(&self.last_error) = Some(if reason.is_empty() {
            describe(&error)
        } else {
            reason.to_string()
        });
    }
}

impl ProducerContext for DeliveryContext {
    type DeliveryOpaque = Box<Slot>;

    fn delivery(&self, result: &DeliveryResult<'_>, slot: Box<Slot>) {
        let outcome = match result {
            Ok(m) => Ok((m.partition().max(0) as u32, m.offset().max(0) as u64)),
            Err((e, _)) => Err(Failure {
                code: e.rdkafka_error_code(),
                text: describe(e),
            }),
        };
        slot.batch.complete(slot.index, outcome);
    }
}

/// The producer of a [`KafkaLog`](crate::KafkaLog).
pub(crate) struct Appender {
    producer: ThreadedProducer<DeliveryContext>,
    mode: DeliveryMode,
    /// A transactional producer runs one transaction at a time. `true`: the last transaction
    /// failed and could not be aborted yet (the abort is resumed before the next one begins).
    transaction: Mutex<bool>,
    message_timeout: Duration,
    brokers: String,
}

/// What `Appender::start` found.
pub(crate) enum Started {
    Ready(Appender),
    /// The brokers do not support transactions (the text says why).
    NoTransactions(String),
}

impl Appender {
    /// An idempotent producer, or, with `transactional_id`, a transactional one that has
    /// proved the brokers support transactions (see [`Appender::probe`]).
    pub(crate) fn start(
        config: &KafkaConfig,
        transactional_id: Option<&str>,
        probe_topic: &str,
    ) -> Result<Started> {
        let settings = client_config(config, Role::Producer { transactional_id })?;
        let context = DeliveryContext {
            last_error: Mutex::new(None),
        };
        let producer: ThreadedProducer<DeliveryContext> =
            settings.create_with_context(context).map_err(|e| {
                backend(format!(
                    "could not create the producer for {}: {}",
                    config.location(),
                    describe(&e)
                ))
            })?;
        let mode = if transactional_id.is_some() {
            if let Some(why) = Appender::probe(&producer, config, probe_topic)? {
                return Ok(Started::NoTransactions(why));
            }
            DeliveryMode::Transactional
        } else {
            DeliveryMode::Idempotent
        };
        Ok(Started::Ready(Appender {
            producer,
            mode,
            transaction: Mutex::new(false),
            message_timeout: config.message_timeout,
            brokers: config.location(),
        }))
    }

    /// Finds out whether the brokers support transactions, without writing a record: runs
    /// `init_transactions`, then a transaction holding only an offset commit (of a throwaway
    /// group, for partition 0 of `topic`), and aborts it. That exercises every request a
    /// transaction needs (InitProducerId, AddOffsetsToTxn, TxnOffsetCommit, EndTxn); `init`
    /// alone is not enough: Tansu 0.6 accepts it but has no EndTxn, and a record produced in a
    /// transaction there stays "uncommitted" for `read_committed` readers forever.
    ///
    /// `Ok(None)`: supported, and the producer is ready for transactions. `Ok(Some(why))`: the
    /// brokers said they do not support something. `Err`: could not tell (unreachable, not
    /// authorized, ...).
    fn probe(
        producer: &ThreadedProducer<DeliveryContext>,
        config: &KafkaConfig,
        topic: &str,
    ) -> Result<Option<String>> {
        let timeout = config.message_timeout;
        let unsupported = |e: &KafkaError| match e {
            KafkaError::Transaction(rd) => {
                rd.code() == RDKafkaErrorCode::UnsupportedFeature
                    || rd.code() == RDKafkaErrorCode::UnsupportedVersion
                    || rd.string().contains("not supported")
            }
            other => matches!(
                other.rdkafka_error_code(),
                Some(RDKafkaErrorCode::UnsupportedFeature | RDKafkaErrorCode::UnsupportedVersion)
            ),
        };
        let fail = |step: &str, e: &KafkaError| -> Result<Option<String>> {
            if unsupported(e) {
                return Ok(Some(format!("{step}: {}", describe(e))));
            }
            Err(backend(format!(
                "could not find out whether the brokers at {} support transactions ({step}): {}{}",
                config.location(),
                describe(e),
                last_error_suffix(producer)
            )))
        };
        if let Err(e) = producer.init_transactions(timeout) {
            return fail("init_transactions", &e);
        }
        let group = format!("{}-transaction-probe", config.client_id);
        let probe_consumer: BaseConsumer = client_config(config, Role::Group { group: &group })?
            .create()
            .map_err(|e| {
                backend(format!(
                    "could not create the transaction probe: {}",
                    describe(&e)
                ))
            })?;
        let Some(metadata) = probe_consumer.group_metadata() else {
            return Err(backend(
                "could not create the transaction probe: no group metadata",
            ));
        };
        if let Err(e) = producer.begin_transaction() {
            return fail("begin_transaction", &e);
        }
        let mut offsets = TopicPartitionList::new();
        offsets
            .add_partition_offset(topic, 0, Offset::Offset(0))
            .map_err(|e| {
                backend(format!(
                    "could not create the transaction probe: {}",
                    describe(&e)
                ))
            })?;
        if let Err(e) = producer.send_offsets_to_transaction(&offsets, &metadata, timeout) {
            let _ = producer.abort_transaction(timeout);
            return fail("send_offsets_to_transaction", &e);
        }
        if let Err(e) = producer.abort_transaction(timeout) {
            return fail("abort_transaction", &e);
        }
        Ok(None)
    }

    pub(crate) fn mode(&self) -> DeliveryMode {
        self.mode
    }

    /// The producer's fatal error, if it has had one: it must then be replaced.
    pub(crate) fn fatal_error(&self) -> Option<String> {
        self.producer
            .client()
            .fatal_error()
            .map(|(code, text)| format!("{text} ({})", describe_code(code)))
    }

    /// Sends `records` (each with its partition) to `topic` and waits until the brokers have
    /// acknowledged every one (and, in a transaction, until it is committed).
    pub(crate) fn append(
        &self,
        topic: &str,
        records: &[(u32, Produce<'_>)],
    ) -> Result<Vec<(u32, u64)>> {
        let mut one_transaction = self.begin(topic)?;
        let started = Instant::now();
        let batch = Arc::new(Batch::new(records.len()));
        let refused = self.send_all(topic, records, &batch, started);
        let outcomes = batch.wait(started + self.message_timeout + REPORT_GRACE);
        let (placed, failures) = tally(outcomes, records);
        if refused.is_none() && failures.is_empty() {
            if let Some(pending) = one_transaction.as_mut() {
                self.commit(topic, pending)?;
            }
            return Ok(placed);
        }
        let message = self.failure_message(
            topic,
            records.len(),
            refused.as_ref(),
            &failures,
            one_transaction.as_mut(),
        );
        Err(backend_with(
            message,
            append_kind(refused.as_ref(), &failures),
        ))
    }

    /// In transactional mode, begins the append's transaction (aborting first one an earlier
    /// append left open); the guard says whether it is left to abort.
    fn begin(&self, topic: &str) -> Result<Option<MutexGuard<'_, bool>>> {
        Ok(match self.mode {
            DeliveryMode::Transactional => {
                let mut guard = lock(&self.transaction);
                if *guard {
                    self.producer
                        .abort_transaction(self.message_timeout)
                        .map_err(|e| {
                            caused(
                                format!(
                                    "appending to topic \"{topic}\": the previous append's transaction still cannot be aborted: {}.{}",
                                    describe(&e),
                                    last_error_suffix(&self.producer)
                                ),
                                &e,
                            )
                        })?;
                    *guard = false;
                }
                self.producer.begin_transaction().map_err(|e| {
                    caused(
                        format!(
                            "appending to topic \"{topic}\": could not begin a transaction: {}",
                            describe(&e)
                        ),
                        &e,
                    )
                })?;
                Some(guard)
            }
            DeliveryMode::Idempotent => None,
        })
    }

    /// Hands every record to the client, waiting while its queue is full; returns the record it
    /// refused (and why), after which nothing is sent: those records are reported "not sent".
    fn send_all(
        &self,
        topic: &str,
        records: &[(u32, Produce<'_>)],
        batch: &Arc<Batch>,
        started: Instant,
    ) -> Option<(usize, String)> {
        let mut refused: Option<(usize, String)> = None;
        for (index, (partition, r)) in records.iter().enumerate() {
            let slot = Box::new(Slot {
                batch: Arc::clone(batch),
                index,
            });
            let mut record = BaseRecord::with_opaque_to(topic, slot)
                .partition(*partition as i32)
                .key(r.key)
                .payload(r.value)
                .timestamp(r.timestamp_ms);
            loop {
                match self.producer.send(record) {
                    Ok(()) => break,
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back))
                        if started.elapsed() < self.message_timeout =>
                    {
                        record = back;
                        thread::sleep(QUEUE_FULL_PAUSE);
                    }
                    Err((e, _)) => {
                        refused = Some((index, describe(&e)));
                        break;
                    }
                }
            }
            if refused.is_some() {
                break;
            }
        }
        if let Some((index, _)) = &refused {
            for i in *index..records.len() {
                batch.complete(
                    i,
                    Err(Failure {
                        code: None,
                        text: "not sent".to_string(),
                    }),
                );
            }
        }
        refused
    }

    /// What failed in an append, and what it means for its records (aborting its transaction).
    fn failure_message(
        &self,
        topic: &str,
        records: usize,
        refused: Option<&(usize, String)>,
        failures: &Failures,
        pending_abort: Option<&mut MutexGuard<'_, bool>>,
    ) -> String {
        let mut message = format!(
            "appending {} record(s) to topic \"{topic}\" at {} failed:",
            records, self.brokers
        );
        if let Some((index, why)) = refused {
            let _ = write!(
                message,
                " the producer refused record {} of the append ({why});",
                index + 1
            );
        }
        for (text, (count, partitions, code)) in failures {
            if text == "not sent" {
                continue;
            }
            let mut partitions = partitions.clone();
            partitions.sort_unstable();
            if *code == Some(RDKafkaErrorCode::MessageTimedOut) {
                let _ = write!(
                    message,
                    " the broker did not acknowledge {count} record(s) for partition(s) {partitions:?} within {:.1} s ({text});",
                    self.message_timeout.as_secs_f64()
                );
            } else {
                let _ = write!(
                    message,
                    " {count} record(s) for partition(s) {partitions:?}: {text};"
                );
            }
        }
        message.push_str(&last_error_suffix(&self.producer));
        match self.mode {
            DeliveryMode::Transactional => {
                match self.producer.abort_transaction(self.message_timeout) {
                    Ok(()) => message.push_str(
                        " The transaction was aborted: no record of this append is visible to \
                         read_committed consumers; appending again is safe.",
                    ),
                    Err(e) => {
                        if let Some(pending) = pending_abort {
                            **pending = true;
                        }
                        let _ = write!(
                            message,
                            " The transaction could not be aborted yet ({}); the next append \
                             aborts it first. Its records never become visible to \
                             read_committed consumers; appending again is safe.",
                            describe(&e)
                        );
                    }
                }
            }
            DeliveryMode::Idempotent => message.push_str(
                " Some records of this append may have been written; appending them again may \
                 store them twice, which consumers that ignore already-applied records (every \
                 simpairs event has a stable identity) absorb.",
            ),
        }
        message
    }

    /// Commits the open transaction; on failure aborts it, or marks it in `pending_abort` for
    /// the next append to abort.
    fn commit(&self, topic: &str, pending_abort: &mut bool) -> Result<()> {
        let deadline = Instant::now() + self.message_timeout;
        loop {
            let error = match self.producer.commit_transaction(self.message_timeout) {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            let retriable = matches!(&error, KafkaError::Transaction(rd) if rd.is_retriable());
            if retriable && Instant::now() < deadline {
                continue; // resumes the same commit
            }
            let mut message = format!(
                "appending to topic \"{topic}\": committing the transaction failed: {}",
                describe(&error)
            );
            match self.producer.abort_transaction(self.message_timeout) {
                Ok(()) => message.push_str(
                    "; the transaction was aborted, so none of its records is visible to \
                     read_committed consumers; appending again is safe",
                ),
                Err(e) => {
                    *pending_abort = true;
                    let _ = write!(
                        message,
                        "; aborting it failed too ({}), the next append tries again; whether \
                         its records become visible is not known, so consumers must ignore \
                         records they have already applied",
                        describe(&e)
                    );
                }
            }
            message.push_str(&last_error_suffix(&self.producer));
            return Err(caused(message, &error));
        }
    }
}

fn last_error_suffix(producer: &ThreadedProducer<DeliveryContext>) -> String {
    match lock(&producer.context().last_error).as_deref() {
        Some(last) => format!(" Last client error: {last}."),
        None => String::new(),
    }
}
