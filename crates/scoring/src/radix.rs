//! A radix sort of `u64` keys whose low bits are already in order: the ranking's packed (key, pair)
//! integers, made in pair order, need sorting by their key bits only.
//!
//! `rayon`'s `par_sort_unstable`, `radsort` and `rdst` all sort every bit of the key; measured on
//! 200,000 packed keys shaped like a national field's (AMD EPYC, 2 cores), they took 2.6-7.5 ms,
//! 6.3-7.4 ms and 3.0-14.3 ms, where passes of eleven bits over the key bits alone took 1.9-2.8 ms
//! (`docs/benchmarks.md`, 2026-11-28 afternoon).

/// Bits sorted in one pass: 2,048 counters (16 KB) stay in the first-level cache.
const DIGIT_BITS: u32 = 11;

/// Sorts `keys` ascending, given that they are distinct and already ascending in their bits below
/// `low` (the pair ids the ranking packs there, in pair order). A stable sort by the bits from `low`
/// up keeps keys that agree there in the order of their low bits, which is then every key's order.
pub(crate) fn sort_above(keys: &mut Vec<u64>, low: u32) {
    let n = keys.len();
    let mut spare = vec![0; n];
    let mask = (1u64 << DIGIT_BITS) - 1;
    let mut shift = low;
    while shift < u64::BITS {
        let mut count = [0usize; 1 << DIGIT_BITS];
        for &k in keys.iter() {
            count[((k >> shift) & mask) as usize] += 1;
        }
        // A digit all keys share (the exponent's bits, say, when every total has the same
        // magnitude) leaves the order as it is.
        if !count.contains(&n) {
            let mut next = 0;
            for c in count.iter_mut() {
                (*c, next) = (next, next + *c);
            }
            for &k in keys.iter() {
                let d = ((k >> shift) & mask) as usize;
                spare[count[d]] = k;
                count[d] += 1;
            }
            std::mem::swap(keys, &mut spare);
        }
        shift += DIGIT_BITS;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Keys as the ranking makes them: over the position in the low bits, a high part drawn from
    /// a few values (many ties, and passes with one, two or three digits), from a few fixed ones
    /// (shared top bits), or anywhere.
    fn packed(low: u32) -> impl Strategy<Value = Vec<u64>> {
        let few = prop::collection::vec(any::<u64>().prop_map(|h| h >> 20), 1..4)
            .prop_flat_map(|values| prop::collection::vec(prop::sample::select(values), 0..600));
        let fixed = prop::collection::vec(
            prop::sample::select(vec![0u64, 1, 2, 1 << 20, (1 << 43) - 1, u64::MAX >> 20]),
            0..600,
        );
        let anywhere = prop::collection::vec(any::<u64>().prop_map(|h| h >> 20), 0..600);
        prop_oneof![few, fixed, anywhere].prop_map(move |highs| {
            highs
                .into_iter()
                .enumerate()
                .map(|(i, h)| (h << low) | i as u64)
                .collect()
        })
    }

    proptest! {
        #[test]
        fn sorts_as_a_comparison_sort_does(keys in packed(20)) {
            let mut expected = keys.clone();
            expected.sort_unstable();
            let mut sorted = keys;
            sort_above(&mut sorted, 20);
            prop_assert_eq!(sorted, expected);
        }
    }

    #[test]
    fn keys_sharing_every_sorted_bit_keep_the_order_of_their_low_bits() {
        let key = |high: u64, position: u64| (high << 20) | position;
        let mut keys: Vec<u64> = (0..5).map(|i| key(7 << 20, i)).collect();
        let expected = keys.clone();
        sort_above(&mut keys, 20);
        assert_eq!(keys, expected);
        let mut keys = vec![key(3, 0), key(1, 1), key(3, 2), key(1, 3)];
        sort_above(&mut keys, 20);
        assert_eq!(keys, [key(1, 1), key(1, 3), key(3, 0), key(3, 2)]);
    }
}
