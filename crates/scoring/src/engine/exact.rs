//! The exact totals of a few pairs ([`Scoring::exact_totals`]): the pairs whose floating-point
//! totals are too near another's, or a half, to be trusted to the last digit.
//!
//! Values are summed per denominator in 128-bit integers (a board's values share a few
//! denominators), and the few sums are combined as big rationals only at the end.

use num_bigint::BigInt;
use num_rational::BigRational;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::pair_cells::{CellAt, PairCells, cell_at};
use super::{ROW_BLOCK, Scoring, parts, row_blocks};
use crate::field::PairId;
use crate::value::Value;

/// A sum as (denominator, sum of numerators) for each denominator met.
type Buckets = Vec<(i64, i128)>;

/// A pair's total and sum of tops, as [`Buckets`].
type PairSums = (Buckets, Buckets);

fn add_to(buckets: &mut Buckets, den: i64, num: i128) {
    match buckets.iter_mut().find(|(d, _)| *d == den) {
        Some((_, n)) => *n += num,
        None => buckets.push((den, num)),
    }
}

/// Adds a value and its board's top into a pair's sums.
fn add(sums: &mut PairSums, value: Value, top: Value) {
    add_to(&mut sums.0, *value.denom(), i128::from(*value.numer()));
    add_to(&mut sums.1, *top.denom(), i128::from(*top.numer()));
}

/// The sum of the buckets over their least common denominator, not reduced: a national pair's
/// boards each have a denominator of their own, so the sum's has hundreds of bits, and reducing it
/// (a big gcd) would cost more than everything else done with it.
fn combine(buckets: &Buckets) -> BigRational {
    use num_integer::Integer;
    use num_traits::ToPrimitive;
    let mut common = BigInt::from(1);
    for &(den, _) in buckets {
        // gcd(common, den) = gcd(common mod den, den): small numbers only.
        let rest = (&common % den).to_i64().unwrap_or(0);
        common *= den / rest.gcd(&den);
    }
    let numerator: BigInt = buckets
        .iter()
        .map(|&(den, num)| BigInt::from(num) * (&common / den))
        .sum();
    BigRational::new_raw(numerator, common)
}

impl Scoring<'_> {
    /// Exact totals (and sums of tops) of some pairs, as unreduced fractions with positive
    /// denominators: from each pair's own results when pass two kept them (`cells`), else by one
    /// scan of the rows. `pair_ranges` ([`super::Sums::pair_ranges`]) may be empty: every row is
    /// then read.
    pub(crate) fn exact_totals(
        &self,
        wanted: &[PairId],
        pair_ranges: &[(PairId, PairId)],
        cells: Option<&PairCells>,
    ) -> FxHashMap<PairId, (BigRational, BigRational)> {
        let sums = match cells {
            Some(cells) => self.exact_sums_of_cells(cells, wanted),
            None => self.exact_sums_of_rows(wanted, pair_ranges),
        };
        let none = (Vec::new(), Vec::new());
        let combined: Vec<_> = wanted
            .par_iter()
            .enumerate()
            .map(|(i, &p)| {
                let (t, m) = sums.get(i).unwrap_or(&none);
                (p, (combine(t), combine(m)))
            })
            .collect();
        combined.into_iter().collect()
    }

    /// The sums of the `wanted` pairs (in that order) from their own results, `cells` being those
    /// of this scoring's field: a few dozen results a pair, where the rows' scan reads every block
    /// of rows that may hold one of them.
    fn exact_sums_of_cells(&self, cells: &PairCells, wanted: &[PairId]) -> Vec<PairSums> {
        let board_of = |number: usize| &self.boards[self.board_index[number] as usize];
        wanted
            .par_iter()
            .map(|&p| {
                let mut sums = (Vec::new(), Vec::new());
                for &cell in cells.of_pair(p as usize) {
                    let (at, side) = cell_at(cell);
                    let (values, board) = match at {
                        CellAt::Plain { board, position } => {
                            let board = board_of(board);
                            let score = self.positions.score_at(position);
                            (board.plain_values(score, |_| position), board)
                        }
                        CellAt::Special { row } => (
                            self.raw_values(row),
                            board_of(self.field.boards[row] as usize),
                        ),
                    };
                    let value = if side == 0 { values.0 } else { values.1 };
                    add(&mut sums, value, board.top);
                }
                sums
            })
            .collect()
    }

    /// The sums of the `wanted` pairs (in that order), from a scan of the rows that skips each
    /// block of rows whose range of pairs holds none of them.
    fn exact_sums_of_rows(
        &self,
        wanted: &[PairId],
        pair_ranges: &[(PairId, PairId)],
    ) -> Vec<PairSums> {
        let mut slot = vec![u32::MAX; self.field.pairs().len()];
        // One bit per pair, wanted or not: small enough to stay in the cache while every row is
        // tested, where `slot` would be read at random.
        let mut is_wanted = vec![0u64; self.field.pairs().len().div_ceil(64)];
        for (i, &p) in wanted.iter().enumerate() {
            slot[p as usize] = i as u32;
            is_wanted[p as usize / 64] |= 1 << (p % 64);
        }
        let wanted_bit = |p: PairId| is_wanted[p as usize / 64] >> (p % 64) & 1 != 0;
        let mut sorted = wanted.to_vec();
        sorted.sort_unstable();
        // Whether a block of rows may hold a wanted pair.
        let may_hold =
            |block: &std::ops::Range<usize>| match pair_ranges.get(block.start / ROW_BLOCK) {
                Some(&(lowest, highest)) => {
                    let at = sorted.partition_point(|&p| p < lowest);
                    at < sorted.len() && sorted[at] <= highest
                }
                None => true,
            };
        parts(self.field.len(), 2)
            .into_par_iter()
            .map(|part| {
                let mut sums: Vec<PairSums> = vec![(Vec::new(), Vec::new()); wanted.len()];
                for row in row_blocks(part).filter(may_hold).flatten() {
                    let (ns_pair, ew_pair) = (self.field.ns[row], self.field.ew[row]);
                    if !wanted_bit(ns_pair) && !wanted_bit(ew_pair) {
                        continue;
                    }
                    let (ns_slot, ew_slot) = (slot[ns_pair as usize], slot[ew_pair as usize]);
                    let (ns, ew) = self.raw_values(row);
                    let bi = self.board_index[self.field.boards[row] as usize] as usize;
                    let top = self.boards[bi].top;
                    for (s, v) in [(ns_slot, ns), (ew_slot, ew)] {
                        if s != u32::MAX {
                            add(&mut sums[s as usize], v, top);
                        }
                    }
                }
                sums
            })
            .reduce_with(|mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    for (den, num) in y.0 {
                        add_to(&mut x.0, den, num);
                    }
                    for (den, num) in y.1 {
                        add_to(&mut x.1, den, num);
                    }
                }
                a
            })
            .unwrap_or_default()
    }
}
