//! `simpairs log check` and `simpairs log repair` as an operator runs them on an embedded log:
//! a whole log, a tail cut after durable appends (loss: check fails, repair refuses), and the
//! torn end of an interrupted append (check says to repair, repair cuts it and says what). And
//! issue 18 end to end: an event whose results lost their tail (a published correction) is not
//! replayed or aggregated as if whole.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use simpairs_log::{EmbeddedLog, Log, Options, Produce, StreamConfig};

/// Small segments, so that the log has several.
const SEGMENT_BYTES: u64 = 2_000;

fn simpairs(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simpairs"))
        .args(args)
        .arg("--log")
        .arg(dir)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A log with 300 results in two partitions (150 each) and an aggregator that read 100 of
/// partition 0; the event's other streams and the catalog are there, empty (`log check` holds
/// a log to all the streams of its events).
fn event_log(dir: &Path) -> EmbeddedLog {
    let options = Options {
        fsync: false,
        segment_bytes: SEGMENT_BYTES,
    };
    let log = EmbeddedLog::open_with(dir, options).unwrap();
    log.create_stream("ev.results", &StreamConfig::with_partitions(2))
        .unwrap();
    for other in [
        "ev.declarations",
        "ev.board-scores",
        "ev.leaderboard",
        "ev.dead-letter",
        "simpairs-events",
    ] {
        log.create_stream(other, &StreamConfig::default()).unwrap();
    }
    for batch in 0..30 {
        let values: Vec<String> = (0..10).map(|i| format!("result {batch}-{i}")).collect();
        let records: Vec<Produce<'_>> = values
            .iter()
            .enumerate()
            .map(|(i, v)| Produce::new(b"club", v.as_bytes(), 0).to_partition((i % 2) as u32))
            .collect();
        log.append("ev.results", &records).unwrap();
    }
    let mut consumer = log.consumer("aggregator", &["ev.results"]).unwrap();
    let mut read = 0;
    while read < 100 {
        let records = consumer.poll(1, Duration::ZERO).unwrap();
        if let Some(r) = records.first().filter(|r| r.partition == 0) {
            read += 1;
            consumer.commit(&[r.next_position()]).unwrap();
        }
    }
    log
}

fn last_segment(dir: &Path, partition: u32) -> PathBuf {
    let mut files: Vec<PathBuf> = fs::read_dir(dir.join("ev.results").join(partition.to_string()))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    files.sort();
    files.pop().unwrap()
}

#[test]
fn a_whole_log_is_reported_in_words_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let _log = event_log(dir.path());
    let out = simpairs(&["log", "check"], dir.path());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("stream ev.results (checkpointed)"), "{text}");
    assert!(
        text.contains("partition 0: offsets 0 to 149, 150 record(s)"),
        "{text}"
    );
    assert!(
        text.contains("durable up to offset 149 by its checkpoint"),
        "{text}"
    );
    assert!(text.contains("groups aggregator at 100"), "{text}");
    assert!(text.ends_with("whole: nothing lost or damaged\n"), "{text}");

    let out = simpairs(&["log", "check", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["whole"], true);
    let streams = json["streams"].as_array().unwrap();
    let results = streams.iter().find(|s| s["name"] == "ev.results").unwrap();
    let p0 = &results["partitions"][0];
    assert_eq!(p0["end_offset"], 150);
    assert_eq!(p0["durable"]["next_offset"], 150);
    assert_eq!(p0["committed"][0]["group"], "aggregator");
    assert!(p0["segments"].as_array().unwrap().len() > 3, "{p0}");
}

#[test]
fn a_cut_tail_fails_the_check_and_repair_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let _log = event_log(dir.path());
    let last = last_segment(dir.path(), 1);
    let len = fs::metadata(&last).unwrap().len();
    fs::OpenOptions::new()
        .write(true)
        .open(&last)
        .unwrap()
        .set_len(len - 100)
        .unwrap();

    let out = simpairs(&["log", "check"], dir.path());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("LOST: stream \"ev.results\" partition 1 has lost records"),
        "{text}"
    );
    assert!(text.contains(&last.display().to_string()), "{text}");
    assert!(text.contains("NOT WHOLE"), "{text}");

    let out = simpairs(&["log", "check", "--json"], dir.path());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["whole"], false);
    let streams = json["streams"].as_array().unwrap();
    let results = streams.iter().find(|s| s["name"] == "ev.results").unwrap();
    let problem = &results["partitions"][1]["problems"][0];
    assert_eq!(problem["kind"], "lost");
    assert_eq!(problem["file"], last.display().to_string());

    let out = simpairs(&["log", "repair"], dir.path());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("stream ev.results partition 1: REFUSED, nothing changed"),
        "{text}"
    );
    assert!(
        text.contains("stream ev.results partition 0: whole, nothing to cut"),
        "{text}"
    );
    assert_eq!(fs::metadata(&last).unwrap().len(), len - 100, "nothing cut");
}

#[test]
fn an_event_whose_results_lost_their_tail_is_not_replayed_as_if_whole() {
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 18,
        clubs: 6,
        boards: 4,
        ..Default::default()
    });
    let log = common::embedded("trust");
    log.declare(&event, 1);
    for (club, csv) in common::publish_order(&event) {
        log.publish(&event, club, &csv);
    }
    assert!(log.aggregator("main", true).wait().unwrap().success());
    let dir = PathBuf::from(&log.location);
    let replay = |dir: &Path| {
        Command::new(env!("CARGO_BIN_EXE_simpairs"))
            .args(["replay", "--event", "trust", "--log"])
            .arg(dir)
            .output()
            .unwrap()
    };
    assert!(replay(&dir).status.success());

    // The last 100 bytes of the results (the correction published last) are cut.
    let results = dir
        .join("trust.results")
        .join("0")
        .join("00000000000000000000.log");
    let len = fs::metadata(&results).unwrap().len();
    fs::OpenOptions::new()
        .write(true)
        .open(&results)
        .unwrap()
        .set_len(len - 100)
        .unwrap();
    // The aggregator (its messages go to target/test-logs) stops instead of reusing offsets.
    let aggregator = log.aggregator("main", true).wait().unwrap();
    assert_eq!(aggregator.code(), Some(1));
    for out in [replay(&dir), simpairs(&["log", "check"], &dir)] {
        assert_eq!(out.status.code(), Some(1));
        let said = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
        assert!(
            said.contains("stream \"trust.results\" partition 0 has lost records"),
            "{said}"
        );
    }
    assert_eq!(
        fs::metadata(&results).unwrap().len(),
        len - 100,
        "no offset reused"
    );
}

#[test]
fn a_torn_tail_is_cut_by_repair_which_says_what_it_cut() {
    let dir = tempfile::tempdir().unwrap();
    let log = event_log(dir.path());
    let checkpoint = dir.path().join("ev.results").join("0").join("checkpoint");
    let before = fs::read(&checkpoint).unwrap();
    let last = last_segment(dir.path(), 0);
    let len = fs::metadata(&last).unwrap().len();
    // An append interrupted before its checkpoint moved, its batch only half written.
    log.append(
        "ev.results",
        &[Produce::new(b"k", &[7; 300], 0).to_partition(0)],
    )
    .unwrap();
    fs::write(&checkpoint, before).unwrap();
    let grown = fs::metadata(&last).unwrap().len();
    assert!(grown > len, "the batch went to the same segment");
    fs::OpenOptions::new()
        .write(true)
        .open(&last)
        .unwrap()
        .set_len(len + 100)
        .unwrap();

    let out = simpairs(&["log", "check"], dir.path());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains(&format!(
            "torn tail: 100 byte(s) at byte {len} of {}",
            last.display()
        )),
        "{text}"
    );

    let out = simpairs(&["log", "repair", "--stream", "ev.results"], dir.path());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!(
            "stream ev.results partition 0: cut 100 byte(s) at byte {len} of {}",
            last.display()
        )),
        "{text}"
    );
    assert!(text.contains("the next record gets offset 150"), "{text}");
    assert_eq!(fs::metadata(&last).unwrap().len(), len);
    assert_eq!(
        simpairs(&["log", "check"], dir.path()).status.code(),
        Some(0)
    );
}

/// Copies a directory tree (a log, to damage the copy).
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// What a command said, on both outputs.
fn said(out: &Output) -> String {
    format!("{}{}", stdout(out), String::from_utf8_lossy(&out.stderr))
}

/// The README's promise: a missing part of the log is an error naming it, never a smaller
/// event, and never the advice to declare an event over the damaged log.
#[test]
fn a_missing_stream_of_a_declared_event_is_reported_not_taken_for_a_new_log() {
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 5,
        clubs: 3,
        boards: 2,
        ..Default::default()
    });
    let log = common::embedded("gone");
    log.declare(&event, 1);
    let dir = PathBuf::from(&log.location);
    assert_eq!(simpairs(&["log", "check"], &dir).status.code(), Some(0));
    // Every stream `event declare` makes, and the catalog of events.
    for stream in [
        "simpairs-events",
        "gone.declarations",
        "gone.results",
        "gone.board-scores",
        "gone.leaderboard",
        "gone.dead-letter",
    ] {
        let copy = tempfile::tempdir().unwrap();
        copy_tree(&dir, copy.path());
        fs::remove_dir_all(copy.path().join(stream)).unwrap();
        let out = simpairs(&["log", "check"], copy.path());
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(1), "{stream}: {text}");
        assert!(
            text.contains(&format!("stream \"{stream}\" is missing from the log"))
                && text.contains("NOT WHOLE"),
            "{stream}: {text}"
        );
        for command in [["replay"], ["submissions"]] {
            let out = simpairs(&command, copy.path());
            let words = said(&out);
            assert!(!words.contains("declare first"), "{stream}: {words}");
            assert!(!words.contains("create it first"), "{stream}: {words}");
        }
    }
    let copy = tempfile::tempdir().unwrap();
    copy_tree(&dir, copy.path());
    fs::remove_dir_all(copy.path().join("simpairs-events")).unwrap();
    let words = said(&simpairs(&["replay"], copy.path()));
    assert!(words.contains("is missing from the log"), "{words}");
    // A new log, nothing declared yet: declaring is the advice, and it is whole.
    let new = tempfile::tempdir().unwrap();
    drop(EmbeddedLog::open(new.path()).unwrap());
    assert!(said(&simpairs(&["replay"], new.path())).contains("declare first"));
    assert_eq!(
        simpairs(&["log", "check"], new.path()).status.code(),
        Some(0)
    );
}

/// Streams made by a declaration that stopped before its first record are no loss.
#[test]
fn an_interrupted_declaration_is_not_reported_missing() {
    let dir = tempfile::tempdir().unwrap();
    let log = EmbeddedLog::open(dir.path()).unwrap();
    for stream in ["half.declarations", "half.results"] {
        log.create_stream(stream, &StreamConfig::default()).unwrap();
    }
    let out = simpairs(&["log", "check"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
}
