//! What-if, side by side: the same event scored two ways (another factoring, scoring method,
//! scale, fouled-board method, Butler trim) or at two moments, and the pairs whose place or
//! percentage changed, with both figures, largest change first.
//!
//! "Largest" is the move in the rankings first, then the percentage (the total for IMP scoring);
//! pairs ranked on one side only (a club not yet arrived at the other moment) come last. A
//! pair's own place is in its own list (its direction in a Mitchell, every pair in a Howell), and
//! the lists differ in length (a Howell pair's among 430 pairs, a Mitchell pair's among 186), as
//! the field does between two moments: so moves are compared on one list of the same kind for
//! every pair, the combined list of every pair of the field, as a percentile
//! ([`Change::percentile_gained`]: 100 first, 0 last). A pair whose place number grew only
//! because the field did has not moved down by it. Both sides are scored by the engine `replay`
//! uses, on the field `replay` builds, so each side's figures are those `replay --as-of ...
//! --json` prints for it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use simpairs_log::Log;
use simpairs_pipeline::history::{Moment, replay_at, replay_each};

use crate::Result;
use crate::figures::{Figures, PairKey, names, standings};
use crate::variant::{Side, describe};

/// One side as it was scored.
#[derive(Clone, Debug, Serialize)]
pub struct SideSummary {
    /// The options in words (`scoring=mp,factoring=ratio,...`).
    pub options: String,
    /// The moment, in words; `None` for the whole log.
    pub as_of: Option<String>,
    /// Submissions applied at that moment.
    pub generation: i64,
    pub pairs: usize,
}

/// A pair whose figures differ between the sides.
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    pub club: String,
    pub section: String,
    pub pair: String,
    pub direction: String,
    pub players: Vec<String>,
    pub a: Option<Figures>,
    pub b: Option<Figures>,
    /// Places moved from A to B (positive: down the list, a larger place number); see
    /// [`Change::places_gained`] for the move the other way round (positive: up).
    pub place_change: Option<i64>,
    /// B's percentage less A's, in hundredths of a percent (exact, from the rounded figures).
    pub percent_change_hundredths: Option<i64>,
    /// B's total less A's, in hundredths.
    pub total_change_hundredths: Option<i64>,
}

/// Two scorings of an event side by side.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub event: String,
    pub a: SideSummary,
    pub b: SideSummary,
    /// Pairs whose place or percentage (total for IMPs) differ, largest change first.
    pub changed: Vec<Change>,
    /// Pairs with the same place and percentage on both sides.
    pub unchanged: usize,
}

/// How the pairs of two sides compare: ranked on both (changed or not), or on one only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Pairs ranked on both sides.
    pub in_both: usize,
    /// Of those, the pairs whose place or percentage (total for IMPs) differ.
    pub changed: usize,
    /// Of those, the pairs with the same place and percentage.
    pub unchanged: usize,
    /// Pairs ranked in A only (a club withdrawn by B's moment).
    pub only_in_a: usize,
    /// Pairs ranked in B only (a club not yet arrived at A's moment).
    pub new_in_b: usize,
}

impl Comparison {
    /// The pairs counted by where they are ranked. Counts the list as it is: take them before
    /// shortening `changed`.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts {
            unchanged: self.unchanged,
            ..Counts::default()
        };
        for c in &self.changed {
            match (&c.a, &c.b) {
                (Some(_), Some(_)) => counts.changed += 1,
                (Some(_), None) => counts.only_in_a += 1,
                _ => counts.new_in_b += 1,
            }
        }
        counts.in_both = counts.changed + counts.unchanged;
        counts
    }

    /// A changed pair's move in percentile points of the combined list of every pair
    /// ([`Change::percentile_gained`]), with each side's field.
    pub fn percentile_gained(&self, c: &Change) -> Option<f64> {
        c.percentile_gained(self.a.pairs, self.b.pairs)
    }
}

/// Where a pair stands in the combined list of every pair of a field of `pairs` pairs, as a
/// percentile: 100 first, 0 last (100 for the only pair).
pub fn percentile(combined_place: u32, pairs: usize) -> f64 {
    if pairs <= 1 {
        return 100.0;
    }
    let behind = pairs.saturating_sub(combined_place as usize) as f64;
    behind / (pairs - 1) as f64 * 100.0
}

impl Change {
    /// Places moved up the pair's own list from A to B (positive: a better place, a smaller
    /// place number; negative: down the list).
    pub fn places_gained(&self) -> Option<i64> {
        self.place_change.map(|d| -d)
    }

    /// Percentile points moved up the combined list of every pair from A to B (fields of
    /// `a_pairs` and `b_pairs` pairs), rounded to hundredths: positive up, negative down. Every
    /// pair's is measured on the same list, whatever its movement, and as a share of the field,
    /// whatever its size.
    pub fn percentile_gained(&self, a_pairs: usize, b_pairs: usize) -> Option<f64> {
        let (a, b) = (self.a.as_ref()?, self.b.as_ref()?);
        let moved = percentile(b.combined_place, b_pairs) - percentile(a.combined_place, a_pairs);
        Some((moved * 100.0).round() / 100.0)
    }
}

/// Scores `event` as each side says and sets the standings side by side. `index_dir` is the
/// replay index's directory (see [`simpairs_pipeline::history::replay_at`]).
pub fn compare(
    log: &dyn Log,
    event: &str,
    index_dir: Option<&Path>,
    a: &Side,
    b: &Side,
) -> Result<Comparison> {
    let (moment_a, moment_b) = if b.as_of == a.as_of {
        (replay_at(log, event, index_dir, a.as_of)?, None)
    } else {
        // Both from one index: read on once, not decoded again from its file for the second.
        let [moment_a, moment_b] = replay_each(log, event, index_dir, [a.as_of, b.as_of])?;
        (moment_a?, Some(moment_b?))
    };
    let (summary_a, figures_a) = side(&moment_a, a)?;
    let (summary_b, figures_b) = side(moment_b.as_ref().unwrap_or(&moment_a), b)?;
    let (mut changed, unchanged) = differences(&figures_a, &figures_b);
    // Names from the later moment (it knows every pair the earlier one does, unless withdrawn).
    let results = moment_b.as_ref().unwrap_or(&moment_a).results()?;
    let earlier = if moment_b.is_some() {
        Some(moment_a.results()?)
    } else {
        None
    };
    for c in &mut changed {
        let key = PairKey::new(
            c.club.clone(),
            c.section.clone(),
            c.pair.clone(),
            PairKey::direction_key(&c.direction),
        );
        c.players = names(
            results
                .pairs()
                .get(&key)
                .or_else(|| earlier.as_ref().and_then(|e| e.pairs().get(&key))),
        );
    }
    Ok(Comparison {
        event: event.to_string(),
        a: summary_a,
        b: summary_b,
        changed,
        unchanged,
    })
}

/// One side's standings at its moment.
fn side(moment: &Moment, side: &Side) -> Result<(SideSummary, BTreeMap<PairKey, Figures>)> {
    let options = side
        .variant
        .options(simpairs_pipeline::wire::options_from_wire(
            &moment.declared,
        )?);
    let figures = standings(&moment.field(None)?, &options)?;
    let summary = SideSummary {
        options: describe(&options),
        as_of: side.as_of.map(|a| a.to_string()),
        generation: moment.generation(),
        pairs: figures.len(),
    };
    Ok((summary, figures))
}

/// The pairs whose figures differ, largest change first, and how many did not change.
pub fn differences(
    a: &BTreeMap<PairKey, Figures>,
    b: &BTreeMap<PairKey, Figures>,
) -> (Vec<Change>, usize) {
    let keys: std::collections::BTreeSet<&PairKey> = a.keys().chain(b.keys()).collect();
    let mut unchanged = 0;
    let mut changed = Vec::new();
    for key in keys {
        let (fa, fb) = (a.get(key), b.get(key));
        if let (Some(x), Some(y)) = (fa, fb)
            && x.place == y.place
            && x.tied == y.tied
            && x.percent_hundredths == y.percent_hundredths
            && (x.percent_hundredths.is_some() || x.total_hundredths == y.total_hundredths)
        {
            unchanged += 1;
            continue;
        }
        let both = fa.zip(fb);
        changed.push(Change {
            club: key.club.clone(),
            section: key.section.clone(),
            pair: key.pair.clone(),
            direction: key.direction.to_string(),
            players: Vec::new(),
            a: fa.cloned(),
            b: fb.cloned(),
            place_change: both.map(|(x, y)| i64::from(y.place) - i64::from(x.place)),
            percent_change_hundredths: both
                .and_then(|(x, y)| Some(y.percent_hundredths? - x.percent_hundredths?)),
            total_change_hundredths: both.map(|(x, y)| y.total_hundredths - x.total_hundredths),
        });
    }
    let pairs = (a.len(), b.len());
    changed.sort_by(|x, y| {
        size(y, pairs)
            .cmp(&size(x, pairs))
            .then_with(|| order(x).cmp(&order(y)))
    });
    (changed, unchanged)
}

/// How large a change is: on both sides first, then the move in the combined list (in
/// hundredths of a percentile point), then the percentage (or the total) moved.
fn size(c: &Change, (a_pairs, b_pairs): (usize, usize)) -> (bool, i64, i64) {
    let both = c.a.is_some() && c.b.is_some();
    let places = c
        .percentile_gained(a_pairs, b_pairs)
        .map_or(0, |p| (p * 100.0).round().abs() as i64);
    let score = c
        .percent_change_hundredths
        .or(c.total_change_hundredths)
        .map_or(0, i64::abs);
    (both, places, score)
}

fn order(c: &Change) -> (&str, &str, &str, &str) {
    (&c.club, &c.section, &c.pair, &c.direction)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(place: u32, pct: i64) -> Figures {
        Figures {
            place,
            tied: false,
            combined_place: place,
            combined_tied: false,
            boards: 10,
            total: pct as f64,
            total_hundredths: pct,
            percent: Some(pct as f64 / 100.0),
            percent_hundredths: Some(pct),
        }
    }

    fn key(n: &str) -> PairKey {
        PairKey::new("C", "", n, "NS")
    }

    #[test]
    fn changes_are_listed_largest_first_and_unchanged_pairs_counted() {
        let a = BTreeMap::from([
            (key("1"), fig(1, 6000)),
            (key("2"), fig(2, 5500)),
            (key("3"), fig(3, 5000)),
            (key("4"), fig(4, 4000)),
        ]);
        let b = BTreeMap::from([
            (key("1"), fig(2, 5400)),
            (key("2"), fig(1, 5600)),
            (key("3"), fig(3, 5010)),
            (key("5"), fig(4, 3000)),
        ]);
        let (changed, unchanged) = differences(&a, &b);
        assert_eq!(unchanged, 0);
        let order: Vec<(&str, Option<i64>, Option<i64>)> = changed
            .iter()
            .map(|c| (c.pair.as_str(), c.place_change, c.percent_change_hundredths))
            .collect();
        // Pair 1 moved a place and 6.00%, pair 2 a place and 1.00%, pair 3 no place and 0.10%,
        // then the pairs on one side only.
        assert_eq!(
            order,
            vec![
                ("1", Some(1), Some(-600)),
                ("2", Some(-1), Some(100)),
                ("3", Some(0), Some(10)),
                ("4", None, None),
                ("5", None, None)
            ]
        );
        let (none, same) = differences(&a, &a);
        assert!(none.is_empty());
        assert_eq!(same, 4);
    }

    /// A field that grew between two moments: a pair last in A and last in B has moved no
    /// distance up or down, however many places its number grew by, and a pair that fell from
    /// second of four to fifth of ten moved further; moves read positive up the list.
    #[test]
    fn moves_are_measured_on_the_combined_list_as_a_share_of_the_field() {
        let a = BTreeMap::from([
            (key("1"), fig(1, 6000)),
            (key("2"), fig(2, 5500)),
            (key("3"), fig(3, 5000)),
            (key("4"), fig(4, 4000)),
        ]);
        let mut b: BTreeMap<PairKey, Figures> = (5..=10)
            .map(|n| (key(&n.to_string()), fig(n as u32 - 4, 7000 - n)))
            .collect();
        b.insert(key("1"), fig(7, 5001));
        b.insert(key("2"), fig(8, 5500));
        b.insert(key("3"), fig(9, 5000));
        b.insert(key("4"), fig(10, 3000));
        let (changed, unchanged) = differences(&a, &b);
        assert_eq!(unchanged, 0);
        let shown: Vec<(&str, Option<i64>, Option<f64>)> = changed
            .iter()
            .filter(|c| c.a.is_some())
            .map(|c| {
                (
                    c.pair.as_str(),
                    c.places_gained(),
                    c.percentile_gained(4, 10),
                )
            })
            .collect();
        // Pair 1 fell from first to seventh (100 to 33.33), pair 2 from second to eighth
        // (66.67 to 22.22), pair 3 from third to ninth (33.33 to 11.11); pair 4, last of both,
        // did not move, though its place number grew as much and its percentage fell most.
        assert_eq!(
            shown,
            vec![
                ("1", Some(-6), Some(-66.67)),
                ("2", Some(-6), Some(-44.44)),
                ("3", Some(-6), Some(-22.22)),
                ("4", Some(-6), Some(0.0)),
            ]
        );
        let comparison = Comparison {
            event: "e".into(),
            a: SideSummary {
                options: String::new(),
                as_of: None,
                generation: 1,
                pairs: a.len(),
            },
            b: SideSummary {
                options: String::new(),
                as_of: None,
                generation: 2,
                pairs: b.len(),
            },
            changed,
            unchanged,
        };
        assert_eq!(
            comparison.counts(),
            Counts {
                in_both: 4,
                changed: 4,
                unchanged: 0,
                only_in_a: 0,
                new_in_b: 6,
            }
        );
        assert_eq!(percentile(1, 1), 100.0);
    }
}
