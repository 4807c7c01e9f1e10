//! The first pairs of the combined list, found before the whole field is ranked.
//!
//! A live national leaderboard shows its first twenty pairs. Ordering and placing a field of
//! 200,000 pairs takes most of a rescore; the first twenty need only the pairs whose totals can
//! reach theirs. Those are ranked exactly as the whole field would be ([`Summed::top`]), and the
//! leaderboard is published while the rest is ranked ([`Summed::rank`]).

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::{
    NEAR, Ranked, Ranking, Standing, Totals, near_half_of, place_in_order, rank_totals, standing_of,
};
use crate::Result;
use crate::engine::{CellValues, PairCells, Previous, Scoring, Sums};
use crate::field::PairId;
use crate::ranks::RankOrder;

/// Keys in a run scanned on one thread for its highest.
const CHUNK: usize = 1 << 14;

/// Up to this many highest keys are kept in a sorted list while the keys are scanned; more are
/// selected from a copy of the keys.
pub(super) const KEPT_IN_LIST: usize = 256;

/// A field scored to each pair's sums (pass two) and not yet ranked
/// ([`crate::score_growing_summed`]). Its first pairs can be listed ([`Summed::top`]) before the
/// whole field is ranked ([`Summed::rank`]).
pub struct Summed<'f, 'c> {
    scoring: Scoring<'f>,
    /// The sums as ranking reads them, with each pair's results where pass two kept them (`None`
    /// for a field scored for its boards only).
    sums: Option<(Totals, Option<&'c PairCells>)>,
    /// Where this ranking is kept for the next scoring of a growing field, with the values pass
    /// two read ([`super::Valued::top`]).
    keep: Option<(&'c mut Option<Previous>, CellValues)>,
}

impl<'f, 'c> Summed<'f, 'c> {
    pub(crate) fn new(
        scoring: Scoring<'f>,
        sums: Option<Sums<'c>>,
        keep: Option<(&'c mut Option<Previous>, CellValues)>,
    ) -> Summed<'f, 'c> {
        let sums = sums.map(|sums| {
            let cells = sums.cells;
            (Totals::new(&scoring, sums), cells)
        });
        Summed {
            scoring,
            sums,
            keep,
        }
    }

    /// Ranks the whole field, as [`crate::score_growing_ranked`] does.
    pub fn rank(self) -> Result<(Scoring<'f>, Ranked)> {
        let Some((t, cells)) = self.sums else {
            return Ok((self.scoring, Ranked::default()));
        };
        if let Some((previous, values)) = self.keep {
            *previous = Some(ranking_kept(&self.scoring, &t, values));
        }
        rank_totals(self.scoring, t, cells, &mut crate::Spare::default())
    }

    /// The standings of the first `k` pairs of the combined list ([`super::lists`]), in its order:
    /// exactly those the whole field's ranking gives them. Meant for a few dozen pairs: it ranks
    /// only the pairs whose totals may reach the `k`-th highest.
    pub fn top(&self, k: usize) -> Vec<Standing> {
        let Some((t, cells)) = &self.sums else {
            return Vec::new();
        };
        if k == 0 {
            return Vec::new();
        }
        first_pairs(&self.scoring, t, *cells, candidates(t, k, None), k)
    }
}

/// What the next scoring of a growing field keeps of this ranking (`t`, from `values`): each pair's
/// key and the highest keys.
fn ranking_kept(scoring: &Scoring<'_>, t: &Totals, values: CellValues) -> Previous {
    let pairs = t.boards.len();
    let keys: Vec<f64> = (0..pairs).into_par_iter().map(|p| key_of(t, p)).collect();
    let highest = highest_keys(pairs, |p| keys[p], KEPT_IN_LIST);
    let (field, options) = (scoring.field, scoring.options);
    Previous::new(field, options, &scoring.boards, values, keys, highest)
}

/// The standings of the first `k` pairs of the combined list, ranked from the sums `t` of the
/// pairs `candidates` ([`candidates`]): those of the whole field's ranking.
pub(super) fn first_pairs(
    scoring: &Scoring<'_>,
    t: &Totals,
    cells: Option<&PairCells>,
    candidates: Vec<PairId>,
    k: usize,
) -> Vec<Standing> {
    let started = std::time::Instant::now();
    let lap = |what: &str| tracing::trace!(elapsed = ?started.elapsed(), "top: {what}");
    // Only the candidates' keys are read: the rest of the vector stays untouched pages.
    let mut key = vec![0.0; t.boards.len()];
    for &p in &candidates {
        key[p as usize] = key_of(t, p as usize);
    }
    lap("candidates found");
    let mut ranking = Ranking::of_pairs(t, key, candidates);
    ranking.find_near_runs(t);
    let mut doubtful = ranking.near_pairs();
    if !t.integral || t.ratio {
        let halves = ranking.order.iter().copied();
        doubtful.extend(halves.filter(|&p| near_half_of(scoring, t, p)));
        doubtful.sort_unstable();
        doubtful.dedup();
    }
    let exact = if doubtful.is_empty() {
        FxHashMap::default()
    } else {
        scoring.exact_totals(&doubtful, &t.pair_ranges, cells)
    };
    ranking.settle_near_runs(t, &exact);
    let places = place_in_order(scoring.field, t, &ranking, Vec::new(), RankOrder::default());
    // (combined place, list, pair, place in its list) in rank order.
    let mut entries: Vec<(u32, u8, PairId, u32)> = (places.places.iter())
        .zip(&places.category_at)
        .zip(&ranking.order)
        .zip(&places.placed_at)
        .map(|(((&place, &list), &p), &at)| (place, list, p, at))
        .collect();
    order_shared_places(scoring.field, &mut entries, |&(place, list, p, _)| {
        (place, list, p)
    });
    entries.truncate(k);
    tracing::debug!(elapsed = ?started.elapsed(), pairs = places.places.len(), "top: first pairs ranked");
    let placed = |place: u32, at: u32| u64::from(place) << 32 | u64::from(at);
    (entries.iter())
        .map(|&(place, _, p, at)| standing_of(t, p, placed(place, at), exact.get(&p)))
        .collect()
}

/// The pairs whose keys may reach the `k`-th highest: every pair whose exact key is at least that
/// of the `k`-th pair in rank order. A floating-point key is within far less than [`NEAR`] of its
/// exact value, so a margin of a few times that keeps every such pair, and every pair tied with
/// one ([`lowest_kept`]). Of every pair, or of `among` only when it holds every such pair (then
/// only their sums in `t` are read).
pub(super) fn candidates(t: &Totals, k: usize, among: Option<Vec<PairId>>) -> Vec<PairId> {
    let pairs = t.boards.len();
    if let Some(among) = among {
        let Some(kth) = kth_highest(among.len(), |i| key_of(t, among[i] as usize), k) else {
            return among;
        };
        let lowest = lowest_kept(kth);
        return (among.into_iter())
            .filter(|&p| key_of(t, p as usize) >= lowest)
            .collect();
    }
    let Some(kth) = kth_highest(pairs, |p| key_of(t, p), k) else {
        return (0..pairs as PairId).collect();
    };
    let lowest = lowest_kept(kth);
    (0..pairs)
        .into_par_iter()
        .with_min_len(CHUNK)
        .filter(|&p| key_of(t, p) >= lowest)
        .map(|p| p as PairId)
        .collect()
}

/// The lowest key kept as a candidate when the `k`-th highest is `kth` ([`candidates`]). It rises
/// with `kth`.
pub(super) fn lowest_kept(kth: f64) -> f64 {
    kth - 4.0 * NEAR * kth.abs().max(1.0)
}

/// Pair `p`'s floating-point key, as [`Ranking::sort`] computes it: total / boards.
pub(super) fn key_of(t: &Totals, p: usize) -> f64 {
    t.total_of(p) / f64::from(t.boards[p].max(1))
}

/// The `k`-th highest of the keys of `pairs` pairs (`k` at least 1), or `None` if there are no
/// more than `k`.
fn kth_highest(pairs: usize, key: impl Fn(usize) -> f64 + Sync, k: usize) -> Option<f64> {
    if pairs <= k {
        return None;
    }
    if k > KEPT_IN_LIST {
        let mut copy: Vec<f64> = (0..pairs).into_par_iter().map(&key).collect();
        let (_, kth, _) = copy.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
        return Some(*kth);
    }
    highest_keys(pairs, key, k).last().copied()
}

/// The `k` highest keys of `pairs` pairs (all of them if there are no more), highest first.
fn highest_keys(pairs: usize, key: impl Fn(usize) -> f64 + Sync, k: usize) -> Vec<f64> {
    let starts = (0..pairs).step_by(CHUNK).collect::<Vec<_>>();
    (starts.into_par_iter())
        .map(|start| highest_of((start..pairs.min(start + CHUNK)).map(&key), k))
        .reduce(Vec::new, |a, b| highest_of(a.into_iter().chain(b), k))
}

/// The `k` highest of `keys`, highest first. Most keys of a large field are below the lowest kept
/// and are passed over with one comparison.
fn highest_of(keys: impl Iterator<Item = f64>, k: usize) -> Vec<f64> {
    let mut best: Vec<f64> = Vec::with_capacity(k + 1);
    for x in keys {
        if best.len() == k && x.total_cmp(&best[k - 1]).is_le() {
            continue;
        }
        let at = best.partition_point(|b| b.total_cmp(&x).is_ge());
        best.insert(at, x);
        best.truncate(k);
    }
    best
}

/// Orders entries in rank order so that pairs sharing a combined place are listed by list, then by
/// name; `at` gives an entry's (combined place, list, pair). For the few pairs of a leaderboard's
/// top; `super::combined_order` does the same for a whole field without making entries.
fn order_shared_places<E: Send>(
    field: &crate::Field,
    entries: &mut [E],
    at: impl Fn(&E) -> (u32, u8, PairId) + Sync,
) {
    entries
        .par_chunk_by_mut(|a, b| at(a).0 == at(b).0)
        .filter(|group| group.len() > 1)
        .for_each(|group| {
            group.sort_by(|a, b| {
                let (a, b) = (at(a), at(b));
                a.1.cmp(&b.1)
                    .then_with(|| field.compare_pairs_by_name(a.2, b.2))
            });
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The `k`-th highest is the `k`-th of the keys sorted highest first.
        #[test]
        fn the_kth_highest_is_that_of_the_sorted_keys(
            key in prop::collection::vec(-50i32..50, 0..40_000),
            k in prop_oneof![1usize..40, 250usize..300],
        ) {
            let key: Vec<f64> = key.into_iter().map(|x| f64::from(x) / 4.0).collect();
            let mut sorted = key.clone();
            sorted.sort_by(|a, b| b.total_cmp(a));
            let expected = (key.len() > k).then(|| sorted[k - 1]);
            prop_assert_eq!(kth_highest(key.len(), |p| key[p], k), expected);
        }
    }
}
