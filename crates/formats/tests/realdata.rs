//! Every real result file, read in its native format: what it holds (results, pairs, names, deals,
//! event) and how simpairs' numbers compare with the official ones in it, line by line and pair by pair.
//! The golden numbers are the files' own; every disagreement is a documented exception
//! (`common/expect.rs`).

use crate::common;

use common::expect::{self, check, rules};
use common::{native_lines, native_pairs, options, read_native};
use simpairs_formats::{Format, Imported};
use simpairs_scoring::field::Movement;
use simpairs_scoring::{Method, Scale, Seat, Vulnerability, score};

fn official_file(file: &str) {
    let imported = read_native(file);
    let r = rules(file);
    assert_eq!(
        imported.method(),
        Some(r.method),
        "{file}: the event type names the method"
    );
    let scoring = score(&imported.field, &options(r.method)).unwrap();
    let lines = native_lines(&imported, &scoring);
    let pairs = native_pairs(&imported, &scoring);
    assert_eq!(
        pairs.len(),
        imported.pairs.len(),
        "{file}: every pair has an official result"
    );
    assert!(
        lines
            .iter()
            .all(|l| l.official_ns.is_some() && l.official_ew.is_some()),
        "{file}: every line has official values"
    );
    check(file, &r, &lines, &pairs);
}

#[test]
fn cobalt_mitchell_03_agrees_exactly() {
    official_file("cobalt/mp_pairs_mitchell_03.xml");
}

#[test]
fn cobalt_mitchell_02_agrees_but_for_its_hand_edits() {
    official_file("cobalt/mp_pairs_mitchell_02.xml");
}

#[test]
fn cobalt_mitchell_02_totals_are_our_boards_2_to_27_plus_a_board_1() {
    let file = "cobalt/mp_pairs_mitchell_02.xml";
    let imported = read_native(file);
    let scoring = score(&imported.field, &options(Method::Matchpoints)).unwrap();
    expect::mitchell_02_totals_follow_from_our_boards(
        &native_lines(&imported, &scoring),
        &native_pairs(&imported, &scoring),
    );
}

#[test]
fn cobalt_butler_howell_agrees_exactly() {
    official_file("cobalt/butler_howell.xml");
}

#[test]
fn cobalt_butler_datums_are_ours() {
    let imported = read_native("cobalt/butler_howell.xml");
    let scoring = score(&imported.field, &options(Method::Butler)).unwrap();
    assert_eq!(imported.official.datums.len(), 35);
    for &(board, datum) in &imported.official.datums {
        assert_eq!(
            scoring.board(board).and_then(|b| b.datum),
            Some(datum),
            "board {board}: BOARD_AVERAGE"
        );
    }
}

#[test]
fn scorer_mitchell_agrees_exactly() {
    official_file("scorer-to-usebio/pairs.xml");
}

#[test]
fn scorer_handicap_pairs_agree_before_handicap() {
    official_file("scorer-to-usebio/handicap_pairs.xml");
}

#[test]
fn scorer_three_quarter_howell_agrees_but_for_its_display_factoring() {
    official_file("scorer-to-usebio/three_quarter_howell_with_phantom.xml");
}

/// Three sections matchpointed as one field (Scorer's `field_scoring="true"`), two of whose lines
/// carry a director's ruling: their recorded scores disagree with their contracts and are the ones
/// scored, as Scorer scored them. Every line's matchpoints are the file's, but for board 17, whose
/// artificial score leaves the others factored (Neuberg): Scorer writes those values truncated to
/// tenths. The pairs'
/// totals are not compared: they are not the sums of the file's own traveller values (pair A 1 NS:
/// 863 against 864.5) and its places are per section.
#[test]
fn three_sections_agree_line_by_line_with_their_rulings_scored_as_recorded() {
    for file in [
        "scorer-to-usebio/multi-section-multi-movement-pairs.xml",
        "scorer-to-usebio/converted/multi-section-multi-movement-pairs.xml",
    ] {
        let imported = read_native(file);
        let scoring = score(&imported.field, &options(Method::Matchpoints)).unwrap();
        let lines = native_lines(&imported, &scoring);
        assert_eq!(lines.len(), imported.field.len(), "{file}");
        let tenths = |v: simpairs_scoring::Value| {
            (v * simpairs_scoring::Value::from_integer(10)).trunc()
                / simpairs_scoring::Value::from_integer(10)
        };
        let mut factored = 0;
        for l in &lines {
            let expected = if l.board == 17 {
                factored += 1;
                (tenths(l.ours_ns), tenths(l.ours_ew))
            } else {
                (l.ours_ns, l.ours_ew)
            };
            assert_eq!(
                (l.official_ns, l.official_ew),
                (Some(expected.0), Some(expected.1)),
                "{file} {}",
                l.name()
            );
        }
        assert_eq!(factored, 33, "{file}: board 17's lines");
    }
}

/// A hand passed out (`cont="N P"` with a score of 0 and matchpoints) is a result of its board: the
/// other results of the board are matchpointed against it, as Scorer did.
#[test]
fn scorer_passed_out_hand_agrees() {
    official_file("scorer-to-usebio/pairs-with-np-passed.xml");
}

#[test]
fn converted_usebio_passed_out_hand_agrees() {
    official_file("scorer-to-usebio/converted/pairs-with-np-passed.xml");
}

/// The two rulings of the three-section session are read as warnings naming their lines, and
/// nothing else is: not in the Scorer file, not in its USEBIO conversion (written on one line,
/// where a line's problem once leaked into the reading of the lines after it).
#[test]
fn the_three_section_session_reads_with_two_warnings() {
    for (file, lines) in [
        (
            "scorer-to-usebio/multi-section-multi-movement-pairs.xml",
            [484, 765],
        ),
        (
            "scorer-to-usebio/converted/multi-section-multi-movement-pairs.xml",
            [1, 1],
        ),
    ] {
        let imported = read_native(file);
        assert_eq!(imported.field.len() + imported.not_played, 858, "{file}");
        let w = &imported.warnings;
        assert_eq!(w.len(), 2, "{file}: {w:#?}");
        assert_eq!([w[0].at.line, w[1].at.line], lines, "{file}");
        assert!(
            w[0].message.contains("-250") && w[0].message.contains("scores 500 for NS"),
            "{file}: {}",
            w[0].message
        );
        assert!(
            w[1].message.contains("-170") && w[1].message.contains("scores -1200 for NS"),
            "{file}: {}",
            w[1].message
        );
    }
}

#[test]
fn converted_usebio_mitchell_agrees() {
    official_file("scorer-to-usebio/converted/pairs.xml");
}

#[test]
fn converted_usebio_three_quarter_howell_agrees_as_its_source() {
    official_file("scorer-to-usebio/converted/three_quarter_howell_with_phantom.xml");
}

/// What each file holds, counted from the file itself.
struct Expected {
    file: &'static str,
    format: Format,
    results: usize,
    not_played: usize,
    pairs: usize,
    named_pairs: usize,
    deals: usize,
    /// `None` when sections differ (a Mitchell and a Howell in one session).
    movement: Option<Movement>,
    club: Option<&'static str>,
    event: &'static str,
    date: Option<&'static str>,
}

const EXPECTED: [Expected; 15] = [
    Expected {
        file: "cobalt/mp_pairs_mitchell_03.xml",
        format: Format::Usebio,
        results: 126,
        not_played: 0,
        pairs: 13,
        named_pairs: 13,
        deals: 21,
        movement: Some(Movement::Mitchell),
        club: Some("NSBC@Lindfield"),
        event: "EL Thu 10.00am Rookie (21-Jul-22)",
        date: Some("21/07/2022"),
    },
    Expected {
        file: "cobalt/mp_pairs_mitchell_02.xml",
        format: Format::Usebio,
        results: 567,
        not_played: 0,
        pairs: 42,
        named_pairs: 42,
        deals: 27,
        movement: Some(Movement::Mitchell),
        club: None,
        event: "EL Thu 1.00pm Open (28-Jul-22)",
        date: None,
    },
    Expected {
        file: "cobalt/butler_howell.xml",
        format: Format::Usebio,
        results: 140,
        not_played: 0,
        pairs: 8,
        named_pairs: 8,
        deals: 35,
        movement: Some(Movement::Howell),
        club: None,
        event: "Monday Afternoon - Butler",
        date: Some("09/03/2026"),
    },
    Expected {
        file: "scorer-to-usebio/pairs.xml",
        format: Format::Scorer,
        results: 338,
        not_played: 0,
        pairs: 26,
        named_pairs: 26,
        deals: 0,
        movement: Some(Movement::Mitchell),
        club: Some("Palmerston North Bridge Club"),
        event: "Monday Afternoon November Pairs",
        date: Some("16/11/2015"),
    },
    Expected {
        file: "scorer-to-usebio/three_quarter_howell_with_phantom.xml",
        format: Format::Scorer,
        results: 135,
        not_played: 27,
        pairs: 11,
        named_pairs: 11,
        deals: 0,
        movement: Some(Movement::Howell),
        club: Some("Palmerston North Bridge Club"),
        event: "Monday Summer Bridge Dec 2015",
        date: Some("28/12/2015"),
    },
    Expected {
        file: "scorer-to-usebio/handicap_pairs.xml",
        format: Format::Scorer,
        results: 198,
        not_played: 0,
        pairs: 18,
        named_pairs: 18,
        deals: 0,
        movement: Some(Movement::Mitchell),
        club: Some("Palmerston North Bridge Club"),
        event: "Whitehead Trophy Handicap Pairs",
        date: Some("17/09/2015"),
    },
    Expected {
        file: "scorer-to-usebio/converted/pairs.xml",
        format: Format::Usebio,
        results: 338,
        not_played: 0,
        pairs: 26,
        named_pairs: 26,
        deals: 0,
        movement: Some(Movement::Mitchell),
        club: Some("Palmerston North Bridge Club"),
        event: "Monday Afternoon November Pairs",
        date: Some("16/11/2015"),
    },
    Expected {
        file: "scorer-to-usebio/converted/three_quarter_howell_with_phantom.xml",
        format: Format::Usebio,
        results: 135,
        not_played: 0,
        pairs: 11,
        named_pairs: 11,
        deals: 0,
        movement: Some(Movement::Howell),
        club: Some("Palmerston North Bridge Club"),
        event: "Monday Summer Bridge Dec 2015",
        date: Some("28/12/2015"),
    },
    Expected {
        file: "scorer-to-usebio/multi-section-multi-movement-pairs.xml",
        format: Format::Scorer,
        results: 858,
        not_played: 0,
        pairs: 66,
        named_pairs: 66,
        deals: 0,
        movement: None,
        club: Some("Palmerston North Bridge Club"),
        event: "PN Christmas Cheer",
        date: Some("5/12/2015"),
    },
    Expected {
        file: "scorer-to-usebio/pairs-with-np-passed.xml",
        format: Format::Scorer,
        results: 338,
        not_played: 0,
        pairs: 26,
        named_pairs: 26,
        deals: 0,
        movement: Some(Movement::Mitchell),
        club: Some("South Wairarapa Bridge Club"),
        event: "Gladstone Pairs",
        date: Some("12/09/2016"),
    },
    Expected {
        file: "scorer-to-usebio/converted/multi-section-multi-movement-pairs.xml",
        format: Format::Usebio,
        results: 858,
        not_played: 0,
        pairs: 66,
        named_pairs: 66,
        deals: 0,
        movement: None,
        club: Some("Palmerston North Bridge Club"),
        event: "PN Christmas Cheer",
        date: Some("5/12/2015"),
    },
    Expected {
        file: "scorer-to-usebio/converted/pairs-with-np-passed.xml",
        format: Format::Usebio,
        results: 338,
        not_played: 0,
        pairs: 26,
        named_pairs: 26,
        deals: 0,
        movement: Some(Movement::Mitchell),
        club: Some("South Wairarapa Bridge Club"),
        event: "Gladstone Pairs",
        date: Some("12/09/2016"),
    },
    Expected {
        file: "rchillyard-Bridge/newtonbridge_20160120_1.pbn",
        format: Format::Pbn,
        results: 240,
        not_played: 0,
        pairs: 20,
        named_pairs: 0,
        deals: 30,
        movement: Some(Movement::Mitchell),
        club: Some("Newton Bridge Club"),
        event: "Wednesday Morning STaC Game",
        date: Some("2016.01.20"),
    },
    Expected {
        file: "rchillyard-Bridge/westwood_20190625_1.pbn",
        format: Format::Pbn,
        results: 379,
        not_played: 5,
        pairs: 32,
        named_pairs: 0,
        deals: 32,
        movement: Some(Movement::Mitchell),
        club: Some("Westwood Duplicate Bridge Club"),
        event: "Silver Points Pairs",
        date: Some("2019.06.25"),
    },
    Expected {
        file: "rchillyard-Bridge/Newton Scoring 20241119.csv",
        format: Format::HillyardCsv,
        results: 47,
        not_played: 7,
        pairs: 18,
        named_pairs: 18,
        deals: 0,
        movement: Some(Movement::Mitchell),
        club: None,
        event: "Newton November 19th 2024",
        date: None,
    },
];

#[test]
fn every_real_file_reads_whole_in_its_native_format() {
    assert_eq!(EXPECTED.len(), common::NATIVE_FILES.len());
    for e in &EXPECTED {
        let imported: Imported = read_native(e.file);
        let f = e.file;
        assert_eq!(imported.format, e.format, "{f}");
        assert_eq!(imported.field.len(), e.results, "{f}: results");
        assert_eq!(
            imported.not_played, e.not_played,
            "{f}: lines without a result"
        );
        assert_eq!(imported.field.pairs().len(), e.pairs, "{f}: pairs");
        assert!(
            imported.absent_pairs.is_empty(),
            "{f}: every listed pair has results"
        );
        let named = imported
            .pairs
            .iter()
            .filter(|p| !p.players.is_empty())
            .count();
        assert_eq!(named, e.named_pairs, "{f}: pairs with names");
        assert_eq!(imported.deals.len(), e.deals, "{f}: deals");
        assert_eq!(imported.event.movement, e.movement, "{f}: movement");
        if e.club.is_some() {
            assert_eq!(imported.event.club_name.as_deref(), e.club, "{f}: club");
        }
        assert_eq!(imported.event.name.as_deref(), Some(e.event), "{f}: event");
        if e.date.is_some() {
            assert_eq!(imported.event.date.as_deref(), e.date, "{f}: date");
        }
        assert_eq!(
            imported.lines.len(),
            imported.field.len(),
            "{f}: a source line for every result"
        );
        // Every field pair's directions follow the movement.
        if let Some(movement) = e.movement {
            let howell = movement == Movement::Howell;
            assert!(
                imported
                    .field
                    .pairs()
                    .iter()
                    .all(|p| p.direction.is_none() == howell),
                "{f}"
            );
        }
        // The file scores, and every board's values add up.
        let scoring = score(
            &imported.field,
            &options(imported.method().unwrap_or_default()),
        )
        .unwrap();
        assert_eq!(scoring.standings().len(), e.pairs, "{f}");
        assert!(boards_add_up(f, &imported, &scoring) > 0, "{f}: no board");
    }
}

/// The standard IMP scale: the least score difference worth each number of IMPs from 1 to 24.
const IMP_STEPS: [i32; 24] = [
    20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500, 1750,
    2000, 2250, 2500, 3000, 3500, 4000,
];

fn imps(difference: i32) -> i64 {
    let won = IMP_STEPS
        .iter()
        .take_while(|&&step| difference.abs() >= step)
        .count() as i64;
    if difference < 0 { -won } else { won }
}

/// Checks that every board's values share it out as its method says, exactly; returns the boards
/// checked.
///
/// Matchpoints: on each line NS + EW is the board's top; an artificial score gives each side its
/// percentage of the top; and the NS (and the EW) matchpoints of a board's c played results add up
/// to c x top / 2, which Neuberg's factoring keeps (sum (x + 1) N / c - 1 = c (N - 1) when the raw
/// values sum to c (c - 1)).
///
/// Butler: each played line is worth IMPs(score - datum) to NS and the opposite to EW (the datum
/// is checked against the file's own in `cobalt_butler_datums_are_ours`), so a board's NS values
/// add up to the IMPs of its scores against the datum.
fn boards_add_up(file: &str, imported: &Imported, scoring: &simpairs_scoring::Scoring) -> usize {
    use simpairs_scoring::{Outcome, Value};
    let field = &imported.field;
    let mut by_board: std::collections::BTreeMap<u16, Vec<usize>> = Default::default();
    for row in 0..field.len() {
        by_board
            .entry(field.result(row).board)
            .or_default()
            .push(row);
    }
    let zero = Value::from_integer(0);
    for (&board, rows) in &by_board {
        let b = scoring.board(board).expect("a scored board");
        let top = scoring.top(b);
        let (mut ns_sum, mut ew_sum, mut expected_ns) = (zero, zero, zero);
        let mut played = 0i64;
        for &row in rows {
            let (ns, ew) = scoring.result_values(row);
            let at = format!("{file} board {board} row {row}");
            match (scoring.options().method, field.result(row).outcome) {
                (
                    Method::Matchpoints,
                    Outcome::Adjusted {
                        ns_percent,
                        ew_percent,
                    },
                ) => {
                    let share = |p: u8| top * Value::new(i64::from(p), 100);
                    assert_eq!((ns, ew), (share(ns_percent), share(ew_percent)), "{at}");
                }
                (Method::Matchpoints, Outcome::Played(_)) => {
                    assert_eq!(ns + ew, top, "{at}: NS + EW is the top");
                    (ns_sum, ew_sum) = (ns_sum + ns, ew_sum + ew);
                    played += 1;
                }
                (Method::Butler, Outcome::Played(score)) => {
                    let datum = b.datum.expect("a Butler board has a datum");
                    let won = Value::from_integer(imps(score - datum));
                    assert_eq!(
                        (ns, ew),
                        (won, -won),
                        "{at}: IMPs against the datum {datum}"
                    );
                    (ns_sum, ew_sum) = (ns_sum + ns, ew_sum + ew);
                    expected_ns += won;
                }
                (method, outcome) => panic!("{at}: no rule for {outcome:?} under {method:?}"),
            }
        }
        if scoring.options().method == Method::Matchpoints {
            expected_ns = Value::from_integer(played) * top / Value::from_integer(2);
            assert_eq!(ew_sum, expected_ns, "{file} board {board}: EW matchpoints");
        } else {
            assert_eq!(ew_sum, -expected_ns, "{file} board {board}: EW IMPs");
        }
        assert_eq!(ns_sum, expected_ns, "{file} board {board}: NS values");
    }
    by_board.len()
}

#[test]
fn names_and_national_ids_are_kept() {
    let imported = read_native("cobalt/mp_pairs_mitchell_03.xml");
    let row = (0..imported.field.len())
        .find(|&r| {
            imported.field.pairs()[imported.field.result(r).ns as usize]
                .label
                .to_string()
                == "1"
        })
        .unwrap();
    let info = &imported.pairs[imported.field.result(row).ns as usize];
    assert_eq!(info.names(), "PLAYER 1 & PLAYER 2");
    assert_eq!(info.players[0].national_id.as_deref(), Some("900001"));
    assert_eq!(info.players[1].club_id.as_deref(), Some("2606"));
    assert_eq!(imported.event.program.as_deref(), Some("Compscore3"));
    assert_eq!(imported.event.event_id.as_deref(), Some("3221"));
    assert_eq!(imported.event.winner_type, Some(2));
    let d = imported.details(0).unwrap();
    assert!(d.contract.is_some() && d.declarer.is_some() && d.tricks.is_some() && d.lead.is_some());

    let scorer = read_native("scorer-to-usebio/pairs.xml");
    let p = scorer
        .pairs
        .iter()
        .find(|p| p.players.iter().any(|x| x.name == "p0_1"))
        .unwrap();
    assert_eq!(
        (p.label.as_str(), p.players[1].national_id.as_deref()),
        ("5", Some("1"))
    );
    let d = scorer.details(0).unwrap();
    assert_eq!(
        (d.contract.as_deref(), d.tricks, d.table, d.round),
        (Some("4S"), Some(12), Some(1), Some(1))
    );
}

#[test]
fn deals_are_kept_and_consistent() {
    for file in [
        "cobalt/mp_pairs_mitchell_03.xml",
        "rchillyard-Bridge/newtonbridge_20160120_1.pbn",
    ] {
        let imported = read_native(file);
        for deal in &imported.deals {
            assert!(
                deal.hands
                    .iter()
                    .all(|h| h.as_ref().is_some_and(|h| h.len() == 13)),
                "{file} board {}",
                deal.board
            );
            assert_eq!(
                deal.vulnerability_or_standard(),
                Vulnerability::of_board(u32::from(deal.board))
            );
        }
    }
    let pbn = read_native("rchillyard-Bridge/newtonbridge_20160120_1.pbn");
    let first = pbn.deal(1).unwrap();
    assert_eq!(first.dealer, Some(Seat::North));
    assert_eq!(
        first.to_pbn(),
        "N:A97653.94.AT5.A8 K.JT862.K987.754 Q42.AKQ73.62.KT3 JT8.5.QJ43.QJ962"
    );
    let usebio = read_native("cobalt/mp_pairs_mitchell_03.xml");
    let north = usebio.deal(1).unwrap().hands[0].as_ref().unwrap();
    assert_eq!(north.to_pbn(), "9742.52.AJT8743.");
}

/// Counts the rows of every `[ScoreTable]` of a PBN file by hand: every one must become a result or a
/// line marked not played.
fn score_table_rows(text: &str) -> usize {
    let mut rows = 0;
    let mut in_table = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_table = t.starts_with("[ScoreTable ");
        } else if in_table && !t.is_empty() {
            rows += 1;
        }
    }
    rows
}

#[test]
fn pbn_files_read_every_traveller_line_and_score() {
    for file in [
        "rchillyard-Bridge/newtonbridge_20160120_1.pbn",
        "rchillyard-Bridge/westwood_20190625_1.pbn",
    ] {
        let text = std::fs::read_to_string(common::native(file)).unwrap();
        let imported = read_native(file);
        assert_eq!(
            imported.field.len() + imported.not_played,
            score_table_rows(&text),
            "{file}"
        );
        assert_eq!(
            imported.details.len(),
            imported.field.len(),
            "{file}: contract of every line kept"
        );
        // ACBL scores on the single scale; percentages are the same on both.
        let single = score(
            &imported.field,
            &simpairs_scoring::Options {
                scale: Scale::Single,
                ..options(Method::Matchpoints)
            },
        )
        .unwrap();
        let double = score(&imported.field, &options(Method::Matchpoints)).unwrap();
        for (a, b) in single.standings().iter().zip(double.standings()) {
            assert_eq!(a.percent_hundredths, b.percent_hundredths, "{file}");
            assert_eq!((a.rank, a.tied), (b.rank, b.tied), "{file}");
        }
        // Each board's matchpoints share out the board: NS + EW = top on every line.
        for row in 0..imported.field.len() {
            let (ns, ew) = double.result_values(row);
            let board = double.board(imported.field.result(row).board).unwrap();
            assert_eq!(ns + ew, double.top(board), "{file} row {row}");
        }
    }
}

#[test]
fn hillyard_csv_reads_with_its_names() {
    let imported = read_native("rchillyard-Bridge/Newton Scoring 20241119.csv");
    assert_eq!(imported.event.sections[0].name, "A");
    let names: Vec<String> = imported.pairs.iter().map(|p| p.names()).collect();
    assert!(names.contains(&"Julie Foster & Maxine Goldberg".to_string()));
    let scoring = score(&imported.field, &options(Method::Matchpoints)).unwrap();
    assert!(
        scoring
            .standings()
            .iter()
            .all(|s| s.percent_hundredths.is_some())
    );
}

/// A line that is refused (a score no contract can make, a declarer that is no seat) is reported
/// alone: it changes nothing in how the lines after it are read. Each line that starts a board of
/// the converted session (one line of XML: every problem is on line 1) is spoiled in turn, and the
/// file read as USEBIO must report exactly that line, and nothing else.
#[test]
fn a_refused_line_never_changes_how_the_next_is_read() {
    let file = "scorer-to-usebio/converted/pairs.xml";
    let text = std::fs::read_to_string(common::native(file)).unwrap();
    let firsts: Vec<usize> = text
        .match_indices("</BOARD_NUMBER><TRAVELLER_LINE>")
        .map(|(at, _)| at)
        .collect();
    assert_eq!(firsts.len(), 26);
    for (k, &board_at) in firsts.iter().enumerate() {
        for (element, bad) in [("SCORE", "425"), ("PLAYED_BY", "Q")] {
            let open = format!("<{element}>");
            let start = board_at + text[board_at..].find(&open).unwrap() + open.len();
            let end = start + text[start..].find('<').unwrap();
            let spoiled = format!("{}{bad}{}", &text[..start], &text[end..]);
            let err = simpairs_formats::read(file, spoiled.as_bytes(), None)
                .expect_err("a spoiled line refuses the file");
            let problems = err.problems();
            assert_eq!(problems.len(), 1, "board {}: {err}", k + 1);
            let field = problems[0].at.field.as_deref().unwrap_or("");
            assert!(
                field.starts_with(&format!("EVENT/BOARD[{}]/TRAVELLER_LINE[1]/", k + 1)),
                "board {}: {err}",
                k + 1
            );
        }
    }
}

/// The tables a file marks not played, which a correction withdraws: the phantom's table of each
/// round of the three-quarter Howell, numbered as the results are, and none of them a result.
#[test]
fn the_phantoms_tables_are_the_lines_not_played() {
    let imported = read_native("scorer-to-usebio/three_quarter_howell_with_phantom.xml");
    let tables = &imported.not_played_tables;
    assert_eq!(tables.len(), imported.not_played, "{tables:#?}");
    let field = &imported.field;
    let label = |p: u32| field.pairs()[p as usize].label.to_string();
    let results: std::collections::HashSet<(u16, String, String)> = (0..field.len())
        .map(|row| {
            let r = field.result(row);
            (r.board, label(r.ns), label(r.ew))
        })
        .collect();
    let boards: std::collections::BTreeSet<u16> = tables.iter().map(|t| t.board).collect();
    assert_eq!(boards.len(), 27, "one table a board: {tables:#?}");
    for t in tables {
        assert!(
            t.ns_pair.parse::<u32>().is_ok() && t.ew_pair.parse::<u32>().is_ok(),
            "{t:?}"
        );
        let table = (t.board, t.ns_pair.clone(), t.ew_pair.clone());
        assert!(!results.contains(&table), "{t:?} is a result too");
    }
}

#[test]
fn a_csv_line_not_played_names_its_table_as_the_results_do() {
    let csv = "board,section,ns_pair,ew_pair,contract,declarer,tricks\n\
               1,A,1,2,4S,N,10\n1,A, 03 ,04,NP,,\n2,A,1,4,np,,\n2,A,,3,NP,,\n";
    let imported = simpairs_formats::read("np.csv", csv.as_bytes(), None).unwrap();
    assert_eq!(imported.not_played, 3);
    let tables: Vec<(u16, &str, &str, &str)> = (imported.not_played_tables.iter())
        .map(|t| {
            (
                t.board,
                t.section.as_str(),
                t.ns_pair.as_str(),
                t.ew_pair.as_str(),
            )
        })
        .collect();
    // A line without both pairs names no table.
    assert_eq!(tables, [(1, "A", "03", "04"), (2, "A", "1", "4")]);
}
