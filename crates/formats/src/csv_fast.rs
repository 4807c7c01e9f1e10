//! The traveller CSV's fast path: a chunk without quotes, read line by line. A row that is only a
//! plain score (board, club, section, numbered pairs, NS score: the shape of large files) written
//! without spaces is scanned once, its numbers parsed as its bytes go by. Every other row, and
//! any row the scan refuses, is split at its commas and read the checked way, which accepts what
//! the scan is too strict for and says what is wrong with the rest.

use simpairs_scoring::LegalScores;

use crate::csv_row::{Absent, COLUMNS, Checked, Chunk, Layout};
use crate::error::{Location, Problem, Problems};
use crate::row::{FieldBuilder, PlainRow, packed_name};

/// What the scan does with one column of the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Board,
    Club,
    Section,
    NsPair,
    EwPair,
    NsScore,
    /// A column that makes a row more than a plain score (a contract, an adjustment): it must be
    /// empty.
    Empty,
    /// A column that does not change the result (`table`, `ns_mp`): passed over.
    Skip,
}

/// The role of each of a header's columns, in the header's order.
pub(crate) struct Scan {
    roles: Vec<Role>,
    /// Which of the two orders large files write a plain score's columns in the header is, when
    /// it is one of them and has no other column: board, club, (section,) NS pair, EW pair, NS
    /// score. Such a row is read by code written for that order, without a look at each column's
    /// role.
    in_order: Option<InOrder>,
}

/// A header of a plain score's columns alone, in their usual order ([`Scan::in_order`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InOrder {
    WithoutSection,
    WithSection,
}

impl Scan {
    /// `None` when the header has no `ns_score` column: then no row is a plain score.
    pub(crate) fn new(layout: &Layout) -> Option<Scan> {
        const NAMED: [(&str, Role); 6] = [
            ("board", Role::Board),
            ("club", Role::Club),
            ("section", Role::Section),
            ("ns_pair", Role::NsPair),
            ("ew_pair", Role::EwPair),
            ("ns_score", Role::NsScore),
        ];
        let mut roles = vec![Role::Skip; layout.width];
        for (name, index) in COLUMNS.iter().zip(layout.index) {
            if let Some(i) = index {
                roles[i] = NAMED
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(Role::Empty, |&(_, role)| role);
            }
        }
        use Role::*;
        let in_order = match roles[..] {
            [Board, Club, NsPair, EwPair, NsScore] => Some(InOrder::WithoutSection),
            [Board, Club, Section, NsPair, EwPair, NsScore] => Some(InOrder::WithSection),
            _ => None,
        };
        roles
            .contains(&Role::NsScore)
            .then_some(Scan { roles, in_order })
    }

    /// [`Scan::plain_in_order`] reading the line from the [`WINDOW`] bytes it starts, when the
    /// chunk has them, and from the chunk otherwise. A window's length is known where its fields
    /// are read, so that fewer of their bounds are checked against the chunk's; a line that does
    /// not end inside it is read again from the chunk.
    #[inline(always)]
    fn plain_in_window<'a, const SECTION: bool>(
        bytes: &'a [u8],
        start: usize,
    ) -> Option<(PlainRow<'a>, usize)> {
        if let Some(window) = bytes.get(start..start + WINDOW)
            && let Ok(window) = <&[u8; WINDOW]>::try_from(window)
            && let Some((row, next)) = Self::plain_in_order::<SECTION, true>(window, 0)
        {
            return Some((row, start + next));
        }
        Self::plain_in_order::<SECTION, false>(bytes, start)
    }

    /// [`Scan::plain`] for a header of [`InOrder`] columns: the same fields read in the same way,
    /// one after the other. In a `WINDOWED` read the bytes end before the chunk does, so that
    /// their end does not end the line.
    #[inline(always)]
    fn plain_in_order<'a, const SECTION: bool, const WINDOWED: bool>(
        bytes: &'a [u8],
        start: usize,
    ) -> Option<(PlainRow<'a>, usize)> {
        let (board, at) = board(bytes, start)?;
        let club_from = comma(bytes, at)?;
        let (club, at) = name(bytes, club_from);
        // Packed when nothing was trimmed from it, so that its bytes start at `club_from`.
        let club_packed = if club.len() == at - club_from {
            eight_at(bytes, club_from).and_then(|eight| packed_name(eight, club.len()))
        } else {
            None
        };
        let (section, at) = if SECTION {
            name(bytes, comma(bytes, at)?)
        } else {
            (&b""[..], at)
        };
        let (ns_pair, at) = pair_number(bytes, comma(bytes, at)?)?;
        let (ew_pair, at) = pair_number(bytes, comma(bytes, at)?)?;
        let (ns_score, at) = score(bytes, comma(bytes, at)?)?;
        let row = PlainRow {
            board,
            club,
            club_packed,
            section,
            ns_pair,
            ew_pair,
            ns_score,
        };
        let next = if WINDOWED {
            line_end_inside(bytes, at)?
        } else {
            line_end(bytes, at)?
        };
        Some((row, next))
    }

    /// The row of the line starting at `start` if it is a plain score with nothing around its
    /// fields, with where the next line starts; `None` sends the row the checked way.
    ///
    /// The line's end is not looked for first: the row's fields are read from `start`, and the
    /// last one must end the line (at a line feed, a carriage return and line feed, or the end of
    /// the chunk). Numbers are read eight bytes at a time, and names end at a comma or either line
    /// end byte, so that no field runs on into the next line.
    #[inline(always)]
    pub(crate) fn plain<'a>(&self, bytes: &'a [u8], start: usize) -> Option<(PlainRow<'a>, usize)> {
        let mut row = PlainRow::default();
        let mut at = start;
        let last = self.roles.len() - 1;
        for (i, role) in self.roles.iter().enumerate() {
            match role {
                Role::Board => (row.board, at) = board(bytes, at)?,
                Role::NsPair => (row.ns_pair, at) = pair_number(bytes, at)?,
                Role::EwPair => (row.ew_pair, at) = pair_number(bytes, at)?,
                Role::NsScore => (row.ns_score, at) = score(bytes, at)?,
                Role::Club => (row.club, at) = name(bytes, at),
                Role::Section => (row.section, at) = name(bytes, at),
                Role::Empty => {}
                Role::Skip => at = field_end(bytes, at),
            }
            // Each field ends at a comma, the last one at the line's end.
            if i == last {
                return Some((row, line_end(bytes, at)?));
            }
            at = comma(bytes, at)?;
        }
        None
    }
}

/// The eight bytes from `from` as a word, the first in the lowest byte, if `bytes` has them.
#[inline(always)]
fn eight_at(bytes: &[u8], from: usize) -> Option<u64> {
    let eight = bytes.get(from..from + 8)?;
    Some(u64::from_le_bytes(eight.try_into().ok()?))
}

/// Where the field after the one ending at `at` starts, if a comma ends it.
#[inline(always)]
fn comma(bytes: &[u8], at: usize) -> Option<usize> {
    (bytes.get(at) == Some(&b',')).then_some(at + 1)
}

/// A board number written from `from`: 1 to 65535.
#[inline(always)]
fn board(bytes: &[u8], from: usize) -> Option<(u16, usize)> {
    let (board, next) = digits(bytes, from)?;
    Some((u16::try_from(board).ok().filter(|&b| b > 0)?, next))
}

/// A score written from `from`: an optional minus sign, then one to nine digits.
#[inline(always)]
fn score(bytes: &[u8], from: usize) -> Option<(i32, usize)> {
    let negative = bytes.get(from) == Some(&b'-');
    let (score, next) = digits(bytes, from + usize::from(negative))?;
    // At most nine digits: below 10^9, so the score fits.
    let score = score as i32;
    Some((if negative { -score } else { score }, next))
}

/// The bytes a line is read from when the chunk has them ([`Scan::plain_in_window`]): more than
/// a plain score's line of the longest numbers and short names.
const WINDOW: usize = 64;

/// Where the next line starts if a line ends at `at` inside `bytes`: a line feed, or a carriage
/// return then a line feed.
#[inline(always)]
fn line_end_inside(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at..) {
        Some([b'\n', ..]) => Some(at + 1),
        Some([b'\r', b'\n', ..]) => Some(at + 2),
        _ => None,
    }
}

/// Where the next line starts if a line ends at `at`: a line feed, a carriage return then a line
/// feed, or the end of the chunk (after a carriage return or not).
#[inline(always)]
fn line_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at..) {
        Some([] | [b'\r']) => Some(bytes.len()),
        Some([b'\n', ..]) => Some(at + 1),
        Some([b'\r', b'\n', ..]) => Some(at + 2),
        _ => None,
    }
}

/// The number written from `from` in one to nine digits, and where its digits end.
#[inline(always)]
fn digits(bytes: &[u8], from: usize) -> Option<(u32, usize)> {
    // Eight bytes looked at together, when the chunk has them after `from` (it has for every
    // field but near the chunk's end).
    if let Some(eight) = eight_at(bytes, from) {
        let t = eight ^ 0x3030_3030_3030_3030;
        // A digit's byte of `t` is 0-9, so neither it nor it plus 6 reaches 0x10. Any other byte
        // does; its carry can only reach the bytes after it.
        let not_digit = (t | t.wrapping_add(0x0606_0606_0606_0606)) & 0xF0F0_F0F0_F0F0_F0F0;
        if not_digit != 0 {
            let n = (not_digit.trailing_zeros() / 8) as usize;
            // The digits moved to the top bytes; the bytes below them read as leading zeros.
            return (n > 0).then(|| (eight_digits(t << (8 * (8 - n))), from + n));
        }
    }
    digits_one_by_one(bytes, from)
}

/// The number whose eight digits' values are the bytes of `t`, the first in the lowest byte:
/// pairs of digits, then fours, then all eight.
#[inline]
fn eight_digits(t: u64) -> u32 {
    let t = (t.wrapping_mul(10) + (t >> 8)) & 0x00FF_00FF_00FF_00FF;
    let t = (t.wrapping_mul(100) + (t >> 16)) & 0x0000_FFFF_0000_FFFF;
    ((t.wrapping_mul(10_000) + (t >> 32)) & 0xFFFF_FFFF) as u32
}

fn digits_one_by_one(bytes: &[u8], from: usize) -> Option<(u32, usize)> {
    let mut n = 0u32;
    let mut at = from;
    while let Some(d) = bytes
        .get(at)
        .map(|c| c.wrapping_sub(b'0'))
        .filter(|&d| d <= 9)
    {
        if at - from == 9 {
            return None;
        }
        n = n * 10 + u32::from(d);
        at += 1;
    }
    (at > from).then_some((n, at))
}

/// A pair number: digits without a leading zero (the rule of the compact pair labels).
#[inline(always)]
fn pair_number(bytes: &[u8], from: usize) -> Option<(u32, usize)> {
    let (n, at) = digits(bytes, from)?;
    (at - from == 1 || bytes[from] != b'0').then_some((n, at))
}

/// The name written from `from` to the end of its field, without the spaces around it, and where
/// its field ends.
#[inline(always)]
fn name(bytes: &[u8], from: usize) -> (&[u8], usize) {
    let stop = field_end(bytes, from);
    (bytes[from..stop].trim_ascii(), stop)
}

/// Where the field written from `from` ends: at the first comma, line feed or carriage return, or
/// at the chunk's end.
#[inline(always)]
fn field_end(bytes: &[u8], from: usize) -> usize {
    // Eight bytes looked at together (a club's name or number is mostly shorter): a byte of each
    // `x` is zero where the text has that byte, and the lowest byte flagged in any is the first
    // such byte (a false flag can only sit above a true one).
    if let Some(text) = eight_at(bytes, from) {
        let zero_bytes =
            |x: u64| x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
        let ends = zero_bytes(text ^ 0x2c2c_2c2c_2c2c_2c2c)
            | zero_bytes(text ^ 0x0a0a_0a0a_0a0a_0a0a)
            | zero_bytes(text ^ 0x0d0d_0d0d_0d0d_0d0d);
        if ends != 0 {
            return from + (ends.trailing_zeros() / 8) as usize;
        }
    }
    field_end_one_by_one(bytes, from)
}

fn field_end_one_by_one(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| matches!(b, b',' | b'\n' | b'\r'))
        .map_or(bytes.len(), |i| from + i)
}

/// Reads a chunk without quotes line by line: plain-score rows by the scan, every other row split
/// at its commas and read the checked way.
pub(crate) fn read_chunk_fast<'l>(
    file: &str,
    bytes: &[u8],
    first_line: u64,
    layout: Layout,
    legal: &'l LegalScores,
) -> Chunk<'l> {
    let scan = Scan::new(&layout);
    read_chunk_with(
        file,
        bytes,
        first_line,
        layout,
        FieldBuilder::new(legal),
        scan,
    )
}

/// [`read_chunk_fast`] into `builder` (which may know the movements of sections an earlier part
/// of the file set), with `scan` for the plain rows; with `None` every row is read the checked way
/// (the tests compare the two).
pub(crate) fn read_chunk_with<'l>(
    file: &str,
    bytes: &[u8],
    first_line: u64,
    layout: Layout,
    mut builder: FieldBuilder<'l>,
    scan: Option<Scan>,
) -> Chunk<'l> {
    // Rows are rarely shorter than 16 bytes; reserving avoids growing the columns row by row.
    builder.reserve(bytes.len() / 16);
    let mut rows = Rows {
        builder,
        split: Split::new(file, layout),
        line: first_line,
    };
    // The scan is chosen once for the chunk, so that each row's loop is written for it.
    match &scan {
        Some(Scan {
            in_order: Some(InOrder::WithoutSection),
            ..
        }) => rows.read(bytes, Scan::plain_in_window::<false>),
        Some(Scan {
            in_order: Some(InOrder::WithSection),
            ..
        }) => rows.read(bytes, Scan::plain_in_window::<true>),
        Some(scan) => rows.read(bytes, |bytes, start| scan.plain(bytes, start)),
        None => rows.read(bytes, |_, _| None),
    }
    let Rows {
        builder,
        split,
        line,
    } = rows;
    // Each line read ended at a line feed, but for a last line without one.
    let line_ends = (line - first_line) - u64::from(bytes.last().is_some_and(|&b| b != b'\n'));
    debug_assert_eq!(line_ends, memchr::memchr_iter(b'\n', bytes).count() as u64);
    Chunk::new(builder, split.problems, split.absent, line_ends)
}

/// A chunk's rows being read: the field they go into, the rows the scan did not take, and the
/// next line's number.
struct Rows<'a, 'l> {
    builder: FieldBuilder<'l>,
    split: Split<'a>,
    line: u64,
}

impl Rows<'_, '_> {
    /// Reads every line of `bytes`: a plain score by `plain`, any other row (or one `plain`
    /// refuses) split at its commas and read the checked way.
    fn read<'b>(
        &mut self,
        bytes: &'b [u8],
        plain: impl Fn(&'b [u8], usize) -> Option<(PlainRow<'b>, usize)>,
    ) {
        let mut line = self.line;
        let mut start = 0;
        while start < bytes.len() {
            let this_line = line;
            line += 1;
            if let Some((row, next)) = plain(bytes, start)
                && self.builder.push_plain(&row, this_line)
            {
                start = next;
                continue;
            }
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            let text = &bytes[start..end];
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            self.split.read(&mut self.builder, text, this_line);
            start = end + 1;
        }
        self.line = line;
    }
}

/// The most fields a row can have and be read: a header names each of the 26 columns simpairs
/// knows at most once.
const MAX_FIELDS: usize = 32;

/// Rows the scan did not take, split at their commas.
struct Split<'a> {
    file: &'a str,
    layout: Layout,
    /// The columns whose presence makes a row more than a plain score.
    complex: Vec<usize>,
    /// Where the header has a plain score's board, club, section, pairs and NS score.
    plain_at: [Option<usize>; 6],
    problems: Problems,
    absent: Absent,
}

impl<'a> Split<'a> {
    fn new(file: &'a str, layout: Layout) -> Split<'a> {
        Split {
            file,
            layout,
            complex: crate::csv_row::complex_columns(&layout),
            plain_at: ["board", "club", "section", "ns_pair", "ew_pair", "ns_score"].map(|name| {
                let k = COLUMNS.iter().position(|c| *c == name).expect("a column");
                layout.index[k]
            }),
            problems: Problems::default(),
            absent: Absent::default(),
        }
    }

    /// Adds the row on `text` (without its line end), a plain score that has spaces about its
    /// fields or a row with more, or notes why it cannot be added; skips a blank line, and a row of
    /// empty fields (a spreadsheet saves its formatted empty rows as `,,,,`).
    fn read(&mut self, builder: &mut FieldBuilder<'_>, text: &[u8], line: u64) {
        if text.iter().all(|&b| b == b',' || b.is_ascii_whitespace()) {
            return;
        }
        let mut fields: [&[u8]; MAX_FIELDS] = [b""; MAX_FIELDS];
        let mut count = 0;
        for field in text.split(|&b| b == b',') {
            if let Some(slot) = fields.get_mut(count) {
                *slot = field;
            }
            count += 1;
        }
        if count != self.layout.width || count > MAX_FIELDS {
            self.problems.push(Problem {
                at: Location {
                    file: self.file.to_string(),
                    line,
                    field: None,
                },
                message: format!(
                    "the row has {count} fields but the header has {}",
                    self.layout.width
                ),
            });
            return;
        }
        let fields = &fields[..count];
        if self
            .complex
            .iter()
            .all(|&i| fields[i].trim_ascii().is_empty())
            && let Some(row) = self.plain(fields)
            && builder.push_plain(&row, line)
        {
            return;
        }
        let checked = Checked {
            file: self.file,
            line,
            layout: &self.layout,
        };
        checked.push(builder, fields, &mut self.absent, &mut self.problems);
    }

    /// The row as a plain score, if each of its numbers is one.
    fn plain<'f>(&self, fields: &[&'f [u8]]) -> Option<PlainRow<'f>> {
        let [board, club, section, ns, ew, score] =
            self.plain_at.map(|at| at.map_or(&b""[..], |i| fields[i]));
        PlainRow::parse(board, club, section, ns, ew, score)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// Eight bytes at a time or one by one, a number reads the same, wherever it ends.
        #[test]
        fn digits_read_alike_eight_at_a_time(text in "[0-9]{0,11}[,\\-0-9a-z :/Ωéʀ]{0,10}", from in 0usize..3) {
            let line = text.as_bytes();
            prop_assume!(from <= line.len());
            prop_assert_eq!(super::digits(line, from), super::digits_one_by_one(line, from));
        }
    }

    proptest! {
        /// Eight bytes at a time or one by one, a field ends at the same place: its comma, a line
        /// end byte or the chunk's end.
        #[test]
        fn fields_end_alike_eight_at_a_time(text in "[,a-z0-9 é\\r\\n]{0,20}", from in 0usize..6) {
            let bytes = text.as_bytes();
            prop_assume!(from <= bytes.len());
            prop_assert_eq!(
                super::field_end(bytes, from),
                super::field_end_one_by_one(bytes, from)
            );
        }
    }

    proptest! {
        /// Names of up to seven bytes, whatever bytes follow them, pack alike exactly when they
        /// are the same bytes: a name and itself with a zero byte added differ.
        #[test]
        fn names_pack_alike_only_when_the_same(
            a in prop::collection::vec(prop::sample::select(b"ab \0\xff".to_vec()), 0..8),
            b in prop::collection::vec(prop::sample::select(b"ab \0\xff".to_vec()), 0..8),
            after_a in any::<[u8; 8]>(),
            after_b in any::<[u8; 8]>(),
        ) {
            let packed = |name: &[u8], after: &[u8; 8]| {
                let bytes = [name, &after[..]].concat();
                super::eight_at(&bytes, 0).and_then(|eight| crate::row::packed_name(eight, name.len()))
            };
            let (pa, pb) = (packed(&a, &after_a), packed(&b, &after_b));
            prop_assert_eq!(pa.is_some(), a.len() <= 7);
            if let (Some(pa), Some(pb)) = (pa, pb) {
                prop_assert_eq!(pa == pb, a == b);
            }
        }
    }

    #[test]
    fn digits_stop_at_the_first_byte_that_is_not_one() {
        let cases: [(&str, Option<(u32, usize)>); 7] = [
            ("1000001,50", Some((1_000_001, 7))),
            ("12345678,", Some((12_345_678, 8))),
            ("7,1,2,3,4,5", Some((7, 1))),
            (",1234567890", None),
            ("123456789", Some((123_456_789, 9))),
            ("1234567890", None),
            ("0099:11111", Some((99, 4))),
        ];
        for (line, want) in cases {
            assert_eq!(super::digits(line.as_bytes(), 0), want, "{line}");
        }
    }
}
