//! The boards table: each declared board with its dealer and vulnerability (the standard cycle
//! from the board number) and its deal as the event knows it (the organiser's hand record, else
//! the first applied club's), in PBN notation from North; for a whole deal, the double-dummy
//! tricks of each declarer in each strain (`dd_<declarer>_<strain>`, declarers N, E, S, W and
//! strains NT, S, H, D, C, as the website's table) and the par: its score to NS and the contracts
//! that reach it (`4S= N, 4S= S`; a pass-out has none).

use std::collections::BTreeMap;
use std::path::Path;

use simpairs_dds::{DoubleDummy, SEATS, STRAINS};
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

/// The tricks columns, by declarer ([`simpairs_dds::SEATS`]) then strain
/// ([`simpairs_dds::STRAINS`]).
const TRICKS: [&str; 20] = [
    "dd_n_nt", "dd_n_s", "dd_n_h", "dd_n_d", "dd_n_c", //
    "dd_e_nt", "dd_e_s", "dd_e_h", "dd_e_d", "dd_e_c", //
    "dd_s_nt", "dd_s_s", "dd_s_h", "dd_s_d", "dd_s_c", //
    "dd_w_nt", "dd_w_s", "dd_w_h", "dd_w_d", "dd_w_c",
];

const PAR: &[(&str, Kind)] = &[("par_score", Kind::Int), ("par_contracts", Kind::Text)];

fn columns() -> Vec<(&'static str, Kind)> {
    let tricks = TRICKS.iter().map(|name| (*name, Kind::Int));
    COLUMNS
        .iter()
        .copied()
        .chain(tricks)
        .chain(PAR.iter().copied())
        .collect()
}

fn seat_letter(s: Seat) -> &'static str {
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
    let mut table = Table::create(dir, "boards", format, &columns())?;
    for &board in boards {
        let number = u32::try_from(board).unwrap_or(0);
        table
            .text(Some(cx.event))
            .int(Some(i64::from(board)))
            .text(Some(seat_letter(
                simpairs_scoring::contract::dealer_of_board(number),
            )))
            .text(Some(vulnerable(Vulnerability::of_board(number))))
            .text(deals.get(&board).map(String::as_str));
        double_dummy(&mut table, cx.double_dummy(board));
        table.end_row()?;
    }
    table.finish()
}

/// The tricks and par columns of a board (empty without an analysis).
fn double_dummy(table: &mut Table, dd: Option<&DoubleDummy>) {
    for seat in SEATS {
        for strain in 0..STRAINS.len() {
            let tricks = dd.and_then(|dd| dd.tricks_of(strain, seat));
            table.int(tricks.map(i64::from));
        }
    }
    let contracts = dd.map(|dd| dd.par.contracts.join(", "));
    table
        .int(dd.map(|dd| i64::from(dd.par.ns_score)))
        .text(contracts.as_deref());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tricks_columns_are_named_in_the_order_they_are_written() {
        let mut names = Vec::new();
        for seat in SEATS {
            for strain in STRAINS {
                let seat = seat_letter(seat).to_ascii_lowercase();
                names.push(format!("dd_{seat}_{}", strain.to_ascii_lowercase()));
            }
        }
        assert_eq!(names, TRICKS);
    }
}
