//! Loss is loud (issue 18): deleted segments, cut or altered tails and segments that end before
//! what a consumer group committed are errors for every reader and writer, never a shorter
//! stream returned as if whole, never offsets reused. A real torn tail (bytes of an interrupted
//! append after the last durable one) is still cut silently by the next writer.

mod common;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{log_with_stream, open_log, read_all, segment_files};
use simpairs_log::{EmbeddedLog, Error, Log, Produce};

/// Small segments: three batches of three records (57 bytes each) fill one.
const SEGMENT_BYTES: u64 = 600;
/// Bytes of one record with a 1-byte key and a 20-byte value.
const FRAME: u64 = 36 + 1 + 20;

/// Appends batches of `sizes` records (key "k", 20-byte values naming their offset), from offset `first`.
fn append_batches(log: &dyn Log, first: u64, sizes: &[usize]) -> u64 {
    let mut n = first;
    for &size in sizes {
        let values: Vec<String> = (0..size)
            .map(|_| {
                n += 1;
                format!("value number {:07}", n - 1)
            })
            .collect();
        let records: Vec<_> = values
            .iter()
            .map(|v| Produce::new(b"k", v.as_bytes(), 0).to_partition(0))
            .collect();
        log.append("s", &records).expect("append");
    }
    n
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
    // updated, and cut 70 bytes in (the first record whole, the second torn).
    let saved = saved_checkpoints(dir.path());
    append_batches(&fresh(dir.path()), 60, &[2]);
    assert_eq!(
        last_segment(dir.path()),
        last,
        "the batch went to the same segment"
    );
    restore_checkpoints(&saved);
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

/// The checkpoint files of partition 0 and their contents.
fn saved_checkpoints(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fs::read_dir(dir.join("s").join("0"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("checkpoint"))
        })
        .map(|p| {
            let bytes = fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

fn restore_checkpoints(saved: &[(PathBuf, Vec<u8>)]) {
    for (path, bytes) in saved {
        fs::write(path, bytes).unwrap();
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
