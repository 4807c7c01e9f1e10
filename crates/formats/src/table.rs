//! A table kept in a spreadsheet and saved as CSV, such as the organiser's list of clubs: read as
//! the traveller CSV is (docs/rules-input.md, "Traveller CSV"), whatever the spreadsheet did on
//! saving it. A UTF-8 byte-order mark, UTF-16, or Windows-1252 text (with a warning); commas,
//! semicolons or tabs between fields, the header saying which; quoted fields, which may hold the
//! separator; LF or CRLF line ends; and the rows of empty fields a spreadsheet leaves below the
//! table. A workbook given instead of its sheet is refused with what to do.

use crate::error::{Error, Problem, Result};

/// The separators a header may use, the comma first.
const SEPARATORS: [u8; 3] = [b',', b';', b'\t'];

/// A table read: its header's names and its rows, with what a reader should look at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// The header's names, trimmed and in lower case.
    pub header: Vec<String>,
    /// Every row with anything in it, in file order.
    pub rows: Vec<TableRow>,
    /// How the file's text was read, when it was not UTF-8.
    pub warnings: Vec<Problem>,
}

/// One row of a [`Table`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRow {
    /// The file's line the row starts on (1-based).
    pub line: u64,
    /// Its fields, trimmed.
    pub fields: Vec<String>,
}

impl Table {
    /// The index of the column named `name` (in lower case).
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|c| c == name)
    }
}

impl TableRow {
    /// The field at `column`, empty where the row is short.
    pub fn field(&self, column: usize) -> &str {
        self.fields.get(column).map_or("", String::as_str)
    }
}

/// Reads `bytes`, the table `file`, whose header names each of `required` (in lower case): the
/// separator is the one at which it does (the comma when none does, for the caller to say which
/// column is missing).
pub fn read_table(file: &str, bytes: &[u8], required: &[&str]) -> Result<Table> {
    crate::import::not_a_workbook(file, bytes)?;
    let (text, warnings) = text_of(file, bytes)?;
    let first_line = text.lines().next().unwrap_or_default();
    let separator = SEPARATORS
        .into_iter()
        .find(|&s| {
            let names = crate::csv::header_cells(first_line.as_bytes(), s);
            required.iter().all(|r| names.iter().any(|n| n == r))
        })
        .unwrap_or(b',');
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(separator)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut header = None;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| not_read(file, &text, &e))?;
        // From the byte offset: the reader's own line count misses CRLF line ends.
        let line = line_at(&text, record.position());
        let fields: Vec<String> = record.iter().map(|f| f.trim().to_string()).collect();
        match header {
            None => header = Some(fields.iter().map(|f| f.to_lowercase()).collect()),
            Some(_) if fields.iter().all(String::is_empty) => {}
            Some(_) => rows.push(TableRow { line, fields }),
        }
    }
    Ok(Table {
        header: header.unwrap_or_default(),
        rows,
        warnings,
    })
}

/// The file's text: UTF-8 (a byte-order mark dropped), UTF-16 with its byte-order mark, or text
/// in the Windows code page with a warning. Bytes that are text in no code page are refused.
fn text_of(file: &str, bytes: &[u8]) -> Result<(String, Vec<Problem>)> {
    if let Some(text) = crate::text::utf16(file, bytes) {
        return Ok((text?, Vec::new()));
    }
    if let Some((text, warning)) = crate::text::as_windows_1252(file, bytes) {
        return Ok((text, vec![warning]));
    }
    let text = crate::text::utf8(file, bytes, ": save it from the spreadsheet as CSV UTF-8")?;
    Ok((text.trim_start_matches('\u{feff}').to_string(), Vec::new()))
}

/// The line of `text` a record starts on. The reader's position may be at the line ends before
/// it (after a CR, the LF; blank lines the reader skipped).
fn line_at(text: &str, position: Option<&csv::Position>) -> u64 {
    let bytes = text.as_bytes();
    let from = position.map_or(0, |p| p.byte() as usize).min(bytes.len());
    let start = from
        + bytes[from..]
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
    crate::text::line_of(bytes, start)
}

/// A CSV error of the reader, at its line.
fn not_read(file: &str, text: &str, e: &csv::Error) -> Error {
    let line = line_at(text, e.position());
    Error::at(file, line, None, format!("the table cannot be read: {e}"))
}

#[cfg(test)]
mod tests;
