//! Building the index: the results stream read once through the state, in the batches and the
//! order `replay` reads it, each effect noted with the record that caused it.

use std::collections::HashMap;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use simpairs_events::types::SubmissionApplied;
use simpairs_events::{Codec, Stream};
use simpairs_log::Log;

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
    dead_letters: Vec<DeadLetter>,
}

impl Notes {
    /// Notes a finished batch's effects; `records` are its records' (offset, timestamp) in
    /// `partition`, by batch index.
    fn note(&mut self, finished: Finished, partition: u32, records: &[(u64, i64)]) {
        for (index, effect) in finished.effects {
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
