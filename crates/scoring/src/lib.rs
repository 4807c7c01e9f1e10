//! # simpairs-scoring
//!
//! The pure scoring library of simpairs: given every result of a duplicate-bridge pairs field, it
//! computes each result's matchpoints (or IMPs) and each pair's total, percentage and place, exactly as
//! a national organisation's scorer would. No I/O, no async: plain functions over slices, parallel with
//! rayon.
//!
//! ## Layout
//! - [`contract`]: contracts, vulnerability and dealer of a board, the duplicate score (Law 77).
//! - [`imps`]: the IMP scale and the Butler datum.
//! - [`field`]: the results to compare, stored column-wise ([`Field`]).
//! - `board`: valuing one board (matchpoints with Neuberg or ratio factoring, artificial and split
//!   scores, arrow-switches, fouled-board groups; Butler; cross-IMPs).
//! - `engine`: the two passes over a field ([`score`]; [`score_growing`] for a field that grows a
//!   club at a time, keeping pass one's counts and each pair's results in a [`BoardCounts`]).
//! - [`standings`]: totals, percentages and places with exact ties.
//! - [`value`]: exact values and their rounding for display.
//! - [`conventions`]: the choices club programs make where the source documents leave one
//!   ([`Conventions`]: a preset such as `compscore`, with overrides), in one text form.
//!
//! ## Rules, and where they come from
//! Matchpoints are computed on the double scale (2 per result beaten, 1 per tie; seeds 002 and 004); the
//! single scale is a presentation of the same numbers halved. Artificial adjusted scores, fouled groups and
//! boards played fewer times than the most-played board are factored with Neuberg's formula
//! M = (X + 1) N / S - 1 (seed 002 slides 23-25) unless ratio factoring (seed 004) is chosen. Where the
//! seeds are silent the code says which national practice it follows.
//!
//! ## Example
//! ```
//! use simpairs_scoring::{Direction, Field, Options, Pair, PairLabel, score};
//!
//! let mut field = Field::new();
//! let (club, section) = (field.club("Lindfield"), field.section("A"));
//! let mut pair = |n: &str, d| field.pair(Pair { club, section, label: PairLabel::new(n), direction: Some(d) });
//! let (ns1, ew1, ns2, ew2) = (pair("1", Direction::NS), pair("1", Direction::EW), pair("2", Direction::NS), pair("2", Direction::EW));
//! field.push_played(1, ns1, ew1, 420);
//! field.push_played(1, ns2, ew2, -50);
//! let scoring = score(&field, &Options::default()).unwrap();
//! let (ns_mp, ew_mp) = scoring.result_values(0);
//! assert_eq!((ns_mp, ew_mp), (2.into(), 0.into()));
//! assert_eq!(scoring.standings()[ns1 as usize].rank, 1);
//! ```

pub mod contract;
pub mod conventions;
pub mod field;
pub mod imps;
pub mod standings;
pub mod value;

mod board;
mod engine;
mod radix;
mod ranks;
mod zeroed;

use serde::{Deserialize, Serialize};

pub use board::BoardScore;
pub use contract::{Contract, Doubling, LegalScores, Seat, Strain, Vulnerability};
pub use conventions::{
    Artificial, Conventions, ConventionsError, Datum, Half, Missing, Preset, Rounding, ShortLines,
};
pub use engine::{BoardCounts, Scoring, TableLine};
pub use field::{BoardRows, Field, Movement, Outcome, Pair, PairId, PairLabel, TableResult};
pub use standings::Standing;
pub use value::Value;

/// Errors of the scoring library.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Something in the input is not possible in bridge; the message says what.
    #[error("{0}")]
    Invalid(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A partnership's side of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Direction {
    NS,
    EW,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::NS => "NS",
            Direction::EW => "EW",
        }
    }
}

/// How results are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Method {
    /// Matchpoints: 2 for each result beaten, 1 for each tie.
    #[default]
    Matchpoints,
    /// IMPs against a datum, the trimmed mean of the board's scores.
    Butler,
    /// IMPs against every other result in the direction, averaged.
    CrossImps,
}

/// How a board with fewer results than the most-played board is brought to full weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Factoring {
    /// M = (X + 1) N / S - 1 (seed 002 slides 23-25).
    #[default]
    Neuberg,
    /// Matchpoints multiplied by N / S (seed 004).
    Ratio,
}

/// How the groups of a fouled board are brought to the whole board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum FouledMethod {
    /// Neuberg's formula (the default, as computer scoring does).
    #[default]
    Neuberg,
    /// The manual method: add one matchpoint per score in the other groups (seed 002 slide 18).
    AddOne,
}

/// The scale matchpoints are presented on; percentages are the same on both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Scale {
    /// 2 per result beaten, 1 per tie (seeds 002, 004).
    #[default]
    Double,
    /// 1 per result beaten, a half per tie (seeds 001, 003; the ACBL's scale).
    Single,
}

/// How to score a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub method: Method,
    pub factoring: Factoring,
    pub fouled: FouledMethod,
    pub scale: Scale,
    /// Butler: percentage of scores dropped at each end before averaging (20 by default).
    pub butler_trim_percent: u32,
    /// The conventions of a scoring program, where the source documents leave a choice (the seeds'
    /// own by default, under which nothing changes).
    pub conventions: Conventions,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            method: Method::Matchpoints,
            factoring: Factoring::Neuberg,
            fouled: FouledMethod::Neuberg,
            scale: Scale::Double,
            butler_trim_percent: 20,
            conventions: Conventions::SEEDS,
        }
    }
}

/// The engine's passes over `field` to `depth`, then the pairs ranked from their sums (when the
/// depth asks for standings).
fn scored<'f>(
    field: &'f Field,
    options: &Options,
    depth: engine::Depth,
    counts: Option<&mut BoardCounts>,
    spare: Option<&mut Spare>,
) -> Result<Scoring<'f>> {
    engine::check_options(options)?;
    let mut own = Spare::default();
    let spare = spare.unwrap_or(&mut own);
    match engine::score(field, options, depth, counts)? {
        (scoring, engine::PassTwo::Done(sums)) => standings::rank(scoring, sums, spare),
        (scoring, engine::PassTwo::FromCells { cells, values, .. }) => {
            let sums = engine::cells_pass(&scoring, cells, &values)?;
            standings::rank(scoring, sums, spare)
        }
        (scoring, engine::PassTwo::Skipped) => Ok(scoring),
    }
}

/// Scores every result of `field` as one field: each result's values and each pair's standing.
pub fn score<'f>(field: &'f Field, options: &Options) -> Result<Scoring<'f>> {
    scored(field, options, engine::Depth::Standings, None, None)
}

/// Memory of an earlier scoring, handed to the next one ([`score_reusing`]): a program that
/// scores field after field keeps the standings' and the ranking's memory instead of the system
/// handing it fresh pages each time (for 2,000,000 pairs, 190 MB that the kernel would zero page by
/// page).
///
/// The memory stays at the size of the largest field scored in it: drop the `Spare` to give it back.
#[derive(Debug, Default)]
pub struct Spare {
    pub(crate) standings: Vec<Standing>,
    pub(crate) rank: standings::RankSpare,
}

impl Spare {
    pub fn new() -> Spare {
        Spare::default()
    }

    /// Keeps `scoring`'s memory for the next scoring; `scoring` is done with.
    pub fn keep(&mut self, mut scoring: Scoring<'_>) {
        self.standings = scoring.take_standings();
        self.rank.order = std::mem::take(&mut scoring.rank_order);
    }
}

/// [`score`] in the memory of an earlier scoring (`spare`, filled by [`Spare::keep`]). Gives exactly
/// what [`score`] gives.
pub fn score_reusing<'f>(
    field: &'f Field,
    options: &Options,
    spare: &mut Spare,
) -> Result<Scoring<'f>> {
    scored(field, options, engine::Depth::Standings, None, Some(spare))
}

/// [`score`] for a field that grows between scorings (a live national field, a club at a time):
/// `counts` keeps the boards' score counts (and, for a field with fractions, each pair's results),
/// so that only the rows added since the last call are counted. Gives exactly what [`score`]
/// gives; `counts` may be new, or kept from any field (it starts again for a field other than the
/// one it counted).
pub fn score_growing<'f>(
    field: &'f Field,
    counts: &mut BoardCounts,
    options: &Options,
) -> Result<Scoring<'f>> {
    scored(field, options, engine::Depth::Standings, Some(counts), None)
}

/// [`score_growing`] with each pair's standing made when it is asked for
/// ([`standings::Ranked::standing`]) rather than all at once (the scoring's
/// [`Scoring::standings`] are empty; its rank order is there): for a service that ranks a national
/// field after every club and shows a page of it at a time.
pub fn score_growing_ranked<'f>(
    field: &'f Field,
    counts: &mut BoardCounts,
    options: &Options,
) -> Result<(Scoring<'f>, standings::Ranked)> {
    score_growing_summed(field, counts, options)?.rank()
}

/// [`score_growing_ranked`] in two steps: the field scored to each pair's sums, from which the first
/// pairs of the combined list can be listed ([`standings::Summed::top`]) before the whole field
/// is ranked ([`standings::Summed::rank`]). For a live leaderboard that shows the first pairs of a
/// national field as soon as they are known.
pub fn score_growing_summed<'f, 'c>(
    field: &'f Field,
    counts: &'c mut BoardCounts,
    options: &Options,
) -> Result<standings::Summed<'f, 'c>> {
    score_growing_valued(field, counts, options)?.sum()
}

/// [`score_growing_summed`] a step earlier: the field scored to its boards' values, pass two still
/// to come. Its first pairs are listed ([`standings::Valued::top`]) before pass two when the last
/// ranking of the field (kept in `counts`) shows which pairs can be among them; for a live
/// leaderboard, published before the national field is summed.
pub fn score_growing_valued<'f, 'c>(
    field: &'f Field,
    counts: &'c mut BoardCounts,
    options: &Options,
) -> Result<standings::Valued<'f, 'c>> {
    engine::check_options(options)?;
    let (scoring, two) = engine::score(field, options, engine::Depth::Valued, Some(counts))?;
    Ok(standings::Valued::new(scoring, two))
}

/// Scores only the boards of `field`: each result's values and each board's frequency table, with
/// no pair totals or standings ([`Scoring::standings`] is empty), for a field that grows between
/// scorings (as [`score_growing`]). A small part of [`score`]'s work on a large field: for a
/// service that publishes board scores while another ranks the pairs.
pub fn score_boards_growing<'f>(
    field: &'f Field,
    counts: &mut BoardCounts,
    options: &Options,
) -> Result<Scoring<'f>> {
    scored(field, options, engine::Depth::Boards, Some(counts), None)
}
