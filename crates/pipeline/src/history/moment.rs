//! The event as of a moment: its field, the results in force and the pairs' players, and what
//! replay reports beside them (records read, records set aside), from the index or from a replay
//! of the log.

use std::collections::BTreeMap;

use rayon::prelude::*;
use simpairs_events::Stream;
use simpairs_events::types::{AppliedResult, EventDeclared, Player};
use simpairs_log::Log;
use simpairs_scoring::Field;

use super::store::Applied;
use super::{Generation, InForce, Index};
use crate::PairKey;
use crate::field::ClubsField;
use crate::replay::AsOf;
use crate::state::EventState;
use crate::{EventError, ReplayError, Result, stream_name};

/// Where a moment's results are read from.
#[derive(Debug)]
enum Source {
    /// The index, and the generations (indices, in the order they applied) in force.
    Index {
        index: Box<Index>,
        chosen: Vec<usize>,
    },
    Replayed(Box<EventState>),
}

/// A run of clubs read from the index for [`Moment::imported`]: their field, and each one's
/// pairs' players.
#[derive(Default)]
struct Part {
    field: ClubsField,
    players: Vec<BTreeMap<PairKey, Vec<Player>>>,
}

/// The event as of a moment.
#[derive(Debug)]
pub struct Moment {
    pub declared: EventDeclared,
    /// Records of the results stream read up to the moment.
    pub records: u64,
    /// Records set aside up to the moment: (offset, reason).
    pub dead_letters: Vec<(u64, String)>,
    source: Source,
}

/// The results in force of a moment: read from the index, or the replayed state's.
#[derive(Debug)]
pub enum Results<'m> {
    Index(InForce),
    Replayed(&'m EventState),
}

impl Results<'_> {
    /// The results in force, by club, then table: (club, result).
    pub fn results(&self) -> Box<dyn Iterator<Item = (&str, &AppliedResult)> + '_> {
        match self {
            Results::Index(f) => Box::new(f.results()),
            Results::Replayed(s) => Box::new(s.results()),
        }
    }

    /// One club's results in force, by table.
    pub fn club_results<'a>(
        &'a self,
        club: &str,
    ) -> Box<dyn Iterator<Item = &'a AppliedResult> + 'a> {
        match self {
            Results::Index(f) => Box::new(f.clubs().get(club).into_iter().flat_map(|r| r.iter())),
            Results::Replayed(s) => Box::new(s.club_results(club)),
        }
    }

    /// The clubs with a submission applied, with their number of results in force.
    pub fn clubs(&self) -> BTreeMap<&str, usize> {
        match self {
            Results::Index(f) => f
                .clubs()
                .iter()
                .map(|(c, r)| (c.as_str(), r.len()))
                .collect(),
            Results::Replayed(s) => s.clubs().iter().map(|(c, n)| (c.as_str(), *n)).collect(),
        }
    }

    /// Each pair's players.
    pub fn pairs(&self) -> &BTreeMap<PairKey, Vec<Player>> {
        match self {
            Results::Index(f) => f.pairs(),
            Results::Replayed(s) => s.pairs(),
        }
    }

    pub fn result_count(&self) -> usize {
        match self {
            Results::Index(f) => f.result_count(),
            Results::Replayed(s) => s.result_count(),
        }
    }
}

impl Moment {
    /// The moment from a replay of the log (what `replay` gives).
    pub fn replayed(log: &dyn Log, event: &str, as_of: Option<AsOf>) -> Result<Moment> {
        let crate::replay::Replay { state, replayed } = crate::replay::replay(log, event, as_of)?;
        let declared = state
            .declared()
            .cloned()
            .ok_or_else(|| EventError::NotDeclared {
                event: event.to_string(),
            })?;
        Ok(Moment {
            declared,
            records: replayed.records,
            dead_letters: replayed.dead_letters,
            source: Source::Replayed(Box::new(state)),
        })
    }

    /// Whether the moment is read from the replay index.
    pub fn from_index(&self) -> bool {
        matches!(self.source, Source::Index { .. })
    }

    /// Submissions applied up to the moment.
    pub fn generation(&self) -> i64 {
        match &self.source {
            Source::Index { chosen, .. } => chosen.len() as i64,
            Source::Replayed(s) => s.applied_count(),
        }
    }

    /// The generations in force, in the order they applied (empty for a replayed moment).
    pub fn generations(&self) -> Vec<&Generation> {
        match &self.source {
            Source::Index { index, chosen } => {
                chosen.iter().map(|&i| &index.meta.generations[i]).collect()
            }
            Source::Replayed(_) => Vec::new(),
        }
    }

    /// The results in force and the pairs' players (read from the index when it is the source).
    pub fn results(&self) -> Result<Results<'_>> {
        match &self.source {
            Source::Index { index, chosen } => {
                let mut in_force = InForce::default();
                for club in index.by_club(chosen, |_, f| Ok(f))? {
                    in_force.join(club);
                }
                Ok(Results::Index(in_force))
            }
            Source::Replayed(s) => Ok(Results::Replayed(s)),
        }
    }

    /// The national field (or one club's own) with the pairs' players and the warnings of each
    /// club's latest submission in force, as [`crate::replay::as_imported`] gives it: what
    /// `replay` reports.
    pub fn imported(&self, club: Option<&str>) -> Result<simpairs_formats::Imported> {
        let (index, chosen) = match &self.source {
            Source::Replayed(s) => {
                return Ok(crate::replay::as_imported(
                    s,
                    crate::replay::field_of(s, club)?,
                ));
            }
            Source::Index { index, chosen } => (index, chosen),
        };
        let only: Vec<usize> = chosen
            .iter()
            .copied()
            .filter(|&i| club.is_none_or(|c| index.meta.generations[i].club == c))
            .collect();
        if only.is_empty() && club.is_some() {
            // The error `field` gives for a club without results.
            self.field(club)?;
        }
        let kept = index.kept(&only);
        let parts = index.by_club_into(&only, reading(kept), Part::default, |part, club, f| {
            add_club(&mut part.field, club, &f, kept);
            if kept.is_none() {
                part.players.push(f.into_pairs());
            }
            Ok(())
        })?;
        let (fields, players): (Vec<Field>, Vec<_>) = parts
            .into_iter()
            .map(|p| (p.field.into_field(), p.players))
            .unzip();
        let read;
        let players: &BTreeMap<PairKey, Vec<Player>> = match kept {
            Some(kept) => kept.players,
            None => {
                // Clubs come in order, and a pair's key starts with its club: the map is built
                // from a sorted run at once, not by inserting one pair at a time.
                read = players.into_iter().flatten().flatten().collect();
                &read
            }
        };
        let mut latest: BTreeMap<&str, &Generation> = BTreeMap::new();
        for &i in &only {
            let g = &index.meta.generations[i];
            if latest
                .get(g.club.as_str())
                .is_none_or(|l| l.seal_offset < g.seal_offset)
            {
                latest.insert(&g.club, g);
            }
        }
        Ok(super::imported::imported(
            Field::concat(fields),
            players,
            &latest,
        ))
    }

    /// The national field (every club), or one club's own field, as
    /// [`crate::replay::field_of`] builds it.
    pub fn field(&self, club: Option<&str>) -> Result<Field> {
        let (index, chosen) = match &self.source {
            Source::Replayed(s) => return crate::replay::field_of(s, club),
            Source::Index { index, chosen } => (index, chosen),
        };
        let Some(club) = club else {
            // Each club's results are added to a part of the field as they are read, and let go.
            let kept = index.kept(chosen);
            let parts = index.by_club_into(
                chosen,
                reading(kept),
                ClubsField::default,
                |part, club, f| {
                    add_club(part, club, &f, kept);
                    Ok(())
                },
            )?;
            return Ok(Field::concat(
                parts.into_iter().map(ClubsField::into_field).collect(),
            ));
        };
        let only: Vec<usize> = chosen
            .iter()
            .copied()
            .filter(|&i| index.meta.generations[i].club == club)
            .collect();
        match index
            .by_club(&only, |club, f| Ok(f.club_field(club)))?
            .pop()
            .flatten()
        {
            Some(field) => Ok(field),
            None => {
                let mut known: Vec<String> = chosen
                    .iter()
                    .map(|&i| index.meta.generations[i].club.to_string())
                    .collect();
                known.sort_unstable();
                known.dedup();
                Err(ReplayError::NoResults {
                    club: club.to_string(),
                    known,
                }
                .into())
            }
        }
    }
}

/// What the build of an index kept that holds at a moment: see [`Index::kept`].
#[derive(Clone, Copy)]
struct Kept<'i> {
    /// The field of each club whose results in force are its only submission's, as its checks
    /// built it.
    fields: &'i BTreeMap<String, Field>,
    /// Each pair's players.
    players: &'i BTreeMap<PairKey, Vec<Player>>,
}

/// How much of a club's submissions is read from the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Read {
    /// Decoded whole: results, withdrawals, pairs.
    Whole,
    /// Not read: the club is given with nothing in force (its field and players are at hand).
    Nothing,
}

/// Which clubs are read whole, given what the build kept: those whose field it did not keep.
fn reading(kept: Option<Kept<'_>>) -> impl Fn(&str) -> Read + Sync + '_ {
    move |club: &str| match kept {
        Some(k) if k.fields.contains_key(club) => Read::Nothing,
        _ => Read::Whole,
    }
}

/// Adds `club`'s results in force (`in_force`) to a field being built: its field as the checks
/// built it when `kept` has it.
fn add_club(part: &mut ClubsField, club: &str, in_force: &InForce, kept: Option<Kept<'_>>) {
    match kept.and_then(|k| k.fields.get(club)) {
        Some(field) => part.append(field),
        None => in_force.add_to(club, part),
    }
}

impl Index {
    /// What the build of this index kept, when it holds at the moment of generations `chosen`:
    /// only in the process that built it, and only when `chosen` is every generation (the end
    /// the build reached).
    fn kept(&self, chosen: &[usize]) -> Option<Kept<'_>> {
        let whole = chosen.len() == self.meta.generations.len();
        (whole && !self.fields.is_empty()).then(|| Kept {
            fields: self.fields.as_ref(),
            players: self.players.as_ref(),
        })
    }

    /// Reads the chosen generations (indices, in the order they applied) club by club, clubs in
    /// parallel, in club order: each club's submissions put in force on their own (a club's
    /// results depend only on its own submissions, in their order), then given to `each`.
    pub(super) fn by_club<T: Send>(
        &self,
        chosen: &[usize],
        each: impl Fn(&str, InForce) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let parts = self.by_club_into(
            chosen,
            |_| Read::Whole,
            Vec::new,
            |out, club, in_force| {
                out.push(each(club, in_force)?);
                Ok(())
            },
        )?;
        Ok(parts.into_iter().flatten().collect())
    }

    /// [`Index::by_club`], each club given to `each` with a part of what is being gathered: the
    /// parts (each begun by `part`) hold runs of clubs, in club order. A club is read as
    /// `read` says (one whose field and players are at hand is not read at all).
    pub(super) fn by_club_into<P: Send>(
        &self,
        chosen: &[usize],
        read: impl Fn(&str) -> Read + Sync,
        part: impl Fn() -> P + Sync + Send,
        each: impl Fn(&mut P, &str, InForce) -> Result<()> + Sync,
    ) -> Result<Vec<P>> {
        let started = std::time::Instant::now();
        let applied = Applied::open(self, 0..chosen.iter().max().map_or(0, |&l| l + 1))?;
        let mut by_club: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for &i in chosen {
            by_club
                .entry(&self.meta.generations[i].club)
                .or_default()
                .push(i);
        }
        let out = by_club
            .into_par_iter()
            .try_fold(&part, |mut out, (club, generations)| {
                let mut in_force = InForce::default();
                if read(club) == Read::Whole {
                    for i in generations {
                        in_force.apply(&applied.get(i)?);
                    }
                }
                each(&mut out, club, in_force)?;
                Ok(out)
            })
            .collect::<Result<Vec<P>>>()?;
        tracing::debug!(elapsed = ?started.elapsed(), generations = chosen.len(), "generations read from the index");
        Ok(out)
    }

    /// Whether the index answers `as_of` on a log that grew since it was built: a moment before
    /// the records it does not cover.
    pub(super) fn within(&self, log: &dyn Log, as_of: Option<AsOf>) -> Result<bool> {
        let results = stream_name(&self.meta.event, Stream::Results);
        match as_of {
            None => Ok(false),
            Some(AsOf::Offset(o)) => {
                Ok(self.meta.covered.len() == 1 && o.saturating_add(1) <= self.meta.covered[0].end)
            }
            Some(AsOf::Time(t)) => {
                let [covered] = self.meta.covered.as_slice() else {
                    return Ok(false);
                };
                if !self.meta.monotone {
                    return Ok(false);
                }
                // Timestamps that never go back: the first record not covered tells.
                let mut at = covered.end;
                let next = crate::read_kept(log, &results, 0, &mut at, 1)?;
                Ok(next.first().is_none_or(|r| r.timestamp_ms > t))
            }
        }
    }

    /// The event as of `as_of`, from the index; `None` when the index cannot say exactly (a time
    /// on a log whose timestamps go back or of several partitions, an offset on several
    /// partitions, a moment before anything was judged: a replay says what is to be said).
    pub fn moment(&self, log: &dyn Log, as_of: Option<AsOf>) -> Result<Option<Moment>> {
        let Some(cut) = self.cut(as_of) else {
            return Ok(None);
        };
        let chosen: Vec<usize> = (0..self.meta.generations.len())
            .filter(|&i| cut.applies(&self.meta.generations[i]))
            .collect();
        let dead_letters: Vec<(u64, String)> = self
            .meta
            .dead_letters
            .iter()
            .filter(|d| cut.holds(d.offset, d.at_ms))
            .map(|d| (d.offset, d.reason.clone()))
            .collect();
        if chosen.is_empty() && dead_letters.is_empty() {
            return Ok(None);
        }
        let codec = simpairs_events::Codec::new()?;
        let declared = crate::publish::roster(log, &codec, &self.meta.event)?.declared;
        let records = self
            .records
            .iter()
            .map(|positions| positions.iter().filter(|&&(o, t)| cut.holds(o, t)).count() as u64)
            .sum();
        Ok(Some(Moment {
            declared,
            records,
            dead_letters,
            source: Source::Index {
                index: Box::new(self.clone()),
                chosen,
            },
        }))
    }

    /// Which records a moment holds, if the index can say.
    fn cut(&self, as_of: Option<AsOf>) -> Option<Cut> {
        match as_of {
            None => Some(Cut::All),
            Some(AsOf::Offset(o)) if self.meta.covered.len() == 1 => Some(Cut::Before(
                o.saturating_add(1).min(self.meta.covered[0].end),
            )),
            Some(AsOf::Offset(_)) => None,
            Some(AsOf::Time(t)) => {
                (self.meta.monotone && self.meta.covered.len() == 1).then_some(Cut::Until(t))
            }
        }
    }
}

/// The records a moment holds: all, those before an offset (one partition), or those at or
/// before a time.
#[derive(Clone, Copy, Debug)]
enum Cut {
    All,
    Before(u64),
    Until(i64),
}

impl Cut {
    fn holds(self, offset: u64, ms: i64) -> bool {
        match self {
            Cut::All => true,
            Cut::Before(end) => offset < end,
            Cut::Until(t) => ms <= t,
        }
    }

    /// Whether a generation had applied: the record that applied it is held (one partition:
    /// every record before it is held too).
    fn applies(self, g: &Generation) -> bool {
        self.holds(g.offset, g.applied_at_ms)
    }
}
