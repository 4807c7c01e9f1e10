//! The club node: a club's results file (any format simpairs reads) becomes a signed submission on the
//! event's results stream. The whole file is read and checked first; a file with any problem publishes
//! nothing.
//!
//! A submission is every pair as `PairEntered`, each board's results as one `ResultsRecorded` and
//! each board's hand record (when the file has one) as `DealRecorded`, numbered from 0, then one
//! `SubmissionSealed` with their count, the BLAKE3 digest of their bytes, the file's warnings and
//! an Ed25519 signature with the club's private key. Before anything is appended the judge looks
//! at it as the aggregator will ([`preflight`]). Its id is derived from its content, so publishing
//! the same file twice is one submission (the second is a harmless duplicate); a corrected file is
//! a new submission whose results supersede the earlier ones table by table.

use compact_str::ToCompactString;
use sha2::{Digest, Sha256};
use simpairs_events::types::{
    Adjusted, DealRecorded, Movement, PairEntered, Player, ResultLine, ResultWithdrawn,
    ResultsRecorded, SealWarning, SubmissionSealed, Text,
};
use simpairs_events::{Codec, Event, PrivateKey, Stream};
use simpairs_formats::import::Imported;
use simpairs_log::{Log, Produce};
use simpairs_scoring::Outcome;

use crate::roster::Roster;
use crate::state::{Effect, EventState, Verdict};
use crate::{Error, EventError, KeyError, PublishError, Result, now_ms, stream_name};

/// What was published.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Published {
    pub submission_id: String,
    pub results: usize,
    /// The pairs its file's results seat (a Mitchell's NS 1 and EW 1 are two); 0 for records
    /// appended as they are ([`append_submission`]), which count no pairs.
    pub pairs: usize,
    /// The pairs it gives players' names for.
    pub named: usize,
    /// Tables the file marks not played, withdrawn (an earlier result of theirs taken out).
    pub withdrawn: usize,
    /// Offset of the seal on the results stream (partition 0 for the embedded log).
    pub seal_partition: u32,
    pub seal_offset: u64,
    pub sealed_at_ms: i64,
    /// Lines that apply as recorded but that a director should look at, as
    /// `file:line: field: message`.
    pub warnings: Vec<String>,
}

/// A club's submission before it is sealed: its records and where each sequence came from.
#[derive(Clone, Debug)]
pub struct Submission {
    pub events: Vec<Event>,
    /// The line of the file each sequence comes from (0 for a pair's entry): the judge names
    /// records by sequence, the club reads lines.
    pub lines: Vec<u64>,
}

/// Turns an imported file into the records of `club`'s submission (not yet sealed).
pub fn submission_events(event_id: &str, club: &str, imported: &Imported) -> Result<Submission> {
    submission_events_in(event_id, club, imported, None)
}

/// [`submission_events`] for an event of `boards` (every board when `None`): each table the file
/// marks not played is withdrawn (a correction marking it so takes its earlier result out), where
/// its board is one of the event's and the file gives the table no result.
pub fn submission_events_in(
    event_id: &str,
    club: &str,
    imported: &Imported,
    boards: Option<&std::collections::BTreeSet<i32>>,
) -> Result<Submission> {
    let field = &imported.field;
    // A club publishes only its own results.
    let others: Vec<String> = field
        .clubs()
        .filter(|c| !c.is_empty() && *c != club)
        .map(str::to_string)
        .collect();
    if !others.is_empty() {
        let club = club.to_string();
        return Err(PublishError::OtherClubs { club, others }.into());
    }
    let mut events = Vec::with_capacity(field.len() + imported.pairs.len());
    let mut lines = vec![0u64; imported.pairs.len()];
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
            direction: pair.direction.map(crate::wire::direction_to_wire),
            players,
        }));
    }
    // Results go one batch per board: one message for a board's tables (consecutive sequences).
    let by_board = field.rows_by_board();
    for (i, rows) in by_board.iter().enumerate() {
        let board = i32::from(by_board.boards[i]);
        let mut batch = Vec::with_capacity(rows.len());
        for &row in rows {
            let row = row as usize;
            lines.push(imported.lines.line_of(row));
            batch.push(result_line(imported, row));
        }
        let first_sequence = sequence;
        sequence += batch.len() as i32;
        events.push(Event::ResultsRecorded(ResultsRecorded {
            event_id: event_id.to_string(),
            club_id: club.to_string(),
            submission_id: String::new(),
            board,
            first_sequence,
            results: batch,
        }));
    }
    let not_played =
        withdrawals_of_not_played(event_id, club, imported, boards, &events, &mut sequence);
    for withdrawal in not_played {
        events.push(withdrawal);
        lines.push(0);
    }
    // The hand records of the boards the club played, one sequence each.
    for deal in &imported.deals {
        let board = i32::from(deal.board);
        if !by_board.boards.contains(&deal.board) || deal.hands.iter().all(Option::is_none) {
            continue;
        }
        events.push(Event::DealRecorded(DealRecorded {
            event_id: event_id.to_string(),
            club_id: club.to_string(),
            submission_id: String::new(),
            sequence,
            board,
            deal: deal.to_pbn(),
        }));
        lines.push(0);
        sequence += 1;
    }
    Ok(Submission { events, lines })
}

/// A withdrawal of each table of `imported` marked not played (see [`submission_events_in`]), of
/// the club or of no club named, numbered from `sequence` on; `results` are the submission's
/// records so far.
fn withdrawals_of_not_played(
    event_id: &str,
    club: &str,
    imported: &Imported,
    boards: Option<&std::collections::BTreeSet<i32>>,
    results: &[Event],
    sequence: &mut i32,
) -> Vec<Event> {
    let mut recorded = std::collections::HashSet::new();
    for e in results {
        if let Event::ResultsRecorded(b) = e {
            recorded.extend(b.results.iter().map(|r| {
                let (section, ns, ew) =
                    (r.section.as_str(), r.ns_pair.as_str(), r.ew_pair.as_str());
                (section.to_string(), b.board, ns.to_string(), ew.to_string())
            }));
        }
    }
    let mut withdrawn = Vec::new();
    for t in &imported.not_played_tables {
        let board = i32::from(t.board);
        let table = (
            t.section.clone(),
            board,
            t.ns_pair.clone(),
            t.ew_pair.clone(),
        );
        let ours = t.club.is_empty() || t.club == club;
        if !ours || boards.is_some_and(|b| !b.contains(&board)) || !recorded.insert(table) {
            continue;
        }
        withdrawn.push(Event::ResultWithdrawn(ResultWithdrawn {
            event_id: event_id.to_string(),
            club_id: club.to_string(),
            submission_id: String::new(),
            sequence: *sequence,
            section: t.section.as_str().into(),
            board,
            ns_pair: t.ns_pair.as_str().into(),
            ew_pair: t.ew_pair.as_str().into(),
        }));
        *sequence += 1;
    }
    withdrawn
}

/// The record of one result of an imported file, with its details.
fn result_line(imported: &Imported, row: usize) -> ResultLine {
    let field = &imported.field;
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
    ResultLine {
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
    }
}

fn set_submission(event: &mut Event, id: &str) {
    match event {
        Event::ResultRecorded(r) => r.submission_id = id.to_string(),
        Event::ResultsRecorded(b) => b.submission_id = id.to_string(),
        Event::ResultWithdrawn(w) => w.submission_id = id.to_string(),
        Event::PairEntered(p) => p.submission_id = id.to_string(),
        Event::DealRecorded(d) => d.submission_id = id.to_string(),
        _ => {}
    }
}

/// What a seal says of its submission besides its records.
#[derive(Clone, Debug, Default)]
pub struct SealInfo {
    /// What produced the submission (the file's name), for directors.
    pub source: Option<String>,
    /// The file's warnings.
    pub warnings: Vec<SealWarning>,
    /// The submission gives whole every section it holds (`club publish --whole-session`).
    pub whole_session: bool,
}

/// Seals `events` as one submission of `club` signed with `key`: sets their submission id (derived
/// from their content and the moment of sealing) and returns them followed by the seal, which
/// carries `info`.
pub fn seal(
    codec: &Codec,
    event_id: &str,
    club: &str,
    key: &PrivateKey,
    mut events: Vec<Event>,
    info: SealInfo,
) -> Vec<Event> {
    // The id is a digest of the records without their id and of the moment of sealing: the same
    // file published again (a correction taken back, a club withdrawn publishing again) is a new
    // submission and applies again, where a copy of records already in the log keeps their id
    // and changes nothing.
    let sealed_at_ms = now_ms();
    let mut h = Sha256::new();
    h.update(event_id.as_bytes());
    h.update([0]);
    h.update(club.as_bytes());
    for e in &events {
        h.update(codec.datum(e));
    }
    if info.whole_session {
        h.update(simpairs_events::WHOLE_SESSION);
    }
    h.update(sealed_at_ms.to_le_bytes());
    let submission_id = format!("s{}", &hex::encode(h.finalize())[..20]);
    for e in &mut events {
        set_submission(e, &submission_id);
    }
    let datums: Vec<Vec<u8>> = events.iter().map(|e| codec.datum(e)).collect();
    let hash_function = simpairs_events::HASH_FUNCTION;
    let digest =
        simpairs_events::submission_digest(hash_function, datums.iter().map(Vec::as_slice));
    // A batch takes one sequence number per result.
    let count = events
        .iter()
        .map(|e| match e {
            Event::ResultsRecorded(b) => b.results.len() as i64,
            _ => 1,
        })
        .sum();
    let mut sealed = SubmissionSealed {
        event_id: event_id.to_string(),
        club_id: club.to_string(),
        submission_id,
        count,
        digest: digest.to_vec(),
        hash_function,
        key_id: String::new(),
        signature: Vec::new(),
        sealed_at_ms,
        source: info.source,
        warnings: info.warnings,
        whole_session: info.whole_session,
    };
    simpairs_events::sign_seal(key, &mut sealed);
    events.push(Event::SubmissionSealed(sealed));
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
        return Err(PublishError::Unsealed.into());
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
    let named = events
        .iter()
        .filter(|e| matches!(e, Event::PairEntered(p) if !p.players.is_empty()))
        .count();
    let withdrawn = events
        .iter()
        .filter(|e| matches!(e, Event::ResultWithdrawn(_)))
        .count();
    Ok(Published {
        submission_id: seal.submission_id.clone(),
        results,
        pairs: 0,
        named,
        withdrawn,
        seal_partition,
        seal_offset,
        sealed_at_ms: seal.sealed_at_ms,
        warnings: Vec::new(),
    })
}

/// Checks a submission against the event's declaration before publishing: the club is part of the
/// event, still open, and this is one of its keys (so that a club is told at once, not by the
/// aggregator).
pub(crate) fn check_against(roster: &Roster, club: &str, key: &PrivateKey) -> Result<()> {
    let event = roster.event_id();
    if let Some(closed) = &roster.closed {
        return Err(PublishError::Closed {
            event: event.to_string(),
            at: crate::when::describe_time(closed.at_ms),
        }
        .into());
    }
    let Some(entry) = roster.clubs.get(club) else {
        return Err(PublishError::NotInEvent {
            club: club.to_string(),
            event: event.to_string(),
        }
        .into());
    };
    // The organiser may publish for any club (see `Roster::signer`).
    if roster.organiser == Some(key.public()) {
        return Ok(());
    }
    let id = key.public().id();
    if !entry.keys.iter().any(|k| k.id == id && k.is(&key.public())) {
        return Err(KeyError::NotClubs {
            key: id,
            club: club.to_string(),
            event: event.to_string(),
            declared: entry.keys.iter().map(|k| k.id.clone()).collect(),
        }
        .into());
    }
    if let Some(revoked) = entry.revoked.iter().find(|r| r.key_id == id) {
        return Err(KeyError::Revoked {
            key: id,
            club: club.to_string(),
            from: revoked_from(revoked),
            then: instead_of_revoked(entry),
        }
        .into());
    }
    Ok(())
}

/// Reads the event as declared and amended from the log, refusing an event that cannot be used.
pub fn roster(log: &dyn Log, codec: &Codec, event_id: &str) -> Result<Roster> {
    roster_for(log, codec, event_id, None)
}

/// [`roster`] as `only` sees it, or of every club (see [`Roster::new_for`]).
pub fn roster_for(
    log: &dyn Log,
    codec: &Codec,
    event_id: &str,
    only: Option<&str>,
) -> Result<Roster> {
    match Roster::load_for(log, codec, event_id, only)? {
        Some((roster, _)) => Ok(roster),
        None => Err(EventError::NotDeclared {
            event: event_id.to_string(),
        }
        .into()),
    }
}

/// A club's results file as it is published.
#[derive(Clone, Copy, Debug)]
pub struct ClubFile<'a> {
    /// The file's name, as errors and warnings name it.
    pub name: &'a str,
    pub bytes: &'a [u8],
    /// Its format (detected when not given).
    pub format: Option<simpairs_formats::import::Format>,
    /// The file is the club's whole session: what the club published before in the sections it
    /// holds, and it does not, is taken out (docs/rules.md, "Corrections").
    pub whole_session: bool,
}

/// [`publish_club_file`] of a file whose lines each correct their own table.
pub fn publish_file(
    log: &dyn Log,
    event_id: &str,
    club: &str,
    key: &PrivateKey,
    file_name: &str,
    bytes: &[u8],
    format: Option<simpairs_formats::import::Format>,
) -> Result<Published> {
    let file = ClubFile {
        name: file_name,
        bytes,
        format,
        whole_session: false,
    };
    publish_club_file(log, event_id, club, key, &file)
}

/// Publishes a club's file: reads and checks it whole, checks it against the declaration, seals it
/// with the club's key and has the judge look at it as the aggregator will ([`seal_file`]), then
/// appends it ([`append_submission`]).
pub fn publish_club_file(
    log: &dyn Log,
    event_id: &str,
    club: &str,
    key: &PrivateKey,
    file: &ClubFile<'_>,
) -> Result<Published> {
    let codec = Codec::new()?;
    let sealed = seal_file(&codec, log, event_id, club, key, file)?;
    let mut published = append_submission(log, &codec, event_id, &sealed.events)?;
    published.warnings = sealed.warnings;
    published.pairs = sealed.pairs;
    Ok(published)
}

/// Withdraws every result `club` has in force: publishes a submission that gives the club's whole
/// session as nothing ([`SealInfo::whole_session`] with no records: docs/rules.md, "Corrections"),
/// signed with the club's key or the organiser's, naming `reason` as its source.
pub fn withdraw_club(
    log: &dyn Log,
    event_id: &str,
    club: &str,
    key: &PrivateKey,
    reason: &str,
) -> Result<Published> {
    let codec = Codec::new()?;
    let roster = roster_for(log, &codec, event_id, Some(club))?;
    check_against(&roster, club, key)?;
    let info = SealInfo {
        source: Some(format!("withdrawal: {reason}")),
        warnings: Vec::new(),
        whole_session: true,
    };
    let events = seal(&codec, event_id, club, key, Vec::new(), info);
    preflight(&codec, roster, &events).map_err(|refusal| refused("withdrawal", &[], refusal))?;
    append_submission(log, &codec, event_id, &events)
}

/// A sealed submission that the judge accepts, ready to append.
#[derive(Clone, Debug)]
pub struct Sealed {
    /// The records followed by the seal.
    pub events: Vec<Event>,
    /// What a director should look at, as `file:line: field: message`.
    pub warnings: Vec<String>,
    /// The pairs the file's results seat (a Mitchell's NS 1 and EW 1 are two).
    pub pairs: usize,
}

/// The club's side of publishing a file, short of appending: reads and checks it whole, checks it
/// against the event's declaration in `log`, seals it with the club's key, and judges it as the
/// aggregator will ([`preflight`]): a file the aggregator would set aside is refused here, with
/// the aggregator's reasons.
pub fn seal_file(
    codec: &Codec,
    log: &dyn Log,
    event_id: &str,
    club: &str,
    key: &PrivateKey,
    file: &ClubFile<'_>,
) -> Result<Sealed> {
    let (file_name, bytes) = (file.name, file.bytes);
    let roster = roster_for(log, codec, event_id, Some(club))?;
    check_against(&roster, club, key)?;
    roster
        .limits
        .check_file(bytes.len() as u64)
        .map_err(|e| PublishError::TooLarge {
            file: file_name.to_string(),
            source: e,
        })?;
    let imported = simpairs_formats::import::read(file_name, bytes, file.format)?;
    let submission = submission_events_in(event_id, club, &imported, Some(&roster.boards))?;
    let info = SealInfo {
        source: Some(file_name.to_string()),
        warnings: seal_warnings(&imported),
        whole_session: file.whole_session,
    };
    let events = seal(codec, event_id, club, key, submission.events, info);
    let lines = preflight(codec, roster, &events)
        .map_err(|reasons| refused(file_name, &submission.lines, reasons))?
        .into_iter()
        .map(|w| {
            format!(
                "{}: {}: {}",
                at_line(file_name, &submission.lines, w.sequence),
                w.field,
                w.message
            )
        });
    // The judge warns of lines; what the reader says of the whole file (how its text was read)
    // is told first.
    let warnings = imported
        .warnings
        .iter()
        .filter(|w| w.at.field.is_none())
        .map(ToString::to_string)
        .chain(lines)
        .collect();
    let pairs = imported.field.pairs().len();
    Ok(Sealed {
        events,
        warnings,
        pairs,
    })
}

/// The file's warnings as the seal carries them.
fn seal_warnings(imported: &Imported) -> Vec<SealWarning> {
    imported
        .warnings
        .iter()
        .map(|w| SealWarning {
            line: i64::try_from(w.at.line).unwrap_or(i64::MAX),
            field: w.at.field.clone().unwrap_or_default(),
            message: w.message.clone(),
        })
        .collect()
}

/// `file:line` of a sequence, or the file alone when the sequence is not a line of it.
fn at_line(file: &str, lines: &[u64], sequence: i32) -> String {
    match usize::try_from(sequence).ok().and_then(|s| lines.get(s)) {
        Some(&line) if line > 0 => format!("{file}:{line}"),
        _ => file.to_string(),
    }
}

/// The error of a file the judge refuses.
fn refused(file: &str, lines: &[u64], refusal: Refusal) -> Error {
    Error::Refused(Box::new(Refused {
        file: file.to_string(),
        lines: lines.to_vec(),
        refusal,
    }))
}

/// A file the judge refuses ([`Error::Refused`]): why, and the file's lines to name its records
/// by.
#[derive(Debug)]
pub struct Refused {
    /// The file's name.
    pub file: String,
    /// The line of the file each sequence comes from ([`Submission::lines`]).
    pub lines: Vec<u64>,
    /// Why the judge would not apply it.
    pub refusal: Refusal,
}

impl Refused {
    /// The reasons, each in a director's words: a problem of a line names it as `file:line`; the
    /// first ten problems are given, then how many more there are.
    pub fn reasons(&self) -> Vec<String> {
        const SHOWN: usize = 10;
        let (file, lines) = (self.file.as_str(), self.lines.as_slice());
        match &self.refusal {
            Refusal::Judged(crate::judge::Rejection::Invalid { problems, .. }) => problems
                .iter()
                .take(SHOWN)
                .map(|p| match p.sequence() {
                    Some(sequence) => format!("{}: {}", at_line(file, lines, sequence), p.what()),
                    None => format!("{file}: {p}"),
                })
                .chain(
                    (problems.len() > SHOWN)
                        .then(|| format!("and {} more", problems.len() - SHOWN)),
                )
                .collect(),
            Refusal::Judged(other) => vec![other.to_string()],
            Refusal::Records(reasons) => reasons.clone(),
        }
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reasons().join("; "))
    }
}

/// Why the judge would not apply a submission.
#[derive(Debug)]
pub enum Refusal {
    /// The judge set the sealed submission aside.
    Judged(crate::judge::Rejection),
    /// Records were set aside before the submission could be judged (or it never completed).
    Records(Vec<String>),
}

/// What a club whose key was revoked signs with instead, in words.
fn instead_of_revoked(entry: &crate::roster::Club) -> String {
    let in_force: Vec<&str> = (entry.keys.iter())
        .filter(|k| !entry.revoked.iter().any(|r| r.key_id == k.id))
        .map(|k| k.id.as_str())
        .collect();
    match in_force.as_slice() {
        [] => {
            "the club has no other key: the organiser gives it one (simpairs event amend --add-key)"
                .to_string()
        }
        keys => format!("sign with the club's key in force ({})", keys.join(", ")),
    }
}

/// When a key was revoked, in words.
fn revoked_from(revoked: &crate::roster::Revoked) -> String {
    match revoked.in_band {
        true => format!("amendment {}", revoked.amendment),
        false => format!("from offset {} of the results stream", revoked.from),
    }
}

/// Judges a sealed submission as the aggregator will, on an event that has only its declaration:
/// the records go through [`EventState`] exactly as the aggregator reads them back from the log.
/// Returns the warnings of the lines that apply, or why it would be set aside.
pub(crate) fn preflight(
    codec: &Codec,
    mut roster: Roster,
    events: &[Event],
) -> std::result::Result<Vec<crate::judge::LineWarning>, Refusal> {
    // The records will be appended after everything in the log now: past the place from which
    // every hand record declared so far holds, and past the lines of every amendment made.
    const AFTER_THE_LOG: i64 = i64::MAX / 4;
    roster.draw_every_line();
    let mut state = EventState::new();
    state.set_roster(roster);
    let mut batch = crate::state::Batch::new(codec);
    for (i, event) in events.iter().enumerate() {
        let message = codec.encode(event);
        state.stage(
            &mut batch,
            crate::state::decode(codec, &message),
            AFTER_THE_LOG + i as i64,
            i,
        );
    }
    let finished = state.finish(batch);
    let judged = state.judged().next().map(|(_, j)| j.verdict.clone());
    match judged {
        Some(Verdict::Applied { warnings, .. }) => Ok(warnings),
        Some(Verdict::SetAside(rejection)) => Err(Refusal::Judged(rejection)),
        None => {
            let mut reasons: Vec<String> = finished
                .effects
                .into_iter()
                .filter_map(|(_, e)| match e {
                    Effect::DeadLetter { reason } => Some(reason),
                    Effect::Applied(_) => None,
                })
                .collect();
            if reasons.is_empty() {
                reasons.push(
                    "the submission is incomplete: its seal does not cover its records".into(),
                );
            }
            Err(Refusal::Records(reasons))
        }
    }
}
