//! One judge: whatever `club publish` accepts, the aggregator applies, and the event replayed from
//! the log scores to the bytes `score` gives for the same file. Club files are generated in every
//! shape the readers take (CRLF and LF, a UTF-8 BOM, quoted fields, empty and reordered columns,
//! score-only rows, PASS, not played, adjustments, split scores, arrow switches, fouled groups,
//! names, leads, changed scores, Howell and Mitchell; as CSV and as the USEBIO simpairs writes),
//! published, aggregated and replayed through the embedded log and, when `SIMPAIRS_KAFKA` names a
//! broker, through Kafka.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use proptest::prelude::*;
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};
use simpairs_scoring::Options;
use simpairs_scoring::contract::{Contract, Seat, Vulnerability, ns_score};

const CLUB: &str = "C1";

/// One table's line of a generated file, its fields as text.
#[derive(Clone, Debug, Default)]
struct Line {
    board: u16,
    ns_pair: String,
    ew_pair: String,
    contract: String,
    declarer: String,
    tricks: String,
    ns_score: String,
    ew_score: String,
    adjusted: String,
    arrow_switch: String,
    group: String,
    lead: String,
    ns_names: String,
    ew_names: String,
}

/// What a generated file looks like.
#[derive(Clone, Debug)]
struct Shape {
    crlf: bool,
    bom: bool,
    quote_all: bool,
    club_column: bool,
    howell: bool,
    usebio: bool,
    trailing_newline: bool,
    /// Between the fields: a comma, or a spreadsheet's semicolon or tab.
    separator: char,
}

/// A played contract at random, with a consistent result.
fn played(rng: &mut fastrand::Rng, board: u16, line: &mut Line) {
    let level = rng.u8(1..=7);
    let strain = ["C", "D", "H", "S", "NT"][rng.usize(..5)];
    let doubling = ["", "", "", "X", "XX"][rng.usize(..5)];
    let declarer = ["N", "E", "S", "W"][rng.usize(..4)];
    let tricks = (level + 6).saturating_sub(rng.u8(0..4)).min(13) + u8::from(rng.bool());
    let tricks = tricks.min(13);
    line.contract = format!("{level}{strain}{doubling}");
    line.declarer = declarer.into();
    line.tricks = tricks.to_string();
    let contract: Contract = line.contract.parse().expect("a generated contract");
    let seat: Seat = declarer.parse().expect("a seat");
    let score = ns_score(
        contract,
        seat,
        tricks,
        Vulnerability::of_board(u32::from(board)),
    )
    .expect("a score");
    match rng.u8(0..10) {
        // The score written beside the contract, as most programs do.
        0..=3 => line.ns_score = score.to_string(),
        // A director changed the score: the recorded score stands, with a warning.
        4 => line.ns_score = (score + 100).to_string(),
        _ => {}
    }
    if rng.u8(0..4) == 0 {
        line.lead = ["HA", "S2", "CT", "DK"][rng.usize(..4)].into();
    }
}

/// The result of one table, in one of the shapes a traveller line can take.
fn result(rng: &mut fastrand::Rng, board: u16, line: &mut Line) {
    match rng.u8(0..20) {
        0..=9 => played(rng, board, line),
        10 | 11 => {
            line.ns_score = ["110", "-50", "420", "620", "-100", "170"][rng.usize(..6)].into()
        }
        12 => line.contract = "PASS".into(),
        13 => line.contract = "NP".into(),
        14 => line.adjusted = ["AVE", "AVE+", "AVE-", "60/40", "40/40"][rng.usize(..5)].into(),
        15 => {
            line.ns_score = "-150".into();
            line.ew_score = "50".into();
        }
        16 => {
            played(rng, board, line);
            line.arrow_switch = "true".into();
        }
        17 => {
            line.ew_score = ["-110", "50", "-620"][rng.usize(..3)].into();
        }
        _ => played(rng, board, line),
    }
}

/// A club's session at random.
fn session(seed: u64, shape: &Shape) -> Vec<Line> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let tables = rng.u32(1..=5);
    let boards = rng.u16(1..=5);
    let fouled = rng.u16(0..=boards);
    let names = rng.bool();
    let mut lines = Vec::new();
    for board in 1..=boards {
        for table in 1..=tables {
            let ew = if shape.howell { tables + table } else { table };
            let mut line = Line {
                board,
                ns_pair: table.to_string(),
                ew_pair: ew.to_string(),
                ..Line::default()
            };
            result(&mut rng, board, &mut line);
            // A fouled board: two groups of tables played different deals.
            if board == fouled && line.contract != "NP" {
                line.group = if table % 2 == 0 { "A" } else { "B" }.into();
            }
            if names {
                line.ns_names = format!("North {table}, Ann & South {table}");
                line.ew_names = format!("Éast {ew} & West {ew}");
            }
            lines.push(line);
        }
    }
    lines
}

/// The session as a traveller CSV of the given shape, columns in an order drawn from `seed`.
fn csv(seed: u64, shape: &Shape, lines: &[Line]) -> Vec<u8> {
    type Get = fn(&Line) -> String;
    let mut columns: Vec<(&str, Get)> = vec![
        ("board", |l| l.board.to_string()),
        ("ns_pair", |l| l.ns_pair.clone()),
        ("ew_pair", |l| l.ew_pair.clone()),
        ("contract", |l| l.contract.clone()),
        ("declarer", |l| l.declarer.clone()),
        ("tricks", |l| l.tricks.clone()),
        ("ns_score", |l| l.ns_score.clone()),
        ("ew_score", |l| l.ew_score.clone()),
        ("adjusted", |l| l.adjusted.clone()),
        ("arrow_switch", |l| l.arrow_switch.clone()),
        ("group", |l| l.group.clone()),
        ("lead", |l| l.lead.clone()),
        ("ns_names", |l| l.ns_names.clone()),
        ("ew_names", |l| l.ew_names.clone()),
    ];
    if shape.club_column {
        columns.push(("club", |_| CLUB.to_string()));
    }
    if shape.howell {
        columns.push(("movement", |_| "howell".to_string()));
    }
    // Columns nobody uses are left out; the rest in any order.
    columns.retain(|(name, get)| {
        matches!(
            *name,
            "board" | "ns_pair" | "ew_pair" | "ns_score" | "contract"
        ) || lines.iter().any(|l| !get(l).is_empty())
    });
    fastrand::Rng::with_seed(seed ^ 0x5eed).shuffle(&mut columns);
    let end = if shape.crlf { "\r\n" } else { "\n" };
    let field = |text: &str| {
        if shape.quote_all || text.contains(shape.separator) || text.contains('"') {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text.to_string()
        }
    };
    let mut out = String::new();
    if shape.bom {
        out.push('\u{feff}');
    }
    let header: Vec<String> = columns.iter().map(|(n, _)| field(n)).collect();
    let separator = shape.separator.to_string();
    out.push_str(&header.join(&separator));
    for line in lines {
        out.push_str(end);
        let row: Vec<String> = columns.iter().map(|(_, get)| field(&get(line))).collect();
        out.push_str(&row.join(&separator));
    }
    if shape.trailing_newline {
        out.push_str(end);
    }
    out.into_bytes()
}

/// The file a club publishes, in the shape drawn: CSV, or the USEBIO simpairs writes of it.
fn club_file(seed: u64, shape: &Shape) -> (String, Vec<u8>) {
    let lines = session(seed, shape);
    let bytes = csv(seed, shape, &lines);
    if !shape.usebio {
        return ("club.csv".into(), bytes);
    }
    let Ok(imported) = simpairs_formats::import::read("club.csv", &bytes, None) else {
        return ("club.csv".into(), bytes);
    };
    let Ok(scoring) = simpairs_scoring::score(&imported.field, &Options::default()) else {
        return ("club.csv".into(), bytes);
    };
    let mut xml = Vec::new();
    simpairs_formats::export::write_usebio(&mut xml, &imported, &scoring).expect("in memory");
    ("club.xml".into(), xml)
}

/// `score --json`'s report of a file (with its names and warnings).
fn report(imported: &simpairs_formats::Imported) -> Vec<u8> {
    let scoring = simpairs_scoring::score(&imported.field, &Options::default()).expect("scores");
    let mut out = Vec::new();
    simpairs_formats::report::write_imported_json(&mut out, imported, &scoring).expect("in memory");
    out
}

/// Publishes one generated file to a fresh event of `log` and holds the judge to its word.
fn publish_and_replay(log: Arc<dyn simpairs_log::Log>, event: &str, seed: u64, shape: &Shape) {
    let (name, bytes) = club_file(seed, shape);
    let scored = simpairs_formats::import::read(&name, &bytes, None);
    if shape.separator != ',' {
        // A spreadsheet's separators read as commas do: the same session with commas is read (or
        // refused) alike.
        let commas = Shape {
            separator: ',',
            ..*shape
        };
        let (comma_name, comma_bytes) = club_file(seed, &commas);
        let with_commas = simpairs_formats::import::read(&comma_name, &comma_bytes, None);
        assert_eq!(
            scored
                .as_ref()
                .map(|i| i.field.len())
                .map_err(|e| e.to_string()),
            with_commas
                .as_ref()
                .map(|i| i.field.len())
                .map_err(|e| e.to_string()),
            "{}",
            shown(&bytes)
        );
    }
    let club = ClubLine {
        club_id: CLUB.into(),
        name: "Club one".into(),
        public_key: Some(common::key_of(CLUB).public()),
    };
    declare(
        log.as_ref(),
        Declaration::matchpoints(event, "judge", 8, vec![club], 1).with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )
    .expect("declared");
    let published = simpairs_pipeline::publish::publish_file(
        log.as_ref(),
        event,
        CLUB,
        &common::key_of(CLUB),
        &name,
        &bytes,
        None,
    );
    let imported = match (scored, published) {
        (Ok(imported), Ok(published)) => {
            assert_eq!(
                published.warnings.len(),
                imported.warnings.len(),
                "publish and score warn of the same lines: {:?} {:?}",
                published.warnings,
                imported.warnings
            );
            imported
        }
        (Err(_), Err(_)) => return,
        (Ok(_), Err(e)) => panic!(
            "score reads the file but publish refuses it: {e}\n{}",
            shown(&bytes)
        ),
        (Err(e), Ok(_)) => panic!(
            "publish accepts a file score refuses: {e}\n{}",
            shown(&bytes)
        ),
    };
    let mut aggregator =
        Aggregator::open(log.clone(), event, simpairs_sim::aggregator_key()).expect("opens");
    let until_idle = AggregateOptions {
        until_idle: true,
        ..AggregateOptions::default()
    };
    aggregator
        .run(&until_idle, &AtomicBool::new(false), |_| {})
        .expect("aggregates");
    assert_eq!(
        aggregator.state().applied_count(),
        1,
        "applied\n{}",
        shown(&bytes)
    );
    let simpairs_pipeline::replay::Replay { state, replayed } =
        simpairs_pipeline::replay::replay(log.as_ref(), event, None).unwrap();
    assert!(
        replayed.dead_letters.is_empty(),
        "{:?}",
        replayed.dead_letters
    );
    let field = simpairs_pipeline::replay::field_of(&state, None).unwrap();
    let replay = report(&simpairs_pipeline::replay::as_imported(&state, field));
    let mut score = report(&imported);
    if !shape.club_column || shape.usebio {
        // The file names no club; the log knows who published it.
        score = String::from_utf8(score)
            .unwrap()
            .replace("\"club\":\"\"", &format!("\"club\":\"{CLUB}\""))
            .into_bytes();
    }
    assert!(
        replay == score,
        "replay and score differ\nreplay: {}\nscore:  {}\nfile:\n{}",
        String::from_utf8_lossy(&replay),
        String::from_utf8_lossy(&score),
        shown(&bytes)
    );
}

fn shown(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace('\r', "\\r")
}

fn shapes() -> impl Strategy<Value = Shape> {
    let separators = prop_oneof![Just(','), Just(';'), Just('\t')];
    (any::<[bool; 7]>(), separators).prop_map(|(b, separator)| Shape {
        crlf: b[0],
        bom: b[1],
        quote_all: b[2],
        club_column: b[3],
        howell: b[4],
        usebio: b[5] && b[6],
        trailing_newline: b[6],
        separator,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn what_publish_accepts_the_aggregator_applies_on_the_embedded_log(
        seed in any::<u64>(),
        shape in shapes(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let log = simpairs_log::EmbeddedLog::open_with(
            dir.path(),
            simpairs_log::Options { fsync: false, ..Default::default() },
        )
        .unwrap();
        publish_and_replay(Arc::new(log), "judge", seed, &shape);
    }
}

/// Publishes `bytes` as the one club of a new event and runs an aggregator over it to its end:
/// the aggregator, and the warnings publishing gave.
fn publish_and_aggregate(event: &str, bytes: &[u8]) -> (Aggregator, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let club = ClubLine {
        club_id: CLUB.into(),
        name: "Club one".into(),
        public_key: Some(common::key_of(CLUB).public()),
    };
    declare(
        log.as_ref(),
        Declaration::matchpoints(event, event, 27, vec![club], 1).with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )
    .unwrap();
    let published = simpairs_pipeline::publish::publish_file(
        log.as_ref(),
        event,
        CLUB,
        &common::key_of(CLUB),
        "club.csv",
        bytes,
        None,
    )
    .expect("published");
    let mut aggregator =
        Aggregator::open(log.clone(), event, simpairs_sim::aggregator_key()).unwrap();
    let until_idle = AggregateOptions {
        until_idle: true,
        ..AggregateOptions::default()
    };
    aggregator
        .run(&until_idle, &AtomicBool::new(false), |_| {})
        .unwrap();
    (aggregator, published.warnings)
}

/// The Windows club's file of issue 23, verbatim: CRLF line ends.
#[test]
fn a_windows_clubs_csv_applies_as_it_scores() {
    let bytes = b"board,ns_pair,ew_pair,contract,ns_score\r\n22,2,6,,110\r\n23,3,7,PASS,0\r\n";
    let (aggregator, warnings) = publish_and_aggregate("crlf", bytes);
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(aggregator.state().applied_count(), 1);
    assert_eq!(aggregator.state().result_count(), 2);
}

/// A French club's spreadsheet saved as plain CSV on Windows: semicolons, Windows line ends and
/// the Windows-1252 code page. It applies, its players' accented names reach the event as they are
/// written, and publishing warns that the file was read as Windows-1252.
#[test]
fn a_european_spreadsheets_csv_applies_with_its_names() {
    let bytes = b"board;ns_pair;ew_pair;ns_score;ns_names;ew_names\r\n\
                  1;1;1;420;J\xe9r\xf4me Roux & Zo\xeb Bl\xe9;Ren\xe9 Ma\xeftre & A\xefda L\xe9on\r\n\
                  1;2;2;-50;Ann Lee & Bo Ng;Cy Day & Di Fay\r\n";
    let (aggregator, warnings) = publish_and_aggregate("french", bytes);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("club.csv:2: ") && warnings[0].contains("Windows-1252"),
        "{warnings:?}"
    );
    assert_eq!(aggregator.state().applied_count(), 1);
    assert_eq!(aggregator.state().result_count(), 2);
    let names: Vec<&str> = aggregator
        .state()
        .pairs()
        .values()
        .flatten()
        .map(|p| p.name.as_str())
        .collect();
    for name in [
        "J\u{e9}r\u{f4}me Roux",
        "Zo\u{eb} Bl\u{e9}",
        "A\u{ef}da L\u{e9}on",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
}

/// The same property through a broker, fewer cases (each is a few appends to a real broker).
#[test]
fn what_publish_accepts_the_aggregator_applies_over_kafka() {
    let Some(location) = common::kafka_location() else {
        return;
    };
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_kafka::KafkaLog::open(&location).expect("the broker answers"));
    let mut rng = fastrand::Rng::with_seed(23);
    for case in 0..8 {
        let seed = rng.u64(..);
        let shape = Shape {
            crlf: rng.bool(),
            bom: rng.bool(),
            quote_all: rng.bool(),
            club_column: rng.bool(),
            howell: rng.bool(),
            usebio: rng.bool(),
            trailing_newline: rng.bool(),
            separator: [',', ';', '\t'][rng.usize(..3)],
        };
        let event = format!("judge-{}-{}-{case}", std::process::id(), fastrand::u32(..));
        publish_and_replay(log.clone(), &event, seed, &shape);
    }
}
