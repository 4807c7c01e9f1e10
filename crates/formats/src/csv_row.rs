//! One chunk of a traveller CSV: the columns simpairs knows, where a header puts them, a row read
//! the checked way, and what reading a chunk of rows gives.

use simpairs_scoring::Movement;

use crate::error::{Location, Problem, Problems};
use crate::row::{FieldBuilder, TextRow};

/// Columns of the traveller CSV, in the order docs/rules-input.md lists them.
pub const COLUMNS: [&str; 14] = [
    "board",
    "club",
    "section",
    "ns_pair",
    "ew_pair",
    "contract",
    "declarer",
    "tricks",
    "ns_score",
    "ew_score",
    "adjusted",
    "arrow_switch",
    "group",
    "movement",
];

/// Column index of each known column in the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub(crate) index: [Option<usize>; 14],
    pub(crate) width: usize,
}

/// Rows that failed for want of a column the header does not have (a contract without a declarer
/// column): told once, at the header, instead of once a row.
#[derive(Debug, Default)]
pub(crate) struct Absent(Vec<(&'static str, usize, u64, String)>);

impl Absent {
    /// Notes a row's problem if its field is a column the header lacks; `false` if it is not.
    pub(crate) fn note(
        &mut self,
        layout: &Layout,
        line: u64,
        field: &'static str,
        message: &str,
    ) -> bool {
        let absent = COLUMNS
            .iter()
            .position(|c| *c == field)
            .is_some_and(|k| layout.index[k].is_none());
        if !absent {
            return false;
        }
        match self.0.iter_mut().find(|(f, ..)| *f == field) {
            Some((_, count, first, _)) => {
                *count += 1;
                *first = (*first).min(line);
            }
            None => self.0.push((field, 1, line, message.to_string())),
        }
        true
    }

    pub(crate) fn merge(&mut self, other: Absent) {
        for (field, count, first, message) in other.0 {
            match self.0.iter_mut().find(|(f, ..)| *f == field) {
                Some(mine) if first < mine.2 => *mine = (field, mine.1 + count, first, message),
                Some(mine) => mine.1 += count,
                None => self.0.push((field, count, first, message)),
            }
        }
    }

    /// One problem at the header per missing column.
    pub(crate) fn problems(self, file: &str, header: &str) -> impl Iterator<Item = Problem> {
        self.0.into_iter().map(move |(field, count, first, message)| Problem {
            at: Location {
                file: file.to_string(),
                line: 1,
                field: Some(field.to_string()),
            },
            message: format!(
                "the header has no {field} column, but {count} {} one (the first on line {first}: \
                 {message}); the header has: {header}",
                if count == 1 { "row needs" } else { "rows need" }
            ),
        })
    }
}

/// The columns whose presence makes a row more than a plain score.
pub(crate) fn complex_columns(layout: &Layout) -> Vec<usize> {
    let col = |name: &str| layout.index[COLUMNS.iter().position(|c| *c == name).expect("known")];
    [
        "contract",
        "declarer",
        "tricks",
        "ew_score",
        "adjusted",
        "arrow_switch",
        "group",
        "movement",
    ]
    .iter()
    .filter_map(|c| col(c))
    .collect()
}

/// A row read the checked way: more than a plain score, or a plain one the fast path refused.
pub(crate) struct Checked<'a> {
    pub(crate) file: &'a str,
    pub(crate) line: u64,
    pub(crate) layout: &'a Layout,
}

impl Checked<'_> {
    /// Adds the row, its fields as text, or notes why it cannot be added.
    pub(crate) fn push(
        &self,
        builder: &mut FieldBuilder<'_>,
        fields: &[&[u8]],
        absent: &mut Absent,
        problems: &mut Problems,
    ) {
        let at = |field: &str| Location {
            file: self.file.to_string(),
            line: self.line,
            field: Some(field.to_string()),
        };
        let mut text: [&str; 14] = [""; 14];
        let mut bad_utf8 = None;
        for (k, slot) in text.iter_mut().enumerate() {
            if let Some(i) = self.layout.index[k] {
                match std::str::from_utf8(fields[i]) {
                    Ok(s) => *slot = s,
                    Err(_) => bad_utf8 = Some(COLUMNS[k]),
                }
            }
        }
        if let Some(field) = bad_utf8 {
            problems.push(Problem {
                at: at(field),
                message: "the field is not UTF-8 text".into(),
            });
            return;
        }
        if let Err(p) = builder.push(&text_row(&text), self.line)
            && !absent.note(self.layout, self.line, p.field, &p.message)
        {
            problems.push(Problem {
                at: at(p.field),
                message: p.message,
            });
        }
    }
}

pub(crate) fn text_row<'a>(text: &[&'a str; 14]) -> TextRow<'a> {
    TextRow {
        board: text[0],
        club: text[1],
        section: text[2],
        ns_pair: text[3],
        ew_pair: text[4],
        contract: text[5],
        declarer: text[6],
        tricks: text[7],
        ns_score: text[8],
        ew_score: text[9],
        adjusted: text[10],
        arrow_switch: text[11],
        group: text[12],
        movement: text[13],
    }
}

/// What one chunk produced.
pub(crate) struct Chunk<'l> {
    pub(crate) builder: FieldBuilder<'l>,
    pub(crate) problems: Problems,
    pub(crate) absent: Absent,
    /// The movement of each (club, section) the chunk names, with the line that set it.
    pub(crate) movements: Vec<(String, String, Movement, u64)>,
    /// How many line feeds the chunk's bytes hold: the next chunk's first line is this chunk's
    /// plus that.
    pub(crate) line_ends: u64,
}

impl<'l> Chunk<'l> {
    pub(crate) fn new(
        builder: FieldBuilder<'l>,
        problems: Problems,
        absent: Absent,
        line_ends: u64,
    ) -> Self {
        let movements = builder
            .movements()
            .map(|(club, section, m, line)| (club.to_string(), section.to_string(), m, line))
            .collect();
        Chunk {
            builder,
            problems,
            absent,
            movements,
            line_ends,
        }
    }

    /// Whether the chunk has problems or warnings, whose words may name lines.
    pub(crate) fn names_lines(&self) -> bool {
        !self.problems.is_empty() || !self.builder.warnings.is_empty() || !self.absent.0.is_empty()
    }

    /// Moves the lines of a chunk read with line numbers from 0 to start at `first`: its results'
    /// lines and the lines that set its sections' movements (the only lines of a chunk without
    /// problems or warnings).
    pub(crate) fn move_lines(&mut self, first: u64) {
        self.builder.lines.move_by(first);
        for (.., line) in &mut self.movements {
            *line += first;
        }
    }
}
