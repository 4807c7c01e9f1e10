//! A live aggregator writes a batch's output while it reads the next one, but never leaves a batch
//! uncommitted waiting for more input: a lone club's upload is written, committed and reported
//! with nothing after it, and an aggregator restarted then finds nothing left to do. Output that
//! cannot be written stops the aggregator with the log's own error, and nothing of it is committed.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use simpairs_events::Stream;
use simpairs_log::Log;
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator, BatchReport};

const EVENT: &str = "lone-club";

fn options(until_idle: bool) -> AggregateOptions {
    AggregateOptions {
        until_idle,
        instance: "lone".into(),
        ..AggregateOptions::default()
    }
}

fn board_scores_end(log: &dyn Log) -> u64 {
    let stream = simpairs_pipeline::stream_name(EVENT, Stream::BoardScores);
    log.end_offset(&stream, 0).unwrap()
}

#[test]
fn each_clubs_upload_is_committed_and_reported_without_waiting_for_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let csvs = common::declared_session(log.as_ref(), EVENT, "lone club");
    let stop = Arc::new(AtomicBool::new(false));
    let (reports, reported) = std::sync::mpsc::channel::<BatchReport>();
    let live = {
        let (log, stop) = (log.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut aggregator =
                Aggregator::open(log, EVENT, simpairs_sim::aggregator_key()).unwrap();
            aggregator
                .run(&options(false), &stop, |r| reports.send(r.clone()).unwrap())
                .unwrap();
        })
    };
    for (i, (club, csv)) in common::CLUBS.iter().zip(&csvs).enumerate() {
        common::publish_csv(log.as_ref(), EVENT, club, &common::key_of(club), csv);
        // Nothing else is published until this club is reported.
        let report = reported
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{club}'s upload was never reported"));
        assert_eq!(report.submissions_applied, 1, "{club}");
        assert_eq!(report.clubs, i + 1, "{club}");
    }
    stop.store(true, Ordering::Relaxed);
    live.join().unwrap();
    // Every batch was committed after its output: the same instance restarted writes nothing.
    let written = board_scores_end(log.as_ref());
    assert!(written > 0);
    let mut again = Aggregator::open(log.clone(), EVENT, simpairs_sim::aggregator_key()).unwrap();
    again
        .run(&options(true), &AtomicBool::new(false), |r| {
            panic!("a committed batch was applied again: {r:?}")
        })
        .unwrap();
    assert_eq!(again.state().applied_count(), common::CLUBS.len() as i64);
    assert_eq!(board_scores_end(log.as_ref()), written);
}

/// Each batch's board scores are derived while the next batch is read and judged, but written
/// before that batch's applied submissions: the board-scores stream holds the batches in order.
#[test]
fn a_batchs_board_scores_are_in_the_stream_before_the_next_batchs_applied_submissions() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let csvs = common::declared_session(log.as_ref(), EVENT, "clubs in one go");
    for (club, csv) in common::CLUBS.iter().zip(&csvs) {
        common::publish_csv(log.as_ref(), EVENT, club, &common::key_of(club), csv);
    }
    // One record a batch: each club's seal ends a batch of its own, and the next club's records
    // are read while its board scores are derived.
    let options = AggregateOptions {
        batch: 1,
        ..options(true)
    };
    let mut generations = Vec::new();
    let mut aggregator =
        Aggregator::open(log.clone(), EVENT, simpairs_sim::aggregator_key()).unwrap();
    aggregator
        .run(&options, &AtomicBool::new(false), |r| {
            generations.push(r.generation)
        })
        .unwrap();
    assert_eq!(generations, [1, 2, 3]);

    let stream = simpairs_pipeline::stream_name(EVENT, Stream::BoardScores);
    let codec = simpairs_events::Codec::new().unwrap();
    let (mut applied, mut scored) = (0, Vec::new());
    for record in log.read(&stream, 0, 0, usize::MAX).unwrap() {
        match codec.decode(&record.value).unwrap() {
            simpairs_events::Event::SubmissionApplied(_) => applied += 1,
            // Written after the applied submissions of its generation, before the next one's.
            simpairs_events::Event::BoardScored(b) => {
                assert_eq!(b.generation, applied, "offset {}", record.offset);
                scored.push(b.generation);
            }
            _ => {}
        }
    }
    assert_eq!(applied, 3);
    for generation in 1..=3 {
        assert!(
            scored.contains(&generation),
            "generation {generation}: {scored:?}"
        );
    }
}

#[test]
fn output_that_cannot_be_written_stops_the_aggregator_with_the_logs_error_and_is_written_on_restart()
 {
    let leaderboard = simpairs_pipeline::stream_name(EVENT, Stream::Leaderboard);
    stopped_then_written_on_restart(leaderboard, None);
}

/// A batch's board scores are appended while its standings are (to a stream of their own): their
/// failure stops the aggregator all the same, with nothing of the batch committed.
#[test]
fn board_scores_that_cannot_be_written_stop_the_aggregator_and_are_written_on_restart() {
    let board_scores = simpairs_pipeline::stream_name(EVENT, Stream::BoardScores);
    stopped_then_written_on_restart(board_scores, Some(simpairs_events::EventType::BoardScored));
}

/// The aggregator run on a log that refuses `stream`'s appends (those holding `holding`): it stops
/// with the log's error, reports no batch, and started again with room on the disk it applies
/// every club and writes every club's output.
fn stopped_then_written_on_restart(stream: String, holding: Option<simpairs_events::EventType>) {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let csvs = common::declared_session(log.as_ref(), EVENT, "a full disk");
    for (club, csv) in common::CLUBS.iter().zip(&csvs) {
        common::publish_csv(log.as_ref(), EVENT, club, &common::key_of(club), csv);
    }
    let leaderboard = simpairs_pipeline::stream_name(EVENT, Stream::Leaderboard);
    let full: Arc<dyn Log> = Arc::new(common::full_disk(log.clone(), stream, holding));
    // A batch a club: the clubs after the first are read and judged while its output fails.
    let options = AggregateOptions {
        batch: 1,
        ..options(true)
    };
    let mut aggregator = Aggregator::open(full, EVENT, simpairs_sim::aggregator_key()).unwrap();
    let mut reported = 0;
    let error = aggregator
        .run(&options, &AtomicBool::new(false), |_| reported += 1)
        .unwrap_err();
    assert!(
        error.to_string().contains("no space left on device"),
        "{error}"
    );
    assert_eq!(reported, 0, "a batch whose output failed was reported");

    // Nothing was committed: started again with room on the disk, the aggregator applies every
    // club again (a committed club would be rebuilt from the log, not reported) and writes every
    // club's output.
    let mut generations = Vec::new();
    let mut again = Aggregator::open(log.clone(), EVENT, simpairs_sim::aggregator_key()).unwrap();
    again
        .run(&options, &AtomicBool::new(false), |r| {
            generations.push(r.generation)
        })
        .unwrap();
    assert_eq!(generations, [1, 2, 3]);
    let codec = simpairs_events::Codec::new().unwrap();
    let mut standings = std::collections::BTreeSet::new();
    for record in log.read(&leaderboard, 0, 0, usize::MAX).unwrap() {
        if let simpairs_events::Event::StandingsComputed(s) = codec.decode(&record.value).unwrap() {
            standings.insert(s.scope);
        }
    }
    assert_eq!(standings.len(), common::CLUBS.len(), "{standings:?}");
}
