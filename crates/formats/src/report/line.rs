//! A standings line written in place: the line's room filled with spaces in the table's text, each
//! field put at its column, a number's digits made eight at a time, and the room cut to the line.
//! A national table has two million lines; written field by field (a number formatted, then
//! copied, then padded, each a call) a line took about 970 instructions, and 760 this way.
//!
//! It writes the same bytes as the field by field way ([`super::standing_line`]) for the lines it
//! takes: names in ASCII short enough for its room, a numbered pair, no players' names.

use simpairs_scoring::Standing;

/// The longest club name a line written in place may show.
pub(super) const CLUB_MAX: usize = 48;

/// The longest section name a line written in place may show.
pub(super) const SECTION_MAX: usize = 24;

/// The room a line is written in: more than the longest line these limits allow (143 bytes with
/// its line end: the longest names, numbers of eight digits before their point, each signed).
const ROOM: usize = 192;

/// What a line shows of its pair's name: its club's and section's names when shown (ASCII, at
/// most [`CLUB_MAX`] and [`SECTION_MAX`] bytes), then its number.
pub(super) struct Name<'a> {
    pub(super) club: Option<&'a [u8]>,
    pub(super) section: Option<&'a [u8]>,
    pub(super) number: u32,
}

/// The figures a line shows: the standing, the total as printed, and whether the table is of
/// matchpoints (with the Max and % columns).
pub(super) struct Figures<'a> {
    pub(super) standing: &'a Standing,
    pub(super) total_hundredths: i64,
    pub(super) mp: bool,
}

/// Whether a name may be shown by a line written in place.
pub(super) fn fits(name: &str, max: usize) -> bool {
    name.len() <= max && name.is_ascii()
}

/// Appends the line of `name` and `figures` to `text`, in the columns of the table's heading;
/// `false` (and nothing appended) when one of its numbers is too long to be written in place.
///
/// A number is put eight bytes at a time, with spaces in the bytes on the side it does not fill,
/// so the fields are written in an order in which those spaces fall only where a later field
/// writes: the place, the names and the pair's number from the left; then the boards, digit by
/// digit; then the total, the percentage and the Max, whose spaces reach into the Max's last
/// bytes when the percentage is short.
pub(super) fn write(text: &mut Vec<u8>, name: &Name<'_>, figures: &Figures<'_>) -> bool {
    let s = figures.standing;
    let (Some(rank), Some(number), Some(total), Some(max), Some(percent)) = (
        Digits::of(u64::from(s.rank)),
        Digits::of(u64::from(name.number)),
        Hundredths::of(figures.total_hundredths),
        Hundredths::of(super::max_hundredths(s)),
        Hundredths::of(s.percent_hundredths.unwrap_or_default()),
    ) else {
        return false;
    };
    let start = text.len();
    text.resize(start + ROOM, b' ');
    let line = &mut text[start..];
    // Place, left-aligned in 6.
    line[..8].copy_from_slice(&rank.left());
    let mut at = rank.count;
    if s.tied {
        line[at] = b'=';
        at += 1;
    }
    at = at.max(6) + 1;
    // The pair's name, left-aligned in 24.
    let name_start = at;
    for part in [name.club, name.section].into_iter().flatten() {
        line[at..at + part.len()].copy_from_slice(part);
        at += part.len() + 1;
    }
    line[at..at + 8].copy_from_slice(&number.left());
    at = (at + number.count).max(name_start + 24) + 1;
    at = put_right(line, at, 6, u64::from(s.boards));
    at = total.put(line, at + 1, 10);
    if figures.mp {
        let max_at = at + 1;
        let max_end = max_at + max.len().max(10);
        at = percent.put(line, max_end + 1, 7);
        max.put(line, max_at, 10);
    }
    line[at] = b'\n';
    text.truncate(start + at + 1);
    true
}

/// `n` right-aligned in `width` from `at` (or longer, when it has more digits), digit by digit;
/// where it ends.
fn put_right(line: &mut [u8], at: usize, width: usize, mut n: u64) -> usize {
    let end = at + n.checked_ilog10().map_or(1, |l| l as usize + 1).max(width);
    let mut digit = end;
    loop {
        digit -= 1;
        line[digit] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return end;
        }
    }
}

/// A number below 10^8 as eight ASCII digits, the first in the lowest byte, and how many of them
/// it has without its leading zeros.
#[derive(Clone, Copy)]
struct Digits {
    ascii: u64,
    count: usize,
}

impl Digits {
    /// `None` from 10^8 on.
    fn of(n: u64) -> Option<Digits> {
        let n = u32::try_from(n).ok().filter(|&n| n < 100_000_000)?;
        // Its halves of four digits in two lanes of 32 bits, then each lane's hundreds and rest in
        // lanes of 16, then each of those lanes' tens and units in bytes: a lane's quotient by 100
        // (below 10,000) is its product by 10,486 shifted by 20, by 10 (below 100) by 103 and 10.
        let x = u64::from(n / 10_000) | (u64::from(n % 10_000) << 32);
        let hundreds = ((x * 10_486) >> 20) & 0x0000_007F_0000_007F;
        let x = ((x - hundreds * 100) << 16) | hundreds;
        let tens = ((x * 103) >> 10) & 0x000F_000F_000F_000F;
        let digits = ((x - tens * 10) << 8) | tens;
        // Leading zeros are the lowest bytes that are zero (all eight for 0, which has one digit).
        let leading = (digits.trailing_zeros() / 8) as usize;
        Some(Digits {
            ascii: digits | 0x3030_3030_3030_3030,
            count: (8 - leading).max(1),
        })
    }

    /// The eight bytes ending with the number's last digit, spaces before its first.
    fn right(self) -> [u8; 8] {
        // A leading zero less 0x10 is a space.
        let pad = 8 - self.count;
        let to_spaces = 0x1010_1010_1010_1010 & ((1u64 << (8 * pad)) - 1);
        (self.ascii - to_spaces).to_le_bytes()
    }

    /// The eight bytes starting with the number's first digit, spaces after its last.
    fn left(self) -> [u8; 8] {
        let digits = self.ascii >> (8 * (8 - self.count));
        let spaces = 0x2020_2020_2020_2020u64
            .checked_shl(8 * self.count as u32)
            .unwrap_or(0);
        (digits | spaces).to_le_bytes()
    }
}

/// Hundredths as a line shows them: a sign, the whole part's digits, a point and two digits.
#[derive(Clone, Copy)]
struct Hundredths {
    negative: bool,
    whole: Digits,
    fraction: usize,
}

impl Hundredths {
    /// `None` when the whole part has more than eight digits.
    fn of(h: i64) -> Option<Hundredths> {
        let a = h.unsigned_abs();
        Some(Hundredths {
            negative: h < 0,
            whole: Digits::of(a / 100)?,
            fraction: (a % 100) as usize,
        })
    }

    fn len(self) -> usize {
        usize::from(self.negative) + self.whole.count + 3
    }

    /// Writes the number right-aligned in `width` from `at` (or longer); where it ends. The eight
    /// bytes before its point are written whole: those before its first digit (or sign) become
    /// spaces, and may reach up to four bytes before `at` when `width` is 7.
    fn put(self, line: &mut [u8], at: usize, width: usize) -> usize {
        let end = at + self.len().max(width);
        line[end - 11..end - 3].copy_from_slice(&self.whole.right());
        line[end - 3] = b'.';
        line[end - 2..end].copy_from_slice(&DIGIT_PAIRS[2 * self.fraction..2 * self.fraction + 2]);
        if self.negative {
            line[end - self.len()] = b'-';
        }
        end
    }
}

/// `00` to `99`, each two digits: a fraction's two digits in one copy (each digit on its own
/// cost the table 4% more instructions).
const DIGIT_PAIRS: [u8; 200] = {
    let mut pairs = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        pairs[2 * i] = b'0' + (i / 10) as u8;
        pairs[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    pairs
};

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use simpairs_scoring::{Field, Standing};

    use super::super::{Label, LineFacts, NameParts, standing_line};

    fn standing() -> impl Strategy<Value = Standing> {
        // Small numbers, numbers of up to eight digits (a line written in place), and any.
        let small_or_any = |small: u32| prop_oneof![0..small, 0..100_000_000u32, any::<u32>()];
        let hundredths = prop_oneof![
            -100_000i64..100_000,
            -10_000_000_000i64..10_000_000_000,
            any::<i64>()
        ];
        let max = prop_oneof![0.0..1e9f64, -1e8..1e11f64, any::<f64>()];
        let percent = prop::option::of(prop_oneof![0i64..10_001, -20_000i64..20_000, any::<i64>()]);
        (
            small_or_any(40),
            any::<bool>(),
            small_or_any(60),
            hundredths,
            max,
            percent,
        )
            .prop_map(
                |(rank, tied, boards, total_hundredths, max, percent_hundredths)| Standing {
                    pair: 0,
                    boards,
                    total: 0.0,
                    max,
                    total_hundredths,
                    percent_hundredths,
                    rank,
                    tied,
                    combined_rank: rank,
                    combined_tied: tied,
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4_000))]

        /// Every line it takes, written in place as field by field, byte for byte: places with
        /// and without `=`, names of every length it takes shown or not, numbers of every size
        /// and sign, the total as printed or the standing's own, with and without Max and %.
        #[test]
        fn a_line_written_in_place_is_the_line_written_field_by_field(
            standing in standing(),
            club in "[ -~]{0,48}",
            section in "[A-Za-z0-9 ]{0,24}",
            number in prop_oneof![1u32..200, 1..100_000_000u32, any::<u32>()],
            shown in prop::option::of(prop_oneof![-10_000_000_000i64..10_000_000_000, any::<i64>()]),
            (show_club, show_section, mp) in any::<(bool, bool, bool)>(),
        ) {
            let mut field = Field::new();
            let facts = LineFacts {
                id: 0,
                label: Label::Number(number),
                section: field.section(&section),
                direction: None,
                club_id: 0,
                club: club.as_bytes(),
                standing: standing.clone(),
            };
            let parts = NameParts { club: show_club, section: show_section, players: None };
            let mut by_field = b"before\n".to_vec();
            standing_line(&mut by_field, &field, &facts, mp, parts, shown);
            let mut in_place = b"before\n".to_vec();
            let name = super::Name {
                club: show_club.then_some(club.as_bytes()),
                section: show_section.then_some(section.as_bytes()),
                number,
            };
            let figures = super::Figures {
                standing: &standing,
                total_hundredths: shown.unwrap_or(standing.total_hundredths),
                mp,
            };
            if super::write(&mut in_place, &name, &figures) {
                prop_assert_eq!(String::from_utf8(in_place), String::from_utf8(by_field));
            } else {
                // Left to the field by field way: a number too long for eight digits.
                let too_long = |n: u64| n >= 100_000_000;
                let whole = |h: i64| h.unsigned_abs() / 100;
                prop_assert!(
                    too_long(u64::from(standing.rank))
                        || too_long(u64::from(number))
                        || too_long(whole(figures.total_hundredths))
                        || too_long(whole((standing.max * 100.0).round() as i64))
                        || too_long(whole(standing.percent_hundredths.unwrap_or_default()))
                );
                prop_assert_eq!(in_place, b"before\n".to_vec());
            }
        }
    }

    #[test]
    fn names_fit_when_short_and_ascii() {
        assert!(super::fits("Acol Club", 48));
        assert!(super::fits("", 0));
        assert!(!super::fits("Bridge Club Zürich", 48));
        assert!(!super::fits(&"x".repeat(49), 48));
    }
}
