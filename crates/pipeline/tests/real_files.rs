//! Every real club file of `tests/fixtures/realdata` (and the CRLF and LF variants of the CSV
//! ones), published as a club of an event of its own, applies; and the event replayed from the
//! log scores to the bytes `score` prints for the same file.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use simpairs_events::types::{Factoring, Scoring};
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};
use simpairs_scoring::{Method, Options};

const CLUB: &str = "REAL";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/realdata")
}

/// Every result file under the fixtures (not the pairs lists, sources or scripts).
fn files() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![fixtures()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("the fixtures") {
            let path = entry.expect("an entry").path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if path.is_dir() {
                dirs.push(path);
            } else if [".xml", ".pbn", ".csv"].iter().any(|e| name.ends_with(e))
                && !name.ends_with(".pairs.csv")
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// `score --json` of a file (names and warnings too), with the club the log knows the results by.
fn report(imported: &simpairs_formats::Imported, options: &Options, club_named: bool) -> String {
    let scoring = simpairs_scoring::score(&imported.field, options).expect("scores");
    let mut out = Vec::new();
    simpairs_formats::report::write_imported_json(&mut out, imported, &scoring).expect("in memory");
    let text = String::from_utf8(out).expect("UTF-8");
    if club_named {
        text
    } else {
        text.replace("\"club\":\"\"", &format!("\"club\":\"{CLUB}\""))
    }
}

/// Publishes one file as the only club of a fresh event and compares the replay with `score`.
fn check(name: &str, bytes: &[u8]) {
    let imported = simpairs_formats::import::read(name, bytes, None)
        .unwrap_or_else(|e| panic!("{name}: score refuses it: {e}"));
    let method = imported.method().unwrap_or(Method::Matchpoints);
    let options = Options {
        method,
        ..Options::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let boards = imported
        .field
        .rows_by_board()
        .boards
        .iter()
        .map(|&b| i32::from(b))
        .collect();
    let scoring = match method {
        Method::Butler => Scoring::Butler,
        Method::CrossImps => Scoring::CrossImps,
        _ => Scoring::Matchpoints,
    };
    let club = ClubLine {
        club_id: CLUB.into(),
        name: "A real club".into(),
        public_key: Some(common::key_of(CLUB).public()),
    };
    let declaration = Declaration {
        scoring,
        factoring: Factoring::Neuberg,
        boards,
        ..Declaration::matchpoints("real", "real", 1, vec![club], 1).with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        )
    };
    declare(log.as_ref(), declaration).unwrap();
    let key = common::key_of(CLUB);
    simpairs_pipeline::publish::publish_file(log.as_ref(), "real", CLUB, &key, name, bytes, None)
        .unwrap_or_else(|e| panic!("{name}: publish refuses it: {e}"));
    let mut aggregator =
        Aggregator::open(log.clone(), "real", simpairs_sim::aggregator_key()).unwrap();
    let until_idle = AggregateOptions {
        until_idle: true,
        ..AggregateOptions::default()
    };
    aggregator
        .run(&until_idle, &AtomicBool::new(false), |_| {})
        .unwrap();
    assert_eq!(aggregator.state().applied_count(), 1, "{name} applies");
    let simpairs_pipeline::replay::Replay { state, replayed } =
        simpairs_pipeline::replay::replay(log.as_ref(), "real", None).unwrap();
    assert!(
        replayed.dead_letters.is_empty(),
        "{name}: {:?}",
        replayed.dead_letters
    );
    // Kept packed (as the website replays for the deals), the state is the same.
    let packed = simpairs_pipeline::replay::replay_packed(log.as_ref(), "real", None)
        .unwrap()
        .state;
    assert_eq!(packed.deals(), state.deals(), "{name}");
    assert_eq!(packed.pairs(), state.pairs(), "{name}");
    assert!(packed.results().eq(state.results()), "{name}");
    let field = simpairs_pipeline::replay::field_of(&state, None).unwrap();
    let club_named = imported.field.clubs().any(|c| c == CLUB);
    let replay = report(
        &simpairs_pipeline::replay::as_imported(&state, field),
        &options,
        true,
    );
    let score = report(&imported, &options, club_named);
    assert!(
        replay == score,
        "{name}: the replay differs from score\nreplay: {replay}\nscore:  {score}"
    );
}

#[test]
fn every_real_file_published_as_a_club_replays_as_it_scores() {
    let files = files();
    assert!(files.len() >= 19, "the fixtures are there: {files:?}");
    for path in files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap()
            .to_string();
        let bytes = std::fs::read(&path).unwrap();
        check(&name, &bytes);
        if name.ends_with(".csv") {
            let text = String::from_utf8_lossy(&bytes).replace("\r\n", "\n");
            check(&format!("{name} (LF)"), text.as_bytes());
            check(
                &format!("{name} (CRLF)"),
                text.replace('\n', "\r\n").as_bytes(),
            );
        }
    }
}
