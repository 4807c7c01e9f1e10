//! The leaderboard the projection publishes for each national generation is ranked before the rest
//! of the field; it must be exactly the first pairs of the standings the projection then shows.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use simpairs_events::types::{LeaderboardPublished, PairStanding};
use simpairs_events::{Codec, Event, Stream};
use simpairs_log::{Log, Record};
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

/// Every leaderboard in the event's leaderboard stream, with its partition and record.
fn leaderboards(log: &dyn Log, event: &str) -> Vec<(u32, Record, LeaderboardPublished)> {
    let codec = Codec::new().unwrap();
    let stream = simpairs_pipeline::stream_name(event, Stream::Leaderboard);
    let mut found = Vec::new();
    for partition in 0..log.partitions(&stream).unwrap() {
        for record in log.read(&stream, partition, 0, usize::MAX).unwrap() {
            if let Event::LeaderboardPublished(l) = codec.decode(&record.value).unwrap() {
                found.push((partition, record, l));
            }
        }
    }
    found
}

/// The last leaderboard in the event's leaderboard stream.
fn last_published(log: &dyn Log, event: &str) -> LeaderboardPublished {
    let all = leaderboards(log, event).into_iter().map(|(_, _, l)| l);
    all.max_by_key(|l| l.generation)
        .expect("a leaderboard was published")
}

/// A projection publishing leaderboards of `event` on a thread of its own until `stop`; with
/// what it shows and the updates it makes.
fn start_projection(
    log: &Arc<dyn Log>,
    event: &'static str,
    stop: &Arc<AtomicBool>,
) -> (Arc<RwLock<Projection>>, Receiver<Update>, Running) {
    let shared = Arc::new(RwLock::new(Projection::new(event)));
    let (sender, updates) = channel();
    let projection = {
        let (log, shared, stop) = (log.clone(), shared.clone(), stop.clone());
        std::thread::spawn(move || {
            simpairs_pipeline::project::run(log, event, shared, &stop, true, |update| {
                let _ = sender.send(update);
            })
        })
    };
    (shared, updates, projection)
}

type Running = std::thread::JoinHandle<simpairs_pipeline::Result<()>>;

#[test]
fn each_published_leaderboard_is_the_first_pairs_of_the_standings_shown() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let event = "leaderboard-first";
    let clubs = declared_session(log.as_ref(), event, "Leaderboard first");
    let stop = Arc::new(AtomicBool::new(false));
    let (shared, updates, projection) = start_projection(&log, event, &stop);
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

/// Cuts the last record of `stream`'s `partition` off its segment file, as a machine's crash
/// may lose a record appended without a flush.
fn lose_last_record(dir: &std::path::Path, stream: &str, partition: u32, record: &Record) {
    let part = dir.join(stream).join(partition.to_string());
    let mut segments: Vec<_> = std::fs::read_dir(&part)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    segments.sort();
    let last = segments.pop().expect("a segment");
    // Each record's frame: a 36-byte header, its key and its value.
    let frame = (36 + record.key.len() + record.value.len()) as u64;
    let file = std::fs::OpenOptions::new().write(true).open(&last).unwrap();
    let len = file.metadata().unwrap().len();
    file.set_len(len - frame).unwrap();
}

/// Runs a projection of `event` until it has published and shown generation `generation`;
/// returns the first pairs it then showed.
fn project_until(log: &Arc<dyn Log>, event: &'static str, generation: i64) -> Vec<PairStanding> {
    let stop = Arc::new(AtomicBool::new(false));
    let (shared, updates, projection) = start_projection(log, event, &stop);
    assert_eq!(
        updates_of(&updates, generation),
        [Update::Published(generation), Update::Shown(generation)]
    );
    stop.store(true, Ordering::Relaxed);
    projection.join().unwrap().unwrap();
    let p = shared.read().unwrap();
    p.leaderboard("combined", 0, LEADERBOARD_TOP).1
}

#[test]
fn a_leaderboard_a_crash_lost_is_published_again_by_the_next_projection() {
    let dir = tempfile::tempdir().unwrap();
    let event = "leaderboard-lost";
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let clubs = declared_session(log.as_ref(), event, "Leaderboard lost");
    let mut aggregator =
        Aggregator::open(log.clone(), event, simpairs_sim::aggregator_key()).unwrap();
    let until_idle = AggregateOptions {
        until_idle: true,
        ..AggregateOptions::default()
    };
    for (i, club) in CLUBS.iter().enumerate() {
        publish_csv(log.as_ref(), event, club, &key_of(club), &clubs[i]);
        aggregator
            .run(&until_idle, &AtomicBool::new(false), |_| {})
            .unwrap();
        if i + 2 == CLUBS.len() {
            project_until(&log, event, i as i64 + 1);
        }
    }
    drop(aggregator);
    // The last club's leaderboard is published after everything else was appended: nothing
    // durable follows it.
    let last = CLUBS.len() as i64;
    let shown = project_until(&log, event, last);
    let lost = last_published(log.as_ref(), event);
    assert_eq!((lost.generation, &lost.top), (last, &shown));
    let stream = simpairs_pipeline::stream_name(event, Stream::Leaderboard);
    let (partition, record, _) = leaderboards(log.as_ref(), event)
        .into_iter()
        .find(|(_, _, l)| l.generation == last)
        .expect("the last club's leaderboard");
    assert_eq!(
        record.offset + 1,
        log.end_offset(&stream, partition).unwrap()
    );

    // The machine stops before the leaderboard, appended without a flush, reaches the disk.
    drop(log);
    lose_last_record(dir.path(), &stream, partition, &record);
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    assert_eq!(last_published(log.as_ref(), event).generation, last - 1);

    let shown = project_until(&log, event, last);
    let again = last_published(log.as_ref(), event);
    assert_eq!((again.generation, &again.top), (last, &shown));
    assert_eq!(again.top, lost.top, "the same leaderboard");
}
