//! One result file of any supported format, read into a scoring [`simpairs_scoring::Field`] together
//! with everything else it carries that people want to see: the event, the players, the deals, each
//! table's contract and lead, and the official numbers the file's own scoring program computed.
//!
//! [`read`] is the one entry point: it detects the format (or takes the one given), reads, and returns
//! an [`Imported`]. Every reader turns each traveller line into a [`crate::row::TextRow`] and passes it
//! to [`crate::row::FieldBuilder`], so a line is checked by the same rules whatever format it came in.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::text;

pub use crate::model::{
    Deal, EventInfo, Format, Hand, Imported, LineDetails, NotPlayed, Official, OfficialLine,
    OfficialPair, PairInfo, Place, Player, SectionInfo,
};

/// How many bytes of the start of a file detection looks at.
const SNIFF_BYTES: usize = 64 << 10;

/// Tells a file's format from its content, then from its name's extension.
pub fn detect(file: &str, bytes: &[u8]) -> Result<Format> {
    not_a_workbook(file, bytes)?;
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    // UTF-16 text (Excel's "Unicode Text") is told by what it says, as its UTF-8 would be.
    let decoded = text::utf16_head(head);
    let body = decoded
        .as_ref()
        .map_or_else(|| text::strip_bom(head), |t| t.as_bytes());
    let trimmed = body.trim_ascii_start();
    if trimmed.is_empty() {
        return Err(Error::at(file, 1, None, "the file is empty"));
    }
    if trimmed.starts_with(b"<") {
        // The XML readers read a UTF-16 file's bytes themselves.
        return match crate::xml::root_name(file, bytes)?.as_deref() {
            Some(name) if name.eq_ignore_ascii_case("USEBIO") => Ok(Format::Usebio),
            Some("session") => Ok(Format::Scorer),
            Some(other) => Err(Error::at(
                file,
                1,
                None,
                format!(
                    "an XML file whose root element is <{other}>: simpairs reads USEBIO results (<USEBIO>) and NZ \
                     Scorer sessions (<session>)"
                ),
            )),
            None => Err(Error::at(file, 1, None, "an XML file without any element")),
        };
    }
    if crate::pbn::looks_like(trimmed) {
        return Ok(Format::Pbn);
    }
    if crate::hillyard::looks_like(body) {
        return Ok(Format::HillyardCsv);
    }
    if looks_like_traveller_csv(body) {
        return Ok(Format::Csv);
    }
    let extension = std::path::Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("xml") => Ok(Format::Usebio),
        Some("pbn") => Ok(Format::Pbn),
        Some("csv") | Some("txt") => Ok(Format::Csv),
        _ => Err(Error::at(
            file,
            1,
            None,
            "cannot tell the format of the file: it is not USEBIO or Scorer XML, PBN or a traveller CSV; name the \
             format with --format csv|usebio|scorer|pbn",
        )),
    }
}

/// Refuses a spreadsheet's workbook (or another archive) given for its sheet: the error says how
/// to save the sheet as the CSV simpairs reads, instead of naming the workbook's bytes as a header.
pub(crate) fn not_a_workbook(file: &str, bytes: &[u8]) -> Result<()> {
    const ZIP: &[u8] = b"PK\x03\x04";
    const OLE: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";
    let what = if bytes.starts_with(ZIP) {
        "a zip archive, as an Excel (.xlsx) or LibreOffice (.ods) workbook is"
    } else if bytes.starts_with(OLE) {
        "an old Excel workbook (.xls)"
    } else {
        return Ok(());
    };
    Err(Error::at(
        file,
        1,
        None,
        format!(
            "the file is {what}, not a results file: save the sheet as CSV (in Excel: File, Save \
             As, \"CSV UTF-8\"), or take the results file out of the archive, and give that"
        ),
    ))
}

/// Whether the first line (after a `sep=` line) is a traveller CSV header (it names `board` and
/// the pair columns).
fn looks_like_traveller_csv(body: &[u8]) -> bool {
    let body = crate::csv_separator::sep_line(body).map_or(body, |(_, rest)| rest);
    let end = memchr::memchr(b'\n', body).unwrap_or(body.len());
    [b',', b';', b'\t']
        .into_iter()
        .any(|separator| crate::csv_separator::names_the_columns(&body[..end], separator))
}

/// Reads a result file: detects its format unless `format` is given, reads it and checks every line.
/// `file` names the file in messages; nothing of a file with problems is kept.
pub fn read(file: &str, bytes: &[u8], format: Option<Format>) -> Result<Imported> {
    let head = text::strip_bom(&bytes[..bytes.len().min(SNIFF_BYTES)]);
    if head.len() == text::strip_bom(bytes).len() && head.trim_ascii().is_empty() {
        return Err(Error::at(file, 1, None, "the file is empty"));
    }
    let format = match format {
        Some(f) => f,
        None => detect(file, bytes)?,
    };
    // UTF-16 text (Excel's "Unicode Text") is read as the UTF-8 it stands for; the XML readers
    // read it themselves, as its declaration may name it.
    let decoded = match format {
        Format::Usebio | Format::Scorer => None,
        _ => text::utf16(file, bytes).transpose()?,
    };
    let bytes = decoded.as_ref().map_or(bytes, |t| t.as_bytes());
    match format {
        Format::Csv => read_csv(file, bytes),
        Format::Usebio => crate::usebio::read(file, bytes),
        Format::Scorer => crate::scorer::read(file, bytes),
        Format::Pbn => crate::pbn::read(file, bytes),
        Format::HillyardCsv => crate::hillyard::read(file, bytes),
    }
}

/// Reads a traveller CSV: in a spreadsheet's code page, with its semicolons or tabs, or after a
/// `sep=` line, it is read as the UTF-8 and the commas they stand for.
fn read_csv(file: &str, bytes: &[u8]) -> Result<Imported> {
    not_a_workbook(file, bytes)?;
    let (text, encoding) = match text::as_windows_1252(file, bytes) {
        Some((text, warning)) => (Cow::Owned(text.into_bytes()), Some(warning)),
        None => (Cow::Borrowed(bytes), None),
    };
    // The rows after a `sep=` line are read as a file of their own, and their lines then counted
    // from the top of the file, as the user's text editor counts them.
    let (given, rows) = match crate::csv_separator::sep_line(&text) {
        Some((separator, rows)) => (Some(separator), rows),
        None => (None, &text[..]),
    };
    let skipped = u64::from(given.is_some());
    let bytes = &crate::csv_separator::with_commas(rows, given)[..];
    let read = crate::csv::read(file, bytes).map_err(|e| e.lines_moved_by(skipped))?;
    let mut imported = csv_imported(file, read).map_err(|e| e.lines_moved_by(skipped))?;
    crate::csv_extras::add(file, bytes, &mut imported)?;
    move_lines(&mut imported, skipped);
    // Found in the file's own lines.
    crate::error::warn_in_line_order(&mut imported.warnings, encoding);
    Ok(imported)
}

/// Moves the lines of a CSV's results and warnings `by` lines on: they were read after a first
/// line that is not part of the table.
fn move_lines(imported: &mut Imported, by: u64) {
    if by > 0 {
        imported.lines.move_by(by);
        for w in &mut imported.warnings {
            w.at.line += by;
        }
    }
}

/// Reads a large file without holding all of it (see [`crate::csv::read_ranged`]): `fetch(offset,
/// buffer)` fills `buffer` from the file at `offset`, `len` is the file's length. `Ok(None)` when
/// the file is not a plain traveller CSV that path can read (another format, quoted fields,
/// informational columns, separators other than commas, UTF-16, a small file): the caller then
/// reads the whole file and calls [`read`]. A `sep=,` first line is read past.
pub fn read_ranged(
    file: &str,
    len: u64,
    fetch: &(dyn Fn(u64, &mut [u8]) -> std::io::Result<()> + Sync),
    format: Option<Format>,
) -> Result<Option<Imported>> {
    let mut head = vec![0; len.min(SNIFF_BYTES as u64) as usize];
    fetch(0, &mut head).map_err(|e| crate::csv::read_failed(file, e))?;
    not_a_workbook(file, &head)?;
    let is_csv = match format {
        Some(f) => f == Format::Csv,
        // Detection looks at no more than this head.
        None => matches!(detect(file, &head), Ok(Format::Csv)),
    };
    // UTF-16 is read whole, as UTF-8 ([`read`]).
    if !is_csv || text::is_utf16(&head) {
        return Ok(None);
    }
    // After a `sep=,` line, the rest of the file is read as a file of its own, its lines then
    // counted from the top of the file (as [`read_csv`] does).
    let (skip, rows) = match crate::csv_separator::sep_line(&head) {
        Some((b',', rows)) => (head.len() - rows.len(), rows),
        Some(_) => return Ok(None),
        None => (0, &head[..]),
    };
    let header_end = memchr::memchr(b'\n', rows).map_or(rows.len(), |i| i + 1);
    let header = &rows[..header_end];
    let commas = crate::csv_separator::separator(header) == b',';
    if !commas || crate::csv_extras::named_in(header) {
        return Ok(None);
    }
    let skipped = u64::from(skip > 0);
    let fetch_rows = |at: u64, buffer: &mut [u8]| fetch(at + skip as u64, buffer);
    let read = crate::csv::read_ranged(file, len - skip as u64, header, &fetch_rows)
        .map_err(|e| e.lines_moved_by(skipped))?;
    let Some(read) = read else { return Ok(None) };
    let mut imported = csv_imported(file, read).map_err(|e| e.lines_moved_by(skipped))?;
    move_lines(&mut imported, skipped);
    Ok(Some(imported))
}

/// A traveller CSV's reading as an import: refused when it has no rows or a name with a control
/// character.
fn csv_imported(file: &str, read: crate::csv::Read) -> Result<Imported> {
    if read.field.is_empty() && read.not_played == 0 {
        return Err(Error::at(
            file,
            2,
            None,
            "the file has a header but no rows: there are no results to score",
        ));
    }
    check_names(file, &read)?;
    let mut imported = Imported::bare(Format::Csv, read.field, read.lines, read.not_played);
    imported.warnings = read.warnings;
    imported.not_played_tables = read.not_played_tables;
    Ok(imported)
}

/// Refuses club, section and pair names with control characters, which no results file can carry
/// (XML cannot): two different pairs could not be told apart once written.
fn check_names(file: &str, read: &crate::csv::Read) -> Result<()> {
    let f = &read.field;
    let bad = |s: &str| s.chars().any(char::is_control);
    if !f.clubs().any(bad) && !f.sections().any(bad) {
        // A national field has millions of pairs: looked at on every thread.
        let labels_ok = f.pairs().par_iter().all(|p| match &p.label {
            simpairs_scoring::PairLabel::Number(_) => true,
            simpairs_scoring::PairLabel::Text(t) => !bad(t),
        });
        if labels_ok {
            return Ok(());
        }
    }
    for (id, p) in f.pairs().iter().enumerate() {
        let (field, text) = if bad(f.club_name(p.club)) {
            ("club", f.club_name(p.club).to_string())
        } else if bad(f.section_name(p.section)) {
            ("section", f.section_name(p.section).to_string())
        } else if bad(&p.label.to_string()) {
            ("pair", p.label.to_string())
        } else {
            continue;
        };
        let row = (0..f.len()).find(|&r| {
            let t = f.result(r);
            t.ns as usize == id || t.ew as usize == id
        });
        let line = row.map_or(1, |r| read.lines.line_of(r));
        return Err(Error::at(
            file,
            line,
            Some(field),
            format!("{text:?} holds a control character"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suits_are_sorted_and_checked() {
        assert_eq!(Hand::parse_suit("3jka").unwrap(), "AKJ3");
        assert_eq!(Hand::parse_suit("109").unwrap(), "T9");
        assert_eq!(Hand::parse_suit("").unwrap(), "");
        assert!(Hand::parse_suit("AA").is_err());
        assert!(Hand::parse_suit("X").is_err());
    }

    #[test]
    fn places_parse() {
        assert_eq!(
            Place::parse("3"),
            Some(Place {
                rank: 3,
                tied: false
            })
        );
        assert_eq!(
            Place::parse("3="),
            Some(Place {
                rank: 3,
                tied: true
            })
        );
        assert_eq!(
            Place::parse("=12"),
            Some(Place {
                rank: 12,
                tied: true
            })
        );
        assert_eq!(Place::parse("x"), None);
        assert_eq!(
            Place {
                rank: 4,
                tied: true
            }
            .to_string(),
            "4="
        );
    }

    #[test]
    fn formats_are_detected() {
        assert_eq!(
            detect("a", b"<?xml version=\"1.0\"?>\n<USEBIO Version=\"1.2\"/>").unwrap(),
            Format::Usebio
        );
        assert_eq!(
            detect("a", b"<session club=\"x\"></session>").unwrap(),
            Format::Scorer
        );
        assert_eq!(
            detect("a", b"% PBN 2.1\n[Event \"x\"]\n[Board \"1\"]\n").unwrap(),
            Format::Pbn
        );
        assert_eq!(
            detect("a", b"board,ns_pair,ew_pair,ns_score\n1,1,1,420\n").unwrap(),
            Format::Csv
        );
        assert_eq!(
            detect("a", b"\"board\",\"ns_pair\",\"ew_pair\"\n").unwrap(),
            Format::Csv
        );
        assert_eq!(detect("a.pbn", b"junk").unwrap(), Format::Pbn);
        assert!(
            detect("a", b"<html></html>")
                .unwrap_err()
                .to_string()
                .contains("<html>")
        );
        assert!(detect("a", b"").unwrap_err().to_string().contains("empty"));
        assert!(
            detect("a.bin", b"junk")
                .unwrap_err()
                .to_string()
                .contains("--format")
        );
        assert_eq!(Format::from_name("USEBIO"), Some(Format::Usebio));
        assert_eq!(Format::from_name("word"), None);
    }
}

/// The CSV's extra columns (`csv_extras`), read through [`read`].
#[cfg(test)]
mod csv_extras_tests {
    use super::{Format, read};
    use simpairs_scoring::Value;

    #[test]
    fn extra_columns_are_kept() {
        let text = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score,lead,ns_mp,ew_mp,ns_names\n\
1,1,1,4S,N,10,420,AH,2,0,Ann & Bob\n1,2,2,NP,,,,,,,\n1,3,3,3NT,S,9,400,,1,1,\n1,4,4,PASS,,,,,0,2,\n";
        let got = read("t.csv", text.as_bytes(), Some(Format::Csv)).unwrap();
        assert_eq!(got.field.len(), 3);
        assert_eq!(got.details(0).unwrap().lead.as_deref(), Some("AH"));
        assert_eq!(got.details(1).unwrap().contract.as_deref(), Some("3NT"));
        assert_eq!(got.details(2).unwrap().contract.as_deref(), Some("PASS"));
        assert_eq!(
            got.official.line(2).unwrap().ew,
            Some(Value::from_integer(2))
        );
        let ns1 = got.field.result(0).ns;
        assert_eq!(got.pairs[ns1 as usize].names(), "Ann & Bob");
    }

    /// A line break typed into a cell (Alt+Enter in a spreadsheet) is a space in the name.
    #[test]
    fn a_name_broken_over_lines_in_its_cell_is_one_line() {
        let text = "board,ns_pair,ew_pair,ns_score,ns_names\n1,1,1,420,\"Ann\r\n  Smith & Bob\"\n1,2,2,450,\n";
        let got = read("nl.csv", text.as_bytes(), Some(Format::Csv)).unwrap();
        let ns1 = got.field.result(0).ns;
        assert_eq!(got.pairs[ns1 as usize].names(), "Ann Smith & Bob");
    }

    /// The file of the report, verbatim: Windows line ends (as Excel and club programs write them).
    #[test]
    fn crlf_rows_keep_their_own_details() {
        let text = "board,ns_pair,ew_pair,contract,ns_score\r\n22,2,6,,110\r\n23,3,7,PASS,0\r\n";
        let got = read("crlf.csv", text.as_bytes(), None).unwrap();
        assert_eq!(got.field.len(), 2);
        assert_eq!(got.details(0), None, "row 0 gives no contract");
        assert_eq!(got.details(1).unwrap().contract.as_deref(), Some("PASS"));
        assert_eq!((got.lines.line_of(0), got.lines.line_of(1)), (2, 3));
        assert!(got.warnings.is_empty(), "{:?}", got.warnings);
    }

    /// Every row's line, details, official values and names, in words.
    fn rows(text: &str) -> Vec<String> {
        let got =
            read("v.csv", text.as_bytes(), Some(Format::Csv)).unwrap_or_else(|e| panic!("{e}"));
        (0..got.field.len())
            .map(|r| {
                let ns = got.field.result(r).ns;
                format!(
                    "line {} {:?} {:?} {:?} {:?}",
                    got.lines.line_of(r),
                    got.field.result(r).outcome,
                    got.details(r),
                    got.official.line(r),
                    got.players(ns)
                        .iter()
                        .map(|p| p.name.clone())
                        .collect::<Vec<_>>()
                )
            })
            .collect()
    }

    /// The same rows read the same with LF or CRLF line ends, a byte-order mark, quoted fields, and
    /// (lines numbered accordingly) a quoted name holding a line break.
    #[test]
    fn details_are_the_same_whatever_the_line_ends() {
        let header = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score,lead,ns_mp,ns_names";
        let body = [
            "22,2,6,,,,110,,1,",
            "23,3,7,PASS,,,0,,0,",
            "24,4,8,4S,N,10,,HA,2,Ann & Bob",
            "24,5,9,4S,N,9,,CK,0,",
        ];
        let lf = format!("{header}\n{}\n", body.join("\n"));
        let expected = rows(&lf);
        assert_eq!(expected.len(), 4);
        let crlf = lf.replace('\n', "\r\n");
        let quoted = |t: &str| {
            t.lines()
                .map(|l| {
                    l.split(',')
                        .map(|f| format!("\"{f}\""))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect::<Vec<_>>()
                .join("\r\n")
        };
        for (name, text) in [
            ("CRLF", crlf.clone()),
            ("BOM + CRLF", format!("\u{feff}{crlf}")),
            ("BOM + LF", format!("\u{feff}{lf}")),
            ("quoted + CRLF", quoted(&lf)),
            ("quoted + LF", quoted(&lf).replace("\r\n", "\n")),
        ] {
            assert_eq!(rows(&text), expected, "{name}");
        }
        // A quoted name over two lines: the rows after it are one line further down.
        for end in ["\n", "\r\n"] {
            let text = lf
                .replace("Ann & Bob", "\"Ann &\nBob\"")
                .replace('\n', end)
                .replace(&format!("&{end}Bob"), "&\nBob");
            let got = rows(&text);
            assert_eq!(got[..3], expected[..3], "{end:?}");
            assert_eq!(
                got[3],
                expected[3].replacen("line 5", "line 6", 1),
                "{end:?}"
            );
        }
    }

    #[test]
    fn score_only_files_are_not_read_twice() {
        let text = "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n";
        let got = read("t.csv", text.as_bytes(), None).unwrap();
        assert!(got.details.is_empty() && got.official.is_empty());
    }

    /// The file `bytes` read in ranges, as `score` reads a large file: `None` when it is left to
    /// the whole-file reading.
    fn ranged(bytes: &[u8]) -> Option<super::Imported> {
        let fetch = |at: u64, buffer: &mut [u8]| -> std::io::Result<()> {
            let at = at as usize;
            buffer.copy_from_slice(&bytes[at..at + buffer.len()]);
            Ok(())
        };
        super::read_ranged("club.csv", bytes.len() as u64, &fetch, None).unwrap()
    }

    /// 700,000 rows of board `row / 1000 + 1`, table `row % 1000 + 1`, in the club `club(table)`:
    /// large enough to be read in ranges.
    fn large_file(club: impl Fn(u32) -> &'static [u8]) -> Vec<u8> {
        let mut out = b"board,club,ns_pair,ew_pair,ns_score\n".to_vec();
        for i in 0..700_000u32 {
            let (board, table) = (i / 1000 + 1, i % 1000 + 1);
            out.extend_from_slice(format!("{board},").as_bytes());
            out.extend_from_slice(club(table));
            out.extend_from_slice(format!(",{table},{table},110\n").as_bytes());
        }
        out
    }

    /// A file large enough to be read in ranges (`read_ranged`) is left to the whole-file reading when
    /// its separator is not the comma, which then reads it as the same file with commas.
    #[test]
    fn a_large_semicolon_file_is_read_whole() {
        let commas = large_file(|_| b"Bern");
        let in_ranges = ranged(&commas).expect("a comma file this large is read in ranges");
        assert_eq!(in_ranges.field.len(), 700_000);
        let semicolons: Vec<u8> = commas
            .iter()
            .map(|&b| if b == b',' { b';' } else { b })
            .collect();
        assert!(ranged(&semicolons).is_none());
        let whole = read("club.csv", &semicolons, None).unwrap();
        assert_eq!(whole.field.len(), 700_000);
    }

    /// A large file in the Windows code page (a club named `Zürich` in it) is left to the whole-file
    /// reading too, which reads it as Windows-1252 with its warning, as it reads a small one.
    #[test]
    fn a_large_code_page_file_is_read_whole() {
        let windows = large_file(|table| if table == 1 { b"Z\xfcrich" } else { b"Bern" });
        assert!(ranged(&windows).is_none());
        let whole = read("club.csv", &windows, None).unwrap();
        assert_eq!(whole.field.len(), 700_000);
        assert!(whole.field.clubs().any(|c| c == "Z\u{fc}rich"));
        assert_eq!(whole.warnings.len(), 1);
        assert_eq!(whole.warnings[0].at.line, 2);
    }
}

#[cfg(test)]
mod reported;
