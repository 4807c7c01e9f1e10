//! The leaderboard the projection publishes for each national generation is ranked before the rest
//! of the field; it must be exactly the first pairs of the standings the projection then shows.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use simpairs_events::types::LeaderboardPublished;
use simpairs_events::{Codec, Event, Stream};
use simpairs_log::Log;
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::project::{LEADERBOARD_TOP, Projection, Update};

use crate::common::{CLUBS, declared_session, key_of, publish_csv};

/// The updates of national generation `generation`, in the order the projection made them.
fn updates_of(updates: &Receiver<Update>, generation: i64) -> Vec<Update> {
    let mut seen = Vec::new();
    while !seen.contains(&Update::Shown(generation)) {
        let update = updates
            .recv_timeout(Duration::from_secs(60))
            .expect("the projection shows each generation");
        if matches!(update, Update::Published(g) | Update::Shown(g) if g == generation) {
            seen.push(update);
        }
    }
    seen
}

/// The last leaderboard in the event's leaderboard stream.
fn last_published(log: &dyn Log, event: &str) -> LeaderboardPublished {
    let codec = Codec::new().unwrap();
    let stream = simpairs_pipeline::stream_name(event, Stream::Leaderboard);
    let mut last = None;
    for partition in 0..log.partitions(&stream).unwrap() {
        for record in log.read(&stream, partition, 0, usize::MAX).unwrap() {
            if let Event::LeaderboardPublished(l) = codec.decode(&record.value).unwrap() {
                last = last.filter(|k: &LeaderboardPublished| k.generation > l.generation);
                last = last.or(Some(l));
            }
        }
    }
    last.expect("a leaderboard was published")
}

#[test]
fn each_published_leaderboard_is_the_first_pairs_of_the_standings_shown() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let event = "leaderboard-first";
    let clubs = declared_session(log.as_ref(), event, "Leaderboard first");
    let shared = Arc::new(RwLock::new(Projection::new(event)));
    let stop = Arc::new(AtomicBool::new(false));
    let (sender, updates) = channel();
    let projection = {
        let (log, shared, stop) = (log.clone(), shared.clone(), stop.clone());
        std::thread::spawn(move || {
            simpairs_pipeline::project::run(log, event, shared, &stop, true, |update| {
                let _ = sender.send(update);
            })
        })
    };
    let mut aggregator =
        Aggregator::open(log.clone(), event, simpairs_sim::aggregator_key()).unwrap();
    let until_idle = AggregateOptions {
        until_idle: true,
        ..AggregateOptions::default()
    };
    let mut cut_inside = false;
    for (i, club) in CLUBS.iter().enumerate() {
        publish_csv(log.as_ref(), event, club, &key_of(club), &clubs[i]);
        aggregator
            .run(&until_idle, &AtomicBool::new(false), |_| {})
            .unwrap();
        let generation = i as i64 + 1;
        assert_eq!(
            updates_of(&updates, generation),
            [Update::Published(generation), Update::Shown(generation)],
            "published before shown"
        );
        let published = last_published(log.as_ref(), event);
        let p = shared.read().unwrap();
        let (pairs, shown) = p.leaderboard("combined", 0, LEADERBOARD_TOP);
        cut_inside |= pairs > LEADERBOARD_TOP;
        assert_eq!(published.generation, generation);
        assert_eq!(published.top, shown, "generation {generation}");
        assert_eq!(published.results_applied, p.result_count() as i64);
        assert_eq!(published.clubs_applied, generation as i32);
    }
    assert!(cut_inside, "the field grew beyond the leaderboard's pairs");
    stop.store(true, Ordering::Relaxed);
    projection.join().unwrap().unwrap();
}
