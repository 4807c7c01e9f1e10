//! The traveller CSV (SPEC section 4): a header row, then one row per table result.
//!
//! Large files are cut at line ends into chunks read in parallel, each into its own small field that is
//! merged afterwards; no row allocates. A file with quoted fields is read as one chunk, since a quoted
//! field may hold a line break.

use rayon::prelude::*;
use simpairs_scoring::{Field, LegalScores};

use crate::error::{Location, Problem, Problems, Result};
use crate::row::{FieldBuilder, TextRow};

/// Columns of the traveller CSV, in the order the SPEC lists them.
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

/// Columns other programs (and our own export) add that do not change the result; they are skipped.
pub const IGNORED_COLUMNS: [&str; 12] = [
    "table", "round", "lead", "ns_mp", "ew_mp", "ns_imps", "ew_imps", "ns_pct", "ew_pct",
    "ns_names", "ew_names", "comment",
];

const CHUNK_BYTES: usize = 4 << 20;

/// A field read from a file, with the line each result came from.
#[derive(Debug)]
pub struct Read {
    pub field: Field,
    /// Source line of each result.
    pub lines: Lines,
    /// Rows marked as not played.
    pub not_played: usize,
}

/// The source line of each result of a field, kept as runs of consecutive lines: a large file's rows
/// are almost all on consecutive lines, so this costs a few entries per chunk instead of 8 bytes per
/// result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lines {
    /// (first row, its line) of each run; within a run row `r` is on line `line + (r - row)`.
    runs: Vec<(usize, u64)>,
    len: usize,
}

impl Lines {
    pub fn new(lines: Vec<u64>) -> Lines {
        let mut out = Lines::default();
        for line in lines {
            out.push(line);
        }
        out
    }

    /// Adds the line of the next result.
    #[inline]
    pub fn push(&mut self, line: u64) {
        let continues = self
            .runs
            .last()
            .is_some_and(|&(row, first)| first + (self.len - row) as u64 == line);
        if !continues {
            self.runs.push((self.len, line));
        }
        self.len += 1;
    }

    /// Adds the lines of `other`'s results after these.
    pub fn append(&mut self, other: &Lines) {
        for (k, &(row, line)) in other.runs.iter().enumerate() {
            let end = other.runs.get(k + 1).map_or(other.len, |r| r.0);
            self.push(line);
            // The rest of the run continues the one just pushed.
            self.len += end - row - 1;
        }
    }

    /// The line result `row` came from.
    pub fn line_of(&self, row: usize) -> u64 {
        assert!(row < self.len, "row {row} of {} lines", self.len);
        let run = self.runs.partition_point(|&(first, _)| first <= row) - 1;
        let (first, line) = self.runs[run];
        line + (row - first) as u64
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Column index of each known column in the file.
#[derive(Clone, Copy, Debug)]
struct Layout {
    index: [Option<usize>; 14],
    width: usize,
}

fn layout(file: &str, header: &[u8]) -> Result<Layout> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(header);
    let mut record = csv::ByteRecord::new();
    let read = reader.read_byte_record(&mut record);
    if !matches!(read, Ok(true)) {
        return Err(crate::Error::at(
            file,
            1,
            None,
            "the file is empty: expected a header row naming the columns",
        ));
    }
    let mut index = [None; 14];
    let mut problems = Problems::default();
    let at = |field: Option<&str>| Location {
        file: file.to_string(),
        line: 1,
        field: field.map(str::to_string),
    };
    for (i, raw) in record.iter().enumerate() {
        let Ok(name) = std::str::from_utf8(raw) else {
            problems.push(Problem {
                at: at(None),
                message: format!("column {} of the header is not UTF-8 text", i + 1),
            });
            continue;
        };
        let name = name
            .trim()
            .trim_start_matches('\u{feff}')
            .to_ascii_lowercase();
        if let Some(k) = COLUMNS.iter().position(|c| *c == name) {
            if index[k].is_some() {
                problems.push(Problem {
                    at: at(Some(&name)),
                    message: format!("column {name} appears twice in the header"),
                });
            }
            index[k] = Some(i);
        } else if !IGNORED_COLUMNS.contains(&name.as_str()) {
            problems.push(Problem {
                at: at(Some(&name)),
                message: format!(
                    "unknown column {name:?}; the traveller CSV has columns {}",
                    COLUMNS.join(", ")
                ),
            });
        }
    }
    for required in ["board", "ns_pair", "ew_pair"] {
        let k = COLUMNS
            .iter()
            .position(|c| *c == required)
            .expect("a known column");
        if index[k].is_none() {
            problems.push(Problem {
                at: at(Some(required)),
                message: format!("the header has no {required} column"),
            });
        }
    }
    problems.into_result()?;
    Ok(Layout {
        index,
        width: record.len(),
    })
}

/// What one chunk produced.
struct Chunk<'l> {
    builder: FieldBuilder<'l>,
    problems: Problems,
}

fn read_chunk<'l>(
    file: &str,
    bytes: &[u8],
    first_line: u64,
    layout: Layout,
    legal: &'l LegalScores,
) -> Chunk<'l> {
    let mut builder = FieldBuilder::new(legal);
    let mut problems = Problems::default();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    loop {
        let line_of = |r: &csv::ByteRecord| first_line + r.position().map_or(1, |p| p.line()) - 1;
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Err(e) => {
                let line = e
                    .position()
                    .map_or(first_line, |p| first_line + p.line() - 1);
                problems.push(Problem {
                    at: Location {
                        file: file.to_string(),
                        line,
                        field: None,
                    },
                    message: format!("unreadable CSV: {e}"),
                });
                break;
            }
            Ok(true) => {
                let line = line_of(&record);
                if record.len() == 1
                    && record
                        .get(0)
                        .is_some_and(|f| f.iter().all(u8::is_ascii_whitespace))
                {
                    continue;
                }
                let at = |field: Option<&str>| Location {
                    file: file.to_string(),
                    line,
                    field: field.map(str::to_string),
                };
                if record.len() != layout.width {
                    problems.push(Problem {
                        at: at(None),
                        message: format!(
                            "the row has {} fields but the header has {}",
                            record.len(),
                            layout.width
                        ),
                    });
                    continue;
                }
                let mut text: [&str; 14] = [""; 14];
                let mut bad_utf8 = None;
                for (k, slot) in text.iter_mut().enumerate() {
                    if let Some(i) = layout.index[k] {
                        match std::str::from_utf8(record.get(i).unwrap_or_default()) {
                            Ok(s) => *slot = s,
                            Err(_) => bad_utf8 = Some(COLUMNS[k]),
                        }
                    }
                }
                if let Some(field) = bad_utf8 {
                    problems.push(Problem {
                        at: at(Some(field)),
                        message: "the field is not UTF-8 text".into(),
                    });
                    continue;
                }
                if let Err(p) = builder.push(&text_row(&text), line) {
                    problems.push(Problem {
                        at: at(Some(p.field)),
                        message: p.message,
                    });
                }
            }
        }
    }
    Chunk { builder, problems }
}

/// Reads a chunk without quotes line by line, splitting at commas; plain-score rows take the fast
/// path, every other row the checked one.
fn read_chunk_fast<'l>(
    file: &str,
    bytes: &[u8],
    first_line: u64,
    layout: Layout,
    legal: &'l LegalScores,
) -> Chunk<'l> {
    let mut builder = FieldBuilder::new(legal);
    // Rows are rarely shorter than 16 bytes; reserving avoids growing the columns row by row.
    builder.reserve(bytes.len() / 16);
    let mut problems = Problems::default();
    let col = |name: &str| layout.index[COLUMNS.iter().position(|c| *c == name).expect("known")];
    let (board_at, club_at, section_at, ns_at, ew_at, score_at) = (
        col("board"),
        col("club"),
        col("section"),
        col("ns_pair"),
        col("ew_pair"),
        col("ns_score"),
    );
    // Columns whose presence makes a row more than a plain score.
    let complex: Vec<usize> = [
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
    .collect();
    let mut fields: Vec<&[u8]> = Vec::with_capacity(layout.width);
    let mut line = first_line;
    // Lines are found with memchr (long spans); the few commas of a short line by a plain loop,
    // which beats restarting a vector search for every field.
    let mut ends = memchr::memchr_iter(b'\n', bytes);
    let mut start = 0;
    while start < bytes.len() {
        fields.clear();
        let end = ends.next().unwrap_or(bytes.len());
        let text = &bytes[start..end];
        fields.extend(
            text.strip_suffix(b"\r")
                .unwrap_or(text)
                .split(|&b| b == b','),
        );
        let this_line = line;
        line += 1;
        start = end + 1;
        if fields.len() == 1 && fields[0].trim_ascii().is_empty() {
            continue;
        }
        let at = |field: Option<&str>| Location {
            file: file.to_string(),
            line: this_line,
            field: field.map(str::to_string),
        };
        if fields.len() != layout.width {
            problems.push(Problem {
                at: at(None),
                message: format!(
                    "the row has {} fields but the header has {}",
                    fields.len(),
                    layout.width
                ),
            });
            continue;
        }
        let get = |i: Option<usize>| i.map_or(&b""[..], |i| fields[i]);
        if complex.iter().all(|&i| fields[i].trim_ascii().is_empty()) {
            let plain = crate::row::PlainRow {
                board: get(board_at),
                club: get(club_at),
                section: get(section_at),
                ns_pair: get(ns_at),
                ew_pair: get(ew_at),
                ns_score: get(score_at),
            };
            if builder.push_plain(&plain, this_line) {
                continue;
            }
        }
        let mut text: [&str; 14] = [""; 14];
        let mut bad_utf8 = None;
        for (k, slot) in text.iter_mut().enumerate() {
            if let Some(i) = layout.index[k] {
                match std::str::from_utf8(fields[i]) {
                    Ok(s) => *slot = s,
                    Err(_) => bad_utf8 = Some(COLUMNS[k]),
                }
            }
        }
        if let Some(field) = bad_utf8 {
            problems.push(Problem {
                at: at(Some(field)),
                message: "the field is not UTF-8 text".into(),
            });
            continue;
        }
        if let Err(p) = builder.push(&text_row(&text), this_line) {
            problems.push(Problem {
                at: at(Some(p.field)),
                message: p.message,
            });
        }
    }
    Chunk { builder, problems }
}

fn text_row<'a>(text: &[&'a str; 14]) -> TextRow<'a> {
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

/// Splits the body into chunks that end at line ends; returns (start offset, first line) of each.
fn chunk_starts(body: &[u8], first_line: u64, quoted: bool) -> Vec<(usize, usize, u64)> {
    if quoted || body.len() <= CHUNK_BYTES {
        return vec![(0, body.len(), first_line)];
    }
    let mut bounds = vec![0];
    let mut at = CHUNK_BYTES;
    while at < body.len() {
        match memchr::memchr(b'\n', &body[at..]) {
            Some(nl) => {
                let end = at + nl + 1;
                if end < body.len() {
                    bounds.push(end);
                }
                at = end + CHUNK_BYTES;
            }
            None => break,
        }
    }
    bounds.push(body.len());
    let newlines: Vec<u64> = bounds
        .par_windows(2)
        .map(|w| memchr::memchr_iter(b'\n', &body[w[0]..w[1]]).count() as u64)
        .collect();
    let mut line = first_line;
    let mut out = Vec::with_capacity(newlines.len());
    for (w, n) in bounds.windows(2).zip(newlines) {
        out.push((w[0], w[1], line));
        line += n;
    }
    out
}

/// Reads a traveller CSV. `file` names the file in messages; nothing of a file with problems is kept.
pub fn read(file: &str, bytes: &[u8]) -> Result<Read> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let header_end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    let layout = layout(file, &bytes[..header_end])?;
    let body = &bytes[header_end..];
    let legal = LegalScores::new();
    let started = std::time::Instant::now();
    let quoted = memchr::memchr(b'"', body).is_some();
    let chunks: Vec<Chunk<'_>> = chunk_starts(body, 2, quoted)
        .into_par_iter()
        .map(|(start, end, line)| {
            if quoted {
                read_chunk(file, &body[start..end], line, layout, &legal)
            } else {
                read_chunk_fast(file, &body[start..end], line, layout, &legal)
            }
        })
        .collect();

    tracing::debug!(elapsed = ?started.elapsed(), chunks = chunks.len(), "csv: chunks parsed");
    let mut problems = Problems::default();
    let mut lines = Lines::default();
    let mut not_played = 0;
    let mut movements: rustc_hash::FxHashMap<(String, String), (simpairs_scoring::Movement, u64)> =
        rustc_hash::FxHashMap::default();
    let mut parts = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        problems.extend(chunk.problems);
        for (club, section, movement, line) in chunk.builder.movements() {
            match movements.get(&(club.to_string(), section.to_string())) {
                Some(&(m, first)) if m != movement => problems.push(Problem {
                    at: Location {
                        file: file.to_string(),
                        line,
                        field: Some("movement".into()),
                    },
                    message: format!("the section's movement differs from line {first}"),
                }),
                Some(_) => {}
                None => {
                    movements.insert((club.to_string(), section.to_string()), (movement, line));
                }
            }
        }
        not_played += chunk.builder.not_played;
        lines.append(&chunk.builder.lines);
        parts.push(chunk.builder.field);
    }
    tracing::debug!(elapsed = ?started.elapsed(), "csv: parts listed");
    let field = if parts.len() == 1 {
        parts.pop().expect("one part")
    } else {
        Field::concat(parts)
    };
    tracing::debug!(elapsed = ?started.elapsed(), "csv: chunks merged");
    if problems.is_empty() {
        for (first, again) in field.duplicate_rows() {
            let r = field.result(again);
            problems.push(Problem {
                at: Location {
                    file: file.to_string(),
                    line: lines.line_of(again),
                    field: None,
                },
                message: format!(
                    "the same table entered twice: board {} with {} and {} was already on line {}",
                    r.board,
                    field.describe_pair(r.ns),
                    field.describe_pair(r.ew),
                    lines.line_of(first)
                ),
            });
        }
    }
    problems.into_result()?;
    tracing::debug!(elapsed = ?started.elapsed(), "csv: merged and checked for duplicates");
    Ok(Read {
        field,
        lines,
        not_played,
    })
}

#[cfg(test)]
mod tests {
    use super::Lines;

    #[test]
    fn lines_keep_runs_and_join_them() {
        let given = vec![2, 3, 4, 6, 7, 9, 10, 11, 12];
        let lines = Lines::new(given.clone());
        assert_eq!(lines.len(), given.len());
        assert_eq!(lines.runs.len(), 3, "2-4, 6-7, 9-12");
        for (row, &line) in given.iter().enumerate() {
            assert_eq!(lines.line_of(row), line);
        }
        // Appending: a run continuing the last one merges with it.
        let (a, b) = given.split_at(4);
        let mut joined = Lines::new(a.to_vec());
        joined.append(&Lines::new(b.to_vec()));
        assert_eq!(joined, lines);
        let mut joined = Lines::new(vec![1]);
        joined.append(&Lines::new(vec![2, 3, 8]));
        assert_eq!(joined, Lines::new(vec![1, 2, 3, 8]));
        assert_eq!(joined.runs.len(), 2);
        assert!(Lines::default().is_empty());
    }
}
