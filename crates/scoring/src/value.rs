//! Exact values: matchpoints and IMPs are rationals until they are printed.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::{BigRational, Ratio};
use num_traits::{Signed, ToPrimitive, Zero};

/// One result's matchpoints or IMPs, exactly (for example Neuberg's 15 7/8).
pub type Value = Ratio<i64>;

/// An exact value from an exact `i128` fraction, reduced; `None` if it does not fit `i64`.
pub(crate) fn value_from(numerator: i128, denominator: i128) -> Option<Value> {
    debug_assert!(denominator != 0);
    let g = numerator.gcd(&denominator);
    let (mut n, mut d) = (numerator / g, denominator / g);
    if d < 0 {
        n = -n;
        d = -d;
    }
    Some(Ratio::new_raw(
        i64::try_from(n).ok()?,
        i64::try_from(d).ok()?,
    ))
}

/// A value as the nearest `f64`.
pub fn to_f64(v: Value) -> f64 {
    *v.numer() as f64 / *v.denom() as f64
}

/// Hundredths of `numerator / denominator`, rounded half away from zero, as official results print them
/// (seed 002 prints 15.875 as 15.88 and 0.125 as 0.13).
pub fn hundredths(numerator: &BigInt, denominator: &BigInt) -> i64 {
    let scaled = numerator.abs() * 200 + denominator.abs();
    let q: BigInt = scaled / (denominator.abs() * 2);
    let q = q.to_i64().unwrap_or(i64::MAX);
    if numerator.is_negative() != denominator.is_negative() && !numerator.is_zero() {
        -q
    } else {
        q
    }
}

/// Hundredths of a small exact value, rounded half away from zero.
pub fn value_hundredths(v: Value) -> i64 {
    let n = i128::from(*v.numer());
    let d = i128::from(*v.denom());
    let q = (n.abs() * 200 + d) / (2 * d);
    (if n < 0 { -q } else { q }) as i64
}

/// Hundredths of an exact big rational, rounded half away from zero.
pub(crate) fn big_hundredths(v: &BigRational) -> i64 {
    hundredths(v.numer(), v.denom())
}

/// Formats hundredths as a decimal with two places: `1588` is `15.88`, `-13` is `-0.13`.
pub fn format_hundredths(h: i64) -> String {
    let sign = if h < 0 { "-" } else { "" };
    let a = h.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

/// A value rounded for display with two decimals.
pub fn format_value(v: Value) -> String {
    format_hundredths(value_hundredths(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_round_away_from_zero() {
        assert_eq!(format_value(Ratio::new(127, 8)), "15.88");
        assert_eq!(format_value(Ratio::new(1, 8)), "0.13");
        assert_eq!(format_value(Ratio::new(-1, 8)), "-0.13");
        assert_eq!(format_value(Ratio::new(73, 8)), "9.13");
        assert_eq!(format_value(Ratio::new(19, 8)), "2.38");
        assert_eq!(format_value(Ratio::new(8, 1)), "8.00");
        assert_eq!(format_hundredths(-5), "-0.05");
        assert_eq!(
            hundredths(&BigInt::from(4300), &BigInt::from(96)),
            4479,
            "seed 000: 43 of 96 is 44.79%"
        );
    }

    #[test]
    fn fractions_reduce_or_refuse() {
        assert_eq!(value_from(30, 12), Some(Ratio::new(5, 2)));
        assert_eq!(value_from(3, -6), Some(Ratio::new(-1, 2)));
        assert_eq!(value_from(i128::MAX, 1), None);
    }
}
