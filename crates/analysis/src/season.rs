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

/// One event the player played in (once per pair the player was entered in).
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
    pub events: Vec<PlayerEvent>,
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
    Ok(PlayerHistory {
        national_id: wanted.to_string(),
        names,
        events,
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
