//! The export of the real-data event, read back from its Parquet files: every result's national
//! matchpoints are those `replay --json` prints, its club matchpoints those the real file
//! publishes (where simpairs agrees with it line for line) and those `replay --club` gives; the
//! standings of the last generation are replay's; every submission is listed with what became of
//! it. The CSV export holds the same rows.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use arrow_array::{Array, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use simpairs_analysis::export::{ExportOptions, Format, export};
use simpairs_pipeline::history::Moment;
use simpairs_scoring::Options;

fn read(path: &Path) -> Vec<RecordBatch> {
    let file = std::fs::File::open(path).unwrap();
    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

/// A table's rows as maps of column to JSON value (null for nulls).
fn rows(path: &Path) -> Vec<BTreeMap<String, serde_json::Value>> {
    let mut out = Vec::new();
    for batch in read(path) {
        for i in 0..batch.num_rows() {
            let mut row = BTreeMap::new();
            for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
                let v = if c.is_null(i) {
                    serde_json::Value::Null
                } else if let Some(a) = c.as_any().downcast_ref::<StringArray>() {
                    a.value(i).into()
                } else if let Some(a) = c.as_any().downcast_ref::<Int64Array>() {
                    a.value(i).into()
                } else if let Some(a) = c.as_any().downcast_ref::<Float64Array>() {
                    a.value(i).into()
                } else if let Some(a) = c.as_any().downcast_ref::<BooleanArray>() {
                    a.value(i).into()
                } else {
                    // Timestamps: present.
                    true.into()
                };
                row.insert(f.name().clone(), v);
            }
            out.push(row);
        }
    }
    out
}

/// Values equal to the last bits of their floating-point form (the engine's exact values of a
/// row can reach the nearest `f64` by two roundings when the field is built another way).
fn close(a: (f64, f64), b: (f64, f64)) -> bool {
    let near = |x: f64, y: f64| (x - y).abs() <= 1e-12 * x.abs().max(1.0);
    near(a.0, b.0) && near(a.1, b.1)
}

type TableKey = (String, String, i64, String, String);

/// The values of every result of a report JSON by (club, section, board, NS pair, EW pair).
fn result_values(report: &serde_json::Value, club: Option<&str>) -> BTreeMap<TableKey, (f64, f64)> {
    let mut out = BTreeMap::new();
    for b in report["boards"].as_array().unwrap() {
        for r in b["results"].as_array().unwrap() {
            let s = |k: &str| r[k].as_str().unwrap().to_string();
            let c = club.map_or_else(|| s("club"), str::to_string);
            out.insert(
                (
                    c,
                    s("section"),
                    b["board"].as_i64().unwrap(),
                    s("ns_pair"),
                    s("ew_pair"),
                ),
                (r["ns_mp"].as_f64().unwrap(), r["ew_mp"].as_f64().unwrap()),
            );
        }
    }
    out
}

fn key_of(row: &BTreeMap<String, serde_json::Value>) -> TableKey {
    let s = |k: &str| row[k].as_str().unwrap().to_string();
    (
        s("club"),
        s("section"),
        row["board"].as_i64().unwrap(),
        s("ns_pair"),
        s("ew_pair"),
    )
}

/// A column of a fixture traveller CSV by (board, NS pair, EW pair).
fn official_column(csv: &str, column: &str) -> BTreeMap<(i64, String, String), String> {
    let text = std::fs::read_to_string(common::fixtures().join("csv").join(csv)).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    lines
        .map(|line| {
            let c: Vec<&str> = line.split(',').collect();
            (
                (
                    c[col("board")].parse().unwrap(),
                    c[col("ns_pair")].to_string(),
                    c[col("ew_pair")].to_string(),
                ),
                c[col(column)].to_string(),
            )
        })
        .collect()
}

/// The official matchpoints of a fixture traveller CSV: (board, NS pair, EW pair) -> (ns, ew).
fn official(csv: &str) -> BTreeMap<(i64, String, String), (f64, f64)> {
    let text = std::fs::read_to_string(common::fixtures().join("csv").join(csv)).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    lines
        .filter_map(|line| {
            let c: Vec<&str> = line.split(',').collect();
            let (ns, ew) = (c[col("ns_mp")].parse().ok()?, c[col("ew_mp")].parse().ok()?);
            Some((
                (
                    c[col("board")].parse().unwrap(),
                    c[col("ns_pair")].to_string(),
                    c[col("ew_pair")].to_string(),
                ),
                (ns, ew),
            ))
        })
        .collect()
}

#[test]
fn the_export_reads_back_with_replay_s_figures_and_the_real_files_club_figures() {
    let (t, _) = common::realdata_event();
    let out = tempfile::tempdir().unwrap();
    let exported = export(
        t.log.as_ref(),
        common::EVENT,
        None,
        out.path(),
        &ExportOptions::default(),
    )
    .unwrap();
    assert_eq!(exported.generations, 4);
    assert_eq!(exported.standings_generations, 4);

    let results = rows(&out.path().join("results.parquet"));
    let moment = Moment::replayed(t.log.as_ref(), common::EVENT, None).unwrap();
    assert_eq!(results.len(), moment.results().unwrap().result_count());
    let national = result_values(
        &common::replay_json(t.log.as_ref(), common::EVENT, None, &Options::default()),
        None,
    );
    let mut checked = (0, 0, 0);
    for row in &results {
        let key = key_of(row);
        let (Some(ns), Some(ew)) = (
            row["national_ns_mp"].as_f64(),
            row["national_ew_mp"].as_f64(),
        ) else {
            // Not played at that table: no value anywhere.
            assert!(!national.contains_key(&key), "{key:?}");
            continue;
        };
        assert!(
            close(national[&key], (ns, ew)),
            "{key:?}: {:?} / {:?}",
            national[&key],
            (ns, ew)
        );
        let top = row["national_top"].as_f64().unwrap();
        assert_eq!(
            row["national_ns_percent"].as_f64().unwrap(),
            ns / top * 100.0
        );
        checked.0 += 1;
    }
    // Each club's own figures: replay of the club's field, and the real files' own numbers.
    for (club, _) in common::CLUBS {
        let moment = Moment::replayed(t.log.as_ref(), common::EVENT, None).unwrap();
        let field = moment.field(Some(club)).unwrap();
        let scoring = simpairs_scoring::score(&field, &Options::default()).unwrap();
        let mut json = Vec::new();
        simpairs_formats::report::write_json(&mut json, &scoring).unwrap();
        let own = result_values(&serde_json::from_slice(&json).unwrap(), Some(club));
        for row in results.iter().filter(|r| r["club"] == club) {
            if let Some(ns) = row["club_ns_mp"].as_f64() {
                let exported = (ns, row["club_ew_mp"].as_f64().unwrap());
                assert!(close(own[&key_of(row)], exported), "{:?}", key_of(row));
                checked.1 += 1;
            }
        }
    }
    let m03 = official("cobalt__mp_pairs_mitchell_03.csv");
    for row in results
        .iter()
        .filter(|r| r["club"] == "M03" && r["board"] != 1)
    {
        let k = key_of(row);
        assert_eq!(
            m03[&(k.2, k.3.clone(), k.4.clone())],
            (
                row["club_ns_mp"].as_f64().unwrap(),
                row["club_ew_mp"].as_f64().unwrap()
            ),
            "{k:?}"
        );
        checked.2 += 1;
    }
    assert_eq!(checked.0, national.len());
    assert!(checked.2 > 100, "{checked:?}");
    // Players and the correction.
    let corrected = results
        .iter()
        .find(|r| r["club"] == "M03" && r["board"] == 1 && r["ns_pair"] == "2")
        .unwrap();
    assert_eq!(
        (
            corrected["ns_score"].as_i64(),
            corrected["generation"].as_i64()
        ),
        (Some(130), Some(4))
    );
    assert!(
        corrected["ns_player1"]
            .as_str()
            .unwrap()
            .starts_with("PLAYER")
    );
    assert!(
        corrected["ns_player1_id"]
            .as_str()
            .unwrap()
            .starts_with("9000")
    );
    // The leads the Compscore file gives, as its traveller CSV fixture has them.
    let leads = official_column("cobalt__mp_pairs_mitchell_03.csv", "lead");
    let mut led = 0;
    // (The correction's table gave no lead.)
    for row in results
        .iter()
        .filter(|r| r["club"] == "M03" && r["generation"] != 4)
    {
        let k = key_of(row);
        if let Some(lead) = leads
            .get(&(k.2, k.3.clone(), k.4.clone()))
            .filter(|l| !l.is_empty())
        {
            assert_eq!(row["lead"].as_str(), Some(lead.as_str()), "{k:?}");
            led += 1;
        }
    }
    assert!(led > 100, "{led} leads checked");
    // Every declared board, with the deals the files gave.
    let boards = rows(&out.path().join("boards.parquet"));
    assert_eq!(boards.len(), 27);
    assert_eq!(
        (
            boards[0]["dealer"].as_str(),
            boards[1]["vulnerable"].as_str()
        ),
        (Some("N"), Some("NS"))
    );
    assert!(
        boards.iter().filter(|b| b["deal"].is_string()).count() >= 21,
        "{boards:?}"
    );
    // A board with a whole deal has its double-dummy tricks and par, the others none; a result
    // on an analysed board is its score's distance from that par (the Newton test below holds
    // the figures to published ones).
    for b in &boards {
        let analysed = b["par_score"].is_i64();
        assert_eq!(b["dd_w_c"].is_i64(), analysed, "{b:?}");
        assert!(!analysed || b["deal"].is_string(), "{b:?}");
    }
    assert!(boards.iter().filter(|b| b["par_score"].is_i64()).count() >= 21);
    let par: BTreeMap<i64, i64> = boards
        .iter()
        .filter_map(|b| Some((b["board"].as_i64()?, b["par_score"].as_i64()?)))
        .collect();
    let mut from_par = 0;
    for r in &results {
        let board = r["board"].as_i64().unwrap();
        let played = r["adjusted"].is_null() && r["fouled_group"].is_null();
        match (r["ns_score"].as_i64(), par.get(&board).filter(|_| played)) {
            (Some(ns), Some(p)) => {
                assert_eq!(r["par_ns_score"].as_i64(), Some(*p));
                assert_eq!(r["ns_score_minus_par"].as_i64(), Some(ns - p));
                from_par += 1;
            }
            _ => assert!(r["ns_score_minus_par"].is_null(), "{r:?}"),
        }
        if !played {
            assert!(r["par_ns_score"].is_null(), "{r:?}");
        }
    }
    assert!(from_par > 100, "{from_par}");
    let notes = exported.notes.join("\n");
    assert!(!notes.contains("not computed"), "{notes}");
    let without_deal = boards.iter().filter(|b| b["deal"].is_null()).count();
    assert_eq!(
        without_deal > 0,
        notes.contains("no deal is known"),
        "{notes}"
    );

    // The standings of the last generation are replay's.
    let standings = rows(&out.path().join("standings.parquet"));
    let end = common::pairs_of(&common::replay_json(
        t.log.as_ref(),
        common::EVENT,
        None,
        &Options::default(),
    ));
    let last: Vec<_> = standings.iter().filter(|r| r["generation"] == 4).collect();
    assert_eq!(last.len(), end.len());
    for r in last {
        let s = |k: &str| r[k].as_str().unwrap().to_string();
        let e = &end[&(s("club"), s("section"), s("pair"), s("direction"))];
        assert_eq!(
            (
                r["place"].as_u64().unwrap(),
                r["tied"].as_bool().unwrap(),
                r["percent"].as_f64()
            ),
            (e.0, e.1, e.2)
        );
    }
    assert_eq!(
        standings.iter().filter(|r| r["generation"] == 1).count(),
        common::pairs_of(&common::score_json(
            "cobalt/mp_pairs_mitchell_03.xml",
            &Options::default()
        ))
        .len()
    );

    // Submissions: M03's first corrected by its correction of one line, the rest of it still in
    // force; the unreadable record set aside.
    let submissions = rows(&out.path().join("submissions.parquet"));
    let states: Vec<(String, String, Option<i64>, bool)> = submissions
        .iter()
        .map(|r| {
            (
                r["club"].as_str().unwrap().into(),
                r["state"].as_str().unwrap().into(),
                r["generation"].as_i64(),
                r["superseded_by"].is_string(),
            )
        })
        .collect();
    assert_eq!(
        states,
        vec![
            ("M03".into(), "applied".into(), Some(1), true),
            ("NZ".into(), "applied".into(), Some(2), false),
            ("M02".into(), "applied".into(), Some(3), false),
            ("M03".into(), "applied".into(), Some(4), false),
        ]
    );
    // Each result in force is counted once, by the submission that brought it.
    let in_force: i64 = (submissions.iter())
        .map(|r| r["lines_in_force"].as_i64().unwrap())
        .sum();
    assert_eq!(in_force as usize, results.len());
    let by_correction = (results.iter())
        .filter(|r| r["generation"].as_i64() == Some(4))
        .count() as i64;
    assert_eq!(
        submissions[3]["lines_in_force"].as_i64(),
        Some(by_correction)
    );
    assert_eq!(rows(&out.path().join("dead_letters.parquet")).len(), 1);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("export.json")).unwrap()).unwrap();
    assert_eq!(manifest["tables"].as_array().unwrap().len(), 5);

    // The CSV export: the same tables, a header and one line per row.
    let csv_dir = tempfile::tempdir().unwrap();
    let csv = ExportOptions {
        format: Format::Csv,
        ..ExportOptions::default()
    };
    export(t.log.as_ref(), common::EVENT, None, csv_dir.path(), &csv).unwrap();
    let text = std::fs::read_to_string(csv_dir.path().join("results.csv")).unwrap();
    assert!(text.starts_with("event,generation,submission,club,"));
    assert_eq!(text.lines().count(), results.len() + 1);
}

/// A board of a published hand record: its number, the tricks of `[OptimumResultTable]` by
/// (declarer, strain) and the par of `[OptimumScore]` to NS.
struct HandRecord {
    board: i64,
    tricks: Vec<(char, String, i64)>,
    par_ns: Option<i64>,
}

fn hand_records(file: &str) -> Vec<HandRecord> {
    let path = common::fixtures()
        .join("native/rchillyard-Bridge")
        .join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let tag = |line: &str, name: &str| {
        line.strip_prefix(&format!("[{name} \""))
            .and_then(|l| l.strip_suffix("\"]"))
            .map(str::to_string)
    };
    let mut out: Vec<HandRecord> = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(n) = tag(line, "Board") {
            let (board, tricks) = (n.parse().unwrap(), Vec::new());
            out.push(HandRecord {
                board,
                tricks,
                par_ns: None,
            });
        } else if let (Some(b), Some(s)) = (out.last_mut(), tag(line, "OptimumScore")) {
            let (side, score) = s.split_once(' ').unwrap();
            let score: i64 = score.parse().unwrap();
            b.par_ns = Some(if side == "NS" { score } else { -score });
        } else if let Some(b) = out.last_mut()
            && let [seat, strain, tricks] = line.split_whitespace().collect::<Vec<_>>()[..]
            && ["N", "E", "S", "W"].contains(&seat)
        {
            let seat = seat.chars().next().unwrap();
            b.tricks
                .push((seat, strain.to_string(), tricks.parse().unwrap()));
        }
    }
    out
}

/// A club session whose hand records publish the par (Newton Bridge Club's ACBL PBN file, with
/// its travellers), exported: the boards table carries the published tricks and par, and every
/// result its distance from that par.
#[test]
fn the_export_carries_the_published_double_dummy_tricks_and_par() {
    const FILE: &str = "newtonbridge_20160120_1.pbn";
    let t = common::empty_log();
    common::declare_event(t.log.as_ref(), "NEWTON", &["NB"], 1..=30);
    let pbn = common::native(&format!("rchillyard-Bridge/{FILE}"));
    common::publish(t.log.as_ref(), "NEWTON", "NB", FILE, &pbn);
    let out = tempfile::tempdir().unwrap();
    let exported = export(
        t.log.as_ref(),
        "NEWTON",
        None,
        out.path(),
        &ExportOptions::default(),
    )
    .unwrap();
    assert!(
        exported.notes.iter().all(|n| !n.contains("double dummy")),
        "{:?}",
        exported.notes
    );
    let records = hand_records(FILE);
    assert_eq!(records.iter().filter(|r| r.par_ns.is_some()).count(), 30);
    let boards = rows(&out.path().join("boards.parquet"));
    let mut par = BTreeMap::new();
    for r in &records {
        let row = boards.iter().find(|b| b["board"] == r.board).unwrap();
        assert_eq!(r.tricks.len(), 20, "board {}", r.board);
        for (seat, strain, tricks) in &r.tricks {
            let column = format!("dd_{}_{}", seat.to_ascii_lowercase(), strain.to_lowercase());
            assert_eq!(
                row[&column].as_i64(),
                Some(*tricks),
                "board {} {column}",
                r.board
            );
        }
        assert_eq!(row["par_score"].as_i64(), r.par_ns, "board {}", r.board);
        let contracts = row["par_contracts"].as_str().unwrap();
        assert_eq!(
            contracts.is_empty(),
            r.par_ns == Some(0),
            "board {}",
            r.board
        );
        par.insert(r.board, r.par_ns.unwrap());
    }
    let results = rows(&out.path().join("results.parquet"));
    let mut checked = 0;
    for row in &results {
        let board = row["board"].as_i64().unwrap();
        let Some(ns) = row["ns_score"].as_i64() else {
            assert!(row["ns_score_minus_par"].is_null(), "{row:?}");
            continue;
        };
        assert_eq!(row["par_ns_score"].as_i64(), Some(par[&board]), "{row:?}");
        assert_eq!(
            row["ns_score_minus_par"].as_i64(),
            Some(ns - par[&board]),
            "{row:?}"
        );
        checked += 1;
    }
    assert!(checked > 200, "{checked} results checked");

    // The CSV export: the same columns and values.
    let csv_dir = tempfile::tempdir().unwrap();
    let csv = ExportOptions {
        format: Format::Csv,
        ..ExportOptions::default()
    };
    export(t.log.as_ref(), "NEWTON", None, csv_dir.path(), &csv).unwrap();
    let text = std::fs::read_to_string(csv_dir.path().join("boards.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[5..7], ["dd_n_nt", "dd_n_s"]);
    assert_eq!(header[header.len() - 2..], ["par_score", "par_contracts"]);
    let first: Vec<&str> = lines.next().unwrap().split(',').collect();
    let board1 = &records[0];
    assert_eq!(first[1], board1.board.to_string());
    assert_eq!(first[header.len() - 2], board1.par_ns.unwrap().to_string());
    let text = std::fs::read_to_string(csv_dir.path().join("results.csv")).unwrap();
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains(",ns_score,ew_score,par_ns_score,ns_score_minus_par,")
    );
}

/// The standings' row budget counts the pairs of the field, named or not: clubs whose files
/// give no players' names (as the bench's national field) must not have every generation written.
#[test]
fn the_standings_budget_counts_pairs_without_names() {
    let t = common::empty_log();
    let log = t.log.as_ref();
    common::declare_event(log, "plain", &["A", "B", "C"], 1..=2);
    let csv = "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n1,2,2,450\n2,1,2,-110\n2,2,1,600\n";
    for club in ["A", "B", "C"] {
        common::publish(log, "plain", club, "session.csv", csv.as_bytes());
    }
    let out = tempfile::tempdir().unwrap();
    // Room for the final field's 12 pairs once: only the last generation is written.
    let options = ExportOptions {
        every: simpairs_analysis::timeline::Every::Rows(12),
        ..ExportOptions::default()
    };
    let exported = export(log, "plain", None, out.path(), &options).unwrap();
    assert_eq!(exported.generations, 3);
    assert_eq!(exported.standings_generations, 1);
    assert_eq!(rows(&out.path().join("standings.parquet")).len(), 12);
}

/// A club's results withdrawn: the generation that withdrew them is marked so, and ranks the
/// other clubs' pairs alone.
#[test]
fn the_standings_mark_the_generation_that_withdrew_a_club() {
    let t = common::empty_log();
    let log = t.log.as_ref();
    common::declare_event(log, "out", &["A", "B"], 1..=2);
    let csv = "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n1,2,2,450\n2,1,2,-110\n2,2,1,600\n";
    for club in ["A", "B"] {
        common::publish(log, "out", club, "session.csv", csv.as_bytes());
    }
    let key = simpairs_sim::club_key("A");
    simpairs_pipeline::publish::withdraw_club(log, "out", "A", &key, "wrong event").unwrap();
    let out = tempfile::tempdir().unwrap();
    export(log, "out", None, out.path(), &ExportOptions::default()).unwrap();
    let standings = rows(&out.path().join("standings.parquet"));
    let at = |g: i64| -> Vec<&BTreeMap<String, serde_json::Value>> {
        standings.iter().filter(|r| r["generation"] == g).collect()
    };
    let flags = |g: i64| {
        (
            at(g)[0]["correction"].clone(),
            at(g)[0]["withdrawn"].clone(),
        )
    };
    assert_eq!(flags(2), (false.into(), false.into()));
    assert_eq!(flags(3), (true.into(), true.into()));
    assert!(
        at(3)
            .iter()
            .all(|r| r["club"] == "B" && r["arriving_club"] == "A")
    );
    assert_eq!(at(3).len(), at(2).len() / 2);
}

/// The manifest says whether the results are final: when the organiser closed the event, or
/// null while it is open.
#[test]
fn the_manifest_says_when_the_event_was_closed() {
    let t = common::empty_log();
    let log = t.log.as_ref();
    common::declare_event(log, "shut", &["A", "B"], 1..=2);
    let csv = "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n1,2,2,450\n2,1,2,-110\n2,2,1,600\n";
    common::publish(log, "shut", "A", "session.csv", csv.as_bytes());
    let manifest = |out: &Path| -> serde_json::Value {
        let text = std::fs::read_to_string(out.join("export.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let open = tempfile::tempdir().unwrap();
    export(log, "shut", None, open.path(), &ExportOptions::default()).unwrap();
    assert_eq!(manifest(open.path())["closed_ms"], serde_json::Value::Null);
    let close = simpairs_pipeline::declare::Amendment {
        close: true,
        ..Default::default()
    };
    let organiser = simpairs_sim::organiser_key();
    simpairs_pipeline::declare::amend(log, "shut", &organiser, close).unwrap();
    let closed = tempfile::tempdir().unwrap();
    let exported = export(log, "shut", None, closed.path(), &ExportOptions::default()).unwrap();
    assert!(exported.closed_ms.is_some());
    let closed_ms = serde_json::Value::from(exported.closed_ms);
    assert_eq!(manifest(closed.path())["closed_ms"], closed_ms);
}

/// The values and datum of every result of a report JSON of an IMP scoring by (club, section,
/// board, NS pair, EW pair): (NS IMPs, EW IMPs, the board's datum).
fn imp_values(
    report: &serde_json::Value,
    club: Option<&str>,
) -> BTreeMap<TableKey, (f64, f64, Option<i64>)> {
    let mut out = BTreeMap::new();
    for b in report["boards"].as_array().unwrap() {
        for r in b["results"].as_array().unwrap() {
            let s = |k: &str| r[k].as_str().unwrap().to_string();
            let c = club.map_or_else(|| s("club"), str::to_string);
            assert!(r.get("ns_mp").is_none(), "{r}");
            out.insert(
                (
                    c,
                    s("section"),
                    b["board"].as_i64().unwrap(),
                    s("ns_pair"),
                    s("ew_pair"),
                ),
                (
                    r["ns_imps"].as_f64().unwrap(),
                    r["ew_imps"].as_f64().unwrap(),
                    b["datum"].as_i64(),
                ),
            );
        }
    }
    out
}

/// A Butler event (two clubs' real Butler sessions): the export names its figures as IMPs.
/// Every result's `national_ns_imps`/`national_ew_imps` are the `ns_imps`/`ew_imps` of `replay
/// --json`, its `national_datum` the board's `datum` there, and the club columns those of the
/// club's own field; the matchpoint columns (`_mp`, `_top`, `_percent`) are empty.
#[test]
fn a_butler_event_s_export_has_imps_and_the_datum_in_columns_named_for_them() {
    use simpairs_events::types::Scoring;
    let t = common::empty_log();
    let log = t.log.as_ref();
    common::declare_event_scored(log, "BUTLER", &["BH", "BM"], 1..=35, Scoring::Butler);
    for (club, file) in [
        ("BH", "cobalt/butler_howell.xml"),
        ("BM", "cobalt/butler_mitchell.xml"),
    ] {
        let bytes = common::without_deals(&common::native(file));
        common::publish(log, "BUTLER", club, file, &bytes);
    }
    let out = tempfile::tempdir().unwrap();
    export(log, "BUTLER", None, out.path(), &ExportOptions::default()).unwrap();
    let results = rows(&out.path().join("results.parquet"));
    assert!(!results.is_empty());
    let butler = Options {
        method: simpairs_scoring::Method::Butler,
        ..Options::default()
    };
    let national = imp_values(&common::replay_json(log, "BUTLER", None, &butler), None);
    let mut own = BTreeMap::new();
    for club in ["BH", "BM"] {
        let moment = Moment::replayed(log, "BUTLER", None).unwrap();
        let field = moment.field(Some(club)).unwrap();
        let scoring = simpairs_scoring::score(&field, &butler).unwrap();
        let mut json = Vec::new();
        simpairs_formats::report::write_json(&mut json, &scoring).unwrap();
        own.extend(imp_values(
            &serde_json::from_slice(&json).unwrap(),
            Some(club),
        ));
    }
    let mut checked = 0;
    let mut clubs = std::collections::BTreeSet::new();
    for row in &results {
        for column in [
            "national_ns_mp",
            "national_ew_mp",
            "national_top",
            "national_ns_percent",
            "national_ew_percent",
            "club_ns_mp",
            "club_ew_mp",
            "club_top",
            "club_ns_percent",
            "club_ew_percent",
        ] {
            assert!(row[column].is_null(), "{column}: {row:?}");
        }
        let key = key_of(row);
        let Some(&(ns, ew, datum)) = national.get(&key) else {
            assert!(row["national_ns_imps"].is_null(), "{row:?}");
            continue;
        };
        let datum = datum.filter(|_| row["fouled_group"].is_null());
        assert_eq!(
            (
                row["national_ns_imps"].as_f64(),
                row["national_ew_imps"].as_f64(),
                row["national_datum"].as_i64()
            ),
            (Some(ns), Some(ew), datum),
            "{key:?}"
        );
        let (ns, ew, datum) = own[&key];
        assert_eq!(
            (
                row["club_ns_imps"].as_f64(),
                row["club_ew_imps"].as_f64(),
                row["club_datum"].as_i64()
            ),
            (Some(ns), Some(ew), datum),
            "{key:?}"
        );
        clubs.insert(key.0);
        checked += 1;
    }
    assert_eq!(checked, national.len());
    assert_eq!(clubs.len(), 2, "both clubs' results in force");
    // Two clubs: the national datum is not always the club's, nor the IMPs.
    assert!(
        results
            .iter()
            .any(|r| r["national_datum"] != r["club_datum"]),
        "the national field's datum differs from a club's somewhere"
    );
    assert!(national.values().any(|v| v.2.is_some()));

    // A matchpoint event's IMP columns are empty.
    let (mp, _) = common::realdata_event();
    let mp_out = tempfile::tempdir().unwrap();
    export(
        mp.log.as_ref(),
        common::EVENT,
        None,
        mp_out.path(),
        &ExportOptions::default(),
    )
    .unwrap();
    for row in rows(&mp_out.path().join("results.parquet")) {
        for column in [
            "national_ns_imps",
            "national_ew_imps",
            "national_datum",
            "club_ns_imps",
            "club_ew_imps",
            "club_datum",
        ] {
            assert!(row[column].is_null(), "{column}: {row:?}");
        }
    }
}
