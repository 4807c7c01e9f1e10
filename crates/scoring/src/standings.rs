//! Pair totals, percentages and ranks, with exact ties.
//!
//! Pairs are ranked by their total factored to the most boards any pair played (seed 004: a pair that
//! played 30 of 33 boards has its total multiplied by 33/30), that is by total / boards played. Two pairs
//! tie exactly when those rationals are equal. Whole-number fields compare with integer arithmetic;
//! fields with fractions (Neuberg, ratio factoring, cross-IMPs) sort by floating point first and settle
//! every near-tie, and every total printed near a rounding boundary, with exact big rationals.

use num_bigint::BigInt;
use num_rational::BigRational;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::engine::{PairCells, Scoring, Sums};
use crate::field::PairId;
use crate::ranks::RankOrder;
pub use crate::ranks::Standing;
use crate::value::hundredths;
use crate::{Direction, Factoring, Method, Result};

mod early;
mod top;
pub use early::{Unranked, Valued};
pub use top::Summed;

/// Relative distance under which two floating-point sums may be the same exact value.
const NEAR: f64 = 1e-9;

/// Which ranking list a pair is placed in besides the combined one.
fn category(direction: Option<Direction>) -> usize {
    match direction {
        Some(Direction::NS) => 0,
        Some(Direction::EW) => 1,
        None => 2,
    }
}

/// Whether `hundredths`, computed in floating point with an error of at most `error`, may lie on the
/// other side of a rounding boundary (x.5) than the exact value.
fn near_half(hundredths: f64, error: f64) -> bool {
    let frac = hundredths - hundredths.floor();
    (frac - 0.5).abs() <= error
}

/// A bound on the error of a sum of `terms` rounded values whose magnitudes add up to at most
/// `magnitude`: each value and each addition rounds by at most half an ulp (2^-53 relative).
fn sum_error(terms: u32, magnitude: f64) -> f64 {
    (2.0 * f64::from(terms) + 4.0) * f64::EPSILON * magnitude + 1e-300
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= NEAR * a.abs().max(b.abs()).max(1.0)
}

/// The bits of `x` as an integer in the same order as [`f64::total_cmp`].
fn ordered_bits(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

fn round_f64(x: f64) -> i64 {
    x.abs().round().copysign(x) as i64
}

/// Pairs from which places are written by id in parallel (see [`rank_pairs`]).
const PARALLEL_PLACES: usize = 1 << 20;

/// Each pair's sums as ranking reads them, with the options that say how.
#[derive(Debug, Default)]
struct Totals {
    integral: bool,
    total_int: Vec<i64>,
    /// Integer totals count units of 1 / `unit`.
    unit: i64,
    total_f: Vec<f64>,
    tops_f: Vec<f64>,
    boards: Vec<u32>,
    mp: bool,
    ratio: bool,
    divisor: i64,
    /// Under Neuberg every board has the same top, 2(N-1).
    common_top: i64,
    pair_ranges: Vec<(PairId, PairId)>,
}

impl Totals {
    fn new(scoring: &Scoring<'_>, sums: Sums<'_>) -> Totals {
        let integral = sums.total_int.is_some();
        let options = scoring.options;
        let mp = options.method == Method::Matchpoints;
        let ratio = mp && options.factoring == Factoring::Ratio;
        let common_top = if mp && !ratio {
            scoring.boards.first().map_or(0, |b| *b.top.numer())
        } else {
            0
        };
        Totals {
            integral,
            total_int: sums.total_int.unwrap_or_default(),
            unit: sums.unit,
            total_f: sums.total_f,
            tops_f: sums.tops_f,
            boards: sums.boards,
            mp,
            ratio,
            divisor: scoring.scale_divisor(),
            common_top,
            pair_ranges: sums.pair_ranges,
        }
    }

    fn total_of(&self, p: usize) -> f64 {
        if self.integral {
            self.total_int[p] as f64 / self.unit as f64
        } else {
            self.total_f[p]
        }
    }

    /// Whole-number totals in rank order: the higher factored total first (total / boards, by
    /// cross-multiplying), pairs with equal ones by id.
    fn integral_cmp(&self, a: PairId, b: PairId) -> std::cmp::Ordering {
        let (a, b) = (a as usize, b as usize);
        let lhs = i128::from(self.total_int[a]) * i128::from(self.boards[b]);
        let rhs = i128::from(self.total_int[b]) * i128::from(self.boards[a]);
        rhs.cmp(&lhs).then(a.cmp(&b))
    }

    fn max_of(&self, p: usize) -> f64 {
        if !self.mp {
            0.0
        } else if self.ratio {
            self.tops_f[p]
        } else {
            f64::from(self.boards[p]) * self.common_top as f64
        }
    }
}

/// Ranking's working memory, kept between scorings by [`crate::Spare`]: the buffers of a field of
/// millions of pairs are tens of megabytes each, which the system would otherwise hand out as fresh
/// pages to be zeroed on every scoring.
#[derive(Debug, Default)]
pub(crate) struct RankSpare {
    keys: Vec<u64>,
    /// The radix sort's second buffer of keys.
    sorting: Vec<u64>,
    placed_at: Vec<u32>,
    placed: Vec<u64>,
    /// Fields with fractions: each pair's floating-point key, and the keys in rank order.
    key: Vec<f64>,
    key_at: Vec<f64>,
    /// The rank order of the scoring before ([`crate::Spare::keep`]).
    pub(crate) order: RankOrder,
}

/// The fewest bits of a pair id in the short sort keys of [`float_order`].
const SHORT_KEY_PAIR_BITS: u32 = 20;

/// The most bits of a pair id in the short sort keys: the key then keeps its top 42 bits, and keys
/// that agree in them differ by less than 2^-30 of their size, so that the runs [`float_order`]
/// puts in order after the sort are of keys near each other ([`NEAR`]) anyway: few, and short.
const SHORT_KEY_MAX_PAIR_BITS: u32 = 22;

/// Pair ids by floating-point key, highest first, pairs with equal keys by id; and the keys in that
/// order. (key, pair) is packed in one integer, the key's bits mapped so that ascending integer order
/// is descending float order. Up to 2^22 pairs, one `u64` holds the pair in its low `b` bits (20,
/// or as many as the field's pairs need) and the key's top `64 - b` bits. The pairs are packed in
/// id order, so only the key's bits need sorting ([`crate::radix::par_sort_above`]): three or four
/// passes over a national field's 200,000 keys instead of a comparison sort's many. Keys that agree
/// in those top bits, which the sort leaves by pair, are then put in their own order.
///
/// The order must be exact, not only exact up to near keys: [`Ranking::find_near_runs`] compares
/// neighbours, and a key near one pair of a run but not its neighbour there would be left out of
/// the run, then find itself beside the other once the run is settled (with 1.0, 1.0 + 2e-10 and
/// 1.0 + 1.1e-9, the first two agreeing in their top bits).
///
/// The sort works in `memory`'s buffers, and the order and keys it gives are made in them.
fn float_order(key: &[f64], memory: &mut RankSpare) -> (Vec<PairId>, Vec<f64>) {
    let needed = usize::BITS - key.len().saturating_sub(1).leading_zeros();
    let pair_bits = needed.max(SHORT_KEY_PAIR_BITS);
    if pair_bits > SHORT_KEY_MAX_PAIR_BITS {
        let mut keyed: Vec<u128> = key
            .par_iter()
            .enumerate()
            .map(|(p, &k)| u128::from(!ordered_bits(k)) << 32 | p as u128)
            .collect();
        keyed.par_sort_unstable();
        return unpacked(key, &keyed, |k| k as PairId, memory);
    }
    float_order_short(key, pair_bits, memory)
}

/// [`float_order`] by short keys, with the pair in the low `pair_bits` bits of each.
fn float_order_short(
    key: &[f64],
    pair_bits: u32,
    memory: &mut RankSpare,
) -> (Vec<PairId>, Vec<f64>) {
    let low = (1u64 << pair_bits) - 1;
    let mut keys = std::mem::take(&mut memory.keys);
    key.par_iter()
        .enumerate()
        .map(|(p, &k)| (!ordered_bits(k) & !low) | p as u64)
        .collect_into_vec(&mut keys);
    crate::radix::par_sort_above(&mut keys, pair_bits, &mut memory.sorting);
    // A stable sort of each run that agrees in its top bits keeps equal keys by pair. Most runs
    // are of one key: a national field's 200,000 are scanned on one thread, as they were sorted.
    let same_top = |a: &u64, b: &u64| a & !low == b & !low;
    let in_order = |same: &mut [u64]| {
        if same.len() > 1 {
            same.sort_by_key(|&k| !ordered_bits(key[(k & low) as usize]));
        }
    };
    if keys.len() < crate::radix::PARALLEL_KEYS {
        keys.chunk_by_mut(same_top).for_each(in_order);
    } else {
        keys.par_chunk_by_mut(same_top).for_each(in_order);
    }
    let order = unpacked(key, &keys, |k| (k & low) as PairId, memory);
    memory.keys = keys;
    order
}

/// The pairs of sorted packed keys, read back by `pair`, with their floating-point keys; made in
/// the buffers of `memory`'s rank order and keys.
fn unpacked<K: Copy + Send + Sync>(
    key: &[f64],
    keyed: &[K],
    pair: impl Fn(K) -> PairId + Sync + Send,
    memory: &mut RankSpare,
) -> (Vec<PairId>, Vec<f64>) {
    let mut order = std::mem::take(&mut memory.order.pairs);
    let mut key_at = std::mem::take(&mut memory.key_at);
    keyed
        .par_iter()
        .map(|&k| {
            let p = pair(k);
            (p, key[p as usize])
        })
        .unzip_into_vecs(&mut order, &mut key_at);
    (order, key_at)
}

/// The pairs by factored total, highest first, and what tells two places apart.
struct Ranking {
    order: Vec<PairId>,
    /// (inverted total, pair) as sorted, when every pair played the same boards.
    sorted_keys: Option<Vec<u64>>,
    /// Fields with fractions: each pair's floating-point key (total / boards), by pair id.
    key: Vec<f64>,
    /// The floating-point keys in rank order (fields with fractions).
    key_at: Vec<f64>,
    /// Runs of pairs whose floating-point keys are too close to tell apart, settled exactly.
    near_runs: Vec<std::ops::Range<usize>>,
    /// The exact factored total of every pair of a near run.
    exact_keys: FxHashMap<PairId, BigRational>,
}

impl Ranking {
    /// Orders every pair by its factored total (floating point for fields with fractions).
    fn sort(t: &Totals, pairs: usize, memory: &mut RankSpare) -> Ranking {
        let (total_int, boards) = (&t.total_int, &t.boards);
        // Fields with fractions are ordered by the factored total in floating point, computed once.
        let mut key = std::mem::take(&mut memory.key);
        if t.integral {
            key.clear();
        } else {
            (0..pairs)
                .into_par_iter()
                .map(|p| t.total_of(p) / f64::from(boards[p].max(1)))
                .collect_into_vec(&mut key);
        }
        let order: Vec<PairId>;
        let mut sorted_keys: Option<Vec<u64>> = None;
        let mut key_at: Vec<f64> = Vec::new();
        // Scans of millions of pairs on every thread; a club's few dozen on one.
        let first = boards.first().copied().unwrap_or(0);
        let uniform = boards
            .par_iter()
            .with_min_len(crate::zeroed::PARALLEL_MIN)
            .all(|&b| b == first);
        let (lowest, highest) = total_int
            .par_iter()
            .with_min_len(crate::zeroed::PARALLEL_MIN)
            .map(|&x| (x, x))
            .reduce_with(|a, b| (a.0.min(b.0), a.1.max(b.1)))
            .unwrap_or((0, 0));
        if t.integral && uniform && (highest as i128 - lowest as i128) < 1 << 32 {
            // Every pair played the same boards: the key is the total itself. Sort (inverted total, pair)
            // as one integer, so that ties then sit side by side with no lookups. The keys are made
            // in pair order, so only the totals' bits are sorted.
            let mut keys = std::mem::take(&mut memory.keys);
            (0..pairs)
                .into_par_iter()
                .map(|p| (((highest - total_int[p]) as u64) << 32) | p as u64)
                .collect_into_vec(&mut keys);
            crate::radix::par_sort_above(&mut keys, 32, &mut memory.sorting);
            let mut ordered = std::mem::take(&mut memory.order.pairs);
            keys.par_iter()
                .map(|&k| k as u32)
                .collect_into_vec(&mut ordered);
            order = ordered;
            sorted_keys = Some(keys);
        } else if t.integral {
            let mut by_total: Vec<PairId> = (0..pairs as PairId).collect();
            by_total.par_sort_unstable_by(|&a, &b| t.integral_cmp(a, b));
            order = by_total;
        } else {
            (order, key_at) = float_order(&key, memory);
        }
        Ranking {
            order,
            sorted_keys,
            key,
            key_at,
            near_runs: Vec::new(),
            exact_keys: FxHashMap::default(),
        }
    }

    /// Orders `pairs` (some of a field's pairs) as [`Ranking::sort`] orders the whole field, before
    /// their near runs are settled; `key` is every pair's floating-point key.
    fn of_pairs(t: &Totals, key: Vec<f64>, mut order: Vec<PairId>) -> Ranking {
        let mut key_at = Vec::new();
        if t.integral {
            order.sort_unstable_by(|&a, &b| t.integral_cmp(a, b));
        } else {
            order.sort_unstable_by(|&a, &b| {
                key[b as usize].total_cmp(&key[a as usize]).then(a.cmp(&b))
            });
            key_at = order.iter().map(|&p| key[p as usize]).collect();
        }
        Ranking {
            order,
            sorted_keys: None,
            key,
            key_at,
            near_runs: Vec::new(),
            exact_keys: FxHashMap::default(),
        }
    }

    /// Finds the runs of pairs whose floating-point keys are too close to tell apart.
    fn find_near_runs(&mut self, t: &Totals) {
        if t.integral {
            return;
        }
        let (order, key_at) = (&self.order, &self.key_at);
        let mut i = 0;
        while i < order.len() {
            let mut j = i + 1;
            while j < order.len() && near(key_at[j - 1], key_at[j]) {
                j += 1;
            }
            if j - i > 1 {
                self.near_runs.push(i..j);
            }
            i = j;
        }
    }

    /// The pairs of the near runs.
    fn near_pairs(&self) -> Vec<PairId> {
        self.near_runs
            .iter()
            .flat_map(|run| self.order[run.clone()].iter().copied())
            .collect()
    }

    /// Settles near-ties exactly: the exact factored total of every pair of a near run, once.
    /// Exact totals are kept unreduced (a national pair's total has a denominator of hundreds of
    /// bits, and reducing it costs a big gcd): they are compared by cross-multiplying.
    fn settle_near_runs(
        &mut self,
        t: &Totals,
        exact: &FxHashMap<PairId, (BigRational, BigRational)>,
    ) {
        self.exact_keys = self
            .near_runs
            .iter()
            .flat_map(|run| self.order[run.clone()].iter())
            .map(|&p| {
                let (total, _) = &exact[&p];
                let played = BigInt::from(t.boards[p as usize].max(1));
                (
                    p,
                    BigRational::new_raw(total.numer().clone(), total.denom() * played),
                )
            })
            .collect();
        let runs = std::mem::take(&mut self.near_runs);
        for run in &runs {
            let mut settled = self.order[run.clone()].to_vec();
            settled.sort_by(|a, b| self.exact_cmp(b, a).then(a.cmp(b)));
            self.order[run.clone()].copy_from_slice(&settled);
            for i in run.clone() {
                self.key_at[i] = self.key[self.order[i] as usize];
            }
        }
        self.near_runs = runs;
    }

    /// Compares the exact keys of two pairs of near runs (denominators are positive).
    fn exact_cmp(&self, a: &PairId, b: &PairId) -> std::cmp::Ordering {
        let (a, b) = (&self.exact_keys[a], &self.exact_keys[b]);
        (a.numer() * b.denom()).cmp(&(b.numer() * a.denom()))
    }

    /// Whether the pairs at places `i` and `j` of the order have equal factored totals.
    fn same_at(&self, t: &Totals, i: usize, j: usize) -> bool {
        if let Some(keys) = &self.sorted_keys {
            keys[i] >> 32 == keys[j] >> 32
        } else if t.integral {
            let (a, b) = (self.order[i] as usize, self.order[j] as usize);
            i128::from(t.total_int[a]) * i128::from(t.boards[b])
                == i128::from(t.total_int[b]) * i128::from(t.boards[a])
        } else {
            // Pairs this near are in one near run, so both have exact keys.
            near(self.key_at[i], self.key_at[j])
                && self.exact_cmp(&self.order[i], &self.order[j]).is_eq()
        }
    }
}

/// Pairs whose floating-point total or percentage may round to the other side of a half.
fn near_halves(scoring: &Scoring<'_>, t: &Totals) -> Vec<PairId> {
    (0..t.boards.len() as PairId)
        .into_par_iter()
        .filter(|&p| near_half_of(scoring, t, p))
        .collect()
}

/// Whether pair `p`'s floating-point total or percentage may round to the other side of a half.
fn near_half_of(scoring: &Scoring<'_>, t: &Totals, p: PairId) -> bool {
    let (mp, divisor) = (t.mp, t.divisor);
    let (p, played) = (p as usize, t.boards[p as usize]);
    // The largest value one board can give: a top of 2(N-1), or 24 IMPs.
    let per_board = if mp {
        f64::from(scoring.target.max(1)) * 2.0
    } else {
        24.0
    };
    let total = t.total_of(p);
    let th = total * 100.0 / divisor as f64;
    // Matchpoints are never negative, so their magnitudes add up to the total itself.
    let magnitude = if mp {
        total.abs()
    } else {
        f64::from(played) * per_board
    };
    let error = sum_error(played, magnitude);
    let t_error = error * 100.0 / divisor as f64;
    let m = t.max_of(p);
    let (pct, pct_error) = if m > 0.0 {
        let pct = total * 1e4 / m;
        // Relative errors of the total and the sum of tops, plus the division's own rounding.
        let relative =
            error / total.abs().max(f64::MIN_POSITIVE) + sum_error(played, m) / m + f64::EPSILON;
        (pct, pct.abs() * relative)
    } else {
        (0.0, 0.0)
    };
    near_half(th, t_error) || (mp && near_half(pct, pct_error))
}

/// Places in rank order: each pair's combined place, and its place in its own list with its ties
/// (packed by [`pack_place`]); with each pair's list.
struct Places {
    places: Vec<u32>,
    placed_at: Vec<u32>,
    category_at: Vec<u8>,
}

/// A place in a list packed in one word with its ties, so that the places of millions of pairs
/// are read and moved in half the bytes: the place above bit 2, bit 0 set when another pair of the
/// list shares it, bit 1 when another pair shares the combined place. (A field has fewer than 2^30
/// pairs: their rows alone would not fit in memory.)
fn pack_place(place: u32, tied: bool, combined_tied: bool) -> u32 {
    place << 2 | u32::from(tied) | u32::from(combined_tied) << 1
}

/// Each pair's list in `order` (in the memory of `category_at`).
fn categories_in_order(
    field: &crate::Field,
    order: &[PairId],
    mut category_at: Vec<u8>,
) -> Vec<u8> {
    let directions = field.pair_directions();
    let of = |&p: &PairId| category(directions[p as usize]) as u8;
    if order.len() < crate::zeroed::PARALLEL_MIN {
        // A club's few dozen pairs, or the few of a large field's [`Summed::top`].
        category_at.clear();
        category_at.extend(order.iter().map(of));
    } else {
        order.par_iter().map(of).collect_into_vec(&mut category_at);
    }
    category_at
}

/// Walks tie groups in rank order, counting the pairs of each list placed before. Places go to
/// small per-pair arrays first, so that the standings are then written in pair order.
fn place_in_order(
    field: &crate::Field,
    t: &Totals,
    ranking: &Ranking,
    mut placed_at: Vec<u32>,
    before: RankOrder,
) -> Places {
    let order = &ranking.order;
    let same_at = |i: usize, j: usize| ranking.same_at(t, i, j);
    let category_at = categories_in_order(field, order, before.categories);
    // Tie groups, walked in parts that each start a group, in parallel: a part starts with the
    // count of each list's pairs placed before it.
    let n = order.len();
    let cuts = cuts_between_runs(n, same_at);
    let parts: Vec<std::ops::Range<usize>> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
    let counted: Vec<[u32; 3]> = parts
        .par_iter()
        .map(|part| {
            let mut count = [0u32; 3];
            for &c in &category_at[part.clone()] {
                count[c as usize] += 1;
            }
            count
        })
        .collect();
    // Every place is written by the walk below: the arrays need only their length.
    let mut places = before.places;
    crate::zeroed::resized(&mut places, n);
    crate::zeroed::resized(&mut placed_at, n);
    let mut work = Vec::with_capacity(parts.len());
    {
        let (mut places_rest, mut placed_rest) = (places.as_mut_slice(), placed_at.as_mut_slice());
        let mut before = [0u32; 3];
        for (part, count) in parts.iter().zip(&counted) {
            let (p, p_rest) = places_rest.split_at_mut(part.len());
            let (q, q_rest) = placed_rest.split_at_mut(part.len());
            (places_rest, placed_rest) = (p_rest, q_rest);
            work.push((part.clone(), before, p, q));
            for c in 0..3 {
                before[c] += count[c];
            }
        }
    }
    work.into_par_iter()
        .for_each(|(part, placed_before, places, placed_at)| {
            place_part(
                part,
                placed_before,
                places,
                placed_at,
                &category_at,
                same_at,
            );
        });
    Places {
        places,
        placed_at,
        category_at,
    }
}

/// Places the pairs of `part` of the rank order (whole tie groups), given how many pairs of each
/// list were placed before it: each pair's combined place into `places`, and its place in its
/// list into `placed_at` ([`pack_place`]), both counted from the part's start.
fn place_part(
    part: std::ops::Range<usize>,
    mut placed_before: [u32; 3],
    places: &mut [u32],
    placed_at: &mut [u32],
    category_at: &[u8],
    same_at: impl Fn(usize, usize) -> bool,
) {
    let offset = part.start;
    let mut i = part.start;
    while i < part.end {
        let mut j = i + 1;
        while j < part.end && same_at(i, j) {
            j += 1;
        }
        if j == i + 1 {
            // Most pairs share their total with no other: nothing to count in a group.
            let c = usize::from(category_at[i]);
            let place = if c == 2 {
                i as u32 + 1
            } else {
                placed_before[c] + 1
            };
            places[i - offset] = i as u32 + 1;
            placed_at[i - offset] = pack_place(place, false, false);
            placed_before[c] += 1;
            i = j;
            continue;
        }
        let mut in_group = [0u32; 3];
        for &c in &category_at[i..j] {
            in_group[c as usize] += 1;
        }
        places[i - offset..j - offset].fill(i as u32 + 1);
        for (k, &c) in (i..j).zip(&category_at[i..j]) {
            let c = c as usize;
            let (place, tied) = if c == 2 {
                (i as u32 + 1, true)
            } else {
                (placed_before[c] + 1, in_group[c] > 1)
            };
            placed_at[k - offset] = pack_place(place, tied, true);
        }
        for c in 0..3 {
            placed_before[c] += in_group[c];
        }
        i = j;
    }
}

/// The places by pair id: the combined place above bit 32, the place in its list packed below
/// ([`pack_place`]).
fn places_by_pair(order: &[PairId], p: &Places, pairs: usize, mut placed: Vec<u64>) -> Vec<u64> {
    // Each thread writes the pairs of its own range of ids, reading the whole rank order. That pays
    // off for millions of pairs (2,000,000: 31 ms to 20 ms); for a national field's 200,000 it
    // measured no faster, and one thread writes them all.
    let threads = if order.len() >= PARALLEL_PLACES {
        rayon::current_num_threads()
    } else {
        1
    };
    // Every pair is in the order once: each slot is written below.
    crate::zeroed::resized(&mut placed, pairs);
    let share = pairs.div_ceil(threads).max(1);
    placed
        .par_chunks_mut(share)
        .enumerate()
        .for_each(|(k, mine)| {
            let (first, last) = (k * share, mine.len() - 1);
            // Half the order's pairs are another thread's, in no order, so that a branch on
            // whether the pair is this thread's goes wrong half the time: every other thread's
            // pair is written to the last slot instead, whose own pair's places are then written
            // again (2,000,000 pairs: 7.4-7.8 ms against 8.3-8.8).
            let mut lasts = 0;
            for ((&pair, &combined), &at) in order.iter().zip(&p.places).zip(&p.placed_at) {
                let here = (pair as usize).wrapping_sub(first);
                let places = u64::from(combined) << 32 | u64::from(at);
                mine[here.min(last)] = places;
                if here == last {
                    lasts = places;
                }
            }
            mine[last] = lasts;
        });
    placed
}

/// A pair's total and percentage in hundredths: from its exact total where the floating-point one
/// cannot be trusted, else from the integer or floating-point sums.
fn hundredths_of(
    t: &Totals,
    p: usize,
    total: f64,
    exact: Option<&(BigRational, BigRational)>,
) -> (i64, Option<i64>) {
    let (mp, divisor) = (t.mp, t.divisor);
    match exact {
        Some((total, m)) => {
            // total / m and total / divisor, unreduced.
            let pct = if mp && *m.numer() != BigInt::from(0) {
                Some(hundredths(
                    &(total.numer() * 100 * m.denom()),
                    &(total.denom() * m.numer()),
                ))
            } else if mp {
                Some(5000)
            } else {
                None
            };
            (hundredths(total.numer(), &(total.denom() * divisor)), pct)
        }
        None if t.integral && !t.ratio => {
            let total = i128::from(t.total_int[p]);
            let th = round_div(total * 100, i128::from(divisor) * i128::from(t.unit));
            let pct = mp.then(|| {
                let m = i128::from(t.boards[p]) * i128::from(t.common_top) * i128::from(t.unit);
                if m == 0 {
                    5000
                } else {
                    round_div(total * 10_000, m)
                }
            });
            (th, pct)
        }
        None => {
            let m = t.max_of(p);
            let pct = mp.then(|| {
                if m > 0.0 {
                    round_f64(t.total_of(p) * 1e4 / m)
                } else {
                    5000
                }
            });
            (round_f64(total * 100.0), pct)
        }
    }
}

/// Ranks the pairs of a scored field from their sums (pass two): fills its standings and rank order.
/// Ranking works in `spare`'s memory and leaves its working buffers there ([`crate::Spare`]).
pub(crate) fn rank<'f>(
    scoring: Scoring<'f>,
    sums: Sums<'_>,
    spare: &mut crate::Spare,
) -> Result<Scoring<'f>> {
    let started = std::time::Instant::now();
    let (mut scoring, ranked) = rank_lazily(scoring, sums, spare)?;
    let mut standings = std::mem::take(&mut spare.standings);
    (0..ranked.len() as PairId)
        .into_par_iter()
        .map(|p| ranked.standing(p))
        .collect_into_vec(&mut standings);
    tracing::debug!(elapsed = ?started.elapsed(), "score: standings built");
    spare.rank.placed = ranked.placed;
    scoring.standings = standings;
    Ok(scoring)
}

/// [`rank`], with the ranked pairs kept instead of the standings, each made when asked for.
pub(crate) fn rank_lazily<'f>(
    scoring: Scoring<'f>,
    sums: Sums<'_>,
    spare: &mut crate::Spare,
) -> Result<(Scoring<'f>, Ranked)> {
    let cells = sums.cells;
    let t = Totals::new(&scoring, sums);
    rank_totals(scoring, t, cells, spare)
}

/// [`rank_lazily`] from the sums as ranking reads them.
fn rank_totals<'f>(
    mut scoring: Scoring<'f>,
    t: Totals,
    cells: Option<&PairCells>,
    spare: &mut crate::Spare,
) -> Result<(Scoring<'f>, Ranked)> {
    let started = std::time::Instant::now();
    let ranked;
    (ranked, scoring.rank_order) = rank_pairs(&scoring, t, cells, spare)?;
    tracing::debug!(elapsed = ?started.elapsed(), "score: ranked");
    Ok((scoring, ranked))
}

/// A ranked field's pairs, each pair's [`Standing`] made when it is asked for
/// ([`crate::score_growing_ranked`]). A service that ranks a national field of 200,000 pairs
/// after every club shows a page of it at a time; making every standing each time took a quarter
/// of the ranking.
#[derive(Debug, Default)]
pub struct Ranked {
    t: Totals,
    /// Each pair's places ([`places_by_pair`]).
    placed: Vec<u64>,
    /// One bit a pair: whether its floating-point figures cannot be trusted to the last digit, so
    /// that the few exact totals are looked up without a hash lookup for every pair.
    doubtful: Vec<u64>,
    /// The exact total and sum of tops of each doubtful pair.
    exact: FxHashMap<PairId, (BigRational, BigRational)>,
}

impl Ranked {
    /// How many pairs are ranked.
    pub fn len(&self) -> usize {
        self.placed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.placed.is_empty()
    }

    /// The standing of pair `p` (below [`Ranked::len`]), as [`crate::score`] gives it.
    pub fn standing(&self, p: PairId) -> Standing {
        let exact = if self.doubtful[p as usize / 64] >> (p % 64) & 1 != 0 {
            self.exact.get(&p)
        } else {
            None
        };
        standing_of(&self.t, p, self.placed[p as usize], exact)
    }
}

/// The standing of pair `p` from its sums, its places (as [`places_by_pair`] packs them) and, where
/// its floating-point figures cannot be trusted, its exact total and sum of tops.
fn standing_of(
    t: &Totals,
    p: PairId,
    placed: u64,
    exact: Option<&(BigRational, BigRational)>,
) -> Standing {
    let p = p as usize;
    // One rounding: the integer total divided by both scales at once.
    let total = if t.integral {
        t.total_int[p] as f64 / (t.unit * t.divisor) as f64
    } else {
        t.total_of(p) / t.divisor as f64
    };
    let (total_hundredths, percent_hundredths) = hundredths_of(t, p, total, exact);
    Standing {
        pair: p as PairId,
        boards: t.boards[p],
        total,
        max: t.max_of(p) / t.divisor as f64,
        total_hundredths,
        percent_hundredths,
        rank: placed as u32 >> 2,
        tied: placed & 1 != 0,
        combined_rank: (placed >> 32) as u32,
        combined_tied: placed & 2 != 0,
    }
}

fn rank_pairs(
    scoring: &Scoring<'_>,
    mut t: Totals,
    cells: Option<&PairCells>,
    spare: &mut crate::Spare,
) -> Result<(Ranked, RankOrder)> {
    let mut memory = std::mem::take(&mut spare.rank);
    let started = std::time::Instant::now();
    let lap = |what: &str| tracing::trace!(elapsed = ?started.elapsed(), "rank: {what}");
    let field = scoring.field;
    let pairs = field.pairs().len();

    let mut ranking = Ranking::sort(&t, pairs, &mut memory);
    lap("sorted");
    ranking.find_near_runs(&t);
    lap("near runs found");
    // Pairs whose floating-point figures cannot be trusted to the last digit.
    let mut doubtful = ranking.near_pairs();
    if !t.integral || t.ratio {
        doubtful.extend(near_halves(scoring, &t));
        doubtful.sort_unstable();
        doubtful.dedup();
    }
    lap("near halves found");
    let mut doubtful_bits = vec![0u64; pairs.div_ceil(64)];
    for &p in &doubtful {
        doubtful_bits[p as usize / 64] |= 1 << (p % 64);
    }
    let exact: FxHashMap<PairId, (BigRational, BigRational)> = if doubtful.is_empty() {
        FxHashMap::default()
    } else {
        scoring.exact_totals(&doubtful, &t.pair_ranges, cells)
    };
    // Read only to find the exact totals.
    t.pair_ranges = Vec::new();

    tracing::trace!(elapsed = ?started.elapsed(), doubtful = doubtful.len(), "rank: doubtful found");
    ranking.settle_near_runs(&t, &exact);
    lap("near-ties settled");
    let mut places = place_in_order(field, &t, &ranking, memory.placed_at, memory.order);
    let placed = places_by_pair(&ranking.order, &places, pairs, memory.placed);
    lap("placed");
    spare.rank = RankSpare {
        keys: ranking.sorted_keys.take().unwrap_or(memory.keys),
        sorting: memory.sorting,
        placed_at: std::mem::take(&mut places.placed_at),
        placed: Vec::new(),
        key: std::mem::take(&mut ranking.key),
        key_at: std::mem::take(&mut ranking.key_at),
        order: RankOrder::default(),
    };
    let ranked = Ranked {
        t,
        placed,
        doubtful: doubtful_bits,
        exact,
    };
    Ok((
        ranked,
        RankOrder {
            pairs: ranking.order,
            places: places.places,
            categories: places.category_at,
        },
    ))
}

/// `n / d` rounded half away from zero (d > 0); in 64-bit arithmetic when it fits, which is much
/// faster than 128-bit division.
fn round_div(n: i128, d: i128) -> i64 {
    if let (Ok(n), Ok(d)) = (i64::try_from(n), i64::try_from(d))
        && n.unsigned_abs() < 1 << 61
        && d < 1 << 61
    {
        let q = (n.abs() * 2 + d) / (2 * d);
        return if n < 0 { -q } else { q };
    }
    let q = (n.abs() * 2 + d) / (2 * d);
    (if n < 0 { -q } else { q }) as i64
}

/// Orders standings for printing: by list (NS, EW, then Howell), then place; pairs sharing a place by
/// club, section and number.
pub fn display_order(scoring: &Scoring<'_>) -> Vec<PairId> {
    let (combined, categories) = combined_order(scoring);
    by_list(&combined, &categories).0
}

/// The pairs in the order of each list ([`lists`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lists {
    /// Every pair in combined-place order; pairs sharing a place NS first, then EW, then Howell,
    /// each by club, section and number (as [`display_order`] lists them).
    pub combined: Vec<PairId>,
    /// [`display_order`]: the NS list, the EW list, then the Howell pairs.
    pub display: Vec<PairId>,
    /// How many pairs the NS and the EW lists have.
    pub ns: usize,
    pub ew: usize,
}

/// The combined-place order and [`display_order`], both from the rank order of the ranking: no sort but
/// of the pairs that share a place. (Empty for a field scored for its boards only.)
pub fn lists(scoring: &Scoring<'_>) -> Lists {
    let (combined, categories) = combined_order(scoring);
    let (display, ns, ew) = by_list(&combined, &categories);
    Lists {
        combined,
        display,
        ns,
        ew,
    }
}

/// Every pair in combined-place order, with each one's list: the rank order, its pairs that share
/// a place put by list, then by name. A national field has thousands of clubs and few pairs
/// sharing a place, so names are compared as they are rather than all put in order; the rank
/// order is cut into parts at changes of place, sorted in parallel (their names are read at random).
fn combined_order(scoring: &Scoring<'_>) -> (Vec<PairId>, Vec<u8>) {
    let order = &scoring.rank_order;
    let (mut pairs, mut categories) = (order.pairs.clone(), order.categories.clone());
    let places = order.places.as_slice();
    let cuts = cuts_between_runs(places.len(), |i, j| places[i] == places[j]);
    let mut parts = Vec::with_capacity(cuts.len());
    let (mut pairs_rest, mut categories_rest) = (pairs.as_mut_slice(), categories.as_mut_slice());
    for cut in cuts.windows(2) {
        let (p, p_rest) = pairs_rest.split_at_mut(cut[1] - cut[0]);
        let (c, c_rest) = categories_rest.split_at_mut(cut[1] - cut[0]);
        (pairs_rest, categories_rest) = (p_rest, c_rest);
        parts.push((&places[cut[0]..cut[1]], p, c));
    }
    let field = scoring.field;
    parts
        .into_par_iter()
        .for_each(|(places, pairs, categories)| {
            order_runs_sharing_a_place(field, places, pairs, categories);
        });
    (pairs, categories)
}

/// Cuts of `0..n` into about four parts for each thread, from 0 to `n`, each cut moved on past
/// the run it falls in (`same(i, i + 1)` when `i` and `i + 1` are in one run), so that the parts
/// can be worked on apart.
fn cuts_between_runs(n: usize, same: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    let parts = rayon::current_num_threads() * 4;
    let mut cuts: Vec<usize> = (0..=parts).map(|k| k * n / parts).collect();
    for cut in &mut cuts[1..parts] {
        while *cut > 0 && *cut < n && same(*cut - 1, *cut) {
            *cut += 1;
        }
    }
    cuts.dedup();
    cuts
}

/// Puts the pairs of each run sharing a place in `places` by list, then by name; `categories`
/// (each pair's list) follows them. Within a run the lists then come in order, so that sorting
/// the run's lists is moving them with their pairs.
fn order_runs_sharing_a_place(
    field: &crate::Field,
    places: &[u32],
    pairs: &mut [PairId],
    categories: &mut [u8],
) {
    let directions = field.pair_directions();
    let list = |p: PairId| category(directions[p as usize]);
    let mut start = 0;
    for run in places.chunk_by(|a, b| a == b) {
        let end = start + run.len();
        if run.len() > 1 {
            pairs[start..end].sort_by(|&a, &b| {
                list(a)
                    .cmp(&list(b))
                    .then_with(|| field.compare_pairs_by_name(a, b))
            });
            categories[start..end].sort_unstable();
        }
        start = end;
    }
}

/// The NS list, the EW list, then the Howell pairs, each in the order of `pairs` (whose lists are
/// `categories`), with how many the NS and the EW lists have: in one pass, each pair written at
/// the next place of its list. A list's places follow the combined ones, and pairs sharing a place
/// in a list share it in the combined list: each list is the combined order's pairs of it.
fn by_list(pairs: &[PairId], categories: &[u8]) -> (Vec<PairId>, usize, usize) {
    let mut count = [0usize; 3];
    for &c in categories {
        count[usize::from(c)] += 1;
    }
    let mut next = [0, count[0], count[0] + count[1]];
    let mut display = vec![0; pairs.len()];
    for (&p, &c) in pairs.iter().zip(categories) {
        let at = &mut next[usize::from(c)];
        display[*at] = p;
        *at += 1;
    }
    (display, count[0], count[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Keys drawn so that many agree in their top bits: a few bases, nudged by a few ulps or by
    /// a few parts in 1.6 billion, which is not near ([`NEAR`]) at a distance of two or more.
    fn keys() -> impl Strategy<Value = Vec<f64>> {
        let base = prop::sample::select(vec![0.0, 1.0, -3.5, 1234.5678, 99_999.0, 1e-12]);
        let nudge = prop_oneof![
            (-3i64..=3).prop_map(|ulps| ulps as f64 * f64::EPSILON),
            (-3i64..=3).prop_map(|parts| parts as f64 * 6e-10),
        ];
        prop::collection::vec((base, nudge), 1..200).prop_map(|v| {
            v.into_iter()
                .map(|(b, nudge): (f64, f64)| b * (1.0 + nudge))
                .collect()
        })
    }

    proptest! {
        /// The short keys give every pair once, in descending order of key, pairs with equal keys
        /// by id, with the fewest and with the most bits of a pair id.
        #[test]
        fn float_order_is_descending_and_equal_keys_by_pair(
            key in keys(),
            pair_bits in prop::sample::select(vec![SHORT_KEY_PAIR_BITS, SHORT_KEY_MAX_PAIR_BITS]),
        ) {
            let order = short_order(&key, pair_bits);
            let mut seen = order.clone();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..key.len() as PairId).collect::<Vec<_>>());
            for pairs in order.windows(2) {
                let (a, b) = (key[pairs[0] as usize], key[pairs[1] as usize]);
                prop_assert!(
                    a.total_cmp(&b).then(pairs[1].cmp(&pairs[0])).is_gt(),
                    "{a} (pair {}) placed before {b} (pair {})", pairs[0], pairs[1]
                );
            }
        }
    }

    /// [`float_order_short`]'s pairs, and its keys in their order checked.
    fn short_order(key: &[f64], pair_bits: u32) -> Vec<PairId> {
        let (order, key_at) = float_order_short(key, pair_bits, &mut RankSpare::default());
        for (&p, k) in order.iter().zip(key_at) {
            assert_eq!(k.to_bits(), key[p as usize].to_bits());
        }
        order
    }

    /// Two keys that agree in their top bits and a third near the higher of them only: the third
    /// must sit beside the higher, or it is left out of their near run and meets the higher once
    /// the run is settled (with no exact key to compare).
    #[test]
    fn keys_agreeing_in_their_top_bits_are_put_in_order() {
        let key = [1.0, 1.0 + 2e-10, 1.0 + 1.1e-9];
        assert!(near(key[2], key[1]) && !near(key[2], key[0]));
        for pair_bits in [SHORT_KEY_PAIR_BITS, SHORT_KEY_MAX_PAIR_BITS] {
            assert_eq!(short_order(&key, pair_bits), [2, 1, 0]);
        }
    }
}
