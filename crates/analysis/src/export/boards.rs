//! The boards table: each declared board with its dealer and vulnerability (the standard cycle
//! from the board number) and its deal as the event knows it (the organiser's hand record, else
//! the first applied club's), in PBN notation from North.

use std::collections::BTreeMap;
use std::path::Path;

use simpairs_scoring::{Seat, Vulnerability};

use super::Context;
use super::table::{Format, Kind, Table, Written};
use crate::Result;

const COLUMNS: &[(&str, Kind)] = &[
    ("event", Kind::Text),
    ("board", Kind::Int),
    ("dealer", Kind::Text),
    ("vulnerable", Kind::Text),
    ("deal", Kind::Text),
];

fn seat(s: Seat) -> &'static str {
    match s {
        Seat::North => "N",
        Seat::East => "E",
        Seat::South => "S",
        Seat::West => "W",
    }
}

fn vulnerable(v: Vulnerability) -> &'static str {
    match (v.ns, v.ew) {
        (false, false) => "none",
        (true, false) => "NS",
        (false, true) => "EW",
        (true, true) => "both",
    }
}

/// Writes one row per declared board.
pub fn write(
    dir: &Path,
    format: Format,
    cx: &Context<'_>,
    boards: &[i32],
    deals: &BTreeMap<i32, String>,
) -> Result<Written> {
    let mut table = Table::create(dir, "boards", format, COLUMNS)?;
    for &board in boards {
        let number = u32::try_from(board).unwrap_or(0);
        table
            .text(Some(cx.event))
            .int(Some(i64::from(board)))
            .text(Some(seat(simpairs_scoring::contract::dealer_of_board(
                number,
            ))))
            .text(Some(vulnerable(Vulnerability::of_board(number))))
            .text(deals.get(&board).map(String::as_str));
        table.end_row()?;
    }
    table.finish()
}
