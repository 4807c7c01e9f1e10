//! The conventions of club programs on the seeds' worked examples: each preset's choices give the
//! numbers its program prints, where the source documents (or the program's own documentation) show
//! them. Golden numbers come from the seeds, never from simpairs' own output.

use crate::common;

use common::*;
use simpairs_scoring::value::format_value;
use simpairs_scoring::{Conventions, Method, Options, Value, score};

fn with(conventions: &str) -> Options {
    Options {
        conventions: conventions.parse().unwrap(),
        ..Options::default()
    }
}

fn whole_lines(field: &simpairs_scoring::Field, options: &Options) -> (Vec<i64>, Vec<i64>) {
    let scoring = score(field, options).unwrap();
    (0..field.len())
        .map(|r| {
            let (a, b) = scoring.line_values(r);
            assert!(a.is_integer() && b.is_integer(), "{a} {b}");
            (a.to_integer(), b.to_integer())
        })
        .unzip()
}

/// Seed 002 slides 4-8: board 4 of the 9-table Mitchell.
fn seed_002_board_4() -> Vec<Line> {
    let ew = [9, 2, 4, 6, 8, 1, 3, 5, 7];
    let scores = [-130, -660, -120, 200, -600, 100, 100, 140, -150];
    (0..9)
        .map(|t| played(t as u32 + 1, ew[t], scores[t]))
        .collect()
}

/// Seed 002 slides 10-11, the manual method for an Avg/Avg: "take 1 from each of your available
/// scores" (16 14 ... 2 become 15 13 ... 1), so the average "costs" each other result one
/// matchpoint: each comparable result counts the artificial score as a tie. ScoreBridge's default
/// ("simple") scoring scores as a manual scorer does: `scorebridge` gives slide 11's numbers.
#[test]
fn scorebridge_scores_an_average_as_the_manual_method_of_seed_002_slide_11() {
    let mut lines = seed_002_board_4();
    lines[5] = adjusted(6, 1, 50, 50);
    let field = mitchell(&[(4, lines)]);
    let (ns, ew) = whole_lines(&field, &with("scorebridge"));
    assert_eq!(ns, [7, 1, 9, 15, 3, 8, 11, 13, 5]);
    assert_eq!(ew, [9, 15, 7, 1, 13, 8, 5, 3, 11]);
    assert_eq!(ns.iter().sum::<i64>(), 72, "check total");
    // The seeds' own conventions give Neuberg's slide 12 instead (15.88, ...).
    let scoring = score(&field, &Options::default()).unwrap();
    assert_eq!(format_value(scoring.line_values(3).0), "15.88");
}

/// The same board played 8 times in a 9-table event, one table having missed it: each missing
/// result counts as a tie, as in slide 10 (a missing result takes the average's place).
#[test]
fn scorebridge_counts_a_missing_result_as_a_tie() {
    let full: Vec<Line> = (1..=9).map(|t| played(t, t, 10 * t as i32)).collect();
    let mut short = seed_002_board_4();
    short.remove(5);
    let field = mitchell(&[(1, full), (4, short)]);
    let scoring = score(&field, &with("scorebridge")).unwrap();
    let ns: Vec<Value> = (9..17).map(|r| scoring.line_values(r).0).collect();
    let expected: Vec<Value> = [7, 1, 9, 15, 3, 11, 13, 5]
        .iter()
        .map(|&v| Value::from_integer(v))
        .collect();
    assert_eq!(ns, expected);
    // The seeds factor the board with Neuberg instead: (X + 1) x 9/8 - 1 (slides 23-25).
    let seeds = score(&field, &Options::default()).unwrap();
    assert_eq!(seeds.line_values(12).0, Value::new(127, 8)); // (14 + 1) * 9/8 - 1
}

/// `artificial=none` (JFR Pary): the results beside an average are compared among themselves and not
/// factored: the 8 comparable results of slide 10 get 14 12 ... 0, the average 8 (50% of 16).
#[test]
fn jfr_compares_the_results_beside_an_average_among_themselves() {
    let mut lines = seed_002_board_4();
    lines[5] = adjusted(6, 1, 50, 50);
    let field = mitchell(&[(4, lines)]);
    let (ns, _) = whole_lines(&field, &with("jfr"));
    assert_eq!(ns, [6, 0, 8, 14, 2, 8, 10, 12, 4]);
    // With ratio factoring the seeds still use Neuberg beside an artificial score; `artificial=ratio`
    // multiplies by 9/8 instead.
    let ratio = Options {
        factoring: simpairs_scoring::Factoring::Ratio,
        ..with("seeds,artificial=ratio")
    };
    let scoring = score(&field, &ratio).unwrap();
    assert_eq!(scoring.line_values(3).0, Value::new(14 * 9, 8));
}

/// Seed 004's pair that played fewer boards, as Compscore prints it: NS 1 played 2 of 3 boards for 12
/// matchpoints, printed scaled as 12 x 3/2 = 18 (the seed's "multiplied by 33/30"); NS 2's board 3,
/// played 3 times of 4, shows its raw 4 on the traveller while its total counts the factored 17/3.
#[test]
fn compscore_scales_totals_and_prints_short_boards_raw() {
    let b1 = vec![
        played(1, 1, 600),
        played(2, 2, 100),
        played(3, 3, 0),
        played(4, 4, -100),
    ];
    let b2 = vec![
        played(1, 2, 600),
        played(2, 3, 100),
        played(3, 4, 0),
        played(4, 1, -100),
    ];
    let b3 = vec![played(2, 4, 100), played(3, 1, 0), played(4, 2, -100)];
    let field = mitchell(&[(1, b1), (2, b2), (3, b3)]);
    let seeds = score(&field, &Options::default()).unwrap();
    let compscore = score(&field, &with("compscore")).unwrap();
    // Board 3's first line: NS 2 beat both others, 4 of a top of 4.
    assert_eq!(seeds.line_values(8).0, Value::new(17, 3));
    assert_eq!(compscore.line_values(8).0, Value::from_integer(4));
    assert_eq!(
        compscore.shown_top(&compscore.boards()[2]),
        Value::from_integer(4)
    );
    let totals = compscore.shown_total_hundredths();
    let id = |label: u32| {
        field
            .pairs()
            .iter()
            .position(|p| {
                p.label == simpairs_scoring::PairLabel::Number(label)
                    && p.direction == Some(simpairs_scoring::Direction::NS)
            })
            .unwrap()
    };
    assert_eq!(totals[id(1)], 1800, "12 x 3/2");
    assert_eq!(totals[id(2)], 1367, "13 2/3 on three boards is not scaled");
    // Percentages and places are the seeds' (Compscore's percentages agree with simpairs').
    assert_eq!(
        compscore.standings()[id(1)].percent_hundredths,
        seeds.standings()[id(1)].percent_hundredths
    );
    assert_eq!(compscore.standings()[id(1)].rank, 1);
    // The seeds print the unscaled total.
    assert_eq!(seeds.shown_total_hundredths()[id(1)], 1200);
}

/// Seed 002 slide 12's Neuberg values (15.875, 0.125, ...) printed by Compscore to one decimal with
/// halves to even (15.9, 0.1), by NZ Scorer truncated (15.8, 0.1).
#[test]
fn line_roundings_of_compscore_and_nz_scorer() {
    let mut lines = seed_002_board_4();
    lines[5] = adjusted(6, 1, 50, 50);
    let field = mitchell(&[(4, lines)]);
    let shown = |c: &str, row: usize| {
        let scoring = score(&field, &with(c)).unwrap();
        let (ns, ew) = scoring.line_values(row);
        (ns, ew)
    };
    let v = |n: i64, d: i64| Value::new(n, d);
    // NS 4: 15.875 / 0.125; NS 5: 2.375 / 13.625.
    assert_eq!(shown("compscore", 3), (v(159, 10), v(1, 10)));
    assert_eq!(shown("compscore", 4), (v(24, 10), v(136, 10)));
    assert_eq!(shown("nz-scorer", 3), (v(158, 10), v(1, 10)));
    assert_eq!(shown("nz-scorer", 4), (v(23, 10), v(136, 10)));
    assert_eq!(shown("seeds", 3), (v(127, 8), v(1, 8)));
}

/// Seed 003's board 10 (620, -100, 630, 620, 1100) as JFR Pary scores IMP pairs: the median, 620, is
/// also the trimmed mean here, so every IMP is the seed's.
#[test]
fn jfr_butler_takes_the_median_as_datum() {
    let scores = [620, -100, 630, 620, 1100];
    let lines: Vec<Line> = (0..5)
        .map(|i| played(i as u32 + 1, i as u32 + 6, scores[i]))
        .collect();
    let field = mitchell(&[(10, lines)]);
    let options = Options {
        method: Method::Butler,
        ..with("jfr")
    };
    let scoring = score(&field, &options).unwrap();
    assert_eq!(scoring.boards()[0].datum, Some(620));
    let ns: Vec<Value> = (0..5).map(|r| scoring.result_values(r).0).collect();
    let expected: Vec<Value> = [0, -12, 0, 0, 10]
        .iter()
        .map(|&v| Value::from_integer(v))
        .collect();
    assert_eq!(ns, expected);
    // A board where the median and the trimmed mean differ: 3 results -100, 140, 620. The seeds
    // drop one at each end (datum 140); `trim-from=4` trims nothing (datum 220); the median is 140.
    let lines = vec![played(1, 1, -100), played(2, 2, 140), played(3, 3, 620)];
    let field = mitchell(&[(1, lines)]);
    let datum = |c: &str| {
        let options = Options {
            method: Method::Butler,
            ..with(c)
        };
        score(&field, &options).unwrap().boards()[0].datum
    };
    assert_eq!(datum("seeds"), Some(140));
    assert_eq!(datum("seeds,trim-from=4"), Some(220));
    assert_eq!(datum("jfr"), Some(140));
}

/// A director's IMP award (JFR Pary's `0/1.2`) stands in IMP scoring; matchpoints keep the
/// percentages of the adjusted score.
#[test]
fn awarded_imps_stand_in_imp_scoring() {
    let lines = vec![
        played(1, 1, 620),
        played(2, 2, 170),
        adjusted(3, 3, 50, 50),
        played(4, 4, -100),
    ];
    let mut field = mitchell(&[(1, lines)]);
    field
        .award_imps(2, Value::from_integer(0), Value::new(12, 10))
        .unwrap();
    assert_eq!(
        field.imp_award(2),
        Some((Value::from_integer(0), Value::new(6, 5)))
    );
    assert!(
        field
            .award_imps(0, Value::from_integer(1), Value::from_integer(1))
            .is_err()
    );
    let butler = Options {
        method: Method::Butler,
        ..Options::default()
    };
    let scoring = score(&field, &butler).unwrap();
    assert_eq!(
        scoring.result_values(2),
        (Value::from_integer(0), Value::new(6, 5))
    );
    let mp = score(&field, &Options::default()).unwrap();
    assert_eq!(
        mp.result_values(2),
        (Value::from_integer(3), Value::from_integer(3))
    );
    // A club's own field (a subset) keeps the award.
    let subset = field.subset(&[0, 1, 2, 3]);
    assert_eq!(subset.imp_award(2), field.imp_award(2));
}

#[test]
fn the_default_is_the_seeds() {
    assert_eq!(Options::default().conventions, Conventions::SEEDS);
    assert_eq!(Options::default().conventions.to_string(), "seeds");
}
