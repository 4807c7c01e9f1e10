//! What ranking gives a scored field: each pair's [`Standing`] and the pairs in rank order. The
//! engine keeps them in its [`crate::Scoring`] and `standings` computes them, so they live apart
//! from both.

use crate::field::PairId;

/// A pair's result in the field.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub pair: PairId,
    /// Boards the pair played (artificial scores included).
    pub boards: u32,
    /// Total matchpoints (presentation scale) or IMPs in `f64`: the exact total rounded once where
    /// every value is a whole number of a small unit, else the pair's values added in the order of
    /// the field's rows. The same on every machine, however many threads; `total_hundredths` is
    /// exact.
    pub total: f64,
    /// Sum of the tops of the boards played (presentation scale); zero for IMP scoring.
    pub max: f64,
    /// The total rounded exactly to hundredths, halves away from zero.
    pub total_hundredths: i64,
    /// Percentage of `max` rounded exactly to hundredths; `None` for IMP scoring.
    pub percent_hundredths: Option<i64>,
    /// Place: within its direction for a Mitchell pair, among all pairs for a Howell pair.
    pub rank: u32,
    /// Another pair shares `rank`.
    pub tied: bool,
    /// Place among all pairs of the field, both directions together.
    pub combined_rank: u32,
    pub combined_tied: bool,
}

impl Standing {
    /// The percentage as a number (rounded to hundredths).
    pub fn percent(&self) -> Option<f64> {
        self.percent_hundredths.map(|h| h as f64 / 100.0)
    }
}

/// The pairs in rank order, kept from ranking so that lists need no sort of their own
/// ([`crate::standings::lists`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct RankOrder {
    /// Pair ids by factored total, highest first; pairs with equal totals by id.
    pub(crate) pairs: Vec<PairId>,
    /// The combined place of each, in the same order.
    pub(crate) places: Vec<u32>,
    /// The list of each (NS, EW, Howell, as `standings` numbers them), in the same order.
    pub(crate) categories: Vec<u8>,
}
