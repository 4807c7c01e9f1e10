//! Append and consume throughput, printed (ignored by default: they measure, they do not check).
//!
//! ```sh
//! scripts/broker start     # Tansu with SQLite storage
//! SIMPAIRS_KAFKA=kafka://127.0.0.1:19092 cargo test --release -p simpairs-kafka \
//!     --test integration -- --ignored --nocapture --test-threads=1 throughput::
//! ```
//! 100 appends of 1,000 records of 60-byte values over 3 partitions, then one group consumer
//! and `read` over all of them.

use crate::common;

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use rdkafka::mocking::MockCluster;
use simpairs_kafka::{KafkaConfig, KafkaLog, Transactions};
use simpairs_log::{Log, Produce, StreamConfig};

use common::{broker, connect, unique};

const BATCHES: usize = 100;
const PER_BATCH: usize = 1000;
const VALUE_BYTES: usize = 60;
const PARTITIONS: u32 = 3;
const MOCK_BATCHES: usize = 40;

fn value(i: usize) -> Vec<u8> {
    let mut v = format!("result {i:08} board 17 NS 3NT+1 E -430 ").into_bytes();
    v.resize(VALUE_BYTES, b'.');
    v
}

fn rate(n: usize, d: Duration) -> String {
    format!(
        "{:>9.0} records/s ({n} in {:.2} s)",
        n as f64 / d.as_secs_f64(),
        d.as_secs_f64()
    )
}

fn append_batches(log: &KafkaLog, topic: &str, batches: std::ops::Range<usize>) {
    for b in batches {
        let keys: Vec<String> = (0..PER_BATCH)
            .map(|i| format!("club-{:04}", (b * PER_BATCH + i) % 997))
            .collect();
        let values: Vec<Vec<u8>> = (0..PER_BATCH).map(|i| value(b * PER_BATCH + i)).collect();
        let records: Vec<Produce<'_>> = keys
            .iter()
            .zip(&values)
            .map(|(k, v)| Produce::new(k.as_bytes(), v, 1_700_000_000_000))
            .collect();
        log.append(topic, &records).expect("append");
    }
}

fn measure(name: &str, log: Arc<KafkaLog>, topic: &str, batches: usize) {
    let total = batches * PER_BATCH;
    // Warm up: the producer and its connections.
    append_batches(&log, topic, 0..1);

    let started = Instant::now();
    append_batches(&log, topic, 1..batches + 1);
    let sequential = started.elapsed();

    // The same amount from 4 threads at once (4 appends in flight).
    let started = Instant::now();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let log = Arc::clone(&log);
            let topic = topic.to_string();
            let per = batches / 4;
            thread::spawn(move || {
                append_batches(&log, &topic, 1000 + t * per..1000 + (t + 1) * per)
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let parallel = started.elapsed();
    let in_topic = total * 2 + PER_BATCH;

    let mut consumer = log.group_consumer(&unique("throughput"), &[topic]).unwrap();
    let started = Instant::now();
    let mut first_at = None;
    let mut got = 0;
    let mut per_partition = [0u64; PARTITIONS as usize];
    while got < in_topic {
        let batch =
            simpairs_log::Consumer::poll(&mut consumer, 10_000, Duration::from_secs(5)).unwrap();
        if batch.is_empty() {
            let ends: Vec<u64> = (0..PARTITIONS)
                .map(|p| log.end_offset(topic, p).unwrap())
                .collect();
            panic!(
                "stalled at {got} of {in_topic}: per partition {per_partition:?}, ends {ends:?}, \
                 assignment {:?}, caught up {}",
                consumer.assignment(),
                consumer.caught_up()
            );
        }
        first_at.get_or_insert_with(Instant::now);
        got += batch.len();
        for r in &batch {
            per_partition[r.partition as usize] += 1;
        }
    }
    let with_join = started.elapsed();
    let polling = first_at.map(|f| f.elapsed()).unwrap_or_default();

    let started = Instant::now();
    let mut read = 0;
    for p in 0..PARTITIONS {
        let end = log.end_offset(topic, p).unwrap();
        let mut at = 0;
        while at < end {
            let chunk = log.read(topic, p, at, 10_000).unwrap();
            at = chunk.last().map(|r| r.offset + 1).unwrap_or(end);
            read += chunk.len();
        }
    }
    let reading = started.elapsed();

    eprintln!(
        "\n{name}: {batches} appends x {PER_BATCH} records x {VALUE_BYTES} B over {PARTITIONS} partitions"
    );
    eprintln!(
        "  append, one call at a time      {}",
        rate(total, sequential)
    );
    eprintln!(
        "  append, 4 threads               {}",
        rate(total, parallel)
    );
    eprintln!("  group consumer poll             {}", rate(got, polling));
    eprintln!("  ... including the group join    {}", rate(got, with_join));
    eprintln!(
        "  read (10,000 per call)          {}\n",
        rate(read, reading)
    );
}

#[test]
#[ignore = "measures throughput against the broker of SIMPAIRS_KAFKA; run with --ignored --nocapture"]
fn throughput_against_the_broker() {
    let Some(location) = broker() else { return };
    let log = Arc::new(connect(&location));
    let topic = unique("throughput");
    log.create_stream(&topic, &StreamConfig::with_partitions(PARTITIONS))
        .unwrap();
    let mode = log.delivery_mode().unwrap();
    measure(&format!("{location} ({mode:?})"), log, &topic, BATCHES);
}

#[test]
#[ignore = "measures throughput against rdkafka's in-process mock cluster; run with --ignored --nocapture"]
fn throughput_against_the_mock_cluster() {
    let mock = MockCluster::new(1).unwrap();
    let topic = unique("throughput");
    mock.create_topic(&topic, PARTITIONS as i32, 1).unwrap();
    let mut config = KafkaConfig::new(mock.bootstrap_servers().split(','));
    // The idempotent producer, as on Tansu (the mock's transactions are checked in tests/mock.rs).
    config.transactions = Transactions::Off;
    let log = Arc::new(KafkaLog::connect(config).unwrap());
    let mode = log.delivery_mode().unwrap();
    // The mock keeps at most 5 MiB per partition (it drops the oldest records beyond that), so
    // it gets fewer records.
    measure(
        &format!("mock cluster ({mode:?})"),
        log,
        &topic,
        MOCK_BATCHES,
    );
}
