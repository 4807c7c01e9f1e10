//! Helpers shared by the formats tests: where the real files are, how each file's official numbers are
//! compared with ours, and the documented reasons for every disagreement.
#![allow(dead_code)]

pub mod expect;

use std::path::PathBuf;

use simpairs_formats::{Imported, OfficialPair, Place, read};
use simpairs_scoring::{Direction, Field, Method, Options, Scoring, Standing, Value};

/// The real-data fixtures of the repository (`tests/fixtures/realdata`).
pub const REALDATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/realdata");

/// A file under `native/` (copied unchanged from the public repositories named in its SOURCE.txt).
pub fn native(rel: &str) -> PathBuf {
    PathBuf::from(format!("{REALDATA}/native/{rel}"))
}

/// The traveller-CSV fixture that `convert.py` made of a native file, and its `.pairs.csv`.
pub fn fixture(rel: &str) -> (PathBuf, PathBuf) {
    let stem = rel.trim_end_matches(".xml").replace('/', "__");
    (
        PathBuf::from(format!("{REALDATA}/csv/{stem}.csv")),
        PathBuf::from(format!("{REALDATA}/csv/{stem}.pairs.csv")),
    )
}

/// Every real file, in its native format.
pub const NATIVE_FILES: [&str; 15] = [
    "cobalt/mp_pairs_mitchell_03.xml",
    "cobalt/mp_pairs_mitchell_02.xml",
    "cobalt/butler_howell.xml",
    "scorer-to-usebio/pairs.xml",
    "scorer-to-usebio/three_quarter_howell_with_phantom.xml",
    "scorer-to-usebio/handicap_pairs.xml",
    "scorer-to-usebio/converted/pairs.xml",
    "scorer-to-usebio/converted/three_quarter_howell_with_phantom.xml",
    "scorer-to-usebio/multi-section-multi-movement-pairs.xml",
    "scorer-to-usebio/pairs-with-np-passed.xml",
    "scorer-to-usebio/converted/multi-section-multi-movement-pairs.xml",
    "scorer-to-usebio/converted/pairs-with-np-passed.xml",
    "rchillyard-Bridge/newtonbridge_20160120_1.pbn",
    "rchillyard-Bridge/westwood_20190625_1.pbn",
    "rchillyard-Bridge/Newton Scoring 20241119.csv",
];

/// The files with official numbers, which `convert.py` turns into CSV fixtures.
pub const OFFICIAL_FILES: [&str; 8] = [
    "cobalt/mp_pairs_mitchell_03.xml",
    "cobalt/mp_pairs_mitchell_02.xml",
    "cobalt/butler_howell.xml",
    "scorer-to-usebio/pairs.xml",
    "scorer-to-usebio/three_quarter_howell_with_phantom.xml",
    "scorer-to-usebio/handicap_pairs.xml",
    "scorer-to-usebio/converted/pairs.xml",
    "scorer-to-usebio/converted/three_quarter_howell_with_phantom.xml",
];

/// Reads a native file, detecting its format.
pub fn read_native(rel: &str) -> Imported {
    let path = native(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read(rel, &bytes, None).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Scoring options as national scorers use them (Neuberg, double scale) with the given method.
pub fn options(method: Method) -> Options {
    Options {
        method,
        ..Options::default()
    }
}

/// One traveller line with the file's official values and ours.
#[derive(Clone, Debug)]
pub struct LineCase {
    pub board: u16,
    pub section: String,
    pub ns: String,
    pub ew: String,
    pub official_ns: Option<Value>,
    pub official_ew: Option<Value>,
    pub ours_ns: Value,
    pub ours_ew: Value,
}

impl LineCase {
    pub fn name(&self) -> String {
        format!(
            "board {} {}{} v {}",
            self.board,
            self.section_prefix(),
            self.ns,
            self.ew
        )
    }

    fn section_prefix(&self) -> String {
        if self.section.is_empty() {
            String::new()
        } else {
            format!("{} ", self.section)
        }
    }
}

/// One pair with the file's official result and ours.
#[derive(Clone, Debug)]
pub struct PairCase {
    pub section: String,
    pub label: String,
    pub direction: Option<Direction>,
    pub official: OfficialPair,
    pub ours: Standing,
}

impl PairCase {
    pub fn name(&self) -> String {
        let d = self.direction.map_or("", |d| d.as_str());
        format!(
            "pair {}{}{d}",
            if self.section.is_empty() {
                String::new()
            } else {
                format!("{} ", self.section)
            },
            self.label
        )
    }
}

/// The lines of a native import with its official values.
pub fn native_lines(imported: &Imported, scoring: &Scoring<'_>) -> Vec<LineCase> {
    let f = &imported.field;
    (0..f.len())
        .map(|row| {
            let r = f.result(row);
            let o = imported.official.line(row).copied().unwrap_or_default();
            let (ours_ns, ours_ew) = scoring.result_values(row);
            LineCase {
                board: r.board,
                section: f.section_name(f.pairs()[r.ns as usize].section).to_string(),
                ns: f.pairs()[r.ns as usize].label.to_string(),
                ew: f.pairs()[r.ew as usize].label.to_string(),
                official_ns: o.ns,
                official_ew: o.ew,
                ours_ns,
                ours_ew,
            }
        })
        .collect()
}

/// The pairs of a native import with their official results.
pub fn native_pairs(imported: &Imported, scoring: &Scoring<'_>) -> Vec<PairCase> {
    let f = &imported.field;
    imported
        .official
        .pairs
        .iter()
        .map(|(id, o)| {
            let p = &f.pairs()[*id as usize];
            PairCase {
                section: f.section_name(p.section).to_string(),
                label: p.label.to_string(),
                direction: p.direction,
                official: o.clone(),
                ours: scoring.standings()[*id as usize].clone(),
            }
        })
        .collect()
}

/// The lines of a CSV fixture read by `csv::read`, with the official values of its `ns_mp`/`ew_mp` (or
/// `ns_imps`/`ew_imps`) columns, matched to rows by line number.
pub fn fixture_lines(
    path: &std::path::Path,
    read: &simpairs_formats::csv::Read,
    scoring: &Scoring<'_>,
) -> Vec<LineCase> {
    let mut reader = csv::ReaderBuilder::new().from_path(path).expect("fixture");
    let headers = reader.headers().expect("header").clone();
    let col = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| headers.iter().position(|h| h == *n))
    };
    let (ns_col, ew_col) = (
        col(&["ns_mp", "ns_imps"]).expect("ns values"),
        col(&["ew_mp", "ew_imps"]).expect("ew values"),
    );
    let mut official = std::collections::HashMap::new();
    for record in reader.records() {
        let record = record.expect("record");
        let line = record.position().expect("position").line();
        let value = |i: usize| simpairs_formats::parse_decimal(record.get(i).unwrap_or(""));
        official.insert(line, (value(ns_col), value(ew_col)));
    }
    let f = &read.field;
    (0..f.len())
        .map(|row| {
            let r = f.result(row);
            let (official_ns, official_ew) = official
                .get(&read.lines.line_of(row))
                .copied()
                .unwrap_or_default();
            let (ours_ns, ours_ew) = scoring.result_values(row);
            LineCase {
                board: r.board,
                section: f.section_name(f.pairs()[r.ns as usize].section).to_string(),
                ns: f.pairs()[r.ns as usize].label.to_string(),
                ew: f.pairs()[r.ew as usize].label.to_string(),
                official_ns,
                official_ew,
                ours_ns,
                ours_ew,
            }
        })
        .collect()
}

/// The official pair results of a `.pairs.csv` fixture, matched to the field's pairs.
pub fn fixture_pairs(
    path: &std::path::Path,
    field: &Field,
    scoring: &Scoring<'_>,
) -> Vec<PairCase> {
    let mut reader = csv::ReaderBuilder::new()
        .from_path(path)
        .expect("pairs fixture");
    let headers = reader.headers().expect("header").clone();
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.expect("record");
        let get = |name: &str| {
            headers
                .iter()
                .position(|h| h == name)
                .and_then(|i| record.get(i))
                .unwrap_or("")
        };
        let direction = match get("direction") {
            "NS" => Some(Direction::NS),
            "EW" => Some(Direction::EW),
            _ => None,
        };
        let id = field
            .pairs()
            .iter()
            .position(|p| {
                field.section_name(p.section) == get("section")
                    && p.label.to_string() == get("pair")
                    && p.direction == direction
            })
            .unwrap_or_else(|| {
                panic!(
                    "{}: pair {} {:?} is not in the field",
                    path.display(),
                    get("pair"),
                    direction
                )
            });
        let dec = |name: &str| simpairs_formats::parse_decimal(get(name));
        out.push(PairCase {
            section: get("section").to_string(),
            label: get("pair").to_string(),
            direction,
            official: OfficialPair {
                total: dec("total"),
                max: dec("max"),
                percent: dec("percent"),
                place: Place::parse(get("place")),
                boards: get("boards").parse().ok(),
                handicap: dec("handicap"),
                handicapped_percent: dec("handicapped_percent"),
                master_points: None,
            },
            ours: scoring.standings()[id].clone(),
        });
    }
    out
}

/// `v` rounded to `places` decimals, halves to even (how Compscore prints Neuberg values).
pub fn round_half_even(v: Value, places: u32) -> Value {
    let scale = Value::from_integer(10i64.pow(places));
    let scaled = v * scale;
    let floor = scaled.floor();
    let frac = scaled - floor;
    let half = Value::new(1, 2);
    let rounded = if frac > half || (frac == half && (floor.to_integer() % 2 != 0)) {
        floor + Value::from_integer(1)
    } else {
        floor
    };
    rounded / scale
}

/// `v` rounded to `places` decimals, halves away from zero.
pub fn round_half_up(v: Value, places: u32) -> Value {
    let scale = Value::from_integer(10i64.pow(places));
    let scaled = v * scale;
    let sign = if scaled < Value::from_integer(0) {
        -1
    } else {
        1
    };
    let magnitude = if sign < 0 { -scaled } else { scaled };
    let rounded = (magnitude + Value::new(1, 2)).floor();
    Value::from_integer(sign) * rounded / scale
}

/// A value in hundredths as an exact value (`5389` -> 53.89).
pub fn from_hundredths(h: i64) -> Value {
    Value::new(h, 100)
}

/// The absolute value of an exact value.
pub fn abs(v: Value) -> Value {
    if v < Value::from_integer(0) { -v } else { v }
}
