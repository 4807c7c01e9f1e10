//! A pair's figures in a scored field (place, percentage, total), keyed by the pair's names, so
//! that two scorings of different fields (another moment, another club's field) can be set side
//! by side.

use std::collections::BTreeMap;

use serde::Serialize;
use simpairs_scoring::value::to_f64;
use simpairs_scoring::{Field, Options, Scoring};

use crate::Result;

pub use simpairs_pipeline::PairKey;

/// A pair's place and score in one scoring, as `score` and `replay` print them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figures {
    /// Place within its direction (Mitchell) or among all pairs (Howell).
    pub place: u32,
    /// Another pair shares the place.
    pub tied: bool,
    /// Place among every pair of the field.
    pub combined_place: u32,
    pub combined_tied: bool,
    pub boards: u32,
    /// Matchpoints on the presentation scale, or IMPs.
    pub total: f64,
    /// The total, rounded exactly to hundredths (halves away from zero).
    pub total_hundredths: i64,
    /// Percentage rounded exactly to hundredths; `None` for IMP scoring.
    pub percent: Option<f64>,
    pub percent_hundredths: Option<i64>,
}

/// The pair's key in a field.
pub fn pair_key(field: &Field, id: simpairs_scoring::PairId) -> PairKey {
    let p = &field.pairs()[id as usize];
    PairKey::new(
        field.club_name(p.club),
        field.section_name(p.section),
        p.label.to_string(),
        p.direction.map_or("", |d| d.as_str()),
    )
}

/// Every pair's figures in a scoring, by pair id.
pub(crate) fn of_scoring(scoring: &Scoring<'_>) -> Vec<Figures> {
    scoring.standings().iter().map(Figures::of).collect()
}

impl Figures {
    /// A pair's figures from its standing.
    pub(crate) fn of(s: &simpairs_scoring::Standing) -> Figures {
        Figures {
            place: s.rank,
            tied: s.tied,
            combined_place: s.combined_rank,
            combined_tied: s.combined_tied,
            boards: s.boards,
            total: s.total,
            total_hundredths: s.total_hundredths,
            percent: s.percent(),
            percent_hundredths: s.percent_hundredths,
        }
    }
}

/// Scores a field and keys every pair's figures by its names.
pub fn standings(field: &Field, options: &Options) -> Result<BTreeMap<PairKey, Figures>> {
    let scoring = simpairs_scoring::score(field, options)?;
    Ok(of_scoring(&scoring)
        .into_iter()
        .enumerate()
        .map(|(id, f)| (pair_key(field, id as simpairs_scoring::PairId), f))
        .collect())
}

/// A value as the JSON reports print it (the nearest `f64`).
pub fn number(v: simpairs_scoring::Value) -> f64 {
    to_f64(v)
}

/// The players of a pair, by name.
pub fn names(players: Option<&Vec<simpairs_events::types::Player>>) -> Vec<String> {
    players
        .map(|ps| ps.iter().map(|p| p.name.clone()).collect())
        .unwrap_or_default()
}
