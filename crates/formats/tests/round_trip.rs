//! Every real file, re-scored and written back as USEBIO 1.2 and as a traveller CSV: the written file is
//! read by our own reader into the same results, pairs, names, contracts and deals, scores to the same
//! numbers, and carries exactly simpairs' numbers as its official values.

use crate::common;

use common::{NATIVE_FILES, options, read_native};
use simpairs_formats::export::{self, ExportFormat};
use simpairs_formats::{Format, Imported, format_exact, read};
use simpairs_scoring::{Method, Options, Scale, Scoring, Value, score};

/// Rows by what identifies a table's result: board and the two pairs.
fn rows_by_table(i: &Imported) -> std::collections::HashMap<(u16, String, String), usize> {
    (0..i.field.len())
        .map(|row| {
            let r = i.field.result(row);
            (
                (
                    r.board,
                    i.field.describe_pair(r.ns),
                    i.field.describe_pair(r.ew),
                ),
                row,
            )
        })
        .collect()
}

/// The same results, pairs and names (national numbers too when `ids`); returns b's row of each a row.
fn same_results(file: &str, a: &Imported, b: &Imported, ids: bool) -> Vec<usize> {
    assert_eq!(a.field.len(), b.field.len(), "{file}: results");
    assert_eq!(
        a.field.pairs().len(),
        b.field.pairs().len(),
        "{file}: pairs"
    );
    let b_rows = rows_by_table(b);
    let mut map = Vec::with_capacity(a.field.len());
    for row in 0..a.field.len() {
        let x = a.field.result(row);
        let key = (
            x.board,
            a.field.describe_pair(x.ns),
            a.field.describe_pair(x.ew),
        );
        let other = *b_rows
            .get(&key)
            .unwrap_or_else(|| panic!("{file}: {key:?} is lost"));
        let y = b.field.result(other);
        assert_eq!(
            (x.outcome, x.arrow_switch),
            (y.outcome, y.arrow_switch),
            "{file} {key:?}"
        );
        assert_eq!(
            x.group.map(|g| a.field.group_name(g).1.to_string()),
            y.group.map(|g| b.field.group_name(g).1.to_string()),
            "{file} {key:?}"
        );
        assert_eq!(
            a.details(row),
            b.details(other),
            "{file} {key:?}: contract, declarer, tricks, lead"
        );
        for (pa, pb) in [(x.ns, y.ns), (x.ew, y.ew)] {
            let (pa, pb) = (a.players(pa), b.players(pb));
            if ids {
                assert_eq!(pa, pb, "{file} {key:?}: players");
            } else {
                let names = |p: &[simpairs_formats::Player]| {
                    p.iter().map(|x| x.name.clone()).collect::<Vec<_>>()
                };
                assert_eq!(names(pa), names(pb), "{file} {key:?}: players");
            }
        }
        map.push(other);
    }
    assert_eq!(
        a.absent_pairs, b.absent_pairs,
        "{file}: pairs without results"
    );
    map
}

fn same_numbers(file: &str, a: &Scoring<'_>, b: &Scoring<'_>, rows: &[usize]) {
    for (row, &other) in rows.iter().enumerate() {
        assert_eq!(
            a.result_values(row),
            b.result_values(other),
            "{file} row {row}"
        );
    }
    let fa = a.field();
    let fb = b.field();
    let ids: std::collections::HashMap<String, usize> = (0..fb.pairs().len())
        .map(|id| (fb.describe_pair(id as u32), id))
        .collect();
    for (id, x) in a.standings().iter().enumerate() {
        let y = &b.standings()[ids[&fa.describe_pair(id as u32)]];
        assert_eq!(
            (
                x.total_hundredths,
                x.percent_hundredths,
                x.rank,
                x.tied,
                x.boards
            ),
            (
                y.total_hundredths,
                y.percent_hundredths,
                y.rank,
                y.tied,
                y.boards
            ),
            "{file}"
        );
    }
}

/// The written file's official values are ours, as written.
fn official_is_ours(
    file: &str,
    back: &Imported,
    scoring: &Scoring<'_>,
    rows: &[usize],
    with_pairs: bool,
) {
    let exact = |v: Value| simpairs_formats::parse_decimal(&format_exact(v));
    for (row, &other) in rows.iter().enumerate() {
        let (ns, ew) = scoring.result_values(row);
        let o = back
            .official
            .line(other)
            .unwrap_or_else(|| panic!("{file} row {row}: no values written"));
        assert_eq!((o.ns, o.ew), (exact(ns), exact(ew)), "{file} row {row}");
    }
    if !with_pairs {
        return;
    }
    assert_eq!(
        back.official.pairs.len(),
        back.field.pairs().len(),
        "{file}: a result for every pair"
    );
    let ids: std::collections::HashMap<String, usize> = (0..scoring.field().pairs().len())
        .map(|id| (scoring.field().describe_pair(id as u32), id))
        .collect();
    for (id, o) in &back.official.pairs {
        let s = &scoring.standings()[ids[&back.field.describe_pair(*id)]];
        assert_eq!(o.total, Some(Value::new(s.total_hundredths, 100)), "{file}");
        assert_eq!(
            o.percent,
            s.percent_hundredths.map(|p| Value::new(p, 100)),
            "{file}"
        );
        let place = o.place.unwrap();
        assert_eq!(
            (place.rank, place.tied, o.boards),
            (s.rank, s.tied, Some(s.boards)),
            "{file}"
        );
    }
    if scoring.options().method == Method::Butler {
        for &(board, datum) in &back.official.datums {
            assert_eq!(scoring.board(board).unwrap().datum, Some(datum), "{file}");
        }
        assert_eq!(back.official.datums.len(), scoring.boards().len());
    }
}

fn round_trip(file: &str, format: ExportFormat, options: &Options) {
    let imported = read_native(file);
    let scoring = score(&imported.field, options).unwrap();
    let mut out = Vec::new();
    export::write(&mut out, format, &imported, &scoring).unwrap();
    let mut again = Vec::new();
    export::write(&mut again, format, &imported, &scoring).unwrap();
    assert_eq!(out, again, "{file}: writing is deterministic");
    let name = match format {
        ExportFormat::Usebio => "written.xml",
        _ => "written.csv",
    };
    let back =
        read(name, &out, None).unwrap_or_else(|e| panic!("{file}: our own {name} is refused: {e}"));
    let expected_format = if format == ExportFormat::Usebio {
        Format::Usebio
    } else {
        Format::Csv
    };
    assert_eq!(back.format, expected_format);
    // The CSV has no column for national numbers: it keeps the names only.
    let rows = same_results(file, &imported, &back, format == ExportFormat::Usebio);
    let rescored = score(&back.field, options).unwrap();
    same_numbers(file, &scoring, &rescored, &rows);
    official_is_ours(file, &back, &scoring, &rows, format == ExportFormat::Usebio);
    if format == ExportFormat::Usebio {
        assert_eq!(
            back.method(),
            Some(options.method),
            "{file}: the event type says the method"
        );
        let hands = |i: &Imported| {
            i.deals
                .iter()
                .map(|d| (d.board, d.hands.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(hands(&imported), hands(&back), "{file}: deals");
        let e = (&imported.event, &back.event);
        assert_eq!(
            (&e.0.club_name, &e.0.club_id, &e.0.event_id),
            (&e.1.club_name, &e.1.club_id, &e.1.event_id),
            "{file}"
        );
        assert_eq!(
            (&e.0.name, &e.0.date, &e.0.title),
            (&e.1.name, &e.1.date, &e.1.title),
            "{file}"
        );
        assert_eq!(back.event.program.as_deref(), Some("simpairs"));
    }
}

fn method_of(file: &str) -> Method {
    read_native(file).method().unwrap_or(Method::Matchpoints)
}

#[test]
fn every_real_file_round_trips_through_usebio() {
    for file in NATIVE_FILES {
        round_trip(file, ExportFormat::Usebio, &options(method_of(file)));
    }
}

#[test]
fn every_real_file_round_trips_through_the_traveller_csv() {
    for file in NATIVE_FILES {
        round_trip(file, ExportFormat::Csv, &options(method_of(file)));
    }
}

#[test]
fn other_methods_and_scales_round_trip() {
    let file = "rchillyard-Bridge/westwood_20190625_1.pbn";
    for o in [
        Options {
            scale: Scale::Single,
            ..options(Method::Matchpoints)
        },
        options(Method::Butler),
        options(Method::CrossImps),
        Options {
            factoring: simpairs_scoring::Factoring::Ratio,
            ..options(Method::Matchpoints)
        },
    ] {
        round_trip(file, ExportFormat::Usebio, &o);
        round_trip(file, ExportFormat::Csv, &o);
    }
}

#[test]
fn several_clubs_and_sections_round_trip() {
    use simpairs_formats::csv;
    let text = "board,club,section,ns_pair,ew_pair,ns_score,ew_score,adjusted,arrow_switch,group,movement\n\
1,Lindfield,A,1,1,420,,,,,mitchell\n1,Lindfield,A,2,2,-50,,,true,,mitchell\n1,Lindfield,A,3,3,,,60/40,,,mitchell\n\
1,Palmerston,,1,2,450,,,,,howell\n1,Palmerston,,3,4,-100,50,,,,howell\n1,Palmerston,,5,6,420,,,,,howell\n";
    let read1 = csv::read("clubs.csv", text.as_bytes()).unwrap();
    let imported = Imported::bare(Format::Csv, read1.field, read1.lines, 0);
    let scoring = score(&imported.field, &options(Method::Matchpoints)).unwrap();
    let mut out = Vec::new();
    export::write_usebio(&mut out, &imported, &scoring).unwrap();
    let xml = String::from_utf8(out.clone()).unwrap();
    assert!(
        xml.contains("<CLUB_NAME>Palmerston</CLUB_NAME>")
            && xml.contains("<ARROW_SWITCH>true</ARROW_SWITCH>")
    );
    assert!(xml.contains("<SCORE>A6040</SCORE>") && xml.contains("<NS_SCORE>-100</NS_SCORE>"));
    let back = read("clubs.xml", &out, None).unwrap();
    let rows = same_results("clubs", &imported, &back, true);
    same_numbers(
        "clubs",
        &scoring,
        &score(&back.field, &options(Method::Matchpoints)).unwrap(),
        &rows,
    );
}

#[test]
fn clubs_known_by_their_ids_are_written_with_their_names_and_read_back_by_their_ids() {
    use simpairs_formats::csv;
    // A national event's field knows its clubs by their ids; the organiser declared their names.
    let text = "board,club,ns_pair,ew_pair,ns_score\n\
1,C0042,1,2,420\n1,C0042,3,4,-50\n1,C0043,1,2,450\n1,C0043,3,4,-100\n1,C0044,1,2,420\n1,C0044,3,4,100\n";
    let read1 = csv::read("national.csv", text.as_bytes()).unwrap();
    let mut imported = Imported::bare(Format::Csv, read1.field, read1.lines, 0);
    imported.event.club_names = [
        ("C0042", "Lindfield & District"),
        ("C0043", "Palmerston"),
        // A club whose name is its id is written as before: its name alone.
        ("C0044", "C0044"),
    ]
    .into_iter()
    .map(|(id, name)| (id.to_string(), name.to_string()))
    .collect();
    let scoring = score(&imported.field, &options(Method::Matchpoints)).unwrap();
    let mut out = Vec::new();
    export::write_usebio(&mut out, &imported, &scoring).unwrap();
    let xml = String::from_utf8(out.clone()).unwrap();
    for want in [
        "<CLUB_NAME>Lindfield &amp; District</CLUB_NAME>\n        <CLUB_ID_NUMBER>C0042</CLUB_ID_NUMBER>",
        "<CLUB_NAME>Palmerston</CLUB_NAME>\n        <CLUB_ID_NUMBER>C0043</CLUB_ID_NUMBER>",
        "<CLUB_NAME>C0044</CLUB_NAME>\n",
    ] {
        assert!(xml.contains(want), "{want:?} in\n{xml}");
    }
    assert!(!xml.contains("<CLUB_ID_NUMBER>C0044"), "{xml}");
    let back = read("national.xml", &out, None).unwrap();
    // The clubs read back are the same clubs, by their ids, and their names are kept.
    let clubs = |i: &Imported| i.field.clubs().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(clubs(&back), ["C0042", "C0043", "C0044"]);
    assert_eq!(clubs(&back), clubs(&imported));
    assert_eq!(
        back.event.club_names.get("C0042").map(String::as_str),
        Some("Lindfield & District")
    );
    assert_eq!(back.event.club_names.len(), 2);
    let rows = same_results("national", &imported, &back, true);
    let again = score(&back.field, &options(Method::Matchpoints)).unwrap();
    same_numbers("national", &scoring, &again, &rows);
    // Written again from what was read, the file is the same (but for its comment on the source).
    let mut out2 = Vec::new();
    export::write_usebio(&mut out2, &back, &again).unwrap();
    let body = |x: &str| x[x.find("<USEBIO").unwrap()..].to_string();
    assert_eq!(body(&String::from_utf8(out2).unwrap()), body(&xml));
}
