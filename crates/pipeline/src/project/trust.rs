//! What the projection takes from the log, and on whose word: the declaration and the amendments
//! the organiser signed (the roster), and derived records only once a seal of a declared aggregator
//! lists them ([`crate::output::Verifier`]) and only when they fit the event (its clubs and
//! boards). Anything else is set aside, counted, and changes nothing.

use simpairs_events::{Codec, Event, Stream};

use crate::Result;
use crate::output::Verified;
use crate::roster::Roster;

use super::Projection;

/// A record as the projection reads it: its stream, partition and message, and the record
/// decoded (or why it could not be).
pub struct Read {
    pub stream: Stream,
    pub stream_name: String,
    pub partition: u32,
    pub message: Vec<u8>,
    pub decoded: std::result::Result<Event, simpairs_events::Error>,
}

impl Projection {
    /// Takes one record read from the event's streams; returns whether the national field
    /// changed. An event declared by an earlier simpairs with shared keys is an error.
    pub fn read(&mut self, codec: &Codec, read: Read) -> Result<bool> {
        self.records_read += 1;
        let event = match read.decoded {
            Ok(event) => event,
            Err(e) => {
                self.set_aside(&read.stream_name, format!("a record cannot be read: {e}"));
                return Ok(false);
            }
        };
        match (read.stream, event) {
            (Stream::Declarations, Event::EventDeclared(d)) => self.declared(d),
            (Stream::Declarations, Event::EventAmended(a)) => {
                self.amended(codec, &a);
                Ok(false)
            }
            // The projection's own public feed: it only says which generations were published.
            (Stream::Leaderboard, e @ Event::LeaderboardPublished(_)) => Ok(self.apply(e)),
            (Stream::Declarations | Stream::Results, _) => Ok(false),
            (_, event) => Ok(self.derived(&read.stream_name, read.partition, &read.message, event)),
        }
    }

    /// Records read from the event's streams so far (every partition of the declarations,
    /// board-scores, leaderboard and dead-letter streams), whatever became of them: a reader is
    /// caught up when this is the sum of those streams' end offsets.
    pub fn records_read(&self) -> u64 {
        self.records_read
    }

    fn declared(&mut self, declared: simpairs_events::types::EventDeclared) -> Result<bool> {
        if self.roster.is_some() {
            return Ok(false);
        }
        let roster = Roster::new(declared)?;
        self.take_roster(roster);
        Ok(false)
    }

    fn amended(&mut self, codec: &Codec, amended: &simpairs_events::types::EventAmended) {
        let Some(roster) = &mut self.roster else {
            return self.set_aside("declarations", "an amendment before the declaration".into());
        };
        let mut next = roster.clone();
        match next.amend(codec, amended) {
            Ok(()) => self.take_roster(next),
            Err(refused) => self.set_aside("declarations", refused.to_string()),
        }
    }

    /// The roster's names, boards, options and aggregator keys.
    fn take_roster(&mut self, roster: Roster) {
        let mut declared = roster.declared.clone();
        // A set, not a scan of the declared clubs for each club: a national roster has thousands.
        let known: std::collections::HashSet<&str> = roster
            .declared
            .clubs
            .iter()
            .map(|c| c.club_id.as_str())
            .collect();
        for (id, club) in &roster.clubs {
            if !known.contains(id.as_str()) {
                declared.clubs.push(simpairs_events::types::ClubEntry {
                    club_id: id.clone(),
                    name: club.name.clone(),
                    key_id: String::new(),
                    public_key: Vec::new(),
                });
            }
        }
        self.apply(Event::EventDeclared(declared));
        self.verifier.set_keys(roster.aggregators.clone());
        self.roster = Some(roster);
    }

    /// A record of a derived stream: applied once vouched for, if it fits the event.
    fn derived(&mut self, stream: &str, partition: u32, message: &[u8], event: Event) -> bool {
        match self.verifier.handle(stream, partition, message, event) {
            Verified::Wait => false,
            Verified::SetAside(reason) => {
                self.set_aside(stream, reason);
                false
            }
            Verified::Accept(events) => {
                let mut changed = false;
                for event in events {
                    match self.contradiction(&event) {
                        Some(reason) => self.set_aside(stream, reason),
                        None => changed |= self.apply(event),
                    }
                }
                changed
            }
        }
    }

    /// Why a vouched-for record does not fit the event, if it does not.
    fn contradiction(&self, event: &Event) -> Option<String> {
        let roster = self.roster.as_ref()?;
        let club_known = |club: &str| club.is_empty() || roster.clubs.contains_key(club);
        match event {
            Event::SubmissionApplied(a) => {
                if !club_known(&a.club_id) {
                    return Some(format!(
                        "an applied submission of club {}, which is not part of the event",
                        a.club_id
                    ));
                }
                let board = a.results.iter().find(|r| !roster.boards.contains(&r.board));
                board.map(|r| format!("an applied submission of club {} has board {}, which the event does not have", a.club_id, r.board))
            }
            Event::BoardScored(b) if !roster.boards.contains(&b.board) || !club_known(&b.scope) => {
                Some(format!(
                    "scores of board {} of {:?}, which the event does not have",
                    b.board, b.scope
                ))
            }
            Event::StandingsComputed(s) if !club_known(&s.scope) => Some(format!(
                "standings of club {}, which is not part of the event",
                s.scope
            )),
            _ => None,
        }
    }

    fn set_aside(&mut self, stream: &str, reason: String) {
        self.rejected += 1;
        tracing::warn!(stream, "the projection set a record aside: {reason}");
    }
}
