//! Read-only accessors of the projection for the results website's views ([`crate::views`]).
//!
//! They live in a child module of [`crate::project`] so that they can read its private state
//! without the projection's own record handling changing: everything here only reads.

use std::collections::BTreeMap;

use simpairs_events::types::{AppliedResult, Fraction};
use simpairs_scoring::{Direction, PairId, PairLabel, Standing};

use super::{NationalStandings, PairKey, Projection};

/// The names of one pair of the national field, borrowed from the standings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairNames<'a> {
    pub club: &'a str,
    pub section: &'a str,
    pub label: &'a PairLabel,
    /// `Some` for a Mitchell pair, `None` for a Howell pair.
    pub direction: Option<Direction>,
}

impl PairNames<'_> {
    /// The direction as the projection's keys spell it: `NS`, `EW`, or `""` for a Howell pair.
    pub fn direction_key(&self) -> &'static str {
        crate::wire::direction_key(self.direction.map(crate::wire::direction_to_wire))
    }

    /// Whether these are the names of `pair`.
    pub fn is(&self, pair: &PairKey) -> bool {
        self.club == pair.club
            && self.section == pair.section
            && self.direction_key() == pair.direction
            && *self.label == PairLabel::new(&pair.pair)
    }

    /// The pair as the projection's other views key it.
    pub fn to_ref(&self) -> PairKey {
        PairKey::new(
            self.club,
            self.section,
            self.label.to_string(),
            self.direction_key(),
        )
    }
}

impl Projection {
    /// How many submissions of each club were applied (clubs with none are left out). A club's
    /// count grows by one with each submission (a correction included), so it tells a view which
    /// clubs changed since it last looked.
    pub(crate) fn submissions_by_club(&self) -> BTreeMap<&str, usize> {
        let mut counts = BTreeMap::new();
        for (club, _) in &self.applied {
            *counts.entry(club.as_str()).or_insert(0) += 1;
        }
        counts
    }

    /// The scoring options the event was declared with, once the declaration is read.
    pub fn scoring_options(&self) -> Option<simpairs_scoring::Options> {
        self.options
    }

    /// What a result in force earned in one scope's scores of its board (scope `""` is national):
    /// (to NS, to EW), on the double scale (or IMPs).
    pub fn result_values(
        &self,
        scope: &str,
        club: &str,
        r: &AppliedResult,
    ) -> Option<(Fraction, Fraction)> {
        self.value_of(scope, club, r)
    }

    /// How many results of a club are in force.
    pub(crate) fn club_result_count(&self, club: &str) -> usize {
        self.results.get(club).map_or(0, |r| r.len())
    }
}

impl NationalStandings {
    /// The names of the pair with id `id`, if there is one.
    pub fn pair_names(&self, id: PairId) -> Option<PairNames<'_>> {
        if id as usize >= self.len() {
            return None;
        }
        let pair = self.names.pairs.get(id as usize);
        Some(PairNames {
            club: self.names.clubs.get(pair.club as usize),
            section: self.names.sections.get(pair.section as usize),
            label: &pair.label,
            direction: pair.direction,
        })
    }

    /// The engine's standing of the pair with id `id`.
    pub fn standing(&self, id: PairId) -> Option<Standing> {
        ((id as usize) < self.len()).then(|| self.ranked.standing(id))
    }

    /// The id of a pair by its names, by looking at every pair (views keep an index instead).
    pub(crate) fn id_of(&self, pair: &PairKey) -> Option<PairId> {
        (0..self.len() as PairId).find(|&id| self.pair_names(id).is_some_and(|n| n.is(pair)))
    }
}
