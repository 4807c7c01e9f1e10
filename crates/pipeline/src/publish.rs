//! The club node: a club's results file (any format simpairs reads) becomes a signed submission on the
//! event's results stream. The whole file is read and checked first; a file with any problem publishes
//! nothing.
//!
//! A submission is every pair as `PairEntered` and every result as `ResultRecorded`, numbered from 0,
//! then one `SubmissionSealed` with their count, the SHA-256 digest of their bytes and an HMAC-SHA256
//! signature with the club's key. Its id is derived from its content, so publishing the same file twice
//! is one submission (the second is a harmless duplicate); a corrected file is a new submission whose
//! results supersede the earlier ones table by table.

use compact_str::ToCompactString;
use sha2::{Digest, Sha256};
use simpairs_events::types::{
    Adjusted, Direction, EventDeclared, Movement, PairEntered, Player, ResultLine, ResultsRecorded,
    SubmissionSealed, Text,
};
use simpairs_events::{Codec, Event, Stream};
use simpairs_formats::import::Imported;
use simpairs_log::{Log, Produce};
use simpairs_scoring::Outcome;

use crate::{Error, Result, now_ms, stream_name};

/// What was published.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Published {
    pub submission_id: String,
    pub results: usize,
    pub pairs: usize,
    /// Offset of the seal on the results stream (partition 0 for the embedded log).
    pub seal_partition: u32,
    pub seal_offset: u64,
    pub sealed_at_ms: i64,
}

/// Turns an imported file into the records of `club`'s submission (not yet sealed).
pub fn submission_events(event_id: &str, club: &str, imported: &Imported) -> Result<Vec<Event>> {
    let field = &imported.field;
    // A club publishes only its own results.
    let clubs: Vec<&str> = field
        .clubs()
        .filter(|c| !c.is_empty() && *c != club)
        .collect();
    if !clubs.is_empty() {
        return Err(Error::Usage(format!(
            "the file holds results of club(s) {}; club {club} can only publish its own (use a file without a club column, or with only {club})",
            clubs.join(", ")
        )));
    }
    let mut events = Vec::with_capacity(field.len() + imported.pairs.len());
    let mut sequence = 0i32;
    for pair in &imported.pairs {
        let players: Vec<Player> = pair
            .players
            .iter()
            .map(|p| Player {
                name: p.name.clone(),
                national_id: p.national_id.clone(),
            })
            .collect();
        events.push(Event::PairEntered(PairEntered {
            event_id: event_id.to_string(),
            club_id: club.to_string(),
            submission_id: String::new(),
            sequence: {
                sequence += 1;
                sequence - 1
            },
            section: pair.section.clone(),
            pair: pair.label.clone(),
            direction: pair.direction.map(direction),
            players,
        }));
    }
    // Results go one batch per board: one message for a board's tables (consecutive sequences).
    let by_board = field.rows_by_board();
    for (i, rows) in by_board.iter().enumerate() {
        let board = i32::from(by_board.boards[i]);
        let mut lines = Vec::with_capacity(rows.len());
        for &row in rows {
            let row = row as usize;
            let r = field.result(row);
            let (ns, ew) = (&field.pairs()[r.ns as usize], &field.pairs()[r.ew as usize]);
            let details = imported.details(row);
            let (mut ns_score, mut ew_score, mut adjusted) = (None, None, None);
            match r.outcome {
                Outcome::Played(s) => ns_score = Some(s),
                Outcome::Split { ns, ew } => {
                    ns_score = Some(ns);
                    ew_score = Some(ew);
                }
                Outcome::Adjusted {
                    ns_percent,
                    ew_percent,
                } => {
                    adjusted = Some(Adjusted {
                        ns_percent: i32::from(ns_percent),
                        ew_percent: i32::from(ew_percent),
                    });
                }
            }
            lines.push(ResultLine {
                section: field.section_name(ns.section).into(),
                ns_pair: ns.label.to_compact_string(),
                ew_pair: ew.label.to_compact_string(),
                movement: if ns.direction.is_none() {
                    Movement::Howell
                } else {
                    Movement::Mitchell
                },
                contract: details.and_then(|d| d.contract.as_deref().map(Text::from)),
                declarer: details
                    .and_then(|d| d.declarer)
                    .map(|s| s.letter().to_compact_string()),
                tricks: details.and_then(|d| d.tricks).map(i32::from),
                ns_score,
                ew_score,
                adjusted,
                arrow_switch: r.arrow_switch,
                group: r.group.map(|g| field.group_name(g).1.into()),
                lead: details.and_then(|d| d.lead.as_deref().map(Text::from)),
                table: details.and_then(|d| d.table).map(|t| t as i32),
            });
        }
        let first_sequence = sequence;
        sequence += lines.len() as i32;
        events.push(Event::ResultsRecorded(ResultsRecorded {
            event_id: event_id.to_string(),
            club_id: club.to_string(),
            submission_id: String::new(),
            board,
            first_sequence,
            results: lines,
        }));
    }
    Ok(events)
}

fn direction(d: simpairs_scoring::Direction) -> Direction {
    match d {
        simpairs_scoring::Direction::NS => Direction::Ns,
        simpairs_scoring::Direction::EW => Direction::Ew,
    }
}

fn set_submission(event: &mut Event, id: &str) {
    match event {
        Event::ResultRecorded(r) => r.submission_id = id.to_string(),
        Event::ResultsRecorded(b) => b.submission_id = id.to_string(),
        Event::ResultWithdrawn(w) => w.submission_id = id.to_string(),
        Event::PairEntered(p) => p.submission_id = id.to_string(),
        _ => {}
    }
}

/// Seals `events` as one submission of `club` signed with `key`: sets their submission id (derived
/// from their content) and returns them followed by the seal.
pub fn seal(
    codec: &Codec,
    event_id: &str,
    club: &str,
    key: &[u8],
    mut events: Vec<Event>,
    source: Option<String>,
) -> Vec<Event> {
    // The id is a digest of the records without their id, so the same content gets the same id.
    let mut h = Sha256::new();
    h.update(event_id.as_bytes());
    h.update([0]);
    h.update(club.as_bytes());
    for e in &events {
        h.update(codec.datum(e));
    }
    let submission_id = format!("s{}", &hex::encode(h.finalize())[..20]);
    for e in &mut events {
        set_submission(e, &submission_id);
    }
    let datums: Vec<Vec<u8>> = events.iter().map(|e| codec.datum(e)).collect();
    let digest = simpairs_events::submission_digest(datums.iter().map(Vec::as_slice));
    // A batch takes one sequence number per result.
    let count = events
        .iter()
        .map(|e| match e {
            Event::ResultsRecorded(b) => b.results.len() as i64,
            _ => 1,
        })
        .sum();
    let signature =
        simpairs_events::seal_signature(key, event_id, club, &submission_id, count, &digest);
    events.push(Event::SubmissionSealed(SubmissionSealed {
        event_id: event_id.to_string(),
        club_id: club.to_string(),
        submission_id,
        count,
        digest: digest.to_vec(),
        key_id: crate::declare::key_id(key),
        signature: signature.to_vec(),
        sealed_at_ms: now_ms(),
        source,
    }));
    events
}

/// Appends a sealed submission to the results stream in one append (records first, seal last).
pub fn append_submission(
    log: &dyn Log,
    codec: &Codec,
    event_id: &str,
    events: &[Event],
) -> Result<Published> {
    let stream = stream_name(event_id, Stream::Results);
    let encoded: Vec<(Vec<u8>, Vec<u8>)> = events
        .iter()
        .map(|e| (e.partition_key(), codec.encode(e)))
        .collect();
    let at = now_ms();
    let records: Vec<Produce<'_>> = encoded
        .iter()
        .map(|(k, v)| Produce::new(k, v, at))
        .collect();
    let positions = log.append(&stream, &records)?;
    let Some(Event::SubmissionSealed(seal)) = events.last() else {
        return Err(Error::Usage("a submission ends with its seal".into()));
    };
    let (seal_partition, seal_offset) = *positions.last().expect("one position per record");
    let results = events
        .iter()
        .map(|e| match e {
            Event::ResultRecorded(_) => 1,
            Event::ResultsRecorded(b) => b.results.len(),
            _ => 0,
        })
        .sum();
    let pairs = events
        .iter()
        .filter(|e| matches!(e, Event::PairEntered(_)))
        .count();
    Ok(Published {
        submission_id: seal.submission_id.clone(),
        results,
        pairs,
        seal_partition,
        seal_offset,
        sealed_at_ms: seal.sealed_at_ms,
    })
}

/// Checks a submission against the event's declaration before publishing: the club is part of the
/// event, its key is the declared one, every board is declared.
pub fn check_against(
    declared: &EventDeclared,
    club: &str,
    key: &[u8],
    events: &[Event],
) -> Result<()> {
    let Some(entry) = declared.clubs.iter().find(|c| c.club_id == club) else {
        return Err(Error::Usage(format!(
            "club {club} is not part of event {}; the organiser declares the clubs",
            declared.event_id
        )));
    };
    let id = crate::declare::key_id(key);
    if entry.key_id != id {
        return Err(Error::Usage(format!(
            "this key ({id}) is not club {club}'s key for event {} ({}); the submission would be rejected",
            declared.event_id, entry.key_id
        )));
    }
    let boards: std::collections::BTreeSet<i32> = declared.boards.iter().copied().collect();
    let mut wrong: Vec<i32> = events
        .iter()
        .filter_map(|e| match e {
            Event::ResultRecorded(r) if !boards.contains(&r.board) => Some(r.board),
            Event::ResultsRecorded(b) if !boards.contains(&b.board) => Some(b.board),
            _ => None,
        })
        .collect();
    wrong.sort_unstable();
    wrong.dedup();
    if !wrong.is_empty() {
        return Err(Error::Usage(format!(
            "board(s) {wrong:?} are not boards of event {} ({}..{})",
            declared.event_id,
            boards.first().copied().unwrap_or(0),
            boards.last().copied().unwrap_or(0)
        )));
    }
    Ok(())
}

/// Reads the declaration of an event from the log.
pub fn declaration(log: &dyn Log, codec: &Codec, event_id: &str) -> Result<Option<EventDeclared>> {
    let stream = stream_name(event_id, Stream::Declarations);
    let end = match log.end_offset(&stream, 0) {
        Ok(end) => end,
        // No such stream: the event was never declared here. Anything else (an unreachable
        // broker, ...) is reported as it is.
        Err(simpairs_log::Error::UnknownStream { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut found = None;
    crate::read_range(log, &stream, 0, 0, end, |r| {
        if let Ok(Event::EventDeclared(d)) = codec.decode(&r.value) {
            found.get_or_insert(d);
        }
    })?;
    Ok(found)
}

/// Publishes a club's file: reads and checks it whole, checks it against the declaration, seals it
/// with the club's key ([`seal_file`]) and appends it ([`append_submission`]).
pub fn publish_file(
    log: &dyn Log,
    event_id: &str,
    club: &str,
    key: &[u8],
    file_name: &str,
    bytes: &[u8],
    format: Option<simpairs_formats::import::Format>,
) -> Result<Published> {
    let codec = Codec::new()?;
    let sealed = seal_file(&codec, log, event_id, club, key, file_name, bytes, format)?;
    append_submission(log, &codec, event_id, &sealed)
}

/// The club's side of publishing a file, short of appending: reads and checks it whole, checks it
/// against the event's declaration in `log`, and seals it with the club's key. Returns the records
/// followed by the seal, for [`append_submission`].
#[allow(clippy::too_many_arguments)]
pub fn seal_file(
    codec: &Codec,
    log: &dyn Log,
    event_id: &str,
    club: &str,
    key: &[u8],
    file_name: &str,
    bytes: &[u8],
    format: Option<simpairs_formats::import::Format>,
) -> Result<Vec<Event>> {
    let imported = simpairs_formats::import::read(file_name, bytes, format)?;
    let events = submission_events(event_id, club, &imported)?;
    let declared = declaration(log, codec, event_id)?
        .ok_or_else(|| Error::Usage(format!("event {event_id} is not declared in this log")))?;
    check_against(&declared, club, key, &events)?;
    Ok(seal(
        codec,
        event_id,
        club,
        key,
        events,
        Some(file_name.to_string()),
    ))
}
