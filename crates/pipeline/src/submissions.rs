//! The director's view of an event's submissions: every sealed submission (club, when it was
//! sealed, what it held, whether it applied, was superseded by a later one or was set aside, its
//! warnings and reasons in words) and every record set aside on its own.
//!
//! Rebuilt from the results stream by the judge itself ([`crate::replay`]), not from what the
//! aggregator wrote: the view is what the log says, whoever else writes to it.

use std::collections::HashMap;

use serde::Serialize;
use simpairs_log::Log;

use crate::Result;
use crate::replay::{AsOf, replay_packed};
use crate::state::{EventState, Unsealed, Verdict};

mod holds;
mod published;
pub use holds::Held;

/// What became of a submission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Its results are in force.
    Applied,
    /// Applied, then corrected by a later submission of the same club (its tables replaced
    /// table by table).
    Superseded,
    /// Refused whole; nothing of it applied.
    SetAside,
}

impl State {
    /// The state in words.
    pub fn words(&self) -> &'static str {
        match self {
            State::Applied => "applied",
            State::Superseded => "superseded",
            State::SetAside => "set aside",
        }
    }
}

/// One sealed submission as a director sees it.
#[derive(Clone, Debug, Serialize)]
pub struct SubmissionView {
    pub club: String,
    pub submission: String,
    /// The seal's offset on the results stream (the offset `club publish` printed).
    pub offset: i64,
    pub sealed_at_ms: i64,
    /// The file the club published, as it named it.
    pub source: Option<String>,
    /// Records the seal covers (pairs entered and results).
    pub records: i64,
    pub state: State,
    /// The later submission of the club that corrected it (replaced some or all of its lines).
    pub superseded_by: Option<String>,
    /// How many of its results are in force: all of an applied submission's unless a later one
    /// corrected some of them, none of a superseded one's (`None` when set aside).
    pub lines_in_force: Option<usize>,
    /// Why it was set aside.
    pub reason: Option<String>,
    /// Lines a director should look at.
    pub warnings: Vec<String>,
    /// How a correction was read in the terms of the club's results in force (a section the
    /// file leaves unnamed, a movement it does not give: docs/rules.md, "Corrections").
    pub notes: Vec<String>,
    /// The organiser signed it for the club (a file the club sent it, the club withdrawn).
    pub by_organiser: bool,
}

/// A record set aside on its own (a forged or unreadable record, a seal whose records were
/// altered on the way).
#[derive(Clone, Debug, Serialize)]
pub struct DeadLetterView {
    pub offset: u64,
    pub reason: String,
}

/// A declared club with nothing applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClubNotIn {
    pub club: String,
    pub name: String,
}

/// A club whose submissions applied and left nothing in force: its results withdrawn
/// (`simpairs club withdraw`, by the club or the organiser).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClubWithdrawn {
    pub club: String,
    pub name: String,
    /// The submission that withdrew them, and what it gave as its source (the reason).
    pub submission: String,
    pub source: Option<String>,
}

/// Every submission of an event and every record set aside, in log order; the submissions that
/// cannot apply yet, the declared clubs with nothing applied and the clubs withdrawn, by club.
#[derive(Clone, Debug, Serialize)]
pub struct Submissions {
    pub event: String,
    pub submissions: Vec<SubmissionView>,
    pub dead_letters: Vec<DeadLetterView>,
    pub unsealed: Vec<Unsealed>,
    /// Clubs the event declares (amendments included).
    pub clubs_declared: usize,
    pub not_in: Vec<ClubNotIn>,
    pub withdrawn: Vec<ClubWithdrawn>,
    /// The organiser's hand records, revoked keys and close, and where each holds from.
    pub amendments: Vec<Held>,
    /// When the organiser closed the event (its results final), once its line is met: `None`
    /// while it is open, and as of a moment before the close.
    pub closed_ms: Option<i64>,
    /// How many of the submissions applied here the aggregator has not published yet (the
    /// website shows only what it published); `None` when not known, or for a past moment.
    pub awaiting_aggregator: Option<usize>,
}

impl Submissions {
    /// How many submissions are in `state`.
    pub fn count(&self, state: &State) -> usize {
        self.submissions
            .iter()
            .filter(|s| s.state == *state)
            .count()
    }

    /// How many submissions have a note for the director.
    pub fn with_notes(&self) -> usize {
        self.submissions
            .iter()
            .filter(|s| !s.notes.is_empty())
            .count()
    }
}

pub use crate::words::counted;

/// The submissions of `event` in `log`, as of a moment (or everything).
pub fn list(log: &dyn Log, event: &str, as_of: Option<AsOf>) -> Result<Submissions> {
    // Only the verdicts are listed: the results in force are kept packed.
    let mut listed = from_replay(event, &replay_packed(log, event, as_of)?);
    if as_of.is_none() {
        listed.awaiting_aggregator = published::awaiting(log, event, &listed.submissions)?;
    }
    Ok(listed)
}

/// The submissions of `event` as a replay of it found them.
pub fn from_replay(event: &str, replay: &crate::replay::Replay) -> Submissions {
    let crate::replay::Replay { state, replayed } = replay;
    let organiser = state.roster().and_then(|r| r.organiser).map(|k| k.id());
    let mut submissions: Vec<SubmissionView> = state
        .judged()
        .map(|((club, submission), judged)| {
            let (state, reason, warnings, notes) = match &judged.verdict {
                Verdict::Applied { notes, .. } => {
                    (State::Applied, None, seal_warnings(judged), notes.clone())
                }
                Verdict::SetAside(rejection) => {
                    let reason = Some(rejection.to_string());
                    (State::SetAside, reason, Vec::new(), Vec::new())
                }
            };
            SubmissionView {
                club: club.to_string(),
                submission: submission.to_string(),
                offset: judged.offset,
                sealed_at_ms: judged.sealed_at_ms,
                source: judged.source.clone(),
                records: judged.count,
                state,
                superseded_by: None,
                lines_in_force: None,
                reason,
                warnings,
                notes,
                by_organiser: organiser.as_ref() == Some(&judged.key_id),
            }
        })
        .collect();
    submissions.sort_by_key(|s| s.offset);
    mark_corrected(state, &mut submissions);
    // A record is set aside once, however often it is read (a seal's own rejection is its
    // submission's reason, listed above).
    let mut dead_letters: Vec<DeadLetterView> = replayed
        .dead_letters
        .iter()
        .filter(|(offset, _)| !submissions.iter().any(|s| s.offset == *offset as i64))
        .map(|(offset, reason)| DeadLetterView {
            offset: *offset,
            reason: reason.clone(),
        })
        .collect();
    dead_letters.sort_by_key(|d| d.offset);
    dead_letters.dedup_by_key(|d| d.offset);
    let mut unsealed = state.unsealed();
    unsealed.sort();
    note_deals_no_longer_known(state, &mut submissions);
    Submissions {
        event: event.to_string(),
        clubs_declared: state.roster().map_or(0, |r| r.clubs.len()),
        not_in: not_in(state, &submissions),
        withdrawn: withdrawn(state, &submissions),
        amendments: state.roster().map(holds::holds).unwrap_or_default(),
        closed_ms: (state.roster().and_then(|r| r.closed.as_ref()))
            .filter(|c| c.drawn())
            .map(|c| c.at_ms),
        awaiting_aggregator: None,
        submissions,
        dead_letters,
        unsealed,
    }
}

/// The declared clubs none of whose submissions applied, by club.
fn not_in(state: &EventState, submissions: &[SubmissionView]) -> Vec<ClubNotIn> {
    let Some(roster) = state.roster() else {
        return Vec::new();
    };
    let applied: std::collections::HashSet<&str> = submissions
        .iter()
        .filter(|s| s.state != State::SetAside)
        .map(|s| s.club.as_str())
        .collect();
    let mut not_in: Vec<ClubNotIn> = roster
        .clubs
        .iter()
        .filter(|(club, _)| !applied.contains(club.as_str()))
        .map(|(club, c)| ClubNotIn {
            club: club.clone(),
            name: c.name.clone(),
        })
        .collect();
    not_in.sort_by(|a, b| a.club.cmp(&b.club));
    not_in
}

/// The clubs whose submission in force (the last applied) left nothing in force, by club.
fn withdrawn(state: &EventState, submissions: &[SubmissionView]) -> Vec<ClubWithdrawn> {
    let mut withdrawn: Vec<ClubWithdrawn> = submissions
        .iter()
        .filter(|s| s.state == State::Applied)
        .filter(|s| {
            state
                .club(&s.club)
                .is_none_or(crate::results::ClubResults::is_empty)
        })
        .map(|s| ClubWithdrawn {
            club: s.club.clone(),
            name: (state.roster().and_then(|r| r.clubs.get(&s.club)))
                .map_or_else(|| s.club.clone(), |c| c.name.clone()),
            submission: s.submission.clone(),
            source: s.source.clone(),
        })
        .collect();
    withdrawn.sort_by(|a, b| a.club.cmp(&b.club));
    withdrawn
}

/// Tells a club set aside for its deals, with nothing published since, when none of those
/// boards' deals is known any more (the club that gave them withdrawn, no hand records declared
/// for them): the same file, published again, is not held to them (docs/rules.md, "Hand records").
fn note_deals_no_longer_known(state: &EventState, submissions: &mut [SubmissionView]) {
    let deals = state.deals();
    let set_aside: std::collections::HashMap<(&str, &str), &[i32]> = (state.judged())
        .filter_map(|((club, submission), j)| match &j.verdict {
            Verdict::SetAside(rejection) => {
                Some(((&**club, &**submission), rejection.deals_of_boards()?))
            }
            Verdict::Applied { .. } => None,
        })
        .collect();
    // A club's seals share a partition: in offset order, they are in the order they came.
    let mut published_since = std::collections::HashSet::new();
    for s in submissions.iter_mut().rev() {
        let key = (s.club.as_str(), s.submission.as_str());
        let freed = (set_aside.get(&key)).is_some_and(|boards| {
            (s.state == State::SetAside && !published_since.contains(&s.club))
                && boards.iter().all(|b| !deals.contains_key(b))
        });
        if freed {
            s.notes.push(
                "the deals it was held to are no longer the event's (the club that gave them withdrew its results of those boards): publish the file again"
                    .to_string(),
            );
        }
        published_since.insert(s.club.clone());
    }
}

/// A submission's warnings as its seal carries them: `file:line: field: message`.
fn seal_warnings(judged: &crate::state::Judged) -> Vec<String> {
    let file = judged.source.as_deref().unwrap_or("the file");
    judged
        .warnings
        .iter()
        .map(|w| match w.field.as_str() {
            // A warning about the whole file (its code page) names no field.
            "" => format!("{file}:{}: {}", w.line, w.message),
            field => format!("{file}:{}: {field}: {}", w.line, w.message),
        })
        .collect()
}

/// Each club's applied submissions but the last are corrected by the one after them: superseded
/// when none of their lines is in force any more, still applied while some are (a correction of
/// a few lines leaves the rest of the file in force).
fn mark_corrected(state: &EventState, submissions: &mut [SubmissionView]) {
    let mut applied: HashMap<String, usize> = HashMap::new();
    for s in submissions.iter().filter(|s| s.state == State::Applied) {
        *applied.entry(s.club.clone()).or_default() += 1;
    }
    let mut by_submission: HashMap<String, HashMap<String, usize>> = HashMap::new();
    let mut later: HashMap<String, String> = HashMap::new();
    for s in submissions.iter_mut().rev() {
        if s.state != State::Applied {
            continue;
        }
        let club = state.club(&s.club);
        let lines = match applied[&s.club] {
            1 => club.map_or(0, |c| c.len()),
            _ => (by_submission.entry(s.club.clone()))
                .or_insert_with(|| club.map(|c| c.in_force_by_submission()).unwrap_or_default())
                .get(&s.submission)
                .copied()
                .unwrap_or(0),
        };
        s.lines_in_force = Some(lines);
        match later.get(&s.club) {
            Some(by) => {
                s.superseded_by = Some(by.clone());
                if lines == 0 {
                    s.state = State::Superseded;
                }
            }
            None => {
                later.insert(s.club.clone(), s.submission.clone());
            }
        }
    }
}
