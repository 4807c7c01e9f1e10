//! Errors that say what is wrong and where: file, line (or element path) and field.

use std::fmt;

/// Most problems reported from one file before reading stops (the rest are counted).
pub const MAX_REPORTED: usize = 50;

/// Where in a file a problem is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    /// 1-based line number.
    pub line: u64,
    /// The column or element, such as `ns_score` or `BOARD/TRAVELLER_LINE/SCORE`.
    pub field: Option<String>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if let Some(field) = &self.field {
            write!(f, ": field {field}")?;
        }
        Ok(())
    }
}

/// One problem in an input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub at: Location,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// Errors of the formats crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file has problems; nothing of it was accepted.
    #[error("{}", describe(.problems, *.more))]
    Rejected {
        problems: Vec<Problem>,
        /// Problems found beyond those listed.
        more: usize,
    },
}

fn describe(problems: &[Problem], more: usize) -> String {
    let mut out = String::new();
    for (i, p) in problems.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&p.to_string());
    }
    if more > 0 {
        out.push_str(&format!("\n... and {more} more problems"));
    }
    out
}

impl Error {
    /// An error of a single problem.
    pub fn at(file: &str, line: u64, field: Option<&str>, message: impl Into<String>) -> Error {
        Error::Rejected {
            problems: vec![Problem {
                at: Location {
                    file: file.to_string(),
                    line,
                    field: field.map(str::to_string),
                },
                message: message.into(),
            }],
            more: 0,
        }
    }

    /// The error with each problem's line `by` lines further on: for a part of a file read as a
    /// file of its own, whose lines are the file's lines after those before the part.
    pub(crate) fn lines_moved_by(mut self, by: u64) -> Error {
        let Error::Rejected { problems, .. } = &mut self;
        for p in problems {
            p.at.line += by;
        }
        self
    }

    /// The problems listed.
    pub fn problems(&self) -> &[Problem] {
        match self {
            Error::Rejected { problems, .. } => problems,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Sorts problems (or warnings) as a reader of the file meets them: by line, then by field, numbers in
/// a field compared as numbers (`BOARD[2]` before `BOARD[19]`, as in files written on one line). The
/// sort is stable: problems of the same place keep the order they were found in.
pub fn sort(list: &mut [Problem]) {
    list.sort_by(|a, b| {
        a.at.line.cmp(&b.at.line).then_with(|| {
            natural_cmp(
                a.at.field.as_deref().unwrap_or(""),
                b.at.field.as_deref().unwrap_or(""),
            )
        })
    });
}

/// Compares texts with their runs of digits taken as numbers.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let (da, ra) = split_digits(a);
                let (db, rb) = split_digits(b);
                // Leading zeros aside, a longer run of digits is a larger number.
                let (ta, tb) = (trim_zeros(da), trim_zeros(db));
                let by_number = ta.len().cmp(&tb.len()).then_with(|| ta.cmp(tb));
                if by_number != std::cmp::Ordering::Equal {
                    return by_number;
                }
                (a, b) = (ra, rb);
            }
            (Some(x), Some(y)) if x != y => return x.cmp(y),
            _ => (a, b) = (&a[1..], &b[1..]),
        }
    }
}

fn split_digits(text: &[u8]) -> (&[u8], &[u8]) {
    let end = text
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(text.len());
    text.split_at(end)
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let start = digits
        .iter()
        .position(|&c| c != b'0')
        .unwrap_or(digits.len());
    &digits[start..]
}

/// Collects problems, keeping the first [`MAX_REPORTED`].
#[derive(Debug, Default)]
pub(crate) struct Problems {
    list: Vec<Problem>,
    more: usize,
}

impl Problems {
    pub fn push(&mut self, problem: Problem) {
        if self.list.len() < MAX_REPORTED {
            self.list.push(problem);
        } else {
            self.more += 1;
        }
    }

    pub fn extend(&mut self, other: Problems) {
        for p in other.list {
            self.push(p);
        }
        self.more += other.more;
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn len(&self) -> usize {
        self.list.len() + self.more
    }

    /// `Ok(())` if there were no problems.
    pub(crate) fn into_result(mut self) -> Result<()> {
        if self.list.is_empty() {
            return Ok(());
        }
        sort(&mut self.list);
        Err(Error::Rejected {
            problems: self.list,
            more: self.more,
        })
    }
}

/// Adds `warning`, if there is one, to `warnings` (in line order): before its line's own warnings.
pub(crate) fn warn_in_line_order(warnings: &mut Vec<Problem>, warning: Option<Problem>) {
    if let Some(warning) = warning {
        let at = warnings.partition_point(|w| w.at.line < warning.at.line);
        warnings.insert(at, warning);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u64, field: &str) -> Problem {
        Problem {
            at: Location {
                file: "f".into(),
                line,
                field: Some(field.into()),
            },
            message: String::new(),
        }
    }

    /// A USEBIO file written on one line puts every problem on line 1: board 2 comes before board
    /// 19, and lines are numbers too.
    #[test]
    fn problems_sort_by_line_then_field_numbers_as_numbers() {
        let mut list = vec![
            at(1, "EVENT/BOARD[19]/TRAVELLER_LINE[1]/SCORE"),
            at(1, "EVENT/BOARD[2]/TRAVELLER_LINE[10]/SCORE"),
            at(1, "EVENT/BOARD[2]/TRAVELLER_LINE[9]/SCORE"),
            at(10, "ns_score"),
            at(9, "ns_score"),
            at(1, "EVENT/BOARD[2]"),
        ];
        sort(&mut list);
        let shown: Vec<String> = list
            .iter()
            .map(|p| format!("{}:{}", p.at.line, p.at.field.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(
            shown,
            [
                "1:EVENT/BOARD[2]",
                "1:EVENT/BOARD[2]/TRAVELLER_LINE[9]/SCORE",
                "1:EVENT/BOARD[2]/TRAVELLER_LINE[10]/SCORE",
                "1:EVENT/BOARD[19]/TRAVELLER_LINE[1]/SCORE",
                "9:ns_score",
                "10:ns_score",
            ]
        );
    }
}
