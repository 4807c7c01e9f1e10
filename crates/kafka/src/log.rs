//! [`KafkaLog`]: the [`Log`] trait over a Kafka cluster.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::consumer::{BaseConsumer, Consumer as _, ConsumerContext};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::{ClientContext, Message, Offset, TopicPartitionList};

use simpairs_log::{Consumer, Error, Kind, Log, Produce, Record, StreamConfig, partition_for_key};

use crate::client::{Role, block_on, check_build_supports, client_config};
use crate::config::{KafkaConfig, Transactions};
use crate::consumer::KafkaConsumer;
use crate::error::{backend, backend_with, describe, describe_code, failed, is_transient, kind_of};
use crate::producer::{Appender, Started, lock};
use crate::{DeliveryMode, Result};

/// Pause between metadata checks while a new topic appears.
const METADATA_RETRY: Duration = Duration::from_millis(50);
/// The least time a `read` waits for records it knows exist.
const MIN_READ_WAIT: Duration = Duration::from_secs(10);
/// The topic named in the transaction probe's offset commit when the cluster has none.
const TRANSACTION_PROBE_TOPIC: &str = "simpairs-transaction-probe";
/// Longest single wait inside `read`'s poll loop.
const READ_POLL_SLICE: Duration = Duration::from_millis(100);

/// Callbacks of the admin and reader clients: errors are logged, not printed.
pub(crate) struct QuietContext {
    pub(crate) role: &'static str,
}

impl ClientContext for QuietContext {
    fn error(&self, error: KafkaError, reason: &str) {
        if matches!(
            error.rdkafka_error_code(),
            Some(RDKafkaErrorCode::PartitionEOF)
        ) {
            return;
        }
        tracing::warn!(target: "simpairs_kafka", client = self.role, error = %describe(&error), reason, "kafka client");
    }
}

impl ConsumerContext for QuietContext {}

/// The group-less consumer behind `read`, and where it stands.
struct Reader {
    consumer: BaseConsumer<QuietContext>,
    /// `(topic, partition, next offset)` when the consumer is still assigned there, fetching
    /// ahead, because the last read stopped before the end of the partition.
    at: Option<(String, u32, u64)>,
}

impl Reader {
    /// Assigns the consumer to the partition at `from`.
    fn start_at(&self, stream: &str, partition: u32, from: u64) -> Result<()> {
        let mut assignment = TopicPartitionList::new();
        assignment
            .add_partition_offset(stream, partition as i32, Offset::Offset(from as i64))
            .and_then(|()| self.consumer.assign(&assignment))
            .map_err(|e| {
                failed(
                    format!("could not start reading topic \"{stream}\" partition {partition} at offset {from}"),
                    &e,
                )
            })
    }
}

/// The simpairs event log on a Kafka cluster (Apache Kafka, Redpanda, Tansu, ...).
///
/// One `KafkaLog` holds one admin client, one producer (created at the first append) and one
/// group-less consumer for [`Log::read`]; each [`Log::consumer`] call makes a new group
/// consumer. It is `Send + Sync`; share it in an `Arc`. All calls block. Appends from several
/// threads run concurrently through the one producer (one at a time in the transactional mode);
/// reads take turns on the one reading consumer.
pub struct KafkaLog {
    config: KafkaConfig,
    admin: AdminClient<QuietContext>,
    reader: Mutex<Reader>,
    appender: Mutex<Option<Arc<Appender>>>,
    transactions_supported: Mutex<Option<bool>>,
    partitions: Mutex<HashMap<String, u32>>,
    transactional_id: String,
}

impl std::fmt::Debug for KafkaLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KafkaLog")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl KafkaLog {
    /// Creates the clients. No request is sent yet: an unreachable cluster shows up as an error
    /// of the first call that needs it (after [`KafkaConfig::request_timeout`] or
    /// [`KafkaConfig::message_timeout`]). Fails at once when the settings are inconsistent or ask
    /// for TLS/SCRAM that this build lacks.
    pub fn connect(config: KafkaConfig) -> Result<KafkaLog> {
        config.validate()?;
        check_build_supports(&config)?;
        let admin = client_config(&config, Role::Admin)?
            .create_with_context(QuietContext { role: "admin" })
            .map_err(|e| {
                backend(format!(
                    "could not create the admin client for {}: {}",
                    config.location(),
                    describe(&e)
                ))
            })?;
        let reader = client_config(&config, Role::Reader)?
            .create_with_context(QuietContext { role: "reader" })
            .map_err(|e| {
                backend(format!(
                    "could not create the reading consumer for {}: {}",
                    config.location(),
                    describe(&e)
                ))
            })?;
        let transactional_id = config
            .transactional_id
            .clone()
            .unwrap_or_else(|| unique_id(&config.client_id));
        Ok(KafkaLog {
            config,
            admin,
            reader: Mutex::new(Reader {
                consumer: reader,
                at: None,
            }),
            appender: Mutex::new(None),
            transactions_supported: Mutex::new(None),
            partitions: Mutex::new(HashMap::new()),
            transactional_id,
        })
    }

    /// [`KafkaLog::connect`] with [`KafkaConfig::from_location_and_env`].
    pub fn open(location: &str) -> Result<KafkaLog> {
        KafkaLog::connect(KafkaConfig::from_location_and_env(location)?)
    }

    /// The settings in use.
    pub fn config(&self) -> &KafkaConfig {
        &self.config
    }

    /// Whether the brokers support Kafka transactions (KIP-98), found out once (by the first
    /// append or here) and remembered: a transaction holding only an offset commit of a
    /// throwaway group is begun and aborted, so no record is written. Apache Kafka and the mock
    /// cluster support them; Tansu 0.6 does not (it accepts `init_transactions` but has no
    /// EndTxn). An error means it could not be told (brokers unreachable, not authorized).
    pub fn supports_transactions(&self) -> Result<bool> {
        if let Some(known) = *lock(&self.transactions_supported) {
            return Ok(known);
        }
        let probe_id = unique_id(&format!("{}-probe", self.config.client_id));
        let topic = self.any_topic()?;
        let supported = match Appender::start(&self.config, Some(&probe_id), &topic)? {
            Started::Ready(_) => true,
            Started::NoTransactions(why) => {
                tracing::info!(target: "simpairs_kafka", brokers = %self.config.location(), reason = %why, "the brokers do not support transactions");
                false
            }
        };
        *lock(&self.transactions_supported) = Some(supported);
        Ok(supported)
    }

    /// A topic for the transaction probe's offset commit: any user topic, or a fixed name.
    fn any_topic(&self) -> Result<String> {
        let metadata = self
            .admin
            .inner()
            .fetch_metadata(None, self.config.request_timeout)
            .map_err(|e| {
                failed(
                    format!("could not read the metadata of {}", self.config.location()),
                    &e,
                )
            })?;
        Ok(metadata
            .topics()
            .iter()
            .map(|t| t.name())
            .find(|name| !name.starts_with("__"))
            .unwrap_or(TRANSACTION_PROBE_TOPIC)
            .to_string())
    }

    /// How appends are delivered: decided at the first append (or here) from
    /// [`KafkaConfig::transactions`] and what the brokers support.
    pub fn delivery_mode(&self) -> Result<DeliveryMode> {
        let topic = self.any_topic()?;
        Ok(self.appender(&topic)?.mode())
    }

    /// A consumer in `group` reading every partition of `streams` (the concrete type behind
    /// [`Log::consumer`], with [`KafkaConsumer::assignment`]).
    pub fn group_consumer(&self, group: &str, streams: &[&str]) -> Result<KafkaConsumer> {
        let partitions = self.consumer_streams(group, streams)?;
        KafkaConsumer::subscribe(&self.config, group, partitions)
    }

    /// A consumer reading every partition of `streams` alone, committing to `group` (see
    /// [`Log::solo_consumer`]).
    pub fn solo_consumer(&self, group: &str, streams: &[&str]) -> Result<KafkaConsumer> {
        let partitions = self.consumer_streams(group, streams)?;
        KafkaConsumer::assign_all(&self.config, group, partitions)
    }

    /// Checks a consumer's group and streams; the streams with their partition counts.
    fn consumer_streams(&self, group: &str, streams: &[&str]) -> Result<Vec<(String, u32)>> {
        if group.is_empty() {
            return Err(Error::InvalidName {
                what: "consumer group",
                name: group.to_string(),
                reason: "it is empty",
            });
        }
        if streams.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "consumer group \"{group}\": give at least one stream to read"
            )));
        }
        let mut partitions = Vec::new();
        for stream in streams {
            partitions.push((stream.to_string(), self.partitions(stream)?));
        }
        Ok(partitions)
    }

    /// The producer, made (and its delivery mode decided) on first use and again after a fatal
    /// error.
    fn appender(&self, probe_topic: &str) -> Result<Arc<Appender>> {
        let mut slot = lock(&self.appender);
        if let Some(appender) = slot.as_ref() {
            match appender.fatal_error() {
                None => return Ok(Arc::clone(appender)),
                Some(fatal) => {
                    tracing::warn!(target: "simpairs_kafka", error = %fatal, "replacing the kafka producer after a fatal error");
                    *slot = None;
                }
            }
        }
        let known = *lock(&self.transactions_supported);
        let want_transactions = match self.config.transactions {
            Transactions::Off => false,
            Transactions::Auto => known != Some(false),
            Transactions::Required => {
                if known == Some(false) {
                    return Err(self.no_transactions("an earlier probe found no support"));
                }
                true
            }
        };
        let started = if want_transactions {
            match Appender::start(&self.config, Some(&self.transactional_id), probe_topic) {
                Ok(Started::Ready(appender)) => {
                    *lock(&self.transactions_supported) = Some(true);
                    appender
                }
                Ok(Started::NoTransactions(why)) => {
                    *lock(&self.transactions_supported) = Some(false);
                    if self.config.transactions == Transactions::Required {
                        return Err(self.no_transactions(&why));
                    }
                    tracing::info!(target: "simpairs_kafka", brokers = %self.config.location(), reason = %why,
                        "the brokers do not support transactions: appends use the idempotent producer (at-least-once)");
                    self.start_idempotent()?
                }
                Err(e) if self.config.transactions == Transactions::Auto => {
                    tracing::warn!(target: "simpairs_kafka", brokers = %self.config.location(), error = %e,
                        "could not use transactions: appends use the idempotent producer (at-least-once)");
                    self.start_idempotent()?
                }
                Err(e) => return Err(e),
            }
        } else {
            self.start_idempotent()?
        };
        let appender = Arc::new(started);
        *slot = Some(Arc::clone(&appender));
        Ok(appender)
    }

    fn start_idempotent(&self) -> Result<Appender> {
        match Appender::start(&self.config, None, TRANSACTION_PROBE_TOPIC)? {
            Started::Ready(appender) => Ok(appender),
            Started::NoTransactions(why) => Err(backend(why)),
        }
    }

    fn no_transactions(&self, why: &str) -> Error {
        backend(format!(
            "transactions are required (SIMPAIRS_KAFKA_TRANSACTIONS=required) but the brokers at {} do not support them: {why}",
            self.config.location()
        ))
    }

    /// The partition count of a topic from the brokers' metadata; `None` when it does not exist.
    fn topic_partitions(&self, topic: &str) -> Result<Option<u32>> {
        let deadline = Instant::now() + self.config.request_timeout;
        loop {
            let metadata = self
                .admin
                .inner()
                .fetch_metadata(Some(topic), self.config.request_timeout)
                .map_err(|e| {
                    failed(
                        format!(
                            "could not read the metadata of topic \"{topic}\" from {}",
                            self.config.location()
                        ),
                        &e,
                    )
                })?;
            let found = metadata.topics().iter().find(|t| t.name() == topic);
            let transient = match found {
                None => return Ok(None),
                Some(t) => match t.error().map(RDKafkaErrorCode::from) {
                    Some(RDKafkaErrorCode::UnknownTopicOrPartition) => return Ok(None),
                    None if !t.partitions().is_empty() => {
                        return Ok(Some(t.partitions().len() as u32));
                    }
                    // Being created: no partitions or no leader yet.
                    None | Some(RDKafkaErrorCode::LeaderNotAvailable) => None,
                    Some(code) => Some(code),
                },
            };
            if let Some(code) = transient {
                return Err(backend_with(
                    format!(
                        "the metadata of topic \"{topic}\" from {} reports an error: {}",
                        self.config.location(),
                        describe_code(code)
                    ),
                    kind_of(&KafkaError::MetadataFetch(code)),
                ));
            }
            if Instant::now() >= deadline {
                return Err(backend_with(
                    format!(
                        "topic \"{topic}\" at {} has no partitions with a leader after {:.1} s",
                        self.config.location(),
                        self.config.request_timeout.as_secs_f64()
                    ),
                    Kind::Retriable,
                ));
            }
            thread::sleep(METADATA_RETRY);
        }
    }

    fn check_partition(&self, stream: &str, partition: u32) -> Result<()> {
        let partitions = self.partitions(stream)?;
        if partition >= partitions {
            return Err(Error::UnknownPartition {
                stream: stream.to_string(),
                partition,
                partitions,
            });
        }
        Ok(())
    }

    /// The low and high watermarks, retried while leaders move or connections come back.
    fn watermarks(&self, stream: &str, partition: u32) -> Result<(u64, u64)> {
        let deadline = Instant::now() + self.config.request_timeout;
        loop {
            match self.admin.inner().fetch_watermarks(
                stream,
                partition as i32,
                self.config.request_timeout,
            ) {
                Ok((low, high)) => return Ok((low.max(0) as u64, high.max(0) as u64)),
                Err(e)
                    if e.rdkafka_error_code().is_some_and(is_transient)
                        && Instant::now() + METADATA_RETRY < deadline =>
                {
                    thread::sleep(METADATA_RETRY);
                }
                Err(e) => {
                    return Err(failed(
                        format!(
                            "could not read the offsets of topic \"{stream}\" partition {partition} from {}",
                            self.config.location()
                        ),
                        &e,
                    ));
                }
            }
        }
    }
}

impl Log for KafkaLog {
    /// Creates the topic (CreateTopics with [`KafkaConfig::replication_factor`],
    /// `cleanup.policy=compact` when compacted, `retention.ms` when a retention is set, and
    /// `retention.ms=-1` for a stream kept forever) and waits
    /// until its metadata shows every partition. An existing topic with the same partition count
    /// is left as it is.
    fn create_stream(&self, name: &str, config: &StreamConfig) -> Result<()> {
        check_topic_name(name)?;
        if config.partitions == 0 || config.partitions > i32::MAX as u32 {
            return Err(Error::InvalidArgument(format!(
                "stream \"{name}\": {} partitions is not a usable count",
                config.partitions
            )));
        }
        let compare = |existing: u32| -> Result<()> {
            if existing == config.partitions {
                lock(&self.partitions).insert(name.to_string(), existing);
                Ok(())
            } else {
                Err(Error::StreamExists {
                    stream: name.to_string(),
                    existing,
                    requested: config.partitions,
                })
            }
        };
        if let Some(existing) = self.topic_partitions(name)? {
            return compare(existing);
        }
        let retention = config
            .retention
            .map(|r| r.as_millis().min(i64::MAX as u128).to_string());
        let mut topic = NewTopic::new(
            name,
            config.partitions as i32,
            TopicReplication::Fixed(self.config.replication_factor),
        );
        match (config.compacted, &retention) {
            (true, None) => topic = topic.set("cleanup.policy", "compact"),
            (true, Some(ms)) => {
                topic = topic
                    .set("cleanup.policy", "compact,delete")
                    .set("retention.ms", ms);
            }
            (false, Some(ms)) => topic = topic.set("retention.ms", ms),
            // Kept forever, as the trait promises: not the brokers' default retention (7 days on
            // Apache Kafka), which would delete an event's results, the source of truth.
            (false, None) => topic = topic.set("retention.ms", "-1"),
        }
        let options = AdminOptions::new()
            .request_timeout(Some(self.config.request_timeout))
            .operation_timeout(Some(self.config.request_timeout));
        let results = block_on(self.admin.create_topics([&topic], &options)).map_err(|e| {
            failed(
                format!(
                    "could not create topic \"{name}\" at {}",
                    self.config.location()
                ),
                &e,
            )
        })?;
        for result in results {
            match result {
                Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
                Err((_, code)) => {
                    return Err(backend(format!(
                        "could not create topic \"{name}\" with {} partition(s) and replication factor {} at {}: {}",
                        config.partitions,
                        self.config.replication_factor,
                        self.config.location(),
                        describe_code(code)
                    )));
                }
            }
        }
        let deadline = Instant::now() + self.config.request_timeout;
        loop {
            match self.topic_partitions(name)? {
                Some(existing) => return compare(existing),
                None if Instant::now() < deadline => thread::sleep(METADATA_RETRY),
                None => {
                    return Err(backend(format!(
                        "topic \"{name}\" was created at {} but its metadata does not show it after {:.1} s",
                        self.config.location(),
                        self.config.request_timeout.as_secs_f64()
                    )));
                }
            }
        }
    }

    fn partitions(&self, stream: &str) -> Result<u32> {
        if let Some(&n) = lock(&self.partitions).get(stream) {
            return Ok(n);
        }
        match self.topic_partitions(stream)? {
            Some(n) => {
                lock(&self.partitions).insert(stream.to_string(), n);
                Ok(n)
            }
            None => Err(Error::UnknownStream {
                stream: stream.to_string(),
            }),
        }
    }

    /// Places every record (its partition, or [`partition_for_key`] of its key), sends them all
    /// through the idempotent producer (inside one transaction in the transactional mode) and
    /// returns once the brokers acknowledged every one (`acks=all`), with the offsets from the
    /// delivery reports.
    fn append(&self, stream: &str, records: &[Produce<'_>]) -> Result<Vec<(u32, u64)>> {
        if records.is_empty() {
            return Ok(Vec::new());
        }
        let partitions = self.partitions(stream)?;
        let mut placed = Vec::with_capacity(records.len());
        for r in records {
            let partition = r
                .partition
                .unwrap_or_else(|| partition_for_key(r.key, partitions));
            if partition >= partitions {
                return Err(Error::UnknownPartition {
                    stream: stream.to_string(),
                    partition,
                    partitions,
                });
            }
            placed.push((partition, *r));
        }
        let appender = self.appender(stream)?;
        let result = appender.append(stream, &placed);
        if result.is_err()
            && let Some(fatal) = appender.fatal_error()
        {
            lock(&self.appender).take();
            return result.map_err(|e| {
                backend(format!(
                    "{}; the producer had a fatal error and will be replaced: {fatal}",
                    strip(e)
                ))
            });
        }
        result
    }

    /// Reads with a group-less consumer assigned to the partition at `from`, until `max`
    /// records, the high watermark (last stable offset) or the end of the partition.
    fn read(&self, stream: &str, partition: u32, from: u64, max: usize) -> Result<Vec<Record>> {
        self.check_partition(stream, partition)?;
        let (low, high) = self.watermarks(stream, partition)?;
        if from < low || from > high {
            return Err(Error::OffsetOutOfRange {
                stream: stream.to_string(),
                partition,
                offset: from,
                start: low,
                end: high,
            });
        }
        if from == high || max == 0 {
            return Ok(Vec::new());
        }
        let want_end = high.min(from.saturating_add(max as u64));
        let mut reader = lock(&self.reader);
        // A read that starts where the last one stopped (a scan in chunks) carries on with what
        // the consumer has already fetched; any other starts a new assignment.
        let continuing = reader
            .at
            .as_ref()
            .is_some_and(|(t, p, o)| t == stream && *p == partition && *o == from);
        reader.at = None;
        if !continuing {
            reader.start_at(stream, partition, from)?;
        }
        let patience = self.config.request_timeout.max(MIN_READ_WAIT);
        let deadline = Instant::now() + patience;
        let mut records: Vec<Record> = Vec::new();
        let mut last_error: Option<String> = None;
        let mut at_end = false;
        let outcome = loop {
            let now = Instant::now();
            if now >= deadline {
                break if records.is_empty() {
                    let last = last_error
                        .as_deref()
                        .map(|e| format!(" (last error: {e})"))
                        .unwrap_or_default();
                    Err(backend(format!(
                        "reading topic \"{stream}\" partition {partition} from offset {from}: no record arrived within {:.1} s although the partition ends at {high}{last}",
                        patience.as_secs_f64()
                    )))
                } else {
                    at_end = true; // stop the fetcher; the next read starts afresh
                    Ok(())
                };
            }
            match reader.consumer.poll((deadline - now).min(READ_POLL_SLICE)) {
                None => {}
                Some(Ok(m)) => {
                    if m.topic() != stream || m.partition() != partition as i32 {
                        continue;
                    }
                    let offset = m.offset().max(0) as u64;
                    if offset < from {
                        continue;
                    }
                    records.push(crate::consumer::to_record(&m));
                    // Stop right after a record, so that the next record in the consumer's
                    // queue is the one a read continuing from here wants first.
                    if records.len() >= max || offset + 1 >= want_end {
                        break Ok(());
                    }
                }
                Some(Err(KafkaError::PartitionEOF(p))) if p == partition as i32 => {
                    at_end = true;
                    break Ok(());
                }
                Some(Err(KafkaError::PartitionEOF(_))) => {}
                Some(Err(e)) if e.rdkafka_error_code().is_some_and(is_transient) => {
                    // Connections and leaders come back by themselves: keep waiting.
                    last_error = Some(describe(&e));
                }
                Some(Err(e)) => {
                    break Err(failed(
                        format!(
                            "reading topic \"{stream}\" partition {partition} from offset {from}"
                        ),
                        &e,
                    ));
                }
            }
        };
        if outcome.is_ok() && !at_end {
            let next = records.last().map_or(from, |r| r.offset + 1);
            reader.at = Some((stream.to_string(), partition, next));
        } else if let Err(e) = reader.consumer.unassign() {
            // At the end (or after an error) the fetcher stops, so an idle log costs nothing.
            tracing::debug!(target: "simpairs_kafka", error = %describe(&e), "unassigning the reader");
        }
        outcome.map(|()| records)
    }

    /// The partition's high watermark (with transactions: its last stable offset). With
    /// transactions, commit markers take offsets too, so this can be more than one past the last
    /// record's offset.
    fn end_offset(&self, stream: &str, partition: u32) -> Result<u64> {
        self.check_partition(stream, partition)?;
        Ok(self.watermarks(stream, partition)?.1)
    }

    fn consumer(&self, group: &str, streams: &[&str]) -> Result<Box<dyn Consumer>> {
        Ok(Box::new(self.group_consumer(group, streams)?))
    }

    fn solo_consumer(&self, group: &str, streams: &[&str]) -> Result<Box<dyn Consumer>> {
        Ok(Box::new(KafkaLog::solo_consumer(self, group, streams)?))
    }
}

/// The message of a backend error, to add words to it.
fn strip(e: Error) -> String {
    match e {
        Error::Backend { message, .. } => message,
        other => other.to_string(),
    }
}

/// Kafka's topic name rules: 1-249 of letters, digits, `.`, `_`, `-`; not `.` or `..`.
fn check_topic_name(name: &str) -> Result<()> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else if name.len() > 249 {
        Some("Kafka topic names have at most 249 characters")
    } else if name == "." || name == ".." {
        Some("Kafka does not allow \".\" or \"..\" as a topic name")
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        Some("Kafka topic names use only letters, digits, '.', '_' and '-'")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(Error::InvalidName {
            what: "stream",
            name: name.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

/// An id no other process uses: `<prefix>-<pid>-<time>-<counter>`.
fn unique_id(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "{prefix}-{}-{nanos:x}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names() {
        for ok in ["results", "ev-1.results", "a_b"] {
            check_topic_name(ok).unwrap();
        }
        for bad in ["", ".", "..", "a b", "a/b", &"x".repeat(250)] {
            assert!(matches!(
                check_topic_name(bad),
                Err(Error::InvalidName { .. })
            ));
        }
    }

    #[test]
    fn ids_are_unique() {
        assert_ne!(unique_id("x"), unique_id("x"));
    }
}
