//! Pass two of a growing field from each pair's results, kept between scorings
//! ([`crate::BoardCounts`]): the projection ranks a national field again for every new club, and
//! reading each pair's few dozen cells in turn costs a fraction of walking the field's rows and
//! adding into every pair's total at random.
//!
//! A pair's cells are its results in row order, so its floating-point total is the same sum, in
//! the same order, as [`super::float_pass`] gives.

use rayon::prelude::*;

use super::float_pass::RowValues;
use super::{
    BridgeGrid, DIRECT_BOARDS, GRID_LEN, Positions, ROW_BLOCK, Scoring, Sums, block_range,
};
use crate::board::BoardScore;
use crate::field::{Field, PairId, SPECIAL_SCORE};

/// A cell of a special row: the row, with this bit set.
const SPECIAL: u32 = 1 << 31;
/// Bits of a cell's score position (the bridge grid has `GRID_LEN` positions).
const POSITION_BITS: u32 = 11;
const _: () = assert!(GRID_LEN < 1 << POSITION_BITS);
const _: () = assert!((DIRECT_BOARDS as u64) << (POSITION_BITS + 1) < SPECIAL as u64);

/// Each pair's results as cells, pairs in id order and each pair's cells in row order. A plain
/// result's cell is (board number, score position on the bridge grid, side); a special row's is
/// (row, side) with [`SPECIAL`] set.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairCells {
    /// Rows of the field indexed.
    rows: usize,
    /// Where each pair's cells start in `cells`, and where the last pair's end.
    starts: Vec<u32>,
    cells: Vec<u32>,
    /// The lowest and highest pair of each [`ROW_BLOCK`] rows ([`Sums::pair_ranges`]).
    ranges: Vec<(PairId, PairId)>,
    /// Whether the last [`PairCells::catch_up`] indexed every row again, so that pairs indexed
    /// before may have more cells now.
    pub(crate) started_over: bool,
}

impl PairCells {
    /// Indexes the rows of `field` not indexed yet (every row, when a new row is a result of a
    /// pair indexed before: its cells would belong in the middle). `false` if the field has too
    /// many rows for a cell (a billion) or a board beyond the direct ones: then pass two reads
    /// the rows. Every plain score must be on the bridge grid.
    pub(crate) fn catch_up(&mut self, field: &Field) -> bool {
        if field.len() >= 1 << 30 || usize::from(field.max_board) >= DIRECT_BOARDS {
            return false;
        }
        let pairs_before = self.starts.len().saturating_sub(1);
        let rows = self.rows..field.len();
        let old_pair = |&p: &PairId| (p as usize) < pairs_before;
        let start_over = self.rows > field.len()
            || field.pairs().len() < pairs_before
            || field.ns[rows.clone()].iter().any(old_pair)
            || field.ew[rows.clone()].iter().any(old_pair);
        if start_over {
            tracing::trace!(rows = self.rows, "pass two: pairs' results indexed again");
            *self = PairCells::default();
        }
        self.started_over = start_over;
        self.index_new_pairs(field);
        self.ranges.truncate(self.rows / ROW_BLOCK);
        self.ranges.extend(
            (self.rows / ROW_BLOCK * ROW_BLOCK..field.len())
                .step_by(ROW_BLOCK)
                .map(|start| {
                    let rows = start..(start + ROW_BLOCK).min(field.len());
                    block_range(&field.ns[rows.clone()], &field.ew[rows])
                }),
        );
        self.rows = field.len();
        true
    }

    /// Appends the cells of the pairs not indexed yet, whose results are all in the rows not
    /// indexed yet, by a counting sort of those rows by pair.
    fn index_new_pairs(&mut self, field: &Field) {
        let first = self.starts.len().saturating_sub(1);
        let pairs = field.pairs().len();
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        let base = *self.starts.last().unwrap_or(&0);
        let mut next: Vec<u32> = vec![0; pairs - first];
        let rows = self.rows..field.len();
        for &p in field.ns[rows.clone()].iter().chain(&field.ew[rows.clone()]) {
            next[p as usize - first] += 1;
        }
        let mut at = base;
        for n in &mut next {
            let count = *n;
            *n = at;
            at += count;
            self.starts.push(at);
        }
        self.cells.resize(at as usize, 0);
        for row in rows {
            let (board, score) = (field.boards[row], field.scores[row]);
            let cell = if score == SPECIAL_SCORE {
                SPECIAL | (row as u32) << 1
            } else {
                plain_cell(board, BridgeGrid.position(score.into()))
            };
            for (side, pair) in [(0, field.ns[row]), (1, field.ew[row])] {
                let slot = &mut next[pair as usize - first];
                self.cells[*slot as usize] = cell | side;
                *slot += 1;
            }
        }
    }

    /// How many pairs are indexed.
    pub(crate) fn pairs(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Pass two: each pair's total (its values added in row order), sum of tops (ratio factoring)
    /// and boards played. `scoring` is of the field indexed, `by_cell` its values ([`cell_values`]).
    pub(crate) fn sums(&self, scoring: &Scoring<'_>, by_cell: &[f64]) -> Sums<'_> {
        let values = row_values(scoring);
        let pairs = self.pairs();
        let total_f = self.totals(&values, by_cell);
        let played: Vec<u32> = (0..pairs)
            .into_par_iter()
            .map(|p| self.starts[p + 1] - self.starts[p])
            .collect();
        let tops_f = if scoring.ratio() {
            (0..pairs)
                .into_par_iter()
                .map(|p| self.tops_of(&values, p))
                .collect()
        } else {
            Vec::new()
        };
        Sums {
            total_int: None,
            unit: 1,
            total_f,
            tops_f,
            boards: played,
            pair_ranges: self.ranges.clone(),
            cells: Some(self),
        }
    }

    /// Pass two for the pairs `chosen` only, as [`PairCells::sums`] gives them (to the last bit);
    /// the other pairs' sums are left zero.
    pub(crate) fn sums_of(
        &self,
        scoring: &Scoring<'_>,
        by_cell: &[f64],
        chosen: &[PairId],
    ) -> Sums<'_> {
        let values = row_values(scoring);
        let ratio = scoring.ratio();
        let pairs = self.pairs();
        // Zeroed pages, touched only where a chosen pair is written.
        let (mut total_f, mut played) = (vec![0f64; pairs], vec![0u32; pairs]);
        let mut tops_f = if ratio { vec![0f64; pairs] } else { Vec::new() };
        for &p in chosen {
            let p = p as usize;
            total_f[p] = (self.of_pair(p).iter())
                .fold(0f64, |sum, &cell| sum + value_of(&values, by_cell, cell));
            played[p] = self.starts[p + 1] - self.starts[p];
            if ratio {
                tops_f[p] = self.tops_of(&values, p);
            }
        }
        Sums {
            total_int: None,
            unit: 1,
            total_f,
            tops_f,
            boards: played,
            pair_ranges: Vec::new(),
            cells: Some(self),
        }
    }

    /// The sum of the tops of pair `p`'s boards, in its cells' order.
    fn tops_of(&self, values: &RowValues<'_, BridgeGrid>, p: usize) -> f64 {
        (self.of_pair(p).iter()).fold(0f64, |sum, &cell| {
            sum + values.top(cell_value(values, cell).1)
        })
    }

    /// The cells of pair `p`.
    pub(super) fn of_pair(&self, p: usize) -> &[u32] {
        &self.cells[self.starts[p] as usize..self.starts[p + 1] as usize]
    }

    /// Each pair's total: its values added in its cells' order, [`LANES`] pairs side by side. A
    /// pair's sum is a chain of additions, each waiting for the one before; one pair at a time,
    /// the processor ran one chain and guessed wrong where each pair ended. Each sum is still its
    /// own pair's values in order, so the totals are the same to the last bit.
    fn totals(&self, values: &RowValues<'_, BridgeGrid>, by_cell: &[f64]) -> Vec<f64> {
        let pairs = self.starts.len() - 1;
        let mut totals = vec![0f64; pairs];
        totals
            .par_chunks_mut(LANES)
            .with_min_len(1 << 10)
            .enumerate()
            .for_each(|(k, out)| {
                let cells: [&[u32]; LANES] = std::array::from_fn(|i| {
                    let p = k * LANES + i;
                    if p < pairs { self.of_pair(p) } else { &[] }
                });
                let longest = cells.iter().map(|c| c.len()).max().unwrap_or(0);
                let mut sums = [0f64; LANES];
                for j in 0..longest {
                    for (sum, cells) in sums.iter_mut().zip(&cells) {
                        if let Some(&cell) = cells.get(j) {
                            *sum += value_of(values, by_cell, cell);
                        }
                    }
                }
                out.copy_from_slice(&sums[..out.len()]);
            });
        totals
    }
}

/// The value of `cell` to its side: from `by_cell` for a plain cell, else looked up.
#[inline(always)]
fn value_of(values: &RowValues<'_, BridgeGrid>, by_cell: &[f64], cell: u32) -> f64 {
    match by_cell.get(cell as usize) {
        Some(&value) if cell & SPECIAL == 0 => value,
        _ => cell_value(values, cell).0,
    }
}

/// One scoring's values of a growing field, as pass two reads them ([`cell_values`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct CellValues {
    /// Each plain cell's value to its side, at the cell's own number.
    pub(crate) by_cell: Vec<f64>,
    /// The values of each special row of the field, in the field's order of them.
    pub(crate) specials: Vec<[f64; 2]>,
}

/// The values of `scoring` on the bridge grid, row by row.
fn row_values<'s>(scoring: &'s Scoring<'_>) -> RowValues<'s, BridgeGrid> {
    let (boards, board_index) = (&scoring.boards, &scoring.board_index);
    let width = scoring.positions.len();
    RowValues::new(scoring.field, boards, board_index, &BridgeGrid, width)
}

/// The number of the North-South cell of a plain score at `position` of `board`; its East-West
/// cell is the next.
fn plain_cell(board: u16, position: usize) -> u32 {
    (u32::from(board) << POSITION_BITS | position as u32) << 1
}

/// The values of `scoring` as pass two reads them: each plain cell's, and each special row's.
pub(crate) fn cell_values(scoring: &Scoring<'_>) -> CellValues {
    let (field, values) = (scoring.field, row_values(scoring));
    CellValues {
        by_cell: values_by_cell(&values, &scoring.boards, field.max_board),
        specials: (field.specials.iter())
            .map(|&(row, _)| values.special(row))
            .collect(),
    }
}

/// The numbers of the plain cells whose scores were played on `boards`, both sides.
pub(crate) fn played_cells(boards: &[BoardScore]) -> Vec<u32> {
    (boards.iter())
        .flat_map(|b| {
            (b.plain.iter()).map(|&(score, _)| plain_cell(b.board, BridgeGrid.position(score)))
        })
        .flat_map(|at| [at, at | 1])
        .collect()
}

/// Each plain cell's value to its side, at the cell's own number (board, position and side): one
/// load a cell in pass two's loop, instead of finding the board's place in the value table first.
/// Only the cells of scores played are written; the rest is zeroed and never read.
fn values_by_cell(
    values: &RowValues<'_, BridgeGrid>,
    boards: &[BoardScore],
    max_board: u16,
) -> Vec<f64> {
    let mut by_cell = vec![0f64; (usize::from(max_board) + 1) << (POSITION_BITS + 1)];
    for b in boards {
        for &(score, _) in &b.plain {
            let position = BridgeGrid.position(score);
            let at = plain_cell(b.board, position) as usize;
            let [ns, ew] = values.at(b.board, position);
            by_cell[at] = ns;
            by_cell[at | 1] = ew;
        }
    }
    by_cell
}

/// Where a cell's value is: a plain score's board number and position on the grid, or a special
/// row; with its side (0 North-South, 1 East-West).
pub(super) enum CellAt {
    Plain { board: usize, position: usize },
    Special { row: usize },
}

/// Where `cell`'s value is, and its side.
#[inline(always)]
pub(super) fn cell_at(cell: u32) -> (CellAt, usize) {
    let side = (cell & 1) as usize;
    let at = if cell & SPECIAL == 0 {
        CellAt::Plain {
            board: (cell >> (POSITION_BITS + 1)) as usize,
            position: (cell >> 1) as usize & ((1 << POSITION_BITS) - 1),
        }
    } else {
        CellAt::Special {
            row: ((cell & !SPECIAL) >> 1) as usize,
        }
    };
    (at, side)
}

/// Pairs whose totals [`PairCells::totals`] adds side by side.
const LANES: usize = 4;

/// The value of `cell` to its side, and its board's number. A function rather than a closure of
/// [`PairCells::sums`]: called from two loops, the closure was not inlined, and a call for every
/// cell doubled pass two's time.
#[inline(always)]
fn cell_value(values: &RowValues<'_, BridgeGrid>, cell: u32) -> (f64, u16) {
    match cell_at(cell) {
        (CellAt::Plain { board, position }, side) => {
            (values.at(board as u16, position)[side], board as u16)
        }
        (CellAt::Special { row }, side) => (
            values.special(row as u32)[side],
            values.board_of(row as u32),
        ),
    }
}
