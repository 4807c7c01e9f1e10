//! Building the index: the results stream read once through the state, in the batches and the
//! order `replay` reads it, each effect noted with the record that caused it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use sha2::{Digest, Sha256};
use simpairs_events::types::{Player, SubmissionApplied};
use simpairs_events::{Codec, Stream};
use simpairs_log::Log;
use simpairs_scoring::Field;

use super::{Covered, DeadLetter, Generation, Index};
use crate::PairKey;
use crate::announce::Announcement;
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
    /// The `SubmissionApplied` message of each generation after those of the index read on
    /// from (all of them, for an index built afresh).
    pub applied: Vec<Vec<u8>>,
    /// The field of each club whose results in force at the end are its only submission's, as
    /// the checks of that submission built it (of the submissions this build judged).
    pub fields: BTreeMap<String, Field>,
    /// Each pair's players at the end, as the state entered them.
    pub players: BTreeMap<PairKey, Vec<Player>>,
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
    /// The `SubmissionApplied` message of each generation this build applied (after those of
    /// the index it reads on from), as the index file holds it.
    applied: Vec<Vec<u8>>,
    fields: BTreeMap<String, Field>,
    dead_letters: Vec<DeadLetter>,
}

/// What a batch led to at one of its records.
enum Noted {
    Applied(Announcement),
    DeadLetter(String),
}

impl Notes {
    /// Notes what a finished batch applied and set aside; `records` are its records' (offset,
    /// timestamp) in `partition`, by batch index.
    fn note(&mut self, codec: &Codec, finished: Finished, partition: u32, records: &[(u64, i64)]) {
        let effects = finished.effects.into_iter().map(|(index, effect)| {
            let noted = match effect {
                // A batch that announces lists what applied as announcements; were one given as an
                // effect, it is noted all the same.
                Effect::Applied(a) => Noted::Applied(crate::announce::announcement(codec, &a)),
                Effect::DeadLetter { reason } => Noted::DeadLetter(reason),
            };
            (index, noted)
        });
        let applied = finished.announced.into_iter();
        let mut noted: Vec<(usize, Noted)> = applied
            .map(|(index, a)| (index, Noted::Applied(a)))
            .chain(effects)
            .collect();
        // In record order; what applied stays in the order it applied (the sort is stable).
        noted.sort_by_key(|(index, _)| *index);
        for (index, noted) in noted {
            // A club's field built by the checks holds only while no other submission of the club
            // applies (the batch's fields below are those that still hold at its end).
            if let Noted::Applied(a) = &noted {
                self.fields.remove(&a.club_id);
            }
            let Some(&(offset, ms)) = records.get(index) else {
                continue;
            };
            let at = Seen {
                partition,
                offset,
                ms,
            };
            match noted {
                Noted::Applied(a) => self.applied_at(a, &at),
                Noted::DeadLetter(reason) => self.dead_letters.push(DeadLetter {
                    partition: at.partition,
                    offset: at.offset,
                    at_ms: at.ms,
                    reason,
                }),
            }
        }
        self.fields.extend(finished.fields);
    }

    fn applied_at(&mut self, applied: Announcement, at: &Seen) {
        self.generations.push(Generation {
            generation: self.generations.len() as i64 + 1,
            club: applied.club_id,
            submission: applied.submission_id,
            seal_offset: applied.seal_offset,
            sealed_at_ms: 0,
            source: None,
            partition: at.partition,
            offset: at.offset,
            applied_at_ms: at.ms,
            results: applied.results as usize,
            withdrawn: applied.withdrawn as usize,
            warnings: Vec::new(),
            bytes: (0, 0),
            crc: 0,
        });
        self.applied.push(applied.message);
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
    Ok(reading.built(event, declarations, &mut state))
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
            applied: Vec::new(),
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
        &mut state,
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

    /// What was read, with the state's end (its pairs' players are taken from it).
    fn built(mut self, event: &str, declarations: Covered, state: &mut EventState) -> Built {
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
            players: state.take_pairs(),
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
        // What applies is encoded as the index holds it, and kept so by the state, on the thread
        // that judged it: a national event's results are never all held decoded.
        Batch::announcing_plain(codec),
        |r| {
            positions.push((r.offset, r.timestamp_ms));
            true
        },
        |_, records, finished| notes.note(codec, finished, partition, records),
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

    fn applied(club: &str, submission: &str) -> Announcement {
        Announcement {
            club_id: club.into(),
            submission_id: submission.into(),
            seal_offset: 0,
            message: Vec::new(),
            results: 0,
            withdrawn: 0,
        }
    }

    /// A batch that applied `applied` and set `set_aside` aside (by batch index, after what
    /// applied), and whose clubs' checks built a field for `fields`.
    fn finished(applied: Vec<Announcement>, set_aside: usize, fields: &[&str]) -> Finished {
        let dead = (0..set_aside).map(|k| {
            let reason = "altered".to_string();
            (applied.len() + k, Effect::DeadLetter { reason })
        });
        Finished {
            effects: dead.collect(),
            announced: applied.into_iter().enumerate().collect(),
            fields: fields
                .iter()
                .map(|c| (c.to_string(), Field::new()))
                .collect(),
        }
    }

    #[test]
    fn a_club_s_field_is_kept_only_while_no_later_submission_of_the_club_applies() {
        let codec = Codec::new().unwrap();
        let mut notes = Notes::default();
        let records = [(10, 0), (11, 0), (12, 0)];
        let batch = finished(vec![applied("A", "1"), applied("B", "1")], 0, &["A", "B"]);
        notes.note(&codec, batch, 0, &records);
        assert_eq!(notes.fields.keys().collect::<Vec<_>>(), ["A", "B"]);
        // A's correction in a later batch: its first field no longer holds, and the batch built
        // none for it (its results in force are two submissions'). C arrives.
        let batch = finished(vec![applied("A", "2"), applied("C", "1")], 0, &["C"]);
        notes.note(&codec, batch, 0, &records);
        assert_eq!(notes.fields.keys().collect::<Vec<_>>(), ["B", "C"]);
        // A set-aside submission changes nothing in force.
        notes.note(&codec, finished(Vec::new(), 1, &[]), 0, &records);
        assert_eq!(notes.fields.keys().collect::<Vec<_>>(), ["B", "C"]);
        assert_eq!(notes.generations.len(), 4);
        assert_eq!(notes.applied.len(), 4);
    }

    #[test]
    fn what_applied_and_what_was_set_aside_are_noted_at_their_records() {
        let codec = Codec::new().unwrap();
        let mut notes = Notes::default();
        // Record 2 completed both of A's submissions (the second waited for the first); record 0
        // was set aside.
        let batch = Finished {
            effects: vec![(0, Effect::DeadLetter { reason: "x".into() })],
            announced: vec![
                (2, applied("A", "1")),
                (2, applied("A", "2")),
                (1, applied("B", "1")),
            ],
            fields: Default::default(),
        };
        notes.note(&codec, batch, 3, &[(10, 100), (11, 110), (12, 120)]);
        let generations: Vec<(&str, &str, u64, i64, u32)> = notes
            .generations
            .iter()
            .map(|g| {
                (
                    g.club.as_str(),
                    g.submission.as_str(),
                    g.offset,
                    g.applied_at_ms,
                    g.partition,
                )
            })
            .collect();
        assert_eq!(
            generations,
            [
                ("B", "1", 11, 110, 3),
                ("A", "1", 12, 120, 3),
                ("A", "2", 12, 120, 3)
            ]
        );
        assert_eq!(notes.dead_letters.len(), 1);
        assert_eq!(notes.dead_letters[0].offset, 10);
    }
}
