//! Against a real broker: the one `SIMPAIRS_KAFKA` names (`scripts/broker start` runs Tansu with
//! SQLite storage). Without it these tests fail under CI and pass over, saying so, elsewhere.

use crate::common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use simpairs_kafka::{DeliveryMode, KafkaConfig, KafkaLog, Transactions};
use simpairs_log::{Consumer, Error, Log, Produce, Record, StreamConfig, partition_for_key};

use common::{broker, connect, now_ms, trace, unique};

/// Appends `n` records keyed `club-<i % 17>` with value `record-<tag>-<i>`; returns their places.
fn append_keyed(log: &KafkaLog, stream: &str, tag: &str, n: usize) -> Vec<(u32, u64)> {
    append_keyed_at(log, stream, tag, n, now_ms())
}

/// As [`append_keyed`], record `i` with timestamp `at + i`.
fn append_keyed_at(log: &KafkaLog, stream: &str, tag: &str, n: usize, at: i64) -> Vec<(u32, u64)> {
    let values: Vec<String> = (0..n).map(|i| format!("record-{tag}-{i:05}")).collect();
    let keys: Vec<String> = (0..n).map(|i| format!("club-{}", i % 17)).collect();
    let records: Vec<Produce<'_>> = (0..n)
        .map(|i| Produce::new(keys[i].as_bytes(), values[i].as_bytes(), at + i as i64))
        .collect();
    log.append(stream, &records).expect("append")
}

/// Reads a whole partition with `read`, in chunks of `chunk`.
fn read_all(log: &KafkaLog, stream: &str, partition: u32, chunk: usize) -> Vec<Record> {
    let end = log.end_offset(stream, partition).unwrap();
    let mut at = 0;
    let mut out = Vec::new();
    while at < end {
        let batch = log.read(stream, partition, at, chunk).unwrap();
        assert!(
            !batch.is_empty(),
            "read from {at} below the end {end} gave nothing"
        );
        at = batch.last().unwrap().offset + 1;
        out.extend(batch);
    }
    out
}

#[test]
fn create_stream_is_idempotent_and_checks_partitions() {
    trace();
    let Some(location) = broker() else { return };
    let log = connect(&location);
    let name = unique("create");
    log.create_stream(&name, &StreamConfig::with_partitions(3))
        .unwrap();
    log.create_stream(&name, &StreamConfig::with_partitions(3))
        .expect("the same stream again is fine");
    assert_eq!(log.partitions(&name).unwrap(), 3);

    // Another KafkaLog (no cache) sees the same, and refuses another partition count.
    let other = connect(&location);
    other
        .create_stream(&name, &StreamConfig::with_partitions(3))
        .unwrap();
    match other.create_stream(&name, &StreamConfig::with_partitions(5)) {
        Err(Error::StreamExists {
            existing: 3,
            requested: 5,
            ..
        }) => {}
        other => panic!("expected StreamExists, got {other:?}"),
    }

    // Compaction and retention are accepted.
    let compacted = unique("compacted");
    log.create_stream(
        &compacted,
        &StreamConfig {
            partitions: 1,
            compacted: true,
            retention: Some(Duration::from_secs(7 * 24 * 3600)),
        },
    )
    .unwrap();
    assert_eq!(log.partitions(&compacted).unwrap(), 1);

    // Asking about a stream that does not exist does not create it.
    let missing = unique("missing");
    for _ in 0..2 {
        match log.partitions(&missing) {
            Err(Error::UnknownStream { stream }) => assert_eq!(stream, missing),
            other => panic!("expected UnknownStream, got {other:?}"),
        }
    }
    assert!(matches!(
        log.append(&missing, &[Produce::new(b"k", b"v", 1)]),
        Err(Error::UnknownStream { .. })
    ));
    assert!(matches!(
        log.consumer("g", &[&missing]),
        Err(Error::UnknownStream { .. })
    ));
    assert!(matches!(
        log.create_stream("no spaces", &StreamConfig::default()),
        Err(Error::InvalidName { .. })
    ));
}

#[test]
fn append_and_read_round_trip_over_three_partitions() {
    trace();
    let Some(location) = broker() else { return };
    let log = connect(&location);
    let stream = unique("roundtrip");
    log.create_stream(&stream, &StreamConfig::with_partitions(3))
        .unwrap();
    assert_eq!(log.end_offset(&stream, 0).unwrap(), 0);
    assert!(log.read(&stream, 0, 0, 10).unwrap().is_empty());

    let n = 500;
    let first = now_ms();
    let placed = append_keyed_at(&log, &stream, "a", n, first);
    assert_eq!(placed.len(), n);
    // Keys decide partitions exactly as the embedded log does.
    for (i, (partition, _)) in placed.iter().enumerate() {
        let key = format!("club-{}", i % 17);
        assert_eq!(
            *partition,
            partition_for_key(key.as_bytes(), 3),
            "record {i}"
        );
    }
    // Offsets of one partition are consecutive, in the order of the records.
    let mut per_partition: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for &(p, o) in &placed {
        per_partition.entry(p).or_default().push(o);
    }
    assert_eq!(
        per_partition.len(),
        3,
        "17 keys spread over every partition"
    );
    for offsets in per_partition.values() {
        let expected: Vec<u64> = (0..offsets.len() as u64).collect();
        assert_eq!(offsets, &expected);
    }

    // An explicit partition wins over the key.
    let explicit = log
        .append(
            &stream,
            &[Produce::new(b"club-0", b"pinned", first).to_partition(2)],
        )
        .unwrap();
    assert_eq!(explicit[0].0, 2);

    for partition in 0..3 {
        let end = log.end_offset(&stream, partition).unwrap();
        let expected_len = per_partition[&partition].len() as u64 + u64::from(partition == 2);
        assert_eq!(end, expected_len, "end offset of partition {partition}");
        let records = read_all(&log, &stream, partition, 64);
        assert_eq!(records.len() as u64, end);
        for (i, r) in records.iter().enumerate() {
            assert_eq!(r.offset, i as u64);
            assert_eq!(r.partition, partition);
            assert_eq!(r.stream, stream);
        }
        // Each record is the one appended there, with its key and timestamp.
        for (i, &(p, o)) in placed.iter().enumerate() {
            if p == partition {
                let r = &records[o as usize];
                assert_eq!(r.value, format!("record-a-{i:05}").into_bytes());
                assert_eq!(r.key, format!("club-{}", i % 17).into_bytes());
                assert_eq!(r.timestamp_ms, first + i as i64);
            }
        }
        // At the end: nothing; past it: an error naming the range.
        assert!(log.read(&stream, partition, end, 10).unwrap().is_empty());
        match log.read(&stream, partition, end + 1, 10) {
            Err(Error::OffsetOutOfRange {
                start: 0, end: e, ..
            }) => assert_eq!(e, end),
            other => panic!("expected OffsetOutOfRange, got {other:?}"),
        }
        // `max` is respected and a read may start in the middle.
        let middle = log.read(&stream, partition, 3, 5).unwrap();
        assert_eq!(
            middle.iter().map(|r| r.offset).collect::<Vec<_>>(),
            vec![3, 4, 5, 6, 7]
        );
    }
    assert!(matches!(
        log.read(&stream, 3, 0, 1),
        Err(Error::UnknownPartition { partitions: 3, .. })
    ));
    assert!(matches!(
        log.append(&stream, &[Produce::new(b"k", b"v", 1).to_partition(7)]),
        Err(Error::UnknownPartition { .. })
    ));
}

#[test]
fn tansu_has_no_transactions_so_auto_falls_back_to_idempotent() {
    trace();
    let Some(location) = broker() else { return };
    let log = connect(&location);
    let supported = log.supports_transactions().unwrap();
    let mode = log.delivery_mode().unwrap();
    eprintln!("broker {location}: transactions supported: {supported}, delivery mode: {mode:?}");
    assert_eq!(
        mode,
        if supported {
            DeliveryMode::Transactional
        } else {
            DeliveryMode::Idempotent
        }
    );
    if !supported {
        // `required` says why instead of silently falling back.
        let mut config = KafkaConfig::from_location_and_env(&location).unwrap();
        config.transactions = Transactions::Required;
        let strict = KafkaLog::connect(config).unwrap();
        let stream = unique("required");
        strict
            .create_stream(&stream, &StreamConfig::default())
            .unwrap();
        let err = strict
            .append(&stream, &[Produce::new(b"k", b"v", 1)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("transactions are required"), "{err}");
    }
}

#[test]
fn a_new_group_member_resumes_at_the_committed_position() {
    trace();
    let Some(location) = broker() else { return };
    let log = connect(&location);
    let stream = unique("resume");
    let group = unique("resume-group");
    log.create_stream(&stream, &StreamConfig::with_partitions(3))
        .unwrap();
    let n = 300;
    append_keyed(&log, &stream, "r", n);

    // The first member reads everything, but commits only up to the middle of each partition.
    let mut first = log.group_consumer(&group, &[&stream]).unwrap();
    assert_eq!(first.committed(&stream, 0).unwrap(), None);
    let joined = Instant::now();
    let mut seen: Vec<Record> = Vec::new();
    while seen.len() < n {
        let batch = first.poll(1000, Duration::from_secs(1)).unwrap();
        assert!(
            !batch.is_empty() || joined.elapsed() < Duration::from_secs(60),
            "no records after 60 s"
        );
        seen.extend(batch);
    }
    eprintln!(
        "first member: {} records, joined and drained in {:.2} s",
        seen.len(),
        joined.elapsed().as_secs_f64()
    );
    // An empty poll means the member has read everything it was given.
    assert!(
        first
            .poll(10, Duration::from_millis(200))
            .unwrap()
            .is_empty()
    );
    assert!(first.caught_up());
    let mut halfway: BTreeMap<u32, u64> = BTreeMap::new();
    for p in 0..3 {
        let count = seen.iter().filter(|r| r.partition == p).count() as u64;
        halfway.insert(p, count / 2);
    }
    let positions: Vec<_> = halfway
        .iter()
        .map(|(&p, &o)| simpairs_log::Position {
            stream: stream.clone(),
            partition: p,
            next_offset: o,
        })
        .collect();
    first.commit(&positions).unwrap();
    for (&p, &o) in &halfway {
        assert_eq!(first.committed(&stream, p).unwrap(), Some(o));
    }
    drop(first);

    // A new member of the same group starts exactly there.
    let mut second = log.group_consumer(&group, &[&stream]).unwrap();
    for (&p, &o) in &halfway {
        assert_eq!(second.committed(&stream, p).unwrap(), Some(o));
    }
    let started = Instant::now();
    let mut again: Vec<Record> = Vec::new();
    loop {
        let batch = second.poll(1000, Duration::from_secs(1)).unwrap();
        if batch.is_empty() {
            break;
        }
        again.extend(batch);
        assert!(started.elapsed() < Duration::from_secs(60));
    }
    eprintln!(
        "second member: {} records in {:.2} s (join included)",
        again.len(),
        started.elapsed().as_secs_f64()
    );
    let expected: usize = halfway
        .iter()
        .map(|(&p, &o)| seen.iter().filter(|r| r.partition == p).count() - o as usize)
        .sum();
    assert_eq!(again.len(), expected);
    for (&p, &o) in &halfway {
        let offsets: Vec<u64> = again
            .iter()
            .filter(|r| r.partition == p)
            .map(|r| r.offset)
            .collect();
        let total = seen.iter().filter(|r| r.partition == p).count() as u64;
        assert_eq!(offsets, (o..total).collect::<Vec<_>>(), "partition {p}");
    }

    // seek moves the reading position, not the committed one.
    second.seek(&stream, 0, 0).unwrap();
    let mut reread = Vec::new();
    let started = Instant::now();
    while reread.len() < halfway[&0] as usize * 2 && started.elapsed() < Duration::from_secs(30) {
        reread.extend(
            second
                .poll(1000, Duration::from_millis(500))
                .unwrap()
                .into_iter()
                .filter(|r| r.partition == 0),
        );
    }
    assert_eq!(reread.first().map(|r| r.offset), Some(0));
    assert_eq!(second.committed(&stream, 0).unwrap(), Some(halfway[&0]));
}

/// Two members of one group polling on their own threads.
struct Member {
    assignment: Arc<Mutex<Vec<(String, u32)>>>,
    records: Arc<Mutex<Vec<Record>>>,
    handle: thread::JoinHandle<()>,
}

fn member(log: &Arc<KafkaLog>, group: &str, stream: &str, stop: &Arc<AtomicBool>) -> Member {
    let assignment = Arc::new(Mutex::new(Vec::new()));
    let records = Arc::new(Mutex::new(Vec::new()));
    let mut consumer = log.group_consumer(group, &[stream]).unwrap();
    let handle = {
        let (assignment, records, stop) = (assignment.clone(), records.clone(), stop.clone());
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let batch = consumer.poll(500, Duration::from_millis(100)).unwrap();
                if !batch.is_empty() {
                    // Effects first (here: remembering the records), then the commit.
                    let mut last: HashMap<(String, u32), u64> = HashMap::new();
                    for r in &batch {
                        last.insert((r.stream.clone(), r.partition), r.offset + 1);
                    }
                    records.lock().unwrap().extend(batch);
                    let positions: Vec<_> = last
                        .into_iter()
                        .map(
                            |((stream, partition), next_offset)| simpairs_log::Position {
                                stream,
                                partition,
                                next_offset,
                            },
                        )
                        .collect();
                    if let Err(e) = consumer.commit(&positions) {
                        eprintln!("commit failed (records will come again): {e}");
                    }
                }
                *assignment.lock().unwrap() = consumer.assignment();
            }
        })
    };
    Member {
        assignment,
        records,
        handle,
    }
}

#[test]
fn two_members_of_a_group_split_the_partitions() {
    trace();
    let Some(location) = broker() else { return };
    let log = Arc::new(connect(&location));
    let stream = unique("split");
    let group = unique("split-group");
    let partitions = 4;
    log.create_stream(&stream, &StreamConfig::with_partitions(partitions))
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));

    let started = Instant::now();
    let a = member(&log, &group, &stream, &stop);
    while a.assignment.lock().unwrap().len() != partitions as usize {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "first member never got the partitions"
        );
        thread::sleep(Duration::from_millis(20));
    }
    let first_join = started.elapsed();

    // A second member joins: the group rebalances until each has some and together all.
    let started = Instant::now();
    let b = member(&log, &group, &stream, &stop);
    let settled = loop {
        let (x, y) = (
            a.assignment.lock().unwrap().clone(),
            b.assignment.lock().unwrap().clone(),
        );
        let union: BTreeSet<_> = x.iter().chain(&y).cloned().collect();
        if !x.is_empty()
            && !y.is_empty()
            && union.len() == partitions as usize
            && x.len() + y.len() == union.len()
        {
            break (x, y);
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "no settled split after 90 s: {x:?} / {y:?}"
        );
        thread::sleep(Duration::from_millis(20));
    };
    let rebalance = started.elapsed();
    eprintln!(
        "first member joined in {:.2} s; the rebalance for the second took {:.2} s; split {:?} / {:?}",
        first_join.as_secs_f64(),
        rebalance.as_secs_f64(),
        settled.0,
        settled.1
    );

    let n = 2000;
    let placed = append_keyed(&log, &stream, "s", n);
    let expected: BTreeSet<(u32, u64)> = placed.iter().copied().collect();
    let started = Instant::now();
    loop {
        let total = a.records.lock().unwrap().len() + b.records.lock().unwrap().len();
        if total >= n {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "only {total} of {n} records after 60 s"
        );
        thread::sleep(Duration::from_millis(20));
    }
    // Give a duplicate, if any, time to show up.
    thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::Relaxed);
    a.handle.join().unwrap();
    b.handle.join().unwrap();

    let mut count: BTreeMap<(u32, u64), usize> = BTreeMap::new();
    for (who, records, own) in [("a", &a.records, &settled.0), ("b", &b.records, &settled.1)] {
        let records = records.lock().unwrap();
        assert!(!records.is_empty(), "member {who} got nothing");
        for r in records.iter() {
            assert!(
                own.contains(&(stream.clone(), r.partition)),
                "member {who} got a record of partition {} it was not assigned",
                r.partition
            );
            *count.entry((r.partition, r.offset)).or_default() += 1;
        }
    }
    let seen: BTreeSet<(u32, u64)> = count.keys().copied().collect();
    assert_eq!(seen, expected, "every record seen");
    let twice: Vec<_> = count.iter().filter(|&(_, &c)| c > 1).collect();
    assert!(twice.is_empty(), "seen more than once: {twice:?}");
}
