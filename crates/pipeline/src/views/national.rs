//! Where each pair stands in the national lists, found without reading the whole field: the id of
//! a pair by its names, and each id's position in the combined list and in its direction's list.
//!
//! Pair ids only grow between rankings (a new club's pairs take the next ids), so the index is
//! extended; a correction of a club already ranked rebuilds the field, and with it every id, which
//! the index notices by checking a sample of the ids it holds and rebuilds in turn. Every lookup
//! checks the names of the id it found, so a stale entry is never taken for the pair.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use simpairs_scoring::{PairId, PairLabel};

use crate::PairKey;
use crate::project::{NationalStandings, PairNames};

/// How many ids are checked to tell that the field was built again.
const SAMPLE: usize = 64;

/// The index of one national generation.
#[derive(Debug, Default)]
pub struct NationalIndex {
    generation: i64,
    /// By hash of the pair's names; pairs whose hash another pair has too are in `collided`.
    ids: HashMap<u64, PairId>,
    collided: Vec<PairId>,
    /// Ids indexed, `0..indexed`.
    indexed: usize,
    /// Position of each id in the combined list.
    combined: Vec<u32>,
    /// Position of each id in its direction's list (`u32::MAX` for Howell pairs).
    in_direction: Vec<u32>,
}

fn key_hash(club: &str, section: &str, label: &PairLabel, direction: &str) -> u64 {
    // SipHash with fixed keys: the same names hash the same in every run.
    let mut h = std::hash::DefaultHasher::new();
    (club, section, direction).hash(&mut h);
    label.hash(&mut h);
    h.finish()
}

fn names_hash(n: &PairNames<'_>) -> u64 {
    key_hash(n.club, n.section, n.label, n.direction_key())
}

impl NationalIndex {
    /// The generation indexed.
    pub fn generation(&self) -> i64 {
        self.generation
    }

    /// Brings the index up to date with `standings` (nothing to do if it indexes them already).
    pub fn refresh(&mut self, standings: &NationalStandings) {
        if standings.generation == self.generation && self.indexed == standings.len() {
            return;
        }
        if !self.still_valid(standings) {
            *self = NationalIndex::default();
        }
        for id in self.indexed..standings.len() {
            let Some(names) = standings.pair_names(id as PairId) else {
                break;
            };
            let h = names_hash(&names);
            if let Some(other) = self.ids.insert(h, id as PairId) {
                // Two pairs with one hash: both are kept aside and found by their names.
                self.collided.push(other);
                self.collided.push(id as PairId);
            }
        }
        self.indexed = standings.len();
        self.generation = standings.generation;
        self.positions(standings);
    }

    /// Whether the ids indexed still name the same pairs.
    fn still_valid(&self, standings: &NationalStandings) -> bool {
        if self.indexed > standings.len() {
            return false;
        }
        let step = (self.indexed / SAMPLE).max(1);
        let mut ids: Vec<usize> = (0..self.indexed).step_by(step).collect();
        ids.extend(self.indexed.checked_sub(1));
        ids.into_iter().all(|id| {
            standings.pair_names(id as PairId).is_some_and(|n| {
                self.ids.get(&names_hash(&n)) == Some(&(id as PairId))
                    || self.collided.contains(&(id as PairId))
            })
        })
    }

    fn positions(&mut self, standings: &NationalStandings) {
        let n = standings.len();
        self.combined = vec![u32::MAX; n];
        self.in_direction = vec![u32::MAX; n];
        for (at, &id) in standings.list("combined").iter().enumerate() {
            self.combined[id as usize] = at as u32;
        }
        for list in ["ns", "ew"] {
            for (at, &id) in standings.list(list).iter().enumerate() {
                self.in_direction[id as usize] = at as u32;
            }
        }
    }

    /// The id of `pair` in `standings` (which must be the standings indexed, or the answer is
    /// checked and may be `None` for a pair that is there).
    pub(crate) fn id_of(&self, standings: &NationalStandings, pair: &PairKey) -> Option<PairId> {
        let label = PairLabel::new(&pair.pair);
        let h = key_hash(&pair.club, &pair.section, &label, pair.direction);
        let is = |id: &PairId| standings.pair_names(*id).is_some_and(|n| n.is(pair));
        self.ids
            .get(&h)
            .copied()
            .filter(is)
            .or_else(|| self.collided.iter().copied().find(is))
    }

    /// Where `id` is in a list: `combined`, `ns` or `ew`.
    pub fn position(&self, id: PairId, list: &str) -> Option<usize> {
        let at = match list {
            "combined" => self.combined.get(id as usize),
            _ => self.in_direction.get(id as usize),
        };
        at.copied().filter(|&p| p != u32::MAX).map(|p| p as usize)
    }
}
