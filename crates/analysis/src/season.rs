//! A player's season: every event of a log the player played in (found by national id among the
//! players the clubs entered), with partners, percentages and places, nationally and in the club.

use std::path::Path;

use serde::Serialize;
use simpairs_log::Log;
use simpairs_pipeline::history::replay_at;

use crate::figures::{Figures, PairKey, standings};
use crate::{Error, Result};

/// Someone who played with the player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Partner {
    pub name: String,
    pub national_id: Option<String>,
}

/// One event the player played in, with one of the player's pairs in it (an event has a line
/// per pair the player was entered in: see [`PlayerHistory::in_two_pairs`]).
#[derive(Clone, Debug, Serialize)]
pub struct PlayerEvent {
    pub event: String,
    pub event_name: String,
    pub declared_at_ms: i64,
    pub club: String,
    pub club_name: String,
    pub section: String,
    pub pair: String,
    pub direction: String,
    /// The player's name as the club wrote it.
    pub name: String,
    pub partners: Vec<Partner>,
    /// In the national field (every club); `None` if the pair has no result in force.
    pub national: Option<Figures>,
    /// Pairs ranked nationally.
    pub national_pairs: usize,
    /// In the club's own field.
    pub club_figures: Option<Figures>,
    pub club_pairs: usize,
}

/// A player's events on a log, in the order they were declared.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerHistory {
    pub national_id: String,
    /// The names the clubs wrote for the player.
    pub names: Vec<String>,
    /// Events the player played in, each counted once (`events` has a line per pair).
    pub event_count: usize,
    /// One line per pair the player was entered in: an event twice when the national id is in
    /// two pairs of it (see `in_two_pairs`).
    pub events: Vec<PlayerEvent>,
    /// Events in which the national id is in more than one pair: impossible in a simultaneous
    /// event (one player, one table), so a national id entered twice, or mistyped, to look at.
    pub in_two_pairs: Vec<TwoPairs>,
}

/// An event in which one national id is in more than one pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TwoPairs {
    pub event: String,
    /// The clubs of those pairs (each once, in the order of `events`).
    pub clubs: Vec<String>,
    /// How many pairs have the national id.
    pub pairs: usize,
    /// In words, for a warning.
    pub warning: String,
}

impl PlayerHistory {
    /// The player's lines grouped by event, in the order of `events`: each event once, with the
    /// pairs the player was in.
    pub fn by_event(&self) -> Vec<(&str, Vec<&PlayerEvent>)> {
        let mut out: Vec<(&str, Vec<&PlayerEvent>)> = Vec::new();
        for e in &self.events {
            match out.iter_mut().find(|(event, _)| *event == e.event) {
                Some((_, lines)) => lines.push(e),
                None => out.push((&e.event, vec![e])),
            }
        }
        out
    }
}

/// The events of `events` in which the player is in more than one pair.
fn in_two_pairs(national_id: &str, events: &[PlayerEvent]) -> Vec<TwoPairs> {
    let mut out: Vec<TwoPairs> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for e in events {
        if seen.contains(&e.event.as_str()) {
            continue;
        }
        seen.push(&e.event);
        let lines: Vec<&PlayerEvent> = events.iter().filter(|x| x.event == e.event).collect();
        if lines.len() < 2 {
            continue;
        }
        let mut clubs: Vec<String> = Vec::new();
        for l in &lines {
            if !clubs.contains(&l.club) {
                clubs.push(l.club.clone());
            }
        }
        let pairs = simpairs_pipeline::submissions::counted(lines.len(), "pair", "pairs");
        let warning = if clubs.len() > 1 {
            format!(
                "national ID {national_id} is in {pairs} of event {} in {} clubs ({}): one player cannot play in two clubs of a simultaneous event, so the ID was entered for two players, or mistyped",
                e.event,
                clubs.len(),
                clubs.join(", ")
            )
        } else {
            format!(
                "national ID {national_id} is in {pairs} of event {} in club {}: one player cannot play in two pairs of an event, so the ID was entered for two players, or mistyped",
                e.event, clubs[0]
            )
        };
        out.push(TwoPairs {
            event: e.event.clone(),
            clubs,
            pairs: lines.len(),
            warning,
        });
    }
    out
}

/// Every event of `log` in which a pair had a player with `national_id` (compared without
/// surrounding spaces), as each event stands now.
pub fn player_history(
    log: &dyn Log,
    national_id: &str,
    index_dir: Option<&Path>,
) -> Result<PlayerHistory> {
    let wanted = national_id.trim();
    if wanted.is_empty() {
        return Err(Error::NoPlayerId);
    }
    let mut events = Vec::new();
    for declared in simpairs_pipeline::declare::events(log)? {
        events.extend(in_event(log, &declared, wanted, index_dir)?);
    }
    let mut names: Vec<String> = events.iter().map(|e| e.name.clone()).collect();
    names.sort();
    names.dedup();
    let in_two_pairs = in_two_pairs(wanted, &events);
    let mut counted: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    counted.dedup();
    let event_count = counted.len();
    Ok(PlayerHistory {
        national_id: wanted.to_string(),
        names,
        event_count,
        events,
        in_two_pairs,
    })
}

/// The player's pairs in one event.
fn in_event(
    log: &dyn Log,
    declared: &simpairs_events::types::EventDeclared,
    wanted: &str,
    index_dir: Option<&Path>,
) -> Result<Vec<PlayerEvent>> {
    let event = &declared.event_id;
    let moment = replay_at(log, event, index_dir, None)?;
    let results = moment.results()?;
    let found: Vec<(&PairKey, &Vec<simpairs_events::types::Player>)> = results
        .pairs()
        .iter()
        .filter(|(_, players)| {
            players
                .iter()
                .any(|p| p.national_id.as_deref().map(str::trim) == Some(wanted))
        })
        .collect();
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let options = simpairs_pipeline::wire::options_from_wire(&moment.declared)?;
    let national = standings(&moment.field(None)?, &options)?;
    let mut out = Vec::new();
    for (key, players) in found {
        let club = match moment.field(Some(&key.club)) {
            Ok(field) => standings(&field, &options)?,
            Err(_) => Default::default(),
        };
        let me = players
            .iter()
            .find(|p| p.national_id.as_deref().map(str::trim) == Some(wanted));
        out.push(PlayerEvent {
            event: event.clone(),
            event_name: declared.name.clone(),
            declared_at_ms: declared.declared_at_ms,
            club: key.club.clone(),
            club_name: declared
                .clubs
                .iter()
                .find(|c| c.club_id == key.club)
                .map_or_else(|| key.club.clone(), |c| c.name.clone()),
            section: key.section.clone(),
            pair: key.pair.clone(),
            direction: key.direction.to_string(),
            name: me.map(|p| p.name.clone()).unwrap_or_default(),
            partners: players
                .iter()
                .filter(|p| p.national_id.as_deref().map(str::trim) != Some(wanted))
                .map(|p| Partner {
                    name: p.name.clone(),
                    national_id: p.national_id.clone(),
                })
                .collect(),
            national: national.get(key).cloned(),
            national_pairs: national.len(),
            club_figures: club.get(key).cloned(),
            club_pairs: club.len(),
        });
    }
    Ok(out)
}
