//! The traveller CSV (docs/rules-input.md): a header row, then one row per table result.
//!
//! | column | |
//! |---|---|
//! | `board` | board number (required) |
//! | `club`, `section` | optional; one club and one section by default |
//! | `ns_pair`, `ew_pair` | pair numbers as written on the traveller (required) |
//! | `contract` | `3NT`, `4HX`, `6DXX`, `PASS`; `NP` for not played; empty when the row gives a score or an adjustment |
//! | `declarer`, `tricks` | `N`/`E`/`S`/`W`; tricks taken by declarer, 0-13, or the result against the contract, `=`, `+1`, `-2` (4S `+1` is 11 tricks) (needed with a contract) |
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
//! Large files are cut at line ends into chunks read in parallel (`csv_fast`), without a first
//! pass over the file: each chunk's lines are counted from its own start, and put right, its names
//! joined and its results appended to the file's field, in order, on a thread of its own while
//! later chunks are read (`csv_parts`). No row allocates. A file with quoted fields is read as one
//! chunk, since a quoted field may hold a line break.

use simpairs_scoring::field::Joined;
use simpairs_scoring::{Field, LegalScores};

use crate::csv_parts::{InMemory, Reading, Source, Stop, read_and_join};
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
    /// The tables they name.
    pub not_played_tables: Vec<crate::NotPlayed>,
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
pub(crate) const REQUIRED: [&str; 3] = ["board", "ns_pair", "ew_pair"];

/// The names of a header line's columns split at `separator`, as a column is looked up: without
/// the byte-order mark, spaces and quotes about them, in lower case.
pub(crate) fn header_cells(header: &[u8], separator: u8) -> Vec<String> {
    String::from_utf8_lossy(crate::text::strip_bom(header))
        .trim_end()
        .split(char::from(separator))
        .map(|c| c.trim().trim_matches('"').trim().to_ascii_lowercase())
        .collect()
}
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
        } else if name.is_empty() || IGNORED_COLUMNS.contains(&name.as_str()) {
            // Skipped: a column without a name (a spreadsheet's empty header cells past its last
            // column) holds nothing simpairs reads, nor do the columns other programs add.
        } else {
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
        .filter(|c| !c.is_empty())
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
                // A blank line, or a row of empty fields (a spreadsheet's formatted empty row).
                if record.iter().all(|f| f.iter().all(u8::is_ascii_whitespace)) {
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
    // The counter has counted the line feeds up to the last record; only the rest is counted.
    let line_ends = counter.line_at(bytes.len()) - 1;
    debug_assert_eq!(line_ends, memchr::memchr_iter(b'\n', bytes).count() as u64);
    Chunk::new(builder, problems, absent, line_ends)
}

/// Reads a traveller CSV. `file` names the file in messages; nothing of a file with problems is kept.
pub fn read(file: &str, bytes: &[u8]) -> Result<Read> {
    read_in_chunks(file, bytes, CHUNK_BYTES)
}

/// [`read`] with chunks of about `chunk` bytes.
fn read_in_chunks(file: &str, bytes: &[u8], chunk: usize) -> Result<Read> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let header_end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    let header = &bytes[..header_end];
    let layout = layout(file, header)?;
    let body = &bytes[header_end..];
    let legal = LegalScores::new();
    let started = std::time::Instant::now();
    // A quoted field may hold a line end, so a file with quotes is read as one chunk: looked for
    // first, since the bytes are at hand.
    let quoted = memchr::memchr(b'"', body).is_some();
    if body.len() > chunk && !quoted {
        let reading = Reading {
            file,
            layout,
            legal: &legal,
            range: chunk as u64,
            first_line: 2,
        };
        // Neither stop can happen here (no quotes; bytes in memory): were one to, the file is
        // read as one chunk below.
        if let Ok(read) = read_joined(&InMemory(body), reading, header, started) {
            return read;
        }
    }
    let chunk = if quoted {
        read_chunk(file, body, 2, layout, &legal)
    } else {
        crate::csv_fast::read_chunk_fast(file, body, 2, layout, &legal)
    };
    Merged::one(file, header, chunk, started)
}

/// The file read in chunks ([`read_and_join`]), its chunks merged as they are joined.
fn read_joined<'l>(
    source: &impl Source,
    reading: Reading<'l>,
    header: &[u8],
    started: std::time::Instant,
) -> std::result::Result<Result<Read>, Stop> {
    let mut merged = Merged::new(reading.file);
    let joined = read_and_join(source, reading, |chunk| merged.add(chunk))?;
    tracing::debug!(elapsed = ?started.elapsed(), "csv: chunks read and joined");
    Ok(merged.finish(header, joined, started))
}

/// Reads a large traveller CSV without holding the whole file: `fetch(offset, buffer)` fills
/// `buffer` with the file's bytes from `offset`; `len` is the file's length. Each worker reads a
/// chunk into a buffer of its own, reused, and parses it while it is still in the cache, which
/// saves faulting in and filling a buffer the size of the file; the file is read once.
///
/// `Ok(None)` when the file is not for this path: quoted fields (a quoted line end could straddle
/// chunks), text that is not UTF-8 in a row with a problem (the whole-file reading reads it in its
/// code page), a byte-order mark, or a file too small to be worth it. The caller then reads the
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
    let header = &header[..=header_end];
    let layout = layout(file, header)?;
    let started = std::time::Instant::now();
    let legal = LegalScores::new();
    let reading = Reading {
        file,
        layout,
        legal: &legal,
        range: chunk,
        first_line: 2,
    };
    let body_start = header_end as u64 + 1;
    let source = Fetched {
        start: body_start,
        len: len.saturating_sub(body_start),
        fetch,
    };
    match read_joined(&source, reading, header, started) {
        Err(Stop::Quoted | Stop::NotUtf8) => Ok(None),
        Err(Stop::Io(e)) => Err(read_failed(file, e)),
        Ok(read) => read.map(Some),
    }
}

/// A file's body read from the file in ranges, by `fetch`.
struct Fetched<'f> {
    /// Where the body starts in the file, and its length.
    start: u64,
    len: u64,
    fetch: &'f (dyn Fn(u64, &mut [u8]) -> std::io::Result<()> + Sync),
}

impl Source for Fetched<'_> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read(&self, from: u64, to: u64, buffer: &mut Vec<u8>) -> std::io::Result<()> {
        buffer.resize((to - from) as usize, 0);
        (self.fetch)(self.start + from, buffer)
    }

    fn view<'b>(&'b self, _: u64, _: u64, buffer: &'b [u8]) -> &'b [u8] {
        buffer
    }
}

/// The error for a file that could not be read while reading it in ranges.
pub(crate) fn read_failed(file: &str, e: std::io::Error) -> Error {
    Error::at(file, 0, None, format!("cannot read the file: {e}"))
}

/// The chunks of a file taken together in order: each one's rows' problems, warnings and lines
/// added to the file's.
struct Merged<'f> {
    file: &'f str,
    problems: Problems,
    absent: Absent,
    lines: Lines,
    not_played: usize,
    not_played_tables: Vec<crate::NotPlayed>,
    warnings: Vec<Problem>,
}

impl<'f> Merged<'f> {
    fn new(file: &'f str) -> Merged<'f> {
        Merged {
            file,
            problems: Problems::default(),
            absent: Absent::default(),
            lines: Lines::default(),
            not_played: 0,
            not_played_tables: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The file read in one chunk: its field as the chunk read it, checked for tables entered
    /// twice by the exact search.
    fn one(
        file: &str,
        header: &[u8],
        mut chunk: Chunk<'_>,
        started: std::time::Instant,
    ) -> Result<Read> {
        let field = std::mem::take(&mut chunk.builder.field);
        let mut merged = Merged::new(file);
        merged.add(chunk);
        let whole = Joined {
            field,
            no_board_played_twice: false,
        };
        merged.finish(header, whole, started)
    }

    /// Adds the next chunk, in the file's order.
    fn add(&mut self, chunk: Chunk<'_>) {
        let file = self.file;
        self.problems.extend(chunk.problems);
        self.absent.merge(chunk.absent);
        self.not_played += chunk.builder.not_played;
        self.not_played_tables
            .extend(chunk.builder.not_played_tables);
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
    }

    /// The file read, with every chunk added and their results `joined`; or every problem found,
    /// a table entered twice among them.
    fn finish(
        mut self,
        header: &[u8],
        joined: Joined,
        started: std::time::Instant,
    ) -> Result<Read> {
        let (file, mut problems) = (self.file, self.problems);
        for p in self.absent.problems(file, &header_names(header)) {
            problems.push(p);
        }
        // What the quick check of the joined chunks' boards found tells whether a table may
        // have been entered twice.
        let (field, may_repeat) = (joined.field, !joined.no_board_played_twice);
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
            not_played_tables: self.not_played_tables,
            warnings: self.warnings,
        })
    }
}

/// A table entered twice is a problem on the line of its second entry.
fn duplicates(file: &str, field: &Field, lines: &Lines, problems: &mut Problems) {
    for (first, again) in field.duplicate_rows() {
        problems.push(Problem {
            at: Location {
                file: file.to_string(),
                line: lines.line_of(again),
                field: None,
            },
            message: played_twice(field, first, lines.line_of(first), again),
        });
    }
}

/// What is wrong when row `again` seats a pair that row `first` (on line `first_line`) seated on
/// the same board: the same table entered twice when both pairs are the same, or else the pair
/// that repeats the board, with whom it played it on that line and here. `first` is the row
/// where the first repeated pair of `again` (NS, then EW) played the board.
pub(crate) fn played_twice(field: &Field, first: usize, first_line: u64, again: usize) -> String {
    let (was, now) = (field.result(first), field.result(again));
    let pair = |id| field.describe_pair(id);
    if [now.ns, now.ew] == [was.ns, was.ew] || [now.ns, now.ew] == [was.ew, was.ns] {
        return format!(
            "the same table entered twice: board {} with {} and {} was already on line {first_line}",
            now.board,
            pair(now.ns),
            pair(now.ew)
        );
    }
    let (repeated, opponent_here) = if now.ns == was.ns || now.ns == was.ew {
        (now.ns, now.ew)
    } else {
        (now.ew, now.ns)
    };
    let opponent_there = if was.ns == repeated { was.ew } else { was.ns };
    format!(
        "pair {} has played board {} already, on line {first_line} (against {}); here it plays it \
         again against {}",
        pair(repeated),
        now.board,
        pair(opponent_there),
        pair(opponent_here)
    )
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

    /// Reads `text` in chunks and in ranges of each of `sizes` bytes, and asserts that each reading
    /// shows `whole` (the file read in one piece).
    fn reads_alike_in_pieces(text: &str, whole: &[String], sizes: impl Iterator<Item = usize>) {
        let bytes = text.as_bytes();
        let header_end = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        let fetch = |at: u64, buffer: &mut [u8]| -> std::io::Result<()> {
            buffer.copy_from_slice(&bytes[at as usize..at as usize + buffer.len()]);
            Ok(())
        };
        for size in sizes {
            let chunked = super::read_in_chunks("f.csv", bytes, size);
            assert_eq!(shown(&chunked), whole, "chunks of {size} bytes");
            let len = bytes.len() as u64;
            let ranged =
                super::read_in_ranges("f.csv", len, &bytes[..header_end], &fetch, size as u64);
            let ranged = ranged.transpose().expect("read in ranges");
            assert_eq!(shown(&ranged), whole, "ranges of {size} bytes");
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
                0 => ",,,,,",
                1 => "4S,N,10,,,",
                2 => ",,,,AVE+,",
                // Tricks against the contract, read the checked way.
                3 => ["4S,N,+1,,,", "3NT,S,=,,,", "2H,E,-2,,,"][row as usize % 3],
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
        reads_alike_in_pieces(&text, &whole, (1..64).chain([200, 1000]));
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
                let whole = shown(&super::read_in_chunks("f.csv", text.as_bytes(), usize::MAX));
                // The same table, or a pair that played one of its boards at another table.
                let told = whole[0].contains("the same table entered twice")
                    || whole[0].contains("has played board");
                assert_eq!(told, found, "{whole:?}");
                reads_alike_in_pieces(&text, &whole, (1..40).chain([100, 300]));
            }
        }
    }

    /// A section given another movement in a later chunk is told on every line that gives it,
    /// naming the line that set the first, however the file is cut: each chunk's lines put right,
    /// and a chunk at odds with an earlier one read again knowing the earlier one's movements.
    #[test]
    fn a_section_s_movement_is_checked_across_chunks() {
        let header = "board,club,section,ns_pair,ew_pair,ns_score,movement\n";
        let mut text = String::from(header);
        for row in 0..40u64 {
            let movement = if row == 33 || row == 37 { "howell" } else { "" };
            let (ns, ew) = (row / 4 + 1, row / 4 + 101);
            text.push_str(&format!("{},c1,A,{ns},{ew},50,{movement}\n", row % 4 + 1));
        }
        let bytes = text.as_bytes();
        let whole = shown(&super::read_in_chunks("f.csv", bytes, usize::MAX));
        let said = "section is howell here but mitchell on line 2";
        assert_eq!(
            whole,
            vec![format!(
                "f.csv:35: field movement: {said}\nf.csv:39: field movement: {said}"
            )]
        );
        reads_alike_in_pieces(&text, &whole, (1..60).chain([200, 1000]));
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

    /// The headers the scan reads: a plain score's columns in the order large files write them,
    /// with and without a section (each read by code written for that order), and in another
    /// order with a column that does not change the result (read by looking at each column's
    /// role).
    const SCANNED_HEADERS: [&str; 3] = [
        "board,club,ns_pair,ew_pair,ns_score\n",
        "board,club,section,ns_pair,ew_pair,ns_score\n",
        "club,board,table,ns_pair,ew_pair,ns_score\n",
    ];

    /// A line for header `h` of [`SCANNED_HEADERS`], `#` and `@` standing for the line's own NS
    /// and EW pair numbers (so that rows are not duplicate tables): mostly plain rows, with what
    /// the scan must hand to the checked way (spaces, a carriage return too many, a bad number, a
    /// short row).
    fn a_line(h: usize) -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let any = |options: &'static [&'static str]| proptest::sample::select(options.to_vec());
        let board = any(&["1", "2", "17", "4", "0", "01", " 3", "x", ""]);
        // Long names put the line's last numbers across the end of the bytes a line is first
        // read from (`csv_fast::WINDOW`).
        let club = any(&[
            "c",
            "Oslo",
            // As long as the one before and starting alike: told apart by the bytes after.
            "Olso",
            " Bergen ",
            "Os\rlo",
            "",
            "é",
            "A B",
            "The Bridge Club of the Royal Borough of Kensington and C",
            "The Bridge Club of the Royal Borough of Kensington an",
            "The Bridge Club of the Royal Borough of Kensington",
        ]);
        let other = any(&["A", "", " B ", "x\ry", "7"]);
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
        let row =
            (board, club, other, pair, score, end).prop_map(move |(b, c, o, p, s, end)| match h {
                0 => format!("{b},{c},{p},@,{s}{end}"),
                1 => format!("{b},{c},{o},{p},@,{s}{end}"),
                _ => format!("{c},{b},{o},{p},@,{s}{end}"),
            });
        let odd = any(&["\n", "1,c,1\n", "1,c,1,2,50,7\n", ",,,,\n", "1,c,1,2\r50\n"])
            .prop_map(String::from);
        prop_oneof![8 => row, 1 => odd]
    }

    proptest::proptest! {
        /// Rows read by the fast scan give what reading every row the checked way gives: the same
        /// results on the same lines, or the same problems, whichever header the scan reads.
        #[test]
        fn the_scan_reads_what_the_checked_way_reads(
            (h, lines) in proptest::strategy::Strategy::prop_flat_map(0..SCANNED_HEADERS.len(), |h| {
                (proptest::strategy::Just(h), proptest::collection::vec(a_line(h), 0..40))
            }),
            last_end in proptest::bool::ANY,
        ) {
            let header = SCANNED_HEADERS[h].as_bytes();
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
                let builder = crate::row::FieldBuilder::new(&legal);
                let chunk = crate::csv_fast::read_chunk_with("f.csv", text.as_bytes(), 2, layout, builder, scan);
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

    proptest::proptest! {
        /// Clubs of the same length that differ in one byte, one after the other, are told apart
        /// by the scan as by the checked way, with rows it does not take (a name with spaces about
        /// it) between them.
        #[test]
        fn the_scan_tells_apart_clubs_alike(
            clubs in proptest::collection::vec(
                proptest::sample::select(vec!["Oslo", "Olso", "Osla", "slo", "Oslo7", " Oslo ", "é", ""]),
                1..30,
            ),
        ) {
            let header = SCANNED_HEADERS[0].as_bytes();
            let text: String = clubs
                .iter()
                .enumerate()
                .map(|(i, club)| format!("1,{club},{},{},50\n", i + 1, i + 500))
                .collect();
            let layout = super::layout("f.csv", header).unwrap();
            let legal = simpairs_scoring::LegalScores::new();
            let read = |scan| {
                let builder = crate::row::FieldBuilder::new(&legal);
                let chunk = crate::csv_fast::read_chunk_with("f.csv", text.as_bytes(), 2, layout, builder, scan);
                shown(&super::Merged::one("f.csv", header, chunk, std::time::Instant::now()))
            };
            proptest::prop_assert_eq!(read(crate::csv_fast::Scan::new(&layout)), read(None), "{:?}", text);
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
