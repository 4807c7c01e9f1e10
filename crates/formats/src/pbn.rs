//! Portable Bridge Notation 2.1 files with duplicate travellers, as club programs export them:
//! one game per board with `[Board]`, `[Dealer]`, `[Vulnerable]`, `[Deal]` and a
//! `[ScoreTable "PairId_NS\2R;PairId_EW\2R;Contract\4L;Declarer\1R;Result\2R"]` whose rows are the
//! board's traveller; optionally a `[TotalScoreTable]` of the pairs' totals.
//!
//! - A table's columns are named by its tag value, each with an optional minimum width and alignment
//!   (`\2R`) and an optional order mark (`+`/`-`); the predefined columns are read (`PairId_NS`,
//!   `PairId_EW`, `Contract`, `Declarer`, `Result` = tricks taken by declarer, `Score_NS`, `Score_EW`,
//!   `MP_NS`, `MP_EW`, `IMP_NS`, `IMP_EW`, `Percentage_NS`, `Percentage_EW`, `Names_NS`, `Names_EW`,
//!   `Table`, `Round`, and the common `Lead`), others are skipped. Rows may wrap across lines.
//! - `?` is an unknown element and `-` an irrelevant one: a row whose contract is `-` or `?` and that
//!   gives no score records no result (not played). A value starting with `^` is artificial: `^60%`
//!   (a percentage of the top for that side), `^AVE+`, or an assigned score in points.
//! - `#` as a tag value repeats the previous game's value. `%` lines, `;` and `{...}` are comments.
//! - The character set is ISO-8859-1 unless the file is UTF-8 (or says `charset=UTF-8`).
//! - The movement is read from the travellers: in a Mitchell a number is met as NS and as EW on one
//!   board (pair 1 NS plays pair 1 EW); in a Howell a number plays each board once.
//! - Every board is scored by the standard vulnerability of its number; a `[Vulnerable]` tag that says
//!   otherwise is refused rather than scored wrongly.
//! - A file cut short is refused, naming where it ends: inside a tag, inside a table's row (of any
//!   table with columns), without a line break after a row of a score table, or inside a game whose
//!   tags are the first tags of the game before it but not all of them. A cut just after a whole game
//!   (or, in the first game, at a line end) leaves a file no reader can tell from a whole one.

use std::borrow::Cow;

use rustc_hash::FxHashMap;
use simpairs_scoring::{Contract, Direction, Seat, Vulnerability};

use crate::build::{self, At, FIELDS, Naming, RawLine, field_index};
use crate::error::{Error, Result};
use crate::model::{
    Deal, EventInfo, Format, Hand, Imported, LineDetails, Official, OfficialLine, OfficialPair,
    PairInfo, Place, Player, SectionInfo,
};
use crate::row::parse_adjusted;
use crate::text::{self, non_empty, parse_decimal};

const NAMES: [(&str, &str); 11] = [
    ("board", "../[Board]"),
    ("section", "../[Section]"),
    ("ns_pair", "PairId_NS"),
    ("ew_pair", "PairId_EW"),
    ("contract", "Contract"),
    ("declarer", "Declarer"),
    ("tricks", "Result"),
    ("ns_score", "Score_NS"),
    ("ew_score", "Score_EW"),
    ("adjusted", "Score_NS"),
    ("movement", "PairId_EW"),
];

/// Whether the start of a file is PBN: a `% PBN` header, or tags with a `[Board]`.
pub(crate) fn looks_like(head: &[u8]) -> bool {
    if head.starts_with(b"% PBN") || head.starts_with(b"%PBN") {
        return true;
    }
    let first_tag_line = head
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .find(|l| !l.is_empty() && !l.starts_with(b"%"));
    first_tag_line.is_some_and(|l| l.starts_with(b"["))
        && (memchr::memmem::find(head, b"[Board \"").is_some()
            || memchr::memmem::find(head, b"[Event \"").is_some())
}

/// A piece of a PBN line.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    Tag(String, String),
    Token(String),
}

/// A tag's value and the line it is on.
#[derive(Clone, Debug, Default)]
struct TagValue {
    value: String,
    line: u64,
}

/// Which table's rows are being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TableKind {
    Score,
    Total,
    /// The data of any other tag (auctions, plays, double-dummy tables): skipped.
    Other,
}

/// The table being read: its columns and the row in progress.
#[derive(Debug)]
struct Table {
    kind: TableKind,
    name: String,
    columns: Vec<String>,
    row: Vec<(String, u64)>,
    /// Rows completed so far.
    rows: usize,
    /// A row was written over several lines (allowed in PBN's import format).
    wrapped: bool,
    /// Of a table whose rows are skipped (`OptimumResultTable`, ...): the values of its last row read
    /// so far and the line of the first, so that a file ending inside a row is seen.
    skipped: (usize, u64),
}

/// The game (one board) being read.
#[derive(Debug, Default)]
struct Game {
    tags: FxHashMap<String, TagValue>,
    first_line: u64,
    table: Option<Table>,
    /// ScoreTable rows met before the game's `[Board]` tag.
    waiting: Vec<Row>,
    /// The names of its tags in the order they came.
    order: Vec<String>,
}

/// Splits a line into tags and tokens, skipping comments; `in_comment` carries a `{` comment over lines.
fn pieces(line: &str, in_comment: &mut bool) -> std::result::Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if *in_comment {
            if c == '}' {
                *in_comment = false;
            }
            continue;
        }
        match c {
            '{' => *in_comment = true,
            ';' => break,
            c if c.is_whitespace() => {}
            '[' => {
                let mut name = String::new();
                while let Some(&(_, c)) = chars.peek() {
                    if c.is_whitespace() || c == '"' || c == ']' {
                        break;
                    }
                    name.push(c);
                    chars.next();
                }
                while chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
                    chars.next();
                }
                if chars.next().map(|(_, c)| c) != Some('"') {
                    return Err(format!("the tag [{name} has no quoted value"));
                }
                let value = string_body(&mut chars)
                    .ok_or_else(|| format!("the value of tag [{name}] is not closed"))?;
                while chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
                    chars.next();
                }
                if chars.next().map(|(_, c)| c) != Some(']') {
                    return Err(format!("the tag [{name} \"...\" is not closed with ]"));
                }
                if name.is_empty() {
                    return Err("a tag without a name".into());
                }
                out.push(Piece::Tag(name, value));
            }
            '"' => {
                let body = string_body(&mut chars).ok_or("a string is not closed")?;
                out.push(Piece::Token(format!("\"{body}")));
            }
            _ => {
                let mut token = c.to_string();
                while let Some(&(_, c)) = chars.peek() {
                    if c.is_whitespace() || c == ';' || c == '{' || c == '[' {
                        break;
                    }
                    token.push(c);
                    chars.next();
                }
                out.push(Piece::Token(token));
            }
        }
    }
    Ok(out)
}

/// The body of a string after its opening quote, with `\"` and `\\` escapes.
fn string_body(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) -> Option<String> {
    let mut out = String::new();
    while let Some((_, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => out.push(e),
                Some((_, other)) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            '"' => return Some(out),
            c => out.push(c),
        }
    }
    None
}

/// A table element's text: `?` and `-` are no value; strings lose their opening quote mark.
fn element(token: &str) -> &str {
    let t = token.strip_prefix('"').unwrap_or(token);
    if t == "?" || t == "-" { "" } else { t }
}

/// Column names of a table tag value: `+PairId_NS\2R;Contract\4L` -> `[PairId_NS, Contract]`.
fn columns(spec: &str) -> Vec<String> {
    spec.split(';')
        .map(|c| {
            let c = c.trim().trim_start_matches(['+', '-']);
            c.split('\\').next().unwrap_or("").trim().to_string()
        })
        .collect()
}

/// Reads a PBN file with its score tables.
pub fn read(file: &str, bytes: &[u8]) -> Result<Imported> {
    let legal = simpairs_scoring::LegalScores::new();
    scan(file, bytes, &legal)?.finish()
}

/// Reads the hand records of a PBN file (a dealing program's, without score tables): every
/// board's deal, checked, in board order. A file cut short or holding a bad deal is an error.
pub fn read_deals(file: &str, bytes: &[u8]) -> Result<Vec<Deal>> {
    let legal = simpairs_scoring::LegalScores::new();
    let mut reader = scan(file, bytes, &legal)?;
    std::mem::take(&mut reader.sink.problems).into_result()?;
    let mut deals = std::mem::take(&mut reader.deals);
    deals.sort_by_key(|d| d.board);
    deals.dedup_by_key(|d| d.board);
    Ok(deals)
}

/// Reads a PBN file, line by line: each line is decoded on its own (UTF-8, else ISO-8859-1 unless the
/// file says UTF-8), each ScoreTable row is checked as soon as it is complete, and the data of other
/// tags is not kept, so memory stays bounded by the file's results.
fn scan<'a, 'l>(
    file: &'a str,
    bytes: &'a [u8],
    legal: &'l simpairs_scoring::LegalScores,
) -> Result<Reader<'a, 'l>> {
    let body = text::strip_bom(bytes);
    let naming = Naming {
        names: &NAMES,
        separator: "/",
    };
    let mut reader = Reader {
        file,
        sink: build::Sink::new(file, naming, legal),
        previous: FxHashMap::default(),
        game: Game::default(),
        event: EventInfo {
            format_version: Some("2.1".into()),
            ..EventInfo::default()
        },
        deals: Vec::new(),
        totals: Vec::new(),
        sections: Vec::new(),
        names: Vec::new(),
        seen_tag: false,
        stray_line: 0,
        games: Vec::new(),
        cut: false,
        last_line: 0,
    };
    let utf8_declared = declares_utf8(body);
    let mut in_comment = false;
    let mut anything = false;
    let end = End::of(body);
    reader.last_line = end.last_line;
    for (i, raw) in body.split(|&b| b == b'\n').enumerate() {
        if reader.sink.full() || reader.stray_line == u64::MAX {
            break;
        }
        let number = i as u64 + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line: Cow<'_, str> = match std::str::from_utf8(raw) {
            Ok(t) => Cow::Borrowed(t),
            Err(e) if utf8_declared => {
                reader.sink.problem(
                    number,
                    None,
                    format!(
                        "the file is not UTF-8 text: byte 0x{:02X} at column {} cannot be read (the file says charset=UTF-8)",
                        raw[e.valid_up_to()],
                        e.valid_up_to() + 1
                    ),
                );
                continue;
            }
            Err(_) => Cow::Owned(text::latin1(raw)),
        };
        anything |= !line.trim().is_empty();
        if number == end.last_line {
            reader.last_line(&line, number, &mut in_comment, end.line_break);
        } else {
            reader.line(&line, number, &mut in_comment);
        }
    }
    if !anything {
        return Err(Error::at(
            file,
            1,
            None,
            "the file is empty: expected a PBN file",
        ));
    }
    reader.end_game();
    if !reader.cut {
        reader.check_last_game(end.last_line);
    }
    Ok(reader)
}

/// How a file ends: its last line with any text, and whether a line break follows it.
struct End {
    last_line: u64,
    line_break: bool,
}

impl End {
    fn of(body: &[u8]) -> End {
        let content = body.trim_ascii_end();
        End {
            last_line: memchr::memchr_iter(b'\n', content).count() as u64 + 1,
            line_break: body[content.len()..].contains(&b'\n'),
        }
    }
}

/// Whether the `%` header says the file is UTF-8.
fn declares_utf8(bytes: &[u8]) -> bool {
    bytes
        .split(|&b| b == b'\n')
        .take_while(|l| l.starts_with(b"%"))
        .any(|l| {
            let l = String::from_utf8_lossy(l).to_ascii_lowercase();
            l.contains("charset=utf-8") || l.contains("charset=utf8")
        })
}

struct Reader<'a, 'l> {
    file: &'a str,
    sink: build::Sink<'a, 'l>,
    /// The previous game's tag values, for `#`.
    previous: FxHashMap<String, String>,
    game: Game,
    event: EventInfo,
    deals: Vec<Deal>,
    /// TotalScoreTable rows: (column -> value, line, section).
    totals: Vec<(FxHashMap<String, String>, u64, String)>,
    sections: Vec<String>,
    /// Names of pairs from the ScoreTables: (section, number, direction, players).
    names: Vec<(String, String, Direction, Vec<Player>)>,
    /// A tag has been met: the file is PBN.
    seen_tag: bool,
    /// The last line reported for text outside any tag (one problem per line is enough).
    stray_line: u64,
    /// The tags of the last two games read, to tell a game the file ends inside (it has the first
    /// tags of the game before it, not all).
    games: Vec<GameTags>,
    /// The file was found cut short (said once).
    cut: bool,
    /// The number of the file's last line with any text.
    last_line: u64,
}

/// The tags a game had, in the order they came.
#[derive(Debug)]
struct GameTags {
    first_line: u64,
    board: String,
    names: Vec<String>,
}

/// One ScoreTable row.
#[derive(Debug)]
struct Row {
    section: String,
    board: String,
    values: FxHashMap<String, (String, u64)>,
    at: At,
}

impl Row {
    fn get(&self, column: &str) -> &str {
        self.values
            .get(column)
            .map_or("", |(v, _)| element(v).trim())
    }

    fn line_of(&self, column: &str) -> u32 {
        self.values
            .get(column)
            .map_or(0, |(_, l)| u32::try_from(*l).unwrap_or(0))
    }
}

impl<'a> Reader<'a, '_> {
    fn problem(&mut self, line: u64, field: Option<String>, message: String) {
        self.sink.problem(line, field, message);
    }

    /// A tag's value in the current game, `#` resolved from the previous game.
    fn tag(&self, name: &str) -> Option<String> {
        let v = self.game.tags.get(name)?;
        if v.value.trim() == "#" {
            return self.previous.get(name).cloned();
        }
        Some(v.value.clone())
    }

    fn line_of_tag(&self, name: &str) -> u64 {
        self.game
            .tags
            .get(name)
            .map_or(self.game.first_line, |t| t.line)
    }

    /// The last line of the file with any text. A file cut short ends inside a tag, a table's row
    /// or a game: what it ends inside is named.
    fn last_line(&mut self, text: &str, number: u64, in_comment: &mut bool, line_break: bool) {
        if !*in_comment
            && !text.starts_with('%')
            && let Err(message) = pieces(text, &mut false)
        {
            self.cut_short(
                number,
                None,
                format!("the file ends inside this line ({message})"),
            );
            return;
        }
        self.line(text, number, in_comment);
        self.cut_row(number, line_break);
    }

    /// A problem that says the file is cut short; nothing more is said about its end.
    fn cut_short(&mut self, line: u64, field: Option<String>, what: String) {
        self.cut = true;
        self.problem(line, field, format!("{what}; the file is cut short"));
    }

    /// At the end of the file: the row of a table it ends inside.
    fn cut_row(&mut self, number: u64, line_break: bool) {
        let board = self.tag("Board").unwrap_or_default();
        let Some(table) = self.game.table.as_mut() else {
            return;
        };
        let (name, columns) = (table.name.clone(), table.columns.len());
        let of_board = if board.trim().is_empty() {
            String::new()
        } else {
            format!(" of board {}", board.trim())
        };
        let partial = match table.kind {
            TableKind::Other => (table.skipped.0 > 0).then_some(table.skipped),
            _ => table.row.first().map(|&(_, line)| (table.row.len(), line)),
        };
        table.row.clear();
        let whole_row_here = table.kind != TableKind::Other && table.rows > 0;
        if let Some((values, first)) = partial {
            self.cut_short(
                first,
                Some(format!("[{name}]")),
                format!(
                    "the file ends inside a row of the [{name}]{of_board}: the row has {values} of its \
                     {columns} values"
                ),
            );
        } else if !line_break && whole_row_here {
            self.cut_short(
                number,
                Some(format!("[{name}]")),
                format!(
                    "the file ends without a line break in the last row of the [{name}]{of_board}, whose \
                     last value may be cut (if the file is whole, end its last line with a line break)"
                ),
            );
        }
    }

    /// At the end of the file: a last game whose tags are the first tags of the game before it, in
    /// the same order, but not all of them, was cut short (programs write every game alike; a game
    /// written by hand that leaves tags out is not mistaken for one, its tags differ in order).
    fn check_last_game(&mut self, last_line: u64) {
        let [.., before, last] = self.games.as_slice() else {
            return;
        };
        let is_prefix =
            last.names.len() < before.names.len() && before.names.starts_with(&last.names);
        if !is_prefix || before.board.is_empty() {
            return;
        }
        let what = if last.board.is_empty() {
            "the last game".to_string()
        } else {
            format!("the game of board {}", last.board)
        };
        let rest: Vec<String> = before.names[last.names.len()..]
            .iter()
            .map(|n| format!("[{n}]"))
            .collect();
        let message = format!(
            "the file ends inside {what} (from line {}): it has no {}, which the game before it has",
            last.first_line,
            rest.join(", ")
        );
        self.cut_short(last_line, None, message);
    }

    /// One line of the file.
    fn line(&mut self, text: &str, number: u64, in_comment: &mut bool) {
        if !*in_comment && text.starts_with('%') {
            return;
        }
        if !*in_comment && text.trim().is_empty() {
            self.end_game();
            return;
        }
        let parsed = match pieces(text, in_comment) {
            Ok(p) => p,
            Err(message) => {
                self.problem(number, None, message);
                return;
            }
        };
        for piece in parsed {
            match piece {
                Piece::Tag(name, value) => self.open_tag(name, value, number),
                Piece::Token(token) => self.token(token, number),
            }
        }
        // In a table written one row per line, a line that ends a row short is missing values (on
        // the file's last line, the file is cut short: said at its end).
        if let Some(table) = self.game.table.as_mut()
            && number != self.last_line
            && table.kind != TableKind::Other
            && table.rows > 0
            && !table.wrapped
            && !table.row.is_empty()
            && table.row.iter().all(|t| t.1 == number)
        {
            let (name, count) = (table.name.clone(), table.row.len());
            let message = format!(
                "this row has {count} values but the table has {} columns ({})",
                table.columns.len(),
                table.columns.join(", ")
            );
            table.row.clear();
            self.problem(number, Some(name), message);
        }
    }

    fn open_tag(&mut self, name: String, value: String, number: u64) {
        self.seen_tag = true;
        self.close_table();
        if self.game.first_line == 0 {
            self.game.first_line = number;
        }
        let kind = match name.as_str() {
            "ScoreTable" => TableKind::Score,
            "TotalScoreTable" => TableKind::Total,
            _ => TableKind::Other,
        };
        let columns = columns(&value);
        let mut table = Table {
            kind,
            name: name.clone(),
            columns,
            row: Vec::new(),
            rows: 0,
            wrapped: false,
            skipped: (0, 0),
        };
        if kind != TableKind::Other {
            let missing = if table.columns.iter().any(String::is_empty) {
                Some(format!("a column of {value:?} has no name"))
            } else if kind == TableKind::Score
                && !(table.columns.iter().any(|c| c == "PairId_NS")
                    && table.columns.iter().any(|c| c == "PairId_EW"))
            {
                Some(format!(
                    "the ScoreTable {value:?} has no PairId_NS and PairId_EW columns: its rows name no pairs"
                ))
            } else {
                None
            };
            if let Some(message) = missing {
                self.problem(number, Some(format!("[{name}]")), message);
                table.kind = TableKind::Other;
            }
            if kind == TableKind::Score {
                let section = self.tag("Section").unwrap_or_default().trim().to_string();
                if !self.sections.contains(&section) {
                    self.sections.push(section);
                }
            }
        }
        self.game.table = Some(table);
        if !self.game.tags.contains_key(&name) {
            self.game.order.push(name.clone());
        }
        self.game.tags.insert(
            name,
            TagValue {
                value,
                line: number,
            },
        );
    }

    fn token(&mut self, token: String, number: u64) {
        let Some(table) = self.game.table.as_mut() else {
            if !self.seen_tag {
                // Text before any tag: this is not PBN at all; one problem says so.
                self.problem(
                    number,
                    None,
                    format!("{token:?} comes before any [Tag \"value\"]: this is not a PBN file"),
                );
                self.seen_tag = true;
                self.stray_line = u64::MAX;
            } else if self.stray_line != number && self.stray_line != u64::MAX {
                self.stray_line = number;
                self.problem(
                    number,
                    None,
                    format!("{token:?} is outside any tag: expected [Tag \"value\"]"),
                );
            }
            return;
        };
        if table.kind == TableKind::Other {
            if !table.columns.is_empty() && table.name.ends_with("Table") {
                let (count, first) = table.skipped;
                let first = if count == 0 { number } else { first };
                table.skipped = ((count + 1) % table.columns.len(), first);
            }
            return;
        }
        table.row.push((token, number));
        if table.row.len() < table.columns.len() {
            return;
        }
        let values: Vec<(String, u64)> = std::mem::take(&mut table.row);
        table.wrapped |= values.first().map(|t| t.1) != values.last().map(|t| t.1);
        table.rows += 1;
        let kind = table.kind;
        let map: FxHashMap<String, (String, u64)> =
            table.columns.iter().cloned().zip(values).collect();
        let line = map.values().map(|(_, l)| *l).min().unwrap_or(number);
        let section = self.tag("Section").unwrap_or_default().trim().to_string();
        if kind == TableKind::Total {
            let plain = map
                .into_iter()
                .map(|(k, (v, _))| (k, element(&v).to_string()))
                .collect();
            self.totals.push((plain, line, section));
            return;
        }
        let board = self.tag("Board").unwrap_or_default().trim().to_string();
        let mut at = At {
            line,
            path: "ScoreTable".into(),
            field_lines: [0; FIELDS.len()],
        };
        at.field_lines[field_index("board")] =
            u32::try_from(self.line_of_tag("Board")).unwrap_or(0);
        let row = Row {
            section,
            board,
            values: map,
            at,
        };
        if row.board.is_empty() {
            self.game.waiting.push(row);
        } else {
            self.take_row(row);
        }
    }

    /// A complete ScoreTable row: its names are noted and its line checked and kept.
    fn take_row(&mut self, row: Row) {
        for (column, pair, direction) in [
            ("Names_NS", "PairId_NS", Direction::NS),
            ("Names_EW", "PairId_EW", Direction::EW),
        ] {
            let (names, number) = (row.get(column), row.get(pair));
            if !names.is_empty() && !number.is_empty() {
                self.names.push((
                    row.section.clone(),
                    number.to_string(),
                    direction,
                    players_of(names),
                ));
            }
        }
        let raw = self.raw_line(&row);
        self.sink.push(raw, true);
    }

    /// The end of a table's data: a row left incomplete is a problem.
    fn close_table(&mut self) {
        let Some(table) = self.game.table.take() else {
            return;
        };
        if table.kind != TableKind::Other && !table.row.is_empty() {
            let last = table.row.last().map_or(0, |t| t.1);
            self.problem(
                last,
                Some(table.name.clone()),
                format!(
                    "the table has {} columns ({}) but its last row has {} values",
                    table.columns.len(),
                    table.columns.join(", "),
                    table.row.len()
                ),
            );
        }
    }

    /// The end of a game: its deal and event tags are taken, rows waiting for its board are checked.
    fn end_game(&mut self) {
        self.close_table();
        if self.game.tags.is_empty() {
            return;
        }
        let get = |name: &str| {
            self.tag(name)
                .and_then(|v| non_empty(&v))
                .filter(|v| v != "?" && !v.contains("??"))
        };
        let (name, site, date, scoring) = (get("Event"), get("Site"), get("Date"), get("Scoring"));
        let e = &mut self.event;
        e.name = e.name.take().or(name);
        e.club_name = e.club_name.take().or(site);
        e.date = e.date.take().or(date);
        e.event_type = e.event_type.take().or(scoring);
        let board = self.tag("Board").unwrap_or_default().trim().to_string();
        if !board.is_empty() {
            self.read_deal(&board);
        }
        for mut row in std::mem::take(&mut self.game.waiting) {
            if board.is_empty() {
                self.problem(
                    row.at.line,
                    Some("[Board]".into()),
                    "a ScoreTable in a game without [Board]".into(),
                );
                continue;
            }
            row.board = board.clone();
            row.at.field_lines[field_index("board")] =
                u32::try_from(self.line_of_tag("Board")).unwrap_or(0);
            self.take_row(row);
        }
        self.games.push(GameTags {
            first_line: self.game.first_line,
            board: board.clone(),
            names: std::mem::take(&mut self.game.order),
        });
        if self.games.len() > 2 {
            self.games.remove(0);
        }
        let resolved: FxHashMap<String, String> = self
            .game
            .tags
            .keys()
            .map(|k| (k.clone(), self.tag(k).unwrap_or_default()))
            .collect();
        self.previous = resolved;
        self.game = Game::default();
    }

    fn finish(mut self) -> Result<Imported> {
        if self.sink.lines.is_empty() && self.sink.problems.is_empty() {
            return Err(Error::at(
                self.file,
                1,
                Some("[ScoreTable]"),
                "the file has no [ScoreTable] rows: there are no results to score",
            ));
        }
        let mut event = std::mem::take(&mut self.event);
        if let Some(scoring) = event.event_type.clone() {
            crate::method::set(&mut event, crate::method::pbn(&scoring));
        }
        event.sections = self
            .sections
            .iter()
            .map(|n| SectionInfo {
                name: n.clone(),
                ..SectionInfo::default()
            })
            .collect();

        let howell_of = self.howell_by_section();
        let all_howell = howell_of.values().all(|h| *h);
        if all_howell || howell_of.values().all(|h| !*h) {
            event.movement = Some(build::movement_of(all_howell));
        }
        let mut raw = std::mem::take(&mut self.sink.lines);
        for line in raw.iter_mut() {
            line.howell = howell_of.get(&*line.section).copied().unwrap_or(false);
        }
        let problems = std::mem::take(&mut self.sink.problems);
        let naming = Naming {
            names: &NAMES,
            separator: "/",
        };
        let built = build::build(self.file, raw, &naming, problems)?;

        // Pairs: names from the travellers, then the TotalScoreTable's names and results.
        let howell = |section: &str| howell_of.get(section).copied().unwrap_or(false);
        let mut infos: Vec<PairInfo> = self
            .names
            .iter()
            .map(|(section, label, direction, players)| PairInfo {
                club: String::new(),
                section: section.clone(),
                label: label.clone(),
                direction: (!howell(section)).then_some(*direction),
                players: players.clone(),
            })
            .collect();
        let mut total_rows = Vec::new();
        for (values, _, section) in &self.totals {
            let (info, official) = total_row(values, section, howell(section));
            total_rows.push((info.clone(), official));
            infos.push(info);
        }
        infos.retain(|i| !i.players.is_empty() || total_rows.iter().any(|(t, _)| t == i));
        let (pairs, mut absent_pairs, _) = build::place_pairs(&built.field, infos);
        absent_pairs.dedup();
        let index = build::PairIndex::new(&built.field);
        let mut official_pairs: Vec<_> = total_rows
            .into_iter()
            .filter_map(|(info, o)| {
                index
                    .find(&info.club, &info.section, &info.label, info.direction)
                    .map(|id| (id, o))
            })
            .collect();
        official_pairs.sort_by_key(|(id, _)| *id);
        official_pairs.dedup_by_key(|(id, _)| *id);
        let mut deals = std::mem::take(&mut self.deals);
        deals.sort_by_key(|d| d.board);
        deals.dedup_by_key(|d| d.board);

        Ok(Imported {
            format: Format::Pbn,
            field: built.field,
            lines: built.lines,
            not_played: built.not_played,
            not_played_tables: built.not_played_tables,
            event,
            pairs,
            absent_pairs,
            deals,
            details: built.details,
            warnings: built.warnings,
            official: Official {
                lines: built.official,
                pairs: official_pairs,
                datums: Vec::new(),
            },
        })
    }

    /// Howell or Mitchell, per section, from the travellers.
    fn howell_by_section(&self) -> FxHashMap<String, bool> {
        let mut howell_of: FxHashMap<String, bool> = FxHashMap::default();
        for s in &self.sections {
            let guess = build::looks_like_howell(
                self.sink
                    .lines
                    .iter()
                    .filter(|r| &*r.section == s && !r.ns.is_empty())
                    .map(|r| (&*r.board, &*r.ns, &*r.ew)),
            );
            howell_of.insert(s.clone(), guess);
        }
        howell_of
    }

    fn read_deal(&mut self, board_text: &str) {
        let Ok(board) = board_text.parse::<u16>() else {
            return;
        };
        let lines: FxHashMap<&str, u64> = ["Dealer", "Vulnerable", "Deal"]
            .into_iter()
            .map(|t| (t, self.line_of_tag(t)))
            .collect();
        let line_of = |tag: &str| lines.get(tag).copied().unwrap_or(0);
        let mut deal = Deal {
            board,
            ..Deal::default()
        };
        if let Some(d) = self
            .tag("Dealer")
            .filter(|d| !matches!(d.trim(), "" | "?" | "-"))
        {
            match d.parse::<Seat>() {
                Ok(s) => deal.dealer = Some(s),
                Err(e) => self.problem(line_of("Dealer"), Some("[Dealer]".into()), e.to_string()),
            }
        }
        if let Some(v) = self
            .tag("Vulnerable")
            .filter(|v| !matches!(v.trim(), "" | "?"))
        {
            let vulnerability = match v.trim().to_ascii_lowercase().as_str() {
                "none" | "love" | "-" => Some(Vulnerability::NONE),
                "ns" => Some(Vulnerability {
                    ns: true,
                    ew: false,
                }),
                "ew" => Some(Vulnerability {
                    ns: false,
                    ew: true,
                }),
                "all" | "both" => Some(Vulnerability { ns: true, ew: true }),
                _ => None,
            };
            match vulnerability {
                None => self.problem(
                    line_of("Vulnerable"),
                    Some("[Vulnerable]".into()),
                    format!("unknown vulnerability {v:?}: expected None, NS, EW or All"),
                ),
                Some(vul) if vul != Vulnerability::of_board(u32::from(board)) => self.problem(
                    line_of("Vulnerable"),
                    Some("[Vulnerable]".into()),
                    format!(
                        "board {board} is marked vulnerable {vul} but the standard vulnerability of board {board} is {}: \
                         simpairs scores every board by the standard cycle",
                        Vulnerability::of_board(u32::from(board))
                    ),
                ),
                Some(vul) => deal.vulnerability = Some(vul),
            }
        }
        if let Some(text) = self.tag("Deal").filter(|d| !d.trim().is_empty()) {
            match parse_deal(&text) {
                Ok(hands) => {
                    deal.hands = hands;
                    if let Err(m) = crate::model::check_deal(&deal) {
                        self.problem(line_of("Deal"), Some("[Deal]".into()), m);
                        return;
                    }
                }
                Err(m) => {
                    self.problem(line_of("Deal"), Some("[Deal]".into()), m);
                    return;
                }
            }
        }
        if deal
            != (Deal {
                board,
                ..Deal::default()
            })
        {
            self.deals.push(deal);
        }
    }

    /// A ScoreTable row as a traveller line.
    /// (Its movement is set once the whole file is read.)
    fn raw_line(&mut self, row: &Row) -> RawLine<'a> {
        let mut at = row.at.clone();
        for (field, column) in [
            ("ns_pair", "PairId_NS"),
            ("ew_pair", "PairId_EW"),
            ("contract", "Contract"),
            ("declarer", "Declarer"),
            ("tricks", "Result"),
            ("ns_score", "Score_NS"),
            ("ew_score", "Score_EW"),
            ("adjusted", "Score_NS"),
        ] {
            at.field_lines[field_index(field)] = row.line_of(column);
        }
        let official = official_of(row);
        let contract = row.get("Contract");
        let mut ns_score = score_text(row.get("Score_NS"));
        let mut ew_score = score_text(row.get("Score_EW"));
        let artificial =
            contract.starts_with('^') || ns_score.starts_with('^') || ew_score.starts_with('^');
        let contract_is_adjusted = !contract.is_empty()
            && contract.parse::<Contract>().is_err()
            && parse_adjusted(contract.trim_start_matches('^')).is_ok();
        let mut adjusted = String::new();
        let mut contract_text = contract.to_string();
        if contract_is_adjusted {
            adjusted = contract.trim_start_matches('^').to_string();
            contract_text.clear();
        } else if artificial {
            contract_text = contract.trim_start_matches('^').to_string();
            let ns = ns_score.trim_start_matches('^').to_string();
            let ew = ew_score.trim_start_matches('^').to_string();
            adjusted = artificial_percentages(row, &ns, &ew);
            if adjusted.is_empty() {
                ns_score = ns;
                ew_score = ew;
            } else {
                ns_score.clear();
                ew_score.clear();
                contract_text.clear();
            }
        }
        let no_result = contract_text.is_empty()
            && adjusted.is_empty()
            && ns_score.is_empty()
            && ew_score.is_empty();
        let tricks = row.get("Result").to_string();
        let tricks = relative_tricks(&contract_text, &tricks).unwrap_or(tricks);
        let canonical =
            non_empty(&contract_text).map(|c| c.parse::<Contract>().map_or(c, |k| k.to_string()));
        let passed = canonical.as_deref() == Some("PASS");
        let details = LineDetails {
            contract: canonical.or_else(|| non_empty(contract).filter(|_| !contract_is_adjusted)),
            declarer: if passed {
                None
            } else {
                row.get("Declarer").parse().ok()
            },
            tricks: if passed { None } else { tricks.parse().ok() },
            lead: non_empty(row.get("Lead")),
            table: row.get("Table").parse().ok(),
            round: row.get("Round").parse().ok(),
        };
        RawLine {
            club: Cow::Borrowed(""),
            section: Cow::Owned(row.section.clone()),
            board: Cow::Owned(row.board.clone()),
            ns: Cow::Owned(row.get("PairId_NS").to_string()),
            ew: Cow::Owned(row.get("PairId_EW").to_string()),
            contract: Cow::Owned(contract_text),
            declarer: Cow::Owned(row.get("Declarer").to_string()),
            tricks: Cow::Owned(tricks),
            ns_score: Cow::Owned(ns_score),
            ew_score: Cow::Owned(ew_score),
            adjusted: Cow::Owned(adjusted),
            arrow_switch: Cow::Borrowed(""),
            group: Cow::Borrowed(""),
            howell: false,
            not_played: no_result,
            details,
            official,
            origin: 0,
            at,
        }
    }
}

/// The official values of a ScoreTable row (matchpoints or IMPs; `^` marks an artificial one).
fn official_of(row: &Row) -> OfficialLine {
    OfficialLine {
        ns: ["MP_NS", "IMP_NS"]
            .iter()
            .find_map(|c| parse_decimal(row.get(c).trim_start_matches('^'))),
        ew: ["MP_EW", "IMP_EW"]
            .iter()
            .find_map(|c| parse_decimal(row.get(c).trim_start_matches('^'))),
    }
}

/// An artificial score's percentages (`60/40`) from its scores (`60%`), its percentage columns, or
/// an adjusted score written as the NS score; empty when there are none.
fn artificial_percentages(row: &Row, ns: &str, ew: &str) -> String {
    let pct_ns = row.get("Percentage_NS").trim_start_matches('^').to_string();
    let pct_ew = row.get("Percentage_EW").trim_start_matches('^').to_string();
    let percent = |s: &str| s.strip_suffix('%').map(|p| p.trim().to_string());
    match (
        percent(ns).or((!pct_ns.is_empty()).then_some(pct_ns)),
        percent(ew).or((!pct_ew.is_empty()).then_some(pct_ew)),
    ) {
        (Some(a), Some(b)) => format!("{a}/{b}"),
        (Some(a), None) => format!("{a}/{}", 100 - a.parse::<i32>().unwrap_or(50)),
        (None, Some(b)) => format!("{}/{b}", 100 - b.parse::<i32>().unwrap_or(50)),
        (None, None) if parse_adjusted(ns).is_ok() && ns.parse::<i32>().is_err() => ns.to_string(),
        (None, None) => String::new(),
    }
}

/// A score element without the `NS `/`EW ` a few programs put before it.
fn score_text(text: &str) -> String {
    let t = text.trim();
    let upper = t.to_ascii_uppercase();
    if let Some(rest) = upper.strip_prefix("NS ") {
        return rest.trim().to_string();
    }
    if let Some(rest) = upper.strip_prefix("EW ") {
        return match rest.trim().parse::<i32>() {
            Ok(v) => (-v).to_string(),
            Err(_) => rest.trim().to_string(),
        };
    }
    t.to_string()
}

/// Tricks from a result written against the contract (`=`, `+1`, `-2`), which some programs put in the
/// `Result` column instead of the tricks taken.
fn relative_tricks(contract: &str, result: &str) -> Option<String> {
    let r = result.trim();
    if !(r == "=" || r.starts_with('+') || r.starts_with('-')) {
        return None;
    }
    let Ok(Contract::Bid { level, .. }) = contract.parse::<Contract>() else {
        return None;
    };
    let delta: i32 = if r == "=" {
        0
    } else {
        r.trim_start_matches('+').parse().ok()?
    };
    Some((i32::from(level) + 6 + delta).to_string())
}

/// Players of a names element: `A;B`, `A & B`, or one partnership name.
fn players_of(text: &str) -> Vec<Player> {
    let t = text.trim().trim_start_matches('"');
    if t.is_empty() {
        return Vec::new();
    }
    let parts: Vec<&str> = if t.contains(';') {
        t.split(';').collect()
    } else if t.contains(" & ") {
        t.split(" & ").collect()
    } else {
        vec![t]
    };
    parts
        .into_iter()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| Player {
            name: n.to_string(),
            ..Player::default()
        })
        .collect()
}

/// A `[Deal]` value: `N:AK.QJ.T9.8765 ...`, the first hand's seat then the hands clockwise.
fn parse_deal(text: &str) -> std::result::Result<[Option<Hand>; 4], String> {
    let t = text.trim();
    let (first, rest) = t.split_once(':').ok_or_else(|| {
        format!("the deal {t:?} does not start with the first hand's seat, as in N:")
    })?;
    let first: Seat = first
        .parse()
        .map_err(|e: simpairs_scoring::Error| e.to_string())?;
    let start = Deal::SEATS.iter().position(|s| *s == first).unwrap_or(0);
    let hands: Vec<&str> = rest.split_whitespace().collect();
    if hands.len() != 4 {
        return Err(format!(
            "the deal has {} hands: expected 4 (a hand may be -)",
            hands.len()
        ));
    }
    let mut out: [Option<Hand>; 4] = Default::default();
    for (k, hand) in hands.iter().enumerate() {
        if *hand == "-" {
            continue;
        }
        let suits: Vec<&str> = hand.split('.').collect();
        if suits.len() != 4 {
            return Err(format!(
                "the hand {hand:?} has {} suits: expected spades.hearts.diamonds.clubs",
                suits.len()
            ));
        }
        let mut parsed = Hand::default();
        for (slot, suit) in [
            &mut parsed.spades,
            &mut parsed.hearts,
            &mut parsed.diamonds,
            &mut parsed.clubs,
        ]
        .into_iter()
        .zip(&suits)
        {
            *slot = Hand::parse_suit(suit)?;
        }
        out[(start + k) % 4] = Some(parsed);
    }
    Ok(out)
}

/// A row of the TotalScoreTable: the pair (its direction from its number's suffix or the
/// `Direction` column, none in a Howell) and its official result.
fn total_row(
    values: &FxHashMap<String, String>,
    section: &str,
    howell: bool,
) -> (PairInfo, OfficialPair) {
    let get = |k: &str| values.get(k).map_or("", |v| v.trim());
    let (label, suffix) = build::split_pair_number(get("PairId"));
    let direction = if howell {
        None
    } else {
        suffix.or(match get("Direction").to_ascii_uppercase().as_str() {
            "NS" | "N" => Some(Direction::NS),
            "EW" | "E" => Some(Direction::EW),
            _ => None,
        })
    };
    let official = OfficialPair {
        total: [
            "TotalScoreMP",
            "TotalMP",
            "TotalScoreIMP",
            "TotalIMP",
            "TotalScore",
        ]
        .iter()
        .find_map(|k| parse_decimal(get(k))),
        percent: parse_decimal(get("TotalPercentage").trim_end_matches('%')),
        place: Place::parse(get("Rank")),
        boards: get("NrBoards").parse().ok(),
        ..OfficialPair::default()
    };
    let info = PairInfo {
        club: String::new(),
        section: section.to_string(),
        label: label.to_string(),
        direction,
        players: players_of(get("Names")),
    };
    (info, official)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "% PBN 2.1\n%Content-type: text/pbn; charset=ISO-8859-1\n\
[Event \"Club night\"]\n[Site \"Newton\"]\n[Date \"2016.01.20\"]\n[Board \"1\"]\n[Dealer \"N\"]\n[Vulnerable \"None\"]\n\
[Deal \"N:A97653.94.AT5.A8 K.JT862.K987.754 Q42.AKQ73.62.KT3 JT8.5.QJ43.QJ962\"]\n\
[Scoring \"MP\"]\n\
[ScoreTable \"PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R\"]\n\
 1  1 4H   S 10\n 2  2 PASS N  -\n 3  3 -    N  -\n 4  4 2S*  W  7\n\
\n[Event \"#\"]\n[Board \"2\"]\n[Vulnerable \"NS\"]\n\
[ScoreTable \"PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS;MP_NS;MP_EW;Names_NS\"]\n\
1 1 3NT N 9 - 2 0 \"Ann;Bob\"\n\
2 2 - - - ^60% 1.2 0.8 ?\n";

    #[test]
    fn a_small_file() {
        let got = read("s.pbn", SMALL.as_bytes()).unwrap();
        assert_eq!(got.field.len(), 5);
        assert_eq!(got.not_played, 1);
        assert_eq!(got.event.name.as_deref(), Some("Club night"));
        assert_eq!(got.event.club_name.as_deref(), Some("Newton"));
        assert_eq!(got.deals.len(), 2);
        assert_eq!(
            got.deals[0].hands[1].as_ref().unwrap().to_pbn(),
            "K.JT862.K987.754"
        );
        assert_eq!(got.details(2).unwrap().contract.as_deref(), Some("2SX"));
        // 2SX by W down one, nobody vulnerable: +100 to NS.
        assert_eq!(
            got.field.result(2).outcome,
            simpairs_scoring::Outcome::Played(100)
        );
        assert_eq!(
            got.field.result(3).outcome,
            simpairs_scoring::Outcome::Played(600)
        );
        assert!(matches!(
            got.field.result(4).outcome,
            simpairs_scoring::Outcome::Adjusted {
                ns_percent: 60,
                ew_percent: 40
            }
        ));
        assert_eq!(
            got.official.line(4).unwrap().ns,
            Some(simpairs_scoring::Value::new(6, 5))
        );
        let ns1 = got.field.result(3).ns;
        assert_eq!(got.pairs[ns1 as usize].names(), "Ann & Bob");
    }

    #[test]
    fn bad_rows_are_located() {
        let bad = SMALL.replace("4H   S 10", "4H   S 15");
        let err = read("s.pbn", bad.as_bytes()).unwrap_err();
        let p = &err.problems()[0];
        assert_eq!(
            (p.at.line, p.at.field.as_deref()),
            (12, Some("ScoreTable/Result"))
        );
        let bad = SMALL.replace(" 2  2 PASS N  -", " 2  2 PASS N");
        let err = read("s.pbn", bad.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("5 columns"), "{err}");
        let bad = SMALL.replace("[Vulnerable \"NS\"]", "[Vulnerable \"EW\"]");
        let err = read("s.pbn", bad.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("standard vulnerability"), "{err}");
    }

    #[test]
    fn howell_travellers_and_total_scores() {
        let text = "% PBN 2.1\n[Board \"1\"]\n\
[ScoreTable \"PairId_NS\\1R;PairId_EW\\1R;Contract;Declarer;Result;Score_NS;MP_NS;MP_EW\"]\n\
1 2 4S N 10 420 2 0\n3 4 4S N 9 - 0 2\n\n[Board \"2\"]\n\
[ScoreTable \"PairId_NS;PairId_EW;Contract;Declarer;Result\"]\n2 3 3NT S 9\n4 1 3NT S 8\n\n\
[TotalScoreTable \"Rank\\2R;PairId\\2R;TotalScoreMP\\5R;TotalPercentage\\5R;Names\\20L;NrBoards\"]\n\
 1  1  2.0 50.00 \"Ann;Bob\" 2\n 1= 2  2.0 50.00 \"Cy;Di\" 2\n";
        let got = read("h.pbn", text.as_bytes()).unwrap();
        assert_eq!(
            got.event.movement,
            Some(simpairs_scoring::field::Movement::Howell)
        );
        assert!(got.field.pairs().iter().all(|p| p.direction.is_none()));
        assert_eq!(got.official.pairs.len(), 2);
        let one = got.field.result(0).ns;
        let o = got.official.pair(one).unwrap();
        assert_eq!(
            (o.total, o.boards),
            (Some(simpairs_scoring::Value::from_integer(2)), Some(2))
        );
        assert_eq!(got.pairs[one as usize].names(), "Ann & Bob");
        let two = got.field.result(0).ew;
        assert_eq!(
            got.official.pair(two).unwrap().place,
            Some(Place {
                rank: 1,
                tied: true
            })
        );
    }

    #[test]
    fn lines_split_into_pieces() {
        let mut c = false;
        assert_eq!(
            pieces("[Tag \"a \\\"b\\\"\"] x \"y z\" ; gone", &mut c).unwrap(),
            [
                Piece::Tag("Tag".into(), "a \"b\"".into()),
                Piece::Token("x".into()),
                Piece::Token("\"y z".into())
            ]
        );
        assert_eq!(
            pieces("a {comment", &mut c).unwrap(),
            [Piece::Token("a".into())]
        );
        assert!(c);
        assert_eq!(
            pieces("still} b", &mut c).unwrap(),
            [Piece::Token("b".into())]
        );
        assert!(pieces("[Tag", &mut c).is_err());
        assert_eq!(
            columns("+PairId_NS\\2R;Contract\\4L;-Rank"),
            ["PairId_NS", "Contract", "Rank"]
        );
    }
}
