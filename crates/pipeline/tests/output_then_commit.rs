//! A live aggregator writes a batch's output while it reads the next one, but never leaves a batch
//! uncommitted waiting for more input: a lone club's upload is written, committed and reported
//! with nothing after it, and an aggregator restarted then finds nothing left to do.

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
