//! Matchpoints, tops and percentages as a page shows them: exact fractions until rounded, halves
//! away from zero (as published results round), so a board's percentage is the same on every page.

use simpairs_events::types::Fraction;

/// A place in a ranking: `3` or `3=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub rank: i32,
    pub tied: bool,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.rank, if self.tied { "=" } else { "" })
    }
}

/// What a result earned in one field: matchpoints (or IMPs) and the board's top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    pub value: Fraction,
    /// The top on the double scale; zero in IMP events.
    pub top: Fraction,
}

/// `n / d` rounded to the nearest integer, halves away from zero (`d > 0`).
fn round_div(n: i128, d: i128) -> i128 {
    let q = (2 * n.abs() + d) / (2 * d);
    if n < 0 { -q } else { q }
}

/// A fraction in hundredths, rounded.
pub fn hundredths(f: Fraction) -> i64 {
    if f.den <= 0 {
        return 0;
    }
    round_div(i128::from(f.num) * 100, i128::from(f.den)) as i64
}

impl Value {
    /// The value in hundredths.
    pub fn value_hundredths(&self) -> i64 {
        hundredths(self.value)
    }

    /// The top in hundredths.
    pub fn top_hundredths(&self) -> i64 {
        hundredths(self.top)
    }

    /// The percentage of the top in hundredths of a percent; `None` without a top (IMPs).
    pub fn percent_hundredths(&self) -> Option<i64> {
        let (v, t) = (self.value, self.top);
        if t.num <= 0 || t.den <= 0 || v.den <= 0 {
            return None;
        }
        // (v.num / v.den) / (t.num / t.den) * 10_000
        let n = i128::from(v.num) * i128::from(t.den) * 10_000;
        let d = i128::from(v.den) * i128::from(t.num);
        Some(round_div(n, d) as i64)
    }

    /// The value as a number (for sums that are only shown, not ranked).
    pub fn value_f64(&self) -> f64 {
        crate::wire::fraction_to_f64(self.value)
    }

    pub(crate) fn top_f64(&self) -> f64 {
        crate::wire::fraction_to_f64(self.top)
    }
}

/// Hundredths as text: `1234` is `12.34`, `-5` is `-0.05`.
pub fn show_hundredths(h: i64) -> String {
    let sign = if h < 0 { "-" } else { "" };
    format!(
        "{sign}{}.{:02}",
        h.unsigned_abs() / 100,
        h.unsigned_abs() % 100
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(num: i64, den: i64) -> Fraction {
        Fraction { num, den }
    }

    #[test]
    fn percentages_round_halves_away_from_zero() {
        // Seed 000: 43 of 96 is 44.79%.
        let v = Value {
            value: f(43, 1),
            top: f(96, 1),
        };
        assert_eq!(v.percent_hundredths(), Some(4479));
        // 1/8 of the top is 12.5% exactly; 1/3 is 33.33%; 2/3 is 66.67%.
        assert_eq!(
            Value {
                value: f(1, 1),
                top: f(8, 1)
            }
            .percent_hundredths(),
            Some(1250)
        );
        assert_eq!(
            Value {
                value: f(1, 3),
                top: f(1, 1)
            }
            .percent_hundredths(),
            Some(3333)
        );
        assert_eq!(
            Value {
                value: f(2, 3),
                top: f(1, 1)
            }
            .percent_hundredths(),
            Some(6667)
        );
        assert_eq!(
            Value {
                value: f(5, 1),
                top: f(0, 1)
            }
            .percent_hundredths(),
            None
        );
        assert_eq!(hundredths(f(-1, 8)), -13);
        assert_eq!(show_hundredths(-5), "-0.05");
        assert_eq!(show_hundredths(123456), "1234.56");
    }
}
