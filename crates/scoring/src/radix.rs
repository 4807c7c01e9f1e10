//! A radix sort of `u64` keys whose low bits are already in order: the ranking's packed (key, pair)
//! integers, made in pair order, need sorting by their key bits only.
//!
//! `rayon`'s `par_sort_unstable`, `radsort` and `rdst` all sort every bit of the key; measured on
//! 200,000 packed keys shaped like a national field's (AMD EPYC, 2 cores), they took 2.6-7.5 ms,
//! 6.3-7.4 ms and 3.0-14.3 ms, where passes of eleven bits over the key bits alone took 1.9-2.8 ms
//! (`docs/benchmarks.md`, 2026-11-28 afternoon). For millions of keys ([`par_sort_above`], the
//! ranking of a whole file's pairs) the highest digit is sorted first, on every thread, and each
//! digit's keys then apart in the processor's cache: the lap that makes and sorts 2,000,000 keys
//! took 17-20 ms, against 23-28 ms for passes from the lowest digit over all the keys each
//! (2026-12-03), and 36-47 ms for `par_sort_unstable` (2026-11-29).

use rayon::prelude::*;

/// Bits sorted in one pass: 2,048 counters (16 KB) stay in the first-level cache.
const DIGIT_BITS: u32 = 11;

/// Keys from which [`par_sort_above`] splits each pass between threads.
pub(crate) const PARALLEL_KEYS: usize = 1 << 19;

/// Sorts `keys` ascending, given that they are distinct and already ascending in their bits below
/// `low` (the pair ids the ranking packs there, in pair order). A stable sort by the bits from `low`
/// up keeps keys that agree there in the order of their low bits, which is then every key's order.
pub(crate) fn sort_above(keys: &mut Vec<u64>, low: u32) {
    if keys.len() < 1 << DIGIT_BITS {
        // A club's few dozen pairs: zeroing a pass's counters would cost more than the keys. The
        // keys being distinct, their one ascending order is the stable sort's by the bits above.
        keys.sort_unstable();
        return;
    }
    radix_sort_above(keys, low);
}

/// [`sort_above`] by passes of [`DIGIT_BITS`] bits, whatever the number of keys.
fn radix_sort_above(keys: &mut Vec<u64>, low: u32) {
    let mut spare = vec![0; keys.len()];
    if passes(keys, &mut spare, low, u64::BITS, DIGIT_BITS) {
        std::mem::swap(keys, &mut spare);
    }
}

/// Stable passes over the bits of `keys` from `low` to `high`, `width` bits a pass, moving the keys
/// between `keys` and `spare` (as long as `keys`). `true` when the sorted keys are in `spare`.
fn passes(keys: &mut [u64], spare: &mut [u64], low: u32, high: u32, width: u32) -> bool {
    let n = keys.len();
    let mask = (1u64 << width) - 1;
    let mut count = vec![0usize; 1 << width];
    let (mut from, mut to) = (keys, spare);
    let mut in_spare = false;
    let mut shift = low;
    while shift < high {
        count.fill(0);
        for &k in from.iter() {
            count[((k >> shift) & mask) as usize] += 1;
        }
        // A digit all keys share (the exponent's bits, say, when every total has the same
        // magnitude) leaves the order as it is.
        if !count.contains(&n) {
            let mut next = 0;
            for c in count.iter_mut() {
                (*c, next) = (next, next + *c);
            }
            for &k in from.iter() {
                let d = ((k >> shift) & mask) as usize;
                to[count[d]] = k;
                count[d] += 1;
            }
            (from, to) = (to, from);
            in_spare = !in_spare;
        }
        shift += width;
    }
    in_spare
}

/// [`sort_above`] for millions of keys, on every thread: the keys are moved by their highest
/// digit first, each thread counting the digits of its own run of keys and moving its keys into its
/// own places of each digit's range (a digit's keys from the first run, then from the second...),
/// so that the pass stays stable; then each digit's keys are sorted apart ([`sort_in_runs`]).
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

/// The passes of [`par_sort_above`]: the keys first by the highest [`DIGIT_BITS`] bits in which
/// they differ (the bits above, the exponent of floating-point keys say, they all share), in one
/// pass split between threads of `run` keys each ([`scatter_pass`]); then each such digit's keys
/// by the bits below it, a digit on one thread, in passes of equal width ([`passes`]). A digit's
/// few thousand keys stay in the processor's cache for those passes, where a pass over 2,000,000
/// keys in memory took 6-8 ms (three of them for a national file's totals).
fn sort_in_runs(keys: &mut Vec<u64>, low: u32, run: usize, spare: &mut Vec<u64>) {
    let (least, most) = keys
        .par_iter()
        .map(|&k| (k, k))
        .reduce(|| (u64::MAX, 0), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    let top = u64::BITS - (least ^ most).leading_zeros();
    if top <= low {
        return;
    }
    let shift = top.saturating_sub(DIGIT_BITS).max(low);
    // Every place is written by each pass: only the length matters.
    spare.resize(keys.len(), 0);
    let sizes = match scatter_pass(keys, spare, run, shift, top - shift) {
        Some(sizes) => {
            std::mem::swap(keys, spare);
            sizes
        }
        None => vec![keys.len()],
    };
    if shift == low {
        return;
    }
    let bits = shift - low;
    let width = bits.div_ceil(bits.div_ceil(DIGIT_BITS));
    if sizes.iter().any(|&n| n > keys.len() / 4) {
        // Keys bunched in a few digits: passes over them all, each split between threads. They
        // still end in order, since keys that agree in every bit kept their order in each digit.
        let mut shift = low;
        while shift < top {
            if scatter_pass(keys, spare, run, shift, width).is_some() {
                std::mem::swap(keys, spare);
            }
            shift += width;
        }
        return;
    }
    let mut digits = Vec::with_capacity(sizes.len());
    let (mut keys_rest, mut spare_rest) = (keys.as_mut_slice(), spare.as_mut_slice());
    for &n in &sizes {
        let (keys, after) = std::mem::take(&mut keys_rest).split_at_mut(n);
        let (spare, spare_after) = std::mem::take(&mut spare_rest).split_at_mut(n);
        (keys_rest, spare_rest) = (after, spare_after);
        digits.push((keys, spare));
    }
    digits.into_par_iter().for_each(|(keys, spare)| {
        if passes(keys, spare, low, shift, width) {
            keys.copy_from_slice(spare);
        }
    });
}

/// One pass of [`par_sort_above`]: the keys by their digit of `width` bits at `shift`, into `out`,
/// threads taking runs of `run` keys; how many keys each digit has. `None` (and `out` unwritten)
/// when every key has the same digit.
fn scatter_pass(
    keys: &[u64],
    out: &mut [u64],
    run: usize,
    shift: u32,
    width: u32,
) -> Option<Vec<usize>> {
    let digits = 1usize << width;
    let mask = (digits - 1) as u64;
    let digit = move |k: u64| ((k >> shift) & mask) as usize;
    let counts: Vec<Vec<usize>> = keys
        .par_chunks(run)
        .map(|keys| {
            let mut count = vec![0usize; digits];
            for &k in keys {
                count[digit(k)] += 1;
            }
            count
        })
        .collect();
    let sizes: Vec<usize> = (0..digits)
        .map(|d| counts.iter().map(|c| c[d]).sum())
        .collect();
    if sizes.contains(&keys.len()) {
        return None;
    }
    // Each run's places: digit after digit, the runs in order within a digit.
    let mut places: Vec<Vec<&mut [u64]>> = (0..counts.len()).map(|_| Vec::new()).collect();
    let mut rest = out;
    for d in 0..digits {
        for (count, places) in counts.iter().zip(&mut places) {
            let (mine, after) = std::mem::take(&mut rest).split_at_mut(count[d]);
            places.push(mine);
            rest = after;
        }
    }
    keys.par_chunks(run)
        .zip(places)
        .for_each(|(keys, mut places)| {
            let mut next = vec![0usize; digits];
            for &k in keys {
                let d = digit(k);
                places[d][next[d]] = k;
                next[d] += 1;
            }
        });
    Some(sizes)
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

        /// Keys spread over the highest digit, so that each digit's keys are sorted on their own,
        /// by one pass or several below it.
        #[test]
        fn keys_spread_over_the_highest_digit_sort_as_a_comparison_sort_does(
            below in 1u32..=24,
            highs in prop::collection::vec((0u64..1 << DIGIT_BITS, any::<u64>()), 0..3000),
            threads in 1usize..4,
        ) {
            let keys: Vec<u64> = highs
                .iter()
                .enumerate()
                .map(|(i, &(top, mid))| {
                    top << (32 + below) | (mid & ((1 << below) - 1)) << 32 | i as u64
                })
                .collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            let mut sorted = keys;
            let run = sorted.len().div_ceil(threads).max(1);
            sort_in_runs(&mut sorted, 32, run, &mut Vec::new());
            prop_assert_eq!(sorted, expected);
        }

        #[test]
        fn sorts_as_a_comparison_sort_does(keys in packed(20)) {
            let mut expected = keys.clone();
            expected.sort_unstable();
            let mut by_passes = keys.clone();
            radix_sort_above(&mut by_passes, 20);
            prop_assert_eq!(&by_passes, &expected);
            let mut sorted = keys;
            sort_above(&mut sorted, 20);
            prop_assert_eq!(sorted, expected);
        }
    }

    #[test]
    fn keys_sharing_every_sorted_bit_keep_the_order_of_their_low_bits() {
        let key = |high: u64, position: u64| (high << 20) | position;
        for sort in [sort_above, radix_sort_above] {
            let mut keys: Vec<u64> = (0..5).map(|i| key(7 << 20, i)).collect();
            let expected = keys.clone();
            sort(&mut keys, 20);
            assert_eq!(keys, expected);
            let mut keys = vec![key(3, 0), key(1, 1), key(3, 2), key(1, 3)];
            sort(&mut keys, 20);
            assert_eq!(keys, [key(1, 1), key(1, 3), key(3, 0), key(3, 2)]);
        }
    }
}
