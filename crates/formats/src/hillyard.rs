//! The traveller-entry CSV of R. Hillyard's `Bridge` "director" program (github.com/rchillyard/Bridge),
//! a real club's way of typing in pick-up slips:
//!
//! ```text
//! Newton November 19th 2024        <- the event's title
//! A DW                             <- section letter(s), then an optional modifier
//! 1,N,Julie Foster & Maxine Goldberg
//! 1,E,Susan Stearns & Chris Battat <- pairs: number, N or E, the names
//! P,1,1                            <- a table: NS pair, EW pair
//! 1,450                            <- board, NS score (or DNP, A, A+, A-)
//! 2,-400
//! ```
//!
//! `DNP` is a board not played; `A`, `A+` and `A-` are artificial scores of 50, 60 and 40 per cent to
//! North-South (and 50, 40, 60 to East-West). Pairs sit one way (a Mitchell).

use std::borrow::Cow;

use simpairs_scoring::Direction;

use crate::build::{self, At, FIELDS, Naming, RawLine, field_index};
use crate::error::{Error, Result};
use crate::model::{
    EventInfo, Format, Imported, LineDetails, Official, PairInfo, Player, SectionInfo,
};
use crate::row::is_not_played;
use crate::text;

const NAMES: [(&str, &str); 11] = [
    ("board", "board"),
    ("section", "section"),
    ("ns_pair", "P line NS pair"),
    ("ew_pair", "P line EW pair"),
    ("contract", "result"),
    ("declarer", "result"),
    ("tricks", "result"),
    ("ns_score", "result"),
    ("ew_score", "result"),
    ("adjusted", "result"),
    ("movement", "section"),
];

/// Whether the start of a file is this format: pair lines `1,N,...` and table lines `P,1,1`.
pub(crate) fn looks_like(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.lines().map(str::trim);
    let _title = lines.next();
    let section = lines.next().unwrap_or("");
    let section_ok = section
        .split_whitespace()
        .next()
        .is_some_and(|s| (1..=2).contains(&s.len()) && s.chars().all(|c| c.is_ascii_uppercase()));
    section_ok
        && text.lines().any(|l| l.trim().starts_with("P,"))
        && text.lines().any(|l| pair_line(l.trim()).is_some())
}

/// A pair line `1,N,Name & Name`.
fn pair_line(line: &str) -> Option<(&str, Direction, &str)> {
    let mut parts = line.splitn(3, ',');
    let number = parts.next()?.trim();
    let direction = match parts.next()?.trim() {
        "N" => Direction::NS,
        "E" => Direction::EW,
        _ => return None,
    };
    let names = parts.next()?.trim();
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        .then_some((number, direction, names))
}

/// The title line and the section line (`A`, or `A DW` with a modifier).
fn header<'t>(
    file: &str,
    lines: &mut impl Iterator<Item = (u64, &'t str)>,
) -> Result<(&'t str, String, Option<String>)> {
    let Some((_, title)) = lines.next().filter(|(_, t)| !t.is_empty()) else {
        return Err(Error::at(
            file,
            1,
            None,
            "the file is empty: expected a title line",
        ));
    };
    let (section_line, section_text) = lines.next().unwrap_or((2, ""));
    let mut words = section_text.split_whitespace();
    let section = words.next().unwrap_or("").to_string();
    let modifier = words.next().map(str::to_string);
    if section.is_empty() || !section.chars().all(|c| c.is_ascii_uppercase()) || section.len() > 2 {
        return Err(Error::at(
            file,
            section_line,
            Some("section"),
            format!("{section_text:?} is not a section line such as \"A\" or \"A DW\""),
        ));
    }
    Ok((title, section, modifier))
}

/// A pair of the pair lines, its players' names joined by `&`.
fn pair_info(section: &str, number: &str, direction: Direction, names: &str) -> PairInfo {
    PairInfo {
        club: String::new(),
        section: section.to_string(),
        label: number.to_string(),
        direction: Some(direction),
        players: names
            .split('&')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|n| Player {
                name: n.to_string(),
                ..Player::default()
            })
            .collect(),
    }
}

/// A `board,score` line of table `ns` v `ew`: a score, an artificial score (`A+`) or not played.
fn result_line<'t>(
    section: &str,
    ns: &str,
    ew: &str,
    board: &'t str,
    result: &'t str,
    number: u64,
) -> RawLine<'t> {
    let numeric = result.parse::<i32>().is_ok();
    let mut at = At {
        line: number,
        path: String::new(),
        field_lines: [0; FIELDS.len()],
    };
    at.field_lines[field_index("board")] = u32::try_from(number).unwrap_or(0);
    RawLine {
        section: Cow::Owned(section.to_string()),
        board: Cow::Borrowed(board),
        ns: Cow::Owned(ns.to_string()),
        ew: Cow::Owned(ew.to_string()),
        ns_score: Cow::Borrowed(if numeric { result } else { "" }),
        adjusted: Cow::Borrowed(if numeric || is_not_played(result) {
            ""
        } else {
            result
        }),
        not_played: is_not_played(result),
        details: LineDetails::default(),
        at,
        ..RawLine::default()
    }
}

/// The import of a read file: the pairs placed in the field, the event as the header says.
fn imported(
    built: build::Built,
    pairs: Vec<PairInfo>,
    title: &str,
    modifier: Option<String>,
    section: String,
) -> Imported {
    let (pair_infos, absent_pairs, _) = build::place_pairs(&built.field, pairs);
    Imported {
        format: Format::HillyardCsv,
        field: built.field,
        lines: built.lines,
        not_played: built.not_played,
        not_played_tables: built.not_played_tables,
        event: EventInfo {
            name: Some(title.to_string()),
            title: modifier,
            program: Some("Bridge director (rchillyard)".into()),
            movement: Some(simpairs_scoring::field::Movement::Mitchell),
            sections: vec![SectionInfo {
                name: section,
                ..SectionInfo::default()
            }],
            ..EventInfo::default()
        },
        pairs: pair_infos,
        absent_pairs,
        deals: Vec::new(),
        details: built.details,
        warnings: built.warnings,
        official: Official::default(),
    }
}

/// Reads a file of this format.
pub fn read(file: &str, bytes: &[u8]) -> Result<Imported> {
    let text = text::utf8(file, text::strip_bom(bytes), "")?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, l.trim()));
    let (title, section, modifier) = header(file, &mut lines)?;
    let legal = simpairs_scoring::LegalScores::new();
    let naming = Naming {
        names: &NAMES,
        separator: "/",
    };
    let mut sink = build::Sink::new(file, naming, &legal);
    let mut pairs = Vec::new();
    let mut table: Option<(String, String, u64)> = None;
    for (number, line) in lines {
        if sink.full() {
            break;
        }
        let mut bad = |line: u64, field: &str, message: String| {
            sink.problem(line, Some(field.to_string()), message)
        };
        if line.is_empty() {
            table = None;
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields[0] == "P" {
            if fields.len() != 3 || fields[1].is_empty() || fields[2].is_empty() {
                bad(
                    number,
                    "P line",
                    format!("{line:?} is not a table line P,NS pair,EW pair"),
                );
                table = None;
            } else {
                table = Some((fields[1].to_string(), fields[2].to_string(), number));
            }
            continue;
        }
        if table.is_none() {
            match pair_line(line) {
                Some((n, direction, names)) => pairs.push(pair_info(&section, n, direction, names)),
                None => bad(
                    number,
                    "pair",
                    format!("{line:?} is not a pair line number,N|E,names"),
                ),
            }
            continue;
        }
        let Some((ns, ew, _)) = table.as_ref() else {
            continue;
        };
        if fields.len() != 2 {
            bad(
                number,
                "result",
                format!("{line:?} is not a result line board,score"),
            );
            continue;
        }
        let raw = result_line(&section, ns, ew, fields[0], fields[1], number);
        sink.push(raw, true);
    }
    let raw = std::mem::take(&mut sink.lines);
    let problems = std::mem::take(&mut sink.problems);
    if raw.is_empty() {
        problems.into_result()?;
        return Err(Error::at(
            file,
            1,
            None,
            "the file has no results (P lines followed by board,score lines)",
        ));
    }
    let built = build::build(file, raw, &naming, problems)?;
    Ok(imported(built, pairs, title, modifier, section))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "Club night\nA DW\n1,N,Ann & Bob\n1,E,Cy & Di\n2,N,Ed & Flo\n2,E,Gus & Hal\n\
P,1,1\n1,450\n2,-400\n\nP,2,2\n1,420\n2,DNP\n\nP,1,2\n3,A+\n";

    #[test]
    fn a_small_file() {
        assert!(looks_like(SMALL.as_bytes()));
        let got = read("n.csv", SMALL.as_bytes()).unwrap();
        assert_eq!(got.field.len(), 4);
        assert_eq!(got.not_played, 1);
        assert_eq!(got.pairs[0].names(), "Ann & Bob");
        assert!(matches!(
            got.field.result(3).outcome,
            simpairs_scoring::Outcome::Adjusted {
                ns_percent: 60,
                ew_percent: 40
            }
        ));
        assert_eq!(got.lines.line_of(3), 16);
    }

    #[test]
    fn bad_lines_are_located() {
        let err = read("n.csv", SMALL.replace("2,-400", "2,-401").as_bytes()).unwrap_err();
        assert_eq!(err.problems()[0].at.line, 9);
        let err = read("n.csv", SMALL.replace("2,-400", "2").as_bytes()).unwrap_err();
        assert!(err.to_string().contains("board,score"), "{err}");
    }
}
