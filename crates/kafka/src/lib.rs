//! The Kafka backend of the simpairs event log.
//!
//! [`KafkaLog`] implements [`simpairs_log::Log`] over any cluster that speaks the Kafka protocol
//! (Apache Kafka, Redpanda, Tansu), through rdkafka (librdkafka 2.12, built from source with the
//! crate). Federations that outgrow one machine run the club nodes, the aggregator and the
//! projection as separate processes on it, scaled by partitions; everything else in simpairs is
//! written against the [`Log`](simpairs_log::Log) trait and does not know which log it has.
//!
//! # How the log maps onto Kafka
//! | simpairs log | Kafka |
//! |---|---|
//! | stream `<event>.<name>` | topic of the same name (`create_stream` makes it; nothing else does: every client sets `allow.auto.create.topics=false`) |
//! | [`StreamConfig`](simpairs_log::StreamConfig) | partitions, replication factor [`KafkaConfig::replication_factor`], `cleanup.policy=compact` when compacted, `retention.ms` when a retention is set |
//! | record key | message key; a record without an explicit partition goes to [`partition_for_key`](simpairs_log::partition_for_key) of it (Kafka's murmur2), computed here, so placement is the embedded log's and the Java client's; the producer also sets `partitioner=murmur2_random` |
//! | record timestamp | message timestamp (CreateTime) |
//! | offset | Kafka offset (with transactions, commit markers take offsets too: offsets increase but can skip) |
//! | [`Log::consumer`](simpairs_log::Log::consumer) | a member of the Kafka consumer group of that name ([`KafkaConsumer`]) |
//! | [`Log::solo_consumer`](simpairs_log::Log::solo_consumer) | a consumer assigned every partition by itself (no membership, no rebalances), committing to the group of that name |
//! | [`Consumer::commit`](simpairs_log::Consumer::commit) | a synchronous offset commit of exactly those positions |
//! | [`Log::read`](simpairs_log::Log::read) | a group-less consumer assigned to the partition at the offset |
//! | [`Log::end_offset`](simpairs_log::Log::end_offset) | the high watermark (the last stable offset while a transaction is open) |
//!
//! # Settings
//! [`KafkaConfig::from_location_and_env`] reads a `kafka://host:port[,host:port]` location (a
//! broker without a port gets 9092) and these environment variables; empty ones count as unset:
//!
//! | variable | librdkafka property | default |
//! |---|---|---|
//! | `SIMPAIRS_KAFKA_SECURITY_PROTOCOL` | `security.protocol`: `PLAINTEXT`, `SSL`, `SASL_PLAINTEXT`, `SASL_SSL` | `PLAINTEXT` |
//! | `SIMPAIRS_KAFKA_SASL_MECHANISM` | `sasl.mechanism`: `PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512`, `OAUTHBEARER` | none |
//! | `SIMPAIRS_KAFKA_SASL_USERNAME`, `SIMPAIRS_KAFKA_SASL_PASSWORD` | `sasl.username`, `sasl.password` | none |
//! | `SIMPAIRS_KAFKA_SSL_CA` | `ssl.ca.location` (PEM) | system default |
//! | `SIMPAIRS_KAFKA_SSL_CERT`, `SIMPAIRS_KAFKA_SSL_KEY` | `ssl.certificate.location`, `ssl.key.location` (mutual TLS) | none |
//! | `SIMPAIRS_KAFKA_CLIENT_ID` | `client.id` | `simpairs` |
//! | `SIMPAIRS_KAFKA_PROPERTIES` | any others, `k=v,k=v` (`\,` for a comma in a value), given to every client | none |
//! | `SIMPAIRS_KAFKA_REPLICATION_FACTOR` | replication factor of new topics | 1 |
//! | `SIMPAIRS_KAFKA_TRANSACTIONS` | `auto`, `off`, `required` ([`Transactions`]) | `auto` |
//! | `SIMPAIRS_KAFKA_MESSAGE_TIMEOUT_MS` | `message.timeout.ms`: how long an append may take, retries included | 30000 |
//!
//! Properties cannot change what the guarantees below rest on: producers always get
//! `enable.idempotence=true`, `acks=all`, `partitioner=murmur2_random`; group consumers
//! `enable.auto.commit=false`, `enable.auto.offset.store=false`, `enable.partition.eof=true`
//! ([`FIXED_PRODUCER_SETTINGS`], [`FIXED_CONSUMER_SETTINGS`]). Settings that contradict each
//! other (SASL credentials with a non-SASL protocol, TLS files without TLS, a certificate
//! without its key) are refused with a message naming the variable to set.
//!
//! **TLS and SCRAM need the `ssl` feature** of this crate (librdkafka is then built with
//! OpenSSL: `libssl-dev` to build, `libssl3` to run). The default build links no OpenSSL, so it
//! builds and runs anywhere; it does `PLAINTEXT` and `SASL_PLAINTEXT` with `PLAIN`. Asking a
//! default build for `SSL`, `SASL_SSL`, SCRAM or `OAUTHBEARER` fails in
//! [`KafkaLog::connect`] with a message saying to rebuild with `--features simpairs-kafka/ssl`
//! (the check reads librdkafka's `builtin.features`, [`builtin_features`]). Kerberos is not
//! supported.
//!
//! # Delivery guarantees
//! Appends use one of two modes ([`DeliveryMode`]), chosen at the first append from
//! [`KafkaConfig::transactions`] (`auto` by default: transactional where the brokers support
//! transactions, as Apache Kafka does; idempotent where they do not, as on Tansu 0.6).
//! Consumption is the same in both: at-least-once.
//!
//! | | idempotent (Tansu; or `transactions=off`) | transactional (Apache Kafka with `auto`/`required`) |
//! |---|---|---|
//! | `append` returns `Ok` | every record acknowledged by the partition leader after all in-sync replicas have it (`acks=all`) | the same, and the append's transaction committed |
//! | broker lost and back within `message.timeout.ms` | the producer retries; no record lost, none written twice, per-partition order kept (sequence numbers) | the same |
//! | `append` returns `Err` | some records may be written, possibly visible; appending again can store them twice | the transaction is aborted (if the brokers are unreachable, by the next append or the brokers' transaction timeout): nothing of the append becomes visible to `read_committed` readers, so appending again is safe; only when the commit request itself fails is the outcome unknown (the error says so) |
//! | several records of one append | in order, but a reader can see some before the rest (librdkafka may split an append into several produce requests) and records in other partitions are independent | all-or-nothing for `read_committed` readers (every reader here), across partitions |
//! | offsets | dense: consecutive within a partition | commit markers take one offset per partition per transaction |
//! | consumers | at-least-once: positions are stored only by an explicit commit; after a crash or rebalance the records after the last commit come again | the same (`send_offsets_to_transaction` is not used: processing is not exactly-once, effects must be idempotent) |
//!
//! So on every cluster a pipeline stays correct by (1) committing input positions only after
//! its output is durable and (2) making every effect idempotent (every simpairs event has a stable
//! identity; a submission applies when its seal arrives, so half a club is never shown even
//! where an append is not atomic). Transactions add atomic multi-partition appends and make a
//! retried append after an error free of duplicates; they are not needed for correctness.
//! "Durable" means what the cluster means by it: acknowledged by the in-sync replicas (Kafka
//! does not `fsync` each write; with replication factor 1 one broker holds the data). Appends
//! with an unset transactional id get a unique `transactional.id` per [`KafkaLog`], so two
//! processes never fence each other; set [`KafkaConfig::transactional_id`] to a stable id per
//! replica to fence a zombie instance of the same replica.
//!
//! # Consumer groups
//! A [`KafkaConsumer`] joins its group on its first polls. Several members of one group split
//! the partitions between them, up to one member per partition; a member that leaves (drop) hands
//! its partitions to the others at once, one that dies after its session times out (10 s here,
//! librdkafka's default is 45 s); the
//! new owner starts them at the group's committed offsets, so records after the last commit come
//! again. Measured on a local Tansu: the first member of a group gets its partitions about 1.1 s
//! after subscribing; when a second member joins, the group settles on the split after about
//! 4.1 s (the first member notices at its next heartbeat, every 3 s). On rdkafka's mock cluster a
//! join takes about 3.2 s. `poll` waits past its timeout while the join or the first fetches are
//! pending (up to [`KafkaConfig::catch_up_timeout`]), so an empty poll means the member has read
//! what it was given; see [`KafkaConsumer`].
//!
//! # Reading
//! [`Log::read`](simpairs_log::Log::read) assigns a group-less consumer to the partition; a read
//! that starts where the previous one stopped (a scan in chunks) carries on with what that
//! consumer has already fetched, so a scan costs about what consuming does.
//!
//! # Tansu (the broker `scripts/broker` runs for tests)
//! What a pipeline author must know about Tansu 0.6:
//! - Use SQLite storage: the memory storage loses committed offsets and mis-reports high
//!   watermarks.
//! - No transactions: it accepts `init_transactions` (InitProducerId) but has no EndTxn. A record
//!   produced inside a transaction stays "open" forever: ListOffsets for `read_committed` (what
//!   [`Log::end_offset`](simpairs_log::Log::end_offset) asks) stops before it, while fetches
//!   still return it. That is why the transaction probe writes no record, and why `auto` gives
//!   the idempotent mode there.
//! - It holds every fetch for up to `fetch.wait.max.ms` even when it has records, so that setting
//!   bounds latency and throughput; group consumers here use 100 ms (librdkafka's default is
//!   500 ms, which makes a Tansu consumer five times slower).
//! - Throughput on a shared 2-core machine (SQLite, 60-byte values, batches of 1,000, 3
//!   partitions, release build; `tests/throughput.rs`): 41,000-46,000 records/s appended one
//!   call at a time (about 23 ms per append of 1,000), 51,000-54,000 with 4 appends in flight,
//!   58,000-70,000 polled by a group consumer, 40,000-44,000 read with `read` in chunks of 10,000.
//! - A group join takes 1 to 4 s (above); a consumer must not treat an empty first poll as "no
//!   data" (this crate's `poll` waits for the join).
//!
//! # Layout
//! - `config`: [`KafkaConfig`] and its environment variables;
//! - `client`: the librdkafka settings of each client role and the build's feature check;
//! - `producer`: appends, delivery reports, transactions;
//! - `log`: [`KafkaLog`], topics, metadata, reads;
//! - `consumer`: [`KafkaConsumer`], the group member;
//! - `error`: rdkafka's errors in words, as [`simpairs_log::Error::Backend`] (`backend: "kafka"`).
//!
//! # Example
//! ```no_run
//! use std::time::Duration;
//! use simpairs_log::{Log, Produce, StreamConfig};
//! use simpairs_kafka::KafkaLog;
//!
//! # fn main() -> simpairs_log::Result<()> {
//! // kafka://host:port plus the SIMPAIRS_KAFKA_* variables
//! let log = KafkaLog::open("kafka://127.0.0.1:19092")?;
//! log.create_stream("demo.results", &StreamConfig::with_partitions(3))?;
//! let placed = log.append(
//!     "demo.results",
//!     &[Produce::new(b"club-1", b"first result", 1_700_000_000_000)],
//! )?; // returns once the brokers acknowledged it
//! let (partition, offset) = placed[0];
//!
//! let mut consumer = log.consumer("aggregator", &["demo.results"])?;
//! let records = consumer.poll(1_000, Duration::from_secs(1))?;
//! // ... once the effect of these records is durable:
//! let positions: Vec<_> = records.iter().map(|r| r.next_position()).collect();
//! consumer.commit(&positions)?;
//! assert!(consumer.committed("demo.results", partition)? >= Some(offset + 1));
//! # Ok(())
//! # }
//! ```

mod client;
mod config;
mod consumer;
mod error;
#[cfg(feature = "clap")]
mod flags;
mod log;
mod producer;

pub use client::{FIXED_CONSUMER_SETTINGS, FIXED_PRODUCER_SETTINGS, builtin_features};
pub use config::{
    DEFAULT_CATCH_UP_TIMEOUT, DEFAULT_CLIENT_ID, DEFAULT_MESSAGE_TIMEOUT, DEFAULT_PORT,
    DEFAULT_REQUEST_TIMEOUT, ENV_CLIENT_ID, ENV_MESSAGE_TIMEOUT_MS, ENV_PROPERTIES,
    ENV_REPLICATION_FACTOR, ENV_SASL_MECHANISM, ENV_SASL_PASSWORD, ENV_SASL_USERNAME,
    ENV_SECURITY_PROTOCOL, ENV_SSL_CA, ENV_SSL_CERT, ENV_SSL_KEY, ENV_TRANSACTIONS, ENV_VARS,
    KafkaConfig, SecurityProtocol, Transactions, parse_properties,
};
pub use consumer::KafkaConsumer;
pub use error::{BACKEND, Cause, cause, is_retriable_code, is_transient, kind_of};
#[cfg(feature = "clap")]
pub use flags::KafkaFlags;
pub use log::KafkaLog;

/// `Result` with [`simpairs_log::Error`]: this backend reports through the log's error type
/// (its own failures as [`simpairs_log::Error::Backend`] with `backend: "kafka"`).
pub type Result<T, E = simpairs_log::Error> = std::result::Result<T, E>;

/// How a [`KafkaLog`]'s appends are delivered; see the crate page for what each guarantees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeliveryMode {
    /// The idempotent producer: no duplicates from retries, order kept per partition.
    Idempotent,
    /// Each append is one Kafka transaction: all-or-nothing for `read_committed` readers.
    Transactional,
}
