//! [`Event`], the sum of every record type, with its [`EventType`], the [`Stream`] it
//! travels on and its partition key.

use std::fmt;

use crate::types::{
    BoardScored, DeadLettered, EventDeclared, LeaderboardPublished, PairEntered, ResultRecorded,
    ResultWithdrawn, ResultsRecorded, StandingsComputed, SubmissionApplied, SubmissionSealed,
};

/// Every event simpairs writes to its log. One variant per schema in `schemas/`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// The organiser declared an event (stream [`Stream::Declarations`]).
    EventDeclared(EventDeclared),
    /// A club recorded a result (stream [`Stream::Results`]).
    ResultRecorded(ResultRecorded),
    /// A club recorded several results of one board, batched (stream [`Stream::Results`]).
    ResultsRecorded(ResultsRecorded),
    /// A club withdrew a result (stream [`Stream::Results`]).
    ResultWithdrawn(ResultWithdrawn),
    /// A club entered a pair (stream [`Stream::Results`]).
    PairEntered(PairEntered),
    /// A club sealed and signed a submission (stream [`Stream::Results`]).
    SubmissionSealed(SubmissionSealed),
    /// The aggregator applied a submission (stream [`Stream::BoardScores`]).
    SubmissionApplied(SubmissionApplied),
    /// The aggregator scored a board (stream [`Stream::BoardScores`]).
    BoardScored(BoardScored),
    /// The standings of a field were computed (stream [`Stream::Leaderboard`]).
    StandingsComputed(StandingsComputed),
    /// The national leaderboard was published (stream [`Stream::Leaderboard`]).
    LeaderboardPublished(LeaderboardPublished),
    /// A message was set aside (stream [`Stream::DeadLetter`]).
    DeadLettered(DeadLettered),
}

/// The record type of an [`Event`], without its data: the Avro record name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum EventType {
    /// `simpairs.EventDeclared`.
    EventDeclared,
    /// `simpairs.ResultRecorded`.
    ResultRecorded,
    /// `simpairs.ResultsRecorded`.
    ResultsRecorded,
    /// `simpairs.ResultWithdrawn`.
    ResultWithdrawn,
    /// `simpairs.PairEntered`.
    PairEntered,
    /// `simpairs.SubmissionSealed`.
    SubmissionSealed,
    /// `simpairs.SubmissionApplied`.
    SubmissionApplied,
    /// `simpairs.BoardScored`.
    BoardScored,
    /// `simpairs.StandingsComputed`.
    StandingsComputed,
    /// `simpairs.LeaderboardPublished`.
    LeaderboardPublished,
    /// `simpairs.DeadLettered`.
    DeadLettered,
}

impl EventType {
    /// Every record type, in declaration order.
    pub const ALL: [EventType; 11] = [
        EventType::EventDeclared,
        EventType::ResultRecorded,
        EventType::ResultsRecorded,
        EventType::ResultWithdrawn,
        EventType::PairEntered,
        EventType::SubmissionSealed,
        EventType::SubmissionApplied,
        EventType::BoardScored,
        EventType::StandingsComputed,
        EventType::LeaderboardPublished,
        EventType::DeadLettered,
    ];

    /// The Avro record name without namespace, which is also the schema file name
    /// (`schemas/<name>.avsc`) and the golden file name.
    pub fn name(self) -> &'static str {
        match self {
            EventType::EventDeclared => "EventDeclared",
            EventType::ResultRecorded => "ResultRecorded",
            EventType::ResultsRecorded => "ResultsRecorded",
            EventType::ResultWithdrawn => "ResultWithdrawn",
            EventType::PairEntered => "PairEntered",
            EventType::SubmissionSealed => "SubmissionSealed",
            EventType::SubmissionApplied => "SubmissionApplied",
            EventType::BoardScored => "BoardScored",
            EventType::StandingsComputed => "StandingsComputed",
            EventType::LeaderboardPublished => "LeaderboardPublished",
            EventType::DeadLettered => "DeadLettered",
        }
    }

    /// The record type named `name` (without namespace), if there is one.
    pub fn from_name(name: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The stream events of this type are written to.
    pub fn stream(self) -> Stream {
        match self {
            EventType::EventDeclared => Stream::Declarations,
            EventType::ResultRecorded
            | EventType::ResultsRecorded
            | EventType::ResultWithdrawn
            | EventType::PairEntered
            | EventType::SubmissionSealed => Stream::Results,
            EventType::SubmissionApplied | EventType::BoardScored => Stream::BoardScores,
            EventType::StandingsComputed | EventType::LeaderboardPublished => Stream::Leaderboard,
            EventType::DeadLettered => Stream::DeadLetter,
        }
    }

    /// Position in [`EventType::ALL`].
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The streams (Kafka topics, embedded log directories) of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Stream {
    /// `declarations`: [`EventDeclared`]. Small; every consumer reads it first to learn the
    /// clubs and their keys.
    Declarations,
    /// `results`: what clubs publish: [`ResultRecorded`] (or [`ResultsRecorded`]),
    /// [`ResultWithdrawn`],
    /// [`PairEntered`] and [`SubmissionSealed`].
    Results,
    /// `board-scores`: what the aggregator derives: [`SubmissionApplied`] and [`BoardScored`].
    BoardScores,
    /// `leaderboard`: what the projection derives: [`StandingsComputed`] and
    /// [`LeaderboardPublished`].
    Leaderboard,
    /// `dead-letter`: [`DeadLettered`], input set aside with its reason.
    DeadLetter,
}

impl Stream {
    /// Every stream, upstream first.
    pub const ALL: [Stream; 5] = [
        Stream::Declarations,
        Stream::Results,
        Stream::BoardScores,
        Stream::Leaderboard,
        Stream::DeadLetter,
    ];

    /// The stream's name, used as the Kafka topic and the embedded log's directory.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Declarations => "declarations",
            Stream::Results => "results",
            Stream::BoardScores => "board-scores",
            Stream::Leaderboard => "leaderboard",
            Stream::DeadLetter => "dead-letter",
        }
    }
}

impl fmt::Display for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `a/b` as bytes, the separator of composite partition keys.
fn key2(a: &str, b: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(a.len() + 1 + b.len());
    key.extend_from_slice(a.as_bytes());
    key.push(b'/');
    key.extend_from_slice(b.as_bytes());
    key
}

/// `a/<n>` as bytes, `n` in decimal.
fn key_num(a: &str, n: i32) -> Vec<u8> {
    let mut key = Vec::with_capacity(a.len() + 12);
    key.extend_from_slice(a.as_bytes());
    key.push(b'/');
    key.extend_from_slice(n.to_string().as_bytes());
    key
}

impl Event {
    /// The record type of this event.
    pub fn event_type(&self) -> EventType {
        match self {
            Event::EventDeclared(_) => EventType::EventDeclared,
            Event::ResultRecorded(_) => EventType::ResultRecorded,
            Event::ResultsRecorded(_) => EventType::ResultsRecorded,
            Event::ResultWithdrawn(_) => EventType::ResultWithdrawn,
            Event::PairEntered(_) => EventType::PairEntered,
            Event::SubmissionSealed(_) => EventType::SubmissionSealed,
            Event::SubmissionApplied(_) => EventType::SubmissionApplied,
            Event::BoardScored(_) => EventType::BoardScored,
            Event::StandingsComputed(_) => EventType::StandingsComputed,
            Event::LeaderboardPublished(_) => EventType::LeaderboardPublished,
            Event::DeadLettered(_) => EventType::DeadLettered,
        }
    }

    /// The stream this event is written to ([`EventType::stream`]).
    pub fn stream(&self) -> Stream {
        self.event_type().stream()
    }

    /// The event (`EventDeclared.event_id`) this event belongs to; `None` only for a
    /// [`DeadLettered`] whose message could not be read that far.
    pub fn event_id(&self) -> Option<&str> {
        match self {
            Event::EventDeclared(e) => Some(&e.event_id),
            Event::ResultRecorded(e) => Some(&e.event_id),
            Event::ResultsRecorded(e) => Some(&e.event_id),
            Event::ResultWithdrawn(e) => Some(&e.event_id),
            Event::PairEntered(e) => Some(&e.event_id),
            Event::SubmissionSealed(e) => Some(&e.event_id),
            Event::SubmissionApplied(e) => Some(&e.event_id),
            Event::BoardScored(e) => Some(&e.event_id),
            Event::StandingsComputed(e) => Some(&e.event_id),
            Event::LeaderboardPublished(e) => Some(&e.event_id),
            Event::DeadLettered(e) => e.event_id.as_deref(),
        }
    }

    /// The partition key: log backends send events with equal keys to the same partition,
    /// which keeps them in order. UTF-8 text, parts joined by `/`, numbers in decimal:
    ///
    /// | event | key | why |
    /// |---|---|---|
    /// | `ResultRecorded`, `ResultsRecorded`, `ResultWithdrawn` | `event_id/board` | the results of one board must reach the aggregator in order (a withdrawal after the result it withdraws); boards spread over partitions |
    /// | `PairEntered`, `SubmissionSealed`, `SubmissionApplied` | `event_id/club_id` | one club's entries and seals in order |
    /// | `BoardScored` | `scope/board` | successive generations of one board's score in order |
    /// | `StandingsComputed` | `scope` | successive standings of one field in order |
    /// | `EventDeclared`, `LeaderboardPublished` | `event_id` | |
    /// | `DeadLettered` | `event_id`, or `source_stream` when the event is unknown | |
    ///
    /// A club's results and its seal have different keys, so on a partitioned backend a
    /// seal can overtake the results it seals: the consumer holds a seal until it has
    /// received all `count` records of the submission (the digest tells it when the set is
    /// complete and unaltered).
    pub fn partition_key(&self) -> Vec<u8> {
        match self {
            Event::ResultRecorded(e) => key_num(&e.event_id, e.board),
            Event::ResultsRecorded(e) => key_num(&e.event_id, e.board),
            Event::ResultWithdrawn(e) => key_num(&e.event_id, e.board),
            Event::PairEntered(e) => key2(&e.event_id, &e.club_id),
            Event::SubmissionSealed(e) => key2(&e.event_id, &e.club_id),
            Event::SubmissionApplied(e) => Event::submission_applied_key(&e.event_id, &e.club_id),
            Event::BoardScored(e) => key_num(&e.scope, e.board),
            Event::StandingsComputed(e) => e.scope.as_bytes().to_vec(),
            Event::EventDeclared(e) => e.event_id.as_bytes().to_vec(),
            Event::LeaderboardPublished(e) => e.event_id.as_bytes().to_vec(),
            Event::DeadLettered(e) => e
                .event_id
                .as_deref()
                .unwrap_or(&e.source_stream)
                .as_bytes()
                .to_vec(),
        }
    }
}

impl Event {
    /// [`Event::partition_key`] of a club's `SubmissionApplied`, for one held outside an `Event`
    /// (see [`crate::Codec::encode_submission_applied`]).
    pub fn submission_applied_key(event_id: &str, club_id: &str) -> Vec<u8> {
        key2(event_id, club_id)
    }
}

macro_rules! from_record {
    ($($ty:ident),* $(,)?) => {
        $(
            impl From<$ty> for Event {
                fn from(record: $ty) -> Event {
                    Event::$ty(record)
                }
            }
        )*
    };
}

from_record!(
    EventDeclared,
    ResultRecorded,
    ResultsRecorded,
    ResultWithdrawn,
    PairEntered,
    SubmissionSealed,
    SubmissionApplied,
    BoardScored,
    StandingsComputed,
    LeaderboardPublished,
    DeadLettered,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_samples as samples;

    fn key(event: impl Into<Event>) -> String {
        String::from_utf8(event.into().partition_key()).unwrap()
    }

    #[test]
    fn partition_keys() {
        assert_eq!(key(samples::result_recorded()), "SIM-2026-11/7");
        assert_eq!(key(samples::results_recorded()), "SIM-2026-11/7");
        assert_eq!(key(samples::result_withdrawn()), "SIM-2026-11/7");
        assert_eq!(key(samples::pair_entered()), "SIM-2026-11/bristol");
        assert_eq!(key(samples::submission_sealed()), "SIM-2026-11/bristol");
        assert_eq!(key(samples::submission_applied()), "SIM-2026-11/bristol");
        assert_eq!(key(samples::board_scored()), "/4");
        assert_eq!(key(samples::standings_computed()), "bristol");
        assert_eq!(key(samples::event_declared()), "SIM-2026-11");
        assert_eq!(key(samples::leaderboard_published()), "SIM-2026-11");
        assert_eq!(key(samples::dead_lettered()), "results");
        let mut dead = samples::dead_lettered();
        dead.event_id = Some("SIM-2026-11".into());
        assert_eq!(key(dead), "SIM-2026-11");
        let mut scored = samples::board_scored();
        scored.scope = "gwynedd".into();
        scored.board = -3;
        assert_eq!(key(scored), "gwynedd/-3");
    }

    #[test]
    fn a_result_and_its_withdrawal_share_a_key() {
        let recorded = samples::result_recorded();
        let mut withdrawn = samples::result_withdrawn();
        assert_eq!(key(recorded.clone()), key(withdrawn.clone()));
        withdrawn.board += 1;
        assert_ne!(key(recorded), key(withdrawn));
    }

    #[test]
    fn event_type_names_round_trip() {
        for (i, t) in EventType::ALL.into_iter().enumerate() {
            assert_eq!(t.index(), i);
            assert_eq!(EventType::from_name(t.name()), Some(t));
            assert_eq!(t.to_string(), t.name());
        }
        assert_eq!(EventType::from_name("ResultRecordedd"), None);
    }

    #[test]
    fn event_ids() {
        for event in samples::samples() {
            let expected = match &event {
                Event::DeadLettered(_) => None,
                _ => Some(samples::EVENT_ID),
            };
            assert_eq!(event.event_id(), expected, "{}", event.event_type());
        }
    }
}
