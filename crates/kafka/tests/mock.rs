//! Against rdkafka's mock cluster (librdkafka's in-process Kafka), where brokers can be made to
//! fail on demand: outages shorter and longer than the append timeout, lost responses, leader
//! changes, and transactions (which the mock supports and Tansu does not).
//!
//! The mock does not do CreateTopics, so topics are made with `MockCluster::create_topic`.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use rdkafka::mocking::MockCluster;
use rdkafka::producer::DefaultProducerContext;

use simpairs_kafka::{DeliveryMode, KafkaConfig, KafkaLog, Transactions};
use simpairs_log::{Consumer, Log, Produce, Record, partition_for_key};

use common::{trace, unique};

fn cluster(brokers: i32) -> MockCluster<'static, DefaultProducerContext> {
    MockCluster::new(brokers).expect("mock cluster")
}

fn log_on(
    mock: &MockCluster<'static, DefaultProducerContext>,
    transactions: Transactions,
    message_timeout: Duration,
    extra: &[(&str, &str)],
) -> Arc<KafkaLog> {
    let mut config = KafkaConfig::new(mock.bootstrap_servers().split(','));
    config.transactions = transactions;
    config.message_timeout = message_timeout;
    config.request_timeout = Duration::from_secs(5);
    config.properties = extra
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Arc::new(KafkaLog::connect(config).expect("connect"))
}

/// Values `"<tag>-<i>"` keyed `club-<i % 11>`.
fn batch(tag: &str, from: usize, n: usize) -> (Vec<String>, Vec<String>) {
    let keys = (from..from + n)
        .map(|i| format!("club-{}", i % 11))
        .collect();
    let values = (from..from + n).map(|i| format!("{tag}-{i:06}")).collect();
    (keys, values)
}

fn append_batch(
    log: &KafkaLog,
    topic: &str,
    tag: &str,
    from: usize,
    n: usize,
) -> simpairs_log::Result<Vec<(u32, u64)>> {
    let (keys, values) = batch(tag, from, n);
    let records: Vec<Produce<'_>> = keys
        .iter()
        .zip(&values)
        .map(|(k, v)| Produce::new(k.as_bytes(), v.as_bytes(), 1_700_000_000_000))
        .collect();
    log.append(topic, &records)
}

/// Every record of every partition, read with `read`.
fn read_everything(log: &KafkaLog, topic: &str) -> Vec<Record> {
    let mut out = Vec::new();
    for p in 0..log.partitions(topic).unwrap() {
        let end = log.end_offset(topic, p).unwrap();
        let mut at = 0;
        while at < end {
            let chunk = log.read(topic, p, at, 10_000).unwrap();
            if chunk.is_empty() {
                break;
            }
            at = chunk.last().unwrap().offset + 1;
            out.extend(chunk);
        }
    }
    out
}

/// Checks that the topic holds each value of `expected` exactly once, in the partition its key
/// maps to, in append order within the partition, at the offset the append reported.
fn assert_exactly_once(
    log: &KafkaLog,
    topic: &str,
    expected: &[String],
    placed: &BTreeMap<String, (u32, u64)>,
) {
    let records = read_everything(log, topic);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for r in &records {
        *seen
            .entry(String::from_utf8(r.value.clone()).unwrap())
            .or_default() += 1;
    }
    let duplicates: Vec<_> = seen.iter().filter(|&(_, &n)| n > 1).collect();
    assert!(
        duplicates.is_empty(),
        "written more than once: {:?}",
        &duplicates[..duplicates.len().min(5)]
    );
    let missing: Vec<_> = expected.iter().filter(|v| !seen.contains_key(*v)).collect();
    assert!(
        missing.is_empty(),
        "{} lost, e.g. {:?}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
    assert_eq!(records.len(), expected.len(), "nothing else in the topic");
    let partitions = log.partitions(topic).unwrap();
    for r in &records {
        let value = String::from_utf8(r.value.clone()).unwrap();
        assert_eq!(r.partition, partition_for_key(&r.key, partitions));
        if let Some(&at) = placed.get(&value) {
            assert_eq!(
                (r.partition, r.offset),
                at,
                "{value} is where the append said"
            );
        }
    }
    // Within a partition, values of one key keep their order.
    let mut last: BTreeMap<Vec<u8>, String> = BTreeMap::new();
    for r in &records {
        let value = String::from_utf8(r.value.clone()).unwrap();
        if let Some(previous) = last.insert(r.key.clone(), value.clone()) {
            assert!(
                previous < value,
                "order of key {:?}: {previous} then {value}",
                r.key
            );
        }
    }
}

fn remember(placed: &mut BTreeMap<String, (u32, u64)>, tag: &str, from: usize, at: &[(u32, u64)]) {
    for (i, &p) in at.iter().enumerate() {
        placed.insert(format!("{tag}-{:06}", from + i), p);
    }
}

#[test]
fn broker_down_during_an_append_then_back_loses_and_duplicates_nothing() {
    trace();
    let mock = cluster(3);
    let topic = unique("outage");
    mock.create_topic(&topic, 3, 1).unwrap();
    let log = log_on(&mock, Transactions::Off, Duration::from_secs(20), &[]);
    let mut placed = BTreeMap::new();
    let first = append_batch(&log, &topic, "v", 0, 1000).unwrap();
    remember(&mut placed, "v", 0, &first);
    assert_eq!(log.delivery_mode().unwrap(), DeliveryMode::Idempotent);

    // Every broker goes away while the next append is under way, and comes back 3 s later.
    mock.broker_down(-1).unwrap();
    let appending = {
        let log = Arc::clone(&log);
        let topic = topic.clone();
        thread::spawn(move || {
            let started = Instant::now();
            (
                append_batch(&log, &topic, "v", 1000, 1000),
                started.elapsed(),
            )
        })
    };
    thread::sleep(Duration::from_secs(3));
    mock.broker_up(-1).unwrap();
    let (second, took) = appending.join().unwrap();
    let second = second.expect("the append retries until the brokers are back");
    eprintln!(
        "append across a 3 s outage took {:.2} s",
        took.as_secs_f64()
    );
    assert!(
        took >= Duration::from_secs(2),
        "it really waited for the brokers"
    );
    remember(&mut placed, "v", 1000, &second);

    let expected: Vec<String> = (0..2000).map(|i| format!("v-{i:06}")).collect();
    assert_exactly_once(&log, &topic, &expected, &placed);
}

#[test]
fn an_outage_longer_than_the_timeout_is_reported_and_the_log_recovers() {
    trace();
    let mock = cluster(1);
    let topic = unique("long-outage");
    mock.create_topic(&topic, 2, 1).unwrap();
    let log = log_on(&mock, Transactions::Off, Duration::from_secs(3), &[]);
    append_batch(&log, &topic, "w", 0, 10).unwrap();

    mock.broker_down(-1).unwrap();
    let started = Instant::now();
    let err = append_batch(&log, &topic, "w", 10, 50).unwrap_err();
    let took = started.elapsed();
    let text = err.to_string();
    eprintln!("after {:.2} s: {text}", took.as_secs_f64());
    assert!(text.starts_with("kafka: "), "{text}");
    assert!(
        text.contains(&format!("topic \"{topic}\"")),
        "names the topic: {text}"
    );
    assert!(
        text.contains("did not acknowledge"),
        "says what failed: {text}"
    );
    assert!(
        text.contains("within 3.0 s"),
        "says how long it waited: {text}"
    );
    assert!(
        took >= Duration::from_secs(3) && took < Duration::from_secs(15),
        "{took:?}"
    );

    // Once the broker is back the same log appends again (after librdkafka's reconnect backoff,
    // which grows to 10 s during an outage), and nothing was written twice.
    mock.broker_up(-1).unwrap();
    let back = Instant::now();
    let mut attempts = 0;
    loop {
        attempts += 1;
        match append_batch(&log, &topic, "w", 60, 10) {
            Ok(placed) => {
                assert_eq!(placed.len(), 10);
                break;
            }
            Err(e) if back.elapsed() < Duration::from_secs(30) => eprintln!("not yet: {e}"),
            Err(e) => panic!("appends do not work again 30 s after the broker came back: {e}"),
        }
    }
    eprintln!(
        "appending again worked {:.2} s after the broker came back ({attempts} attempt(s))",
        back.elapsed().as_secs_f64()
    );
    let values: Vec<String> = read_everything(&log, &topic)
        .into_iter()
        .map(|r| String::from_utf8(r.value).unwrap())
        .collect();
    let unique_values: BTreeSet<&String> = values.iter().collect();
    assert_eq!(unique_values.len(), values.len(), "no duplicates");
    // The 50 records of the failed append may or may not be there (retried appends of them
    // after an error would be the caller's duplicates); the others are there once.
    for i in (0..10).chain(60..70) {
        assert!(values.contains(&format!("w-{i:06}")), "w-{i} is there");
    }
}

#[test]
fn lost_responses_are_retried_without_duplicates() {
    trace();
    // Responses arrive after the request timeout, so the producer sends the same batches again;
    // the broker has already written them and the idempotent producer's sequence numbers make it
    // drop the copies.
    let mock = cluster(1);
    let topic = unique("slow");
    mock.create_topic(&topic, 3, 1).unwrap();
    let log = log_on(
        &mock,
        Transactions::Off,
        Duration::from_secs(30),
        &[("request.timeout.ms", "1000")],
    );
    let mut placed = BTreeMap::new();
    remember(
        &mut placed,
        "s",
        0,
        &append_batch(&log, &topic, "s", 0, 500).unwrap(),
    );
    mock.broker_round_trip_time(1, Duration::from_millis(1500))
        .unwrap();
    let appending = {
        let log = Arc::clone(&log);
        let topic = topic.clone();
        thread::spawn(move || append_batch(&log, &topic, "s", 500, 2000))
    };
    thread::sleep(Duration::from_secs(4));
    mock.broker_round_trip_time(1, Duration::ZERO).unwrap();
    let second = appending
        .join()
        .unwrap()
        .expect("append after slow responses");
    remember(&mut placed, "s", 500, &second);
    let expected: Vec<String> = (0..2500).map(|i| format!("s-{i:06}")).collect();
    assert_exactly_once(&log, &topic, &expected, &placed);
}

#[test]
fn leader_changes_during_appends_lose_and_duplicate_nothing() {
    trace();
    let mock = cluster(3);
    let topic = unique("leaders");
    mock.create_topic(&topic, 3, 3).unwrap();
    let log = log_on(&mock, Transactions::Off, Duration::from_secs(30), &[]);
    let rounds = 20;
    let per_round = 500;
    let appending = {
        let log = Arc::clone(&log);
        let topic = topic.clone();
        thread::spawn(move || {
            let mut placed = BTreeMap::new();
            for round in 0..rounds {
                let from = round * per_round;
                let at = append_batch(&log, &topic, "l", from, per_round)
                    .expect("append during leader changes");
                remember(&mut placed, "l", from, &at);
            }
            placed
        })
    };
    // Move every partition's leader around while the appends run.
    for step in 0..12 {
        for partition in 0..3 {
            mock.partition_leader(&topic, partition, Some(1 + (step + partition) % 3))
                .unwrap();
        }
        thread::sleep(Duration::from_millis(150));
    }
    let placed = appending.join().unwrap();
    let expected: Vec<String> = (0..rounds * per_round)
        .map(|i| format!("l-{i:06}"))
        .collect();
    assert_exactly_once(&log, &topic, &expected, &placed);
}

#[test]
fn transactional_appends_where_the_brokers_support_them() {
    trace();
    let mock = cluster(3);
    let topic = unique("txn");
    mock.create_topic(&topic, 3, 1).unwrap();
    let log = log_on(&mock, Transactions::Auto, Duration::from_secs(20), &[]);
    assert!(log.supports_transactions().unwrap());
    assert_eq!(log.delivery_mode().unwrap(), DeliveryMode::Transactional);
    let mut placed = BTreeMap::new();
    for round in 0..5 {
        let at = append_batch(&log, &topic, "t", round * 200, 200).unwrap();
        remember(&mut placed, "t", round * 200, &at);
    }
    let expected: Vec<String> = (0..1000).map(|i| format!("t-{i:06}")).collect();
    assert_exactly_once(&log, &topic, &expected, &placed);
    // On Apache Kafka commit markers take offsets, so the end can be past the last record + 1
    // (the mock writes no markers).
    let last = placed
        .values()
        .filter(|(p, _)| *p == 0)
        .map(|(_, o)| *o)
        .max()
        .unwrap();
    assert!(log.end_offset(&topic, 0).unwrap() > last);

    // `required` works too; `off` uses the idempotent producer on the same cluster.
    let strict = log_on(&mock, Transactions::Required, Duration::from_secs(20), &[]);
    append_batch(&strict, &topic, "u", 0, 10).unwrap();
    assert_eq!(strict.delivery_mode().unwrap(), DeliveryMode::Transactional);
    let plain = log_on(&mock, Transactions::Off, Duration::from_secs(20), &[]);
    assert_eq!(plain.delivery_mode().unwrap(), DeliveryMode::Idempotent);
}

#[test]
fn a_transactional_append_that_fails_is_aborted() {
    trace();
    let mock = cluster(1);
    let topic = unique("txn-fail");
    mock.create_topic(&topic, 1, 1).unwrap();
    let log = log_on(&mock, Transactions::Required, Duration::from_secs(3), &[]);
    append_batch(&log, &topic, "a", 0, 10).unwrap();
    mock.broker_down(-1).unwrap();
    let err = append_batch(&log, &topic, "a", 10, 10)
        .unwrap_err()
        .to_string();
    eprintln!("{err}");
    assert!(err.contains(&format!("topic \"{topic}\"")), "{err}");
    mock.broker_up(-1).unwrap();
    // After the reconnect backoff (up to 10 s) the pending abort completes and appends work.
    let back = Instant::now();
    loop {
        match append_batch(&log, &topic, "a", 20, 10) {
            Ok(_) => break,
            Err(e) if back.elapsed() < Duration::from_secs(30) => {
                let text = e.to_string();
                assert!(text.contains(&format!("topic \"{topic}\"")), "{text}");
                eprintln!("not yet: {text}");
            }
            Err(e) => panic!("appends do not work again 30 s after the broker came back: {e}"),
        }
    }
    // Only the committed transactions are there.
    let values: Vec<String> = read_everything(&log, &topic)
        .into_iter()
        .map(|r| String::from_utf8(r.value).unwrap())
        .collect();
    let expected: Vec<String> = (0..10).chain(20..30).map(|i| format!("a-{i:06}")).collect();
    for v in &expected {
        assert!(values.contains(v), "{v} is there");
    }
}

#[test]
fn group_consumer_on_the_mock_commits_and_resumes() {
    trace();
    let mock = cluster(1);
    let topic = unique("mock-group");
    let group = unique("mock-group");
    mock.create_topic(&topic, 2, 1).unwrap();
    // The mock's group coordinator waits for a member that left until its session times out.
    let log = log_on(
        &mock,
        Transactions::Off,
        Duration::from_secs(10),
        &[
            ("session.timeout.ms", "6000"),
            ("heartbeat.interval.ms", "500"),
        ],
    );
    append_batch(&log, &topic, "g", 0, 100).unwrap();
    let mut consumer = log.group_consumer(&group, &[&topic]).unwrap();
    let started = Instant::now();
    let mut got = Vec::new();
    while got.len() < 100 {
        got.extend(consumer.poll(1000, Duration::from_secs(1)).unwrap());
        assert!(started.elapsed() < Duration::from_secs(60));
    }
    eprintln!(
        "mock: joined and read 100 in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    let positions: Vec<_> = got.iter().take(30).map(Record::next_position).collect();
    consumer.commit(&positions).unwrap();
    let committed: BTreeMap<u32, u64> = positions
        .iter()
        .map(|p| (p.partition, p.next_offset))
        .collect();
    drop(consumer);
    let mut again = log.consumer(&group, &[&topic]).unwrap();
    for (&p, &o) in &committed {
        assert_eq!(again.committed(&topic, p).unwrap(), Some(o));
    }
    let mut rest = Vec::new();
    loop {
        let batch = again.poll(1000, Duration::from_secs(1)).unwrap();
        if batch.is_empty() {
            break;
        }
        rest.extend(batch);
    }
    let expected = 100 - committed.values().sum::<u64>() as usize;
    assert_eq!(rest.len(), expected);
}
