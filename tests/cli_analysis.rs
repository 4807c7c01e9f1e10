//! The analysts' commands on a real-data event (three real club sessions published as three clubs
//! of one event, then a correction): `replay` through its index prints what it prints without
//! one; `compare` shows each side as `replay --json` does; `export` writes Parquet that DuckDB
//! reads back to replay's totals (the Python environment of `../shared/bench/requirements.txt`:
//! skipped with a note when it is missing, a failure under CI); `history` lists a player's events.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use simpairs_events::types::{Factoring, Scoring};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};

const EVENT: &str = "REALDATA";
const CLUBS: [(&str, &str); 3] = [
    ("M03", "cobalt/mp_pairs_mitchell_03.xml"),
    ("NZ", "scorer-to-usebio/pairs.xml"),
    ("M02", "cobalt/mp_pairs_mitchell_02.xml"),
];

fn native(path: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/realdata/native")
            .join(path),
    )
    .unwrap()
}

/// Publishes the real file `file` (a native fixture) for `club`, signed with its simulated key.
fn publish_native(log: &dyn simpairs_log::Log, event: &str, club: &str, file: &str) {
    let key = simpairs_sim::club_key(club);
    simpairs_pipeline::publish::publish_file(log, event, club, &key, file, &native(file), None)
        .unwrap();
}

fn club_line(club: &str) -> ClubLine {
    ClubLine {
        club_id: club.into(),
        name: club.into(),
        public_key: Some(simpairs_sim::club_key(club).public()),
    }
}

/// An event on boards 1-27 whose aggregator and organiser keys are the sim's.
fn declaration(event: &str, clubs: Vec<ClubLine>) -> Declaration {
    Declaration::matchpoints(event, event, 27, clubs, 1).with_keys(
        simpairs_sim::aggregator_key().public(),
        simpairs_sim::organiser_key().public(),
    )
}

/// A USEBIO file without its hand records: M02's session of another week dealt other hands, and
/// an event sets aside a club whose deals differ from its own.
fn without_deals(xml: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(xml);
    match (text.find("<HANDSET>"), text.find("</HANDSET>")) {
        (Some(start), Some(end)) => {
            format!("{}{}", &text[..start], &text[end + "</HANDSET>".len()..]).into_bytes()
        }
        _ => xml.to_vec(),
    }
}

/// The event in a fresh embedded log; returns the log's directory and the seal offsets.
fn event() -> (tempfile::TempDir, Vec<u64>) {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let clubs = CLUBS.iter().map(|(c, _)| club_line(c)).collect();
    let declaration = Declaration {
        scoring: Scoring::Matchpoints,
        factoring: Factoring::Neuberg,
        ..declaration(EVENT, clubs)
    };
    declare(log.as_ref(), declaration).unwrap();
    let mut seals = Vec::new();
    let correction = "board,section,ns_pair,ew_pair,contract,declarer,tricks,ns_score,movement\n1,,2,3,3D,N,10,130,mitchell\n";
    let files: Vec<(&str, &str, Vec<u8>)> = CLUBS
        .iter()
        .map(|(c, f)| {
            (
                *c,
                *f,
                if *c == "M02" {
                    without_deals(&native(f))
                } else {
                    native(f)
                },
            )
        })
        .chain([("M03", "correction.csv", correction.as_bytes().to_vec())])
        .collect();
    for (club, name, bytes) in files {
        std::thread::sleep(std::time::Duration::from_millis(3));
        let published = simpairs_pipeline::publish::publish_file(
            log.as_ref(),
            EVENT,
            club,
            &simpairs_sim::club_key(club),
            name,
            &bytes,
            None,
        )
        .unwrap();
        seals.push(published.seal_offset);
    }
    (dir, seals)
}

fn simpairs(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_simpairs"))
        .args(args)
        .env_remove("SIMPAIRS_INDEX_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "simpairs {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn replay_through_the_index_prints_what_replay_prints() {
    let (log, seals) = event();
    let index = tempfile::tempdir().unwrap();
    let (l, i) = (log.path().to_str().unwrap(), index.path().to_str().unwrap());
    for as_of in seals
        .iter()
        .map(|s| s.to_string())
        .chain(["999999".to_string()])
    {
        for json in [true, false] {
            let mut args = vec!["replay", "--log", l, "--event", EVENT, "--as-of", &as_of];
            if json {
                args.push("--json");
            }
            let plain = simpairs(&[args.as_slice(), &["--no-index"]].concat());
            let indexed = simpairs(&[args.as_slice(), &["--index-dir", i]].concat());
            assert_eq!(plain, indexed, "as of {as_of}");
        }
    }
    assert!(simpairs_pipeline::history::index_path(index.path(), EVENT).exists());
}

#[test]
fn compare_shows_each_side_as_replay_does() {
    let (log, _) = event();
    let l = log.path().to_str().unwrap();
    let compared: serde_json::Value = serde_json::from_str(&simpairs(&[
        "compare",
        "--log",
        l,
        "--a",
        "factoring=neuberg",
        "--b",
        "factoring=ratio",
        "--json",
        "--no-index",
    ]))
    .unwrap();
    let side = |factoring: &str| -> serde_json::Value {
        serde_json::from_str(&simpairs(&[
            "replay",
            "--log",
            l,
            "--factoring",
            factoring,
            "--json",
            "--no-index",
        ]))
        .unwrap()
    };
    let (a, b) = (side("neuberg"), side("ratio"));
    let find = |report: &serde_json::Value, c: &serde_json::Value| {
        report["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| {
                ["club", "section", "pair", "direction"]
                    .iter()
                    .all(|k| p[*k] == c[*k])
            })
            .cloned()
            .unwrap()
    };
    let changed = compared["changed"].as_array().unwrap();
    assert!(!changed.is_empty());
    for c in changed {
        for (side, report) in [("a", &a), ("b", &b)] {
            let p = find(report, c);
            assert_eq!(
                (c[side]["place"].clone(), c[side]["percent"].clone()),
                (p["rank"].clone(), p["pct"].clone())
            );
        }
    }
    let table = simpairs(&[
        "compare",
        "--log",
        l,
        "--a",
        "factoring=neuberg",
        "--b",
        "factoring=ratio",
        "--no-index",
    ]);
    // The same field both ways: every pair on both sides.
    let unchanged = compared["unchanged"].as_u64().unwrap() as usize;
    let in_both = changed.len() + unchanged;
    assert_eq!(
        compared["counts"],
        serde_json::json!({"in_both": in_both, "changed": changed.len(), "unchanged": unchanged,
                           "only_in_a": 0, "new_in_b": 0})
    );
    assert!(
        table.contains(&format!(
            "{in_both} pairs in both: {} changed place or score, {unchanged} did not\n",
            changed.len()
        )),
        "{table}"
    );
    // --limit shortens the list, not the count.
    assert!(changed.len() > 1, "the test needs pairs that change");
    let limited = simpairs(&[
        "compare",
        "--log",
        l,
        "--a",
        "factoring=neuberg",
        "--b",
        "factoring=ratio",
        "--limit",
        "1",
        "--no-index",
    ]);
    assert!(
        limited.contains(&format!(
            "{in_both} pairs in both: {} changed place or score, {unchanged} did not (the first 1 shown)",
            changed.len(),
        )),
        "{limited}"
    );
}

/// The Python with DuckDB: `SIMPAIRS_ANALYSIS_PYTHON`, else `.venv/bin/python` of the checkout.
fn python() -> Option<PathBuf> {
    let python = std::env::var_os("SIMPAIRS_ANALYSIS_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
    let works = Command::new(&python)
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    match (works, std::env::var_os("CI").is_some()) {
        (true, _) => Some(python),
        (false, true) => panic!(
            "{}: no Python with duckdb (CI installs it in .ci/run)",
            python.display()
        ),
        (false, false) => {
            eprintln!(
                "SKIPPED: no Python with duckdb at {} (python3 -m venv .venv && .venv/bin/pip install -r ../shared/bench/requirements.txt, or set SIMPAIRS_ANALYSIS_PYTHON)",
                python.display()
            );
            None
        }
    }
}

#[test]
fn duckdb_reads_the_export_back_to_replay_s_totals() {
    let Some(python) = python() else { return };
    let (log, _) = event();
    let to = tempfile::tempdir().unwrap();
    let l = log.path().to_str().unwrap();
    simpairs(&[
        "export",
        "--log",
        l,
        "--to",
        to.path().to_str().unwrap(),
        "--no-index",
    ]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/analysis/read_export.py");
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let out = Command::new(python)
        .arg(script)
        .arg(to.path())
        .arg(readme)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let replay: serde_json::Value =
        serde_json::from_str(&simpairs(&["replay", "--log", l, "--json", "--no-index"])).unwrap();
    let pairs = replay["pairs"].as_array().unwrap();
    let totals = read["totals"].as_array().unwrap();
    assert_eq!(totals.len(), pairs.len());
    for t in totals {
        let p = pairs
            .iter()
            .find(|p| {
                ["club", "section", "pair", "direction"]
                    .iter()
                    .all(|k| p[*k] == t[*k])
            })
            .unwrap();
        assert!(
            (t["mp"].as_f64().unwrap() - p["mp"].as_f64().unwrap()).abs() < 1e-6,
            "{t} / {p}"
        );
        assert_eq!(t["boards"], p["boards"]);
    }
    let results: usize = replay["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["results"].as_array().unwrap().len())
        .sum();
    assert!(read["counts"]["results"].as_u64().unwrap() as usize >= results);
    assert_eq!(read["counts"]["submissions"], 4);
    let last = read["last_standings"].as_array().unwrap();
    assert_eq!(last.len(), pairs.len());
    for s in last {
        let p = pairs
            .iter()
            .find(|p| {
                ["club", "section", "pair", "direction"]
                    .iter()
                    .all(|k| p[*k] == s[*k])
            })
            .unwrap();
        assert_eq!(
            (s["place"].clone(), s["percent"].as_f64()),
            (p["rank"].clone(), p["pct"].as_f64())
        );
    }
    for query in ["top_movers", "board_contracts", "club_average"] {
        assert!(!read[query].as_array().unwrap().is_empty(), "{query}");
    }
    // The README's queries, as printed: each answers, and the first reads each pair's own
    // arrival (a Mitchell's NS 1 and EW 1 are two pairs).
    let readme = read["readme"].as_array().unwrap();
    assert_eq!(readme.len(), 3, "{readme:?}");
    for (i, answer) in readme.iter().enumerate() {
        assert!(!answer.as_array().unwrap().is_empty(), "README query {i}");
    }
    assert_eq!(read["readme_moved_misread"], serde_json::json!([]));
    eprintln!(
        "example queries: {}",
        serde_json::to_string_pretty(&read)
            .unwrap()
            .lines()
            .take(80)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn history_lists_a_players_events() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    for (event, (club, file)) in ["S1", "S2", "S3"].iter().zip(CLUBS) {
        declare(log.as_ref(), declaration(event, vec![club_line(club)])).unwrap();
        publish_native(log.as_ref(), event, club, file);
    }
    let l = dir.path().to_str().unwrap();
    let json: serde_json::Value = serde_json::from_str(&simpairs(&[
        "history",
        "--log",
        l,
        "--player",
        "900001",
        "--json",
        "--no-index",
    ]))
    .unwrap();
    let events: Vec<&str> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(events, vec!["S1", "S3"]);
    let text = simpairs(&["history", "--log", l, "--player", "900001", "--no-index"]);
    assert!(
        text.contains("PLAYER 2 (900002)") && text.contains("53.89%"),
        "{text}"
    );
    // The place printed is among the pairs it is counted of: every pair of the event.
    let first = &json["events"][0];
    let national = &first["national"];
    let place = format!(
        "place {}{} of {} pairs",
        national["combined_place"],
        if national["combined_tied"].as_bool().unwrap() {
            "="
        } else {
            ""
        },
        first["national_pairs"]
    );
    assert!(text.contains(&place), "{place} in {text}");
}

/// `compare` at two moments, the second with two more clubs: the pairs of the later clubs are
/// counted as new in B, not as pairs that changed; each move reads up the rankings as a gain
/// (`places_gained`, `▲`) and down as a loss (`▼`); the list is ordered by the move in
/// percentile of the combined list of every pair, so that a place number grown only with the
/// field is not the largest move.
#[test]
fn compare_at_two_moments_counts_new_pairs_apart_and_reads_moves_up_as_gains() {
    let (log, seals) = event();
    let l = log.path().to_str().unwrap();
    let first = seals[0].to_string();
    let args = ["compare", "--log", l, "--a-as-of", &first, "--no-index"];
    let json: serde_json::Value =
        serde_json::from_str(&simpairs(&[args.as_slice(), &["--json"]].concat())).unwrap();
    let (a_pairs, b_pairs) = (
        json["a"]["pairs"].as_u64().unwrap(),
        json["b"]["pairs"].as_u64().unwrap(),
    );
    let counts = &json["counts"];
    let c = |k: &str| counts[k].as_u64().unwrap();
    assert_eq!(c("in_both"), a_pairs, "{counts}");
    assert_eq!(c("changed") + c("unchanged"), c("in_both"));
    assert_eq!(c("only_in_a"), 0);
    assert_eq!(c("new_in_b"), b_pairs - a_pairs);
    assert!(c("new_in_b") > 0 && c("changed") > 0, "{counts}");
    let changed = json["changed"].as_array().unwrap();
    assert_eq!(
        changed.len() as u64,
        c("changed") + c("new_in_b") + c("only_in_a")
    );
    let percentile = |f: &serde_json::Value, pairs: u64| {
        (pairs - f["combined_place"].as_u64().unwrap()) as f64 / (pairs - 1) as f64 * 100.0
    };
    let mut last_move = f64::INFINITY;
    for ch in changed.iter().filter(|ch| !ch["a"].is_null()) {
        assert!(ch.get("place_change").is_none(), "{ch}");
        let (a, b) = (&ch["a"], &ch["b"]);
        // Up the list (a smaller place number) is a gain.
        assert_eq!(
            ch["places_gained"].as_i64().unwrap(),
            a["place"].as_i64().unwrap() - b["place"].as_i64().unwrap()
        );
        let gained = ch["percentile_gained"].as_f64().unwrap();
        let want = percentile(b, b_pairs) - percentile(a, a_pairs);
        assert!((gained - want).abs() <= 0.005 + 1e-9, "{gained} / {want}");
        assert!(gained.abs() <= last_move + 1e-9, "largest move first");
        last_move = gained.abs();
    }
    // Pairs on one side only come after the pairs on both.
    let first_new = changed.iter().position(|ch| ch["a"].is_null()).unwrap();
    assert!(changed[first_new..].iter().all(|ch| ch["a"].is_null()));

    let table = simpairs(&args);
    assert!(
        table.contains(&format!(
            "{a_pairs} pairs in both: {} changed place or score, {} did not; {} new in B; 0 only in A\n",
            c("changed"),
            c("unchanged"),
            c("new_in_b")
        )),
        "{table}"
    );
    assert!(table.contains("(1 submission applied, "), "{table}");
    // Each row's move as the JSON has it: ▲ for places gained, ▼ for places lost.
    let rows: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with("club "))
        .skip(1)
        .collect();
    assert_eq!(rows.len(), changed.len());
    for (row, ch) in rows.iter().zip(changed) {
        let shown = match ch["places_gained"].as_i64() {
            None => "-".to_string(),
            Some(0) => "=".to_string(),
            Some(g) if g > 0 => format!("▲{g}"),
            Some(g) => format!("▼{}", -g),
        };
        assert!(
            row.split_whitespace().any(|w| w == shown),
            "{shown} in {row}"
        );
    }
}

/// The same national ID in two clubs of one event (the same session published by two clubs):
/// the event is counted once, its block lists both clubs, and a warning says the ID is in two
/// clubs of one event.
#[test]
fn history_counts_an_event_once_and_warns_of_an_id_in_two_clubs_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let log = simpairs_log::EmbeddedLog::open(dir.path()).unwrap();
    let file = CLUBS[0].1;
    declare(
        &log,
        declaration("TWICE", vec![club_line("C1"), club_line("C2")]),
    )
    .unwrap();
    for club in ["C1", "C2"] {
        publish_native(&log, "TWICE", club, file);
    }
    let l = dir.path().to_str().unwrap();
    let text = simpairs(&["history", "--log", l, "--player", "900007", "--no-index"]);
    assert!(text.contains("(PLAYER 7): 1 event\n"), "{text}");
    assert_eq!(text.matches("\nTWICE (TWICE)").count(), 1, "{text}");
    assert!(text.contains("in 2 pairs"), "{text}");
    assert!(
        text.contains("club C1 (C1)") && text.contains("club C2 (C2)"),
        "{text}"
    );
    let warning = text
        .lines()
        .find(|l| l.starts_with("warning:"))
        .unwrap_or_else(|| panic!("no warning in {text}"));
    assert!(
        warning.contains("900007") && warning.contains("2 clubs (C1, C2)"),
        "{warning}"
    );
    let json: serde_json::Value = serde_json::from_str(&simpairs(&[
        "history",
        "--log",
        l,
        "--player",
        "900007",
        "--json",
        "--no-index",
    ]))
    .unwrap();
    assert_eq!(json["event_count"], 1);
    assert_eq!(json["events"].as_array().unwrap().len(), 2);
    assert_eq!(
        json["in_two_pairs"][0]["clubs"],
        serde_json::json!(["C1", "C2"])
    );
    // A player in one pair of each event: no warning.
    let alone = simpairs(&["history", "--log", l, "--player", "999999999", "--no-index"]);
    assert!(!alone.contains("warning"), "{alone}");
}

/// A CSV line's fields (a field in double quotes may hold commas).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// A CSV file's rows as maps of column to text.
fn csv_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = csv_fields(lines.next().unwrap());
    lines
        .map(|l| header.iter().cloned().zip(csv_fields(l)).collect())
        .collect()
}

/// `simpairs export --format csv` of a club session whose hand records publish the par (Newton
/// Bridge Club's ACBL PBN file, `[OptimumScore]`): every board's par is the published one, and
/// every result's distance from par is its NS score less that.
#[test]
fn the_csv_export_has_the_published_par_and_each_result_s_distance_from_it() {
    const FILE: &str = "rchillyard-Bridge/newtonbridge_20160120_1.pbn";
    let dir = tempfile::tempdir().unwrap();
    let log = simpairs_log::EmbeddedLog::open(dir.path()).unwrap();
    let declaration = Declaration::matchpoints("NEWTON", "NEWTON", 30, vec![club_line("NB")], 1)
        .with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        );
    declare(&log, declaration).unwrap();
    publish_native(&log, "NEWTON", "NB", FILE);
    // The published par of each board, to NS.
    let mut published = std::collections::HashMap::new();
    let mut board = String::new();
    for line in String::from_utf8(native(FILE)).unwrap().lines() {
        let value = |tag: &str| line.strip_prefix(tag)?.strip_suffix("\"]");
        if let Some(b) = value("[Board \"") {
            board = b.to_string();
        } else if let Some((side, score)) =
            value("[OptimumScore \"").and_then(|s| s.split_once(' '))
        {
            let score: i64 = score.parse().unwrap();
            published.insert(board.clone(), if side == "NS" { score } else { -score });
        }
    }
    assert_eq!(published.len(), 30);
    let to = tempfile::tempdir().unwrap();
    let (l, t) = (dir.path().to_str().unwrap(), to.path().to_str().unwrap());
    simpairs(&[
        "export",
        "--log",
        l,
        "--to",
        t,
        "--format",
        "csv",
        "--no-index",
    ]);
    let boards = csv_rows(&to.path().join("boards.csv"));
    assert_eq!(boards.len(), 30);
    for b in &boards {
        assert_eq!(b["par_score"], published[&b["board"]].to_string(), "{b:?}");
    }
    let mut checked = 0;
    for r in csv_rows(&to.path().join("results.csv")) {
        let Ok(ns) = r["ns_score"].parse::<i64>() else {
            continue;
        };
        let par = published[&r["board"]];
        assert_eq!(r["par_ns_score"], par.to_string(), "{r:?}");
        assert_eq!(r["ns_score_minus_par"], (ns - par).to_string(), "{r:?}");
        checked += 1;
    }
    assert!(checked > 200, "{checked}");
}
