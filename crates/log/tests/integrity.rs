//! Loss is loud (issue 18): deleted segments, cut or altered tails and segments that end before
//! what a consumer group committed are errors for every reader and writer, never a shorter
//! stream returned as if whole, never offsets reused. A real torn tail (bytes of an interrupted
//! append after the last durable one) is still cut silently by the next writer.

use crate::common;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{as_interrupted, log_with_stream, open_log, read_all, segment_files};
use simpairs_log::{EmbeddedLog, Error, Log, Produce, RepairOptions};

/// Small segments: three batches of three records (57 bytes each) fill one.
const SEGMENT_BYTES: u64 = 600;
/// Bytes of one record with a 1-byte key and a 20-byte value.
const FRAME: u64 = 36 + 1 + 20;

/// Appends batches of `sizes` records (key "k", 20-byte values naming their offset), from offset `first`.
fn append_batches(log: &dyn Log, first: u64, sizes: &[usize]) -> u64 {
    let mut n = first;
    for &size in sizes {
        append_batch(log, n, size, false);
        n += size as u64;
    }
    n
}

/// Appends one batch of `size` such records from offset `first`, without a flush if `derived`.
fn append_batch(log: &dyn Log, first: u64, size: usize, derived: bool) {
    let values: Vec<String> = (first..first + size as u64)
        .map(|n| format!("value number {n:07}"))
        .collect();
    let records: Vec<_> = values
        .iter()
        .map(|v| Produce::new(b"k", v.as_bytes(), 0).to_partition(0))
        .collect();
    if derived {
        log.append_derived("s", &records).expect("append derived");
    } else {
        log.append("s", &records).expect("append");
    }
}

/// A log with 20 batches of 3 records (offsets 0..60) in one partition, over several segments.
fn sixty_records(dir: &Path) -> EmbeddedLog {
    let log = log_with_stream(dir, "s", 1, SEGMENT_BYTES);
    assert_eq!(append_batches(&log, 0, &[3; 20]), 60);
    assert!(segment_files(dir, "s", 0).len() >= 6, "several segments");
    log
}

fn fresh(dir: &Path) -> EmbeddedLog {
    open_log(dir, SEGMENT_BYTES)
}

fn truncate_by(path: &Path, bytes: u64) {
    let file = OpenOptions::new().write(true).open(path).unwrap();
    let len = file.metadata().unwrap().len();
    file.set_len(len - bytes).unwrap();
}

fn flip_byte(path: &Path, at: u64) {
    let mut bytes = fs::read(path).unwrap();
    bytes[at as usize] ^= 0x5a;
    fs::write(path, bytes).unwrap();
}

fn append_bytes(path: &Path, bytes: &[u8]) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

fn last_segment(dir: &Path) -> PathBuf {
    segment_files(dir, "s", 0).pop().expect("a segment")
}

/// The error of `result`, whose message must contain every one of `words`.
fn loud<T: std::fmt::Debug>(result: simpairs_log::Result<T>, words: &[&str]) -> Error {
    let err = match result {
        Ok(value) => {
            let shown: String = format!("{value:?}").chars().take(120).collect();
            panic!("expected an error naming {words:?}, got Ok({shown}...)")
        }
        Err(err) => err,
    };
    let message = err.to_string();
    for word in words {
        assert!(message.contains(word), "{word:?} missing from: {message}");
    }
    err
}

/// Every way of reading or writing the partition fails with an error containing `words`, and
/// nothing is appended.
fn every_role_refuses(dir: &Path, words: &[&str]) {
    let before: Vec<(PathBuf, u64)> = segment_files(dir, "s", 0)
        .into_iter()
        .map(|p| {
            let len = fs::metadata(&p).unwrap().len();
            (p, len)
        })
        .collect();
    let log = fresh(dir);
    loud(log.read("s", 0, 0, 1000), words);
    loud(log.end_offset("s", 0), words);
    let mut consumer = log.consumer("late-reader", &["s"]).unwrap();
    loud(consumer.poll(1000, Duration::ZERO), words);
    loud(
        fresh(dir).append("s", &[Produce::new(b"k", b"must not be written!", 0)]),
        words,
    );
    // `log check` reports it, and `log repair` refuses to touch it.
    let report = simpairs_log::check(dir).unwrap();
    assert!(!report.is_whole());
    let problems: Vec<String> = report.problems().map(|e| e.to_string()).collect();
    assert!(
        problems.iter().any(|p| words.iter().all(|w| p.contains(w))),
        "no problem names {words:?}: {problems:#?}"
    );
    let repaired = simpairs_log::repair(dir, &RepairOptions::default()).unwrap();
    assert!(!repaired.is_whole());
    assert!(
        repaired
            .partitions
            .iter()
            .all(|p| p.cut.is_none() && !p.checkpoint_written)
    );
    let after: Vec<(PathBuf, u64)> = segment_files(dir, "s", 0)
        .into_iter()
        .map(|p| {
            let len = fs::metadata(&p).unwrap().len();
            (p, len)
        })
        .collect();
    assert_eq!(before, after, "a refused append changes no file");
}

#[test]
fn a_deleted_first_segment_is_loss() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    let files = segment_files(dir.path(), "s", 0);
    fs::remove_file(&files[0]).unwrap();
    every_role_refuses(
        dir.path(),
        &[
            "stream \"s\" partition 0",
            "00000000000000000000.log",
            "offset 0",
        ],
    );
}

#[test]
fn a_deleted_middle_segment_is_loss() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    let files = segment_files(dir.path(), "s", 0);
    fs::remove_file(&files[2]).unwrap();
    let name = files[2].file_name().unwrap().to_str().unwrap().to_owned();
    every_role_refuses(dir.path(), &["stream \"s\" partition 0", &name]);
}

#[test]
fn a_deleted_last_segment_is_loss() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    let last = last_segment(dir.path());
    fs::remove_file(&last).unwrap();
    let name = last.file_name().unwrap().to_str().unwrap().to_owned();
    every_role_refuses(dir.path(), &["stream \"s\" partition 0", &name, "60"]);
}

#[test]
fn a_middle_segment_cut_at_a_batch_boundary_is_loss() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    let files = segment_files(dir.path(), "s", 0);
    truncate_by(&files[2], 3 * FRAME);
    every_role_refuses(
        dir.path(),
        &[
            "stream \"s\" partition 0",
            "00000000000000000018.log",
            "offset 24 should be",
        ],
    );
}

#[test]
fn a_tail_cut_after_durable_appends_is_loss() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    let last = last_segment(dir.path());
    truncate_by(&last, 100);
    let name = last.file_name().unwrap().to_str().unwrap().to_owned();
    every_role_refuses(dir.path(), &["stream \"s\" partition 0", &name, "60"]);
}

#[test]
fn a_tail_cut_at_a_batch_boundary_is_loss() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    let last = last_segment(dir.path());
    truncate_by(&last, 3 * FRAME);
    let name = last.file_name().unwrap().to_str().unwrap().to_owned();
    every_role_refuses(dir.path(), &["stream \"s\" partition 0", &name, "60"]);
}

#[test]
fn a_flipped_byte_in_the_last_batch_is_not_a_torn_write() {
    for record in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let _log = sixty_records(dir.path());
        let last = last_segment(dir.path());
        let len = fs::metadata(&last).unwrap().len();
        // In the value of the first, second or third record of the last batch.
        flip_byte(&last, len - (3 - record) * FRAME + 45);
        let name = last.file_name().unwrap().to_str().unwrap().to_owned();
        every_role_refuses(dir.path(), &["stream \"s\" partition 0", &name]);
    }
}

#[test]
fn a_segment_ending_before_a_committed_position_is_loss() {
    let dir = tempfile::tempdir().unwrap();
    let log = sixty_records(dir.path());
    let mut consumer = log.consumer("aggregator", &["s"]).unwrap();
    let mut last = None;
    loop {
        let records = consumer.poll(1000, Duration::ZERO).unwrap();
        match records.last() {
            Some(r) => last = Some(r.next_position()),
            None => break,
        }
    }
    consumer.commit(&[last.unwrap()]).unwrap();
    drop(consumer);
    // Forget what the log knows of its own end: only the group's position is left to tell.
    for file in fs::read_dir(dir.path().join("s").join("0")).unwrap() {
        let path = file.unwrap().path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("checkpoint"))
        {
            fs::remove_file(path).unwrap();
        }
    }
    rewrite_stream_meta_as_version_1(dir.path());
    truncate_by(&last_segment(dir.path()), 3 * FRAME);
    every_role_refuses(
        dir.path(),
        &["stream \"s\" partition 0", "aggregator", "60"],
    );
    let err = loud(
        fresh(dir.path())
            .consumer("aggregator", &["s"])
            .and_then(|mut c| c.poll(10, Duration::ZERO)),
        &["aggregator", "60"],
    );
    drop(err);
}

/// Makes the stream look as written before checkpoints existed.
fn rewrite_stream_meta_as_version_1(dir: &Path) {
    let path = dir.join("s").join("stream.meta");
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[0] = "simpairs-log stream 1";
    fs::write(&path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_real_torn_tail_is_still_cut_by_the_next_writer() {
    let dir = tempfile::tempdir().unwrap();
    let log = sixty_records(dir.path());
    let last = last_segment(dir.path());
    let len = fs::metadata(&last).unwrap().len();
    // An interrupted append: a two-record batch written past the checkpoint, which was never
    // moved, and cut 70 bytes in (the first record whole, the second torn).
    as_interrupted(dir.path(), "s", 0, || {
        append_batches(&fresh(dir.path()), 60, &[2]);
    });
    assert_eq!(
        last_segment(dir.path()),
        last,
        "the batch went to the same segment"
    );
    OpenOptions::new()
        .write(true)
        .open(&last)
        .unwrap()
        .set_len(len + 70)
        .unwrap();

    for reader in [fresh(dir.path()), log.clone()] {
        assert_eq!(read_all(&reader, "s", 0, 7).len(), 60);
        assert_eq!(reader.end_offset("s", 0).unwrap(), 60);
    }
    let next = fresh(dir.path())
        .append("s", &[Produce::new(b"k", b"value number 0000060", 0)])
        .unwrap();
    assert_eq!(
        next,
        [(0, 60)],
        "offsets continue after the last durable batch"
    );
    let records = read_all(&fresh(dir.path()), "s", 0, 1000);
    assert_eq!(records.len(), 61);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.offset, i as u64);
        assert_eq!(r.value, format!("value number {i:07}").as_bytes());
    }
}

#[test]
fn a_log_written_before_checkpoints_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    for file in fs::read_dir(dir.path().join("s").join("0")).unwrap() {
        let path = file.unwrap().path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("checkpoint"))
        {
            fs::remove_file(path).unwrap();
        }
    }
    rewrite_stream_meta_as_version_1(dir.path());
    let log = fresh(dir.path());
    assert_eq!(read_all(&log, "s", 0, 13).len(), 60);
    assert_eq!(log.end_offset("s", 0).unwrap(), 60);
    assert_eq!(append_batches(&log, 60, &[2]), 62);
    assert_eq!(read_all(&fresh(dir.path()), "s", 0, 1000).len(), 62);
}

#[test]
fn an_old_log_missing_its_first_segment_is_still_loss() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    rewrite_stream_meta_as_version_1(dir.path());
    for file in fs::read_dir(dir.path().join("s").join("0")).unwrap() {
        let path = file.unwrap().path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("checkpoint"))
        {
            fs::remove_file(path).unwrap();
        }
    }
    fs::remove_file(&segment_files(dir.path(), "s", 0)[0]).unwrap();
    every_role_refuses(
        dir.path(),
        &["stream \"s\" partition 0", "00000000000000000000.log"],
    );
}

/// Removes the checkpoint of partition 0.
fn remove_checkpoint(dir: &Path) {
    fs::remove_file(common::checkpoint_path(dir, "s", 0)).unwrap();
}

#[test]
fn check_reports_a_whole_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = sixty_records(dir.path());
    let mut consumer = log.consumer("aggregator", &["s"]).unwrap();
    let records = consumer.poll(25, Duration::ZERO).unwrap();
    consumer.commit(&[records[24].next_position()]).unwrap();

    let report = simpairs_log::check(dir.path()).unwrap();
    assert!(
        report.is_whole(),
        "{:?}",
        report.problems().collect::<Vec<_>>()
    );
    assert_eq!(report.streams.len(), 1);
    let stream = &report.streams[0];
    assert_eq!((stream.name.as_str(), stream.checkpoints), ("s", true));
    let p = &stream.partitions[0];
    assert_eq!((p.start_offset, p.end_offset, p.records), (0, 60, 60));
    assert_eq!(p.segments.len(), 7);
    assert_eq!(p.segments[1].base_offset, 9);
    assert_eq!(p.segments[1].next_offset, 18);
    assert_eq!(p.segments[1].records, 9);
    assert_eq!(p.segments[1].bytes, 9 * FRAME);
    let durable = p.durable.as_ref().unwrap();
    assert_eq!(durable.next_offset, 60);
    assert_eq!(durable.segment, last_segment(dir.path()));
    assert_eq!(durable.end, 6 * FRAME);
    assert_eq!(p.committed.len(), 1);
    assert_eq!(p.committed[0].group, "aggregator");
    assert_eq!(p.committed[0].next_offset, 25);
    assert!(p.torn_tail.is_none());
}

#[test]
fn repair_cuts_a_torn_tail_and_says_what_it_cut() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    let last = last_segment(dir.path());
    let len = fs::metadata(&last).unwrap().len();
    as_interrupted(dir.path(), "s", 0, || {
        append_batches(&fresh(dir.path()), 60, &[3]);
    });
    fs::OpenOptions::new()
        .write(true)
        .open(&last)
        .unwrap()
        .set_len(len + 2 * FRAME + 10)
        .unwrap();
    append_bytes(&last, b"and some junk");

    // `check` shows the torn tail, which is not loss.
    let report = simpairs_log::check(dir.path()).unwrap();
    assert!(report.is_whole());
    let tails: Vec<_> = report.torn_tails().collect();
    assert_eq!(tails.len(), 1);
    let (stream, partition, torn) = tails[0];
    assert_eq!((stream, partition), ("s", 0));
    assert_eq!((torn.position, torn.next_offset), (len, 60));
    assert_eq!(torn.bytes, 2 * FRAME + 10 + 13);
    assert_eq!(torn.file, last);

    let repaired = simpairs_log::repair(dir.path(), &RepairOptions::default()).unwrap();
    assert!(repaired.is_whole());
    let cut = repaired.partitions[0].cut.as_ref().expect("a cut");
    assert_eq!((cut.position, cut.bytes), (len, 2 * FRAME + 23));
    assert_eq!(fs::metadata(&last).unwrap().len(), len);
    assert!(!repaired.partitions[0].checkpoint_written);

    let report = simpairs_log::check(dir.path()).unwrap();
    assert!(report.is_whole() && report.torn_tails().next().is_none());
    // Nothing to do a second time.
    let again = simpairs_log::repair(dir.path(), &RepairOptions::default()).unwrap();
    assert!(again.is_whole() && again.partitions[0].cut.is_none());
    assert_eq!(append_batches(&fresh(dir.path()), 60, &[1]), 61);
    assert_eq!(read_all(&fresh(dir.path()), "s", 0, 1000).len(), 61);
}

#[test]
fn an_old_log_is_unverified_until_repair_writes_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    remove_checkpoint(dir.path());
    rewrite_stream_meta_as_version_1(dir.path());

    let report = simpairs_log::check(dir.path()).unwrap();
    assert!(report.is_whole());
    assert!(!report.streams[0].checkpoints);
    assert!(report.streams[0].partitions[0].durable.is_none());
    // Without a checkpoint a cut at a batch boundary cannot be told from the end.
    let repaired = simpairs_log::repair(dir.path(), &RepairOptions::default()).unwrap();
    assert!(repaired.is_whole() && repaired.partitions[0].checkpoint_written);
    let report = simpairs_log::check(dir.path()).unwrap();
    let durable = report.streams[0].partitions[0].durable.clone().unwrap();
    assert_eq!(durable.next_offset, 60);
    // From now on, it can.
    truncate_by(&last_segment(dir.path()), 3 * FRAME);
    every_role_refuses(dir.path(), &["stream \"s\" partition 0", "60"]);
}

#[test]
fn an_old_log_missing_a_middle_segment_is_loss_for_readers_and_the_first_append() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    remove_checkpoint(dir.path());
    rewrite_stream_meta_as_version_1(dir.path());
    fs::remove_file(&segment_files(dir.path(), "s", 0)[3]).unwrap();
    let words = ["stream \"s\" partition 0", "00000000000000000027.log"];
    let log = fresh(dir.path());
    loud(log.read("s", 0, 0, 1000), &words);
    loud(log.append("s", &[Produce::new(b"k", b"x", 0)]), &words);
    let report = simpairs_log::check(dir.path()).unwrap();
    let lost: Vec<_> = report
        .problems()
        .filter(|e| {
            matches!(
                e,
                Error::Lost {
                    expected_offset: 27,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(lost.len(), 1, "{lost:?}");
}

#[test]
fn a_missing_checkpoint_of_a_new_stream_is_loud_until_rebuilt_on_purpose() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    remove_checkpoint(dir.path());
    every_role_refuses(
        dir.path(),
        &["stream \"s\" partition 0", "no checkpoint file"],
    );
    let err = fresh(dir.path()).read("s", 0, 0, 1).unwrap_err();
    assert!(
        matches!(err, Error::MissingCheckpoint { partition: 0, .. }),
        "{err}"
    );

    let rebuild = RepairOptions {
        rebuild_checkpoints: true,
        ..RepairOptions::default()
    };
    let repaired = simpairs_log::repair(dir.path(), &rebuild).unwrap();
    assert!(repaired.is_whole() && repaired.partitions[0].checkpoint_written);
    assert!(simpairs_log::check(dir.path()).unwrap().is_whole());
    assert_eq!(read_all(&fresh(dir.path()), "s", 0, 1000).len(), 60);
}

#[test]
fn loss_errors_are_typed_and_name_what_to_restore() {
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    let files = segment_files(dir.path(), "s", 0);
    fs::remove_file(&files[0]).unwrap();
    let err = fresh(dir.path()).read("s", 0, 0, 10).unwrap_err();
    let Error::Lost {
        stream,
        partition,
        segment,
        expected_offset,
        found,
        evidence,
    } = &err
    else {
        panic!("expected loss, got {err}");
    };
    assert_eq!((stream.as_str(), *partition, *expected_offset), ("s", 0, 0));
    assert_eq!(segment, &files[0]);
    assert!(found.contains("starts at offset 9"), "{found}");
    assert!(evidence.contains("never deletes records"), "{evidence}");
    assert_eq!(
        err.to_string(),
        format!(
            "stream \"s\" partition 0 has lost records: offset 0 should be in segment file {}, but that file is missing, and the first segment file, 00000000000000000009.log, starts at offset 9; a partition's offsets start at 0 and the embedded log never deletes records. Nothing was read past offset 0 or appended, and the log was not changed. These records had been stored durably, so this is not the torn end of an interrupted write and `simpairs log repair` will not cut it: restore the partition directory {} from a backup (`simpairs log check` lists everything that is missing)",
            files[0].display(),
            dir.path().join("s").join("0").display()
        )
    );

    // A flipped byte: damage, typed, at the record's offset and position.
    let dir = tempfile::tempdir().unwrap();
    let _log = sixty_records(dir.path());
    let last = last_segment(dir.path());
    let len = fs::metadata(&last).unwrap().len();
    flip_byte(&last, len - FRAME + 45);
    let err = fresh(dir.path()).read("s", 0, 0, 100).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt { offset: 59, position, file, .. } if *position == len - FRAME && file == &last),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("so this is damage, not the torn end of an interrupted append"),
        "{err}"
    );
}

#[test]
fn an_unreadable_positions_file_is_reported_by_check_without_stopping_other_roles() {
    let dir = tempfile::tempdir().unwrap();
    let log = sixty_records(dir.path());
    let mut consumer = log.consumer("other", &["s"]).unwrap();
    let records = consumer.poll(5, Duration::ZERO).unwrap();
    consumer.commit(&[records[4].next_position()]).unwrap();
    drop(consumer);
    let positions = dir.path().join("_groups").join("other").join("positions");
    fs::write(&positions, "not a positions file\n").unwrap();

    assert_eq!(read_all(&fresh(dir.path()), "s", 0, 1000).len(), 60);
    assert_eq!(append_batches(&fresh(dir.path()), 60, &[1]), 61);
    let report = simpairs_log::check(dir.path()).unwrap();
    let problems: Vec<String> = report.problems().map(|e| e.to_string()).collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains(&positions.display().to_string()),
        "{problems:?}"
    );
    // Its own consumer cannot start.
    assert!(fresh(dir.path()).consumer("other", &["s"]).is_err());
}

#[test]
fn derived_batches_a_machine_crash_lost_are_a_torn_tail_not_loss() {
    // A whole batch lost, or the disk holding part of it.
    for lost in [3 * FRAME, 2 * FRAME + 30] {
        let dir = tempfile::tempdir().unwrap();
        let log = sixty_records(dir.path());
        let last = last_segment(dir.path());
        append_batch(&log, 60, 3, true);
        assert_eq!(last_segment(dir.path()), last, "the same segment");
        assert_eq!(read_all(&log, "s", 0, 1000).len(), 63, "readable at once");
        // The crash ends every process that read them; the next ones find them gone.
        drop(log);
        truncate_by(&last, lost);

        let reader = fresh(dir.path());
        assert_eq!(read_all(&reader, "s", 0, 7).len(), 60);
        assert_eq!(reader.end_offset("s", 0).unwrap(), 60);
        let report = simpairs_log::check(dir.path()).unwrap();
        assert!(report.is_whole());
        let torn = usize::from(lost % FRAME != 0);
        assert_eq!(
            report.torn_tails().count(),
            torn,
            "part of a batch is a torn end"
        );
        let next = fresh(dir.path())
            .append("s", &[Produce::new(b"k", b"value number 0000060", 0)])
            .unwrap();
        assert_eq!(next, [(0, 60)], "offsets go on from the durable end");
    }
}

#[test]
fn a_durable_append_makes_the_derived_batches_before_it_durable() {
    let dir = tempfile::tempdir().unwrap();
    let log = sixty_records(dir.path());
    let last = last_segment(dir.path());
    append_batch(&log, 60, 3, true);
    // Into a new segment, whose seal covers the derived batch: both are durable now.
    assert_eq!(append_batches(&log, 63, &[3]), 66);
    assert_ne!(last_segment(dir.path()), last, "a new segment");
    assert_eq!(read_all(&fresh(dir.path()), "s", 0, 1000).len(), 66);

    truncate_by(&last, 3 * FRAME);
    let name = last.file_name().unwrap().to_str().unwrap().to_owned();
    every_role_refuses(dir.path(), &["stream \"s\" partition 0", &name]);
}

#[test]
fn a_durable_append_in_the_same_segment_moves_the_checkpoint_past_derived_batches() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 10_000);
    assert_eq!(append_batches(&log, 0, &[3]), 3);
    append_batch(&log, 3, 3, true);
    append_batch(&log, 6, 3, true);
    assert_eq!(append_batches(&log, 9, &[3]), 12);
    assert_eq!(segment_files(dir.path(), "s", 0).len(), 1, "one segment");
    let last = last_segment(dir.path());

    truncate_by(&last, 6 * FRAME);
    let name = last.file_name().unwrap().to_str().unwrap().to_owned();
    every_role_refuses(dir.path(), &["stream \"s\" partition 0", &name, "12"]);
}
