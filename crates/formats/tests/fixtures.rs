//! The traveller-CSV fixtures that `tests/fixtures/realdata/convert.py` made of the real USEBIO and
//! Scorer files: read through `csv::read` (their `ns_mp`/`ew_mp` columns are skipped by the reader), scored,
//! and compared line by line and pair by pair with the official values those columns and the
//! `.pairs.csv` files carry, under the same documented exceptions as the native files.

use crate::common;

use common::expect::{self, check, rules};
use common::{OFFICIAL_FILES, fixture, fixture_lines, fixture_pairs, options};
use simpairs_formats::csv;
use simpairs_scoring::{Method, score};

fn fixture_file(file: &str) {
    let (lines_path, pairs_path) = fixture(file);
    let bytes = std::fs::read(&lines_path)
        .unwrap_or_else(|e| panic!("{}: {e} (run convert.py)", lines_path.display()));
    let read =
        csv::read(&lines_path.display().to_string(), &bytes).unwrap_or_else(|e| panic!("{e}"));
    let r = rules(file);
    let scoring = score(&read.field, &options(r.method)).unwrap();
    let lines = fixture_lines(&lines_path, &read, &scoring);
    let pairs = fixture_pairs(&pairs_path, &read.field, &scoring);
    assert_eq!(
        pairs.len(),
        read.field.pairs().len(),
        "{file}: every pair has an official result"
    );
    check(file, &r, &lines, &pairs);
    if file.ends_with("mp_pairs_mitchell_02.xml") {
        expect::mitchell_02_totals_follow_from_our_boards(&lines, &pairs);
    }
}

#[test]
fn every_fixture_has_the_results_of_its_native_file() {
    for file in OFFICIAL_FILES {
        let native = common::read_native(file);
        let (lines_path, _) = fixture(file);
        let read = csv::read("f.csv", &std::fs::read(&lines_path).unwrap()).unwrap();
        assert_eq!(read.field.len(), native.field.len(), "{file}");
        assert_eq!(read.not_played, native.not_played, "{file}");
        for row in 0..native.field.len() {
            let (a, b) = (native.field.result(row), read.field.result(row));
            assert_eq!(
                (a.board, a.outcome),
                (b.board, b.outcome),
                "{file} row {row}"
            );
            assert_eq!(
                native.field.describe_pair(a.ns),
                read.field.describe_pair(b.ns),
                "{file} row {row}"
            );
        }
    }
}

#[test]
fn cobalt_mitchell_03() {
    fixture_file("cobalt/mp_pairs_mitchell_03.xml");
}

#[test]
fn cobalt_mitchell_02() {
    fixture_file("cobalt/mp_pairs_mitchell_02.xml");
}

#[test]
fn cobalt_butler_howell() {
    fixture_file("cobalt/butler_howell.xml");
}

#[test]
fn scorer_pairs() {
    fixture_file("scorer-to-usebio/pairs.xml");
}

#[test]
fn scorer_three_quarter_howell() {
    fixture_file("scorer-to-usebio/three_quarter_howell_with_phantom.xml");
}

#[test]
fn scorer_handicap_pairs() {
    fixture_file("scorer-to-usebio/handicap_pairs.xml");
}

#[test]
fn converted_pairs() {
    fixture_file("scorer-to-usebio/converted/pairs.xml");
}

#[test]
fn converted_three_quarter_howell() {
    fixture_file("scorer-to-usebio/converted/three_quarter_howell_with_phantom.xml");
}

#[test]
fn butler_fixture_uses_imp_columns() {
    let (lines_path, _) = fixture("cobalt/butler_howell.xml");
    let header = std::fs::read_to_string(lines_path).unwrap();
    assert!(header.lines().next().unwrap().ends_with("ns_imps,ew_imps"));
    assert_eq!(rules("cobalt/butler_howell.xml").method, Method::Butler);
}
