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
    // Nearly every value's terms fit 64 bits, where the gcd is a few times cheaper than in 128
    // (a national event values millions of clubs' boards' scores). `i64::MIN` is left to 128
    // bits: its negation does not fit.
    if let (Ok(n), Ok(d)) = (i64::try_from(numerator), i64::try_from(denominator))
        && n != i64::MIN
        && d != i64::MIN
    {
        let (n, d) = lowest_terms(n, d);
        return Some(Ratio::new_raw(n, d));
    }
    let (n, d) = lowest_terms(numerator, denominator);
    Some(Ratio::new_raw(
        i64::try_from(n).ok()?,
        i64::try_from(d).ok()?,
    ))
}

/// `n / d` in lowest terms, the denominator positive.
fn lowest_terms<T: Integer + std::ops::Neg<Output = T> + Copy>(n: T, d: T) -> (T, T) {
    let g = n.gcd(&d);
    let (n, d) = (n / g, d / g);
    if d < T::zero() { (-n, -d) } else { (n, d) }
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
    use proptest::prelude::*;

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

    /// A value's terms as they are stored (`Ratio`'s `==` compares values, whatever their terms).
    fn terms(v: Option<Value>) -> Option<(i64, i64)> {
        v.map(|v| (*v.numer(), *v.denom()))
    }

    #[test]
    fn fractions_reduce_or_refuse() {
        assert_eq!(terms(value_from(30, 12)), Some((5, 2)));
        assert_eq!(terms(value_from(3, -6)), Some((-1, 2)));
        assert_eq!(terms(value_from(-4, -2)), Some((2, 1)));
        assert_eq!(terms(value_from(0, -7)), Some((0, 1)));
        assert_eq!(value_from(i128::MAX, 1), None);
        // Terms beyond 64 bits that reduce into them; 64-bit terms whose negation does not fit.
        let big = i128::from(i64::MAX) * 6;
        assert_eq!(terms(value_from(big, 12)), Some((i64::MAX, 2)));
        let min = i128::from(i64::MIN);
        assert_eq!(terms(value_from(min, 4)), Some((i64::MIN / 4, 1)));
        assert_eq!(value_from(min, -1), None);
        assert_eq!(
            value_from(3, min),
            None,
            "the denominator made positive does not fit"
        );
    }

    proptest! {
        /// The 64-bit reduction gives what the 128-bit one gives: the fraction in lowest terms,
        /// its denominator positive.
        #[test]
        fn a_fraction_of_64_bit_terms_reduces_as_in_128_bits(
            n in any::<i64>(),
            d in any::<i64>().prop_filter("not zero", |d| *d != 0),
            divides in any::<bool>(),
        ) {
            // Half the cases a multiple of the denominator, so that whole and negative ones come.
            let n = if divides { d.wrapping_mul(n % 1000) } else { n };
            let want = {
                let (n, d) = (i128::from(n), i128::from(d));
                let g = n.gcd(&d);
                let (n, d) = if d < 0 { (-n / g, -d / g) } else { (n / g, d / g) };
                i64::try_from(n).ok().zip(i64::try_from(d).ok())
            };
            prop_assert_eq!(terms(value_from(i128::from(n), i128::from(d))), want);
        }
    }
}
