//! Consumer groups: polling, committing, resuming, one consumer per group.

use crate::common;

use std::time::{Duration, Instant};

use common::{log_with_stream, open_log};
use simpairs_log::{Error, Log, Position, Produce, StreamConfig};

fn append_n(log: &dyn Log, stream: &str, partition: u32, from: u64, n: u64) {
    let values: Vec<String> = (from..from + n)
        .map(|i| format!("{stream}-{partition}-{i}"))
        .collect();
    let records: Vec<_> = values
        .iter()
        .map(|v| Produce::new(b"", v.as_bytes(), 0).to_partition(partition))
        .collect();
    log.append(stream, &records).unwrap();
}

#[test]
fn resumes_at_the_committed_position_and_redelivers_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "results", 1, 1 << 20);
    append_n(&log, "results", 0, 0, 10);

    let mut consumer = log.consumer("aggregator", &["results"]).unwrap();
    assert_eq!(consumer.committed("results", 0).unwrap(), None);
    let first = consumer.poll(4, Duration::ZERO).unwrap();
    let offsets: Vec<u64> = first.iter().map(|r| r.offset).collect();
    assert_eq!(offsets, [0, 1, 2, 3]);
    let second = consumer.poll(4, Duration::ZERO).unwrap();
    assert_eq!(second[0].offset, 4);
    // Only the first four were handled durably.
    consumer.commit(&[first[3].next_position()]).unwrap();
    assert_eq!(consumer.committed("results", 0).unwrap(), Some(4));
    drop(consumer);

    // A new consumer of the group, even in another log instance (another process), starts at 4.
    let other = open_log(dir.path(), 1 << 20);
    let mut consumer = other.consumer("aggregator", &["results"]).unwrap();
    assert_eq!(consumer.committed("results", 0).unwrap(), Some(4));
    let again = consumer.poll(100, Duration::ZERO).unwrap();
    let offsets: Vec<u64> = again.iter().map(|r| r.offset).collect();
    assert_eq!(
        offsets,
        (4..10).collect::<Vec<_>>(),
        "uncommitted records come again"
    );
    assert_eq!(again[0].value, b"results-0-4");
    assert!(consumer.poll(100, Duration::ZERO).unwrap().is_empty());

    // Another group has its own position.
    let mut projection = log.consumer("projection", &["results"]).unwrap();
    assert_eq!(projection.poll(1, Duration::ZERO).unwrap()[0].offset, 0);
}

#[test]
fn one_consumer_per_group() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "results", 1, 1 << 20);
    let consumer = log.consumer("aggregator", &["results"]).unwrap();
    for other in [log.clone(), open_log(dir.path(), 1 << 20)] {
        let err = other.consumer("aggregator", &["results"]).err().unwrap();
        assert!(matches!(err, Error::GroupBusy { .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with("consumer group \"aggregator\" is already in use by another consumer"),
            "{err}"
        );
    }
    drop(consumer);
    log.consumer("aggregator", &["results"]).unwrap();
}

#[test]
fn consumer_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "results", 2, 1 << 20);
    let err = log.consumer("g", &["missing"]).err().unwrap();
    assert!(matches!(err, Error::UnknownStream { .. }), "{err}");
    let err = log.consumer("bad group", &["results"]).err().unwrap();
    assert!(matches!(err, Error::InvalidName { .. }), "{err}");
    let err = log.consumer("g", &[]).err().unwrap();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");

    let mut consumer = log.consumer("g", &["results"]).unwrap();
    let err = consumer.seek("results", 7, 0).unwrap_err();
    assert!(matches!(err, Error::NotAssigned { .. }), "{err}");
    let err = consumer
        .commit(&[Position {
            stream: "results".to_owned(),
            partition: 9,
            next_offset: 1,
        }])
        .unwrap_err();
    assert!(matches!(err, Error::UnknownPartition { .. }), "{err}");
    // Seeking past the end makes the next poll fail loudly.
    consumer.seek("results", 0, 5).unwrap();
    let err = consumer.poll(10, Duration::ZERO).unwrap_err();
    assert!(
        matches!(err, Error::OffsetOutOfRange { offset: 5, .. }),
        "{err}"
    );
}

#[test]
fn seek_rewinds_without_touching_the_committed_position() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "results", 1, 1 << 20);
    append_n(&log, "results", 0, 0, 5);
    let mut consumer = log.consumer("g", &["results"]).unwrap();
    let all = consumer.poll(10, Duration::ZERO).unwrap();
    consumer.commit(&[all[4].next_position()]).unwrap();
    consumer.seek("results", 0, 2).unwrap();
    let again = consumer.poll(10, Duration::ZERO).unwrap();
    assert_eq!(again.first().map(|r| r.offset), Some(2));
    assert_eq!(again.len(), 3);
    assert_eq!(consumer.committed("results", 0).unwrap(), Some(5));
}

#[test]
fn every_partition_of_every_stream_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "a", 3, 1 << 20);
    log.create_stream("b", &StreamConfig::with_partitions(2))
        .unwrap();
    for p in 0..3 {
        append_n(&log, "a", p, 0, 50);
    }
    for p in 0..2 {
        append_n(&log, "b", p, 0, 50);
    }
    let mut consumer = log.consumer("g", &["a", "b", "a"]).unwrap();
    // Small polls: each partition gets its turn rather than one partition first.
    let first = consumer.poll(10, Duration::ZERO).unwrap();
    let second = consumer.poll(10, Duration::ZERO).unwrap();
    assert_ne!(
        (&first[0].stream, first[0].partition),
        (&second[0].stream, second[0].partition)
    );
    let mut seen = first.len() + second.len();
    let mut last = std::collections::HashMap::new();
    for r in first.iter().chain(&second) {
        last.insert((r.stream.clone(), r.partition), r.offset);
    }
    loop {
        let records = consumer.poll(17, Duration::ZERO).unwrap();
        if records.is_empty() {
            break;
        }
        for r in &records {
            let key = (r.stream.clone(), r.partition);
            let expected = last.get(&key).map_or(0, |o| o + 1);
            assert_eq!(r.offset, expected, "in order within {key:?}");
            assert_eq!(
                r.value,
                format!("{}-{}-{}", r.stream, r.partition, r.offset).as_bytes()
            );
            last.insert(key, r.offset);
        }
        seen += records.len();
    }
    assert_eq!(seen, 250);
    let positions: Vec<Position> = last
        .iter()
        .map(|((s, p), o)| Position {
            stream: s.clone(),
            partition: *p,
            next_offset: o + 1,
        })
        .collect();
    consumer.commit(&positions).unwrap();
    drop(consumer);
    let mut consumer = log.consumer("g", &["a", "b"]).unwrap();
    assert!(consumer.poll(100, Duration::ZERO).unwrap().is_empty());
    assert_eq!(consumer.committed("b", 1).unwrap(), Some(50));
}

#[test]
fn poll_waits_and_wakes_up_on_append() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "results", 1, 1 << 20);
    let mut consumer = log.consumer("g", &["results"]).unwrap();

    let started = Instant::now();
    assert!(
        consumer
            .poll(10, Duration::from_millis(30))
            .unwrap()
            .is_empty()
    );
    assert!(started.elapsed() >= Duration::from_millis(30));

    let writer = log.clone();
    let handle = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        append_n(&writer, "results", 0, 0, 1);
        Instant::now()
    });
    let records = consumer.poll(10, Duration::from_secs(10)).unwrap();
    let received = Instant::now();
    let appended = handle.join().unwrap();
    assert_eq!(records.len(), 1);
    let latency = received.saturating_duration_since(appended);
    assert!(
        latency < Duration::from_millis(100),
        "woke after {latency:?}"
    );
}

#[test]
fn poll_sees_appends_from_another_log_instance() {
    // Another instance stands for another process: no in-memory wake-up, only the files.
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "results", 2, 1 << 20);
    let writer = open_log(dir.path(), 1 << 20);
    let mut consumer = log.consumer("g", &["results"]).unwrap();
    let handle = std::thread::spawn(move || {
        for i in 0..20 {
            std::thread::sleep(Duration::from_millis(2));
            append_n(&writer, "results", i % 2, u64::from(i / 2), 1);
        }
    });
    let mut got = 0;
    let deadline = Instant::now() + Duration::from_secs(20);
    while got < 20 && Instant::now() < deadline {
        got += consumer
            .poll(100, Duration::from_millis(100))
            .unwrap()
            .len();
    }
    handle.join().unwrap();
    assert_eq!(got, 20);
}
