//! The traveller CSV (docs/rules-input.md): a header row, then one row per table result.
//!
//! | column | |
//! |---|---|
//! | `board` | board number (required) |
//! | `club`, `section` | optional; one club and one section by default |
//! | `ns_pair`, `ew_pair` | pair numbers as written on the traveller (required) |
//! | `contract` | `3NT`, `4HX`, `6DXX`, `PASS`; `NP` for not played; empty when the row gives a score or an adjustment |
//! | `declarer`, `tricks` | `N`/`E`/`S`/`W`; tricks taken by declarer, 0-13 (needed with a contract) |
//! | `ns_score` | optional when the contract is given; when both are given and disagree, the recorded score stands (a warning) |
//! | `ew_score` | optional; present and not equal to -ns_score: a split score |
//! | `adjusted` | `AVE`, `AVE+`, `AVE-`, or `NS%/EW%` such as `60/40`; or a director's award in IMPs, `NS/EW IMP` such as `0/1.2 IMP` (IMP scoring takes the IMPs as given; matchpoint scoring an average) |
//! | `arrow_switch` | `true` when the pairs played the other direction's cards |
//! | `group` | fouled-board group |
//! | `movement` | `mitchell` (default: NS and EW numbers are different pairs) or `howell` |
//!
//! A row needs a result: a contract, a score or an adjusted score, so the header has at least one
//! of `contract`, `ns_score`, `ew_score`, `adjusted`. A score given alone, and an assigned (split)
//! score, need only be a possible bridge score, a multiple of 10 from -7600 to 7600; one no contract
//! makes at the board's vulnerability is scored with a warning. The informational columns `lead`,
//! `table`, `round`, `ns_mp`/`ew_mp`, `ns_imps`/`ew_imps`, `ns_names`/`ew_names` are kept (see
//! `csv_extras`); `ns_pct`, `ew_pct` and `comment` are skipped. LF or CRLF line ends, a UTF-8
//! byte-order mark and quoted fields (which may hold line breaks) are all read alike.
//!
//! Large files are cut at line ends into chunks read in parallel (`csv_fast`). The file's result
//! columns are made first, with room for a result a line, and each chunk moves its results
//! straight into its own part of them, so that they are held once; each chunk's names are joined
//! on a thread of its own while later chunks are read (`csv_parts`). No row allocates. A file with quoted fields is read as one chunk, since a quoted
//! field may hold a line break.

use rayon::prelude::*;
use simpairs_scoring::field::Joined;
use simpairs_scoring::{Field, LegalScores, Movement};

use crate::csv_parts::read_and_join;
pub use crate::csv_row::COLUMNS;
use crate::csv_row::{Absent, Chunk, Layout, text_row};
use crate::error::{Error, Location, Problem, Problems, Result};
pub use crate::lines::Lines;
use crate::row::FieldBuilder;

/// Columns other programs (and our own export) add that do not change the result; they are skipped.
pub(crate) const IGNORED_COLUMNS: [&str; 12] = [
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
    /// What accepted rows say that a scorer should look at, sorted by line.
    pub warnings: Vec<Problem>,
}

pub(crate) fn layout(file: &str, header: &[u8]) -> Result<Layout> {
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
    let at = |field: Option<&str>| Location {
        file: file.to_string(),
        line: 1,
        field: field.map(str::to_string),
    };
    let (index, mut problems, unknown) = columns_of(&record, &at);
    let required_missing = missing_columns(&index, &REQUIRED);
    if !required_missing.is_empty() {
        // One problem says it all: what is missing, what the header has instead.
        let mut message = format!(
            "the header has no {} column (every traveller CSV has board, ns_pair and ew_pair); the \
             header has: {}",
            required_missing.join(" or "),
            header_names(header)
        );
        if !unknown.is_empty() {
            message.push_str(&format!(
                " ({} {} not a column simpairs reads)",
                unknown.join(", "),
                if unknown.len() == 1 { "is" } else { "are" }
            ));
        }
        problems = Problems::default();
        problems.push(Problem {
            at: at(Some(&required_missing.join(", "))),
            message,
        });
    } else if missing_columns(&index, &RESULT_COLUMNS).len() == RESULT_COLUMNS.len() {
        problems.push(Problem {
            at: at(None),
            message: format!(
                "the header has no column giving a result (ns_score, ew_score, contract with declarer \
                 and tricks, or adjusted), so no row can be scored; the header has: {}",
                header_names(header)
            ),
        });
    }
    problems.into_result()?;
    Ok(Layout {
        index,
        width: record.len(),
    })
}

/// Columns every traveller CSV has.
const REQUIRED: [&str; 3] = ["board", "ns_pair", "ew_pair"];
/// Columns of which a traveller CSV has at least one: a row's result.
const RESULT_COLUMNS: [&str; 4] = ["contract", "ns_score", "ew_score", "adjusted"];

/// The column index of each known column, the header's problems (columns twice, not UTF-8, unknown)
/// and the unknown names.
fn columns_of(
    record: &csv::ByteRecord,
    at: &dyn Fn(Option<&str>) -> Location,
) -> ([Option<usize>; 14], Problems, Vec<String>) {
    let mut index = [None; 14];
    let mut problems = Problems::default();
    let mut unknown = Vec::new();
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
            unknown.push(name);
        }
    }
    (index, problems, unknown)
}

/// Which of `names` the header lacks.
fn missing_columns(index: &[Option<usize>; 14], names: &[&'static str]) -> Vec<&'static str> {
    names
        .iter()
        .copied()
        .filter(|name| {
            COLUMNS
                .iter()
                .position(|c| c == name)
                .is_none_or(|k| index[k].is_none())
        })
        .collect()
}

/// The header's column names as written, for messages.
fn header_names(header: &[u8]) -> String {
    String::from_utf8_lossy(crate::text::strip_bom(header))
        .trim_end()
        .split(',')
        .map(|c| c.trim().trim_matches('"').trim())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The 1-based line of `bytes` a record read by the csv crate starts on. The crate's own line numbers
/// cannot be used: it ends a record at the `\r` of a Windows line end and counts the `\n` as the
/// start of the next record, one line too early. The record's byte offset, moved past any line-end
/// bytes, is where it really starts.
pub(crate) fn record_line(
    bytes: &[u8],
    position: Option<&csv::Position>,
    lines: &mut crate::text::LineCounter<'_>,
) -> u64 {
    let mut start = position.map_or(0, |p| p.byte() as usize).min(bytes.len());
    while matches!(bytes.get(start), Some(b'\r' | b'\n')) {
        start += 1;
    }
    lines.line_at(start)
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
    let mut absent = Absent::default();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    let mut counter = crate::text::LineCounter::new(bytes);
    loop {
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
                let line = first_line + record_line(bytes, record.position(), &mut counter) - 1;
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
                if let Err(p) = builder.push(&text_row(&text), line)
                    && !absent.note(&layout, line, p.field, &p.message)
                {
                    problems.push(Problem {
                        at: at(Some(p.field)),
                        message: p.message,
                    });
                }
            }
        }
    }
    Chunk::new(builder, problems, absent)
}

/// Splits the body into chunks of about `chunk` bytes that end at line ends; returns (start
/// offset, end offset, first line) of each, and the number of the body's last line.
fn chunk_starts(body: &[u8], first_line: u64, chunk: usize) -> (Vec<(usize, usize, u64)>, u64) {
    let mut bounds = vec![0];
    let mut at = chunk;
    while at < body.len() {
        match memchr::memchr(b'\n', &body[at..]) {
            Some(nl) => {
                let end = at + nl + 1;
                if end < body.len() {
                    bounds.push(end);
                }
                at = end + chunk;
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
    (out, line)
}

/// Reads a traveller CSV. `file` names the file in messages; nothing of a file with problems is kept.
pub fn read(file: &str, bytes: &[u8]) -> Result<Read> {
    read_in_chunks(file, bytes, CHUNK_BYTES)
}

/// [`read`] with chunks of about `chunk` bytes.
fn read_in_chunks(file: &str, bytes: &[u8], chunk: usize) -> Result<Read> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let header_end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    let layout = layout(file, &bytes[..header_end])?;
    let body = &bytes[header_end..];
    let legal = LegalScores::new();
    let started = std::time::Instant::now();
    let quoted = memchr::memchr(b'"', body).is_some();
    if quoted || body.len() <= chunk {
        let chunk = if quoted {
            read_chunk(file, body, 2, layout, &legal)
        } else {
            crate::csv_fast::read_chunk_fast(file, body, 2, layout, &legal)
        };
        return Merged::one(file, &bytes[..header_end], chunk, started);
    }
    let (starts, last_line) = chunk_starts(body, 2, chunk);
    let firsts: Vec<u64> = starts.iter().map(|s| s.2).collect();
    let read = |k: usize| -> std::result::Result<Chunk<'_>, std::convert::Infallible> {
        let (start, end, line) = starts[k];
        let bytes = &body[start..end];
        Ok(crate::csv_fast::read_chunk_fast(
            file, bytes, line, layout, &legal,
        ))
    };
    let mut merged = Merged::new(file);
    let room = room(&firsts, last_line + 1);
    let Ok(joined) = read_and_join(&room, read, |chunk| merged.add(chunk));
    tracing::debug!(elapsed = ?started.elapsed(), "csv: chunks read and joined");
    merged.finish(&bytes[..header_end], Some(joined), started)
}

/// Room for each chunk's results, one a line: `firsts` are the chunks' first lines, `end` the
/// line after the last chunk's last.
fn room(firsts: &[u64], end: u64) -> Vec<usize> {
    firsts
        .iter()
        .zip(firsts.iter().skip(1).chain([&end]))
        .map(|(first, next)| (next - first) as usize)
        .collect()
}

/// Reads a large traveller CSV without holding the whole file: `fetch(offset, buffer)` fills
/// `buffer` with the file's bytes from `offset`; `len` is the file's length. Each worker reads a
/// chunk into a buffer of its own, reused, and parses it while it is still in the cache, which
/// saves faulting in and filling a buffer the size of the file. The chunks are found in a first
/// pass (a newline count per chunk: the line numbers of messages), then read again to be parsed.
///
/// `Ok(None)` when the file is not for this path: quoted fields (a quoted newline could straddle
/// chunks), a byte-order mark, or a file too small to be worth it. The caller then reads the
/// whole file and calls [`read`]. Errors from `fetch` are reported naming the file.
pub fn read_ranged(
    file: &str,
    len: u64,
    header: &[u8],
    fetch: &(dyn Fn(u64, &mut [u8]) -> std::io::Result<()> + Sync),
) -> Result<Option<Read>> {
    if len < 2 * CHUNK_BYTES as u64 {
        return Ok(None);
    }
    read_in_ranges(file, len, header, fetch, CHUNK_BYTES as u64)
}

/// [`read_ranged`] with ranges of `chunk` bytes.
fn read_in_ranges(
    file: &str,
    len: u64,
    header: &[u8],
    fetch: &(dyn Fn(u64, &mut [u8]) -> std::io::Result<()> + Sync),
    chunk: u64,
) -> Result<Option<Read>> {
    let Some(header_end) = memchr::memchr(b'\n', header) else {
        return Ok(None);
    };
    if header.starts_with(b"\xef\xbb\xbf") {
        return Ok(None);
    }
    let layout = layout(file, &header[..=header_end])?;
    let started = std::time::Instant::now();
    let io_error = |e| read_failed(file, e);
    let body_start = header_end as u64 + 1;
    let ranges = (len - body_start).div_ceil(chunk) as usize;
    // Pass one: for each range of the body, its newlines, whether it holds a quote, and where
    // its first line starts (a range starts its chunk at the line after the first newline found
    // from the byte before it; the first range at the body's start).
    struct Scan {
        newlines: u64,
        quoted: bool,
        first_newline: Option<u64>,
    }
    let buffers = Buffers::default();
    let scans: Vec<Scan> = (0..ranges)
        .into_par_iter()
        .map(|k| -> std::io::Result<Scan> {
            let from = body_start + k as u64 * chunk;
            let to = (from + chunk).min(len);
            // From the byte before, so that a newline just before the range counts as its own.
            let at = if k == 0 { from } else { from - 1 };
            buffers.with((to - at) as usize, |buffer| {
                fetch(at, buffer)?;
                let own = &buffer[(from - at) as usize..];
                Ok(Scan {
                    newlines: memchr::memchr_iter(b'\n', own).count() as u64,
                    quoted: memchr::memchr(b'"', own).is_some(),
                    first_newline: if k == 0 {
                        None
                    } else {
                        memchr::memchr(b'\n', buffer).map(|i| at + i as u64)
                    },
                })
            })
        })
        .collect::<std::io::Result<_>>()
        .map_err(io_error)?;
    if scans.iter().any(|s| s.quoted) {
        return Ok(None);
    }
    // Chunks: (start, end, first line). The body's first line is line 2.
    let mut bounds: Vec<(u64, u64)> = vec![(body_start, 2)];
    let mut line = 2;
    for (k, scan) in scans.iter().enumerate() {
        if k > 0
            && let Some(newline) = scan.first_newline
        {
            // The chunk starts after that newline: the lines before it are those of the earlier
            // ranges, plus one if the newline is the byte just before this range.
            let start = newline + 1;
            let before = line + u64::from(newline >= body_start + k as u64 * chunk);
            if start < len && start > bounds.last().map_or(0, |b| b.0) {
                bounds.push((start, before));
            }
        }
        line += scan.newlines;
    }
    tracing::debug!(elapsed = ?started.elapsed(), chunks = bounds.len(), "csv: chunks found");
    let legal = LegalScores::new();
    let firsts: Vec<u64> = bounds.iter().map(|b| b.1).collect();
    let read = |k: usize| -> std::io::Result<Chunk<'_>> {
        let (start, first_line) = bounds[k];
        let end = bounds.get(k + 1).map_or(len, |b| b.0);
        buffers.with((end - start) as usize, |buffer| {
            fetch(start, buffer)?;
            Ok(crate::csv_fast::read_chunk_fast(
                file, buffer, first_line, layout, &legal,
            ))
        })
    };
    let mut merged = Merged::new(file);
    let room = room(&firsts, line + 1);
    let joined = read_and_join(&room, read, |chunk| merged.add(chunk)).map_err(io_error)?;
    tracing::debug!(elapsed = ?started.elapsed(), "csv: chunks read and joined");
    merged
        .finish(&header[..=header_end], Some(joined), started)
        .map(Some)
}

/// Buffers for the ranges being read, each reused by the next range instead of allocated and
/// written whole again.
#[derive(Default)]
struct Buffers(std::sync::Mutex<Vec<Vec<u8>>>);

impl Buffers {
    /// Calls `f` with a buffer of `len` bytes.
    fn with<R>(&self, len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
        let taken = self.0.lock().ok().and_then(|mut free| free.pop());
        let mut buffer = taken.unwrap_or_default();
        buffer.resize(len, 0);
        let out = f(&mut buffer);
        if let Ok(mut free) = self.0.lock() {
            free.push(buffer);
        }
        out
    }
}

/// The error for a file that could not be read while reading it in ranges.
pub(crate) fn read_failed(file: &str, e: std::io::Error) -> Error {
    Error::at(file, 0, None, format!("cannot read the file: {e}"))
}

/// The chunks of a file taken together in order: each one's rows' problems, warnings and lines
/// added to the file's, and its movements checked against the other chunks' (one movement per
/// section).
struct Merged<'f> {
    file: &'f str,
    problems: Problems,
    absent: Absent,
    lines: Lines,
    not_played: usize,
    warnings: Vec<Problem>,
    movements: Movements,
    /// The chunks' fields (without results when their results were joined as they were read).
    parts: Vec<Field>,
}

impl<'f> Merged<'f> {
    fn new(file: &'f str) -> Merged<'f> {
        Merged {
            file,
            problems: Problems::default(),
            absent: Absent::default(),
            lines: Lines::default(),
            not_played: 0,
            warnings: Vec::new(),
            movements: Movements::default(),
            parts: Vec::new(),
        }
    }

    /// The file read in one chunk.
    fn one(
        file: &str,
        header: &[u8],
        chunk: Chunk<'_>,
        started: std::time::Instant,
    ) -> Result<Read> {
        let mut merged = Merged::new(file);
        merged.add(chunk);
        merged.finish(header, None, started)
    }

    /// Adds the next chunk, in the file's order.
    fn add(&mut self, chunk: Chunk<'_>) {
        let file = self.file;
        self.problems.extend(chunk.problems);
        self.absent.merge(chunk.absent);
        self.movements
            .check(file, chunk.movements, &mut self.problems);
        self.not_played += chunk.builder.not_played;
        let warnings = chunk.builder.warnings.into_iter().map(|w| Problem {
            at: Location {
                file: file.to_string(),
                line: w.line,
                field: Some(w.field.to_string()),
            },
            message: w.message,
        });
        self.warnings.extend(warnings);
        self.lines.append(&chunk.builder.lines);
        self.parts.push(chunk.builder.field);
    }

    /// The file read, with every chunk added: `joined` when the chunks were joined as they were
    /// read, else their fields joined now; or every problem found, a table entered twice among
    /// them.
    fn finish(
        mut self,
        header: &[u8],
        joined: Option<Joined>,
        started: std::time::Instant,
    ) -> Result<Read> {
        let (file, mut problems) = (self.file, self.problems);
        for p in self.absent.problems(file, &header_names(header)) {
            problems.push(p);
        }
        // What the quick check of a joined field's boards found tells whether a table may have
        // been entered twice.
        let (field, may_repeat) = match joined {
            Some(joined) => (joined.field, !joined.no_board_played_twice),
            None if self.parts.len() == 1 => (self.parts.pop().expect("one part"), true),
            None => (Field::concat(self.parts), true),
        };
        tracing::debug!(elapsed = ?started.elapsed(), "csv: chunks merged");
        if problems.is_empty() && may_repeat {
            duplicates(file, &field, &self.lines, &mut problems);
        }
        problems.into_result()?;
        tracing::debug!(elapsed = ?started.elapsed(), "csv: merged and checked for duplicates");
        crate::error::sort(&mut self.warnings);
        Ok(Read {
            field,
            lines: self.lines,
            not_played: self.not_played,
            warnings: self.warnings,
        })
    }
}

/// The movement of each (club, section) across chunks, with the line that set it.
#[derive(Default)]
struct Movements(rustc_hash::FxHashMap<(String, String), (Movement, u64)>);

impl Movements {
    /// A section may not be a Mitchell in one chunk and a Howell in another.
    fn check(
        &mut self,
        file: &str,
        movements: Vec<(String, String, Movement, u64)>,
        problems: &mut Problems,
    ) {
        use std::collections::hash_map::Entry;
        for (club, section, movement, line) in movements {
            match self.0.entry((club, section)) {
                Entry::Occupied(set) if set.get().0 != movement => problems.push(Problem {
                    at: Location {
                        file: file.to_string(),
                        line,
                        field: Some("movement".into()),
                    },
                    message: format!("the section's movement differs from line {}", set.get().1),
                }),
                Entry::Occupied(_) => {}
                Entry::Vacant(new) => {
                    new.insert((movement, line));
                }
            }
        }
    }
}

/// A table entered twice is a problem on the line of its second entry.
fn duplicates(file: &str, field: &Field, lines: &Lines, problems: &mut Problems) {
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

#[cfg(test)]
mod tests {
    use super::Read;

    /// What a read gives, in words: every row with its line and pairs, or the error.
    fn shown(read: &super::Result<Read>) -> Vec<String> {
        match read {
            Err(e) => vec![e.to_string()],
            Ok(r) => {
                let mut out = vec![format!("not played {}", r.not_played)];
                out.extend(r.warnings.iter().map(|w| format!("warning {w}")));
                for row in 0..r.field.len() {
                    let t = r.field.result(row);
                    out.push(format!(
                        "line {}: {:?} {} {}",
                        r.lines.line_of(row),
                        t,
                        r.field.describe_pair(t.ns),
                        r.field.describe_pair(t.ew)
                    ));
                }
                out
            }
        }
    }

    /// Reading in ranges of any size gives what reading the whole file gives, line numbers of
    /// messages included: ranges that start on a newline, just after one, inside a line, lines
    /// longer than a range, blank lines, CRLF, and files with bad rows.
    #[test]
    fn ranged_reading_equals_whole_reading() {
        let header = "board,club,ns_pair,ew_pair,ns_score\n";
        let mut files = vec![String::from(header), String::from(header)];
        let mut rng = 7u64;
        let mut next = |n: u64| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) % n
        };
        for row in 0..60u64 {
            let board = 1 + row % 4;
            let club = if next(3) == 0 {
                "North London Bridge Club"
            } else {
                "c2"
            };
            let score = [50, -50, 420, -100, 110, 620][next(6) as usize];
            files[0].push_str(&format!(
                "{board},{club},{},{},{score}\n",
                row / 4 + 1,
                100 + row / 4
            ));
            let end = if next(4) == 0 { "\r\n" } else { "\n" };
            files[1].push_str(&format!(
                "{board},{club},{},{},{score}{end}",
                row / 4 + 1,
                100 + row / 4
            ));
            if next(8) == 0 {
                files[1].push('\n');
            }
        }
        // A bad score and a duplicated table, so that messages name lines.
        let mut bad = files[0].clone();
        bad.push_str("2,c2,99,199,123\n1,c2,1,100,50\n");
        files.push(bad);
        for text in &files {
            let bytes = text.as_bytes();
            let header_end = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
            let whole = shown(&super::read("f.csv", bytes));
            let fetch = |at: u64, buffer: &mut [u8]| -> std::io::Result<()> {
                let at = at as usize;
                let part = bytes
                    .get(at..at + buffer.len())
                    .ok_or(std::io::ErrorKind::UnexpectedEof)?;
                buffer.copy_from_slice(part);
                Ok(())
            };
            for chunk in (1..48).chain([100, 1000, 1 << 20]) {
                let ranged = super::read_in_ranges(
                    "f.csv",
                    bytes.len() as u64,
                    &bytes[..header_end],
                    &fetch,
                    chunk,
                )
                .transpose()
                .expect("an unquoted file is read in ranges");
                assert_eq!(shown(&ranged), whole, "ranges of {chunk} bytes");
            }
        }
        // Quoted fields are left to the whole-file reader.
        let quoted = format!("{header}1,\"c1\",1,2,50\n");
        let fetch = |at: u64, buffer: &mut [u8]| -> std::io::Result<()> {
            buffer.copy_from_slice(&quoted.as_bytes()[at as usize..at as usize + buffer.len()]);
            Ok(())
        };
        let r = super::read_in_ranges("f.csv", quoted.len() as u64, header.as_bytes(), &fetch, 4);
        assert!(matches!(r, Ok(None)));
        // A file that shrinks under the reader is an error naming it, not a panic.
        let short = |_: u64, _: &mut [u8]| -> std::io::Result<()> {
            Err(std::io::ErrorKind::UnexpectedEof.into())
        };
        let r = super::read_in_ranges("f.csv", 1000, header.as_bytes(), &short, 64);
        let message = r.expect_err("a failed read").to_string();
        assert!(
            message.contains("f.csv") && message.contains("cannot read"),
            "{message}"
        );
    }

    /// A file of every kind of row (plain scores, contracts, adjusted and not-played results,
    /// a Howell section, blank lines) reads the same in chunks or ranges of any size as in one:
    /// each chunk's results moved into the file's columns, the room of the rows that gave none
    /// closed up, adjusted results kept with their rows.
    #[test]
    fn every_kind_of_row_reads_alike_in_chunks() {
        let header = "board,club,section,ns_pair,ew_pair,contract,declarer,tricks,ns_score,adjusted,movement\n";
        let mut text = String::from(header);
        for row in 0..90u64 {
            let board = 1 + row % 5;
            let (club, movement) = match row % 3 {
                0 => ("c1", ""),
                1 => ("North London Bridge Club", ""),
                _ => ("c3", "howell"),
            };
            let (ns, ew) = if movement.is_empty() {
                (row / 5 + 1, row / 5 + 101)
            } else {
                (2 * (row / 5) + 1, 2 * (row / 5) + 2)
            };
            let result = match row % 7 {
                0 | 3 => ",,,,,",
                1 => "4S,N,10,,,",
                2 => ",,,,AVE+,",
                4 => "NP,,,,,",
                5 => ",,,110,,",
                _ => ",,,-100,,",
            };
            let result = if result == ",,,,," { ",,,50,," } else { result };
            text.push_str(&format!("{board},{club},A,{ns},{ew},{result}{movement}\n"));
            if row % 11 == 0 {
                text.push('\n');
            }
        }
        let whole = shown(&super::read_in_chunks("f.csv", text.as_bytes(), usize::MAX));
        assert!(whole.len() > 70, "{whole:?}");
        assert!(whole[0] != "not played 0", "{whole:?}");
        let bytes = text.as_bytes();
        let fetch = |at: u64, buffer: &mut [u8]| -> std::io::Result<()> {
            buffer.copy_from_slice(&bytes[at as usize..at as usize + buffer.len()]);
            Ok(())
        };
        for chunk in (1..64).chain([200, 1000]) {
            let chunked = super::read_in_chunks("f.csv", bytes, chunk);
            assert_eq!(shown(&chunked), whole, "chunks of {chunk} bytes");
            let ranged = super::read_in_ranges(
                "f.csv",
                bytes.len() as u64,
                header.as_bytes(),
                &fetch,
                chunk as u64,
            )
            .transpose()
            .expect("read in ranges");
            assert_eq!(shown(&ranged), whole, "ranges of {chunk} bytes");
        }
    }

    /// A pair that plays a board twice is found however the file is cut into chunks: in one
    /// chunk, in two, against the other direction's pair, on boards above 64 (which the quick
    /// check of each chunk's boards cannot hold), and not at all in a file without one.
    #[test]
    fn a_table_entered_twice_is_found_in_whichever_chunks_it_lies() {
        let header = "board,club,ns_pair,ew_pair,ns_score\n";
        let rows = |first_board: u64| {
            let mut text = String::from(header);
            for row in 0..48u64 {
                let board = first_board + row % 6;
                text.push_str(&format!(
                    "{board},c1,{},{},50\n",
                    row / 6 + 1,
                    row / 6 + 101
                ));
            }
            text
        };
        let cases = [
            (rows(1), "", false),
            (rows(1), "1,c1,1,101,-50\n", true),
            (rows(1), "3,c1,9,103,-50\n", true),
            (rows(70), "", false),
            (rows(70), "75,c1,4,190,50\n", true),
        ];
        for (text, repeat, found) in cases {
            // The repeat in the middle, and at the end.
            let middle = text.len() / 2 + text[text.len() / 2..].find('\n').unwrap() + 1;
            for text in [
                format!("{}{repeat}{}", &text[..middle], &text[middle..]),
                format!("{text}{repeat}"),
            ] {
                let bytes = text.as_bytes();
                let whole = shown(&super::read_in_chunks("f.csv", bytes, usize::MAX));
                assert_eq!(
                    whole[0].contains("the same table entered twice"),
                    found,
                    "{whole:?}"
                );
                let fetch = |at: u64, buffer: &mut [u8]| -> std::io::Result<()> {
                    buffer.copy_from_slice(&bytes[at as usize..at as usize + buffer.len()]);
                    Ok(())
                };
                for chunk in (1..40).chain([100, 300]) {
                    let chunked = super::read_in_chunks("f.csv", bytes, chunk);
                    assert_eq!(shown(&chunked), whole, "chunks of {chunk} bytes");
                    let ranged = super::read_in_ranges(
                        "f.csv",
                        bytes.len() as u64,
                        header.as_bytes(),
                        &fetch,
                        chunk as u64,
                    );
                    let ranged = ranged.transpose().expect("read in ranges");
                    assert_eq!(shown(&ranged), whole, "ranges of {chunk} bytes");
                }
            }
        }
    }

    /// A line's fields are read without looking for its end first; its last number is read
    /// eight bytes at a time, past the line's end, yet ends there: at a line feed, at a carriage
    /// return and line feed, or at the chunk's end, with more digits on the next line.
    #[test]
    fn a_row_ends_at_its_line_end() {
        let layout = super::layout("f.csv", b"board,club,ns_pair,ew_pair,ns_score\n").unwrap();
        let scan = crate::csv_fast::Scan::new(&layout).expect("a plain layout");
        for (chunk, next) in [
            (&b"3,Oslo,7,17,-1430\n12345678,9"[..], 18),
            (b"3,Oslo,7,17,-1430\r\n12345678,9", 19),
            (b"3,Oslo,7,17,-1430", 17),
            (b"3,Oslo,7,17,-1430\r", 18),
            (b"3, Oslo ,7,17,-1430\n", 20),
        ] {
            let (row, after) = scan.plain(chunk, 0).expect("a plain row");
            assert_eq!(
                (
                    row.board,
                    row.club,
                    row.ns_pair,
                    row.ew_pair,
                    row.ns_score,
                    after
                ),
                (3, &b"Oslo"[..], 7, 17, -1430, next),
                "{:?}",
                String::from_utf8_lossy(chunk)
            );
        }
        // Anything else after the last field, or a line ending too soon, is for the checked way.
        for chunk in [
            &b"3,Oslo,7,17,-1430 \n"[..],
            b"3,Oslo,7,17,-1430\r\r\n",
            b"3,Oslo,7,17,-1430,\n",
            b"3,Oslo,7,17\n-1430\n",
            b"3,Oslo\n,7,17,-1430\n",
            b"3,Os\rlo,7,17,-1430\n",
            b"\n3,Oslo,7,17,-1430\n",
        ] {
            assert!(
                scan.plain(chunk, 0).is_none(),
                "{:?}",
                String::from_utf8_lossy(chunk)
            );
        }
        // A later line of the chunk reads from its own start.
        let chunk = b"1,A,1,2,50\n2,B,3,4,-100\n";
        let (row, after) = scan.plain(chunk, 11).expect("the second line");
        assert_eq!(
            (row.board, row.club, row.ns_score, after),
            (2, &b"B"[..], -100, 24)
        );
    }

    /// A line of a traveller with plain-score columns, `#` and `@` standing for the line's own NS
    /// and EW pair numbers (so that rows are not duplicate tables): mostly plain rows, with what
    /// the scan must hand to the checked way (spaces, a carriage return too many, a bad number, a
    /// short row).
    fn a_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let any = |options: &'static [&'static str]| proptest::sample::select(options.to_vec());
        let board = any(&["1", "2", "17", "4", "0", "01", " 3", "x", ""]);
        let club = any(&["c", "Oslo", " Bergen ", "Os\rlo", "", "é", "A B"]);
        let pair = any(&["#", "#", "#", "#", "0#", "# ", ""]);
        let score = any(&[
            "50",
            "-50",
            "420",
            "-100",
            "110",
            "-1430",
            "425",
            "- 50",
            "+50",
            "9999999999",
        ]);
        let end = any(&["\n", "\r\n", "\r\r\n", " \n", ",\n", "\n\n", "\r\n\r\n"]);
        let row = (board, club, pair, score, end)
            .prop_map(|(b, c, p, s, end)| format!("{b},{c},{p},@,{s}{end}"));
        let odd = any(&["\n", "1,c,1\n", "1,c,1,2,50,7\n", ",,,,\n", "1,c,1,2\r50\n"])
            .prop_map(String::from);
        prop_oneof![8 => row, 1 => odd]
    }

    proptest::proptest! {
        /// Rows read by the fast scan give what reading every row the checked way gives: the same
        /// results on the same lines, or the same problems.
        #[test]
        fn the_scan_reads_what_the_checked_way_reads(
            lines in proptest::collection::vec(a_line(), 0..40),
            last_end in proptest::bool::ANY,
        ) {
            let header = b"board,club,ns_pair,ew_pair,ns_score\n";
            let mut text: String = lines
                .iter()
                .enumerate()
                .map(|(i, line)| line.replace('#', &(i + 1).to_string()).replace('@', &(i + 500).to_string()))
                .collect();
            if last_end {
                // The chunk's last line without its line end.
                while text.ends_with('\n') || text.ends_with('\r') {
                    text.pop();
                }
            }
            let layout = super::layout("f.csv", header).unwrap();
            let legal = simpairs_scoring::LegalScores::new();
            let read = |text: &str, scan| {
                let chunk = crate::csv_fast::read_chunk_with("f.csv", text.as_bytes(), 2, layout, &legal, scan);
                shown(&super::Merged::one("f.csv", header, chunk, std::time::Instant::now()))
            };
            let scan = || crate::csv_fast::Scan::new(&layout);
            proptest::prop_assert!(scan().is_some());
            // The whole chunk (its line numbers), then each line alone (its values: a chunk with
            // a bad line says only what is wrong).
            proptest::prop_assert_eq!(read(&text, scan()), read(&text, None), "{:?}", text);
            for line in text.split_inclusive('\n') {
                proptest::prop_assert_eq!(read(line, scan()), read(line, None), "{:?}", line);
            }
        }
    }

    /// The one problem of a read, with its line and text.
    fn the_problem(text: &str) -> (u64, String) {
        let err = super::read("m.csv", text.as_bytes()).expect_err("refused");
        let problems = err.problems();
        assert_eq!(problems.len(), 1, "{err}");
        assert!(!err.to_string().contains("more problems"), "{err}");
        (problems[0].at.line, err.to_string())
    }

    /// A column the rows need is missing: one error at the header naming it and what the header
    /// has, not one per row.
    #[test]
    fn a_missing_column_is_one_error_at_the_header() {
        let rows = |row: &str| {
            (1..=80)
                .map(|i| row.replace('#', &i.to_string()))
                .collect::<String>()
        };
        let (line, message) = the_problem(&format!("board,ns_pair,ew_pair\n{}", rows("1,#,#\n")));
        assert_eq!(line, 1, "{message}");
        assert!(
            message.contains("ns_score") && message.contains("contract"),
            "{message}"
        );
        assert!(
            message.contains("the header has: board, ns_pair, ew_pair"),
            "{message}"
        );

        let (line, message) = the_problem(&format!(
            "board,ns,ew_pair,ns_score\n{}",
            rows("1,#,#,100\n")
        ));
        assert_eq!(line, 1, "{message}");
        assert!(message.contains("no ns_pair column"), "{message}");
        assert!(
            message.contains("the header has: board, ns, ew_pair, ns_score"),
            "{message}"
        );

        let (line, message) = the_problem(&format!(
            "board,ns_pair,ew_pair,contract,tricks\n{}",
            rows("1,#,#,4S,10\n")
        ));
        assert_eq!(line, 1, "{message}");
        assert!(message.contains("no declarer column"), "{message}");
        assert!(message.contains("80 rows"), "{message}");

        // Large files read in ranges say the same.
        let text = format!("board,ns_pair,ew_pair\n{}", rows("1,#,#\n"));
        let fetch = |at: u64, buffer: &mut [u8]| -> std::io::Result<()> {
            buffer.copy_from_slice(&text.as_bytes()[at as usize..at as usize + buffer.len()]);
            Ok(())
        };
        let header_end = text.find('\n').unwrap() + 1;
        let err = super::read_in_ranges(
            "m.csv",
            text.len() as u64,
            &text.as_bytes()[..header_end],
            &fetch,
            64,
        )
        .expect_err("refused");
        assert_eq!(err.problems().len(), 1, "{err}");
    }
}
