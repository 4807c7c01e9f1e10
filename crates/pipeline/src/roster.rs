//! What the organiser declared, as every role needs it: the event's declaration and, in order, its
//! amendments (clubs and keys added, keys revoked, hand records) once each verifies with the
//! organiser's key. Who may sign what is looked up here.
//!
//! The first declaration of an event counts; a later, different one is set aside. An amendment
//! applies when it is the next one (numbered from 1) and its signature verifies with the
//! organiser's key of the declaration; anything else is set aside with the reason.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use simpairs_events::types::{EventAmended, EventDeclared, EventLimits};
use simpairs_events::{Codec, Event, PublicKey, Stream, SubmissionSealed};
use simpairs_log::Log;

use crate::limits::Limits;
use crate::{AmendmentRefused, Error, KeyError, Result, stream_name};

/// The offset an amendment gives (`hands_from`, a revocation's `from_offset`) when its line is
/// drawn in the results stream by a `LineDrawn` record.
pub const IN_BAND: i64 = -1;

/// Whether an amendment's hand records, revocations or closing hold from a line drawn in the
/// results stream ([`IN_BAND`]).
pub(crate) fn draws_a_line(a: &EventAmended) -> bool {
    a.hands_from.contains(&IN_BAND)
        || a.closed_from.contains(&IN_BAND)
        || (a.revoked_keys.iter()).any(|r| r.from_offset == IN_BAND)
}

/// A club and the keys it may sign with.
#[derive(Clone, Debug)]
pub struct Club {
    pub name: String,
    /// Every one not revoked is accepted.
    pub keys: Vec<ClubKey>,
    /// The keys revoked, and from where.
    pub revoked: Vec<Revoked>,
}

/// A club key the organiser revoked: seals signed with it at or after `from` of `partition` are
/// refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Revoked {
    pub key_id: String,
    /// The partition the club's seals go to.
    pub partition: u32,
    /// [`NOT_DRAWN`] until the line of an amendment that draws one in the results stream is met.
    pub from: u64,
    /// The amendment that revoked it.
    pub amendment: i64,
    /// Whether its line is drawn in the results stream ([`Roster::draw`]).
    pub in_band: bool,
}

/// The organiser closed the event: seals at or after `from` of their partition are refused, so
/// that the results before are final.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Closed {
    /// For each partition of the results stream; [`NOT_DRAWN`] there until the line is met.
    pub from: Vec<u64>,
    /// The amendment that closed it.
    pub amendment: i64,
    /// When the organiser closed it, in milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// Whether its line is drawn in the results stream ([`Roster::draw`]).
    pub in_band: bool,
}

impl Closed {
    /// Where the event is closed from in `partition`, if a seal at `offset` comes after it.
    pub fn at(&self, partition: u32, offset: u64) -> Option<u64> {
        let from = *self.from.get(partition as usize)?;
        (offset >= from).then_some(from)
    }

    /// Whether it holds anywhere yet: its line met in a partition (a reader of the results
    /// stream as of a moment before the close has not met it).
    pub fn drawn(&self) -> bool {
        self.from.iter().any(|&from| from != NOT_DRAWN)
    }
}

/// Where an amendment whose line is drawn in the results stream holds from in a partition
/// before its line is met there: past every record.
pub const NOT_DRAWN: u64 = u64::MAX;

/// The event as declared and amended.
#[derive(Clone, Debug)]
pub struct Roster {
    pub declared: EventDeclared,
    pub clubs: HashMap<String, Club>,
    pub boards: Arc<BTreeSet<i32>>,
    /// The aggregators' keys, by id.
    pub aggregators: HashMap<String, PublicKey>,
    pub organiser: Option<PublicKey>,
    pub limits: Limits,
    /// The organiser's hand records, in the order declared, each with where it holds from.
    pub hands: Vec<crate::known_deals::HandRecords>,
    /// Amendments applied.
    pub amendments: i64,
    /// The amendments whose line is drawn in the results stream, with the signature each
    /// `LineDrawn` record must carry.
    pub lines: BTreeMap<i64, Vec<u8>>,
    /// Whether, and from where, the organiser closed the event (the first amendment that did).
    pub closed: Option<Closed>,
    /// The one club whose entry `clubs` holds, when the roster was read for one club
    /// ([`Roster::new_for`]).
    only: Option<String>,
    /// With `only`: the other clubs amendments added (their entries are not kept).
    added_elsewhere: BTreeSet<String>,
}

/// A club's public key as declared: its id and bytes, read as a curve point only when first used.
/// Reading a key costs about 20 µs, and every `club publish` reads the roster of the whole event:
/// reading thousands of clubs' keys each time made publishing a national field quadratic.
#[derive(Clone, Debug)]
pub struct ClubKey {
    pub id: String,
    bytes: [u8; 32],
    parsed: std::sync::OnceLock<Option<PublicKey>>,
}

impl ClubKey {
    fn new(id: &str, bytes: &[u8]) -> std::result::Result<ClubKey, KeyError> {
        Ok(ClubKey {
            id: id.to_string(),
            bytes: ClubKey::check(bytes)?,
            parsed: std::sync::OnceLock::new(),
        })
    }

    /// The declared bytes, when they have a key's length (all [`ClubKey::new`] checks).
    fn check(bytes: &[u8]) -> std::result::Result<[u8; 32], KeyError> {
        bytes
            .try_into()
            .map_err(|_| KeyError::DeclaredLength { len: bytes.len() })
    }

    /// The key, or `None` when the declared bytes are not a key.
    pub fn public(&self) -> Option<PublicKey> {
        *self
            .parsed
            .get_or_init(|| PublicKey::from_bytes(&self.bytes).ok())
    }

    /// Whether this is `key` (compared as bytes, without reading the point).
    pub fn is(&self, key: &PublicKey) -> bool {
        self.bytes == key.to_bytes()
    }
}

/// Why a seal's signer is not accepted (before its signature is checked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SignerProblem {
    UnknownClub,
    UnknownKey {
        declared: Vec<String>,
    },
    /// The declared bytes are not a key: nothing can verify with them.
    NotAKey,
    Revoked {
        from_offset: u64,
    },
    /// The seal comes after the organiser closed the event.
    Closed {
        from_offset: u64,
    },
}

impl Roster {
    /// The roster of a declaration, or why the event cannot be used.
    pub fn new(declared: EventDeclared) -> Result<Roster> {
        Roster::new_for(declared, None)
    }

    /// The roster of a declaration as one club sees it (`only`), or of every club (`None`).
    /// Every club's entry is checked as for the whole roster, so both refuse the same events
    /// and amendments; only `only`'s entry is kept. A club publishing to a national event reads
    /// one entry, not thousands (building and dropping them all was four fifths of a publish).
    pub fn new_for(declared: EventDeclared, only: Option<&str>) -> Result<Roster> {
        if declared.clubs.iter().any(|c| c.public_key.is_empty()) {
            return Err(Error::Legacy {
                event: declared.event_id.clone(),
            });
        }
        let mut clubs = HashMap::with_capacity(if only.is_some() {
            1
        } else {
            declared.clubs.len()
        });
        for c in &declared.clubs {
            if only.is_some_and(|only| only != c.club_id) {
                ClubKey::check(&c.public_key)?;
                continue;
            }
            add_club(&mut clubs, &c.club_id, &c.name, &c.key_id, &c.public_key)?;
        }
        let mut aggregators = HashMap::new();
        for k in &declared.aggregator_keys {
            aggregators.insert(k.key_id.clone(), public(&k.public_key)?);
        }
        let organiser = match &declared.organiser_key {
            Some(k) => Some(public(&k.public_key)?),
            None => None,
        };
        // The declaration is moved in, not copied: a national event's holds thousands of clubs,
        // and every `club publish` reads it.
        let roster = Roster {
            boards: Arc::new(declared.boards.iter().copied().collect()),
            clubs,
            aggregators,
            organiser,
            limits: limits_of(declared.limits.as_ref()),
            hands: Vec::new(),
            amendments: 0,
            lines: BTreeMap::new(),
            closed: None,
            only: only.map(str::to_string),
            added_elsewhere: BTreeSet::new(),
            declared,
        };
        Ok(roster)
    }

    pub fn event_id(&self) -> &str {
        &self.declared.event_id
    }

    /// The key a seal names, if its club may sign with it at `offset` of `partition`. The
    /// organiser may sign for any club of the event (a file a club sent it, a club withdrawn):
    /// it declares the clubs' keys, so this gives it nothing it could not do already.
    pub(crate) fn signer(
        &self,
        seal: &SubmissionSealed,
        partition: u32,
        offset: u64,
    ) -> std::result::Result<PublicKey, SignerProblem> {
        let club = self
            .clubs
            .get(&seal.club_id)
            .ok_or(SignerProblem::UnknownClub)?;
        let key = club.keys.iter().find(|k| k.id == seal.key_id);
        // A key's id is a hash of it: made only when the club has no key of that id.
        let organiser = match key {
            Some(_) => None,
            None => self.organiser.filter(|k| k.id() == seal.key_id),
        };
        if key.is_none() && organiser.is_none() {
            return Err(SignerProblem::UnknownKey {
                declared: club.keys.iter().map(|k| k.id.clone()).collect(),
            });
        }
        // Closed for everyone, the organiser too: the results before the line are final.
        if let Some(from_offset) = self.closed_at(partition, offset) {
            return Err(SignerProblem::Closed { from_offset });
        }
        let Some(key) = key else {
            // The organiser's key, found above.
            return organiser.ok_or(SignerProblem::NotAKey);
        };
        if let Some(from_offset) = self.revoked_at(seal, partition, offset) {
            return Err(SignerProblem::Revoked { from_offset });
        }
        key.public().ok_or(SignerProblem::NotAKey)
    }

    /// Applies an amendment that verified and is the next one.
    pub fn amend(
        &mut self,
        codec: &Codec,
        amended: &EventAmended,
    ) -> std::result::Result<(), AmendmentRefused> {
        if amended.event_id != self.declared.event_id {
            return Err(AmendmentRefused::OtherEvent {
                event: amended.event_id.clone(),
            });
        }
        if amended.amendment <= self.amendments {
            return Ok(()); // Already applied: a copy changes nothing.
        }
        if amended.amendment != self.amendments + 1 {
            return Err(AmendmentRefused::OutOfOrder {
                amendment: amended.amendment,
                expected: self.amendments + 1,
            });
        }
        if !self.verifies(codec, amended) {
            return Err(AmendmentRefused::NotOrganisers {
                amendment: amended.amendment,
                event: amended.event_id.clone(),
            });
        }
        self.apply_amendment(amended)
    }

    /// Whether `club` is part of the event (declared, or added by an amendment applied).
    fn has_club(&self, club: &str) -> bool {
        self.clubs.contains_key(club)
            || (self.only.is_some()
                && (self.added_elsewhere.contains(club)
                    || self.declared.clubs.iter().any(|c| c.club_id == club)))
    }

    /// Whether `club`'s entry is kept (see [`Roster::new_for`]).
    fn keeps(&self, club: &str) -> bool {
        self.only.as_deref().is_none_or(|only| only == club)
    }

    /// Where the key a seal names was revoked from, if it is revoked at `offset` of `partition`
    /// (the part of [`Roster::signer`] a line met in the results stream can change).
    pub(crate) fn revoked_at(
        &self,
        seal: &SubmissionSealed,
        partition: u32,
        offset: u64,
    ) -> Option<u64> {
        let club = self.clubs.get(&seal.club_id)?;
        (club.revoked.iter())
            .find(|r| r.key_id == seal.key_id && r.partition == partition && offset >= r.from)
            .map(|r| r.from)
    }

    /// Where the event is closed from in `partition`, if a seal at `offset` there comes after
    /// the organiser closed it (the part of [`Roster::signer`] a line met in the results stream
    /// can change, with [`Roster::revoked_at`]).
    pub(crate) fn closed_at(&self, partition: u32, offset: u64) -> Option<u64> {
        self.closed.as_ref()?.at(partition, offset)
    }

    /// Draws the line of amendment `amendment` at `offset` of `partition`: its hand records,
    /// its closing and its revocations of keys whose clubs publish there hold from it, where no
    /// line was drawn.
    pub(crate) fn draw(&mut self, amendment: i64, partition: u32, offset: u64) {
        let p = partition as usize;
        let closed = self.closed.as_mut();
        if let Some(c) = closed.filter(|c| c.in_band && c.amendment == amendment)
            && let Some(from) = c.from.get_mut(p).filter(|from| **from == NOT_DRAWN)
        {
            *from = offset;
        }
        for h in (self.hands.iter_mut()).filter(|h| h.in_band && h.amendment == amendment) {
            if let Some(from) = h.from.get_mut(p).filter(|from| **from == NOT_DRAWN) {
                *from = offset;
            }
        }
        let revoked = self.clubs.values_mut().flat_map(|c| c.revoked.iter_mut());
        for r in revoked.filter(|r| r.in_band && r.amendment == amendment) {
            if r.partition == partition && r.from == NOT_DRAWN {
                r.from = offset;
            }
        }
    }

    /// Draws every line not drawn yet at the start: what `club publish` judges a file by, as
    /// its records will come after every amendment made so far and, once drawn, its lines.
    pub(crate) fn draw_every_line(&mut self) {
        let closed = self.closed.iter_mut().flat_map(|c| c.from.iter_mut());
        for from in self
            .hands
            .iter_mut()
            .flat_map(|h| h.from.iter_mut())
            .chain(closed)
        {
            if *from == NOT_DRAWN {
                *from = 0;
            }
        }
        let revoked = self.clubs.values_mut().flat_map(|c| c.revoked.iter_mut());
        for r in revoked.filter(|r| r.from == NOT_DRAWN) {
            r.from = 0;
        }
    }

    fn verifies(&self, codec: &Codec, amended: &EventAmended) -> bool {
        let Some(organiser) = &self.organiser else {
            return false;
        };
        let bytes = simpairs_events::amendment_bytes(codec, amended);
        amended.key_id == organiser.id() && organiser.verify(&bytes, &amended.signature)
    }

    fn apply_amendment(&mut self, a: &EventAmended) -> std::result::Result<(), AmendmentRefused> {
        let mut next = self.clone();
        let no_club = |club: &str| AmendmentRefused::NoClub {
            club: club.to_string(),
        };
        for c in &a.added_clubs {
            if next.has_club(&c.club_id) {
                return Err(AmendmentRefused::ClubExists {
                    club: c.club_id.clone(),
                });
            }
            if next.keeps(&c.club_id) {
                add_club(
                    &mut next.clubs,
                    &c.club_id,
                    &c.name,
                    &c.key_id,
                    &c.public_key,
                )?;
            } else {
                ClubKey::check(&c.public_key)?;
                next.added_elsewhere.insert(c.club_id.clone());
            }
        }
        for k in &a.added_keys {
            let key = public(&k.public_key)?;
            let key = ClubKey::new(&k.key_id, &key.to_bytes())?;
            if !next.has_club(&k.club_id) {
                return Err(no_club(&k.club_id));
            }
            if let Some(club) = next.clubs.get_mut(&k.club_id) {
                club.keys.push(key);
            }
        }
        for r in &a.revoked_keys {
            if !next.has_club(&r.club_id) {
                return Err(no_club(&r.club_id));
            }
            let in_band = r.from_offset == IN_BAND;
            let from = if in_band {
                Ok(NOT_DRAWN)
            } else {
                u64::try_from(r.from_offset)
            };
            let (Ok(partition), Ok(from)) = (u32::try_from(r.partition), from) else {
                return Err(AmendmentRefused::NoOffset {
                    key: r.key_id.clone(),
                });
            };
            if let Some(club) = next.clubs.get_mut(&r.club_id) {
                club.revoked.push(Revoked {
                    key_id: r.key_id.clone(),
                    partition,
                    from,
                    amendment: a.amendment,
                    in_band,
                });
            }
        }
        for k in &a.added_aggregator_keys {
            let key = public(&k.public_key)?;
            next.aggregators.insert(k.key_id.clone(), key);
        }
        if !a.hands.is_empty() {
            let in_band = a.hands_from.contains(&IN_BAND);
            next.hands.push(crate::known_deals::HandRecords {
                from: (a.hands_from.iter())
                    .map(|&offset| match in_band {
                        true => NOT_DRAWN,
                        false => u64::try_from(offset).unwrap_or(0),
                    })
                    .collect(),
                deals: a.hands.iter().map(|h| (h.board, h.deal.clone())).collect(),
                amendment: a.amendment,
                in_band,
            });
        }
        if !a.closed_from.is_empty() && next.closed.is_none() {
            let in_band = a.closed_from.contains(&IN_BAND);
            next.closed = Some(Closed {
                from: (a.closed_from.iter())
                    .map(|&offset| match in_band {
                        true => NOT_DRAWN,
                        false => u64::try_from(offset).unwrap_or(0),
                    })
                    .collect(),
                amendment: a.amendment,
                at_ms: a.amended_at_ms,
                in_band,
            });
        }
        if draws_a_line(a) {
            next.lines.insert(a.amendment, a.signature.clone());
        }
        next.amendments = a.amendment;
        *self = next;
        Ok(())
    }

    /// The roster of `event_id` as its declarations stream tells it now, with the reasons of
    /// the records set aside; `None` when the event was never declared in this log.
    pub fn load(
        log: &dyn Log,
        codec: &Codec,
        event_id: &str,
    ) -> Result<Option<(Roster, Vec<String>)>> {
        Roster::load_for(log, codec, event_id, None)
    }

    /// [`Roster::load`] as one club sees the event (`only`: see [`Roster::new_for`]).
    pub fn load_for(
        log: &dyn Log,
        codec: &Codec,
        event_id: &str,
        only: Option<&str>,
    ) -> Result<Option<(Roster, Vec<String>)>> {
        let stream = stream_name(event_id, Stream::Declarations);
        let end = match log.end_offset(&stream, 0) {
            Ok(end) => end,
            Err(simpairs_log::Error::UnknownStream { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let mut records = Vec::new();
        crate::read_range(log, &stream, 0, 0, end, |r| records.push(r.value))?;
        let mut roster: Option<Roster> = None;
        let mut set_aside = Vec::new();
        for message in records {
            match (codec.decode(&message), &mut roster) {
                (Ok(Event::EventDeclared(d)), None) if d.event_id == event_id => {
                    roster = Some(Roster::new_for(d, only)?);
                }
                (Ok(Event::EventDeclared(d)), Some(r)) if d != r.declared => set_aside.push(format!(
                    "event {} is already declared; a second, different declaration is set aside",
                    d.event_id
                )),
                (Ok(Event::EventAmended(a)), Some(r)) => {
                    if let Err(refused) = r.amend(codec, &a) {
                        set_aside.push(refused.to_string());
                    }
                }
                (Err(e), _) => set_aside.push(format!("a declarations record cannot be read: {e}")),
                _ => {}
            }
        }
        Ok(roster.map(|r| (r, set_aside)))
    }
}

fn add_club(
    clubs: &mut HashMap<String, Club>,
    id: &str,
    name: &str,
    key_id: &str,
    key: &[u8],
) -> std::result::Result<(), KeyError> {
    let key = ClubKey::new(key_id, key)?;
    // The first entry of a club counts, as a search of the list finds it.
    clubs.entry(id.to_string()).or_insert_with(|| Club {
        name: name.to_string(),
        keys: vec![key],
        revoked: Vec::new(),
    });
    Ok(())
}

fn public(bytes: &[u8]) -> std::result::Result<PublicKey, KeyError> {
    PublicKey::from_bytes(bytes).map_err(KeyError::Declared)
}

/// The limits a declaration states, or the defaults.
pub(crate) fn limits_of(limits: Option<&EventLimits>) -> Limits {
    let Some(l) = limits else {
        return Limits::default();
    };
    let count = |v: i32| u32::try_from(v).unwrap_or(0);
    Limits {
        results_per_submission: count(l.results_per_submission),
        tables_per_board: count(l.tables_per_board),
        pairs_per_submission: count(l.pairs_per_submission),
        name_bytes: count(l.name_bytes),
        field_bytes: count(l.field_bytes),
        file_bytes: u64::try_from(l.file_bytes).unwrap_or(0),
    }
}

/// The limits as a declaration carries them.
pub(crate) fn event_limits(l: &Limits) -> EventLimits {
    let count = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
    EventLimits {
        results_per_submission: count(l.results_per_submission),
        tables_per_board: count(l.tables_per_board),
        pairs_per_submission: count(l.pairs_per_submission),
        name_bytes: count(l.name_bytes),
        field_bytes: count(l.field_bytes),
        file_bytes: i64::try_from(l.file_bytes).unwrap_or(i64::MAX),
    }
}

#[cfg(test)]
mod tests {
    //! A roster read for one club refuses exactly what the whole roster refuses, and keeps that
    //! club's entry as the whole roster has it.
    //! An amendment drawn in the results stream holds from its lines.

    use simpairs_events::PrivateKey;
    use simpairs_events::types::{
        ClubEntry, ClubKey as AddedKey, EventAmended, EventDeclared, Factoring, Revocation, Scoring,
    };

    use super::{IN_BAND, NOT_DRAWN, Roster};

    fn key_bytes(seed: u8) -> Vec<u8> {
        PrivateKey::from_secret([seed; 32])
            .public()
            .to_bytes()
            .to_vec()
    }

    fn entry(club: &str, seed: u8) -> ClubEntry {
        ClubEntry {
            club_id: club.into(),
            name: format!("{club} bridge club"),
            key_id: format!("k{seed}"),
            public_key: key_bytes(seed),
        }
    }

    fn declared() -> EventDeclared {
        EventDeclared {
            event_id: "E".into(),
            name: "E".into(),
            boards: vec![1, 2],
            scoring: Scoring::Matchpoints,
            factoring: Factoring::Neuberg,
            clubs: vec![entry("A", 1), entry("B", 2), entry("C", 3)],
            declared_at_ms: 0,
            aggregator_keys: Vec::new(),
            organiser_key: None,
            limits: None,
            conventions: None,
        }
    }

    fn amendment(number: i64) -> EventAmended {
        EventAmended {
            event_id: "E".into(),
            amendment: number,
            added_clubs: Vec::new(),
            added_keys: Vec::new(),
            revoked_keys: Vec::new(),
            added_aggregator_keys: Vec::new(),
            hands: Vec::new(),
            amended_at_ms: 0,
            key_id: String::new(),
            signature: Vec::new(),
            hands_from: Vec::new(),
            closed_from: Vec::new(),
        }
    }

    fn added_key(club: &str, seed: u8, bytes: Vec<u8>) -> AddedKey {
        AddedKey {
            club_id: club.into(),
            key_id: format!("k{seed}"),
            public_key: bytes,
        }
    }

    fn revoked(club: &str, key: &str, from: i64) -> Revocation {
        Revocation {
            club_id: club.into(),
            key_id: key.into(),
            partition: 0,
            from_offset: from,
        }
    }

    /// Amendments in order, each applied when it is accepted: some refused (a club declared
    /// already, by the declaration or an amendment; a key or revocation for a club the event
    /// does not have; a key of the wrong length), some accepted.
    fn amendments() -> Vec<EventAmended> {
        let mut list = Vec::new();
        let mut next = |edit: &dyn Fn(&mut EventAmended)| {
            let mut a = amendment(0);
            edit(&mut a);
            list.push(a);
        };
        next(&|a| a.added_clubs = vec![entry("B", 9)]);
        next(&|a| a.added_clubs = vec![entry("D", 4)]);
        next(&|a| a.added_clubs = vec![entry("D", 5)]);
        next(&|a| a.added_keys = vec![added_key("Z", 6, key_bytes(6))]);
        next(&|a| a.added_keys = vec![added_key("C", 7, key_bytes(7))]);
        next(&|a| a.added_keys = vec![added_key("D", 8, key_bytes(8))]);
        next(&|a| a.revoked_keys = vec![revoked("Z", "k3", 5)]);
        next(&|a| a.revoked_keys = vec![revoked("C", "k3", 5)]);
        // -1 is a line drawn in the results stream; any other negative offset is none.
        next(&|a| a.revoked_keys = vec![revoked("A", "k1", -2)]);
        next(&|a| {
            let mut bad = entry("E", 10);
            bad.public_key.truncate(31);
            a.added_clubs = vec![bad];
        });
        next(&|a| a.added_clubs = vec![entry("F", 11)]);
        list
    }

    /// A club's entry as (key ids, revocations).
    type Entry = (Vec<String>, Vec<super::Revoked>);

    fn club(roster: &Roster, club: &str) -> Option<Entry> {
        let c = roster.clubs.get(club)?;
        Some((
            c.keys.iter().map(|k| k.id.clone()).collect(),
            c.revoked.clone(),
        ))
    }

    #[test]
    fn a_roster_for_one_club_decides_as_the_whole_roster_does() {
        for only in ["A", "C", "D", "F", "Z"] {
            let mut whole = Roster::new(declared()).unwrap();
            let mut one = Roster::new_for(declared(), Some(only)).unwrap();
            assert!(one.clubs.len() <= 1);
            let mut refused = 0;
            for mut a in amendments() {
                a.amendment = whole.amendments + 1;
                let w = whole.apply_amendment(&a).map_err(|e| e.to_string());
                let o = one.apply_amendment(&a).map_err(|e| e.to_string());
                assert_eq!(w, o, "amendment {a:?} for {only}");
                refused += usize::from(w.is_err());
                assert_eq!(club(&whole, only), club(&one, only), "{only}");
            }
            assert_eq!(refused, 6);
            assert_eq!(whole.amendments, one.amendments);
        }
    }

    #[test]
    fn a_declared_key_of_the_wrong_length_refuses_the_event_for_every_club() {
        let mut bad = declared();
        bad.clubs[1].public_key.truncate(31);
        assert!(Roster::new(bad.clone()).is_err());
        assert!(Roster::new_for(bad, Some("A")).is_err());
    }

    #[test]
    fn an_amendment_drawn_in_the_results_stream_holds_from_its_first_line_in_each_partition() {
        let mut roster = Roster::new(declared()).unwrap();
        let mut offsets = amendment(1);
        offsets.hands = vec![simpairs_events::types::DealEntry {
            board: 1,
            deal: "N:AKQJ.AKQ.AKQ.AKQ - - -".into(),
        }];
        offsets.hands_from = vec![5, 8];
        roster.apply_amendment(&offsets).unwrap();
        let mut drawn = amendment(2);
        drawn.hands = offsets.hands.clone();
        drawn.hands_from = vec![IN_BAND, IN_BAND];
        drawn.revoked_keys = vec![revoked("A", "k1", IN_BAND)];
        drawn.signature = vec![3; 64];
        roster.apply_amendment(&drawn).unwrap();
        assert_eq!(roster.lines.keys().collect::<Vec<_>>(), [&2]);
        let from =
            |r: &Roster| -> Vec<Vec<u64>> { r.hands.iter().map(|h| h.from.clone()).collect() };
        let revoked_from = |r: &Roster| r.clubs["A"].revoked[0].from;
        // Offsets named hold as named; a line not met yet holds nowhere.
        assert_eq!(from(&roster), [vec![5, 8], vec![NOT_DRAWN, NOT_DRAWN]]);
        assert_eq!(revoked_from(&roster), NOT_DRAWN);
        // The line of amendment 1 (which draws none) and of another partition's club change
        // nothing of A's revocation; the first line of amendment 2 in a partition counts.
        roster.draw(1, 0, 3);
        roster.draw(2, 1, 20);
        assert_eq!(from(&roster), [vec![5, 8], vec![NOT_DRAWN, 20]]);
        assert_eq!(revoked_from(&roster), NOT_DRAWN);
        roster.draw(2, 0, 30);
        roster.draw(2, 0, 40);
        assert_eq!(from(&roster), [vec![5, 8], vec![30, 20]]);
        assert_eq!(revoked_from(&roster), 30);
        // `club publish` judges as if every line were drawn.
        let mut publishing = Roster::new(declared()).unwrap();
        drawn.amendment = 1;
        publishing.apply_amendment(&drawn).unwrap();
        publishing.draw_every_line();
        assert_eq!(from(&publishing), [vec![0, 0]]);
        assert_eq!(revoked_from(&publishing), 0);
    }

    #[test]
    fn a_close_holds_from_its_line_in_each_partition_and_only_the_first_counts() {
        let mut roster = Roster::new(declared()).unwrap();
        let mut close = amendment(1);
        close.closed_from = vec![IN_BAND, IN_BAND];
        close.amended_at_ms = 77;
        close.signature = vec![3; 64];
        roster.apply_amendment(&close).unwrap();
        assert_eq!(roster.lines.keys().collect::<Vec<_>>(), [&1]);
        assert!(!roster.closed.as_ref().unwrap().drawn());
        assert_eq!(
            roster.closed_at(0, 1_000),
            None,
            "not drawn: holds nowhere yet"
        );
        roster.draw(1, 1, 20);
        roster.draw(1, 1, 25);
        assert!(roster.closed.as_ref().unwrap().drawn());
        assert_eq!(
            (roster.closed_at(1, 19), roster.closed_at(1, 20)),
            (None, Some(20))
        );
        assert_eq!(roster.closed_at(0, 1_000), None);
        // A second close changes nothing: the first one's place and time hold.
        let mut again = amendment(2);
        again.closed_from = vec![4, 4];
        again.amended_at_ms = 99;
        roster.apply_amendment(&again).unwrap();
        let closed = roster.closed.clone().unwrap();
        assert_eq!((closed.amendment, closed.at_ms), (1, 77));
        assert_eq!(closed.from, [NOT_DRAWN, 20]);
        // `club publish` judges as if every line were drawn.
        roster.draw_every_line();
        assert_eq!(roster.closed_at(0, 0), Some(0));
    }
}
