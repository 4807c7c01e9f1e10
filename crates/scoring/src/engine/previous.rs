//! What the last ranking of a growing field leaves for the next one: each value a result then
//! took, and each pair's key ([`crate::standings::Valued`]).
//!
//! A new club moves every value of a board a little (each score beats or ties a few more, and
//! the board's top grows), but it adds no result to a pair already in the field. A pair's key is
//! the mean of its values, so it moves no further than the furthest any value moved. The first
//! pairs of the new ranking are then among the pairs of the last one whose keys were near enough
//! to the cut, and the new pairs; their totals are a few hundred pairs' sums, not the field's.

use super::pair_cells::{CellValues, PairCells, played_cells};
use crate::Options;
use crate::board::BoardScore;
use crate::field::Field;

/// The last ranking of a growing field, kept with its counts ([`super::BoardCounts`]).
#[derive(Clone, Debug)]
pub(crate) struct Previous {
    pub(crate) options: Options,
    /// Rows and pairs of the field then.
    rows: usize,
    pub(crate) pairs: usize,
    /// The values then, and the cells a result of the field then took (both sides).
    values: CellValues,
    played: Vec<u32>,
    /// Each pair's key then (total / boards), by pair id.
    pub(crate) keys: Vec<f64>,
    /// The highest of `keys`, highest first (a few hundred).
    pub(crate) highest: Vec<f64>,
}

/// How far the values of a field's earlier rows have moved since they were ranked: the furthest
/// any one moved, and the largest magnitude of any of them, before or after.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Moved {
    pub(crate) furthest: f64,
    pub(crate) magnitude: f64,
}

impl Previous {
    /// The ranking of `field` (scored with `options` to `values`, its boards `boards`) whose pairs
    /// had `keys`, the highest being `highest`.
    pub(crate) fn new(
        field: &Field,
        options: Options,
        boards: &[BoardScore],
        values: CellValues,
        keys: Vec<f64>,
        highest: Vec<f64>,
    ) -> Previous {
        Previous {
            options,
            rows: field.len(),
            pairs: keys.len(),
            values,
            played: played_cells(boards),
            keys,
            highest,
        }
    }

    /// How far the values of the rows ranked then have moved in `now`, the scoring of `field`;
    /// `None` if `field` is not that field grown (fewer rows or pairs, other special rows) or the
    /// pairs then are not indexed as they were (`cells`).
    pub(crate) fn moved(
        &self,
        field: &Field,
        cells: &PairCells,
        now: &CellValues,
    ) -> Option<Moved> {
        let specials = field
            .specials
            .partition_point(|&(row, _)| (row as usize) < self.rows);
        if field.len() < self.rows
            || field.pairs().len() < self.pairs
            || cells.pairs() < self.pairs
            || specials != self.values.specials.len()
        {
            return None;
        }
        let mut moved = Moved {
            furthest: 0.0,
            magnitude: 0.0,
        };
        let mut take = |before: f64, after: f64| {
            moved.furthest = moved.furthest.max((after - before).abs());
            moved.magnitude = moved.magnitude.max(before.abs()).max(after.abs());
        };
        for &cell in &self.played {
            let cell = cell as usize;
            take(self.values.by_cell[cell], *now.by_cell.get(cell)?);
        }
        for (before, after) in self.values.specials.iter().zip(&now.specials) {
            take(before[0], after[0]);
            take(before[1], after[1]);
        }
        // NaN (never expected) fails every comparison: treated as no bound.
        (moved.furthest.is_finite() && moved.magnitude.is_finite()).then_some(moved)
    }
}
