//! The last stage of every reader: the traveller lines it found, as text, are checked and added to a
//! field by [`FieldBuilder`] (the one place the rules of a valid result live), and each problem is
//! located in the reader's own terms (an element path, an attribute, a table column).

use std::borrow::Cow;

use rustc_hash::FxHashMap;
use simpairs_scoring::field::Movement;
use simpairs_scoring::{Direction, Field, LegalScores, PairId};

use crate::error::{Location, Problem, Problems, Result};
use crate::lines::Lines;
use crate::model::{LineDetails, OfficialLine, PairInfo};
use crate::row::{Added, FieldBuilder, TextRow};

mod raw_lines;

pub(crate) use raw_lines::RawLines;

/// The fields of a traveller line, in the order of [`At::field_lines`].
pub(crate) const FIELDS: [&str; 11] = [
    "board", "section", "ns_pair", "ew_pair", "contract", "declarer", "tricks", "ns_score",
    "ew_score", "adjusted", "movement",
];

/// Index of a field in [`FIELDS`].
pub(crate) fn field_index(name: &str) -> usize {
    FIELDS.iter().position(|f| *f == name).unwrap_or(0)
}

/// Where a traveller line is in its file.
#[derive(Clone, Debug, Default)]
pub(crate) struct At {
    /// The line the traveller line starts on.
    pub line: u64,
    /// Its element path (XML) or table (PBN), to which the field's name is appended.
    pub path: String,
    /// The line of each field's element when it differs from `line` (0: same as `line`).
    pub field_lines: [u32; FIELDS.len()],
}

/// One traveller line as a reader found it.
#[derive(Clone, Debug, Default)]
pub(crate) struct RawLine<'a> {
    pub club: Cow<'a, str>,
    pub section: Cow<'a, str>,
    pub board: Cow<'a, str>,
    pub ns: Cow<'a, str>,
    pub ew: Cow<'a, str>,
    pub contract: Cow<'a, str>,
    pub declarer: Cow<'a, str>,
    pub tricks: Cow<'a, str>,
    pub ns_score: Cow<'a, str>,
    pub ew_score: Cow<'a, str>,
    pub adjusted: Cow<'a, str>,
    pub arrow_switch: Cow<'a, str>,
    pub group: Cow<'a, str>,
    pub howell: bool,
    /// The reader knows the line records no result (a phantom table, `N P`).
    pub not_played: bool,
    pub details: LineDetails,
    pub official: OfficialLine,
    /// The reader's own index of what the line belongs to (USEBIO: its `BOARD`), carried with the line
    /// so that a line refused on the way cannot shift it onto the next line.
    pub origin: usize,
    pub at: At,
}

/// A checked field with what belongs to its rows.
#[derive(Debug, Default)]
pub(crate) struct Built {
    pub field: Field,
    pub lines: Lines,
    pub not_played: usize,
    pub not_played_tables: Vec<crate::NotPlayed>,
    pub details: Vec<(u32, LineDetails)>,
    pub official: Vec<(u32, OfficialLine)>,
    /// The warnings of accepted lines, located like problems and sorted.
    pub warnings: Vec<Problem>,
}

/// Names a field of a traveller line in the reader's terms: `names` maps [`FIELDS`] names to element
/// or column names; `separator` joins them to the line's path.
#[derive(Clone, Copy)]
pub(crate) struct Naming<'n> {
    pub names: &'n [(&'static str, &'static str)],
    pub separator: &'static str,
}

impl Naming<'_> {
    fn locate(&self, file: &str, at: &At, field: &str) -> Location {
        let name = self
            .names
            .iter()
            .find(|(f, _)| *f == field)
            .map_or(field, |(_, n)| *n);
        let field_line = at.field_lines[field_index(field)];
        // `../NAME` names an element of the line's parent.
        let (base, name) = match name.strip_prefix("../") {
            Some(rest) => (
                at.path.rsplit_once('/').map_or("", |(parent, _)| parent),
                rest,
            ),
            None => (at.path.as_str(), name),
        };
        let path = if base.is_empty() {
            name.to_string()
        } else {
            format!("{base}{}{name}", self.separator)
        };
        Location {
            file: file.to_string(),
            line: if field_line > 0 {
                u64::from(field_line)
            } else {
                at.line
            },
            field: Some(path),
        }
    }
}

/// Rows a scratch builder takes before it is replaced (it keeps what it was given).
const SCRATCH_ROWS: usize = 1 << 16;

/// Collects a reader's traveller lines as it finds them. Each line is checked at once by a scratch
/// [`FieldBuilder`] (as a Mitchell, since the movement may not be known yet), so a file of garbage is
/// refused after [`crate::error::MAX_REPORTED`] problems instead of being stored whole: memory stays
/// bounded by the file's valid results.
pub(crate) struct Sink<'a, 'l> {
    file: &'a str,
    naming: Naming<'a>,
    legal: &'l LegalScores,
    scratch: FieldBuilder<'l>,
    scratch_rows: usize,
    pub lines: RawLines<'a>,
    pub problems: Problems,
}

impl<'a, 'l> Sink<'a, 'l> {
    pub(crate) fn new(file: &'a str, naming: Naming<'a>, legal: &'l LegalScores) -> Self {
        Sink {
            file,
            naming,
            legal,
            scratch: FieldBuilder::new(legal),
            scratch_rows: 0,
            lines: RawLines::default(),
            problems: Problems::default(),
        }
    }

    /// Whether reading should stop: enough problems have been found to reject the file.
    pub(crate) fn full(&self) -> bool {
        self.problems.len() >= crate::error::MAX_REPORTED
    }

    /// A problem found by the reader itself.
    pub(crate) fn problem(&mut self, line: u64, field: Option<String>, message: String) {
        self.problems.push(Problem {
            at: Location {
                file: self.file.to_string(),
                line,
                field,
            },
            message,
        });
    }

    /// Checks a line and keeps it; `checkable` is false when the line cannot be judged yet (its board
    /// number comes later in the file). Returns false when reading should stop.
    pub(crate) fn push(&mut self, line: RawLine<'a>, checkable: bool) -> bool {
        // Names that identify a result may not hold control characters: no results file can carry
        // them (XML cannot), so two different pairs could not be told apart once written.
        for (field, text) in [
            ("board", &line.board),
            ("section", &line.section),
            ("ns_pair", &line.ns),
            ("ew_pair", &line.ew),
        ] {
            if let Some(c) = text.chars().find(|c| c.is_control()) {
                let at = self.naming.locate(self.file, &line.at, field);
                self.problems.push(Problem {
                    at,
                    message: format!(
                        "{text:?} holds the control character U+{:04X}",
                        u32::from(c)
                    ),
                });
                return !self.full();
            }
        }
        if checkable && !line.not_played {
            let row = TextRow {
                board: &line.board,
                club: &line.club,
                section: &line.section,
                ns_pair: &line.ns,
                ew_pair: &line.ew,
                contract: &line.contract,
                declarer: &line.declarer,
                tricks: &line.tricks,
                ns_score: &line.ns_score,
                ew_score: &line.ew_score,
                adjusted: &line.adjusted,
                arrow_switch: &line.arrow_switch,
                group: &line.group,
                movement: "",
            };
            if self.scratch_rows >= SCRATCH_ROWS {
                self.scratch = FieldBuilder::new(self.legal);
                self.scratch_rows = 0;
            }
            self.scratch_rows += 1;
            let checked = self.scratch.push(&row, line.at.line);
            // The scratch builder only checks; warnings are reported by the builder of the field.
            self.scratch.warnings.clear();
            if let Err(p) = checked {
                let at = self.naming.locate(self.file, &line.at, p.field);
                self.problems.push(Problem {
                    at,
                    message: p.message,
                });
                return !self.full();
            }
        }
        self.lines.push(line);
        !self.full()
    }
}

/// Checks every line and builds the field; rejects the whole file if any line has a problem.
pub(crate) fn build(
    file: &str,
    raw: RawLines<'_>,
    naming: &Naming<'_>,
    mut problems: Problems,
) -> Result<Built> {
    let legal = LegalScores::new();
    let mut builder = FieldBuilder::new(&legal);
    builder.reserve(raw.len());
    let mut built = Built::default();
    let mut ats = Vec::with_capacity(raw.len());
    for line in raw {
        if line.not_played {
            built.not_played += 1;
            let table =
                crate::NotPlayed::of(&line.club, &line.section, &line.board, &line.ns, &line.ew);
            built.not_played_tables.extend(table);
            continue;
        }
        let row = TextRow {
            board: &line.board,
            club: &line.club,
            section: &line.section,
            ns_pair: &line.ns,
            ew_pair: &line.ew,
            contract: &line.contract,
            declarer: &line.declarer,
            tricks: &line.tricks,
            ns_score: &line.ns_score,
            ew_score: &line.ew_score,
            adjusted: &line.adjusted,
            arrow_switch: &line.arrow_switch,
            group: &line.group,
            movement: if line.howell { "howell" } else { "" },
        };
        match builder.push(&row, line.at.line) {
            Ok(Added::Result(r)) => {
                let r = r as u32;
                if !line.details.is_empty() {
                    built.details.push((r, line.details));
                }
                if line.official != OfficialLine::default() {
                    built.official.push((r, line.official));
                }
                for w in builder.warnings.drain(..) {
                    built.warnings.push(Problem {
                        at: naming.locate(file, &line.at, w.field),
                        message: w.message,
                    });
                }
                ats.push(line.at);
            }
            Ok(Added::NotPlayed) => {}
            Err(p) => problems.push(Problem {
                at: naming.locate(file, &line.at, p.field),
                message: p.message,
            }),
        }
    }
    built.not_played += builder.not_played;
    built
        .not_played_tables
        .append(&mut builder.not_played_tables);
    if problems.is_empty() {
        for (first, again) in builder.field.duplicate_rows() {
            let mut at = naming.locate(file, &ats[again], "board");
            at.field = Some(ats[again].path.clone());
            let first_line = builder.lines.line_of(first);
            problems.push(Problem {
                at,
                message: crate::csv::played_twice(&builder.field, first, first_line, again),
            });
        }
    }
    problems.into_result()?;
    crate::error::sort(&mut built.warnings);
    built.lines = builder.lines;
    built.field = builder.field;
    Ok(built)
}

/// Finds the pair ids of a field by club, section, label and direction.
pub(crate) struct PairIndex(FxHashMap<(String, String, String, Option<Direction>), PairId>);

impl PairIndex {
    pub(crate) fn new(field: &Field) -> PairIndex {
        let map = field
            .pairs()
            .iter()
            .enumerate()
            .map(|(id, p)| {
                (
                    (
                        field.club_name(p.club).to_string(),
                        field.section_name(p.section).to_string(),
                        p.label.to_string(),
                        p.direction,
                    ),
                    id as PairId,
                )
            })
            .collect();
        PairIndex(map)
    }

    pub(crate) fn find(
        &self,
        club: &str,
        section: &str,
        label: &str,
        direction: Option<Direction>,
    ) -> Option<PairId> {
        self.0
            .get(&(
                club.to_string(),
                section.to_string(),
                label.to_string(),
                direction,
            ))
            .copied()
    }
}

/// Splits a pair number as scoring programs write it (`1NS`, `1 NS`, `1-EW`, `12`) into the number and
/// the direction it names, if any.
pub(crate) fn split_pair_number(text: &str) -> (&str, Option<Direction>) {
    let t = text.trim();
    let upper = t.to_ascii_uppercase();
    for (suffix, direction) in [("NS", Direction::NS), ("EW", Direction::EW)] {
        if upper.ends_with(suffix) && t.len() > 2 {
            // One separator goes with the suffix: a label that itself ends in one (`1-`) is
            // written with a second (`1--NS`, see the USEBIO writer), and reads back whole.
            let before = &t[..t.len() - 2];
            let label = before
                .strip_suffix([' ', '-', '_'])
                .unwrap_or(before)
                .trim();
            if !label.is_empty() {
                return (label, Some(direction));
            }
        }
    }
    (t, None)
}

/// Decides whether a section is a Howell from its traveller lines alone: in a Mitchell the same number
/// is met as NS and as EW on one board (pair 1 NS plays pair 1 EW); in a Howell a number plays a board
/// once. Lines are (board, NS number, EW number); numbers used only one way are a Mitchell.
pub(crate) fn looks_like_howell<'a>(
    lines: impl Iterator<Item = (&'a str, &'a str, &'a str)>,
) -> bool {
    use rustc_hash::FxHashSet;
    let mut ns_numbers = FxHashSet::default();
    let mut ew_numbers = FxHashSet::default();
    let mut on_board: FxHashSet<(&str, &str)> = FxHashSet::default();
    let mut met_twice = false;
    for (board, ns, ew) in lines {
        ns_numbers.insert(ns);
        ew_numbers.insert(ew);
        met_twice |= ns == ew || !on_board.insert((board, ns)) || !on_board.insert((board, ew));
    }
    !met_twice && ns_numbers.intersection(&ew_numbers).next().is_some()
}

/// The movement name used in [`crate::model::EventInfo::movement`].
pub(crate) fn movement_of(howell: bool) -> Movement {
    if howell {
        Movement::Howell
    } else {
        Movement::Mitchell
    }
}

/// Attaches pair infos (players) read from the file to the field's pairs; pairs the field does not have
/// are returned as absent. `infos` name pairs by club, section, label and direction.
pub(crate) fn place_pairs(
    field: &Field,
    infos: Vec<PairInfo>,
) -> (Vec<PairInfo>, Vec<PairInfo>, Vec<Option<usize>>) {
    let index = PairIndex::new(field);
    let mut pairs = crate::model::pair_infos(field);
    let mut absent = Vec::new();
    let mut placed = Vec::with_capacity(infos.len());
    for info in infos {
        match index.find(&info.club, &info.section, &info.label, info.direction) {
            Some(id) => {
                placed.push(Some(id as usize));
                pairs[id as usize].players = info.players;
            }
            None => {
                placed.push(None);
                absent.push(info);
            }
        }
    }
    (pairs, absent, placed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_numbers_lose_their_direction() {
        assert_eq!(split_pair_number("1NS"), ("1", Some(Direction::NS)));
        assert_eq!(split_pair_number(" 12 ew "), ("12", Some(Direction::EW)));
        assert_eq!(split_pair_number("3-NS"), ("3", Some(Direction::NS)));
        // A label ending in a separator keeps it: the writer doubles it (`1-` as `1--NS`).
        assert_eq!(split_pair_number("1--NS"), ("1-", Some(Direction::NS)));
        assert_eq!(split_pair_number("7"), ("7", None));
        assert_eq!(split_pair_number("NS"), ("NS", None));
    }

    #[test]
    fn howell_or_mitchell() {
        let mitchell = [
            ("1", "1", "1"),
            ("1", "2", "2"),
            ("2", "1", "2"),
            ("2", "2", "1"),
        ];
        assert!(!looks_like_howell(mitchell.iter().copied()));
        let howell = [
            ("1", "1", "2"),
            ("1", "3", "4"),
            ("2", "2", "3"),
            ("2", "4", "1"),
        ];
        assert!(looks_like_howell(howell.iter().copied()));
        let disjoint = [("1", "101", "1101"), ("1", "102", "1102")];
        assert!(!looks_like_howell(disjoint.iter().copied()));
    }
}
