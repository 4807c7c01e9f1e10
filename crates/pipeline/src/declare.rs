//! The organiser's part: declaring an event (its boards, scoring, factoring and the clubs that may
//! publish, each with the key its submissions are signed with).
//!
//! Clubs file (CSV): `club,name[,key]`. `key` is the club's HMAC-SHA256 key in hex (64 hex digits); a
//! club without one gets a fresh random key, written to `<keys dir>/<club>.key` for the organiser to
//! hand to the club. A key's id (`k` + 12 hex digits of its SHA-256) travels with every seal so a club
//! can be re-keyed.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use simpairs_events::types::{ClubEntry, EventDeclared, Factoring, Scoring};
use simpairs_events::{Codec, Event, Stream};
use simpairs_log::{Log, Produce, StreamConfig};

use crate::{Error, Result, now_ms, stream_name};

/// The stream listing every event declared in a log (keys removed), so roles can find them.
pub const CATALOG: &str = "simpairs-events";

/// A key's id: `k` + the first 12 hex digits of its SHA-256.
pub fn key_id(key: &[u8]) -> String {
    let digest = Sha256::digest(key);
    format!("k{}", &hex::encode(digest)[..12])
}

/// A fresh random 32-byte key.
pub fn new_key() -> Result<Vec<u8>> {
    let mut key = vec![0u8; 32];
    getrandom::fill(&mut key).map_err(|e| Error::Io(format!("cannot draw a random key: {e}")))?;
    Ok(key)
}

/// Parses a key file or field: hex, surrounding whitespace ignored, 16 to 64 bytes.
pub fn parse_key(text: &str, source: &str) -> Result<Vec<u8>> {
    let key = hex::decode(text.trim())
        .map_err(|e| Error::Usage(format!("{source}: the key is not hex: {e}")))?;
    if !(16..=64).contains(&key.len()) {
        return Err(Error::Usage(format!(
            "{source}: a key is 16 to 64 bytes (32 to 128 hex digits), not {} bytes",
            key.len()
        )));
    }
    Ok(key)
}

/// Parses board numbers: `1-27`, `1-24,30,31`.
pub fn parse_boards(text: &str) -> Result<Vec<i32>> {
    let mut boards = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || {
            Error::Usage(format!(
                "--boards: {part:?} is not a board number or a range like 1-27"
            ))
        };
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (
                a.trim().parse::<i32>().map_err(|_| bad())?,
                b.trim().parse::<i32>().map_err(|_| bad())?,
            ),
            None => {
                let n = part.parse::<i32>().map_err(|_| bad())?;
                (n, n)
            }
        };
        if a < 1 || b < a || b > 65_535 {
            return Err(bad());
        }
        boards.extend(a..=b);
    }
    boards.sort_unstable();
    boards.dedup();
    if boards.is_empty() {
        return Err(Error::Usage("--boards names no board".into()));
    }
    Ok(boards)
}

/// A club as the clubs file gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClubLine {
    pub club_id: String,
    pub name: String,
    pub key: Option<Vec<u8>>,
}

/// Reads the clubs file.
pub fn read_clubs(path: &Path) -> Result<Vec<ClubLine>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Io(format!("cannot read {}: {e}", path.display())))?;
    let mut lines = text.lines().enumerate();
    let header: Vec<String> = lines
        .next()
        .map(|(_, h)| {
            h.split(',')
                .map(|c| c.trim().to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default();
    let col = |name: &str| header.iter().position(|c| c == name);
    let (Some(club_at), name_at, key_at) = (col("club"), col("name"), col("key")) else {
        return Err(Error::Usage(format!(
            "{}:1: the clubs file needs a header with a club column (club,name,key)",
            path.display()
        )));
    };
    let mut clubs: Vec<ClubLine> = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let at = format!("{}:{}", path.display(), i + 1);
        let club_id = fields.get(club_at).copied().unwrap_or_default();
        if club_id.is_empty()
            || !club_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
        {
            return Err(Error::Usage(format!(
                "{at}: field club: a club id is letters, digits, '.', '_' or '-', not {club_id:?}"
            )));
        }
        if clubs.iter().any(|c| c.club_id == club_id) {
            return Err(Error::Usage(format!(
                "{at}: field club: club {club_id} is listed twice"
            )));
        }
        let name = name_at
            .and_then(|n| fields.get(n))
            .copied()
            .unwrap_or(club_id)
            .to_string();
        let key = match key_at.and_then(|k| fields.get(k)).copied() {
            Some(k) if !k.is_empty() => Some(parse_key(k, &format!("{at}: field key"))?),
            _ => None,
        };
        clubs.push(ClubLine {
            club_id: club_id.to_string(),
            name,
            key,
        });
    }
    if clubs.is_empty() {
        return Err(Error::Usage(format!(
            "{}: the clubs file lists no club",
            path.display()
        )));
    }
    Ok(clubs)
}

/// What to declare.
#[derive(Clone, Debug)]
pub struct Declaration {
    pub event_id: String,
    pub name: String,
    pub boards: Vec<i32>,
    pub scoring: Scoring,
    pub factoring: Factoring,
    pub clubs: Vec<ClubLine>,
    /// Where fresh keys are written (`<dir>/<club>.key`); `None` keeps them only in the declaration.
    pub keys_dir: Option<PathBuf>,
    /// Partitions of the results stream (1 for the embedded log).
    pub partitions: u32,
}

impl Declaration {
    /// A matchpoint event with Neuberg factoring (the defaults of `event declare`) on boards
    /// `1..=boards`, its keys kept only in the declaration.
    pub fn matchpoints(
        event_id: &str,
        name: &str,
        boards: u16,
        clubs: Vec<ClubLine>,
        partitions: u32,
    ) -> Declaration {
        Declaration {
            event_id: event_id.to_string(),
            name: name.to_string(),
            boards: (1..=i32::from(boards)).collect(),
            scoring: Scoring::Matchpoints,
            factoring: Factoring::Neuberg,
            clubs,
            keys_dir: None,
            partitions,
        }
    }
}

/// Creates the event's streams and writes its declaration (and catalog entry). Declaring the same event
/// again with the same content changes nothing; with different content it is refused.
pub fn declare(log: &dyn Log, d: Declaration) -> Result<EventDeclared> {
    crate::streams::check_event_id(&d.event_id)?;
    let codec = Codec::new()?;
    let mut clubs = Vec::with_capacity(d.clubs.len());
    for club in &d.clubs {
        let key = match &club.key {
            Some(k) => k.clone(),
            None => {
                let key = new_key()?;
                if let Some(dir) = &d.keys_dir {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
                    let path = dir.join(format!("{}.key", club.club_id));
                    std::fs::write(&path, format!("{}\n", hex::encode(&key)))
                        .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))?;
                }
                key
            }
        };
        clubs.push(ClubEntry {
            club_id: club.club_id.clone(),
            name: club.name.clone(),
            key_id: key_id(&key),
            hmac_key: key,
        });
    }
    let declared = EventDeclared {
        event_id: d.event_id.clone(),
        name: d.name.clone(),
        boards: d.boards.clone(),
        scoring: d.scoring,
        factoring: d.factoring,
        clubs,
        declared_at_ms: now_ms(),
    };
    for stream in Stream::ALL {
        let partitions = if stream == Stream::Results || stream == Stream::BoardScores {
            d.partitions
        } else {
            1
        };
        // Derived output is compacted where the log can (Kafka): only the latest board scores and
        // standings of each scope are needed to rebuild the views (every `SubmissionApplied` has a key
        // of its own, so all of them stay). The results and everything else are kept forever.
        let config = StreamConfig {
            partitions,
            compacted: matches!(stream, Stream::BoardScores | Stream::Leaderboard),
            retention: None,
        };
        log.create_stream(&stream_name(&d.event_id, stream), &config)?;
    }
    log.create_stream(CATALOG, &StreamConfig::default())?;
    let declarations = stream_name(&d.event_id, Stream::Declarations);
    let mut existing = None;
    let end = log.end_offset(&declarations, 0)?;
    crate::read_range(log, &declarations, 0, 0, end, |r| {
        if let Ok(Event::EventDeclared(e)) = codec.decode(&r.value) {
            existing.get_or_insert(e);
        }
    })?;
    if let Some(e) = existing {
        let same = e.boards == declared.boards
            && e.scoring == declared.scoring
            && e.factoring == declared.factoring
            && e.clubs
                .iter()
                .map(|c| (&c.club_id, &c.name))
                .eq(declared.clubs.iter().map(|c| (&c.club_id, &c.name)))
            && d.clubs
                .iter()
                .zip(&e.clubs)
                .all(|(line, c)| line.key.as_ref().is_none_or(|k| *k == c.hmac_key));
        if same {
            return Ok(e);
        }
        return Err(Error::Usage(format!(
            "event {} is already declared differently in this log; declare a new event id instead",
            d.event_id
        )));
    }
    let event = Event::EventDeclared(declared.clone());
    let bytes = codec.encode(&event);
    let key = event.partition_key();
    log.append(
        &declarations,
        &[Produce::new(&key, &bytes, declared.declared_at_ms)],
    )?;
    // The catalog entry carries no keys.
    let listed = Event::EventDeclared(EventDeclared {
        clubs: declared
            .clubs
            .iter()
            .map(|c| ClubEntry {
                hmac_key: Vec::new(),
                ..c.clone()
            })
            .collect(),
        ..declared.clone()
    });
    let bytes = codec.encode(&listed);
    log.append(
        CATALOG,
        &[Produce::new(&key, &bytes, declared.declared_at_ms)],
    )?;
    Ok(declared)
}

/// The events declared in a log, in declaration order.
pub fn events(log: &dyn Log) -> Result<Vec<EventDeclared>> {
    let codec = Codec::new()?;
    let end = match log.end_offset(CATALOG, 0) {
        Ok(end) => end,
        Err(_) => return Ok(Vec::new()),
    };
    let mut out: Vec<EventDeclared> = Vec::new();
    crate::read_range(log, CATALOG, 0, 0, end, |r| {
        if let Ok(Event::EventDeclared(e)) = codec.decode(&r.value)
            && !out.iter().any(|o| o.event_id == e.event_id)
        {
            out.push(e);
        }
    })?;
    Ok(out)
}

/// The one event of a log, or the one named; a clear error otherwise.
pub fn pick_event(log: &dyn Log, wanted: Option<&str>) -> Result<String> {
    let events = events(log)?;
    match wanted {
        Some(w) => {
            if events.iter().any(|e| e.event_id == w) {
                Ok(w.to_string())
            } else {
                Err(Error::Usage(format!(
                    "event {w} is not declared in this log (declared: {})",
                    list(&events)
                )))
            }
        }
        None => match events.as_slice() {
            [one] => Ok(one.event_id.clone()),
            [] => Err(Error::Usage(
                "no event is declared in this log; run simpairs event declare first".into(),
            )),
            _ => Err(Error::Usage(format!(
                "this log holds several events ({}); say which with --event",
                list(&events)
            ))),
        },
    }
}

fn list(events: &[EventDeclared]) -> String {
    if events.is_empty() {
        return "none".into();
    }
    events
        .iter()
        .map(|e| e.event_id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_ranges() {
        assert_eq!(parse_boards("1-3").unwrap(), [1, 2, 3]);
        assert_eq!(parse_boards("1-2, 5,2").unwrap(), [1, 2, 5]);
        for bad in ["", "0-3", "3-1", "a", "1-x", "70000"] {
            assert!(parse_boards(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn keys() {
        let k = parse_key(&"ab".repeat(32), "t").unwrap();
        assert_eq!(k.len(), 32);
        assert!(key_id(&k).starts_with('k') && key_id(&k).len() == 13);
        assert!(parse_key("zz", "t").is_err());
        assert!(
            parse_key("abcd", "t")
                .unwrap_err()
                .to_string()
                .contains("16 to 64 bytes")
        );
    }
}
