//! Golden tests: every worked number of the source documents in `../shared/seeds/`, named after the seed
//! file and the slide or example it comes from.

use crate::common;

use common::*;
use simpairs_scoring::{Factoring, FouledMethod, Method, Options, Scale, Value, score};

fn values(field: &simpairs_scoring::Field, options: &Options) -> Vec<(Value, Value)> {
    let scoring = score(field, options).unwrap();
    (0..field.len()).map(|r| scoring.result_values(r)).collect()
}

fn whole(values: &[(Value, Value)]) -> (Vec<i64>, Vec<i64>) {
    values
        .iter()
        .map(|(a, b)| {
            assert!(a.is_integer() && b.is_integer(), "{a} {b}");
            (a.to_integer(), b.to_integer())
        })
        .unzip()
}

/// Seed 002 slides 4-8: the 9-table Mitchell board 4 (all vulnerable), NS pairs 1-9 against EW 9,2,4,6,8,1,3,5,7.
fn seed_002_board_4() -> Vec<Line> {
    let ew = [9, 2, 4, 6, 8, 1, 3, 5, 7];
    let scores = [-130, -660, -120, 200, -600, 100, 100, 140, -150];
    (0..9)
        .map(|t| played(t as u32 + 1, ew[t], scores[t]))
        .collect()
}

#[test]
fn seed_002_slide_8_plain_board_and_check_totals() {
    let field = mitchell(&[(4, seed_002_board_4())]);
    let scoring = score(&field, &Options::default()).unwrap();
    assert_eq!(
        *scoring.boards()[0].top.numer(),
        16,
        "slide 4: a board top is 16"
    );
    let (ns, ew) = whole(&values(&field, &Options::default()));
    assert_eq!(ns, [6, 0, 8, 16, 2, 11, 11, 14, 4]);
    assert_eq!(ew, [10, 16, 8, 0, 14, 5, 5, 2, 12]);
    assert_eq!(ns.iter().sum::<i64>(), 72, "check total");
    assert_eq!(ew.iter().sum::<i64>(), 72, "check total");
}

/// Slide 12's Neuberg figures (Bridgemate, to two decimals) of board 4 with table 6 given Avg/Avg.
const SLIDE_12: [(&str, &str); 9] = [
    ("6.88", "9.13"),
    ("0.13", "15.88"),
    ("9.13", "6.88"),
    ("15.88", "0.13"),
    ("2.38", "13.63"),
    ("8.00", "8.00"),
    ("11.38", "4.63"),
    ("13.63", "2.38"),
    ("4.63", "11.38"),
];

/// Slides 10-11 and 14's manual figures of board 4 with table 6 given an artificial score: every
/// other result counts it as a tie (16 14 ... 2 become 15 13 ... 1).
const SLIDE_11_NS: [i64; 9] = [7, 1, 9, 15, 3, 8, 11, 13, 5];
const SLIDE_11_EW: [i64; 9] = [9, 15, 7, 1, 13, 8, 5, 3, 11];

#[test]
fn seed_002_slide_12_avg_avg_with_neuberg() {
    let mut lines = seed_002_board_4();
    lines[5] = adjusted(6, 1, 50, 50);
    let field = mitchell(&[(4, lines)]);
    let got = printed(&values(&field, &Options::default()));
    let expected: Vec<(String, String)> = SLIDE_12
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn seed_002_slides_13_14_sixty_forty() {
    let mut lines = seed_002_board_4();
    lines[5] = adjusted(6, 1, 60, 40);
    let field = mitchell(&[(4, lines)]);
    let got = values(&field, &Options::default());
    // "A Top is 16 so 10% is 1.6 ... add or subtract 1.6": 9.6 to NS 6 and 6.4 to EW 1.
    assert_eq!(got[5], (v(9.6), v(6.4)));
    // "Allocate matchpoints as though 50% 50% had been assigned": the other tables get what slide 12
    // shows for Avg/Avg (Neuberg, the seeds' own conventions).
    let printed = printed(&got);
    for t in [0, 1, 2, 3, 4, 6, 7, 8] {
        assert_eq!(
            (printed[t].0.as_str(), printed[t].1.as_str()),
            SLIDE_12[t],
            "table {}",
            t + 1
        );
    }
    // Slide 14 itself, scored by hand: the other tables get slide 11's figures.
    let manual = Options {
        conventions: "scorebridge".parse().unwrap(),
        ..Options::default()
    };
    let scoring = score(&field, &manual).unwrap();
    let lines: Vec<(Value, Value)> = (0..field.len()).map(|r| scoring.line_values(r)).collect();
    assert_eq!(lines[5], (v(9.6), v(6.4)), "slide 14: 8 + 1.6 and 8 - 1.6");
    for t in [0, 1, 2, 3, 4, 6, 7, 8] {
        assert_eq!(
            lines[t],
            (
                Value::from_integer(SLIDE_11_NS[t]),
                Value::from_integer(SLIDE_11_EW[t])
            ),
            "slide 14 table {}",
            t + 1
        );
    }
    // 60/60 and 40/40 too.
    let mut both = seed_002_board_4();
    both[5] = adjusted(6, 1, 60, 60);
    assert_eq!(
        values(&mitchell(&[(4, both)]), &Options::default())[5],
        (v(9.6), v(9.6))
    );
    let mut both = seed_002_board_4();
    both[5] = adjusted(6, 1, 40, 40);
    assert_eq!(
        values(&mitchell(&[(4, both)]), &Options::default())[5],
        (v(6.4), v(6.4))
    );
}

/// Slides 15-18: tables 4, 5, 6 and 7 played a fouled board (3NT S 7 = -200, 3NT N 9 = +600, 6C N 11 = -100,
/// 5C S 10 = -100); the other five played the board as dealt.
fn seed_002_fouled_board() -> Vec<Line> {
    let mut lines = seed_002_board_4();
    for (t, score) in [(3, -200), (4, 600), (5, -100), (6, -100)] {
        lines[t] = Line {
            group: Some("F"),
            ..played(lines[t].ns, lines[t].ew, score)
        };
    }
    lines
}

#[test]
fn seed_002_slide_18_fouled_groups_manual_add_one() {
    let field = mitchell(&[(4, seed_002_fouled_board())]);
    let options = Options {
        fouled: FouledMethod::AddOne,
        ..Options::default()
    };
    let (ns, ew) = whole(&values(&field, &options));
    assert_eq!(ns, [8, 4, 10, 5, 11, 8, 8, 12, 6]);
    assert_eq!(ew, [8, 12, 6, 11, 5, 8, 8, 4, 10]);
    assert_eq!(ns.iter().sum::<i64>(), 72);
}

#[test]
fn seed_002_slides_16_25_fouled_groups_neuberg() {
    let field = mitchell(&[(4, seed_002_fouled_board())]);
    let got = values(&field, &Options::default());
    // Slide 16's matchpoints within each group (5 scores: 8 6 4 2 0; 4 scores: 6 4 2 0) and slide 25's
    // formula M = N/S (X + 1) - 1 with N = 9.
    let within = [4, 0, 6, 0, 6, 3, 3, 8, 2];
    let size = [5, 5, 5, 4, 4, 4, 4, 5, 5];
    for t in 0..9 {
        let expected = Value::new(9 * (within[t] + 1), size[t]) - 1;
        assert_eq!(got[t].0, expected, "table {} NS", t + 1);
    }
    let ns_total: Value = got.iter().map(|r| r.0).sum();
    let ew_total: Value = got.iter().map(|r| r.1).sum();
    assert_eq!(
        (ns_total, ew_total),
        (72.into(), 72.into()),
        "slide 15: all boards worth 72"
    );
}

#[test]
fn seed_002_slide_17_fouled_groups_under_four_get_set_percentages() {
    // Three tables fouled: 70/60/50 by rank; two: 65/55; one: 60 to both sides.
    let top = 16;
    let pct = |p: i64| Value::new(p * top, 100);
    let mut three = seed_002_board_4();
    for (t, score) in [(3, -200), (4, 600), (5, -100)] {
        three[t] = Line {
            group: Some("F"),
            ..played(three[t].ns, three[t].ew, score)
        };
    }
    let got = values(&mitchell(&[(4, three)]), &Options::default());
    assert_eq!(
        got[4],
        (pct(70), pct(50)),
        "+600: best for NS, worst for EW"
    );
    assert_eq!(got[5], (pct(60), pct(60)));
    assert_eq!(got[3], (pct(50), pct(70)));

    let mut two = seed_002_board_4();
    for (t, score) in [(3, -200), (4, 600)] {
        two[t] = Line {
            group: Some("F"),
            ..played(two[t].ns, two[t].ew, score)
        };
    }
    let got = values(&mitchell(&[(4, two)]), &Options::default());
    assert_eq!(got[4], (pct(65), pct(55)));
    assert_eq!(got[3], (pct(55), pct(65)));

    let mut one = seed_002_board_4();
    one[3] = Line {
        group: Some("F"),
        ..played(4, 6, -200)
    };
    let got = values(&mitchell(&[(4, one)]), &Options::default());
    assert_eq!(
        got[3],
        (pct(60), pct(60)),
        "one fouled score: 60% to NS and EW"
    );
}

#[test]
fn seed_002_slide_20_arrow_switch() {
    let mut lines = seed_002_board_4();
    lines[5].arrow = true;
    let (ns, ew) = whole(&values(&mitchell(&[(4, lines)]), &Options::default()));
    assert_eq!(ns, [6, 0, 8, 16, 2, 5, 11, 14, 4]);
    assert_eq!(ew, [10, 16, 8, 0, 14, 11, 5, 2, 12]);
}

#[test]
fn seed_002_slide_22_split_score() {
    let mut lines = seed_002_board_4();
    lines[5] = split(6, 1, -150, 50);
    let (ns, ew) = whole(&values(&mitchell(&[(4, lines)]), &Options::default()));
    assert_eq!(ns, [8, 0, 10, 16, 2, 5, 12, 14, 5]);
    assert_eq!(ew, [10, 16, 8, 0, 14, 6, 4, 2, 12]);
    assert_eq!(ns.iter().sum::<i64>(), 72);
    assert_eq!(ew.iter().sum::<i64>(), 72);
}

#[test]
fn seed_002_slides_24_25_neuberg_six_results_one_average() {
    // Six results, one an average: the five others score 9.8, 7.4, 5, 2.6, 0.2 and the average 5.
    let lines = vec![
        played(1, 1, 620),
        played(2, 2, 600),
        played(3, 3, 170),
        played(4, 4, -100),
        played(5, 5, -200),
        adjusted(6, 6, 50, 50),
    ];
    let got = values(&mitchell(&[(4, lines)]), &Options::default());
    let ns: Vec<Value> = got.iter().map(|r| r.0).collect();
    assert_eq!(ns, [v(9.8), v(7.4), v(5.0), v(2.6), v(0.2), v(5.0)]);
    assert_eq!(ns.iter().sum::<Value>(), 30.into(), "total still 30");
}

#[test]
fn seed_004_eleven_scores() {
    // Board 2 (NS vulnerable): +1430, +690, +680 x3, +660 x2, +650, -100 x2, -200.
    let scores = [1430, 690, 680, 680, 680, 660, 660, 650, -100, -100, -200];
    let lines: Vec<Line> = scores
        .iter()
        .enumerate()
        .map(|(i, &s)| played(i as u32 + 1, i as u32 + 1, s))
        .collect();
    let (ns, _) = whole(&values(&mitchell(&[(2, lines)]), &Options::default()));
    assert_eq!(ns, [20, 18, 14, 14, 14, 9, 9, 6, 3, 3, 0]);
}

fn frequency_board(counts: [usize; 7]) -> Vec<i64> {
    let scores = [1430, 690, 680, 660, 650, -100, -200];
    let mut lines = Vec::new();
    for (s, c) in scores.iter().zip(counts) {
        for _ in 0..c {
            let n = lines.len() as u32 + 1;
            lines.push(played(n, n, *s));
        }
    }
    let field = mitchell(&[(2, lines)]);
    let scoring = score(&field, &Options::default()).unwrap();
    assert_eq!(
        *scoring.boards()[0].top.numer(),
        200,
        "101 scores: a top of 200"
    );
    let mut first_of_each = Vec::new();
    let mut row = 0;
    for c in counts {
        first_of_each.push(scoring.result_values(row).0.to_integer());
        row += c;
    }
    first_of_each
}

#[test]
fn seed_004_one_hundred_and_one_scores_spread_evenly() {
    assert_eq!(
        frequency_board([1, 21, 23, 22, 21, 12, 1]),
        [200, 178, 134, 89, 46, 13, 0]
    );
}

#[test]
fn seed_004_one_hundred_and_one_scores_bunched() {
    assert_eq!(
        frequency_board([1, 1, 93, 2, 1, 2, 1]),
        [200, 198, 104, 9, 6, 3, 0]
    );
}

#[test]
fn seed_004_ratio_factoring_board_played_fewer_times() {
    // "Most boards were played 28 times, some were played 24 times. The scores for the boards that were
    // played 24 times must be multiplied by (28 / 24)."
    let board = |n: u32, first: u32| -> Vec<Line> {
        (0..n)
            .map(|i| played(first + i, first + i, -500 + 10 * i as i32))
            .collect()
    };
    let field = mitchell(&[(1, board(28, 1)), (2, board(24, 1))]);
    let options = Options {
        factoring: Factoring::Ratio,
        ..Options::default()
    };
    let scoring = score(&field, &options).unwrap();
    for row in 28..52 {
        let x = 2 * (row as i64 - 28);
        assert_eq!(
            scoring.result_values(row).0,
            Value::new(x * 28, 24),
            "row {row}"
        );
    }
    for row in 0..28 {
        assert_eq!(
            scoring.result_values(row).0,
            Value::from_integer(2 * row as i64)
        );
    }
}

#[test]
fn seed_004_pairs_playing_fewer_boards_rank_by_factored_total() {
    // Four tables; NS 1 sits out board 3. NS 1 scores 6 + 6 = 12 on two boards; NS 2 scores 4 + 4 and, on
    // board 3 played three times, (4 + 1) x 4/3 - 1 = 17/3: 13 2/3 in all. Factored to three boards
    // ("multiplied by 33/30" in the seed), NS 1's 18 ranks above NS 2's 13 2/3.
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
    let scoring = score(&field, &Options::default()).unwrap();
    let st = scoring.standings();
    let ns = |label: u32| {
        field
            .pairs()
            .iter()
            .position(|p| {
                p.label == simpairs_scoring::PairLabel::Number(label)
                    && p.direction == Some(simpairs_scoring::Direction::NS)
            })
            .unwrap()
    };
    let (p1, p2) = (&st[ns(1)], &st[ns(2)]);
    assert_eq!((p1.boards, p1.total), (2, 12.0));
    assert_eq!((p2.boards, p2.total_hundredths), (3, 1367));
    assert!(p1.total < p2.total);
    assert_eq!(
        (p1.rank, p2.rank),
        (1, 2),
        "pair 1's factored total is higher: {p1:?} {p2:?}"
    );
    // Percentages already account for it: 12 of 12 and 13 2/3 of 18.
    assert_eq!(p1.percent_hundredths, Some(10000));
    assert_eq!(p2.percent_hundredths, Some(7593));
}

#[test]
fn seed_003_single_scale_and_butler() {
    // Board 10 on five tables: NS 1..5 against EW 6..10.
    let scores = [620, -100, 630, 620, 1100];
    let lines: Vec<Line> = scores
        .iter()
        .enumerate()
        .map(|(i, &s)| played(i as u32 + 1, i as u32 + 6, s))
        .collect();
    let field = mitchell(&[(10, lines)]);
    let single = Options {
        scale: Scale::Single,
        ..Options::default()
    };
    let got = values(&field, &single);
    let ns: Vec<Value> = got.iter().map(|r| r.0).collect();
    let ew: Vec<Value> = got.iter().map(|r| r.1).collect();
    assert_eq!(ns, [v(1.5), v(0.0), v(3.0), v(1.5), v(4.0)]);
    assert_eq!(ew, [v(2.5), v(4.0), v(1.0), v(2.5), v(0.0)]);
    // The board's frequency table and its top show the same single-scale figures (each score
    // once, in score order: -100, 620 twice, 630, 1100); on the double scale, twice them.
    for (options, unit) in [(single, v(1.0)), (Options::default(), v(2.0))] {
        let scoring = score(&field, &options).unwrap();
        let board = &scoring.boards()[0];
        let table: Vec<(i32, u32, Value, Value)> = scoring
            .board_table(board)
            .iter()
            .map(|l| (l.ns_score, l.count, l.ns_value, l.ew_value))
            .collect();
        let expected = [
            (-100, 1, v(0.0), v(4.0)),
            (620, 2, v(1.5), v(2.5)),
            (630, 1, v(3.0), v(1.0)),
            (1100, 1, v(4.0), v(0.0)),
        ];
        let expected: Vec<_> = expected
            .iter()
            .map(|&(s, c, ns, ew)| (s, c, ns * unit, ew * unit))
            .collect();
        assert_eq!(table, expected);
        assert_eq!(scoring.top(board), v(4.0) * unit);
    }
    let butler = Options {
        method: Method::Butler,
        ..Options::default()
    };
    let scoring = score(&field, &butler).unwrap();
    assert_eq!(scoring.boards()[0].datum, Some(620));
    let (ns, ew) = whole(&values(&field, &butler));
    assert_eq!(ns, [0, -12, 0, 0, 10]);
    assert_eq!(ew, [0, 12, 0, 0, -10]);
}

#[test]
fn seed_001_single_scale_boards_one_and_two() {
    // Board 1 (4H not vulnerable): 480, 450, 420, -50 -> 3, 2, 1, 0; board 2: 650, 620, 620, -1100 -> 3, 1.5, 1.5, 0.
    let b1: Vec<Line> = [480, 450, 420, -50]
        .iter()
        .enumerate()
        .map(|(i, &s)| played(i as u32 + 1, i as u32 + 1, s))
        .collect();
    let b2: Vec<Line> = [650, 620, 620, -1100]
        .iter()
        .enumerate()
        .map(|(i, &s)| played(i as u32 + 1, i as u32 + 1, s))
        .collect();
    let field = mitchell(&[(1, b1), (2, b2)]);
    let single = Options {
        scale: Scale::Single,
        ..Options::default()
    };
    let ns: Vec<Value> = values(&field, &single).iter().map(|r| r.0).collect();
    assert_eq!(
        ns,
        [
            v(3.0),
            v(2.0),
            v(1.0),
            v(0.0),
            v(3.0),
            v(1.5),
            v(1.5),
            v(0.0)
        ]
    );
    assert_eq!(ns[..4].iter().sum::<Value>(), 6.into(), "[4 x 3] / 2 = 6.0");
    assert_eq!(ns[4..].iter().sum::<Value>(), 6.into());
}

#[test]
fn seed_000_seven_results_ties_and_percentages() {
    let run = |scores: [i32; 7]| -> Vec<i64> {
        let lines: Vec<Line> = scores
            .iter()
            .enumerate()
            .map(|(i, &s)| played(i as u32 + 1, i as u32 + 1, s))
            .collect();
        whole(&values(&mitchell(&[(1, lines)]), &Options::default())).0
    };
    // No ties: 12, 10, ..., 0.
    assert_eq!(
        run([600, 500, 400, 300, 200, 100, 0]),
        [12, 10, 8, 6, 4, 2, 0]
    );
    // Two equal top: 11 each; third still 8.
    assert_eq!(
        run([600, 600, 400, 300, 200, 100, 0]),
        [11, 11, 8, 6, 4, 2, 0]
    );
    // Three equal second: (10 + 8 + 6) / 3 = 8; fifth still 4.
    assert_eq!(
        run([600, 400, 400, 400, 200, 100, 0]),
        [12, 8, 8, 8, 4, 2, 0]
    );
    // A flat board: everyone 6.
    assert_eq!(run([420; 7]), [6; 7]);
    // Board percentages: 11/12 = 92%, 8/12 = 67%, 4/12 = 33% (rounded to whole percent in the seed).
    let pct = |mp: i64| (mp as f64 * 100.0 / 12.0).round();
    assert_eq!((pct(11), pct(8), pct(4)), (92.0, 67.0, 33.0));
}

#[test]
fn seed_000_pair_percentage_43_of_96() {
    // 24 boards each played 3 times (top 4): a pair scoring 43 of 96 has 44.79%.
    let mut boards = Vec::new();
    for b in 1..=24u16 {
        // From EW's side: a top on 9 boards, 2 on 3, a tie with one other (1) on board 13, 0 on the rest.
        let ours = if b <= 9 {
            -600
        } else if b <= 13 {
            100
        } else {
            600
        };
        let lines = if b == 13 {
            vec![played(1, 100, ours), played(2, 101, 100), played(3, 102, 0)]
        } else {
            vec![played(1, 100, ours), played(2, 101, 0), played(3, 102, 300)]
        };
        boards.push((b, lines));
    }
    let field = mitchell(&boards);
    let scoring = score(&field, &Options::default()).unwrap();
    let id = field
        .pairs()
        .iter()
        .position(|p| p.label == simpairs_scoring::PairLabel::Number(100))
        .unwrap();
    let s = &scoring.standings()[id];
    assert_eq!((s.total, s.max), (36.0 + 6.0 + 1.0, 96.0));
    assert_eq!(s.percent_hundredths, Some(4479));
}
