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

    /// The problems listed.
    pub fn problems(&self) -> &[Problem] {
        match self {
            Error::Rejected { problems, .. } => problems,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Collects problems, keeping the first [`MAX_REPORTED`].
#[derive(Debug, Default)]
pub struct Problems {
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
    pub fn into_result(mut self) -> Result<()> {
        if self.list.is_empty() {
            return Ok(());
        }
        self.list
            .sort_by(|a, b| (a.at.line, &a.at.field).cmp(&(b.at.line, &b.at.field)));
        Err(Error::Rejected {
            problems: self.list,
            more: self.more,
        })
    }
}
