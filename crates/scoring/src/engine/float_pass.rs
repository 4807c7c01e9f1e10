//! Pass two when some values are fractions: each pair's values summed in `f64` (made exact later
//! where it matters, [`crate::standings`]).
//!
//! A pair's floating-point total is printed in full (`score --json`, the standings events), so it
//! must not depend on the machine: it is the sum of the pair's values in row order, as one thread
//! adds them. Threads sum parts of the rows; a pair whose rows all lie in one part gets that very
//! sum, and the few whose rows lie in several parts (the pairs of a club cut by a part's end, or
//! every pair of a file sorted by board) are summed again in row order.

use rayon::prelude::*;

use super::{
    Positions, ROW_BLOCK, Sums, add_each, block_range, board_bases, parts, row_blocks, value_table,
};
use crate::board::BoardScore;
use crate::field::{ColumnScore, Field, PairId, SPECIAL_SCORE};
use crate::value::to_f64;

/// Each row's (North-South value, East-West value) and the top of its board, in one scoring of a
/// field; read row by row here and cell by cell by [`super::pair_cells`].
pub(super) struct RowValues<'a, P> {
    field: &'a Field,
    boards: &'a [BoardScore],
    board_index: &'a [u32],
    p: &'a P,
    /// [`value_table`] and where each board starts in it ([`board_bases`]).
    table: Vec<[f64; 2]>,
    base: Vec<usize>,
    tops: Vec<f64>,
}

impl<'a, P: Positions> RowValues<'a, P> {
    pub(super) fn new(
        field: &'a Field,
        boards: &'a [BoardScore],
        board_index: &'a [u32],
        p: &'a P,
        width: usize,
    ) -> Self {
        RowValues {
            field,
            boards,
            board_index,
            p,
            table: value_table(boards, p, width, to_f64),
            base: board_bases(board_index, width),
            tops: boards.iter().map(|b| to_f64(b.top)).collect(),
        }
    }

    /// The values of a row of board `b` and score `s`; `special_at` is the index in the field's
    /// special rows of the next special row from this one on, moved past it if this is one.
    #[inline(always)]
    fn of(&self, b: u16, s: ColumnScore, special_at: &mut usize) -> [f64; 2] {
        if s == SPECIAL_SCORE {
            let (row, _) = self.field.specials[*special_at];
            *special_at += 1;
            self.special(row)
        } else {
            self.at(b, self.p.position(s.into()))
        }
    }

    /// The values of a plain score of board `b` at `position`.
    #[inline(always)]
    pub(super) fn at(&self, b: u16, position: usize) -> [f64; 2] {
        self.table[self.base[b as usize] + position]
    }

    /// The board number of `row`.
    pub(super) fn board_of(&self, row: u32) -> u16 {
        self.field.boards[row as usize]
    }

    /// The values of the special row `row`: a binary search in its board's special rows, kept
    /// out of the loops over plain scores.
    #[cold]
    #[inline(never)]
    pub(super) fn special(&self, row: u32) -> [f64; 2] {
        let b = self.board_of(row);
        let (n, e) = self.boards[self.board_index[b as usize] as usize].special_values(row);
        [to_f64(n), to_f64(e)]
    }

    pub(super) fn top(&self, b: u16) -> f64 {
        self.tops[self.board_index[b as usize] as usize]
    }

    /// Index in the field's special rows of the first special row from `row` on.
    fn special_from(&self, row: usize) -> usize {
        self.field
            .specials
            .partition_point(|(r, _)| (*r as usize) < row)
    }
}

/// One part's sums: totals, sums of tops (ratio factoring only), boards played, and the lowest and
/// highest pair of each of its blocks.
struct PartSums {
    total: Vec<f64>,
    tops: Vec<f64>,
    count: Vec<u32>,
    ranges: Vec<(PairId, PairId)>,
}

pub(super) fn float_pass<P: Positions>(
    field: &Field,
    boards: &[BoardScore],
    board_index: &[u32],
    p: &P,
    width: usize,
    ratio: bool,
) -> Sums<'static> {
    let values = RowValues::new(field, boards, board_index, p, width);
    let pairs = field.pairs().len();
    let row_parts = parts(field.len(), 1);
    let per_part: Vec<PartSums> = row_parts
        .par_iter()
        .map(|part| sum_part(&values, part.clone(), ratio))
        .collect();
    let (mut sums, spread) = merged(per_part, &row_parts, field.len(), pairs, ratio);
    tracing::trace!(
        pairs = spread.len(),
        "pass two: pairs summed again in row order"
    );
    if !spread.is_empty() {
        resum_in_row_order(&values, &mut sums, &spread, ratio);
    }
    sums
}

/// The sums of the rows of `part`.
fn sum_part<P: Positions>(
    values: &RowValues<'_, P>,
    part: std::ops::Range<usize>,
    ratio: bool,
) -> PartSums {
    let (field, pairs) = (values.field, values.field.pairs().len());
    let mut total = crate::zeroed::written::<f64>(pairs);
    let mut tops = if ratio {
        crate::zeroed::written::<f64>(pairs)
    } else {
        Vec::new()
    };
    let mut count = crate::zeroed::written::<u32>(pairs);
    let mut special_at = values.special_from(part.start);
    let mut ranges = Vec::new();
    for block in row_blocks(part) {
        let (ns, ew) = (&field.ns[block.clone()], &field.ew[block.clone()]);
        let rows = field.boards[block.clone()]
            .iter()
            .zip(&field.scores[block.clone()])
            .zip(ns.iter().zip(ew));
        for ((&b, &s), (&n, &e)) in rows {
            let [nv, ev] = values.of(b, s, &mut special_at);
            let (n, e) = (n as usize, e as usize);
            total[n] += nv;
            total[e] += ev;
            count[n] += 1;
            count[e] += 1;
            if ratio {
                let top = values.top(b);
                tops[n] += top;
                tops[e] += top;
            }
        }
        ranges.push(block_range(ns, ew));
    }
    PartSums {
        total,
        tops,
        count,
        ranges,
    }
}

/// The parts' sums added together in order, and the pairs with rows in more than one part
/// (ascending), whose floating-point sums are then not those of row order.
fn merged(
    per_part: Vec<PartSums>,
    row_parts: &[std::ops::Range<usize>],
    rows: usize,
    pairs: usize,
    ratio: bool,
) -> (Sums<'static>, Vec<PairId>) {
    // Parts end where blocks do not: a block split between two parts has two ranges to join.
    let mut pair_ranges: Vec<(PairId, PairId)> = vec![(PairId::MAX, 0); rows.div_ceil(ROW_BLOCK)];
    let mut spread: Vec<PairId> = Vec::new();
    let mut sums: Option<PartSums> = None;
    for (part, range) in per_part.into_iter().zip(row_parts) {
        for (joined, (lowest, highest)) in pair_ranges[range.start / ROW_BLOCK..]
            .iter_mut()
            .zip(&part.ranges)
        {
            joined.0 = joined.0.min(*lowest);
            joined.1 = joined.1.max(*highest);
        }
        sums = Some(match sums {
            None => part,
            Some(mut all) => {
                spread.extend(
                    (0..pairs)
                        .filter(|&p| all.count[p] > 0 && part.count[p] > 0)
                        .map(|p| p as PairId),
                );
                add_each(&mut all.total, &part.total);
                add_each(&mut all.tops, &part.tops);
                add_each(&mut all.count, &part.count);
                all
            }
        });
    }
    spread.sort_unstable();
    spread.dedup();
    let PartSums {
        total, tops, count, ..
    } = sums.unwrap_or_else(|| PartSums {
        total: vec![0.0; pairs],
        tops: if ratio { vec![0.0; pairs] } else { Vec::new() },
        count: vec![0; pairs],
        ranges: Vec::new(),
    });
    let sums = Sums {
        total_int: None,
        unit: 1,
        total_f: total,
        tops_f: tops,
        boards: count,
        pair_ranges,
        cells: None,
    };
    (sums, spread)
}

/// Sums the values (and tops) of the pairs `spread` (ascending) again in row order, as one thread
/// does, reading only the blocks whose range of pairs holds one of them.
fn resum_in_row_order<P: Positions>(
    values: &RowValues<'_, P>,
    sums: &mut Sums<'_>,
    spread: &[PairId],
    ratio: bool,
) {
    let field = values.field;
    let pairs = field.pairs().len();
    let mut marked = vec![false; pairs];
    for &p in spread {
        marked[p as usize] = true;
    }
    // Zeroed pages are only touched where a pair of `spread` is written.
    let mut total = vec![0f64; pairs];
    let mut tops = if ratio { vec![0f64; pairs] } else { Vec::new() };
    let holds_one = |&(lowest, highest): &(PairId, PairId)| {
        let at = spread.partition_point(|&q| q < lowest);
        spread.get(at).is_some_and(|&q| q <= highest)
    };
    for (k, range) in sums.pair_ranges.iter().enumerate() {
        if !holds_one(range) {
            continue;
        }
        let block = k * ROW_BLOCK..((k + 1) * ROW_BLOCK).min(field.len());
        let mut special_at = values.special_from(block.start);
        for row in block {
            let (b, s) = (field.boards[row], field.scores[row]);
            let [nv, ev] = values.of(b, s, &mut special_at);
            for (pair, value) in [(field.ns[row], nv), (field.ew[row], ev)] {
                let pair = pair as usize;
                if marked[pair] {
                    total[pair] += value;
                    if ratio {
                        tops[pair] += values.top(b);
                    }
                }
            }
        }
    }
    for &p in spread {
        let p = p as usize;
        sums.total_f[p] = total[p];
        if ratio {
            sums.tops_f[p] = tops[p];
        }
    }
}
