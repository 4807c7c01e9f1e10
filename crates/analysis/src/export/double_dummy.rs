//! The double-dummy analysis of the event's deals for the boards and results tables: each
//! declared board whose whole deal is known, analysed by `simpairs-dds` (the website's solver),
//! with the dealer and vulnerability of its number, as the boards table shows them.

use std::collections::BTreeMap;

use simpairs_dds::{Board, DoubleDummy, Error, Solver};

/// The analysis of each board that has one, and notes on the boards that have none.
pub(crate) struct Analysed {
    pub boards: BTreeMap<i32, DoubleDummy>,
    pub notes: Vec<String>,
}

/// Board numbers as a short list (`3, 7, 12`).
fn listed(boards: &[i32]) -> String {
    boards
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Analyses the deals of the declared `boards`, all in one batch.
pub(crate) fn analyse(boards: &[i32], deals: &BTreeMap<i32, String>) -> Analysed {
    let known: Vec<(i32, &str)> = boards
        .iter()
        .filter_map(|b| deals.get(b).map(|d| (*b, d.as_str())))
        .collect();
    let to_solve: Vec<Board<'_>> = known.iter().map(|(b, d)| Board::numbered(*b, d)).collect();
    let solved = Solver::new().analyse_all(&to_solve);
    let mut out = Analysed {
        boards: BTreeMap::new(),
        notes: Vec::new(),
    };
    let mut partial = Vec::new();
    for ((board, _), result) in known.iter().zip(solved) {
        match result {
            Ok(dd) => {
                out.boards.insert(*board, dd);
            }
            Err(Error::HandMissing) => partial.push(*board),
            Err(e) => out.notes.push(format!(
                "double dummy and par: board {board}'s deal is not analysed ({e}), so its columns are empty"
            )),
        }
    }
    let unknown: Vec<i32> = boards
        .iter()
        .copied()
        .filter(|b| !deals.contains_key(b))
        .collect();
    // With no deal at all, the note on the deals says it; here only what is missing among some.
    if !unknown.is_empty() && !known.is_empty() {
        out.notes.push(format!(
            "double dummy and par: no deal is known for {}, so {} columns are empty",
            boards_listed(&unknown),
            their(&unknown)
        ));
    }
    if !partial.is_empty() {
        out.notes.push(format!(
            "double dummy and par: the hand records of {} leave a hand out, so {} columns are empty",
            boards_listed(&partial),
            their(&partial)
        ));
    }
    out
}

/// `board 5` or `boards 5, 6`.
fn boards_listed(boards: &[i32]) -> String {
    let word = if boards.len() == 1 { "board" } else { "boards" };
    format!("{word} {}", listed(boards))
}

/// `its` for one board, `their` for more.
fn their(boards: &[i32]) -> &'static str {
    if boards.len() == 1 { "its" } else { "their" }
}
