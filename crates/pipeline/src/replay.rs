//! Rebuilding an event from its log, as of any moment: the same records through the same state
//! ([`crate::state`]) as the aggregator, stopped at an offset or a time, then the national field or one
//! club's field, ready to be scored with any method.

use simpairs_events::{Codec, Event, Stream};
use simpairs_log::Log;
use simpairs_scoring::Field;

use crate::state::{Batch, Effect, EventState, Finished};
use crate::{Error, Result, stream_name};

/// A moment in the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsOf {
    /// Records of the results stream before this offset (the embedded log has one partition).
    Offset(u64),
    /// Records appended at or before this time (milliseconds since the Unix epoch).
    Time(i64),
}

impl std::str::FromStr for AsOf {
    type Err = Error;

    /// A whole number is an offset; anything else an RFC 3339 time such as `2026-11-22T18:30:00Z`.
    fn from_str(s: &str) -> Result<Self> {
        if let Ok(offset) = s.trim().parse::<u64>() {
            return Ok(AsOf::Offset(offset));
        }
        let t = humantime::parse_rfc3339_weak(s.trim()).map_err(|e| {
            Error::Usage(format!("--as-of {s:?}: expected an offset (a whole number) or an RFC 3339 time like 2026-11-22T18:30:00Z: {e}"))
        })?;
        let ms = t
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(|_| Error::Usage(format!("--as-of {s:?} is before 1970")))?
            .as_millis() as i64;
        Ok(AsOf::Time(ms))
    }
}

/// What a replay found besides the state.
#[derive(Clone, Debug, Default)]
pub struct Replayed {
    /// Records read from the results stream.
    pub records: u64,
    /// Records set aside (with their offset and reason).
    pub dead_letters: Vec<(u64, String)>,
}

/// Rebuilds an event's state from its log, as of a moment (or everything).
pub fn replay(
    log: &dyn Log,
    event_id: &str,
    as_of: Option<AsOf>,
) -> Result<(EventState, Replayed)> {
    let codec = Codec::new()?;
    let mut state = EventState::new();
    let declarations = stream_name(event_id, Stream::Declarations);
    let end = log.end_offset(&declarations, 0)?;
    crate::read_range(log, &declarations, 0, 0, end, |r| {
        if let Ok(Event::EventDeclared(d)) = codec.decode(&r.value) {
            state.handle_declaration(d);
        }
    })?;
    if state.declared().is_none() {
        return Err(Error::Usage(format!(
            "event {event_id} is not declared in this log"
        )));
    }
    let results = stream_name(event_id, Stream::Results);
    let mut replayed = Replayed::default();
    let partitions = log.partitions(&results)?;
    if partitions > 1 && matches!(as_of, Some(AsOf::Offset(_))) {
        return Err(Error::Usage(format!(
            "the results stream has {partitions} partitions: give --as-of as a time, offsets are per partition"
        )));
    }
    // Partitions are read one after the other: a seal waits for records of its submission that sit in
    // later partitions, so the state is the same whatever the interleaving.
    for partition in 0..partitions {
        let end = log.end_offset(&results, partition)?;
        let until = match as_of {
            Some(AsOf::Offset(o)) => o.min(end),
            _ => end,
        };
        // In batches: the submissions each completes are checked together, in parallel.
        let mut batch = Batch::new(&codec);
        // The offset of each record of the batch.
        let mut offsets = Vec::new();
        crate::read_range(log, &results, partition, 0, until, |r| {
            if let Some(AsOf::Time(t)) = as_of
                && r.timestamp_ms > t
            {
                return;
            }
            replayed.records += 1;
            let decoded = crate::state::decode(&codec, &r.value);
            state.stage(&mut batch, decoded, r.offset as i64, offsets.len());
            offsets.push(r.offset);
            if offsets.len() == crate::state::REBUILD_BATCH {
                let finished = state.finish(std::mem::replace(&mut batch, Batch::new(&codec)));
                replayed.note(finished, &offsets);
                offsets.clear();
            }
        })?;
        let finished = state.finish(batch);
        replayed.note(finished, &offsets);
    }
    Ok((state, replayed))
}

impl Replayed {
    /// Keeps the dead letters of a finished batch, by the offsets of its records.
    fn note(&mut self, finished: Finished, offsets: &[u64]) {
        for (index, effect) in finished.effects {
            if let Effect::DeadLetter { reason } = effect {
                self.dead_letters.push((offsets[index], reason));
            }
        }
    }
}

/// The national field (every club), or one club's own field.
pub fn field_of(state: &EventState, club: Option<&str>) -> Result<Field> {
    match club {
        None => Ok(crate::field::build_field(state.results())),
        Some(club) => {
            if !state.clubs().contains_key(club) {
                let known: Vec<&str> = state.clubs().keys().map(String::as_str).collect();
                return Err(Error::Usage(format!(
                    "club {club} has no results in force (clubs with results: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )));
            }
            Ok(crate::field::build_field(
                state.club_results(club).map(|r| (club, r)),
            ))
        }
    }
}
