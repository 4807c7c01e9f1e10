//! The first pairs of a growing field listed before pass two.
//!
//! Pass two sums every pair of a national field, 7 million results, for each new club. The
//! leaderboard needs twenty pairs. A new club adds no result to a pair already in the field: it
//! moves the values of results already in by at most some amount, and a pair's key (the mean of
//! its values) by no more than that ([`crate::engine::Previous`]). The pairs that can now be
//! among the first `k` are then those whose keys in the last ranking were within twice that of
//! its `k`-th, and the pairs new since. Only their sums are needed, and the whole field's ranking
//! code lists them ([`first_pairs`]).
//!
//! Why no other pair can be: let `kth` be the last ranking's `k`-th key and `reach` the furthest
//! any key moved. The `k` pairs at or above `kth` are all still there, each at `kth - reach` or
//! more, so the new `k`-th key is at least `kth - reach`. A pair left out had a key below
//! [`lowest_kept`]`(kth - reach) - reach`, so its key now is below `lowest_kept(kth - reach)`, at
//! most the lowest key [`candidates`] keeps now (it rises with the `k`-th): not a candidate of the
//! whole field either.

use super::top::{KEPT_IN_LIST, candidates, first_pairs, lowest_kept};
use super::{Ranked, Standing, Summed, Totals};
use crate::Result;
use crate::engine::{Moved, PassTwo, Previous, Scoring, cells_pass};
use crate::field::PairId;

/// A growing field scored to its boards' values, pass two still to come
/// ([`crate::score_growing_valued`]).
pub struct Valued<'f, 'c> {
    scoring: Scoring<'f>,
    two: PassTwo<'c>,
}

/// A field whose first pairs are listed ([`Valued::top`]), the whole field not yet ranked.
pub struct Unranked<'f, 'c>(Stage<'f, 'c>);

enum Stage<'f, 'c> {
    /// The first pairs were listed before pass two.
    Valued(Valued<'f, 'c>),
    Summed(Summed<'f, 'c>),
}

impl<'f, 'c> Valued<'f, 'c> {
    pub(crate) fn new(scoring: Scoring<'f>, two: PassTwo<'c>) -> Valued<'f, 'c> {
        Valued { scoring, two }
    }

    /// Pass two: each pair's sums.
    pub fn sum(self) -> Result<Summed<'f, 'c>> {
        Ok(match self.two {
            PassTwo::Skipped => Summed::new(self.scoring, None, None),
            PassTwo::Done(sums) => Summed::new(self.scoring, Some(sums), None),
            PassTwo::FromCells {
                cells,
                values,
                previous,
            } => {
                let sums = cells_pass(&self.scoring, cells, &values)?;
                Summed::new(self.scoring, Some(sums), Some((previous, values)))
            }
        })
    }

    /// The standings of the first `k` pairs of the combined list, exactly as the whole field's
    /// ranking gives them ([`Summed::top`]), and the field still to rank. Listed before pass two
    /// when the field's last ranking shows which pairs can be among them; else after it.
    pub fn top(self, k: usize) -> Result<(Vec<Standing>, Unranked<'f, 'c>)> {
        if let Some(top) = self.top_before_pass_two(k) {
            return Ok((top, Unranked(Stage::Valued(self))));
        }
        let summed = self.sum()?;
        let top = summed.top(k);
        Ok((top, Unranked(Stage::Summed(summed))))
    }

    /// [`Valued::top`] from the sums of the pairs that can be among the first `k` only; `None`
    /// without a last ranking to bound them by, or when it leaves too many.
    fn top_before_pass_two(&self, k: usize) -> Option<Vec<Standing>> {
        let PassTwo::FromCells {
            cells,
            values,
            previous,
        } = &self.two
        else {
            return None;
        };
        let (previous, scoring) = (previous.as_ref()?, &self.scoring);
        if k == 0 || k > KEPT_IN_LIST || previous.options != scoring.options {
            return None;
        }
        let started = std::time::Instant::now();
        let kth = *previous.highest.get(k - 1)?;
        let moved = previous.moved(scoring.field, cells, values)?;
        let chosen = reachable(previous, moved, kth, cells.pairs());
        tracing::trace!(elapsed = ?started.elapsed(), furthest = moved.furthest, chosen = chosen.as_ref().map(Vec::len), "top: pairs in reach");
        let chosen = chosen?;
        let t = Totals::new(scoring, cells.sums_of(scoring, &values.by_cell, &chosen));
        let candidates = candidates(&t, k, Some(chosen));
        Some(first_pairs(scoring, &t, Some(cells), candidates, k))
    }
}

impl<'f, 'c> Unranked<'f, 'c> {
    /// Ranks the whole field (after pass two, if the first pairs came before it).
    pub fn rank(self) -> Result<(Scoring<'f>, Ranked)> {
        match self.0 {
            Stage::Valued(valued) => valued.sum()?.rank(),
            Stage::Summed(summed) => summed.rank(),
        }
    }

    /// Whether the first pairs were listed before pass two.
    pub fn listed_before_pass_two(&self) -> bool {
        matches!(self.0, Stage::Valued(_))
    }
}

/// The pairs of a field of `pairs` pairs that can be among the first `k` now (see the module's
/// doc): the last ranking's pairs whose keys were near enough to its `k`-th (`kth`), and the pairs
/// new since. `None` when they are more than a quarter of the field: pass two is then little more.
fn reachable(previous: &Previous, moved: Moved, kth: f64, pairs: usize) -> Option<Vec<PairId>> {
    // A floating-point key differs from its exact value by far less than this: it is a sum of at
    // most a few hundred values, each of magnitude below `moved.magnitude`, then divided.
    let error = 1e-9 * (moved.magnitude + kth.abs() + moved.furthest + 1.0);
    let reach = moved.furthest + error;
    let threshold = lowest_kept(kth - reach) - reach;
    let old = previous.pairs;
    // One thread: a scan of 200,000 keys took 0.25 ms, on the pool 0.5-0.9 ms (its threads woken).
    let mut chosen: Vec<PairId> = (previous.keys.iter().enumerate())
        .filter(|&(_, &key)| key >= threshold)
        .map(|(p, _)| p as PairId)
        .collect();
    if chosen.len() + (pairs - old) > pairs / 4 {
        return None;
    }
    chosen.extend(old as PairId..pairs as PairId);
    Some(chosen)
}
