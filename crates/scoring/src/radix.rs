//! A radix sort of `u64` keys whose low bits are already in order: the ranking's packed (key, pair)
//! integers, made in pair order, need sorting by their key bits only.
//!
//! `rayon`'s `par_sort_unstable`, `radsort` and `rdst` all sort every bit of the key; measured on
//! 200,000 packed keys shaped like a national field's (AMD EPYC, 2 cores), they took 2.6-7.5 ms,
//! 6.3-7.4 ms and 3.0-14.3 ms, where passes of eleven bits over the key bits alone took 1.9-2.8 ms
//! (`docs/benchmarks.md`, 2026-11-28 afternoon). For millions of keys ([`par_sort_above`], the
//! ranking of a whole file's pairs) each pass is split between threads: the lap that makes and
//! sorts 2,000,000 keys took a median of 28-36 ms, against 36-47 ms for `par_sort_unstable`
//! (2026-11-29).

use rayon::prelude::*;

/// Bits sorted in one pass: 2,048 counters (16 KB) stay in the first-level cache.
const DIGIT_BITS: u32 = 11;

/// Keys from which [`par_sort_above`] splits each pass between threads.
const PARALLEL_KEYS: usize = 1 << 19;

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

/// [`sort_above`] with each pass split between threads, for millions of keys: each thread counts
/// the digits of its own run of keys, then moves its keys into its own places of each digit's
/// range (a digit's keys from the first run, then from the second...), so that every pass stays
/// stable. Passes stop at the highest bit any key has.
///
/// `spare` is the second buffer the passes move the keys between; what it holds does not matter,
/// and it is left holding what it may (kept for another sort, it need not be allocated again).
pub(crate) fn par_sort_above(keys: &mut Vec<u64>, low: u32, spare: &mut Vec<u64>) {
    let threads = rayon::current_num_threads();
    if keys.len() < PARALLEL_KEYS || threads < 2 {
        return sort_above(keys, low);
    }
    let run = keys.len().div_ceil(threads);
    sort_in_runs(keys, low, run, spare);
}

/// The passes of [`par_sort_above`], each thread taking a run of `run` keys.
fn sort_in_runs(keys: &mut Vec<u64>, low: u32, run: usize, spare: &mut Vec<u64>) {
    let top = u64::BITS - keys.par_iter().copied().max().unwrap_or(0).leading_zeros();
    // Every place is written by each pass: only the length matters.
    spare.resize(keys.len(), 0);
    let mut shift = low;
    while shift < top {
        if scatter_pass(keys, spare, run, shift) {
            std::mem::swap(keys, spare);
        }
        shift += DIGIT_BITS;
    }
}

/// One pass of [`par_sort_above`]: the keys by their digit at `shift`, into `out`, threads
/// taking runs of `run` keys. `false` (and `out` unwritten) when every key has the same digit.
fn scatter_pass(keys: &[u64], out: &mut [u64], run: usize, shift: u32) -> bool {
    let mask = (1u64 << DIGIT_BITS) - 1;
    let digit = move |k: u64| ((k >> shift) & mask) as usize;
    let counts: Vec<Vec<usize>> = keys
        .par_chunks(run)
        .map(|keys| {
            let mut count = vec![0usize; 1 << DIGIT_BITS];
            for &k in keys {
                count[digit(k)] += 1;
            }
            count
        })
        .collect();
    if (0..1 << DIGIT_BITS).any(|d| counts.iter().map(|c| c[d]).sum::<usize>() == keys.len()) {
        return false;
    }
    // Each run's places: digit after digit, the runs in order within a digit.
    let mut places: Vec<Vec<&mut [u64]>> = (0..counts.len()).map(|_| Vec::new()).collect();
    let mut rest = out;
    for d in 0..1 << DIGIT_BITS {
        for (count, places) in counts.iter().zip(&mut places) {
            let (mine, after) = std::mem::take(&mut rest).split_at_mut(count[d]);
            places.push(mine);
            rest = after;
        }
    }
    keys.par_chunks(run)
        .zip(places)
        .for_each(|(keys, mut places)| {
            let mut next = vec![0usize; 1 << DIGIT_BITS];
            for &k in keys {
                let d = digit(k);
                places[d][next[d]] = k;
                next[d] += 1;
            }
        });
    true
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
        fn split_between_threads_it_sorts_as_a_comparison_sort_does(
            keys in packed(32).prop_flat_map(|k| (Just(k), 1usize..5)),
        ) {
            // Runs of a few keys, so that small inputs take the parallel passes too.
            let (keys, threads) = keys;
            let mut expected = keys.clone();
            expected.sort_unstable();
            let mut sorted = keys;
            let run = sorted.len().div_ceil(threads).max(1);
            // A second buffer that held other keys, longer or shorter.
            let mut spare = vec![u64::MAX; sorted.len() / 2 + 3 * (sorted.len() % 2)];
            sort_in_runs(&mut sorted, 32, run, &mut spare);
            prop_assert_eq!(sorted, expected);
        }

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
