//! Appending and reading back: offsets, segment rolls, partitions, errors.

use crate::common;

use common::{
    assert_dense, check_tagged, log_with_stream, open_log, read_all, segment_files, tagged_value,
};
use simpairs_log::{
    EmbeddedLog, Error, Log, MAX_RECORD_BYTES, Options, Produce, StreamConfig, partition_for_key,
};

#[test]
fn round_trip_across_segment_rolls() {
    let dir = tempfile::tempdir().unwrap();
    // Tiny segments: a new file every few batches.
    let log = log_with_stream(dir.path(), "results", 1, 1_000);
    let mut seq = 0u64;
    for batch in 0..50u64 {
        let values: Vec<Vec<u8>> = (0..(batch % 7 + 1))
            .map(|i| tagged_value(0, seq + i, 20 + (batch as usize * 13) % 90))
            .collect();
        let records: Vec<Produce<'_>> = values
            .iter()
            .map(|v| Produce::new(b"k", v, batch as i64).to_partition(0))
            .collect();
        let placed = log.append("results", &records).unwrap();
        for (i, &(p, o)) in placed.iter().enumerate() {
            assert_eq!((p, o), (0, seq + i as u64));
        }
        seq += values.len() as u64;
    }
    assert!(
        segment_files(dir.path(), "results", 0).len() > 10,
        "segments should roll"
    );
    assert_eq!(log.end_offset("results", 0).unwrap(), seq);

    for chunk in [1, 3, 1000] {
        // Through the log that wrote them and through a fresh one that must scan the files.
        for reader in [log.clone(), open_log(dir.path(), 1_000)] {
            let records = read_all(&reader, "results", 0, chunk);
            assert_eq!(records.len() as u64, seq);
            assert_dense(&records, "results", 0);
            for r in &records {
                assert_eq!(check_tagged(&r.value), (0, r.offset));
                assert_eq!(r.key, b"k");
            }
        }
    }

    // Random access: every offset, in reverse order, from a fresh log.
    let fresh = open_log(dir.path(), 1_000);
    for offset in (0..seq).rev() {
        let r = fresh.read("results", 0, offset, 1).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].offset, offset);
        assert_eq!(check_tagged(&r[0].value), (0, offset));
    }
    // At the end: nothing; past it: an error.
    assert!(fresh.read("results", 0, seq, 10).unwrap().is_empty());
    let err = fresh.read("results", 0, seq + 1, 10).unwrap_err();
    assert!(matches!(err, Error::OffsetOutOfRange { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "stream \"results\" partition 0 holds offsets 0 up to (not including) {seq}; offset {} is outside that range",
            seq + 1
        )
    );
}

#[test]
fn appends_continue_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..3u64 {
        let log = log_with_stream(dir.path(), "s", 1, 500);
        let values: Vec<Vec<u8>> = (0..10)
            .map(|i| tagged_value(1, round * 10 + i, 40))
            .collect();
        let records: Vec<_> = values.iter().map(|v| Produce::new(b"", v, 0)).collect();
        let placed = log.append("s", &records).unwrap();
        assert_eq!(placed[0].1, round * 10);
    }
    let log = open_log(dir.path(), 500);
    let records = read_all(&log, "s", 0, 7);
    assert_eq!(records.len(), 30);
    assert_dense(&records, "s", 0);
}

#[test]
fn a_batch_larger_than_a_segment_gets_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 100);
    let big = vec![7u8; 1_000];
    log.append("s", &[Produce::new(b"a", &big, 1)]).unwrap();
    log.append(
        "s",
        &[Produce::new(b"b", &big, 2), Produce::new(b"c", &big, 3)],
    )
    .unwrap();
    log.append("s", &[Produce::new(b"d", b"small", 4)]).unwrap();
    assert_eq!(segment_files(dir.path(), "s", 0).len(), 3);
    let records = read_all(&open_log(dir.path(), 100), "s", 0, 10);
    let keys: Vec<&[u8]> = records.iter().map(|r| &r.key[..]).collect();
    assert_eq!(keys, [b"a", b"b", b"c", b"d"]);
    assert_eq!(records[3].value, b"small");
    assert_eq!(records[2].timestamp_ms, 3);
}

#[test]
fn records_larger_than_a_read_are_read_whole_between_small_ones() {
    // A reader asks for at most a few hundred kilobytes at once; a record larger than that is
    // read whole, and the small records around it are neither lost nor repeated.
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 64 << 20);
    let sizes = [100, 700_000, 50, 3_000_000, 300_000, 80];
    let values: Vec<Vec<u8>> = (0..sizes.len() as u64)
        .map(|seq| tagged_value(0, seq, sizes[seq as usize]))
        .collect();
    for (i, pair) in values.chunks(2).enumerate() {
        let records: Vec<Produce<'_>> = pair
            .iter()
            .map(|v| Produce::new(b"k", v, i as i64))
            .collect();
        log.append("s", &records).unwrap();
    }
    for chunk in [1, 2, 1000] {
        let records = read_all(&open_log(dir.path(), 64 << 20), "s", 0, chunk);
        let read: Vec<(u64, usize)> = records
            .iter()
            .map(|r| (check_tagged(&r.value).1, r.value.len()))
            .collect();
        let written: Vec<(u64, usize)> = (0..sizes.len() as u64).zip(sizes).collect();
        assert_eq!(read, written, "read {chunk} at a time");
    }
}

#[test]
fn records_go_to_the_partition_of_their_key() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "results", 4, 1 << 20);
    let keys: Vec<String> = (0..200).map(|i| format!("club-{i}")).collect();
    let records: Vec<_> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| Produce::new(k.as_bytes(), k.as_bytes(), i as i64))
        .collect();
    let placed = log.append("results", &records).unwrap();
    let mut next = [0u64; 4];
    for (k, &(p, o)) in keys.iter().zip(&placed) {
        assert_eq!(p, partition_for_key(k.as_bytes(), 4));
        assert_eq!(
            o, next[p as usize],
            "offsets per partition follow the input order"
        );
        next[p as usize] += 1;
    }
    assert!(
        next.iter().all(|&n| n > 20),
        "keys spread over partitions: {next:?}"
    );
    for p in 0..4 {
        let records = read_all(&log, "results", p, 1000);
        assert_eq!(records.len() as u64, next[p as usize]);
        assert_dense(&records, "results", p);
        for r in records {
            assert_eq!(r.key, r.value);
            assert_eq!(partition_for_key(&r.key, 4), p);
        }
    }
    // An explicit partition wins over the key.
    let placed = log
        .append(
            "results",
            &[Produce::new(b"club-1", b"x", 0).to_partition(3)],
        )
        .unwrap();
    assert_eq!(placed, [(3, next[3])]);
}

#[test]
fn streams_are_created_once() {
    let dir = tempfile::tempdir().unwrap();
    let log = open_log(dir.path(), 1 << 20);
    let config = StreamConfig {
        partitions: 3,
        compacted: true,
        retention: Some(std::time::Duration::from_secs(3600)),
    };
    log.create_stream("board-scores", &config).unwrap();
    log.create_stream("board-scores", &config).unwrap();
    assert_eq!(log.partitions("board-scores").unwrap(), 3);

    // Another log on the same directory sees it, and cannot change its partition count.
    let other = open_log(dir.path(), 1 << 20);
    assert_eq!(other.partitions("board-scores").unwrap(), 3);
    other
        .create_stream("board-scores", &StreamConfig::with_partitions(3))
        .unwrap();
    let err = other
        .create_stream("board-scores", &StreamConfig::with_partitions(2))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "stream \"board-scores\" already exists with 3 partition(s); it cannot be re-created with 2"
    );

    let err = log
        .create_stream("x", &StreamConfig::with_partitions(0))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    let err = log
        .create_stream("../escape", &StreamConfig::default())
        .unwrap_err();
    assert!(matches!(err, Error::InvalidName { .. }), "{err}");
}

#[test]
fn clear_errors_for_wrong_names_and_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 2, 1 << 20);
    let err = log
        .append("nope", &[Produce::new(b"", b"", 0)])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "stream \"nope\" does not exist; create it first"
    );
    let err = log.read("s", 2, 0, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "stream \"s\" has 2 partition(s), numbered from 0; there is no partition 2"
    );
    let err = log
        .append("s", &[Produce::new(b"", b"", 0).to_partition(5)])
        .unwrap_err();
    assert!(
        matches!(err, Error::UnknownPartition { partition: 5, .. }),
        "{err}"
    );
    let huge = vec![0u8; MAX_RECORD_BYTES + 1];
    let err = log.append("s", &[Produce::new(b"", &huge, 0)]).unwrap_err();
    assert!(matches!(err, Error::RecordTooLarge { .. }), "{err}");
    // Nothing was written by the failed calls.
    assert_eq!(log.end_offset("s", 0).unwrap(), 0);
    assert_eq!(log.end_offset("s", 1).unwrap(), 0);
    assert!(log.append("s", &[]).unwrap().is_empty());
    assert!(log.read("s", 0, 0, 10).unwrap().is_empty());

    let err = EmbeddedLog::open_with(
        dir.path(),
        Options {
            fsync: false,
            segment_bytes: 0,
        },
    )
    .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
}

#[test]
fn empty_keys_and_values_and_extreme_timestamps() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 1 << 20);
    log.append(
        "s",
        &[
            Produce::new(b"", b"", i64::MIN),
            Produce::new(b"k", b"", i64::MAX),
            Produce::new(b"", b"v", -1),
        ],
    )
    .unwrap();
    let r = read_all(&open_log(dir.path(), 1 << 20), "s", 0, 10);
    assert_eq!(r.len(), 3);
    assert_eq!(
        (r[0].key.len(), r[0].value.len(), r[0].timestamp_ms),
        (0, 0, i64::MIN)
    );
    assert_eq!((&r[1].key[..], r[1].timestamp_ms), (&b"k"[..], i64::MAX));
    assert_eq!((&r[2].value[..], r[2].timestamp_ms), (&b"v"[..], -1));
}

#[test]
fn fsync_on_works_too() {
    let dir = tempfile::tempdir().unwrap();
    let log = EmbeddedLog::open(dir.path()).unwrap();
    assert!(log.options().fsync);
    log.create_stream("s", &StreamConfig::default()).unwrap();
    log.append(
        "s",
        &[Produce::new(b"a", b"1", 0), Produce::new(b"b", b"2", 0)],
    )
    .unwrap();
    let mut consumer = log.consumer("g", &["s"]).unwrap();
    let records = consumer.poll(10, std::time::Duration::ZERO).unwrap();
    assert_eq!(records.len(), 2);
    consumer.commit(&[records[1].next_position()]).unwrap();
    assert_eq!(consumer.committed("s", 0).unwrap(), Some(2));
}

#[test]
fn many_threads_append_to_one_partition() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 4_000);
    std::thread::scope(|scope| {
        for writer in 0..4u8 {
            let log = log.clone();
            scope.spawn(move || {
                for batch in 0..50u64 {
                    let values: Vec<_> = (0..5)
                        .map(|i| tagged_value(writer, batch * 5 + i, 30))
                        .collect();
                    let records: Vec<_> = values.iter().map(|v| Produce::new(b"", v, 0)).collect();
                    log.append("s", &records).unwrap();
                }
            });
        }
    });
    let records = read_all(&open_log(dir.path(), 4_000), "s", 0, 64);
    assert_eq!(records.len(), 4 * 250);
    assert_dense(&records, "s", 0);
    let mut next = [0u64; 4];
    for r in &records {
        let (w, seq) = check_tagged(&r.value);
        assert_eq!(seq, next[w as usize], "each writer's records stay in order");
        next[w as usize] += 1;
    }
    // Batches were not interleaved: each run of 5 belongs to one writer.
    for chunk in records.chunks(5) {
        let w = check_tagged(&chunk[0].value).0;
        assert!(chunk.iter().all(|r| check_tagged(&r.value).0 == w));
    }
}

#[test]
fn a_poll_at_the_end_takes_no_room_and_a_read_behind_it_room_for_what_is_there() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "results", 1, 1 << 20);
    append_tagged(&log, 0..5);
    // A live consumer at the end polls again and again, mostly for nothing.
    let nothing = log.read("results", 0, 5, 10_000).unwrap();
    assert!(nothing.is_empty());
    assert_eq!(nothing.capacity(), 0);
    // Behind the end, room for the records there, not for the whole batch asked for.
    let some = log.read("results", 0, 2, 10_000).unwrap();
    assert_eq!(some.len(), 3);
    assert_eq!(some.capacity(), 3);
    // Records appended after the end was last seen are read, with room made as they come.
    append_tagged(&log, 5..9);
    let fresh = open_log(dir.path(), 1 << 20);
    assert_eq!(fresh.read("results", 0, 0, 10_000).unwrap().len(), 9);
    let late = log.read("results", 0, 5, 10_000).unwrap();
    assert_eq!(late.len(), 4);
    assert_dense(&log.read("results", 0, 0, 10_000).unwrap(), "results", 0);
}

/// Appends the tagged values of sequence numbers `seqs` to partition 0 of `results`.
fn append_tagged(log: &EmbeddedLog, seqs: std::ops::Range<u64>) {
    let values: Vec<Vec<u8>> = seqs.map(|i| tagged_value(0, i, 40)).collect();
    let records: Vec<Produce<'_>> = values
        .iter()
        .map(|v| Produce::new(b"k", v, 0).to_partition(0))
        .collect();
    log.append("results", &records).unwrap();
}
