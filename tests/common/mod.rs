//! Helpers for the process-level pipeline tests, for any log backend: the log is named by the
//! location the command line takes (a directory or `kafka://host:port`).
#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use simpairs_events::{Codec, Event, Stream};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};

/// A log under test: its location as the CLI takes it, and an open handle.
pub struct TestLog {
    pub location: String,
    pub log: Arc<dyn simpairs_log::Log>,
    pub event: String,
    _dir: Option<tempfile::TempDir>,
}

/// The file of the simulated events' aggregator key, written once per test process.
pub fn aggregator_key_file() -> std::path::PathBuf {
    static FILE: std::sync::OnceLock<(tempfile::TempDir, std::path::PathBuf)> =
        std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("aggregator.key");
        simpairs_pipeline::keys::write_private(&simpairs_sim::aggregator_key(), &path).unwrap();
        (dir, path)
    })
    .1
    .clone()
}

/// A fresh embedded log.
pub fn embedded(event: &str) -> TestLog {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    TestLog {
        location: dir.path().display().to_string(),
        log,
        event: event.into(),
        _dir: Some(dir),
    }
}

/// The broker of `SIMPAIRS_KAFKA`, with a fresh event (fresh topics); `None` (with a note) when no
/// broker is configured outside CI; a loud failure in CI.
pub fn kafka(event: &str) -> Option<TestLog> {
    match std::env::var("SIMPAIRS_KAFKA") {
        Ok(location) => {
            let log: Arc<dyn simpairs_log::Log> =
                Arc::new(simpairs_kafka::KafkaLog::open(&location).expect("the broker answers"));
            let event = format!("{event}-{}-{}", std::process::id(), fastrand::u32(..));
            Some(TestLog {
                location,
                log,
                event,
                _dir: None,
            })
        }
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!(
                "SIMPAIRS_KAFKA is not set: start the broker with scripts/broker start and export its address"
            )
        }
        Err(_) => {
            eprintln!(
                "skipped: no broker (start one with `export SIMPAIRS_KAFKA=$(scripts/broker start)`)"
            );
            None
        }
    }
}

pub use simpairs_sim::club_key as key_of;

impl TestLog {
    pub fn declare(&self, event: &simpairs_sim::SimEvent, partitions: u32) {
        declare(
            self.log.as_ref(),
            Declaration::matchpoints(
                &self.event,
                "process test",
                event.boards,
                event
                    .clubs
                    .iter()
                    .map(|c| ClubLine {
                        club_id: c.id.clone(),
                        name: c.name.clone(),
                        public_key: Some(key_of(&c.id).public()),
                    })
                    .collect(),
                partitions,
            )
            .with_keys(
                simpairs_sim::aggregator_key().public(),
                simpairs_sim::organiser_key().public(),
            ),
        )
        .unwrap();
    }

    pub fn publish(&self, event: &simpairs_sim::SimEvent, club: usize, csv: &str) {
        let id = &event.clubs[club].id;
        simpairs_pipeline::publish::publish_file(
            self.log.as_ref(),
            &self.event,
            id,
            &key_of(id),
            "club.csv",
            csv.as_bytes(),
            None,
        )
        .unwrap();
    }

    /// `simpairs aggregate --until-idle` as its own process, committing every `batch` records.
    /// (Simulated events declare `simpairs_sim::aggregator_key`; its file is written once.)
    pub fn aggregator_batched(&self, instance: &str, batch: usize) -> Child {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_simpairs"));
        cmd.args(["aggregate", "--log", &self.location, "--event", &self.event])
            .arg("--key")
            .arg(aggregator_key_file())
            .args([
                "--instance",
                instance,
                "--until-idle",
                "--batch",
                &batch.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }

    /// `simpairs aggregate` as its own process.
    pub fn aggregator(&self, instance: &str, until_idle: bool) -> Child {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_simpairs"));
        cmd.args([
            "aggregate",
            "--log",
            &self.location,
            "--event",
            &self.event,
            "--instance",
            instance,
        ])
        .arg("--key")
        .arg(aggregator_key_file());
        if until_idle {
            cmd.arg("--until-idle");
        }
        // The aggregators' logs go to target/test-logs/<event>.<instance>.log, for failures.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-logs");
        let _ = std::fs::create_dir_all(&dir);
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(format!("{}.{instance}.log", self.event)))
            .map_or(Stdio::null(), Stdio::from);
        cmd.env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap()
    }

    /// Every record of every partition of one of the event's streams.
    fn records(&self, stream: Stream) -> Vec<simpairs_log::Record> {
        let name = simpairs_pipeline::stream_name(&self.event, stream);
        let mut out = Vec::new();
        for p in 0..self.log.partitions(&name).unwrap() {
            let end = self.log.end_offset(&name, p).unwrap();
            simpairs_pipeline::read_range(self.log.as_ref(), &name, p, 0, end, |r| {
                out.push(r.clone())
            })
            .unwrap();
        }
        out
    }

    /// The national leaderboard and the number of results in force, as a projection built from
    /// everything written shows them (event ids left out, so that two events can be compared).
    pub fn leaderboard(&self) -> Vec<String> {
        let projection =
            simpairs_pipeline::project::Projection::load(self.log.as_ref(), &self.event).unwrap();
        let mut rows: Vec<String> = projection
            .leaderboard("combined", 0, usize::MAX)
            .1
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
        rows.push(format!("results in force: {}", projection.result_count()));
        let mut boards: Vec<String> = projection
            .board_scores
            .values()
            .filter(|b| b.scope.is_empty())
            .map(|b| {
                format!(
                    "board {} {} {:?}",
                    b.board,
                    b.results_count,
                    b.table
                        .iter()
                        .map(|e| (e.ns_score, e.count, e.ns_value.num, e.ns_value.den))
                        .collect::<Vec<_>>()
                )
            })
            .collect();
        boards.sort();
        rows.extend(boards);
        rows
    }

    /// Every view the projection serves, as text to compare byte for byte: the three national
    /// lists, each club's own standings, every board's scores in every scope, the scorecard of
    /// every pair, and what is in force. Generations are left out: a killed aggregator writes a
    /// board in another batch than a clean run does, with the same scores.
    pub fn views(&self) -> Vec<String> {
        let projection =
            simpairs_pipeline::project::Projection::load(self.log.as_ref(), &self.event).unwrap();
        let mut rows = Vec::new();
        for list in ["combined", "ns", "ew"] {
            let (total, entries) = projection.leaderboard(list, 0, usize::MAX);
            rows.push(format!("{list}: {total} pairs"));
            rows.extend(entries.iter().map(|s| format!("{list} {s:?}")));
        }
        for (club, standings) in &projection.clubs {
            rows.extend(
                standings
                    .standings
                    .iter()
                    .map(|s| format!("club {club} {s:?}")),
            );
        }
        for ((scope, board), b) in &projection.board_scores {
            rows.push(format!(
                "board {scope}/{board} {} {} {:?} {:?} {:?} {:?}",
                b.results_count, b.target, b.top, b.datum, b.table, b.specials
            ));
        }
        let (_, pairs) = projection.leaderboard("combined", 0, usize::MAX);
        for s in &pairs {
            let pair = simpairs_pipeline::PairKey::new(
                s.club_id.clone(),
                s.section.clone(),
                s.pair.clone(),
                simpairs_pipeline::wire::direction_key(s.direction),
            );
            rows.push(format!(
                "scorecard {pair:?} {:?}",
                projection.scorecard(&pair)
            ));
        }
        rows.push(format!(
            "results in force: {}, set aside: {}",
            projection.result_count(),
            projection.dead_letters
        ));
        rows
    }

    /// The reasons of the dead letters written so far (the aggregator's seals over them aside).
    pub fn dead_letters(&self) -> Vec<String> {
        self.dead_lettered().into_iter().map(|d| d.reason).collect()
    }

    /// The dead letters whole, in the order written.
    pub fn dead_lettered(&self) -> Vec<simpairs_events::types::DeadLettered> {
        let codec = Codec::new().unwrap();
        self.records(Stream::DeadLetter)
            .iter()
            .filter_map(|r| match codec.decode(&r.value).unwrap() {
                Event::DeadLettered(d) => Some(d),
                Event::OutputSealed(_) => None,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    /// The results stream's record at `partition` and `offset`.
    pub fn result_record(&self, partition: i32, offset: i64) -> Option<simpairs_log::Record> {
        self.records(Stream::Results)
            .into_iter()
            .find(|r| i64::from(r.partition) == i64::from(partition) && r.offset as i64 == offset)
    }

    /// Checks that each dead letter carries the record it sets aside, byte for byte, as the
    /// results stream holds it.
    pub fn assert_dead_letters_carry_their_records(&self) {
        for letter in self.dead_lettered() {
            let record = self
                .result_record(letter.source_partition, letter.source_offset)
                .expect("the record set aside is in the results stream");
            assert_eq!(letter.payload, record.value, "{}", letter.reason);
            assert!(!letter.payload.is_empty());
        }
    }

    /// Waits until the leaderboard equals `expected` (aggregators run on their own), up to `limit`;
    /// on failure, says where the last leaderboard seen first differs.
    pub fn converges_to(&self, expected: &[String], limit: Duration) -> Result<(), String> {
        let started = Instant::now();
        loop {
            let got = self.leaderboard();
            if got == expected {
                return Ok(());
            }
            if started.elapsed() > limit {
                let at = got
                    .iter()
                    .zip(expected)
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(expected.len()));
                return Err(format!(
                    "line {at} of {} (expected {}): got {:?}, expected {:?}",
                    got.len(),
                    expected.len(),
                    got.get(at),
                    expected.get(at)
                ));
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

/// The order clubs publish in: every club, some twice, and the correction last.
pub fn publish_order(event: &simpairs_sim::SimEvent) -> Vec<(usize, String)> {
    let mut order: Vec<(usize, String)> = event
        .clubs
        .iter()
        .enumerate()
        .map(|(i, c)| (i, c.csv.clone()))
        .collect();
    for i in [3, 7, 3] {
        if i < event.clubs.len() {
            order.push((i, event.clubs[i].csv.clone()));
        }
    }
    order.push((event.correction.0, event.correction.1.clone()));
    order
}

/// The leaderboard of a clean run: everything published, one aggregator run to the end.
pub fn clean_run(log: TestLog, event: &simpairs_sim::SimEvent, partitions: u32) -> Vec<String> {
    log.declare(event, partitions);
    for (club, csv) in publish_order(event) {
        log.publish(event, club, &csv);
    }
    assert!(log.aggregator("clean", true).wait().unwrap().success());
    let rows = log.leaderboard();
    assert_complete(event, &rows);
    rows
}

/// Asserts that a leaderboard of [`TestLog::leaderboard`] holds the whole event: every club's
/// pairs, every result in force, every board scored. A run compared with a clean run must show
/// this too: two empty leaderboards (an aggregator that wrote nothing) are equal.
pub fn assert_complete(event: &simpairs_sim::SimEvent, rows: &[String]) {
    // The correction replaces a line: it adds no result.
    let results: usize = event.clubs.iter().map(|c| c.results).sum();
    assert!(results > 0, "the event has results");
    assert!(
        rows.contains(&format!("results in force: {results}")),
        "not every result is in force: {:?}",
        rows.iter().find(|r| r.starts_with("results in force"))
    );
    for club in &event.clubs {
        let pairs = rows
            .iter()
            .filter(|r| r.split(' ').next() == Some(club.id.as_str()))
            .count();
        assert_eq!(
            pairs,
            2 * club.tables,
            "club {} ({} tables) on the leaderboard",
            club.id,
            club.tables
        );
    }
    let boards = rows.iter().filter(|r| r.starts_with("board ")).count();
    assert_eq!(boards, usize::from(event.boards), "every board scored");
}

/// Runs the aggregator over what is published, in small batches, killing it with SIGKILL at
/// pseudo-random moments until it has been killed `kills` times or it finishes; returns the kills.
pub fn kill_while_ingesting(log: &TestLog, kills: usize) -> usize {
    let mut rng = fastrand::Rng::with_seed(18);
    let mut done = 0;
    while done < kills {
        let mut child = log.aggregator_batched("main", 2_000);
        // Short lives, so that the ingest is still under way at the last kill: each life makes
        // at most its length of progress, and a restart that reads its state back costs little.
        // The whole ingest takes about half a second on a quick machine; a life ends anywhere
        // from its start (reading the log back) to its writing.
        let deadline = Instant::now() + Duration::from_millis(rng.u64(10..120));
        while Instant::now() < deadline {
            if child.try_wait().unwrap().is_some() {
                return done;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        done += 1;
    }
    done
}

/// Publishes while the aggregator is killed with SIGKILL at pseudo-random moments; returns the kills.
pub fn publish_while_killing(
    log: &TestLog,
    event: &simpairs_sim::SimEvent,
    instance: &str,
) -> usize {
    let mut child = log.aggregator(instance, false);
    let mut rng = fastrand::Rng::with_seed(7);
    let mut kills = 0;
    let mut next_kill = Instant::now() + Duration::from_millis(rng.u64(20..200));
    for (club, csv) in publish_order(event) {
        log.publish(event, club, &csv);
        std::thread::sleep(Duration::from_millis(rng.u64(0..40)));
        if Instant::now() >= next_kill {
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            kills += 1;
            child = log.aggregator(instance, false);
            next_kill = Instant::now() + Duration::from_millis(rng.u64(20..200));
        }
    }
    std::thread::sleep(Duration::from_millis(rng.u64(0..100)));
    child.kill().unwrap();
    child.wait().unwrap();
    kills
}

/// Sends a forged submission (club 2's file signed with someone else's key, past the club node's
/// check) and a malformed message.
pub fn send_forged_and_malformed(log: &TestLog, event: &simpairs_sim::SimEvent) {
    let codec = Codec::new().unwrap();
    let victim = &event.clubs[1];
    let imported = simpairs_formats::import::read("x.csv", victim.csv.as_bytes(), None).unwrap();
    let records = simpairs_pipeline::publish::submission_events(&log.event, &victim.id, &imported)
        .unwrap()
        .events;
    let forged = simpairs_pipeline::publish::seal(
        &codec,
        &log.event,
        &victim.id,
        &simpairs_events::PrivateKey::from_secret([0xA7; 32]),
        records,
        simpairs_pipeline::publish::SealInfo::default(),
    );
    simpairs_pipeline::publish::append_submission(log.log.as_ref(), &codec, &log.event, &forged)
        .unwrap();
    let results = simpairs_pipeline::stream_name(&log.event, Stream::Results);
    log.log
        .append(
            &results,
            &[simpairs_log::Produce::new(
                b"raw",
                b"\xc3\x01\x00\x01\x02 not an event",
                0,
            )],
        )
        .unwrap();
}
