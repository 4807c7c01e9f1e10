//! Results in force, put in force a submission at a time as the state does: results supersede
//! table by table, then withdrawals; pairs entered again replace their players.

use std::collections::BTreeMap;
use std::sync::Arc;

use simpairs_events::types::{AppliedResult, Player, SubmissionApplied};
use simpairs_scoring::Field;

use crate::PairKey;
use crate::results::ClubResults;
use crate::wire::direction_key;

/// The results in force and the pairs' players after some submissions applied.
#[derive(Clone, Debug, Default)]
pub struct InForce {
    clubs: BTreeMap<String, ClubResults>,
    pairs: BTreeMap<PairKey, Vec<Player>>,
    result_count: usize,
    generation: i64,
}

impl InForce {
    /// Puts an applied submission in force; returns whether its club had results in force
    /// before (a correction) rather than arriving with it.
    pub fn apply(&mut self, applied: &Arc<SubmissionApplied>) -> bool {
        let club = &applied.club_id;
        for p in &applied.pairs {
            let id = PairKey::new(
                club.clone(),
                p.section.clone(),
                p.pair.clone(),
                direction_key(p.direction),
            );
            self.pairs.insert(id, p.players.clone());
        }
        let known = self.clubs.contains_key(club);
        let results = self.clubs.entry(club.clone()).or_default();
        let before = results.len();
        results.apply(applied);
        self.result_count = self.result_count + results.len() - before;
        self.generation += 1;
        known
    }

    /// Adds the results in force of clubs not already here.
    pub(super) fn join(&mut self, other: InForce) {
        self.clubs.extend(other.clubs);
        self.pairs.extend(other.pairs);
        self.result_count += other.result_count;
        self.generation += other.generation;
    }

    /// Submissions applied.
    pub fn generation(&self) -> i64 {
        self.generation
    }

    /// The results in force, by club, then table: (club, result).
    pub fn results(&self) -> impl Iterator<Item = (&str, &AppliedResult)> + '_ {
        self.clubs
            .iter()
            .flat_map(|(club, results)| results.iter().map(move |r| (club.as_str(), r)))
    }

    /// Each club's results in force (a club whose results were all withdrawn has none).
    pub fn clubs(&self) -> &BTreeMap<String, ClubResults> {
        &self.clubs
    }

    /// Each pair's players.
    pub fn pairs(&self) -> &BTreeMap<PairKey, Vec<Player>> {
        &self.pairs
    }

    /// Each pair's players, taken: what is left of the results in force once their field is
    /// built.
    pub(super) fn into_pairs(self) -> BTreeMap<PairKey, Vec<Player>> {
        self.pairs
    }

    pub fn result_count(&self) -> usize {
        self.result_count
    }

    /// Adds `club`'s results in force, if it has any, to a field being built.
    pub(super) fn add_to(&self, club: &str, field: &mut crate::field::ClubsField) {
        if let Some(results) = self.clubs.get(club) {
            field.add(club, results);
        }
    }

    /// One club's own field, as [`crate::replay::field_of`] builds it.
    pub fn club_field(&self, club: &str) -> Option<Field> {
        let results = self.clubs.get(club)?;
        Some(crate::field::build_field(results.iter().map(|r| (club, r))))
    }

    /// The national field: the field [`crate::field::build_field`] builds from
    /// [`InForce::results`], runs of clubs built in parallel.
    pub fn field(&self) -> Field {
        Field::concat(crate::field::clubs_parts(&self.clubs))
    }
}
