//! Several processes on one log directory: concurrent appends, a writer killed with SIGKILL,
//! and how soon another process sees a record.
//!
//! Child processes are this test binary run again with `CHILD_ROLE` set: the test
//! `child_process_entry` then plays the role and exits; in a normal run it does nothing.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::{
    assert_dense, check_tagged, log_with_stream, open_log, read_all, segment_files, tagged_value,
};
use simpairs_log::{Log, Produce};

const CHILD_ROLE: &str = "SIMPAIRS_LOG_CHILD_ROLE";
const CHILD_DIR: &str = "SIMPAIRS_LOG_CHILD_DIR";
const CHILD_WRITER: &str = "SIMPAIRS_LOG_CHILD_WRITER";
/// The child's entry, by its name in the test binary (this file is a module of it).
const CHILD_TEST: &str = "processes::child_process_entry";
const SEGMENT_BYTES: u64 = 64 << 10;
/// Times the SIGKILL test kills a writer.
const KILLS: u64 = 8;
/// Batches each writer appends in the concurrent test.
const CONCURRENT_BATCHES: u64 = 300;

fn spawn_child(role: &str, dir: &Path, writer: u8) -> Child {
    Command::new(std::env::current_exe().expect("the test binary"))
        .args([CHILD_TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ROLE, role)
        .env(CHILD_DIR, dir)
        .env(CHILD_WRITER, writer.to_string())
        .stdout(Stdio::null())
        .spawn()
        .expect("start a child process")
}

/// Kills the child process if the test fails before it does.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Batch sizes and record sizes that vary, the same way in parent and child.
fn batch(writer: u8, batch: u64, next_seq: u64) -> Vec<Vec<u8>> {
    let size = 1 + (batch * 7 + u64::from(writer)) % 23;
    (0..size)
        .map(|i| tagged_value(writer, next_seq + i, 20 + ((batch + i) * 37 % 300) as usize))
        .collect()
}

/// Mostly small batches, and every third one large (800 KB): a kill during its write can
/// leave part of it on disk.
fn batch_with_large_ones(writer: u8, b: u64, next_seq: u64) -> Vec<Vec<u8>> {
    if b % 3 == 2 {
        (0..200)
            .map(|i| tagged_value(writer, next_seq + i, 4_000))
            .collect()
    } else {
        batch(writer, b, next_seq)
    }
}

/// Appends `batches` batches (or forever, with large ones among them) as `writer`, numbering
/// records from 0.
fn append_as(log: &dyn Log, writer: u8, batches: Option<u64>) {
    let mut seq = 0;
    let mut b = 0;
    while batches.is_none_or(|n| b < n) {
        let values = match batches {
            Some(_) => batch(writer, b, seq),
            None => batch_with_large_ones(writer, b, seq),
        };
        let records: Vec<_> = values
            .iter()
            .map(|v| Produce::new(b"", v, b as i64).to_partition(0))
            .collect();
        log.append("s", &records).expect("append");
        seq += values.len() as u64;
        b += 1;
    }
}

#[test]
fn child_process_entry() {
    let Ok(role) = std::env::var(CHILD_ROLE) else {
        return;
    };
    let dir = PathBuf::from(std::env::var(CHILD_DIR).expect("dir"));
    let writer: u8 = std::env::var(CHILD_WRITER)
        .expect("writer")
        .parse()
        .expect("writer number");
    let log = open_log(&dir, SEGMENT_BYTES);
    match role.as_str() {
        "append" => append_as(&log, writer, Some(CONCURRENT_BATCHES)),
        "append-forever" => append_as(&log, writer, None),
        "send-times" => {
            // One record at a time, each carrying the time it was appended.
            for _ in 0..50 {
                std::thread::sleep(Duration::from_millis(5));
                let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
                let value = now.as_nanos().to_le_bytes();
                log.append("s", &[Produce::new(b"", &value, 0).to_partition(0)])
                    .expect("append");
            }
        }
        other => panic!("unknown child role {other}"),
    }
    std::process::exit(0);
}

#[test]
fn two_processes_append_concurrently() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, SEGMENT_BYTES);
    let mut child = spawn_child("append", dir.path(), 1);

    // Meanwhile: this process appends as writer 0, and a third party reads all along, checking
    // that it never sees a damaged or out-of-order record.
    let reader_dir = dir.path().to_path_buf();
    let reader = std::thread::spawn(move || {
        let reader = open_log(&reader_dir, SEGMENT_BYTES);
        let mut next = 0u64;
        let mut per_writer = [0u64; 2];
        let deadline = Instant::now() + Duration::from_secs(120);
        while per_writer.iter().sum::<u64>() < expected_total() && Instant::now() < deadline {
            for r in reader
                .read("s", 0, next, 500)
                .expect("read while others append")
            {
                assert_eq!(r.offset, next);
                let (w, seq) = check_tagged(&r.value);
                assert_eq!(seq, per_writer[w as usize]);
                per_writer[w as usize] += 1;
                next += 1;
            }
        }
        per_writer
    });
    append_as(&log, 0, Some(CONCURRENT_BATCHES));
    assert!(child.wait().unwrap().success(), "the child writer failed");
    let seen = reader.join().unwrap();
    let total = expected_total();
    assert_eq!(seen.iter().sum::<u64>(), total);

    let records = read_all(&open_log(dir.path(), SEGMENT_BYTES), "s", 0, 1000);
    assert_eq!(records.len() as u64, total);
    assert_dense(&records, "s", 0);
    let mut next = [0u64; 2];
    for r in &records {
        let (w, seq) = check_tagged(&r.value);
        assert_eq!(seq, next[w as usize], "every record exactly once, in order");
        next[w as usize] += 1;
    }
    assert_eq!(next, [expected_count(0), expected_count(1)]);
}

/// Records a writer of the concurrent test appends.
fn expected_count(writer: u8) -> u64 {
    let mut seq = 0;
    for b in 0..CONCURRENT_BATCHES {
        seq += batch(writer, b, seq).len() as u64;
    }
    seq
}

/// Records both writers of the concurrent test append.
fn expected_total() -> u64 {
    expected_count(0) + expected_count(1)
}

#[test]
fn a_writer_killed_at_any_instant_leaves_a_consistent_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, SEGMENT_BYTES);
    let mut expected_len = 0u64;
    let mut torn_tails = 0;
    for round in 0..KILLS {
        let mut child = KillOnDrop(spawn_child("append-forever", dir.path(), round as u8 + 10));
        // Let it get going, then kill it, preferably while the newest segment file is growing,
        // that is in the middle of writing a batch.
        let deadline = Instant::now() + Duration::from_secs(60);
        while log.end_offset("s", 0).unwrap() < expected_len + 1_000 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        let deadline = Instant::now() + Duration::from_millis(200 + round * 20);
        let mut last_len = None;
        while Instant::now() < deadline {
            let newest = segment_files(dir.path(), "s", 0).pop().unwrap();
            let len = std::fs::metadata(&newest).map(|m| m.len()).ok();
            if last_len.is_some() && len != last_len && round % 4 != 3 {
                break;
            }
            last_len = len;
        }
        child.0.kill().unwrap(); // SIGKILL
        child.0.wait().unwrap();

        // Every readable record is intact; each writer's records are a gap-free prefix of
        // what it meant to write; the next append works and lands right after.
        let records = read_all(&open_log(dir.path(), SEGMENT_BYTES), "s", 0, 4096);
        assert_dense(&records, "s", 0);
        let mut next = std::collections::HashMap::new();
        for r in &records {
            let (w, seq) = check_tagged(&r.value);
            let n = next.entry(w).or_insert(0u64);
            assert_eq!(seq, *n, "writer {w} lost or repeated a record");
            *n += 1;
        }
        let end = records.len() as u64;
        let last_segment = segment_files(dir.path(), "s", 0).pop().unwrap();
        let len_after_kill = std::fs::metadata(&last_segment).unwrap().len();
        let after = open_log(dir.path(), SEGMENT_BYTES);
        let value = tagged_value(200, round, 50);
        let placed = after
            .append("s", &[Produce::new(b"", &value, 0).to_partition(0)])
            .unwrap();
        assert_eq!(placed, [(0, end)]);
        let len_after_append = std::fs::metadata(&last_segment).unwrap().len();
        let rolled = segment_files(dir.path(), "s", 0).pop().unwrap() != last_segment;
        let appended_here = if rolled { 0 } else { 36 + 50 };
        if len_after_append < len_after_kill + appended_here {
            torn_tails += 1;
        }
        let last = log.read("s", 0, end, 10).unwrap();
        assert_eq!(last.len(), 1);
        assert_eq!(last[0].value, value);
        expected_len = end + 1;
    }
    // How often the kill tore an append (it cannot be forced; the recovery tests force it).
    eprintln!("{torn_tails} of {KILLS} kills left a torn tail");
}

#[test]
fn another_process_sees_a_record_within_milliseconds() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, SEGMENT_BYTES);
    let mut consumer = log.consumer("latency", &["s"]).unwrap();
    let mut child = spawn_child("send-times", dir.path(), 0);
    let mut latencies = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while latencies.len() < 50 && Instant::now() < deadline {
        for r in consumer.poll(10, Duration::from_millis(50)).unwrap() {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos();
            let sent = u128::from_le_bytes(r.value[..16].try_into().unwrap());
            latencies.push(Duration::from_nanos(now.saturating_sub(sent) as u64));
        }
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(latencies.len(), 50);
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    eprintln!(
        "cross-process latency: median {median:?}, max {:?}",
        latencies[latencies.len() - 1]
    );
    // The poll backoff is at most 2 ms; leave room for a busy 2-core machine.
    assert!(
        median < Duration::from_millis(20),
        "median latency {median:?}"
    );
}
