//! Traveller CSVs separated by semicolons or tabs: a spreadsheet saves "CSV" with semicolons where
//! the decimal mark is a comma (Excel in most of Europe), and "text (tab delimited)" with tabs. Such
//! a file is read as the comma-separated file it stands for.
//!
//! The header says which: a header line without a comma whose names, split at a semicolon (or a
//! tab), include a traveller CSV's required columns. Every field is then written again with commas
//! between: a field holding a comma is quoted, a number written with a decimal comma (`6,5` in an
//! `ns_mp` column) gets a decimal point, and a quoted field is kept as it is, separators inside it
//! included. Line ends are kept byte for byte, so every line a message names is the file's own line.

use std::borrow::Cow;

use crate::text::strip_bom;

/// The separators a header may use instead of the comma.
const OTHERS: [u8; 2] = [b';', b'\t'];

/// Whether `header` (the first line) names a traveller CSV's required columns when split at
/// `separator`: a header that does is separated by it.
pub(crate) fn names_the_columns(header: &[u8], separator: u8) -> bool {
    let names = crate::csv::header_cells(header, separator);
    crate::csv::REQUIRED
        .iter()
        .all(|r| names.iter().any(|n| n == r))
}

/// The separator of a traveller CSV whose first line (perhaps with a byte-order mark) is `header`:
/// the comma unless the header has none and names the columns at a semicolon or a tab.
pub(crate) fn separator(header: &[u8]) -> u8 {
    let header = strip_bom(header);
    let line = &header[..memchr::memchr(b'\n', header).unwrap_or(header.len())];
    if memchr::memchr(b',', line).is_some() {
        return b',';
    }
    OTHERS
        .into_iter()
        .find(|&s| names_the_columns(line, s))
        .unwrap_or(b',')
}

/// A traveller CSV as a comma-separated file: `bytes` themselves when they are one already. The
/// separator is `given` (by a `sep=` line, [`sep_line`]), or the header's ([`separator`]).
pub(crate) fn with_commas(bytes: &[u8], given: Option<u8>) -> Cow<'_, [u8]> {
    match given.unwrap_or_else(|| separator(bytes)) {
        b',' => Cow::Borrowed(bytes),
        other => Cow::Owned(rewritten(strip_bom(bytes), other)),
    }
}

/// The separator a first line such as `sep=;` names, as Excel writes it at the top of some CSVs
/// (`sep=,`, `sep=;`, `sep=<tab>`, perhaps quoted or followed by empty fields when a spreadsheet
/// saved the file again), and the bytes after that line: the header and the rows. `None` when
/// the file (after a UTF-8 byte-order mark) does not start with one.
pub(crate) fn sep_line(bytes: &[u8]) -> Option<(u8, &[u8])> {
    let bytes = strip_bom(bytes);
    let end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    // Not `trim_ascii_end`: that would take the tab of `sep=<tab>`.
    let mut line = &bytes[..end];
    while let [rest @ .., b'\r' | b'\n' | b' '] = line {
        line = rest;
    }
    let line = line.strip_prefix(b"\"").unwrap_or(line);
    let (sep, rest) = match line {
        [s, e, p, b'=', separator, rest @ ..]
            if [s, e, p].map(u8::to_ascii_lowercase) == *b"sep" =>
        {
            (*separator, rest)
        }
        _ => return None,
    };
    // What a spreadsheet adds after it: a closing quote, the empty fields of the line.
    let known = sep == b',' || OTHERS.contains(&sep);
    let only_leftovers = rest.iter().all(|&b| b == b'"' || b == sep);
    (known && only_leftovers).then_some((sep, &bytes[end..]))
}

/// `body` with its fields separated by commas instead of `separator`, each field written by
/// [`put_field`]. A double quote opens or closes a quoted field (a doubled one inside it, `""`,
/// closes and opens again), and a separator or line end inside quotes is part of the field.
fn rewritten(body: &[u8], separator: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + body.len() / 8);
    let (mut start, mut quoted) = (0, false);
    for (at, &byte) in body.iter().enumerate() {
        if byte == b'"' {
            quoted = !quoted;
            continue;
        }
        let ends_field = !quoted && (byte == separator || byte == b'\n' || byte == b'\r');
        if ends_field {
            put_field(&mut out, &body[start..at]);
            out.push(if byte == separator { b',' } else { byte });
            start = at + 1;
        }
    }
    put_field(&mut out, &body[start..]);
    out
}

/// One field as a comma-separated file writes it.
fn put_field(out: &mut Vec<u8>, field: &[u8]) {
    if let Some(number) = decimal_comma(field) {
        out.extend(number.iter().map(|&b| if b == b',' { b'.' } else { b }));
    } else if field.first() != Some(&b'"') && memchr::memchr(b',', field).is_some() {
        out.push(b'"');
        out.extend_from_slice(field);
        out.push(b'"');
    } else {
        out.extend_from_slice(field);
    }
}

/// The number a field writes with a decimal comma (`6,5`, `-0,25`, quoted or not), without its
/// quotes; `None` for anything else.
fn decimal_comma(field: &[u8]) -> Option<&[u8]> {
    let inner = match field {
        [b'"', inner @ .., b'"'] => inner,
        _ => field,
    };
    let digits = inner.strip_prefix(b"-").unwrap_or(inner);
    let comma = memchr::memchr(b',', digits)?;
    let (whole, fraction) = (&digits[..comma], &digits[comma + 1..]);
    let all_digits = |part: &[u8]| !part.is_empty() && part.iter().all(u8::is_ascii_digit);
    (all_digits(whole) && all_digits(fraction)).then_some(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commas(text: &str) -> String {
        String::from_utf8(with_commas(text.as_bytes(), None).into_owned()).unwrap()
    }

    #[test]
    fn a_comma_separated_file_is_borrowed_as_it_is() {
        let text = "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n";
        assert!(matches!(
            with_commas(text.as_bytes(), None),
            Cow::Borrowed(_)
        ));
        // A header with a comma is comma-separated, whatever else it holds.
        assert_eq!(separator(b"board;ns_pair;ew_pair,ns_score\n"), b',');
    }

    #[test]
    fn semicolons_and_tabs_become_commas_and_line_ends_stay() {
        assert_eq!(
            commas("\u{feff}board;ns_pair;ew_pair;ns_score\r\n1;1;1;420\r\n\r\n1;2;2;-50\r\n"),
            "board,ns_pair,ew_pair,ns_score\r\n1,1,1,420\r\n\r\n1,2,2,-50\r\n"
        );
        assert_eq!(
            commas("board\tns_pair\tew_pair\tns_score\n1\t1\t1\t420"),
            "board,ns_pair,ew_pair,ns_score\n1,1,1,420"
        );
    }

    #[test]
    fn decimal_commas_become_points_and_other_commas_are_quoted() {
        assert_eq!(
            commas("board;ns_pair;ew_pair;ns_mp;ew_mp;ns_names\n1;1;1;6,5;\"-0,25\";Smith, J\n"),
            "board,ns_pair,ew_pair,ns_mp,ew_mp,ns_names\n1,1,1,6.5,-0.25,\"Smith, J\"\n"
        );
    }

    #[test]
    fn a_quoted_field_keeps_its_separators_line_ends_and_quotes() {
        assert_eq!(
            commas("board;ns_pair;ew_pair;ns_names\n1;1;1;\"Ann; \"\"Bo\"\"\nCy, Di\"\n"),
            "board,ns_pair,ew_pair,ns_names\n1,1,1,\"Ann; \"\"Bo\"\"\nCy, Di\"\n"
        );
    }

    #[test]
    fn a_header_that_names_no_columns_at_any_separator_is_left_to_the_reader() {
        // The reader then says what the header lacks.
        assert_eq!(separator(b"board|ns_pair|ew_pair\n"), b',');
        assert_eq!(separator(b"bord;ns;ew\n"), b',');
        assert_eq!(separator(b""), b',');
    }

    #[test]
    fn a_sep_line_names_the_separator_and_is_skipped() {
        let rest = &b"board;ns_pair\n"[..];
        for first in [
            "sep=;\n",
            "SEP=;\r\n",
            "\u{feff}sep=;\n",
            "\"sep=;\"\n",
            "sep=;;;;\r\n",
        ] {
            let text = [first.as_bytes(), rest].concat();
            assert_eq!(sep_line(&text), Some((b';', rest)), "{first:?}");
        }
        assert_eq!(sep_line(b"sep=\t\r\nx"), Some((b'\t', &b"x"[..])));
        assert_eq!(sep_line(b"sep=,"), Some((b',', &b""[..])));
        for not in [
            "board,sep=;\n",
            "sep=|\n",
            "sep=;x\n",
            "sep=\n",
            "separator=;\n",
            "",
        ] {
            assert_eq!(sep_line(not.as_bytes()), None, "{not:?}");
        }
    }

    #[test]
    fn not_a_decimal_comma() {
        for field in ["1,2,3", ",5", "5,", "a,5", "1,5x", "\"1,5", "60/40", ""] {
            assert_eq!(decimal_comma(field.as_bytes()), None, "{field}");
        }
        assert_eq!(decimal_comma(b"12,75"), Some(&b"12,75"[..]));
    }
}
