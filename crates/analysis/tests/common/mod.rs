//! A real-data event for the analysis tests: three real club sessions (two Compscore USEBIO files
//! from Australia and an NZ Scorer file, with their players' names and national numbers) published
//! as three clubs of one national event over boards 1-27, then a correction of one table of one
//! club and a record that does not read. Boards 1-21 are played in three clubs, 22-26 in two and
//! 27 in one, so factoring matters.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use simpairs_events::Stream;
use simpairs_events::types::{Factoring, Scoring};
use simpairs_log::{Log, Produce};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};
use simpairs_pipeline::history::Moment;
use simpairs_pipeline::replay::AsOf;
use simpairs_scoring::Options;

pub const EVENT: &str = "REALDATA";

/// (club, its file under the fixtures' `native/`).
pub const CLUBS: [(&str, &str); 3] = [
    ("M03", "cobalt/mp_pairs_mitchell_03.xml"),
    ("NZ", "scorer-to-usebio/pairs.xml"),
    ("M02", "cobalt/mp_pairs_mitchell_02.xml"),
];

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/realdata")
}

pub fn native(path: &str) -> Vec<u8> {
    let full = fixtures().join("native").join(path);
    std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// A log with its directory.
pub struct TestLog {
    pub log: Arc<dyn Log>,
    _dir: tempfile::TempDir,
}

pub fn empty_log() -> TestLog {
    let dir = tempfile::tempdir().unwrap();
    TestLog {
        log: Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap()),
        _dir: dir,
    }
}

pub fn declare_event(
    log: &dyn Log,
    event: &str,
    clubs: &[&str],
    boards: std::ops::RangeInclusive<i32>,
) {
    declare_event_scored(log, event, clubs, boards, Scoring::Matchpoints);
}

/// An event declared with a scoring method of its own (Butler, cross-IMPs).
pub fn declare_event_scored(
    log: &dyn Log,
    event: &str,
    clubs: &[&str],
    boards: std::ops::RangeInclusive<i32>,
    scoring: Scoring,
) {
    let clubs = clubs
        .iter()
        .map(|c| ClubLine {
            club_id: c.to_string(),
            name: format!("club {c}"),
            public_key: Some(simpairs_sim::club_key(c).public()),
        })
        .collect();
    let declaration = Declaration {
        name: format!("{event} (real club sessions)"),
        boards: boards.collect(),
        scoring,
        factoring: Factoring::Neuberg,
        ..Declaration::matchpoints(event, event, 1, clubs, 1).with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        )
    };
    declare(log, declaration).unwrap();
}

pub fn publish(log: &dyn Log, event: &str, club: &str, name: &str, bytes: &[u8]) -> u64 {
    // Publishes at different milliseconds, so that moments between them exist.
    std::thread::sleep(std::time::Duration::from_millis(3));
    simpairs_pipeline::publish::publish_file(
        log,
        event,
        club,
        &simpairs_sim::club_key(club),
        name,
        bytes,
        None,
    )
    .unwrap_or_else(|e| panic!("{club} {name}: {e}"))
    .seal_offset
}

/// The first row of M03's traveller CSV (board 1, 2 NS v 3 EW, 3D by N, 9 tricks, +110) with
/// its score corrected to +130, as the club's correction of that one table.
pub const CORRECTION: &str = "board,section,ns_pair,ew_pair,contract,declarer,tricks,ns_score,movement\n1,,2,3,3D,N,10,130,mitchell\n";

/// A USEBIO file without its hand records (its `HANDSET`).
pub fn without_deals(xml: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(xml);
    match (text.find("<HANDSET>"), text.find("</HANDSET>")) {
        (Some(start), Some(end)) => {
            format!("{}{}", &text[..start], &text[end + "</HANDSET>".len()..]).into_bytes()
        }
        _ => xml.to_vec(),
    }
}

/// The file a club of the real-data event publishes: M02's session of another week dealt other
/// hands, and an event sets aside a club whose deals differ from its own, so M02 publishes
/// without its hand records (as a club whose scorer did not attach them).
pub fn club_file(club: &str, file: &str) -> Vec<u8> {
    let bytes = native(file);
    if club == "M02" {
        without_deals(&bytes)
    } else {
        bytes
    }
}

/// The real-data event; returns the log and the seal offsets of the four submissions.
pub fn realdata_event() -> (TestLog, Vec<u64>) {
    let t = empty_log();
    let log = t.log.as_ref();
    declare_event(log, EVENT, &CLUBS.map(|c| c.0), 1..=27);
    let mut seals = Vec::new();
    for (club, file) in CLUBS {
        seals.push(publish(log, EVENT, club, file, &club_file(club, file)));
    }
    let results = simpairs_pipeline::stream_name(EVENT, Stream::Results);
    log.append(
        &results,
        &[Produce::new(
            b"x",
            b"not a record",
            simpairs_pipeline::now_ms(),
        )],
    )
    .unwrap();
    seals.push(publish(
        log,
        EVENT,
        "M03",
        "correction.csv",
        CORRECTION.as_bytes(),
    ));
    (t, seals)
}

/// A total as `replay --json` prints it: matchpoint totals are sums in floating point (their last
/// bits may differ with the order of the rows), IMP totals the exact total in hundredths.
pub fn same_total(figures: &simpairs_analysis::figures::Figures, printed: f64) -> bool {
    match figures.percent {
        Some(_) => (figures.total - printed).abs() <= 1e-9 * printed.abs().max(1.0),
        None => figures.total_hundredths as f64 / 100.0 == printed,
    }
}

/// `replay --json` of an event as of a moment with some options (the replay command's path,
/// without the index).
pub fn replay_json(
    log: &dyn Log,
    event: &str,
    as_of: Option<AsOf>,
    options: &Options,
) -> serde_json::Value {
    let moment = Moment::replayed(log, event, as_of).unwrap();
    let field = moment.field(None).unwrap();
    let scoring = simpairs_scoring::score(&field, options).unwrap();
    let mut out = Vec::new();
    simpairs_formats::report::write_json(&mut out, &scoring).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// `score --json` of one real file.
pub fn score_json(path: &str, options: &Options) -> serde_json::Value {
    let imported = simpairs_formats::import::read(path, &native(path), None).unwrap();
    let scoring = simpairs_scoring::score(&imported.field, options).unwrap();
    let mut out = Vec::new();
    simpairs_formats::report::write_json(&mut out, &scoring).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// A pair of a report: (club, section, pair, direction).
pub type Key = (String, String, String, String);

/// A pair's figures in a report: (rank, tied, pct, mp or IMPs).
pub type Printed = (u64, bool, Option<f64>, f64);

/// The pairs of a report JSON by (club, section, pair, direction): (rank, tied, pct, mp).
pub fn pairs_of(report: &serde_json::Value) -> std::collections::BTreeMap<Key, Printed> {
    report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap().to_string();
            (
                (s("club"), s("section"), s("pair"), s("direction")),
                (
                    p["rank"].as_u64().unwrap(),
                    p["tied"].as_bool().unwrap(),
                    p["pct"].as_f64(),
                    p["mp"].as_f64().or(p["imps"].as_f64()).unwrap(),
                ),
            )
        })
        .collect()
}
