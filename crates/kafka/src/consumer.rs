//! [`KafkaConsumer`]: a member of a Kafka consumer group behind the [`Consumer`] trait.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer as _, ConsumerContext, RebalanceProtocol,
};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::BorrowedMessage;
use rdkafka::types::RDKafkaRespErr;
use rdkafka::{ClientContext, Message, Offset, TopicPartitionList};

use simpairs_log::{Consumer, Error, Position, Record};

use crate::Result;
use crate::client::{Role, client_config};
use crate::config::KafkaConfig;
use crate::error::{backend, caused, describe, failed};
use crate::producer::lock;

/// Longest single wait inside `poll`, so that the group's state is looked at regularly.
const POLL_SLICE: Duration = Duration::from_millis(100);
/// Pause between attempts to seek a partition whose fetcher is still starting.
const SEEK_RETRY: Duration = Duration::from_millis(20);

type Key = (String, i32);

/// What the rebalance callback and `poll` know about this member's part of the group.
#[derive(Default)]
struct GroupState {
    /// The first assignment has arrived (possibly empty).
    joined: bool,
    assignment: BTreeSet<Key>,
    /// Assigned partitions read to their end (a `PartitionEOF` after the last record).
    at_end: HashSet<Key>,
    /// Seeks asked for partitions not assigned yet: applied when they are.
    pending_seeks: HashMap<Key, i64>,
}

/// The group consumer's callbacks.
pub(crate) struct GroupContext {
    group: String,
    state: Mutex<GroupState>,
}

impl ClientContext for GroupContext {
    fn error(&self, error: KafkaError, reason: &str) {
        if matches!(
            error.rdkafka_error_code(),
            Some(RDKafkaErrorCode::PartitionEOF)
        ) {
            return;
        }
        tracing::warn!(target: "simpairs_kafka", group = %self.group, error = %describe(&error), reason, "kafka consumer");
    }
}

impl ConsumerContext for GroupContext {
    fn rebalance(
        &self,
        consumer: &BaseConsumer<Self>,
        err: RDKafkaRespErr,
        tpl: &mut TopicPartitionList,
    ) {
        let cooperative = matches!(
            consumer.rebalance_protocol(),
            RebalanceProtocol::Cooperative
        );
        let keys: Vec<Key> = tpl
            .elements()
            .iter()
            .map(|e| (e.topic().to_string(), e.partition()))
            .collect();
        let mut state = lock(&self.state);
        match err {
            RDKafkaRespErr::RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS => {
                for key in &keys {
                    if let Some(offset) = state.pending_seeks.remove(key)
                        && let Err(e) =
                            tpl.set_partition_offset(&key.0, key.1, Offset::Offset(offset))
                    {
                        tracing::warn!(target: "simpairs_kafka", group = %self.group, topic = %key.0, partition = key.1, error = %describe(&e), "could not apply a seek");
                    }
                }
                let assigned = if cooperative {
                    consumer.incremental_assign(tpl)
                } else {
                    consumer.assign(tpl)
                };
                if let Err(e) = assigned {
                    tracing::error!(target: "simpairs_kafka", group = %self.group, error = %describe(&e), "could not take the assigned partitions");
                }
                if !cooperative {
                    state.assignment.clear();
                    state.at_end.clear();
                }
                state.assignment.extend(keys.iter().cloned());
                state.joined = true;
                tracing::info!(target: "simpairs_kafka", group = %self.group, partitions = ?keys, "partitions assigned");
            }
            RDKafkaRespErr::RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS => {
                let revoked = if cooperative {
                    consumer.incremental_unassign(tpl)
                } else {
                    consumer.unassign()
                };
                if let Err(e) = revoked {
                    tracing::error!(target: "simpairs_kafka", group = %self.group, error = %describe(&e), "could not give up the revoked partitions");
                }
                if cooperative {
                    for key in &keys {
                        state.assignment.remove(key);
                        state.at_end.remove(key);
                    }
                } else {
                    state.assignment.clear();
                    state.at_end.clear();
                }
                tracing::info!(target: "simpairs_kafka", group = %self.group, partitions = ?keys, "partitions revoked");
            }
            other => {
                let code = RDKafkaErrorCode::from(other);
                tracing::error!(target: "simpairs_kafka", group = %self.group, error = %code, "rebalance failed");
                if let Err(e) = consumer.unassign() {
                    tracing::error!(target: "simpairs_kafka", group = %self.group, error = %describe(&e), "could not unassign");
                }
                state.assignment.clear();
                state.at_end.clear();
            }
        }
    }
}

/// A member of a Kafka consumer group (`enable.auto.commit=false`,
/// `enable.auto.offset.store=false`, `auto.offset.reset=earliest`, `read_committed`).
///
/// Kafka decides which partitions each member of a group reads; the assignment changes when
/// members join or leave (a *rebalance*). A new member starts each partition it is given at the
/// group's committed offset, or at the partition's start.
///
/// [`Consumer::poll`] differs from the embedded log in one way, so that "an empty poll" still
/// means "nothing more to read right now": while the group join is pending, or an assigned
/// partition has not yet been read to its end, `poll` keeps waiting past its `timeout` (up to
/// [`KafkaConfig::catch_up_timeout`] in all) until a record arrives or it has caught up. The
/// end of a partition is known from librdkafka's partition-EOF events, which name the partition
/// but not the topic; a consumer of several streams counts partition *n* as read to its end in
/// each stream it reads, so for it an empty poll is a weaker promise.
///
/// Dropping it leaves the group (the others rebalance at once rather than after the session
/// timeout).
pub struct KafkaConsumer {
    consumer: BaseConsumer<GroupContext>,
    group: String,
    /// Each stream with its partition count.
    streams: Vec<(String, u32)>,
    request_timeout: Duration,
    catch_up_timeout: Duration,
    location: String,
}

impl std::fmt::Debug for KafkaConsumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KafkaConsumer")
            .field("group", &self.group)
            .field("streams", &self.streams)
            .finish_non_exhaustive()
    }
}

/// The librdkafka consumer of `group`, starting from `state`.
fn group_client(
    config: &KafkaConfig,
    group: &str,
    state: GroupState,
) -> Result<BaseConsumer<GroupContext>> {
    let context = GroupContext {
        group: group.to_string(),
        state: Mutex::new(state),
    };
    client_config(config, Role::Group { group })?
        .create_with_context(context)
        .map_err(|e| {
            backend(format!(
                "could not create a consumer of group \"{group}\" for {}: {}",
                config.location(),
                describe(&e)
            ))
        })
}

impl KafkaConsumer {
    fn with(
        consumer: BaseConsumer<GroupContext>,
        config: &KafkaConfig,
        group: &str,
        streams: Vec<(String, u32)>,
    ) -> KafkaConsumer {
        KafkaConsumer {
            consumer,
            group: group.to_string(),
            streams,
            request_timeout: config.request_timeout,
            catch_up_timeout: config.catch_up_timeout,
            location: config.location(),
        }
    }

    pub(crate) fn subscribe(
        config: &KafkaConfig,
        group: &str,
        streams: Vec<(String, u32)>,
    ) -> Result<KafkaConsumer> {
        let consumer = group_client(config, group, GroupState::default())?;
        let topics: Vec<&str> = streams.iter().map(|(s, _)| s.as_str()).collect();
        consumer.subscribe(&topics).map_err(|e| {
            failed(
                format!("consumer group \"{group}\" could not subscribe to {topics:?}"),
                &e,
            )
        })?;
        Ok(KafkaConsumer::with(consumer, config, group, streams))
    }

    /// A consumer that reads every partition of `streams` by itself: the partitions are assigned
    /// by this client (no group membership, so no rebalances and no wait for members that died
    /// to time out), each starting at `group`'s committed offset (or the partition's start);
    /// positions are still committed to `group`.
    pub(crate) fn assign_all(
        config: &KafkaConfig,
        group: &str,
        streams: Vec<(String, u32)>,
    ) -> Result<KafkaConsumer> {
        let keys: BTreeSet<Key> = streams
            .iter()
            .flat_map(|(s, n)| (0..*n as i32).map(move |p| (s.clone(), p)))
            .collect();
        let state = GroupState {
            joined: true,
            assignment: keys.clone(),
            ..GroupState::default()
        };
        let consumer = group_client(config, group, state)?;
        let mut tpl = TopicPartitionList::with_capacity(keys.len());
        for (stream, partition) in &keys {
            // `Stored`: the group's committed offset; `auto.offset.reset=earliest` without one.
            tpl.add_partition_offset(stream, *partition, Offset::Stored)
                .map_err(|e| failed("could not list the partitions to read", &e))?;
        }
        consumer.assign(&tpl).map_err(|e| {
            failed(
                format!("consumer group \"{group}\" could not take its partitions"),
                &e,
            )
        })?;
        Ok(KafkaConsumer::with(consumer, config, group, streams))
    }

    /// The consumer group.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// The partitions this member reads now, sorted; empty until the group join completes
    /// (a `poll` drives it).
    pub fn assignment(&self) -> Vec<(String, u32)> {
        lock(&self.consumer.context().state)
            .assignment
            .iter()
            .map(|(t, p)| (t.clone(), *p as u32))
            .collect()
    }

    /// Whether the group join has completed and every assigned partition was read to its end.
    pub fn caught_up(&self) -> bool {
        let state = lock(&self.consumer.context().state);
        state.joined && state.assignment.iter().all(|k| state.at_end.contains(k))
    }

    fn partitions_of(&self, stream: &str) -> Option<u32> {
        self.streams
            .iter()
            .find(|(s, _)| s == stream)
            .map(|(_, n)| *n)
    }

    fn check(&self, stream: &str, partition: u32) -> Result<()> {
        match self.partitions_of(stream) {
            None => Err(Error::NotAssigned {
                group: self.group.clone(),
                stream: stream.to_string(),
                partition,
            }),
            Some(partitions) if partition >= partitions => Err(Error::UnknownPartition {
                stream: stream.to_string(),
                partition,
                partitions,
            }),
            Some(_) => Ok(()),
        }
    }

    fn mark_at_end(&self, partition: i32) {
        let mut state = lock(&self.consumer.context().state);
        let keys: Vec<Key> = state
            .assignment
            .iter()
            .filter(|(_, p)| *p == partition)
            .cloned()
            .collect();
        state.at_end.extend(keys);
    }
}

/// A consumed message as a [`Record`].
pub(crate) fn to_record(m: &BorrowedMessage<'_>) -> Record {
    Record {
        stream: m.topic().to_string(),
        partition: m.partition().max(0) as u32,
        offset: m.offset().max(0) as u64,
        timestamp_ms: m.timestamp().to_millis().unwrap_or(0),
        key: m.key().map(<[u8]>::to_vec).unwrap_or_default(),
        value: m.payload().map(<[u8]>::to_vec).unwrap_or_default(),
    }
}

impl Consumer for KafkaConsumer {
    fn poll(&mut self, max: usize, timeout: Duration) -> Result<Vec<Record>> {
        let mut records = Vec::new();
        if max == 0 {
            return Ok(records);
        }
        let started = Instant::now();
        let deadline = started + timeout;
        let patience = started + timeout.max(self.catch_up_timeout);
        loop {
            let now = Instant::now();
            let wait = if !records.is_empty() {
                Duration::ZERO
            } else if now < deadline {
                (deadline - now).min(POLL_SLICE)
            } else if now < patience && !self.caught_up() {
                (patience - now).min(POLL_SLICE)
            } else {
                break;
            };
            match self.consumer.poll(wait) {
                None if records.is_empty() => {}
                None => break,
                Some(Ok(m)) => {
                    let record = to_record(&m);
                    drop(m);
                    lock(&self.consumer.context().state)
                        .at_end
                        .remove(&(record.stream.clone(), record.partition as i32));
                    records.push(record);
                    if records.len() >= max {
                        break;
                    }
                }
                Some(Err(KafkaError::PartitionEOF(p))) => self.mark_at_end(p),
                Some(Err(e @ KafkaError::MessageConsumptionFatal(code))) => {
                    return Err(caused(
                        format!(
                            "consumer group \"{}\" at {} stopped with a fatal error: {code}",
                            self.group, self.location
                        ),
                        &e,
                    ));
                }
                Some(Err(e)) => {
                    // Transport errors, unknown topics while metadata settles, ...: librdkafka
                    // recovers by itself; the records come once it has.
                    tracing::warn!(target: "simpairs_kafka", group = %self.group, error = %describe(&e), "kafka consumer error (retrying)");
                }
            }
        }
        Ok(records)
    }

    fn commit(&mut self, positions: &[Position]) -> Result<()> {
        if positions.is_empty() {
            return Ok(());
        }
        let mut tpl = TopicPartitionList::with_capacity(positions.len());
        for p in positions {
            self.check(&p.stream, p.partition)?;
            let offset = i64::try_from(p.next_offset).map_err(|_| {
                Error::InvalidArgument(format!(
                    "offset {} of stream \"{}\" partition {} is too large for Kafka",
                    p.next_offset, p.stream, p.partition
                ))
            })?;
            tpl.add_partition_offset(&p.stream, p.partition as i32, Offset::Offset(offset))
                .map_err(|e| failed("could not list the positions to commit", &e))?;
        }
        self.consumer.commit(&tpl, CommitMode::Sync).map_err(|e| {
            let shown: Vec<String> = positions
                .iter()
                .map(|p| format!("{}[{}]@{}", p.stream, p.partition, p.next_offset))
                .collect();
            let rebalancing = matches!(
                e.rdkafka_error_code(),
                Some(
                    RDKafkaErrorCode::RebalanceInProgress
                        | RDKafkaErrorCode::IllegalGeneration
                        | RDKafkaErrorCode::UnknownMemberId
                        | RDKafkaErrorCode::FencedInstanceId
                )
            );
            let hint = if rebalancing {
                " (the group was rebalancing: the records after the group's last commit will be \
                 delivered again, to this or another member; poll again and commit later)"
            } else {
                ""
            };
            caused(
                format!(
                    "consumer group \"{}\" could not commit {} at {}: {}{hint}",
                    self.group,
                    shown.join(", "),
                    self.location,
                    describe(&e)
                ),
                &e,
            )
        })
    }

    fn committed(&self, stream: &str, partition: u32) -> Result<Option<u64>> {
        self.check(stream, partition)?;
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition(stream, partition as i32);
        let what = || {
            format!(
                "consumer group \"{}\" could not read its committed offset of topic \"{stream}\" partition {partition} from {}",
                self.group, self.location
            )
        };
        let committed = self
            .consumer
            .committed_offsets(tpl, self.request_timeout)
            .map_err(|e| failed(what(), &e))?;
        let Some(element) = committed.find_partition(stream, partition as i32) else {
            return Ok(None);
        };
        element.error().map_err(|e| failed(what(), &e))?;
        Ok(match element.offset() {
            Offset::Offset(n) if n >= 0 => Some(n as u64),
            _ => None,
        })
    }

    /// Moves this member's reading position. For a partition it reads now, at once; for one of
    /// its streams' partitions not (yet) assigned to it, the seek is kept and applied if and when
    /// the group assigns it that partition.
    fn seek(&mut self, stream: &str, partition: u32, offset: u64) -> Result<()> {
        self.check(stream, partition)?;
        let offset = i64::try_from(offset).map_err(|_| {
            Error::InvalidArgument(format!("offset {offset} is too large for Kafka"))
        })?;
        let key: Key = (stream.to_string(), partition as i32);
        let assigned = lock(&self.consumer.context().state)
            .assignment
            .contains(&key);
        if !assigned {
            lock(&self.consumer.context().state)
                .pending_seeks
                .insert(key, offset);
            return Ok(());
        }
        let deadline = Instant::now() + self.request_timeout;
        loop {
            match self.consumer.seek(
                stream,
                partition as i32,
                Offset::Offset(offset),
                self.request_timeout,
            ) {
                Ok(()) => break,
                // The partition's fetcher may still be starting: try again shortly.
                Err(_) if Instant::now() + SEEK_RETRY < deadline => thread::sleep(SEEK_RETRY),
                Err(e) => {
                    return Err(failed(
                        format!(
                            "consumer group \"{}\" could not move to offset {offset} of topic \"{stream}\" partition {partition}",
                            self.group
                        ),
                        &e,
                    ));
                }
            }
        }
        lock(&self.consumer.context().state).at_end.remove(&key);
        Ok(())
    }

    fn assignment(&self) -> Result<Vec<(String, u32)>> {
        Ok(KafkaConsumer::assignment(self))
    }
}
