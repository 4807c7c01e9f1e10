//! The informational columns of a traveller CSV, which [`crate::csv::read`] skips because they do not
//! change a result: the contract as written (for export), `lead`, `table`, `round`, the official
//! `ns_mp`/`ew_mp` (or `ns_imps`/`ew_imps`) of the program that wrote the file, and `ns_names`/`ew_names`.
//!
//! They are read in a second, sequential pass only when the header names any of them, so the large
//! score-only files of national events are not read twice. Values that are not what the column holds
//! (a lead of `?`, matchpoints of `-`) are left out; the result itself was checked by the first pass.

use simpairs_scoring::{Contract, Seat};

use crate::error::Result;
use crate::model::{Imported, LineDetails, OfficialLine, Player};
use crate::text::{non_empty, parse_decimal, strip_bom};

/// Columns read here, in the order of the indexes kept.
const EXTRA: [&str; 12] = [
    "contract", "declarer", "tricks", "lead", "table", "round", "ns_mp", "ew_mp", "ns_imps",
    "ew_imps", "ns_names", "ew_names",
];

/// Whether a header line names any of the informational columns.
pub(crate) fn named_in(header: &[u8]) -> bool {
    crate::csv::header_cells(header, b',')
        .iter()
        .any(|h| EXTRA.contains(&h.as_str()))
}

/// Adds the informational columns of `bytes` (already read into `imported`) to `imported`.
pub(crate) fn add(_file: &str, bytes: &[u8], imported: &mut Imported) -> Result<()> {
    let bytes = strip_bom(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::StringRecord::new();
    if !matches!(reader.read_record(&mut record), Ok(true)) {
        return Ok(());
    }
    let header: Vec<String> = record
        .iter()
        .map(|h| h.trim().trim_start_matches('\u{feff}').to_ascii_lowercase())
        .collect();
    let index: Vec<Option<usize>> = EXTRA
        .iter()
        .map(|name| header.iter().position(|h| h == name))
        .collect();
    if index.iter().all(Option::is_none) {
        return Ok(());
    }
    let rows = imported.field.len();
    let mut counter = crate::text::LineCounter::new(bytes);
    let mut row = 0usize;
    let mut details = Vec::new();
    let mut official = Vec::new();
    let mut names: Vec<(u32, Vec<Player>)> = Vec::new();
    while row < rows {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) | Err(_) => break,
        }
        let line = crate::csv::record_line(bytes, record.position(), &mut counter);
        while row < rows && imported.lines.line_of(row) < line {
            row += 1;
        }
        if row >= rows || imported.lines.line_of(row) != line {
            continue;
        }
        let get = |k: usize| index[k].and_then(|i| record.get(i)).map_or("", str::trim);
        let contract =
            non_empty(get(0)).map(|c| c.parse::<Contract>().map_or(c, |k| k.to_string()));
        let passed = contract.as_deref() == Some("PASS");
        let d = LineDetails {
            contract,
            declarer: if passed {
                None
            } else {
                get(1).parse::<Seat>().ok()
            },
            // As the result was read: `+1` against the contract is tricks taken here too.
            tricks: if passed {
                None
            } else {
                crate::row::tricks_taken(get(2), get(0))
                    .ok()
                    .flatten()
                    .and_then(|t| u8::try_from(t).ok())
            },
            lead: non_empty(get(3)).filter(|l| l != "?" && l != "-"),
            table: get(4).parse().ok(),
            round: get(5).parse().ok(),
        };
        if !d.is_empty() {
            details.push((row as u32, d));
        }
        let o = OfficialLine {
            ns: parse_decimal(get(6)).or_else(|| parse_decimal(get(8))),
            ew: parse_decimal(get(7)).or_else(|| parse_decimal(get(9))),
        };
        if o != OfficialLine::default() {
            official.push((row as u32, o));
        }
        let r = imported.field.result(row);
        for (k, pair) in [(10, r.ns), (11, r.ew)] {
            let players = players_of(get(k));
            if !players.is_empty() {
                names.push((pair, players));
            }
        }
        row += 1;
    }
    imported.details = details;
    imported.official.lines = official;
    if !names.is_empty() && imported.pairs.is_empty() {
        imported.pairs = crate::model::pair_infos(&imported.field);
    }
    for (pair, players) in names {
        let info = &mut imported.pairs[pair as usize];
        if info.players.is_empty() {
            info.players = players;
        }
    }
    Ok(())
}

/// `Ann & Bob` (or `Ann;Bob`) as players. A line break typed into a spreadsheet's cell (Alt+Enter)
/// is a space: a name is one line wherever it is printed.
fn players_of(text: &str) -> Vec<Player> {
    text.split(['&', ';'])
        .map(|n| n.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|n| !n.is_empty())
        .map(|name| Player {
            name,
            ..Player::default()
        })
        .collect()
}
