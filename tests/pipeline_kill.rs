//! The aggregator killed with SIGKILL at random moments while clubs publish converges, after restart,
//! to exactly the leaderboard of a clean run; duplicated submissions change nothing.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use simpairs_events::types::{Factoring, Scoring};
use simpairs_events::{Codec, Event, Stream};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};

const EVENT: &str = "kill-test";

fn key_of(club: &str) -> Vec<u8> {
    let mut k = club.as_bytes().to_vec();
    k.resize(32, b'*');
    k
}

fn setup(dir: &Path, event: &simpairs_sim::SimEvent) -> Arc<dyn simpairs_log::Log> {
    let log: Arc<dyn simpairs_log::Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir).unwrap());
    declare(
        log.as_ref(),
        Declaration {
            event_id: EVENT.into(),
            name: "kill test".into(),
            boards: (1..=i32::from(event.boards)).collect(),
            scoring: Scoring::Matchpoints,
            factoring: Factoring::Neuberg,
            clubs: event
                .clubs
                .iter()
                .map(|c| ClubLine {
                    club_id: c.id.clone(),
                    name: c.name.clone(),
                    key: Some(key_of(&c.id)),
                })
                .collect(),
            keys_dir: None,
            partitions: 1,
        },
    )
    .unwrap();
    log
}

/// The order clubs publish in: every club, some twice, and the correction last.
fn publish_order(event: &simpairs_sim::SimEvent) -> Vec<(usize, String)> {
    let mut order: Vec<(usize, String)> = event
        .clubs
        .iter()
        .enumerate()
        .map(|(i, c)| (i, c.csv.clone()))
        .collect();
    for i in [3, 7, 3] {
        order.push((i, event.clubs[i].csv.clone()));
    }
    order.push((event.correction.0, event.correction.1.clone()));
    order
}

fn publish(log: &dyn simpairs_log::Log, event: &simpairs_sim::SimEvent, club: usize, csv: &str) {
    let id = &event.clubs[club].id;
    simpairs_pipeline::publish::publish_file(
        log,
        EVENT,
        id,
        &key_of(id),
        "club.csv",
        csv.as_bytes(),
        None,
    )
    .unwrap();
}

fn aggregator(dir: &Path, until_idle: bool) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_simpairs"));
    cmd.args(["aggregate", "--log"])
        .arg(dir)
        .args(["--event", EVENT]);
    if until_idle {
        cmd.arg("--until-idle");
    }
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The national standings as the projection would show them after reading everything written.
fn leaderboard(log: &dyn simpairs_log::Log) -> Vec<String> {
    let codec = Codec::new().unwrap();
    let mut projection = simpairs_pipeline::project::Projection::new(EVENT);
    for stream in [Stream::BoardScores, Stream::Leaderboard] {
        let name = simpairs_pipeline::stream_name(EVENT, stream);
        let end = log.end_offset(&name, 0).unwrap();
        simpairs_pipeline::read_range(log, &name, 0, 0, end, |r| {
            projection.apply(codec.decode(&r.value).unwrap());
        })
        .unwrap();
    }
    let mut rows: Vec<String> = projection
        .leaderboard("combined")
        .iter()
        .map(|s| {
            format!(
                "{} {} {:?} {} {} {:?} {}",
                s.club_id,
                s.pair,
                s.direction,
                s.combined_rank,
                s.total_hundredths,
                s.percent_hundredths,
                s.rank
            )
        })
        .collect();
    rows.push(format!("results in force: {}", projection.results.len()));
    rows
}

fn dead_letters(log: &dyn simpairs_log::Log) -> usize {
    let name = simpairs_pipeline::stream_name(EVENT, Stream::DeadLetter);
    log.end_offset(&name, 0).unwrap() as usize
}

#[test]
fn killed_aggregator_converges_to_the_clean_run() {
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 99,
        clubs: 24,
        boards: 8,
        ..Default::default()
    });
    let order = publish_order(&event);

    // Clean run: publish everything, aggregate once.
    let clean_dir = tempfile::tempdir().unwrap();
    let clean_log = setup(clean_dir.path(), &event);
    for (club, csv) in &order {
        publish(clean_log.as_ref(), &event, *club, csv);
    }
    assert!(aggregator(clean_dir.path(), true).wait().unwrap().success());
    let clean = leaderboard(clean_log.as_ref());

    // Crash run: the aggregator is killed at pseudo-random moments while clubs publish.
    let dir = tempfile::tempdir().unwrap();
    let log = setup(dir.path(), &event);
    let mut child = aggregator(dir.path(), false);
    let mut rng = fastrand::Rng::with_seed(7);
    let mut kills = 0;
    let mut next_kill = Instant::now() + Duration::from_millis(rng.u64(20..200));
    for (club, csv) in &order {
        publish(log.as_ref(), &event, *club, csv);
        std::thread::sleep(Duration::from_millis(rng.u64(0..40)));
        if Instant::now() >= next_kill {
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            kills += 1;
            child = aggregator(dir.path(), false);
            next_kill = Instant::now() + Duration::from_millis(rng.u64(20..200));
        }
    }
    std::thread::sleep(Duration::from_millis(rng.u64(0..100)));
    child.kill().unwrap();
    child.wait().unwrap();
    // Restarted, it catches up.
    assert!(aggregator(dir.path(), true).wait().unwrap().success());
    assert!(
        kills >= 3,
        "the test killed the aggregator only {kills} times"
    );
    assert_eq!(leaderboard(log.as_ref()), clean);
    assert_eq!(dead_letters(log.as_ref()), 0);
    assert_eq!(dead_letters(clean_log.as_ref()), 0);
}

#[test]
fn forged_and_malformed_input_go_to_dead_letters_and_change_nothing() {
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 5,
        clubs: 10,
        boards: 4,
        ..Default::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let log = setup(dir.path(), &event);
    for (club, csv) in publish_order(&event).iter().take(6) {
        publish(log.as_ref(), &event, *club, csv);
    }
    assert!(aggregator(dir.path(), true).wait().unwrap().success());
    let before = leaderboard(log.as_ref());

    // A forged submission: club 2's file signed with someone else's key (sent past the club node's check).
    let codec = Codec::new().unwrap();
    let victim = &event.clubs[1];
    let imported = simpairs_formats::import::read("x.csv", victim.csv.as_bytes(), None).unwrap();
    let records =
        simpairs_pipeline::publish::submission_events(EVENT, &victim.id, &imported).unwrap();
    let forged = simpairs_pipeline::publish::seal(
        &codec,
        EVENT,
        &victim.id,
        b"an attacker's key, 32 bytes long",
        records,
        None,
    );
    simpairs_pipeline::publish::append_submission(log.as_ref(), &codec, EVENT, &forged).unwrap();
    // A malformed message.
    let results = simpairs_pipeline::stream_name(EVENT, Stream::Results);
    log.append(&results, &[simpraw(b"\xc3\x01\x00\x01\x02 not an event")])
        .unwrap();
    assert!(aggregator(dir.path(), true).wait().unwrap().success());

    assert_eq!(leaderboard(log.as_ref()), before, "nothing else changes");
    let name = simpairs_pipeline::stream_name(EVENT, Stream::DeadLetter);
    let reasons: Vec<String> = log
        .read(&name, 0, 0, 100)
        .unwrap()
        .iter()
        .map(|r| match codec.decode(&r.value).unwrap() {
            Event::DeadLettered(d) => d.reason,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons.iter().any(|r| r.contains(&victim.id)
            && (r.contains("signed with key") || r.contains("does not verify"))),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("cannot read")),
        "{reasons:?}"
    );
}

fn simpraw(bytes: &'static [u8]) -> simpairs_log::Produce<'static> {
    simpairs_log::Produce::new(b"raw", bytes, 0)
}
