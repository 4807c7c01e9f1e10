//! The event generation by generation: each submission applied in the order replay applies it,
//! the national field kept up to date (a club arriving is appended to it; a correction has it
//! joined again from every club's field), and the field scored at the generations asked for.
//!
//! The field at generation `g` holds the results `replay --as-of <offset of g>` holds, so its
//! standings are that replay's (held to it in `tests/movement.rs`).

use std::collections::BTreeMap;

use serde::Serialize;
use simpairs_pipeline::history::{Generation, InForce, Index};
use simpairs_scoring::{BoardCounts, Field, Options, Scoring};

use crate::Result;
use crate::figures::{PairKey, pair_key};

/// Which generations to score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Every {
    /// Every generation.
    Each,
    /// Every n-th generation (and the last).
    Step(u32),
    /// Every generation, or every n-th when that would give more than this many pair-rows
    /// (generations scored times pairs ranked at the end).
    Rows(usize),
}

impl Every {
    /// The step for an event of `generations` generations and `pairs` pairs at the end.
    pub fn step(self, generations: usize, pairs: usize) -> usize {
        match self {
            Every::Each => 1,
            Every::Step(n) => n.max(1) as usize,
            Every::Rows(rows) => {
                let scored = (rows / pairs.max(1)).max(1);
                generations.div_ceil(scored).max(1)
            }
        }
    }
}

/// A generation as the timeline shows it.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub generation: i64,
    pub club: String,
    pub submission: String,
    /// When the record that applied it was appended (ms since the epoch).
    pub applied_at_ms: i64,
    pub sealed_at_ms: i64,
    /// The club had results in force before: a correction, not an arrival.
    pub correction: bool,
    /// The club has no results in force once it applied: its results withdrawn.
    pub withdrawn: bool,
    /// Results in force once it applied.
    pub results: usize,
    /// Clubs with results in force.
    pub clubs: usize,
}

/// How many generations are decoded at a time (each is one club's submission).
const CHUNK: usize = 512;

/// The national field's pairs' keys by id, kept from one generation scored to the next: a pair's
/// key (its club, section and number as text) is made once, not again at every generation scored
/// (a national field has hundreds of thousands of pairs, a chart a hundred generations).
#[derive(Debug, Default)]
pub struct PairKeys {
    keys: Vec<PairKey>,
    /// How many times the field was joined again (for a correction), when its pairs' ids may
    /// change and the keys are made afresh.
    rejoined: u64,
}

impl PairKeys {
    /// Each pair's key, by its id in the field scored.
    pub fn keys(&self) -> &[PairKey] {
        &self.keys
    }

    /// Changes when the pairs' ids may have changed (the keys of the ids seen before then are no
    /// longer those pairs'); ids only added since keep theirs.
    pub fn rejoined(&self) -> u64 {
        self.rejoined
    }

    fn forget(&mut self) {
        self.keys.clear();
        self.rejoined += 1;
    }

    /// Adds the keys of the pairs `field` gained at the end.
    fn catch_up(&mut self, field: &Field) {
        let known = self.keys.len();
        self.keys
            .extend((known..field.pairs().len()).map(|id| pair_key(field, id as u32)));
    }
}

/// Walks every generation of an event's index, calling `each` with the national field scored
/// with `options` at every `every`-th generation and the last (`final_pairs`, the pairs ranked at
/// the end, sets the step of [`Every::Rows`]), and its pairs' keys. Returns every generation's
/// step, and the results in force at the end.
pub fn walk(
    index: &Index,
    options: &Options,
    every: Every,
    final_pairs: usize,
    mut each: impl FnMut(&Step, &Scoring<'_>, &InForce, &PairKeys) -> Result<()>,
) -> Result<(Vec<Step>, InForce)> {
    let total = index.generations().len();
    let step = every.step(total, final_pairs);
    let mut state = Growing::default();
    let mut steps = Vec::with_capacity(total);
    let (mut applying, mut scoring_time) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    for start in (0..total).step_by(CHUNK) {
        let t = std::time::Instant::now();
        let end = (start + CHUNK).min(total);
        let applied = index.applied(start..end)?;
        let alone = fields_alone(&applied);
        applying += t.elapsed();
        for ((i, applied), alone) in (start..end).zip(applied).zip(alone) {
            let g = &index.generations()[i];
            let t = std::time::Instant::now();
            let correction = state.apply(&applied, alone);
            let s = step_of(g, correction, &state.in_force);
            applying += t.elapsed();
            if (i + 1) % step == 0 || i + 1 == total {
                let t = std::time::Instant::now();
                let scoring =
                    simpairs_scoring::score_growing(&state.national, &mut state.counts, options)?;
                state.keys.catch_up(&state.national);
                each(&s, &scoring, &state.in_force, &state.keys)?;
                scoring_time += t.elapsed();
            }
            steps.push(s);
        }
    }
    tracing::debug!(?applying, scoring = ?scoring_time, "timeline: generations applied, and scored");
    Ok((steps, state.in_force))
}

fn step_of(g: &Generation, correction: bool, in_force: &InForce) -> Step {
    Step {
        generation: g.generation,
        club: g.club.clone(),
        submission: g.submission.clone(),
        applied_at_ms: g.applied_at_ms,
        sealed_at_ms: g.sealed_at_ms,
        correction,
        withdrawn: correction && in_force.clubs().get(&g.club).is_none_or(|c| c.is_empty()),
        results: in_force.result_count(),
        clubs: in_force.clubs().len(),
    }
}

/// The results in force and the national field built from them, kept up to date.
#[derive(Default)]
struct Growing {
    in_force: InForce,
    /// Each club's own field, and the order clubs arrived in (the national field's order).
    club_fields: BTreeMap<String, Field>,
    arrival: Vec<String>,
    national: Field,
    counts: BoardCounts,
    keys: PairKeys,
}

impl Growing {
    /// Applies a submission, given its club's field were it the club's only one ([`fields_alone`]);
    /// returns whether it corrected a club already in.
    fn apply(
        &mut self,
        applied: &std::sync::Arc<simpairs_events::types::SubmissionApplied>,
        alone: Field,
    ) -> bool {
        let club = applied.club_id.clone();
        let correction = self.in_force.apply(applied);
        if correction {
            let field = self.in_force.club_field(&club).unwrap_or_default();
            self.club_fields.insert(club, field);
            // The club's rows are somewhere inside the national field: join it again.
            let parts = self
                .arrival
                .iter()
                .filter_map(|c| self.club_fields.get(c).cloned())
                .collect();
            self.national = Field::concat(parts);
            self.keys.forget();
        } else {
            // A club arriving has in force what its submission alone puts in force.
            self.national.append(&alone);
            self.club_fields.insert(club.clone(), alone);
            self.arrival.push(club);
        }
        correction
    }
}

/// Each submission's club's field were it the club's first submission: what a club arriving with
/// it has in force. Built in parallel ahead of the walk, which applies the submissions one after
/// the other (a correction's field is built there, from what the club had in force).
fn fields_alone(
    applied: &[std::sync::Arc<simpairs_events::types::SubmissionApplied>],
) -> Vec<Field> {
    use rayon::prelude::*;
    applied
        .par_iter()
        .map(|applied| {
            let mut alone = InForce::default();
            alone.apply(applied);
            alone.club_field(&applied.club_id).unwrap_or_default()
        })
        .collect()
}
