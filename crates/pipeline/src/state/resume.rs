//! A state saved and taken up again: what the replay index keeps of the state at the end of the
//! records it read, so that when the log grows it reads on from there instead of judging every
//! seal again from the first record.
//!
//! The results in force are not saved: they are the submissions applied, in order, which the
//! index keeps anyway, and applied again (applying cannot fail) they give the same results,
//! pairs and counts. What is saved is what the applied submissions do not tell: the records
//! waiting for their seal or for each other, each club's queue of sealed submissions, the
//! submissions whose signed content was set aside for good (a copy of one is refused without
//! being gathered), the deals as the event knows them, and the amendments' lines met in the
//! results stream.
//!
//! A state taken up again does not hold what the judge decided before it was saved: its list of
//! submissions judged holds those judged since. The index keeps the rest.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use simpairs_events::Codec;
use simpairs_events::types::{SubmissionApplied, SubmissionSealed};

use super::{EventState, SubmissionKey, Verdict};
use crate::pending::{Part, Pending};

/// What [`EventState::saved`] keeps of a state, to take it up again ([`EventState::resume`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    /// How many submissions had applied: as many must be given back to take it up.
    pub applied: i64,
    /// Submissions with records or a seal, not applied, by club and submission.
    pending: Vec<SavedPending>,
    /// Each club's sealed submissions waiting to apply, in the order of their seals.
    queues: Vec<(String, Vec<String>)>,
    /// Submissions whose signed content was set aside for good, by club and submission.
    set_aside: Vec<(String, String)>,
    /// The deal of each board as the clubs gave it (the first in force to apply one, and the
    /// clubs that gave the same); the organiser's hand records are the roster's.
    deals: crate::known_deals::Learning,
    /// The amendments' lines met in the results stream: amendment, partition, offset.
    lines: Vec<(i64, u32, u64)>,
}

/// One submission's records waiting, as they were received.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SavedPending {
    club: String,
    submission: String,
    /// Each record's first sequence and message, in sequence order.
    records: Vec<(i32, Message)>,
    /// A seal that arrived before all its records, with its offset.
    seal: Option<(SubmissionSealed, i64)>,
}

/// A record's message as it was sent, written in hex.
#[derive(Clone, Debug, PartialEq)]
struct Message(Vec<u8>);

impl Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Message, D::Error> {
        let text = String::deserialize(d)?;
        hex::decode(text)
            .map(Message)
            .map_err(serde::de::Error::custom)
    }
}

/// Why a saved state cannot be taken up.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    #[error("a state is taken up only by a state that has read nothing but the declaration")]
    NotFresh,
    #[error("{saved} submissions had applied, but {given} were given back")]
    Applied { saved: i64, given: usize },
    #[error(
        "the record at sequence {first} of submission {submission} of club {club} does not read back as a record of it"
    )]
    Record {
        club: String,
        submission: String,
        first: i32,
    },
}

impl EventState {
    /// What to keep to take this state up again: see [`EventState::resume`].
    pub fn saved(&self) -> Saved {
        let mut pending: Vec<SavedPending> = self
            .pending
            .iter()
            .map(|((club, submission), p)| SavedPending {
                club: club.to_string(),
                submission: submission.to_string(),
                records: p
                    .records
                    .iter()
                    .map(|(first, message, _)| (*first, Message(message.clone())))
                    .collect(),
                seal: p.seal.clone(),
            })
            .collect();
        pending.sort_by(|a, b| (&a.club, &a.submission).cmp(&(&b.club, &b.submission)));
        let mut queues: Vec<(String, Vec<String>)> = self
            .queues
            .iter()
            .filter(|(_, queue)| !queue.is_empty())
            .map(|(club, queue)| (club.clone(), queue.iter().cloned().collect()))
            .collect();
        queues.sort();
        let mut set_aside: Vec<(String, String)> = self
            .judged
            .iter()
            .filter(|(_, j)| matches!(j.verdict, Verdict::SetAside(_)))
            .map(|(key, _)| key)
            .chain(&self.set_aside_before)
            .map(|(club, submission)| (club.to_string(), submission.to_string()))
            .collect();
        set_aside.sort();
        Saved {
            applied: self.applied_count,
            pending,
            queues,
            set_aside,
            deals: self.deals.learnt().clone(),
            lines: (self.lines.iter()).map(|(&(a, p), &o)| (a, p, o)).collect(),
        }
    }

    /// Takes up a state saved by [`EventState::saved`]: this state must have read the same
    /// declaration and amendments and nothing else, and `applied` are the submissions the saved
    /// state applied, in the order they applied. Records handled next have the effects they
    /// would have had on the saved state.
    pub fn resume(
        &mut self,
        codec: &Codec,
        applied: &[Arc<SubmissionApplied>],
        saved: Saved,
    ) -> Result<(), ResumeError> {
        if self.roster.is_none() || self.applied_count != 0 || !self.pending.is_empty() {
            return Err(ResumeError::NotFresh);
        }
        if applied.len() as i64 != saved.applied {
            return Err(ResumeError::Applied {
                saved: saved.applied,
                given: applied.len(),
            });
        }
        let pending = saved
            .pending
            .into_iter()
            .map(|p| p.restore(codec))
            .collect::<Result<Vec<_>, _>>()?;
        for submission in applied {
            let club = submission.club_id.to_string();
            let key = (
                club.as_str().into(),
                submission.submission_id.as_str().into(),
            );
            self.enter(key, &submission.pairs);
            self.results
                .entry(club.clone())
                .or_default()
                .apply_in_order(submission);
            self.count(club);
        }
        self.pending = pending.into_iter().collect();
        self.queues = saved
            .queues
            .into_iter()
            .map(|(club, queue)| (club, queue.into()))
            .collect();
        self.set_aside_before = saved
            .set_aside
            .into_iter()
            .map(|(club, submission)| (club.into(), submission.into()))
            .collect();
        Arc::make_mut(&mut self.deals).set_learnt(saved.deals);
        self.lines = (saved.lines.into_iter())
            .map(|(a, p, o)| ((a, p), o))
            .collect();
        if let Some(roster) = self.roster.take() {
            self.set_roster(Arc::unwrap_or_clone(roster));
        }
        Ok(())
    }
}

impl SavedPending {
    /// The submission's records read back, each checked to be a record of it.
    fn restore(self, codec: &Codec) -> Result<(SubmissionKey, Pending), ResumeError> {
        let mut pending = Pending::default();
        for (first, Message(message)) in self.records {
            let part = codec
                .skim(&message)
                .ok()
                .and_then(|record| Part::of(record).ok())
                .filter(|part| part.names() == (&self.club, &self.submission, first));
            let Some(part) = part else {
                return Err(ResumeError::Record {
                    club: self.club,
                    submission: self.submission,
                    first,
                });
            };
            pending.insert(first, message, part);
        }
        pending.seal = self.seal;
        Ok(((self.club.into(), self.submission.into()), pending))
    }
}
