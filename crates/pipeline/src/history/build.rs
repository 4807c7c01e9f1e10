//! Building the index: the results stream read once through the state, in the batches and the
//! order `replay` reads it, each effect noted with the record that caused it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use sha2::{Digest, Sha256};
use simpairs_events::types::SubmissionApplied;
use simpairs_events::{Codec, Stream};
use simpairs_log::Log;
use simpairs_scoring::Field;

use super::{Covered, DeadLetter, Generation, Index};
use crate::state::{Batch, Effect, EventState, Finished, Saved};
use crate::{Result, stream_name};

/// What a build found, before it is written.
pub(super) struct Built {
    pub event: String,
    /// What the index covers of the declarations stream (declaration and amendments).
    pub declarations: Covered,
    /// The deal of each board as the event knows it at the end.
    pub deals: std::collections::BTreeMap<i32, String>,
    pub covered: Vec<Covered>,
    pub monotone: bool,
    pub generations: Vec<Generation>,
    pub applied: Vec<Arc<SubmissionApplied>>,
    /// The field of each club whose results in force at the end are its only submission's, as
    /// the checks of that submission built it (of the submissions this build judged).
    pub fields: BTreeMap<String, Field>,
    pub dead_letters: Vec<DeadLetter>,
    pub records: Vec<Vec<(u64, i64)>>,
    /// The state at the end, to read on from there when the log grows.
    pub saved: Saved,
}

/// Where a record of the batch being read is.
struct Seen {
    partition: u32,
    offset: u64,
    ms: i64,
}

/// The effects noted so far.
#[derive(Default)]
struct Notes {
    generations: Vec<Generation>,
    applied: Vec<Arc<SubmissionApplied>>,
    fields: BTreeMap<String, Field>,
    dead_letters: Vec<DeadLetter>,
}

impl Notes {
    /// Notes a finished batch's effects; `records` are its records' (offset, timestamp) in
    /// `partition`, by batch index.
    fn note(&mut self, finished: Finished, partition: u32, records: &[(u64, i64)]) {
        for (index, effect) in finished.effects {
            // A club's field built by the checks holds only while no other submission of the club
            // applies (the batch's fields below are those that still hold at its end).
            if let Effect::Applied(applied) = &effect {
                self.fields.remove(&applied.club_id);
            }
            let Some(&(offset, ms)) = records.get(index) else {
                continue;
            };
            let at = Seen {
                partition,
                offset,
                ms,
            };
            match effect {
                Effect::Applied(applied) => self.applied_at(applied, &at),
                Effect::DeadLetter { reason } => self.dead_letters.push(DeadLetter {
                    partition: at.partition,
                    offset: at.offset,
                    at_ms: at.ms,
                    reason,
                }),
            }
        }
        self.fields.extend(finished.fields);
    }

    fn applied_at(&mut self, applied: Arc<SubmissionApplied>, at: &Seen) {
        self.generations.push(Generation {
            generation: self.generations.len() as i64 + 1,
            club: applied.club_id.clone(),
            submission: applied.submission_id.clone(),
            seal_offset: applied.seal_offset,
            sealed_at_ms: 0,
            source: None,
            partition: at.partition,
            offset: at.offset,
            applied_at_ms: at.ms,
            results: applied.results.len(),
            withdrawn: applied.withdrawn.len(),
            warnings: Vec::new(),
            bytes: (0, 0),
            crc: 0,
        });
        self.applied.push(applied);
    }
}

/// What the index covers of the event's declarations stream (the declaration and its
/// amendments, which decide whose seals verify): its end and its last record's digest.
pub(super) fn declarations(log: &dyn Log, event: &str) -> Result<Covered> {
    let stream = stream_name(event, Stream::Declarations);
    let end = log.end_offset(&stream, 0)?;
    Ok(Covered {
        end,
        last: last_digest(log, &stream, 0, end)?,
    })
}

/// The SHA-256 (hex) of the record before `end` in a partition, its timestamp and key with its
/// value ("" when `end` is 0).
pub(super) fn last_digest(log: &dyn Log, stream: &str, partition: u32, end: u64) -> Result<String> {
    if end == 0 {
        return Ok(String::new());
    }
    let mut at = end - 1;
    let records = crate::read_kept(log, stream, partition, &mut at, 1)?;
    Ok(match records.first() {
        Some(r) if r.offset == end - 1 => {
            let mut digest = Sha256::new();
            digest.update(r.timestamp_ms.to_le_bytes());
            digest.update((r.key.len() as u64).to_le_bytes());
            digest.update(&r.key);
            digest.update(&r.value);
            hex::encode(digest.finalize())
        }
        // Not a record (a Kafka transaction marker): the index names no record there.
        _ => "-".to_string(),
    })
}

/// Reads the event's declaration and results as `replay` does, noting every effect.
pub(super) fn build(log: &dyn Log, event: &str) -> Result<Built> {
    let codec = Codec::new()?;
    // As replay reads it: the declaration and its amendments, then the results.
    let declarations = declarations(log, event)?;
    let mut state = EventState::new();
    state.set_roster(crate::publish::roster(log, &codec, event)?);
    let results = stream_name(event, Stream::Results);
    let partitions = log.partitions(&results)? as usize;
    let mut reading = Reading {
        notes: Notes::default(),
        records: vec![Vec::new(); partitions],
        covered: vec![Covered::default(); partitions],
    };
    for partition in 0..partitions as u32 {
        reading.read_on(log, &codec, &mut state, &results, partition)?;
    }
    Ok(reading.built(event, declarations, &state))
}

/// `old` read on through the records appended to the log since it was built, from the state it
/// saved at its end and its `applied` submissions; `None` when records were appended to another
/// partition than the last, or when its saved state cannot be taken up. The log must have grown
/// from what `old` covers ([`super::Coverage::Grown`]).
pub(super) fn extend(
    log: &dyn Log,
    old: &Index,
    applied: Vec<Arc<SubmissionApplied>>,
) -> Result<Option<Built>> {
    let event = old.meta.event.as_str();
    let results = stream_name(event, Stream::Results);
    let Some(last) = old.meta.covered.len().checked_sub(1) else {
        return Ok(None);
    };
    for (partition, covered) in old.meta.covered[..last].iter().enumerate() {
        if log.end_offset(&results, partition as u32)? != covered.end {
            return Ok(None);
        }
    }
    let codec = Codec::new()?;
    let started = std::time::Instant::now();
    let mut state = EventState::new();
    state.set_roster(crate::publish::roster(log, &codec, event)?);
    if let Err(e) = state.resume(&codec, &applied, old.meta.resume.clone()) {
        tracing::warn!(
            event,
            "the replay index's state does not take up ({e}); it is built again"
        );
        return Ok(None);
    }
    tracing::debug!(elapsed = ?started.elapsed(), "replay index: state taken up");
    let mut reading = Reading {
        notes: Notes {
            generations: old.meta.generations.clone(),
            applied,
            fields: BTreeMap::new(),
            dead_letters: old.meta.dead_letters.clone(),
        },
        records: old.records.clone(),
        covered: old.meta.covered.clone(),
    };
    reading.read_on(log, &codec, &mut state, &results, last as u32)?;
    tracing::debug!(elapsed = ?started.elapsed(), "replay index: appended records read");
    Ok(Some(reading.built(
        event,
        old.meta.declarations.clone(),
        &state,
    )))
}

/// What a build has read: the effects noted, and per partition every record's position and
/// what it covers.
struct Reading {
    notes: Notes,
    records: Vec<Vec<(u64, i64)>>,
    covered: Vec<Covered>,
}

impl Reading {
    /// Reads a partition through the state from where the reading covers to its end.
    fn read_on(
        &mut self,
        log: &dyn Log,
        codec: &Codec,
        state: &mut EventState,
        results: &str,
        partition: u32,
    ) -> Result<()> {
        let at = partition as usize;
        let end = log.end_offset(results, partition)?;
        let from = self.covered[at].end;
        let positions = read_partition(
            log,
            codec,
            state,
            &mut self.notes,
            results,
            partition,
            from..end,
        )?;
        self.records[at].extend(positions);
        self.covered[at] = Covered {
            end,
            last: last_digest(log, results, partition, end)?,
        };
        Ok(())
    }

    fn built(mut self, event: &str, declarations: Covered, state: &EventState) -> Built {
        fill_seals(state, &mut self.notes.generations);
        let monotone = self
            .records
            .iter()
            .all(|r| r.windows(2).all(|w| w[0].1 <= w[1].1));
        Built {
            event: event.to_string(),
            declarations,
            deals: state.deals().clone(),
            covered: self.covered,
            monotone,
            generations: self.notes.generations,
            applied: self.notes.applied,
            fields: self.notes.fields,
            dead_letters: self.notes.dead_letters,
            records: self.records,
            saved: state.saved(),
        }
    }
}

/// Reads the offsets `range` of one partition through the state, in batches, as `replay` reads
/// it ([`crate::state::read_in_batches`]); returns every record's (offset, timestamp).
fn read_partition(
    log: &dyn Log,
    codec: &Codec,
    state: &mut EventState,
    notes: &mut Notes,
    results: &str,
    partition: u32,
    range: std::ops::Range<u64>,
) -> Result<Vec<(u64, i64)>> {
    let mut positions = Vec::new();
    crate::state::read_in_batches(
        log,
        results,
        partition,
        range,
        state,
        Batch::new(codec),
        |r| {
            positions.push((r.offset, r.timestamp_ms));
            true
        },
        |_, records, finished| notes.note(finished, partition, records),
    )?;
    Ok(positions)
}

/// When each applied submission was sealed and what it named as its source, from the judge's
/// notes.
fn fill_seals(state: &EventState, generations: &mut [Generation]) {
    let judged: HashMap<(&str, &str), &crate::state::Judged> = state
        .judged()
        .map(|((club, submission), j)| ((club.as_str(), submission.as_str()), j))
        .collect();
    for g in generations {
        if let Some(j) = judged.get(&(g.club.as_str(), g.submission.as_str())) {
            g.sealed_at_ms = j.sealed_at_ms;
            g.source = j.source.clone();
            g.warnings = j.warnings.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(club: &str, submission: &str) -> Effect {
        Effect::Applied(Arc::new(SubmissionApplied {
            event_id: "E".into(),
            club_id: club.into(),
            submission_id: submission.into(),
            seal_offset: 0,
            results: Vec::new(),
            withdrawn: Vec::new(),
            pairs: Vec::new(),
        }))
    }

    /// A batch whose effects are `effects` (by batch index) and whose clubs' checks built a field
    /// for `fields`.
    fn finished(effects: Vec<Effect>, fields: &[&str]) -> Finished {
        Finished {
            effects: effects.into_iter().enumerate().collect(),
            announced: Vec::new(),
            fields: fields
                .iter()
                .map(|c| (c.to_string(), Field::new()))
                .collect(),
        }
    }

    #[test]
    fn a_club_s_field_is_kept_only_while_no_later_submission_of_the_club_applies() {
        let mut notes = Notes::default();
        let records = [(0, 0), (1, 0), (2, 0)];
        notes.note(
            finished(vec![applied("A", "1"), applied("B", "1")], &["A", "B"]),
            0,
            &records,
        );
        assert_eq!(notes.fields.keys().collect::<Vec<_>>(), ["A", "B"]);
        // A's correction in a later batch: its first field no longer holds, and the batch built
        // none for it (its results in force are two submissions'). C arrives.
        notes.note(
            finished(vec![applied("A", "2"), applied("C", "1")], &["C"]),
            0,
            &records,
        );
        assert_eq!(notes.fields.keys().collect::<Vec<_>>(), ["B", "C"]);
        // A set-aside submission changes nothing in force.
        let set_aside = Effect::DeadLetter {
            reason: "altered".into(),
        };
        notes.note(finished(vec![set_aside], &[]), 0, &records);
        assert_eq!(notes.fields.keys().collect::<Vec<_>>(), ["B", "C"]);
        assert_eq!(notes.generations.len(), 4);
    }
}
