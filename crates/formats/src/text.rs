//! Small text helpers shared by the readers: character sets, line numbers and exact decimals.

use std::borrow::Cow;

use simpairs_scoring::Value;

use crate::error::{Error, Result};

/// Counts lines forward through a buffer, so that finding the line of each of many increasing offsets
/// costs one pass over the buffer in all.
#[derive(Debug)]
pub(crate) struct LineCounter<'a> {
    bytes: &'a [u8],
    /// Offset up to which newlines have been counted.
    at: usize,
    /// 1-based line number of offset `at`.
    line: u64,
}

impl<'a> LineCounter<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        LineCounter {
            bytes,
            at: 0,
            line: 1,
        }
    }

    /// The 1-based line of byte offset `offset`.
    pub(crate) fn line_at(&mut self, offset: usize) -> u64 {
        let offset = offset.min(self.bytes.len());
        if offset < self.at {
            // Rare (an error reported behind the reader): count from the start.
            return line_of(self.bytes, offset);
        }
        self.line += memchr::memchr_iter(b'\n', &self.bytes[self.at..offset]).count() as u64;
        self.at = offset;
        self.line
    }
}

/// The 1-based line of byte offset `offset` of `bytes`.
pub(crate) fn line_of(bytes: &[u8], offset: usize) -> u64 {
    let offset = offset.min(bytes.len());
    memchr::memchr_iter(b'\n', &bytes[..offset]).count() as u64 + 1
}

/// `bytes` as UTF-8 text, or an error naming the line and column of the first byte that is not.
pub(crate) fn utf8<'a>(file: &str, bytes: &'a [u8], advice: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let line = line_of(bytes, at);
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        Error::at(
            file,
            line,
            None,
            format!(
                "the file is not UTF-8 text: byte 0x{:02X} at column {} cannot be read{advice}",
                bytes[at],
                at - line_start + 1
            ),
        )
    })
}

/// A file that is not UTF-8 but is text, read as Windows-1252: the code page in which programs on
/// Windows write text they do not say the character set of (Excel's plain "CSV" in Western
/// Europe, the Americas and Australasia; XML written without an encoding declaration), with a
/// warning at the first byte that is not UTF-8, so that a director looks at the names. `None` when
/// the bytes are UTF-8, or are no text in any code page (control bytes other than tabs and line
/// ends: a binary file), for the reader to read or refuse as they are. A UTF-8 byte-order mark
/// before such bytes is dropped: it cannot be a name's.
pub(crate) fn as_windows_1252(file: &str, bytes: &[u8]) -> Option<(String, crate::Problem)> {
    let at = std::str::from_utf8(bytes).err()?.valid_up_to();
    let control = |b: &u8| matches!(b, 0..=8 | 0x0B | 0x0C | 0x0E..=0x1F | 0x7F);
    if bytes.iter().any(control) {
        return None;
    }
    let warning = crate::Problem {
        at: crate::error::Location {
            file: file.to_string(),
            line: line_of(bytes, at),
            field: None,
        },
        message: format!(
            "the file is not UTF-8 text (byte 0x{:02X}) and does not say its character set; it is \
             read as Windows-1252, as programs and spreadsheets on Windows write it: check the \
             names in it, or save the file as UTF-8",
            bytes[at]
        ),
    };
    Some((windows_1252(strip_bom(bytes)), warning))
}

/// ISO-8859-1 (Latin-1) bytes as text: every byte is the character with the same number.
pub(crate) fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// Windows-1252 bytes as text (Latin-1 with printable characters in 0x80-0x9F).
pub(crate) fn windows_1252(bytes: &[u8]) -> String {
    const HIGH: [char; 32] = [
        '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}',
        '\u{2021}', '\u{2C6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}',
        '\u{8F}', '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}',
        '\u{2014}', '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}',
        '\u{178}',
    ];
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0x9F => HIGH[usize::from(b - 0x80)],
            _ => char::from(b),
        })
        .collect()
}

/// UTF-16 text with a byte-order mark, if `bytes` starts with one.
pub(crate) fn utf16(file: &str, bytes: &[u8]) -> Option<Result<String>> {
    let units = utf16_units(bytes)?;
    Some(String::from_utf16(&units).map_err(|_| {
        Error::at(
            file,
            1,
            None,
            "the file says it is UTF-16 text (it starts with a byte-order mark) but is not",
        )
    }))
}

/// [`utf16`] for a file's first bytes, to tell its format: they may end inside a character,
/// which is then replaced.
pub(crate) fn utf16_head(bytes: &[u8]) -> Option<String> {
    utf16_units(bytes).map(|units| String::from_utf16_lossy(&units))
}

/// Whether `bytes` start with a UTF-16 byte-order mark.
pub(crate) fn is_utf16(bytes: &[u8]) -> bool {
    matches!(bytes, [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..])
}

/// The 16-bit units after a UTF-16 byte-order mark (little- or big-endian), if `bytes` starts
/// with one.
fn utf16_units(bytes: &[u8]) -> Option<Vec<u16>> {
    if !is_utf16(bytes) {
        return None;
    }
    let little = bytes[0] == 0xFF;
    let units = bytes[2..]
        .chunks(2)
        .map(|c| {
            let pair = [c[0], c.get(1).copied().unwrap_or(0)];
            if little {
                u16::from_le_bytes(pair)
            } else {
                u16::from_be_bytes(pair)
            }
        })
        .collect();
    Some(units)
}

/// The text without a UTF-8 byte-order mark.
pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

/// Largest number of digits accepted in a decimal, so that it fits an exact `i64` fraction.
const MAX_DECIMAL_DIGITS: usize = 15;

/// An exact decimal such as `30.5`, `-5.00`, `+12` or `.25`; `None` if the text is not one.
pub fn parse_decimal(text: &str) -> Option<Value> {
    let t = text.trim();
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && fraction.is_empty()
        || whole.len() + fraction.len() > MAX_DECIMAL_DIGITS
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut numerator: i64 = 0;
    for b in whole.bytes().chain(fraction.bytes()) {
        numerator = numerator * 10 + i64::from(b - b'0');
    }
    let denominator = 10i64.pow(fraction.len() as u32);
    let value = Value::new(numerator, denominator);
    Some(if negative { -value } else { value })
}

/// An exact value written for a results file: whole numbers plainly, others with two decimals
/// (halves rounded away from zero).
pub fn format_exact(value: Value) -> String {
    if value.is_integer() {
        value.to_integer().to_string()
    } else {
        simpairs_scoring::value::format_value(value)
    }
}

/// Trimmed text, or `None` when nothing is left.
pub(crate) fn non_empty(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Trims a `Cow` without copying when it is borrowed.
pub(crate) fn trim_cow(text: Cow<'_, str>) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(s) => Cow::Borrowed(s.trim()),
        Cow::Owned(s) if s.trim().len() == s.len() => Cow::Owned(s),
        Cow::Owned(s) => Cow::Owned(s.trim().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(parse_decimal("30.5"), Some(Value::new(61, 2)));
        assert_eq!(parse_decimal("-5.00"), Some(Value::from_integer(-5)));
        assert_eq!(parse_decimal(" 12 "), Some(Value::from_integer(12)));
        assert_eq!(parse_decimal(".25"), Some(Value::new(1, 4)));
        assert_eq!(parse_decimal("+1.4"), Some(Value::new(7, 5)));
        for bad in ["", "-", ".", "1.2.3", "1e3", "abc", "12345678901234567"] {
            assert_eq!(parse_decimal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn exact_values_print_plainly() {
        assert_eq!(format_exact(Value::from_integer(7)), "7");
        assert_eq!(format_exact(Value::new(127, 8)), "15.88");
        assert_eq!(format_exact(Value::new(-1, 2)), "-0.50");
    }

    #[test]
    fn lines_count_forward_and_back() {
        let text = b"a\nb\nc\n";
        let mut c = LineCounter::new(text);
        assert_eq!(c.line_at(0), 1);
        assert_eq!(c.line_at(2), 2);
        assert_eq!(c.line_at(5), 3);
        assert_eq!(c.line_at(1), 1);
        assert_eq!(c.line_at(100), 4);
    }

    #[test]
    fn bad_utf8_is_located() {
        let err = utf8("f.xml", b"ok\nab\xffc", "").unwrap_err();
        let p = &err.problems()[0];
        assert_eq!(p.at.line, 2);
        assert!(p.message.contains("0xFF at column 3"), "{}", p.message);
    }

    #[test]
    fn single_byte_sets() {
        assert_eq!(latin1(b"caf\xe9"), "café");
        assert_eq!(windows_1252(b"\x93hi\x94"), "\u{201C}hi\u{201D}");
        assert_eq!(utf16("f", b"\xff\xfeh\0i\0").unwrap().unwrap(), "hi");
    }
}
