//! `simpairs serve` fails loudly when its projection stops: on a log whose board scores are
//! damaged it says why and exits non-zero, instead of serving a frozen or empty event.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};

#[test]
fn serve_exits_non_zero_on_a_damaged_log() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let sim = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 3,
        clubs: 4,
        boards: 3,
        ..Default::default()
    });
    let clubs = sim
        .clubs
        .iter()
        .map(|c| ClubLine {
            club_id: c.id.clone(),
            name: c.name.clone(),
            public_key: Some(simpairs_sim::club_key(&c.id).public()),
        })
        .collect();
    declare(
        log.as_ref(),
        Declaration::matchpoints("E", "Damaged", 3, clubs, 1).with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )
    .unwrap();
    for c in &sim.clubs {
        simpairs_pipeline::publish::publish_file(
            log.as_ref(),
            "E",
            &c.id,
            &simpairs_sim::club_key(&c.id),
            "c.csv",
            c.csv.as_bytes(),
            None,
        )
        .unwrap();
    }
    let mut aggregator =
        Aggregator::open(log.clone(), "E", simpairs_sim::aggregator_key()).unwrap();
    let options = AggregateOptions {
        until_idle: true,
        ..Default::default()
    };
    aggregator
        .run(&options, &AtomicBool::new(false), |_| {})
        .unwrap();
    drop((aggregator, log));
    let segment = dir.path().join("E.board-scores/0/00000000000000000000.log");
    let mut bytes = std::fs::read(&segment).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 0xff;
    std::fs::write(&segment, bytes).unwrap();

    let started = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_simpairs"))
        .args(["serve", "--log"])
        .arg(dir.path())
        .args(["--event", "E", "--listen", "127.0.0.1:0", "--no-publish"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "serve exits non-zero: {stderr}");
    assert!(
        stderr.contains("the results stopped updating") && stderr.contains("E.board-scores"),
        "{stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
}
