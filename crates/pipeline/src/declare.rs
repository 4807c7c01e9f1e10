//! The organiser's part: declaring an event (its boards, scoring, limits and the clubs that may
//! publish, each with the public half of the key its submissions are signed with) and amending it
//! (clubs and keys added, keys revoked, the boards' hand records).
//!
//! Clubs file (CSV): `club,name[,public_key]`. `public_key` is the club's public key as
//! `simpairs club keygen` prints it: the club made its key pair and kept the private half. A club
//! without one gets a fresh key pair whose private half is written to `<keys dir>/<club>.key`
//! (mode 0600) for the organiser to hand over. The aggregator's and the organiser's key pairs are
//! made the same way (`aggregator.key`, `organiser.key`). No private key is ever written to the
//! log, and no key file is ever written over.

use std::path::{Path, PathBuf};

use simpairs_events::types::{
    ClubEntry, EventAmended, EventDeclared, Factoring, KeyEntry, Scoring,
};
use simpairs_events::{Codec, Event, PrivateKey, PublicKey, Stream};
use simpairs_log::{Log, Produce, StreamConfig};

use crate::keys;
use crate::limits::Limits;
use crate::roster::{IN_BAND, Roster};
use crate::{BadClubId, DeclareError, Error, EventError, KeyError, Result, now_ms, stream_name};

/// The stream listing every event declared in a log, so roles can find them.
pub const CATALOG: &str = "simpairs-events";

/// Parses board numbers: `1-27`, `1-24,30,31`.
pub fn parse_boards(text: &str) -> Result<Vec<i32>> {
    let mut boards = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || DeclareError::BadBoards {
            part: part.to_string(),
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
            return Err(bad().into());
        }
        boards.extend(a..=b);
    }
    boards.sort_unstable();
    boards.dedup();
    if boards.is_empty() {
        return Err(DeclareError::NoBoards.into());
    }
    Ok(boards)
}

/// A club as the clubs file gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClubLine {
    pub club_id: String,
    pub name: String,
    /// The club's public key, when the club made its own key pair.
    pub public_key: Option<PublicKey>,
}

/// The clubs a clubs file lists, with what the organiser should look at (how its text was read).
#[derive(Clone, Debug)]
pub struct ClubsFile {
    pub clubs: Vec<ClubLine>,
    /// As `file:line: message`.
    pub warnings: Vec<String>,
}

/// Reads the clubs file: a table a spreadsheet saved as CSV (`club`, `name`, `public_key`), read
/// as a traveller CSV is (separators, quoted names, character sets: docs/rules-input.md).
pub fn read_clubs(path: &Path) -> Result<ClubsFile> {
    let bytes = std::fs::read(path).map_err(crate::io("read", path))?;
    let table =
        simpairs_formats::table::read_table(&path.display().to_string(), &bytes, &["club"])?;
    if table.column("key").is_some() {
        return Err(DeclareError::KeyColumn {
            path: path.to_path_buf(),
        }
        .into());
    }
    let Some(club_at) = table.column("club") else {
        return Err(DeclareError::NoClubColumn {
            path: path.to_path_buf(),
        }
        .into());
    };
    let (name_at, key_at) = (table.column("name"), table.column("public_key"));
    let mut clubs: Vec<ClubLine> = Vec::new();
    let mut listed = std::collections::HashSet::new();
    for row in &table.rows {
        let at = format!("{}:{}", path.display(), row.line);
        let club = club_line(row, club_at, name_at, key_at, &at)?;
        if !listed.insert(club.club_id.clone()) {
            return Err(DeclareError::ClubTwice {
                at,
                club: club.club_id,
            }
            .into());
        }
        clubs.push(club);
    }
    if clubs.is_empty() {
        return Err(DeclareError::NoClubs {
            path: path.to_path_buf(),
        }
        .into());
    }
    let warnings = table.warnings.iter().map(ToString::to_string).collect();
    Ok(ClubsFile { clubs, warnings })
}

/// One line of the clubs file.
fn club_line(
    row: &simpairs_formats::table::TableRow,
    club_at: usize,
    name_at: Option<usize>,
    key_at: Option<usize>,
    at: &str,
) -> Result<ClubLine> {
    let club_id = row.field(club_at);
    check_club_id(club_id).map_err(|source| DeclareError::BadClubId {
        at: at.to_string(),
        source,
    })?;
    let name = name_at
        .map(|n| row.field(n))
        .filter(|n| !n.is_empty())
        .unwrap_or(club_id)
        .to_string();
    let public_key = match key_at.map(|k| row.field(k)) {
        Some(k) if !k.is_empty() => {
            Some(keys::parse_public(k, &format!("{at}: field public_key"))?)
        }
        _ => None,
    };
    Ok(ClubLine {
        club_id: club_id.to_string(),
        name,
        public_key,
    })
}

/// A club id names key files and travels in every record: letters, digits, `.`, `_`, `-`.
pub(crate) fn check_club_id(club_id: &str) -> std::result::Result<(), BadClubId> {
    let ok = !club_id.is_empty()
        && club_id.len() <= 64
        && !club_id.starts_with('.')
        && club_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(BadClubId {
            club: club_id.to_string(),
        })
    }
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
    /// Where fresh private keys are written (`<dir>/<club>.key`, `aggregator.key`,
    /// `organiser.key`); without it every key must be given.
    pub keys_dir: Option<PathBuf>,
    /// Partitions of the results stream (1 for the embedded log).
    pub partitions: u32,
    pub limits: Limits,
    /// The scoring conventions, in their text form.
    pub conventions: Option<String>,
    /// The aggregators' public keys; none: a fresh key pair is made.
    pub aggregator_keys: Vec<PublicKey>,
    /// The organiser's public key; none: a fresh key pair is made.
    pub organiser_key: Option<PublicKey>,
}

impl Declaration {
    /// A matchpoint event with Neuberg factoring (the defaults of `event declare`) on boards
    /// `1..=boards`, with default limits; keys as given.
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
            limits: Limits::default(),
            conventions: None,
            aggregator_keys: Vec::new(),
            organiser_key: None,
        }
    }

    /// The declaration with these aggregator and organiser keys (no key pairs made for them).
    pub fn with_keys(self, aggregator: PublicKey, organiser: PublicKey) -> Declaration {
        Declaration {
            aggregator_keys: vec![aggregator],
            organiser_key: Some(organiser),
            ..self
        }
    }
}

/// What declaring wrote besides the log: the private key files made.
#[derive(Clone, Debug)]
pub struct Declared {
    pub event: EventDeclared,
    pub key_files: Vec<PathBuf>,
    /// Clubs an amendment listed that the event had already, as they were: left as they are.
    pub unchanged: Vec<String>,
}

/// A key pair made, and where its private half goes.
struct FreshKey {
    path: PathBuf,
    key: PrivateKey,
}

/// Key pairs made for whoever had no public key.
#[derive(Default)]
struct Made {
    dir: Option<PathBuf>,
    keys: Vec<FreshKey>,
}

impl Made {
    fn new(dir: Option<PathBuf>) -> Made {
        Made {
            dir,
            keys: Vec::new(),
        }
    }

    /// A fresh key pair for `name`, its private half to go to `<dir>/<name>.key`, which must not
    /// exist yet.
    fn fresh(&mut self, name: &str) -> Result<PublicKey> {
        let Some(dir) = &self.dir else {
            return Err(DeclareError::NoKeysDir {
                name: name.to_string(),
            }
            .into());
        };
        let path = dir.join(format!("{name}.key"));
        if path.exists() || self.keys.iter().any(|k| k.path == path) {
            return Err(DeclareError::KeyFileExists { path }.into());
        }
        let key = keys::generate()?;
        let public = key.public();
        self.keys.push(FreshKey { path, key });
        Ok(public)
    }

    /// Writes the private keys; on failure, removes the ones written (nothing uses them yet).
    fn write(&self) -> Result<Vec<PathBuf>> {
        let mut written = Vec::new();
        for k in &self.keys {
            if let Err(e) = keys::write_private(&k.key, &k.path) {
                self.remove(&written);
                return Err(e);
            }
            written.push(k.path.clone());
        }
        Ok(written)
    }

    fn remove(&self, written: &[PathBuf]) {
        for path in written {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Names that key files of the event's roles take.
const ROLE_KEYS: [&str; 2] = ["aggregator", "organiser"];

/// The clubs as the declaration carries them: each with its public key, given or made.
fn club_entries(clubs: &[ClubLine], made: &mut Made) -> Result<Vec<ClubEntry>> {
    clubs
        .iter()
        .map(|c| {
            if ROLE_KEYS.contains(&c.club_id.as_str()) {
                return Err(DeclareError::RoleName {
                    club: c.club_id.clone(),
                }
                .into());
            }
            let key = match c.public_key {
                Some(k) => k,
                None => made.fresh(&c.club_id)?,
            };
            Ok(ClubEntry {
                club_id: c.club_id.clone(),
                name: c.name.clone(),
                key_id: key.id(),
                public_key: key.to_bytes().to_vec(),
            })
        })
        .collect()
}

fn key_entry(key: &PublicKey) -> KeyEntry {
    KeyEntry {
        key_id: key.id(),
        public_key: key.to_bytes().to_vec(),
    }
}

/// The declaration record of `d`, its keys given or made.
fn declaration_of(d: &Declaration, made: &mut Made) -> Result<EventDeclared> {
    let clubs = club_entries(&d.clubs, made)?;
    let aggregators = if d.aggregator_keys.is_empty() {
        vec![made.fresh("aggregator")?]
    } else {
        d.aggregator_keys.clone()
    };
    let organiser = match d.organiser_key {
        Some(k) => k,
        None => made.fresh("organiser")?,
    };
    Ok(EventDeclared {
        event_id: d.event_id.clone(),
        name: d.name.clone(),
        boards: d.boards.clone(),
        scoring: d.scoring,
        factoring: d.factoring,
        clubs,
        declared_at_ms: now_ms(),
        aggregator_keys: aggregators.iter().map(key_entry).collect(),
        organiser_key: Some(key_entry(&organiser)),
        limits: Some(crate::roster::event_limits(&d.limits)),
        conventions: d.conventions.clone(),
    })
}

/// Creates the event's streams (derived output compacted where the log can: only the latest
/// board scores and standings of each scope are needed; every `SubmissionApplied` has a key of
/// its own, so all of them stay).
fn create_streams(log: &dyn Log, event_id: &str, partitions: u32) -> Result<()> {
    for stream in Stream::ALL {
        let partitions = if stream == Stream::Results || stream == Stream::BoardScores {
            partitions
        } else {
            1
        };
        let config = StreamConfig {
            partitions,
            compacted: matches!(stream, Stream::BoardScores | Stream::Leaderboard),
            retention: None,
        };
        log.create_stream(&stream_name(event_id, stream), &config)?;
    }
    log.create_stream(CATALOG, &StreamConfig::default())?;
    Ok(())
}

/// Declares an event: refuses one that exists (declared in this log), makes key pairs for
/// whoever gave no public key (private halves to `keys_dir`, never over a file), creates the
/// streams and writes the declaration and its catalog entry.
pub fn declare(log: &dyn Log, d: Declaration) -> Result<Declared> {
    crate::streams::check_event_id(&d.event_id)?;
    let codec = Codec::new()?;
    if let Some(existing) = events(log)?.into_iter().find(|e| e.event_id == d.event_id) {
        return Err(Error::AlreadyDeclared {
            event: d.event_id.clone(),
            clubs: existing.clubs.len(),
            declared_at: crate::replay::describe_time(existing.declared_at_ms),
        });
    }
    let mut made = Made::new(d.keys_dir.clone());
    let declared = declaration_of(&d, &mut made)?;
    let key_files = made.write()?;
    let appended = create_streams(log, &d.event_id, d.partitions).and_then(|()| {
        let event = Event::EventDeclared(declared.clone());
        let (key, bytes) = (event.partition_key(), codec.encode(&event));
        let at = declared.declared_at_ms;
        log.append(
            &stream_name(&d.event_id, Stream::Declarations),
            &[Produce::new(&key, &bytes, at)],
        )?;
        log.append(CATALOG, &[Produce::new(&key, &bytes, at)])?;
        Ok(())
    });
    if let Err(e) = appended {
        made.remove(&key_files);
        return Err(e);
    }
    Ok(Declared {
        unchanged: Vec::new(),
        event: declared,
        key_files,
    })
}

/// Changes to a declared event.
#[derive(Clone, Debug, Default)]
pub struct Amendment {
    /// Clubs that may now publish too (fresh key pairs made for those without a public key).
    pub clubs: Vec<ClubLine>,
    /// Further keys clubs may sign with: (club, key).
    pub added_keys: Vec<(String, PublicKey)>,
    /// Keys revoked from now on: (club, key id).
    pub revoked: Vec<(String, String)>,
    /// The boards' hand records: (board, deal in PBN notation).
    pub hands: Vec<(i32, String)>,
    /// Closes the event, for good: no seal after the amendment's line is taken, so that the
    /// results before it are final.
    pub close: bool,
    /// Where fresh private keys are written.
    pub keys_dir: Option<PathBuf>,
}

/// Amends a declared event, signed with the organiser's key: the next amendment.
pub fn amend(
    log: &dyn Log,
    event_id: &str,
    organiser: &PrivateKey,
    amendment: Amendment,
) -> Result<Declared> {
    let codec = Codec::new()?;
    let Some((roster, _)) = Roster::load(log, &codec, event_id)? else {
        return Err(EventError::NotDeclared {
            event: event_id.to_string(),
        }
        .into());
    };
    if roster.organiser != Some(organiser.public()) {
        return Err(KeyError::NotOrganisers {
            key: organiser.public().id(),
            event: event_id.to_string(),
        }
        .into());
    }
    let (amendment, unchanged) = without_unchanged(&roster, amendment)?;
    check_amendment(&roster, &amendment)?;
    let mut made = Made::new(amendment.keys_dir.clone());
    let mut amended = amendment_of(log, &roster, &amendment, &mut made)?;
    amended.key_id = organiser.public().id();
    let bytes = simpairs_events::amendment_bytes(&codec, &amended);
    amended.signature = organiser.sign(&bytes).to_vec();
    let key_files = made.write()?;
    let event = Event::EventAmended(amended.clone());
    let stream = stream_name(event_id, Stream::Declarations);
    let written = log.append(
        &stream,
        &[Produce::new(
            &event.partition_key(),
            &codec.encode(&event),
            now_ms(),
        )],
    );
    if let Err(e) = written {
        made.remove(&key_files);
        return Err(e.into());
    }
    draw_lines(log, &codec, &roster.lines, &amended)?;
    Ok(Declared {
        event: roster.declared,
        key_files,
        unchanged,
    })
}

/// The amendment without the clubs the event has already, listed as they are declared (the
/// organiser's whole list given again, with the clubs to add): those clubs, by id. A club the event
/// has, listed with another name or a key it does not have, is refused: an amendment adds clubs, it
/// does not change them. Nothing left to amend is refused too.
fn without_unchanged(roster: &Roster, mut a: Amendment) -> Result<(Amendment, Vec<String>)> {
    let mut unchanged = Vec::new();
    let mut added = Vec::new();
    for c in std::mem::take(&mut a.clubs) {
        let Some(known) = roster.clubs.get(&c.club_id) else {
            added.push(c);
            continue;
        };
        let same_name = c.name == known.name || c.name == c.club_id;
        let same_key = c
            .public_key
            .as_ref()
            .is_none_or(|k| known.keys.iter().any(|have| have.id == k.id()));
        if !(same_name && same_key) {
            return Err(DeclareError::ClubChanged {
                club: c.club_id,
                name: known.name.clone(),
                event: roster.event_id().to_string(),
            }
            .into());
        }
        unchanged.push(c.club_id);
    }
    a.clubs = added;
    let nothing = a.clubs.is_empty() && a.added_keys.is_empty() && a.revoked.is_empty();
    if nothing && a.hands.is_empty() && !a.close && !unchanged.is_empty() {
        return Err(DeclareError::NothingToAmend {
            event: roster.event_id().to_string(),
        }
        .into());
    }
    Ok((a, unchanged))
}

/// Refuses an amendment that names clubs wrongly or gives unreadable deals.
fn check_amendment(roster: &Roster, a: &Amendment) -> Result<()> {
    if let Some(closed) = roster.closed.as_ref().filter(|_| a.close) {
        return Err(DeclareError::AlreadyClosed {
            event: roster.event_id().to_string(),
            at: crate::when::describe_time(closed.at_ms),
        }
        .into());
    }
    // The clubs the event has are out of the amendment already (see `without_unchanged`).
    let named = (a.added_keys.iter().map(|(c, _)| c)).chain(a.revoked.iter().map(|(c, _)| c));
    for club in named {
        if !roster.clubs.contains_key(club) {
            return Err(DeclareError::UnknownClub {
                club: club.clone(),
                event: roster.event_id().to_string(),
            }
            .into());
        }
    }
    for (club, key_id) in &a.revoked {
        let known = roster
            .clubs
            .get(club)
            .map(|c| c.keys.iter().any(|k| k.id == *key_id));
        if known != Some(true) {
            let keys = (roster.clubs.get(club).into_iter())
                .flat_map(|c| c.keys.iter().map(|k| k.id.clone()))
                .collect();
            return Err(DeclareError::NoSuchKey {
                club: club.clone(),
                key: key_id.clone(),
                keys,
            }
            .into());
        }
    }
    for (board, deal) in &a.hands {
        if !roster.boards.contains(board) {
            return Err(DeclareError::UnknownBoard {
                board: *board,
                event: roster.event_id().to_string(),
            }
            .into());
        }
        crate::deals::check(deal).map_err(|source| DeclareError::BadDeal {
            board: *board,
            source,
        })?;
    }
    Ok(())
}

/// The amendment record (unsigned).
fn amendment_of(
    log: &dyn Log,
    roster: &Roster,
    a: &Amendment,
    made: &mut Made,
) -> Result<EventAmended> {
    let event_id = roster.event_id();
    let results = stream_name(event_id, Stream::Results);
    let partitions = log.partitions(&results)?;
    let mut revoked_keys = Vec::new();
    for (club, key_id) in &a.revoked {
        // A club's seals go to one partition (their key is event/club): revoked from the
        // amendment's line there.
        let partition =
            simpairs_log::partition_for_key(format!("{event_id}/{club}").as_bytes(), partitions);
        revoked_keys.push(simpairs_events::types::Revocation {
            club_id: club.clone(),
            key_id: key_id.clone(),
            partition: partition as i32,
            from_offset: IN_BAND,
        });
    }
    Ok(EventAmended {
        event_id: event_id.to_string(),
        amendment: roster.amendments + 1,
        added_clubs: club_entries(&a.clubs, made)?,
        added_keys: a
            .added_keys
            .iter()
            .map(|(club, key)| simpairs_events::types::ClubKey {
                club_id: club.clone(),
                key_id: key.id(),
                public_key: key.to_bytes().to_vec(),
            })
            .collect(),
        revoked_keys,
        added_aggregator_keys: Vec::new(),
        hands: a
            .hands
            .iter()
            .map(|(board, deal)| simpairs_events::types::DealEntry {
                board: *board,
                deal: deal.clone(),
            })
            .collect(),
        amended_at_ms: now_ms(),
        key_id: String::new(),
        signature: Vec::new(),
        // From the amendment's line in each partition (none without hand records).
        hands_from: match a.hands.is_empty() {
            true => Vec::new(),
            false => vec![IN_BAND; partitions as usize],
        },
        // From the amendment's line in each partition, as the hand records.
        closed_from: match a.close {
            true => vec![IN_BAND; partitions as usize],
            false => Vec::new(),
        },
    })
}

/// Draws the line of `amended` in every partition of the results stream, after the amendment
/// itself: each reader meets it at the same record, so a seal appended while the amendment was
/// made is on the same side of it for the aggregator, a replay and an aggregator started again.
/// The lines of the amendments before it (`earlier`) are drawn again: only the first line of an
/// amendment in a partition counts, so this changes nothing where they were drawn, and draws one
/// that an earlier amendment could not.
fn draw_lines(
    log: &dyn Log,
    codec: &Codec,
    earlier: &std::collections::BTreeMap<i64, Vec<u8>>,
    amended: &EventAmended,
) -> Result<()> {
    let draws = crate::roster::draws_a_line(amended);
    let new = draws.then_some((amended.amendment, amended.signature.clone()));
    let lines: Vec<Event> = (earlier.iter().map(|(a, s)| (*a, s.clone())))
        .chain(new)
        .map(|(amendment, signature)| {
            Event::LineDrawn(simpairs_events::types::LineDrawn {
                event_id: amended.event_id.clone(),
                amendment,
                signature,
            })
        })
        .collect();
    if lines.is_empty() {
        return Ok(());
    }
    let results = stream_name(&amended.event_id, Stream::Results);
    let messages: Vec<(Vec<u8>, Vec<u8>)> = (lines.iter())
        .map(|line| (line.partition_key(), codec.encode(line)))
        .collect();
    let partitions = log.partitions(&results)?;
    let records: Vec<Produce<'_>> = (0..partitions)
        .flat_map(|p| {
            (messages.iter())
                .map(move |(key, message)| Produce::new(key, message, now_ms()).to_partition(p))
        })
        .collect();
    log.append(&results, &records)
        .map_err(|e| DeclareError::LineNotDrawn {
            amendment: amended.amendment,
            reason: e.to_string(),
        })?;
    Ok(())
}

/// The events declared in a log, in declaration order.
pub fn events(log: &dyn Log) -> Result<Vec<EventDeclared>> {
    let codec = Codec::new()?;
    let end = match log.end_offset(CATALOG, 0) {
        Ok(end) => end,
        // Only a catalog never made means none: one missing or unreadable is said as such.
        Err(simpairs_log::Error::UnknownStream { .. }) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
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
                Err(EventError::NotAmong {
                    event: w.to_string(),
                    declared: ids(&events),
                }
                .into())
            }
        }
        None => match events.as_slice() {
            [one] => Ok(one.event_id.clone()),
            [] => Err(EventError::NoneDeclared.into()),
            _ => Err(EventError::Which {
                declared: ids(&events),
            }
            .into()),
        },
    }
}

fn ids(events: &[EventDeclared]) -> Vec<String> {
    events.iter().map(|e| e.event_id.clone()).collect()
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

    /// The clubs of a clubs file holding `bytes`, or its error in words.
    fn clubs_of(bytes: &[u8]) -> std::result::Result<ClubsFile, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clubs.csv");
        std::fs::write(&path, bytes).unwrap();
        read_clubs(&path).map_err(|e| e.to_string().replace(&*dir.path().to_string_lossy(), "DIR"))
    }

    fn names(file: &ClubsFile) -> Vec<(&str, &str)> {
        (file.clubs.iter())
            .map(|c| (c.club_id.as_str(), c.name.as_str()))
            .collect()
    }

    #[test]
    fn a_clubs_file_saved_by_a_spreadsheet_reads_as_the_plain_one() {
        let plain = clubs_of(b"club,name\nA,\"Smith, Jones\"\nB,Club B\n").unwrap();
        assert_eq!(names(&plain), [("A", "Smith, Jones"), ("B", "Club B")]);
        for bytes in [
            &b"\xef\xbb\xbfClub;Name\r\nA;Smith, Jones\r\nB;Club B\r\n;;\r\n"[..],
            b"club\tname\r\nA\tSmith, Jones\r\n\r\nB\tClub B\r\n",
            b"club,name,,\nA,\"Smith, Jones\",,\n,,,\nB,Club B,,\n,,,\n",
        ] {
            let file = clubs_of(bytes).unwrap();
            assert_eq!(names(&file), names(&plain), "{bytes:?}");
            assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        }
        // Excel's plain CSV on Windows: the Windows code page, with a warning to check the names.
        let file = clubs_of(b"club;name\r\nA;Club Ang\xe9lique\r\n").unwrap();
        assert_eq!(names(&file), [("A", "Club Angélique")]);
        assert!(
            file.warnings.len() == 1
                && file.warnings[0].contains("/clubs.csv:2: ")
                && file.warnings[0].contains("Windows-1252"),
            "{:?}",
            file.warnings
        );
        // A club without a name is called by its id.
        assert_eq!(names(&clubs_of(b"club,name\nA,\n").unwrap()), [("A", "A")]);
    }

    #[test]
    fn a_clubs_file_that_cannot_be_declared_says_where() {
        let refused = [
            (
                &b"id,name\nA,Club A\n"[..],
                "DIR/clubs.csv:1: the clubs file needs a header with a club column",
            ),
            (
                b"club,key\nA,secret\n",
                "DIR/clubs.csv:1: the clubs file has a key column",
            ),
            (
                b"club;name\r\nA;Club A\r\n\r\nA;Again\r\n",
                "DIR/clubs.csv:4: field club: club A is listed twice",
            ),
            (
                b"club,name\nA,Club A\nB C,Club B\n",
                "DIR/clubs.csv:3: field club: a club id is",
            ),
            (
                b"club,public_key\nA,nonsense\n",
                "DIR/clubs.csv:2: field public_key",
            ),
            (
                b"club,name\n,,\n",
                "DIR/clubs.csv: the clubs file lists no club",
            ),
            (
                b"PK\x03\x04zip",
                "DIR/clubs.csv:1: the file is a zip archive",
            ),
        ];
        for (bytes, said) in refused {
            let err = clubs_of(bytes).unwrap_err();
            assert!(err.starts_with(said), "{err}\n  expected: {said}");
        }
    }

    #[test]
    fn club_ids() {
        assert!(check_club_id("C0042").is_ok());
        for bad in ["", ".hidden", "a/b", "x y", &"c".repeat(65)] {
            assert!(check_club_id(bad).is_err(), "{bad}");
        }
    }
}
