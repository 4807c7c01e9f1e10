//! The state of one event as the log tells it: which submissions were applied and the results and pairs
//! they left. Pure and deterministic: the aggregator and `replay` feed it the same records and get the
//! same state. Deciding (checks that may reject) is separate from applying (which cannot fail).
//!
//! A club's submission is a run of `ResultRecorded`, `ResultWithdrawn` and `PairEntered` records with
//! consecutive sequence numbers, then a `SubmissionSealed` carrying their count, the SHA-256 digest of
//! their bytes and an HMAC-SHA256 signature with the club's key. Nothing of a submission applies until
//! its seal arrives and checks out; then all of it applies at once. A seal that arrives before all its
//! records (possible when results are spread over Kafka partitions) waits for them.
//!
//! Records are handled in batches ([`Batch`]): each record in log order ([`EventState::stage`]),
//! which is cheap bookkeeping, and the submissions the batch completes are then checked together,
//! in parallel (digest, every result's checks, building what applies), and applied one after the
//! other in the order of their seals ([`EventState::finish`]). The effects are those of handling
//! the records one at a time; a record of a submission that is waiting to be checked first
//! finishes the ones staged before it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use simpairs_events::types::{
    AppliedPair, AppliedResult, EventDeclared, PairEntered, ResultKey, ResultRecorded,
    ResultWithdrawn, SubmissionApplied, SubmissionSealed,
};
use simpairs_events::{Codec, Event, ResultsHeader, Skimmed};
use simpairs_scoring::Field;

use crate::results::ClubResults;

/// A result's identity within the event: the club and the table (section, board, pairs).
pub type ResultId = (String, ResultKey);

/// What handling a record led to.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// A sealed submission passed every check and was applied. The state shares its results.
    Applied(Arc<SubmissionApplied>),
    /// The record (or the submission it seals) was set aside, with the reason in words.
    DeadLetter { reason: String },
}

/// One record of a submission awaiting its seal.
#[derive(Debug, Clone)]
enum Part {
    Result(ResultRecorded),
    /// A batch of one board's results, the consecutive sequences from its first: its header. Its
    /// lines are read from the message when the submission is checked
    /// ([`simpairs_events::Codec::applied_lines`]).
    Lines(ResultsHeader),
    Withdrawal(ResultWithdrawn),
    Pair(PairEntered),
}

impl Part {
    /// How many sequences the record stands for.
    fn sequences(&self) -> i32 {
        match self {
            Part::Lines(b) => i32::try_from(b.lines).unwrap_or(i32::MAX),
            _ => 1,
        }
    }
}

/// The datum of a message (what a seal's digest covers, and what tells two records apart): the
/// bytes after its header.
fn datum(message: &[u8]) -> &[u8] {
    message
        .get(simpairs_events::HEADER_LEN..)
        .unwrap_or_default()
}

#[derive(Debug, Default)]
struct Pending {
    /// first sequence -> (message as sent, record); a batch covers the sequences from its first.
    /// In order of first sequence (records mostly arrive in order: each is pushed at the end).
    records: Vec<(i32, Vec<u8>, Part)>,
    /// Sequences covered by `records`.
    sequences: i64,
    /// A seal that arrived before all its records, with its offset.
    seal: Option<(SubmissionSealed, i64)>,
}

impl Pending {
    /// The record covering `sequence`: its first sequence and bytes.
    fn covering(&self, sequence: i32) -> Option<(i32, &[u8])> {
        let after = self.records.partition_point(|r| r.0 <= sequence);
        let (first, bytes, part) = self.records.get(after.checked_sub(1)?)?;
        (i64::from(sequence) < i64::from(*first) + i64::from(part.sequences()))
            .then_some((*first, datum(bytes)))
    }

    /// Whether any record covers a sequence of `range`.
    fn overlaps(&self, range: std::ops::Range<i32>) -> bool {
        let from = self.records.partition_point(|r| r.0 < range.start);
        self.covering(range.start).is_some()
            || self.records.get(from).is_some_and(|r| r.0 < range.end)
    }

    /// Adds a record that no record covers the first sequence of.
    fn insert(&mut self, first: i32, message: Vec<u8>, part: Part) {
        self.sequences += i64::from(part.sequences());
        let at = self.records.partition_point(|r| r.0 < first);
        self.records.insert(at, (first, message, part));
    }

    /// Whether the records cover exactly the sequences `0..count`.
    fn complete_run(&self, count: i64) -> bool {
        let mut next = 0i64;
        for (first, _, part) in &self.records {
            if i64::from(*first) != next {
                return false;
            }
            next += i64::from(part.sequences());
        }
        next == count
    }

    /// Every sequence the records cover, in order (for messages).
    fn sequence_list(&self) -> Vec<i32> {
        self.records
            .iter()
            .flat_map(|(first, _, part)| *first..first.saturating_add(part.sequences()))
            .collect()
    }
}

/// A pair as the event knows it: club, section, number and direction (`NS`, `EW`, or `""` for a Howell
/// pair).
pub type PairId = (String, String, String, &'static str);

/// The key form of a pair's direction.
pub fn direction_key(d: Option<simpairs_events::types::Direction>) -> &'static str {
    match d {
        Some(simpairs_events::types::Direction::Ns) => "NS",
        Some(simpairs_events::types::Direction::Ew) => "EW",
        None => "",
    }
}

/// The state of one event.
#[derive(Debug, Default)]
pub struct EventState {
    declared: Option<EventDeclared>,
    /// Each declared club's place in the declaration's list (a national event declares thousands,
    /// and every seal looks its club up).
    club_index: HashMap<String, usize>,
    pending: HashMap<(String, String), Pending>,
    /// Each club's sealed submissions waiting to apply, in the order of their seals.
    queues: HashMap<String, std::collections::VecDeque<String>>,
    /// The submissions applied, by (club, submission): looked up for every record (a fast hash:
    /// only verified submissions are ever put in).
    applied: rustc_hash::FxHashSet<(String, String)>,
    /// The results in force, by club and table.
    results: BTreeMap<String, ClubResults>,
    result_count: usize,
    /// The players of each pair.
    pairs: BTreeMap<PairId, Vec<simpairs_events::types::Player>>,
    /// Clubs with at least one applied submission, with their count of results in force.
    clubs: BTreeMap<String, usize>,
    /// Submissions applied so far (the generation counter of derived output).
    applied_count: i64,
    /// The declared boards, for the checks.
    boards: Arc<BTreeSet<i32>>,
}

/// A sealed submission whose records are all in, waiting to be checked by [`EventState::finish`].
#[derive(Debug)]
struct Ready {
    /// The batch index of the record that completed it (its effect is that record's).
    trigger: usize,
    seal: SubmissionSealed,
    offset: i64,
    pending: Pending,
}

/// Records being handled together: the submissions they completed, waiting to be checked, and
/// the effects so far (see [`EventState::stage`] and [`EventState::finish`]).
#[derive(Debug)]
pub struct Batch<'c> {
    /// Reads the lines of batched results when their submission is checked.
    codec: &'c Codec,
    ready: Vec<Ready>,
    /// Hashes of the (club, submission) keys in `ready`: a record of one of them must wait until
    /// they are checked. (A hash that happens to match another key only finishes the batch's
    /// checks early.)
    completing: std::collections::HashSet<u64>,
    effects: Vec<(usize, Effect)>,
    fields: HashMap<String, Field>,
}

/// Records a batch should hold at most when a whole log is read (a rebuild, a replay): the
/// submissions it completes wait in memory until it is finished.
pub const REBUILD_BATCH: usize = 65_536;

impl<'c> Batch<'c> {
    /// An empty batch; `codec` reads the lines of the results it holds.
    pub fn new(codec: &'c Codec) -> Batch<'c> {
        Batch {
            codec,
            ready: Vec::new(),
            completing: Default::default(),
            effects: Vec::new(),
            fields: HashMap::new(),
        }
    }
}

/// What a batch led to.
#[derive(Debug, Default)]
pub struct Finished {
    /// Every effect, with the batch index of the record it came from, in record order.
    pub effects: Vec<(usize, Effect)>,
    /// The field of each club whose results in force are exactly one submission applied in the
    /// batch (the usual first upload), already built by its checks: the same field
    /// [`crate::field::build_field`] builds from [`EventState::club_results`].
    pub fields: HashMap<String, Field>,
}

/// The key of a submission, hashed.
fn submission_hash(club: &str, submission: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    (club, submission).hash(&mut h);
    h.finish()
}

/// The submission a results-stream record belongs to.
fn submission_of(record: &Skimmed) -> Option<(&str, &str)> {
    let event = match record {
        Skimmed::Results(h) => return Some((&h.club_id, &h.submission_id)),
        Skimmed::Event(event) => event,
    };
    match event.as_ref() {
        Event::ResultRecorded(r) => Some((&r.club_id, &r.submission_id)),
        Event::ResultsRecorded(r) => Some((&r.club_id, &r.submission_id)),
        Event::ResultWithdrawn(r) => Some((&r.club_id, &r.submission_id)),
        Event::PairEntered(r) => Some((&r.club_id, &r.submission_id)),
        Event::SubmissionSealed(r) => Some((&r.club_id, &r.submission_id)),
        _ => None,
    }
}

/// The outcome of checking a ready submission.
enum Decision {
    /// Every check passed: what applies, its results' order by table and the field they make.
    Apply {
        applied: SubmissionApplied,
        by_table: Vec<u32>,
        field: Box<Field>,
    },
    /// Set aside, with the reason; its records stay pending, as they were.
    SetAside { reason: String, pending: Pending },
}

impl EventState {
    pub fn new() -> EventState {
        EventState::default()
    }

    /// The declaration, once read.
    pub fn declared(&self) -> Option<&EventDeclared> {
        self.declared.as_ref()
    }

    /// The results in force, in identity order (club, then table): (club, result).
    pub fn results(&self) -> impl Iterator<Item = (&str, &AppliedResult)> + '_ {
        self.results
            .iter()
            .flat_map(|(club, results)| results.iter().map(move |r| (club.as_str(), r)))
    }

    /// How many results are in force.
    pub fn result_count(&self) -> usize {
        self.result_count
    }

    /// The results in force of one club.
    pub fn club_results<'a>(&'a self, club: &str) -> impl Iterator<Item = &'a AppliedResult> + 'a {
        self.results.get(club).into_iter().flat_map(|r| r.iter())
    }

    pub fn pairs(&self) -> &BTreeMap<PairId, Vec<simpairs_events::types::Player>> {
        &self.pairs
    }

    /// Clubs whose results are in, with their number of results in force.
    pub fn clubs(&self) -> &BTreeMap<String, usize> {
        &self.clubs
    }

    /// Submissions with records but no valid seal yet: (club, submission, records received, seal
    /// waiting for more records). They never apply until sealed; the aggregator reports them.
    pub fn unsealed(&self) -> Vec<(String, String, usize, bool)> {
        self.pending
            .iter()
            .map(|((club, submission), p)| {
                (
                    club.clone(),
                    submission.clone(),
                    p.sequences as usize,
                    p.seal.is_some(),
                )
            })
            .collect()
    }

    /// Submissions applied so far.
    pub fn applied_count(&self) -> i64 {
        self.applied_count
    }

    /// Handles a record of the declarations stream.
    pub fn handle_declaration(&mut self, declared: EventDeclared) -> Vec<Effect> {
        match &self.declared {
            None => {
                // The first declaration of a club counts, as a search of the list would find it.
                self.club_index = HashMap::with_capacity(declared.clubs.len());
                for (i, c) in declared.clubs.iter().enumerate() {
                    self.club_index.entry(c.club_id.clone()).or_insert(i);
                }
                self.boards = Arc::new(declared.boards.iter().copied().collect());
                self.declared = Some(declared);
                Vec::new()
            }
            Some(d) if *d == declared => Vec::new(),
            Some(d) if d.event_id == declared.event_id => vec![Effect::DeadLetter {
                reason: format!(
                    "event {} is already declared; a declaration cannot be changed once clubs publish",
                    d.event_id
                ),
            }],
            Some(_) => Vec::new(),
        }
    }

    /// Handles one message of the results stream (`offset` is its offset, used as the seal's position).
    pub fn handle(&mut self, codec: &Codec, message: &[u8], offset: i64) -> Vec<Effect> {
        self.handle_decoded(codec, decode(codec, message), offset)
    }

    /// Handles a message already decoded with [`decode`] (decoding can run in parallel; handling is in
    /// log order): a batch of one record.
    pub fn handle_decoded(
        &mut self,
        codec: &Codec,
        decoded: Result<(Skimmed, Vec<u8>), String>,
        offset: i64,
    ) -> Vec<Effect> {
        let mut batch = Batch::new(codec);
        self.stage(&mut batch, decoded, offset, 0);
        self.finish(batch)
            .effects
            .into_iter()
            .map(|(_, effect)| effect)
            .collect()
    }

    /// Handles the record at `index` of a batch (decoded with [`decode`]; `offset` is its offset in
    /// the log): its effects are recorded in the batch, and a submission it completes waits there
    /// to be checked by [`EventState::finish`].
    pub fn stage(
        &mut self,
        batch: &mut Batch<'_>,
        decoded: Result<(Skimmed, Vec<u8>), String>,
        offset: i64,
        index: usize,
    ) {
        let effects = match decoded {
            Ok((record, message)) => {
                // A record of a submission waiting to be checked is handled once it is checked, as
                // it would be one record at a time.
                if let Some((club, submission)) = submission_of(&record)
                    && batch
                        .completing
                        .contains(&submission_hash(club, submission))
                {
                    self.check_ready(batch);
                }
                match record {
                    Skimmed::Results(header) => self.handle_results(batch, index, header, message),
                    Skimmed::Event(event) => {
                        self.handle_event(batch, index, *event, message, offset)
                    }
                }
            }
            Err(reason) => vec![dead(reason)],
        };
        batch
            .effects
            .extend(effects.into_iter().map(|effect| (index, effect)));
    }

    /// Checks the submissions the batch completed (in parallel) and applies those that pass, in
    /// the order of their seals.
    pub fn finish(&mut self, mut batch: Batch<'_>) -> Finished {
        self.check_ready(&mut batch);
        // Stable: the effects of one record stay in the order they came.
        batch.effects.sort_by_key(|(index, _)| *index);
        Finished {
            effects: batch.effects,
            fields: batch.fields,
        }
    }

    /// Checks the batch's ready submissions and applies or sets aside each, in order.
    fn check_ready(&mut self, batch: &mut Batch<'_>) {
        use rayon::prelude::*;
        if batch.ready.is_empty() {
            return;
        }
        let ready = std::mem::take(&mut batch.ready);
        batch.completing.clear();
        let boards = self.boards.clone();
        let codec = batch.codec;
        let check = |r: Ready| {
            let decision = decide(codec, &r.seal, r.pending, &boards);
            (r.trigger, r.seal, r.offset, decision)
        };
        // One submission (a live club's upload) is checked on this thread.
        let checking = std::time::Instant::now();
        let decided: Vec<(usize, SubmissionSealed, i64, Decision)> = if ready.len() == 1 {
            ready.into_iter().map(check).collect()
        } else {
            ready.into_par_iter().map(check).collect()
        };
        tracing::trace!(elapsed = ?checking.elapsed(), submissions = decided.len(), "submissions checked");
        for (trigger, seal, offset, decision) in decided {
            let key = (seal.club_id.clone(), seal.submission_id.clone());
            let effect = match decision {
                Decision::SetAside { reason, pending } => {
                    self.pending.insert(key, pending);
                    dead(reason)
                }
                Decision::Apply {
                    applied,
                    by_table,
                    field,
                } => {
                    let club = seal.club_id.clone();
                    let first = !self.results.contains_key(&club) && applied.withdrawn.is_empty();
                    let applied = self.apply(key, offset, applied, &by_table);
                    // The field built by the checks is the club's field only when the club's
                    // results in force are exactly this submission's.
                    if first {
                        batch.fields.insert(club, *field);
                    } else {
                        batch.fields.remove(&club);
                    }
                    Effect::Applied(applied)
                }
            };
            batch.effects.push((trigger, effect));
        }
        tracing::trace!(elapsed = ?checking.elapsed(), "submissions applied");
    }

    /// Handles one decoded event (not a batch of results: [`Codec::skim`] gives those as their
    /// header) with its message.
    fn handle_event(
        &mut self,
        batch: &mut Batch<'_>,
        index: usize,
        event: Event,
        message: Vec<u8>,
        offset: i64,
    ) -> Vec<Effect> {
        let Some(declared) = &self.declared else {
            return vec![dead(format!(
                "{} for event {} arrived before the event was declared",
                event.event_type(),
                event.event_id().unwrap_or("?")
            ))];
        };
        if event.event_id() != Some(declared.event_id.as_str()) {
            return vec![dead(format!(
                "{} belongs to event {}, not to {}",
                event.event_type(),
                event.event_id().unwrap_or("?"),
                declared.event_id
            ))];
        }
        if let Event::ResultsRecorded(results) = &event {
            let header = simpairs_events::ResultsHeader::of(results);
            return self.handle_results(batch, index, header, message);
        }
        let (club, submission, sequence, part) = match event {
            Event::ResultRecorded(r) => (
                r.club_id.clone(),
                r.submission_id.clone(),
                r.sequence,
                Part::Result(r),
            ),
            Event::ResultWithdrawn(w) => (
                w.club_id.clone(),
                w.submission_id.clone(),
                w.sequence,
                Part::Withdrawal(w),
            ),
            Event::PairEntered(p) => (
                p.club_id.clone(),
                p.submission_id.clone(),
                p.sequence,
                Part::Pair(p),
            ),
            Event::SubmissionSealed(seal) => return self.handle_seal(batch, index, seal, offset),
            other => {
                return vec![dead(format!(
                    "{} does not belong on the results stream",
                    other.event_type()
                ))];
            }
        };
        let key = (club, submission);
        if self.applied.contains(&key) {
            // A redelivered record of a submission already applied changes nothing.
            return Vec::new();
        }
        let pending = self.pending.entry(key.clone()).or_default();
        match pending.covering(sequence) {
            Some((first, bytes)) if first == sequence && bytes == datum(&message) => {
                return Vec::new();
            }
            Some(_) => {
                return vec![dead(format!(
                    "club {} sent two different records with sequence {sequence} in submission {}; the second is set aside",
                    key.0, key.1
                ))];
            }
            None => pending.insert(sequence, message, part),
        }
        // A sealed submission waiting for this record may now complete.
        if pending.seal.is_some() {
            let club = key.0.clone();
            self.drain(batch, index, &club);
        }
        Vec::new()
    }

    /// A batch of one board's results: one message holding consecutive sequences. Its bytes enter the
    /// digest once, at its first sequence.
    fn handle_results(
        &mut self,
        ready: &mut Batch<'_>,
        index: usize,
        batch: ResultsHeader,
        message: Vec<u8>,
    ) -> Vec<Effect> {
        let Some(declared) = &self.declared else {
            return vec![dead(format!(
                "ResultsRecorded for event {} arrived before the event was declared",
                batch.event_id
            ))];
        };
        if batch.event_id != declared.event_id {
            return vec![dead(format!(
                "ResultsRecorded belongs to event {}, not to {}",
                batch.event_id, declared.event_id
            ))];
        }
        let key = (batch.club_id.clone(), batch.submission_id.clone());
        if self.applied.contains(&key) {
            return Vec::new();
        }
        if batch.lines == 0 {
            return vec![dead(format!(
                "club {} sent an empty batch of results in submission {}",
                key.0, key.1
            ))];
        }
        let pending = self.pending.entry(key.clone()).or_default();
        let first = batch.first_sequence;
        match pending.covering(first) {
            Some((at, bytes)) if at == first && bytes == datum(&message) => return Vec::new(),
            Some(_) => {
                return vec![dead(format!(
                    "club {} sent two different records with sequence {first} in submission {}; the second is set aside",
                    key.0, key.1
                ))];
            }
            None => {}
        }
        let len = i32::try_from(batch.lines).unwrap_or(i32::MAX);
        let sequences = first..first.saturating_add(len);
        if pending.overlaps(sequences.clone()) {
            let clash = sequences
                .into_iter()
                .find(|&s| pending.covering(s).is_some())
                .unwrap_or(first);
            return vec![dead(format!(
                "club {}'s batch in submission {} repeats sequence {clash}; it is set aside",
                key.0, key.1
            ))];
        }
        // The batch is kept whole at its first sequence.
        pending.insert(first, message, Part::Lines(batch));
        // A sealed submission waiting for this record may now complete.
        if pending.seal.is_some() {
            let club = key.0.clone();
            self.drain(ready, index, &club);
        }
        Vec::new()
    }

    fn handle_seal(
        &mut self,
        batch: &mut Batch<'_>,
        index: usize,
        seal: SubmissionSealed,
        offset: i64,
    ) -> Vec<Effect> {
        let key = (seal.club_id.clone(), seal.submission_id.clone());
        // Who sealed it is checked first: a forged seal is reported even when it copies a submission
        // that already applied.
        let declared = self.declared.as_ref().expect("checked by the caller");
        let Some(club) = self
            .club_index
            .get(&seal.club_id)
            .and_then(|&i| declared.clubs.get(i))
        else {
            return vec![dead(format!(
                "club {} is not part of event {}: its submission {} is set aside",
                seal.club_id, declared.event_id, seal.submission_id
            ))];
        };
        if club.key_id != seal.key_id {
            return vec![dead(format!(
                "submission {} of club {} is signed with key {:?}, but the club's key is {:?}",
                seal.submission_id, seal.club_id, seal.key_id, club.key_id
            ))];
        }
        if !simpairs_events::verify_seal(&club.hmac_key, &seal) {
            return vec![dead(format!(
                "the signature of submission {} does not verify with club {}'s key: forged or altered; nothing of it is applied",
                seal.submission_id, seal.club_id
            ))];
        }
        if self.applied.contains(&key) {
            // A redelivered seal of a submission already applied changes nothing.
            return Vec::new();
        }
        let pending = self.pending.entry(key.clone()).or_default();
        if pending.seal.is_none() {
            pending.seal = Some((seal, offset));
        }
        let queue = self.queues.entry(key.0.clone()).or_default();
        if !queue.contains(&key.1) {
            queue.push_back(key.1.clone());
        }
        self.drain(batch, index, &key.0);
        Vec::new()
    }

    /// Completes the club's sealed submissions in the order of their seals, as far as their records
    /// are in: each goes to the batch, to be checked. A club's later submission never applies before
    /// an earlier one: on a partitioned log a correction's records may arrive before the last records
    /// of the submission it corrects.
    fn drain(&mut self, batch: &mut Batch<'_>, index: usize, club: &str) {
        while let Some(submission) = self.queues.get(club).and_then(|q| q.front()).cloned() {
            let key = (club.to_string(), submission);
            let ready = self.pending.get(&key).is_some_and(|p| {
                p.seal
                    .as_ref()
                    .is_some_and(|(seal, _)| p.sequences >= seal.count)
            });
            if !ready {
                break;
            }
            if let Some(queue) = self.queues.get_mut(club) {
                queue.pop_front();
            }
            let Some(mut pending) = self.pending.remove(&key) else {
                break;
            };
            let Some((seal, offset)) = pending.seal.take() else {
                self.pending.insert(key, pending);
                break;
            };
            batch.completing.insert(submission_hash(&key.0, &key.1));
            batch.ready.push(Ready {
                trigger: index,
                seal,
                offset,
                pending,
            });
        }
    }

    /// Applies a submission that passed its checks (this cannot fail): results supersede table by
    /// table, withdrawals remove, pairs are (re)entered.
    fn apply(
        &mut self,
        key: (String, String),
        offset: i64,
        mut applied: SubmissionApplied,
        by_table: &[u32],
    ) -> Arc<SubmissionApplied> {
        let club = key.0.clone();
        self.applied.insert(key);
        self.applied_count += 1;
        applied.seal_offset = offset;
        for p in &applied.pairs {
            self.pairs.insert(
                (
                    club.clone(),
                    p.section.clone(),
                    p.pair.clone(),
                    direction_key(p.direction),
                ),
                p.players.clone(),
            );
        }
        // The state reads its results from the applied submission that goes out in the log:
        // shared, not copied.
        let applied = Arc::new(applied);
        let club_results = self.results.entry(club.clone()).or_default();
        club_results.apply_ordered(&applied, by_table);
        let in_force = club_results.len();
        let before = self.clubs.insert(club, in_force).unwrap_or(0);
        self.result_count = self.result_count + in_force - before;
        applied
    }
}

/// Checks a sealed submission whose records are all in: every record sealed, the digest, and every
/// record's own checks; on success, what applies (a pure function of the submission and the
/// declared boards, so that submissions are checked in parallel).
fn decide(
    codec: &Codec,
    seal: &SubmissionSealed,
    pending: Pending,
    boards: &BTreeSet<i32>,
) -> Decision {
    let set_aside = |reason: String, pending: Pending| Decision::SetAside { reason, pending };
    if !pending.complete_run(seal.count) {
        let reason = format!(
            "submission {} of club {} seals {} records numbered 0..{}, but records {:?} arrived",
            seal.submission_id,
            seal.club_id,
            seal.count,
            seal.count,
            pending.sequence_list()
        );
        return set_aside(reason, pending);
    }
    // A batch's bytes enter the digest once, at its first sequence.
    let digest = simpairs_events::submission_digest(
        pending.records.iter().map(|(_, bytes, _)| datum(bytes)),
    );
    if digest.as_slice() != seal.digest.as_slice() {
        let reason = format!(
            "the records of submission {} of club {} do not match the digest they were sealed with: altered in transit",
            seal.submission_id, seal.club_id
        );
        return set_aside(reason, pending);
    }
    // Decide: every record must be valid before anything applies.
    let checked = check_submission(codec, &pending, &seal.club_id, boards);
    let (results, by_table, field) = match checked {
        Ok(checked) => checked,
        Err(problems) => {
            let shown: Vec<&str> = problems.iter().take(5).map(String::as_str).collect();
            let more = problems.len().saturating_sub(5);
            let reason = format!(
                "submission {} of club {} is set aside: {}{}",
                seal.submission_id,
                seal.club_id,
                shown.join("; "),
                if more > 0 {
                    format!("; and {more} more")
                } else {
                    String::new()
                }
            );
            return set_aside(reason, pending);
        }
    };
    let mut applied = SubmissionApplied {
        event_id: seal.event_id.clone(),
        club_id: seal.club_id.clone(),
        submission_id: seal.submission_id.clone(),
        seal_offset: 0,
        results,
        withdrawn: Vec::new(),
        pairs: Vec::new(),
    };
    for (_, _, part) in pending.records {
        match part {
            Part::Result(_) | Part::Lines(_) => {}
            Part::Withdrawal(w) => applied.withdrawn.push(ResultKey {
                section: w.section,
                board: w.board,
                ns_pair: w.ns_pair,
                ew_pair: w.ew_pair,
            }),
            Part::Pair(p) => applied.pairs.push(AppliedPair {
                section: p.section,
                pair: p.pair,
                direction: p.direction,
                players: p.players,
            }),
        }
    }
    Decision::Apply {
        applied,
        by_table,
        field: Box::new(field),
    }
}

/// Reads a results-stream message for [`EventState::stage`] (decoding can run in parallel; handling
/// is in log order): the record, a batch of results as its header ([`Codec::skim`]), and a copy of
/// the message (its datum is what the seal's digest covers; a batch's lines are read from it when
/// its submission is checked).
pub fn decode(codec: &Codec, message: &[u8]) -> Result<(Skimmed, Vec<u8>), String> {
    let record = codec
        .skim(message)
        .map_err(|e| format!("cannot read the message: {e}"))?;
    Ok((record, message.to_vec()))
}

fn dead(reason: String) -> Effect {
    Effect::DeadLetter { reason }
}

/// The identity of an applied result.
pub fn result_key(r: &AppliedResult) -> ResultKey {
    ResultKey {
        section: r.section.clone(),
        board: r.board,
        ns_pair: r.ns_pair.clone(),
        ew_pair: r.ew_pair.clone(),
    }
}

/// Checks every record of a submission: each names the sealing club and a declared board, each result
/// passes the checks every traveller line passes, and no table is entered twice. On success: the
/// results the submission applies, in sequence order; their order by table (section, board, NS pair,
/// EW pair: the order a club's results in force are kept in, [`ClubResults`]); and the field they
/// make, built in that order. Otherwise every problem, in sequence order.
fn check_submission(
    codec: &Codec,
    pending: &Pending,
    club: &str,
    boards: &BTreeSet<i32>,
) -> Result<(Vec<AppliedResult>, Vec<u32>, Field), Vec<String>> {
    // (sequence, problem)
    let mut problems: Vec<(i32, String)> = Vec::new();
    let mut results: Vec<AppliedResult> =
        Vec::with_capacity(usize::try_from(pending.sequences).unwrap_or(0));
    // The sequence of each result.
    let mut sequences: Vec<i32> = Vec::with_capacity(results.capacity());
    for &(sequence, ref message, ref part) in &pending.records {
        let (record_club, board) = match part {
            Part::Result(r) => (&r.club_id, Some(r.board)),
            Part::Lines(b) => (&b.club_id, Some(b.board)),
            Part::Withdrawal(w) => (&w.club_id, Some(w.board)),
            Part::Pair(p) => (&p.club_id, None),
        };
        if record_club != club {
            problems.push((sequence, format!("record {sequence}: it names club {record_club}, but the submission is club {club}'s")));
            continue;
        }
        if let Some(b) = board
            && !boards.contains(&b)
        {
            problems.push((
                sequence,
                format!("record {sequence}: board {b} is not one of the event's boards"),
            ));
            continue;
        }
        match part {
            Part::Result(r) => {
                results.push(r.applied());
                sequences.push(sequence);
            }
            Part::Lines(_) => {
                let before = results.len();
                // Read (and checked) when the record arrived: an error here is damage since.
                if let Err(e) = codec.applied_lines(message, &mut results) {
                    results.truncate(before);
                    problems.push((sequence, format!("record {sequence}: cannot read it: {e}")));
                    continue;
                }
                let read = (results.len() - before) as i32;
                sequences.extend((0..read).map(|i| sequence.saturating_add(i)));
            }
            Part::Withdrawal(_) | Part::Pair(_) => {}
        }
    }
    // The rows go into the field in table order, so that the field is the one built from the
    // club's results in force when this submission is all of them.
    let by_table = table_order(&results);
    let mut builder =
        simpairs_formats::row::FieldBuilder::new(simpairs_scoring::LegalScores::shared());
    builder.reserve(results.len());
    // The sequence of each row of the field.
    let mut rows = Vec::with_capacity(results.len());
    for &at in &by_table {
        let sequence = sequences[at as usize];
        let row = crate::field::typed_row(club, &results[at as usize]);
        match builder.push_typed(&row, sequence as u64) {
            Ok(simpairs_formats::row::Added::Result(_)) => rows.push(sequence),
            Ok(simpairs_formats::row::Added::NotPlayed) => {}
            Err(p) => problems.push((
                sequence,
                format!("record {sequence}: field {}: {}", p.field, p.message),
            )),
        }
    }
    problems.sort_by_key(|(sequence, _)| *sequence);
    let mut problems: Vec<String> = problems.into_iter().map(|(_, p)| p).collect();
    for (first, again) in builder.field.duplicate_rows() {
        let (a, b) = (rows[first], rows[again]);
        problems.push(format!(
            "records {} and {} are the same table entered twice",
            a.min(b),
            a.max(b)
        ));
    }
    if problems.is_empty() {
        Ok((results, by_table, builder.field))
    } else {
        Err(problems)
    }
}

/// The order of `results` by table (section, board, NS pair, EW pair, each text compared as
/// [`str`] does: [`crate::results::table_of`]), as indices. Tables given twice come out next to
/// each other in either order (such a submission is set aside).
fn table_order(results: &[AppliedResult]) -> Vec<u32> {
    /// A text of at most 8 bytes, none of them 0, as a number that orders as the text does
    /// (big-endian, padded with zeros: a shorter text sorts first, as a prefix does).
    fn packed(text: &str) -> Option<u64> {
        let bytes = text.as_bytes();
        if bytes.len() > 8 || bytes.contains(&0) {
            return None;
        }
        let mut padded = [0u8; 8];
        padded[..bytes.len()].copy_from_slice(bytes);
        Some(u64::from_be_bytes(padded))
    }
    let mut by_table: Vec<u32> = (0..results.len() as u32).collect();
    // Clubs' sections and pair numbers are short: their tables sort as numbers, without a string
    // comparison each time (a club's batches come board by board, but "10" sorts before "2").
    let keys: Option<Vec<(u64, i32, u64, u64)>> = results
        .iter()
        .map(|r| {
            Some((
                packed(&r.section)?,
                r.board,
                packed(&r.ns_pair)?,
                packed(&r.ew_pair)?,
            ))
        })
        .collect();
    match keys {
        Some(keys) => by_table.sort_unstable_by_key(|&i| keys[i as usize]),
        None => by_table.sort_unstable_by(|&a, &b| {
            crate::results::table_of(&results[a as usize])
                .cmp(&crate::results::table_of(&results[b as usize]))
        }),
    }
    by_table
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use simpairs_events::types::{AppliedResult, Movement};

    use super::table_order;

    fn result(section: String, board: i32, ns_pair: String, ew_pair: String) -> AppliedResult {
        AppliedResult {
            section: section.into(),
            board,
            ns_pair: ns_pair.into(),
            ew_pair: ew_pair.into(),
            movement: Movement::Mitchell,
            contract: None,
            declarer: None,
            tricks: None,
            ns_score: None,
            ew_score: None,
            adjusted: None,
            arrow_switch: false,
            group: None,
        }
    }

    /// Short texts (numbers as strings, a NUL now and then) and, sometimes, long ones that share
    /// their first 8 bytes.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => "[0-9]{0,3}",
            1 => "[AB\\x00]{0,3}",
            1 => "Section[AB]{1,3}",
        ]
    }

    proptest! {
        #[test]
        fn tables_sort_as_their_texts_do(
            tables in proptest::collection::vec((text(), 0..4i32, text(), text()), 0..40),
        ) {
            let results: Vec<AppliedResult> = tables
                .into_iter()
                .map(|(s, b, ns, ew)| result(s, b, ns, ew))
                .collect();
            let order = table_order(&results);
            let mut sorted: Vec<usize> = order.iter().map(|&i| i as usize).collect();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, (0..results.len()).collect::<Vec<_>>(), "a permutation");
            let tables: Vec<_> = order
                .iter()
                .map(|&i| crate::results::table_of(&results[i as usize]))
                .collect();
            prop_assert!(tables.windows(2).all(|w| w[0] <= w[1]), "{:?}", tables);
        }
    }
}
