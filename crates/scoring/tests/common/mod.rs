//! Helpers shared by the scoring tests: small fields written as travellers.
#![allow(dead_code)]

use simpairs_scoring::{Direction, Field, Outcome, Pair, PairLabel, TableResult, Value};

/// One traveller line: NS pair, EW pair, what happened, arrow-switched, fouled group.
#[derive(Clone, Copy)]
pub struct Line {
    pub ns: u32,
    pub ew: u32,
    pub outcome: Outcome,
    pub arrow: bool,
    pub group: Option<&'static str>,
}

pub fn played(ns: u32, ew: u32, score: i32) -> Line {
    Line {
        ns,
        ew,
        outcome: Outcome::Played(score),
        arrow: false,
        group: None,
    }
}

pub fn adjusted(ns: u32, ew: u32, ns_percent: u8, ew_percent: u8) -> Line {
    Line {
        ns,
        ew,
        outcome: Outcome::Adjusted {
            ns_percent,
            ew_percent,
        },
        arrow: false,
        group: None,
    }
}

pub fn split(ns: u32, ew: u32, ns_score: i32, ew_score: i32) -> Line {
    Line {
        ns,
        ew,
        outcome: Outcome::Split {
            ns: ns_score,
            ew: ew_score,
        },
        arrow: false,
        group: None,
    }
}

/// A Mitchell field of one club: `boards` is (board number, lines).
pub fn mitchell(boards: &[(u16, Vec<Line>)]) -> Field {
    let mut field = Field::new();
    let club = field.club("");
    let section = field.section("");
    for (board, lines) in boards {
        for line in lines {
            let ns = field.pair(Pair {
                club,
                section,
                label: PairLabel::Number(line.ns),
                direction: Some(Direction::NS),
            });
            let ew = field.pair(Pair {
                club,
                section,
                label: PairLabel::Number(line.ew),
                direction: Some(Direction::EW),
            });
            let group = line.group.map(|g| field.group(club, g));
            field
                .push(TableResult {
                    board: *board,
                    ns,
                    ew,
                    outcome: line.outcome,
                    arrow_switch: line.arrow,
                    group,
                })
                .unwrap();
        }
    }
    field
}

/// Each row's (NS, EW) values as f64 rounded to 2 decimals the way results print.
pub fn printed(values: &[(Value, Value)]) -> Vec<(String, String)> {
    values
        .iter()
        .map(|(a, b)| {
            (
                simpairs_scoring::value::format_value(*a),
                simpairs_scoring::value::format_value(*b),
            )
        })
        .collect()
}

pub fn v(x: f64) -> Value {
    Value::approximate_float(x).unwrap()
}

/// Adds a club's Mitchell to `field`: `tables` tables (NS pair t against EW pair t) play boards
/// 1 to `boards`, each board in table order; `outcome(table index, board)` says what happened
/// at a table, `None` if it did not play that board.
pub fn add_mitchell_club(
    field: &mut Field,
    name: &str,
    tables: u32,
    boards: u16,
    mut outcome: impl FnMut(usize, u16) -> Option<Outcome>,
) {
    let (club, section) = (field.club(name), field.section("A"));
    let pairs: Vec<_> = (1..=tables)
        .map(|t| {
            let mut pair = |direction| {
                field.pair(Pair {
                    club,
                    section,
                    label: PairLabel::Number(t),
                    direction: Some(direction),
                })
            };
            (pair(Direction::NS), pair(Direction::EW))
        })
        .collect();
    for board in 1..=boards {
        for (t, &(ns, ew)) in pairs.iter().enumerate() {
            let Some(outcome) = outcome(t, board) else {
                continue;
            };
            field
                .push(TableResult {
                    board,
                    ns,
                    ew,
                    outcome,
                    arrow_switch: false,
                    group: None,
                })
                .unwrap();
        }
    }
}

/// The options of both factorings of boards played different numbers of times, the totals' pass
/// with fractions.
pub fn factored_options() -> [simpairs_scoring::Options; 2] {
    [
        simpairs_scoring::Factoring::Neuberg,
        simpairs_scoring::Factoring::Ratio,
    ]
    .map(|factoring| simpairs_scoring::Options {
        factoring,
        ..simpairs_scoring::Options::default()
    })
}
