//! How the field moved: each pair's place and percentage after each generation (a club arriving,
//! or a correction), as a structure the website serves as JSON and draws.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;
use simpairs_log::Log;
use simpairs_pipeline::history::replay_at;

use crate::Result;
use crate::figures::{Figures, PairKey, names, of_scoring, pair_key};
use crate::timeline::{Every, PairKeys, Step, walk};
use crate::variant::{Variant, describe};

/// Which pairs to follow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pairs {
    All,
    /// The pairs with the best combined places at the end.
    Top(usize),
    Only(Vec<PairKey>),
    /// The best `n` combined places at the end, and these pairs too (a reader's own pair, on
    /// the website's chart): one walk through the event for both.
    TopAnd(usize, Vec<PairKey>),
}

/// What to compute.
#[derive(Clone, Debug)]
pub struct HistoryOptions {
    /// The scoring (the declared one unless changed).
    pub variant: Variant,
    /// Which generations.
    pub every: Every,
    pub pairs: Pairs,
}

impl Default for HistoryOptions {
    fn default() -> Self {
        HistoryOptions {
            variant: Variant::default(),
            every: Every::Each,
            pairs: Pairs::All,
        }
    }
}

/// A pair's figures after one generation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    pub generation: i64,
    pub place: u32,
    pub tied: bool,
    pub combined_place: u32,
    pub percent: Option<f64>,
    pub total: f64,
}

/// One pair's path through the event.
#[derive(Clone, Debug, Serialize)]
pub struct PairPath {
    pub club: String,
    pub section: String,
    pub pair: String,
    pub direction: String,
    pub players: Vec<String>,
    /// From the first generation that ranked it, at each generation scored.
    pub points: Vec<Point>,
}

/// The standings' history of an event.
#[derive(Clone, Debug, Serialize)]
pub struct FieldHistory {
    pub event: String,
    pub name: String,
    /// The scoring, in words.
    pub options: String,
    /// Every generation, in the order they applied.
    pub generations: Vec<Step>,
    /// The generations scored.
    pub scored: Vec<i64>,
    pub pairs: Vec<PairPath>,
}

/// The ids of the pairs followed in the field being walked, kept from one generation scored to
/// the next: only the pairs new since are looked for among those wanted.
#[derive(Default)]
struct Followed {
    ids: Vec<usize>,
    /// Pairs looked at, and the [`PairKeys::rejoined`] their ids belong to.
    seen: usize,
    rejoined: u64,
}

impl Followed {
    fn catch_up(&mut self, keys: &PairKeys, wanted: Option<&BTreeSet<PairKey>>) {
        if keys.rejoined() != self.rejoined {
            *self = Followed {
                rejoined: keys.rejoined(),
                ..Followed::default()
            };
        }
        let new = keys.keys().iter().enumerate().skip(self.seen);
        self.ids.extend(
            new.filter(|(_, key)| wanted.is_none_or(|w| w.contains(*key)))
                .map(|(id, _)| id),
        );
        self.seen = keys.keys().len();
    }
}

/// Each followed pair's place and percentage after each generation scored.
pub fn field_history(
    log: &dyn Log,
    event: &str,
    index_dir: Option<&Path>,
    options: &HistoryOptions,
) -> Result<FieldHistory> {
    let started = std::time::Instant::now();
    // One index for the end and the walk: an index just built or read on holds its submissions
    // decoded, where one opened again would decode them again from its file.
    let indexed = crate::source::whole(log, event, index_dir)?;
    let end = match indexed.index.moment(log, None)? {
        Some(end) => end,
        None => replay_at(log, event, index_dir, None)?,
    };
    let scoring_options = options
        .variant
        .options(simpairs_pipeline::wire::options_from_wire(&end.declared)?);
    let final_field = end.field(None)?;
    let wanted: Option<BTreeSet<PairKey>> = match &options.pairs {
        Pairs::All => None,
        Pairs::Only(keys) => Some(keys.iter().cloned().collect()),
        Pairs::Top(n) | Pairs::TopAnd(n, _) => {
            let scoring = simpairs_scoring::score(&final_field, &scoring_options)?;
            let mut ranked: Vec<(u32, PairKey)> = of_scoring(&scoring)
                .into_iter()
                .enumerate()
                .map(|(id, f)| (f.combined_place, pair_key(&final_field, id as u32)))
                .collect();
            ranked.sort();
            let mut wanted: BTreeSet<PairKey> =
                ranked.into_iter().take(*n).map(|(_, k)| k).collect();
            if let Pairs::TopAnd(_, also) = &options.pairs {
                wanted.extend(also.iter().cloned());
            }
            Some(wanted)
        }
    };
    tracing::debug!(elapsed = ?started.elapsed(), "movement: the pairs followed chosen");
    let mut paths: BTreeMap<PairKey, Vec<Point>> = BTreeMap::new();
    let mut scored = Vec::new();
    let pairs_at_end = final_field.pairs().len();
    let mut followed = Followed::default();
    let (generations, in_force) = walk(
        &indexed.index,
        &scoring_options,
        options.every,
        pairs_at_end,
        |step, scoring, _, keys| {
            scored.push(step.generation);
            followed.catch_up(keys, wanted.as_ref());
            let standings = scoring.standings();
            for &id in &followed.ids {
                let f = Figures::of(&standings[id]);
                let point = Point {
                    generation: step.generation,
                    place: f.place,
                    tied: f.tied,
                    combined_place: f.combined_place,
                    percent: f.percent,
                    total: f.total,
                };
                let key = &keys.keys()[id];
                match paths.get_mut(key) {
                    Some(points) => points.push(point),
                    None => {
                        paths.insert(key.clone(), vec![point]);
                    }
                }
            }
            Ok(())
        },
    )?;
    tracing::debug!(elapsed = ?started.elapsed(), scored = scored.len(), "movement: generations walked");
    // The players as the walk left them in force: the end's, without reading the index again.
    let players = in_force.pairs();
    let pairs = paths
        .into_iter()
        .map(|(key, points)| PairPath {
            players: names(players.get(&key)),
            club: key.club,
            section: key.section,
            pair: key.pair,
            direction: key.direction.to_string(),
            points,
        })
        .collect();
    Ok(FieldHistory {
        event: event.to_string(),
        name: end.declared.name.clone(),
        options: describe(&scoring_options),
        generations,
        scored,
        pairs,
    })
}
