//! Rebuilding an event from its log, as of any moment: the same records through the same state
//! ([`crate::state`]) as the aggregator, stopped at an offset or a time, then the national field or one
//! club's field, ready to be scored with any method.

use simpairs_events::{Codec, Event, Stream};
use simpairs_log::Log;
use simpairs_scoring::Field;

use crate::state::{Batch, Effect, EventState, Finished};
use crate::{Error, FirstSeal, ReplayError, Result, stream_name};

mod follow;

pub use follow::Follow;

/// A moment in the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsOf {
    /// Up to and including the record at this offset of the results stream (the offset
    /// `club publish` prints for a seal: the state just after that seal).
    Offset(u64),
    /// Records appended at or before this time (milliseconds since the Unix epoch).
    Time(i64),
}

impl std::str::FromStr for AsOf {
    type Err = Error;

    /// A whole number is an offset; anything else a date and time: with a zone
    /// (`2026-11-22T20:15:00Z`, `2026-11-22T21:15+01:00`, `2026-11-22 20:15:00 UTC` as the
    /// director's listing prints it) or without one, read as this machine's local time
    /// (`2026-11-22 20:15`, `2026-11-22T20:15:30`). A time written to the second takes in the
    /// whole of that second, and one written to the minute the whole minute: a seal listed as
    /// sealed at 20:15:00 (at 20:15:00.166) is in the event as of 20:15:00.
    fn from_str(s: &str) -> Result<Self> {
        let text = s.trim();
        if let Ok(offset) = text.parse::<u64>() {
            return Ok(AsOf::Offset(offset));
        }
        let text = match text
            .strip_suffix(" UTC")
            .or_else(|| text.strip_suffix(" utc"))
        {
            Some(utc) => std::borrow::Cow::Owned(format!("{}Z", utc.trim_end())),
            None => std::borrow::Cow::Borrowed(text),
        };
        let at = text
            .parse::<jiff::Timestamp>()
            .or_else(|_| {
                text.parse::<jiff::civil::DateTime>()
                    .and_then(|civil| civil.to_zoned(jiff::tz::TimeZone::system()))
                    .map(|zoned| zoned.timestamp())
            })
            .map_err(|source| ReplayError::BadAsOf {
                text: s.to_string(),
                source,
            })?;
        Ok(AsOf::Time(at.as_millisecond() + whole_unit_ms(&text)))
    }
}

/// A moment asked for past the end of the log, in words: a replay of it is the event as it
/// stands now, which a mistyped offset should not pass for without a word. `records` are those
/// the replay read from the results stream.
pub fn beyond_the_log(as_of: Option<AsOf>, records: u64) -> Option<String> {
    match as_of? {
        AsOf::Offset(o) if o >= records => Some(format!(
            "offset {o} is past the end of the log (its last record is at offset {}): this is \
             the event as it stands now",
            records.saturating_sub(1)
        )),
        AsOf::Time(t) if t > crate::now_ms() => Some(format!(
            "{} has not come yet: this is the event as it stands now",
            describe_time(t)
        )),
        _ => None,
    }
}

/// How long after its start the unit a time is written to lasts, less a millisecond: 999 for a
/// time to the second, 59,999 to the minute, 0 with a fraction of a second.
fn whole_unit_ms(text: &str) -> i64 {
    let Some(at) = text.find(['T', 't', ' ']) else {
        return 0;
    };
    let time = &text[at + 1..];
    let end = time.find(['Z', 'z', '+', '-', '[']).unwrap_or(time.len());
    let time = time[..end].trim();
    if time.contains(['.', ',']) {
        return 0;
    }
    match time.matches(':').count() {
        1 => 59_999,
        2 => 999,
        _ => 0,
    }
}

impl std::fmt::Display for AsOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AsOf::Offset(o) => write!(f, "offset {o}"),
            AsOf::Time(ms) => f.write_str(&describe_time(*ms)),
        }
    }
}

pub use crate::when::describe_time;

/// What a replay found besides the state.
#[derive(Clone, Debug, Default)]
pub struct Replayed {
    /// Records read from the results stream.
    pub records: u64,
    /// Records set aside (with their offset and reason).
    pub dead_letters: Vec<(u64, String)>,
}

/// An event rebuilt from its log: its state, and what the replay found besides.
#[derive(Debug)]
pub struct Replay {
    pub state: EventState,
    pub replayed: Replayed,
}

/// Rebuilds an event's state from its log, as of a moment (or everything).
pub fn replay(log: &dyn Log, event_id: &str, as_of: Option<AsOf>) -> Result<Replay> {
    replay_with(log, event_id, as_of, false)
}

/// [`replay`], the results in force kept packed, as the aggregator keeps them (about 11 bytes a
/// result instead of 216): for a caller that needs the state's deals, pairs or counts, and few
/// results if any (reading a club's results decodes its submissions and keeps them so).
pub fn replay_packed(log: &dyn Log, event_id: &str, as_of: Option<AsOf>) -> Result<Replay> {
    replay_with(log, event_id, as_of, true)
}

/// [`replay`], in batches that keep the results `packed` ([`Batch::announcing`]) or not.
fn replay_with(log: &dyn Log, event_id: &str, as_of: Option<AsOf>, packed: bool) -> Result<Replay> {
    let codec = Codec::new()?;
    let results = stream_name(event_id, Stream::Results);
    let mut replay = Replay::declared(log, &codec, event_id)?;
    let partitions = log.partitions(&results)?;
    if partitions > 1 && matches!(as_of, Some(AsOf::Offset(_))) {
        return Err(ReplayError::OffsetOfPartitions { partitions }.into());
    }
    let reader = Reader {
        log,
        codec: &codec,
        results: &results,
        packed,
    };
    // Partitions are read one after the other: a seal waits for records of its submission that sit in
    // later partitions, so the state is the same whatever the interleaving.
    for partition in 0..partitions {
        let end = log.end_offset(&results, partition)?;
        let (until, time) = match as_of {
            Some(AsOf::Offset(o)) => (o.saturating_add(1).min(end), None),
            Some(AsOf::Time(t)) => (end, Some(t)),
            None => (end, None),
        };
        reader.read(&mut replay, partition, 0..until, time)?;
    }
    if let Some(as_of) = as_of
        && replay.state.judged().next().is_none()
        && replay.replayed.dead_letters.is_empty()
    {
        return Err(nothing_before(log, &codec, &results, as_of));
    }
    Ok(replay)
}

impl Replay {
    /// The event's declaration and amendments read, and none of its results yet.
    pub(crate) fn declared(log: &dyn Log, codec: &Codec, event: &str) -> Result<Replay> {
        let mut state = EventState::new();
        state.set_roster(crate::publish::roster(log, codec, event)?);
        Ok(Replay {
            state,
            replayed: Replayed::default(),
        })
    }
}

/// Reads results records through a replay's state, as replay reads them.
pub(crate) struct Reader<'a> {
    pub log: &'a dyn Log,
    pub codec: &'a Codec,
    pub results: &'a str,
    /// The results in force kept packed ([`Batch::announcing`]).
    pub packed: bool,
}

impl Reader<'_> {
    /// Reads the offsets `range` of a partition (only the records appended at or before `time`,
    /// if given), in batches: the submissions each completes are checked together, in parallel.
    pub fn read(
        &self,
        replay: &mut Replay,
        partition: u32,
        range: std::ops::Range<u64>,
        time: Option<i64>,
    ) -> Result<()> {
        let Replay { state, replayed } = replay;
        let batch = if self.packed {
            Batch::announcing(self.codec)
        } else {
            Batch::new(self.codec)
        };
        let mut records = 0;
        let mut dead_letters = Vec::new();
        crate::state::read_in_batches(
            self.log,
            self.results,
            partition,
            range,
            state,
            batch,
            |r| {
                let kept = time.is_none_or(|t| r.timestamp_ms <= t);
                records += u64::from(kept);
                kept
            },
            |_, batch, finished| note_dead(&mut dead_letters, finished, batch),
        )?;
        replayed.records += records;
        replayed.dead_letters.extend(dead_letters);
        Ok(())
    }
}

/// The records a batch set aside, with their offsets.
fn note_dead(dead_letters: &mut Vec<(u64, String)>, finished: Finished, records: &[(u64, i64)]) {
    for (index, effect) in finished.effects {
        if let Effect::DeadLetter { reason } = effect {
            dead_letters.push((records[index].0, reason));
        }
    }
}

/// The error for a moment before any club published: when the first seal came, if one did.
fn nothing_before(log: &dyn Log, codec: &Codec, results: &str, as_of: AsOf) -> Error {
    // The earliest seal of any partition, by the time it was sealed.
    let mut first: Option<(u64, i64)> = None;
    for partition in 0..log.partitions(results).unwrap_or(1) {
        let end = log.end_offset(results, partition).unwrap_or(0);
        let _ = crate::read_range(log, results, partition, 0, end, |r| {
            if let Ok(simpairs_events::Skimmed::Event(event)) = codec.skim(&r.value)
                && let Event::SubmissionSealed(seal) = *event
                && first.is_none_or(|(_, ms)| seal.sealed_at_ms < ms)
            {
                first = Some((r.offset, seal.sealed_at_ms));
            }
        });
    }
    ReplayError::BeforeFirst {
        as_of: as_of.to_string(),
        first: first.map(|(offset, sealed_at_ms)| FirstSeal {
            offset,
            sealed_at_ms,
        }),
    }
    .into()
}

/// Each pair of `field` as a report names it, with its players as the clubs entered them.
pub(crate) fn pair_infos(
    field: &Field,
    players: &std::collections::BTreeMap<crate::PairKey, Vec<simpairs_events::types::Player>>,
) -> Vec<simpairs_formats::PairInfo> {
    use rayon::prelude::*;
    // A national field has hundreds of thousands of pairs, each looked up by its texts.
    field
        .pairs()
        .par_iter()
        .map(|p| {
            let club = field.club_name(p.club).to_string();
            let section = field.section_name(p.section).to_string();
            let label = p.label.to_string();
            let direction = p.direction.map_or("", |d| d.as_str());
            let key = crate::PairKey::new(club.clone(), section.clone(), label.clone(), direction);
            let players = players.get(&key).map_or_else(Vec::new, |players| {
                players
                    .iter()
                    .map(|pl| simpairs_formats::Player {
                        name: pl.name.clone(),
                        national_id: pl.national_id.clone(),
                        club_id: None,
                    })
                    .collect()
            });
            simpairs_formats::PairInfo {
                club,
                section,
                label,
                direction: p.direction,
                players,
            }
        })
        .collect()
}

/// A field with what `score --json` shows of a file besides its results, as the log keeps it: the
/// pairs' players (from the clubs' `PairEntered`) and the warnings of the submissions in force (as
/// their seals carry them, naming the file the club published). For one club's file published as
/// it was scored, the report is the bytes `score --json` prints.
pub fn as_imported(state: &EventState, field: Field) -> simpairs_formats::Imported {
    use simpairs_formats::{Location, Problem};
    let pairs = pair_infos(&field, state.pairs());
    let clubs: std::collections::BTreeSet<&str> = field.clubs().collect();
    let mut latest: std::collections::BTreeMap<&str, &crate::state::Judged> = Default::default();
    for ((club, _), judged) in state.judged() {
        let applied = matches!(judged.verdict, crate::state::Verdict::Applied { .. });
        if applied
            && clubs.contains(club.as_str())
            && latest
                .get(club.as_str())
                .is_none_or(|j| j.offset < judged.offset)
        {
            latest.insert(club.as_str(), judged);
        }
    }
    let warnings = latest
        .values()
        .flat_map(|j| {
            let file = j.source.clone().unwrap_or_default();
            j.warnings.iter().map(move |w| Problem {
                at: Location {
                    file: file.clone(),
                    line: u64::try_from(w.line).unwrap_or(0),
                    field: (!w.field.is_empty()).then(|| w.field.clone()),
                },
                message: w.message.clone(),
            })
        })
        .collect();
    let mut imported = simpairs_formats::Imported::bare(
        simpairs_formats::Format::Csv,
        field,
        simpairs_formats::csv::Lines::default(),
        0,
    );
    if pairs.iter().any(|p| !p.players.is_empty()) {
        imported.pairs = pairs;
    }
    imported.warnings = warnings;
    imported
}

/// The national field (every club), or one club's own field.
pub fn field_of(state: &EventState, club: Option<&str>) -> Result<Field> {
    match club {
        None => Ok(state.field()),
        Some(club) => {
            if !state.clubs().contains_key(club) {
                return Err(ReplayError::NoResults {
                    club: club.to_string(),
                    known: state.clubs().keys().cloned().collect(),
                }
                .into());
            }
            Ok(crate::field::build_field(
                state.club_results(club).map(|r| (club, r)),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AsOf;

    fn time(text: &str) -> i64 {
        match text.parse::<AsOf>().unwrap() {
            AsOf::Time(ms) => ms,
            AsOf::Offset(o) => panic!("{text} read as offset {o}"),
        }
    }

    #[test]
    fn a_time_takes_in_the_whole_second_or_minute_it_is_written_to() {
        let start = "2026-11-22T20:15:00Z".parse::<jiff::Timestamp>().unwrap();
        let start = start.as_millisecond();
        assert_eq!(time("2026-11-22T20:15:00Z"), start + 999);
        assert_eq!(time("2026-11-22T20:15Z"), start + 59_999);
        assert_eq!(time("2026-11-22T20:15:00.250Z"), start + 250);
        assert_eq!(time("2026-11-22T21:15:00+01:00"), start + 999);
        // As the director's listing prints a seal's time.
        assert_eq!(time("2026-11-22 20:15:00 UTC"), start + 999);
        assert!(matches!("153".parse::<AsOf>(), Ok(AsOf::Offset(153))));
        assert!("yesterday".parse::<AsOf>().is_err());
    }
}
