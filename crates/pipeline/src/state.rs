//! The state of one event as the log tells it: which submissions were applied and the results and pairs
//! they left. Pure and deterministic: the aggregator and `replay` feed it the same records and get the
//! same state. Deciding (checks that may reject) is separate from applying (which cannot fail).
//!
//! A club's submission is a run of `ResultRecorded`, `ResultWithdrawn` and `PairEntered` records with
//! consecutive sequence numbers, then a `SubmissionSealed` carrying their count, the digest of their
//! bytes (BLAKE3; SHA-256 from programs before it) and an Ed25519 signature with the club's key. Nothing of a submission applies until
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
    AppliedResult, EventDeclared, SubmissionApplied, SubmissionSealed, Text,
};
use simpairs_events::{Codec, Event, Packer, ResultsHeader, Skimmed};
use simpairs_scoring::Field;

use crate::announce::{Announced, Announcement};
use crate::judge::{Accepted, Context, LineWarning, Rejection};
use crate::known_deals::{KnownDeals, Place};
use crate::limits::Limits;
use crate::pending::{Part, Pending, datum};
use crate::results::ClubResults;
use crate::roster::{Roster, SignerProblem};

/// A submission's club and id. Held inline (ids are short): a key is made for each of a national
/// event's hundreds of thousands of records, and as two `String`s it was two allocations each.
pub(crate) type SubmissionKey = (Text, Text);

/// A hash map keyed by what clubs send (submission ids, before their seal is verified): a hash
/// with random keys, as the standard library's is, so that no club can choose keys that collide,
/// but a quicker one (aHash): it is looked up several times for every record.
pub(crate) type KeyedMap<K, V> = HashMap<K, V, ahash::RandomState>;

mod resume;
mod staging;

pub use resume::{ResumeError, Saved};
pub(crate) use staging::{read_in_batches, stage_overlapped};

/// What handling a record led to.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// A sealed submission passed every check and was applied. The state shares its results.
    Applied(Arc<SubmissionApplied>),
    /// The record (or the submission it seals) was set aside, with the reason in words.
    DeadLetter { reason: String },
}

/// A submission that cannot apply yet: records whose seal has not come (an upload under way, or
/// cut short), or a seal whose records have not all come.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Unsealed {
    pub club: String,
    pub submission: String,
    /// Records received (each pair entered and each result counts one).
    pub records: i64,
    /// The seal, when it came before all its records.
    pub seal: Option<WaitingSeal>,
}

/// A seal waiting for the records it covers.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct WaitingSeal {
    /// Its offset on the results stream.
    pub offset: i64,
    /// Records it covers.
    pub covers: i64,
}

/// The state of one event.
#[derive(Debug, Default)]
pub struct EventState {
    /// The event as declared and amended: clubs, keys, boards, limits, hand records.
    roster: Option<Arc<Roster>>,
    pending: KeyedMap<SubmissionKey, Pending>,
    /// Each club's sealed submissions waiting to apply, in the order of their seals.
    queues: KeyedMap<String, std::collections::VecDeque<String>>,
    /// The submissions applied, by (club, submission): looked up for every record (a fast hash:
    /// only verified submissions are ever put in).
    applied: rustc_hash::FxHashSet<SubmissionKey>,
    /// The results in force, by club and table.
    results: BTreeMap<String, ClubResults>,
    result_count: usize,
    /// The players of each pair.
    pairs: BTreeMap<crate::PairKey, Vec<simpairs_events::types::Player>>,
    /// Clubs with at least one applied submission, with their count of results in force.
    clubs: BTreeMap<String, usize>,
    /// Submissions applied so far (the generation counter of derived output).
    applied_count: i64,
    /// The deal of each board as the event knows it at each seal's place: the organiser's hand
    /// records, else the first applied club's.
    deals: Arc<crate::known_deals::KnownDeals>,
    /// The partition the records being staged come from (a key's revocation is an offset of a
    /// partition).
    partition: u32,
    /// The amendments' lines met in the results stream: (amendment, partition) and the line's
    /// offset, drawn into the roster whenever it is read again.
    lines: BTreeMap<(i64, u32), u64>,
    /// Every sealed submission judged, and what became of it (since the state was taken up
    /// again, for one that was: [`EventState::resume`]).
    judged: KeyedMap<SubmissionKey, Judged>,
    /// Submissions whose signed content was set aside for good before the state was taken up
    /// again.
    set_aside_before: rustc_hash::FxHashSet<SubmissionKey>,
}

/// A sealed submission whose records are all in, waiting to be checked by [`EventState::finish`].
#[derive(Debug)]
struct Ready {
    /// The batch index of the record that completed it (its effect is that record's).
    trigger: usize,
    seal: SubmissionSealed,
    /// The seal's place: its partition and offset.
    partition: u32,
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
    completing: std::collections::HashSet<u64, ahash::RandomState>,
    effects: Vec<(usize, Effect)>,
    /// Whether what applies is announced ([`Batch::announcing`]).
    announcing: bool,
    /// Whether the state keeps what applies compressed ([`Batch::announcing_plain`] keeps it as
    /// encoded).
    compressing: bool,
    /// What applied, when announcing, with the batch index of the record that completed it.
    announced: Vec<(usize, Announcement)>,
    fields: HashMap<String, Field>,
    /// Seals whose signer was checked as the batch was read, by batch index (ours, not a
    /// club's: the unkeyed FxHash).
    pub prechecked: rustc_hash::FxHashMap<usize, Result<(), Rejection>>,
}

/// Records a batch should hold at most when a whole log is read (a rebuild, a replay): the
/// submissions it completes wait in memory until it is finished.
pub(crate) const REBUILD_BATCH: usize = 65_536;

impl<'c> Batch<'c> {
    /// An empty batch; `codec` reads the lines of the results it holds.
    pub fn new(codec: &'c Codec) -> Batch<'c> {
        Batch {
            codec,
            ready: Vec::new(),
            completing: Default::default(),
            effects: Vec::new(),
            announcing: false,
            compressing: false,
            announced: Vec::new(),
            fields: HashMap::new(),
            prechecked: Default::default(),
        }
    }

    /// An empty batch for the aggregator: what applies is encoded as the `SubmissionApplied`
    /// message to write and kept packed by the state ([`crate::announce`]) as it is judged, and
    /// is listed in [`Finished::announced`], not as an [`Effect::Applied`]. The aggregator holds
    /// a national event's results for as long as it runs, and a batch of them decoded at once
    /// was as large as the packed results of the whole field.
    pub fn announcing(codec: &'c Codec) -> Batch<'c> {
        Batch {
            announcing: true,
            compressing: true,
            ..Batch::new(codec)
        }
    }

    /// [`Batch::announcing`], what applies kept in its encoding uncompressed: for a log read once
    /// (the replay index's build), where compressing costs more time than the memory it saves.
    pub fn announcing_plain(codec: &'c Codec) -> Batch<'c> {
        Batch {
            compressing: false,
            ..Batch::announcing(codec)
        }
    }

    /// The batch, to be finished, leaving an empty one of the same kind in its place (a
    /// rebuild or a replay reads a whole log in batches).
    pub fn take(&mut self) -> Batch<'c> {
        let empty = Batch {
            announcing: self.announcing,
            compressing: self.compressing,
            ..Batch::new(self.codec)
        };
        std::mem::replace(self, empty)
    }
}

/// What a batch led to.
#[derive(Debug, Default)]
pub struct Finished {
    /// Every effect, with the batch index of the record it came from, in record order.
    pub effects: Vec<(usize, Effect)>,
    /// In a batch that announces ([`Batch::announcing`]), what applied, in the order of the
    /// seals, each with the batch index of the record that completed it (the effects then hold
    /// only the dead letters).
    pub announced: Vec<(usize, Announcement)>,
    /// The field of each club whose results in force are exactly one submission applied in the
    /// batch (the usual first upload), already built by its checks: the same field
    /// [`crate::field::build_field`] builds from [`EventState::club_results`].
    pub fields: HashMap<String, Field>,
}

/// A ready submission after its checks: its verdict, and its announcement when the batch
/// announces.
type Decided = (Ready, Result<Accepted, Rejection>, Option<Announced>);

/// What a batch's submissions are judged by, besides the deals.
struct Rules<'a> {
    codec: &'a Codec,
    boards: &'a BTreeSet<i32>,
    limits: &'a Limits,
}

impl Rules<'_> {
    /// Judges one ready submission against `deals`, and packs it if it applies and `packer` is
    /// given.
    fn check(&self, deals: &KnownDeals, packer: &mut Option<Packer>, mut r: Ready) -> Decided {
        let context = Context {
            boards: self.boards,
            limits: self.limits,
            deals,
            place: Place::of(r.partition, r.offset),
        };
        let mut verdict = crate::judge::judge(self.codec, &r.seal, &r.pending, context);
        // The records are not needed once judged: freed here, in parallel, rather than one
        // submission after the other as the verdicts are applied. A submission set aside for its
        // deals keeps them, to be judged again with the deals known at its place.
        if !verdict.as_ref().is_err_and(Rejection::for_its_deals) {
            drop(std::mem::take(&mut r.pending));
        }
        let announced = match (&mut verdict, packer) {
            (Ok(accepted), Some(packer)) => Some(crate::announce::announce(
                self.codec,
                packer,
                &mut accepted.applied,
                r.offset,
            )),
            _ => None,
        };
        (r, verdict, announced)
    }
}

/// A submission applied: shared with its effect, or announced.
enum Applied {
    Shared(Arc<SubmissionApplied>),
    Announced(Announcement),
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
        Event::DealRecorded(r) => Some((&r.club_id, &r.submission_id)),
        Event::SubmissionSealed(r) => Some((&r.club_id, &r.submission_id)),
        _ => None,
    }
}

/// What the judge decided about a sealed submission, with what its seal said.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Judged {
    /// The seal's offset on the results stream.
    pub offset: i64,
    pub sealed_at_ms: i64,
    /// What the club named as the submission's source (the file published).
    pub source: Option<String>,
    /// Sequences the seal covers.
    pub count: i64,
    /// What the club's reading of its file warned of, as its seal carries it.
    pub warnings: Vec<simpairs_events::types::SealWarning>,
    /// The key that signed (the club's, or the organiser's for it).
    pub key_id: String,
    pub verdict: Verdict,
}

/// The judge's decision.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Applied, with the lines a director should look at, and how it was read in the terms of
    /// the club's results in force.
    Applied {
        warnings: Vec<LineWarning>,
        notes: Vec<String>,
    },
    /// Set aside, and why.
    SetAside(Rejection),
}

impl EventState {
    pub fn new() -> EventState {
        EventState::default()
    }

    /// The declaration, once read.
    pub fn declared(&self) -> Option<&EventDeclared> {
        self.roster.as_ref().map(|r| &r.declared)
    }

    /// The event as declared and amended, once read.
    pub fn roster(&self) -> Option<&Roster> {
        self.roster.as_deref()
    }

    /// The deal of each board as the event knows it.
    pub fn deals(&self) -> &BTreeMap<i32, String> {
        self.deals.latest()
    }

    /// What the event knows of its deals: the hand records declared, and the clubs' deals.
    pub fn known_deals(&self) -> &crate::known_deals::KnownDeals {
        &self.deals
    }

    /// The results in force, in identity order (club, then table): (club, result).
    pub fn results(&self) -> impl Iterator<Item = (&str, &AppliedResult)> + '_ {
        self.results
            .iter()
            .flat_map(|(club, results)| results.iter().map(move |r| (club.as_str(), r)))
    }

    /// The national field: the field [`crate::field::build_field`] builds from
    /// [`EventState::results`], runs of clubs built in parallel.
    pub fn field(&self) -> simpairs_scoring::Field {
        simpairs_scoring::Field::concat(crate::field::clubs_parts(&self.results))
    }

    /// How many results are in force.
    pub fn result_count(&self) -> usize {
        self.result_count
    }

    /// The results in force of one club.
    pub fn club_results<'a>(&'a self, club: &str) -> impl Iterator<Item = &'a AppliedResult> + 'a {
        self.results.get(club).into_iter().flat_map(|r| r.iter())
    }

    /// One club's results in force.
    pub fn club(&self, club: &str) -> Option<&ClubResults> {
        self.results.get(club)
    }

    pub fn pairs(&self) -> &BTreeMap<crate::PairKey, Vec<simpairs_events::types::Player>> {
        &self.pairs
    }

    /// Each pair's players, taken out (the state has none left): for a reader done with the state.
    pub(crate) fn take_pairs(
        &mut self,
    ) -> BTreeMap<crate::PairKey, Vec<simpairs_events::types::Player>> {
        std::mem::take(&mut self.pairs)
    }

    /// Clubs whose results are in, with their number of results in force.
    pub fn clubs(&self) -> &BTreeMap<String, usize> {
        &self.clubs
    }

    /// Submissions with records but no valid seal yet, or a seal waiting for records it covers.
    /// They never apply until complete; the director's listing names them.
    pub fn unsealed(&self) -> Vec<Unsealed> {
        self.pending
            .iter()
            .map(|((club, submission), p)| Unsealed {
                club: club.to_string(),
                submission: submission.to_string(),
                records: p.sequences,
                seal: p.seal.as_ref().map(|(seal, offset)| WaitingSeal {
                    offset: *offset,
                    covers: seal.count,
                }),
            })
            .collect()
    }

    /// Submissions applied so far.
    pub fn applied_count(&self) -> i64 {
        self.applied_count
    }

    /// Handles a record of the declarations stream.
    pub fn handle_declaration(&mut self, declared: EventDeclared) -> Vec<Effect> {
        match &self.roster {
            None => match Roster::new(declared) {
                Ok(roster) => {
                    self.set_roster(roster);
                    Vec::new()
                }
                Err(e) => vec![dead(e.to_string())],
            },
            Some(r) if r.declared == declared => Vec::new(),
            Some(r) if r.declared.event_id == declared.event_id => vec![dead(format!(
                "event {} is already declared; a declaration cannot be changed once clubs publish",
                r.declared.event_id
            ))],
            Some(_) => Vec::new(),
        }
    }

    /// Takes the roster as the declarations stream tells it now (read by [`Roster::load`]).
    pub(crate) fn set_roster(&mut self, mut roster: Roster) {
        for (&(amendment, partition), &offset) in &self.lines {
            roster.draw(amendment, partition, offset);
        }
        Arc::make_mut(&mut self.deals).declare(&roster.hands);
        self.roster = Some(Arc::new(roster));
    }

    /// Meets an amendment's line in the results stream at `offset` of the partition being
    /// staged: its hand records and revocations hold from here. A line whose amendment draws
    /// none, or that does not carry the amendment's signature, is set aside; a line met again
    /// changes nothing.
    fn draw_line(&mut self, line: &simpairs_events::types::LineDrawn, offset: i64) -> Vec<Effect> {
        let Some(roster) = &mut self.roster else {
            return Vec::new();
        };
        let amendment = line.amendment;
        match roster.lines.get(&amendment) {
            None => {
                return vec![dead(format!(
                    "a line of amendment {amendment}, which draws no line in the results stream (or is not made): set aside"
                ))];
            }
            Some(signature) if *signature != line.signature => {
                return vec![dead(format!(
                    "a line of amendment {amendment} without the amendment's signature: not the organiser's, set aside"
                ))];
            }
            Some(_) => {}
        }
        let place = (amendment, self.partition);
        if self.lines.contains_key(&place) {
            return Vec::new();
        }
        let offset = u64::try_from(offset).unwrap_or(0);
        self.lines.insert(place, offset);
        let roster = Arc::make_mut(roster);
        roster.draw(amendment, self.partition, offset);
        Arc::make_mut(&mut self.deals).declare(&roster.hands);
        Vec::new()
    }

    /// Handles one message of the results stream (`offset` is its offset, used as the seal's position).
    pub fn handle(&mut self, codec: &Codec, message: &[u8], offset: i64) -> Vec<Effect> {
        self.handle_decoded(codec, decode(codec, message), offset)
    }

    /// Handles a message already decoded with [`decode`] (decoding can run in parallel; handling is in
    /// log order): a batch of one record.
    pub(crate) fn handle_decoded(
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
        self.stage_at(batch, decoded, 0, offset, index);
    }

    /// [`EventState::stage`] for a record of `partition` (the embedded log has one).
    pub(crate) fn stage_at(
        &mut self,
        batch: &mut Batch<'_>,
        decoded: Result<(Skimmed, Vec<u8>), String>,
        partition: u32,
        offset: i64,
        index: usize,
    ) {
        self.partition = partition;
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
            announced: batch.announced,
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
        let Some(roster) = &self.roster else {
            return;
        };
        let (boards, limits, deals) = (roster.boards.clone(), roster.limits, self.deals.clone());
        let (codec, announcing, compressing) = (batch.codec, batch.announcing, batch.compressing);
        let packer = || {
            announcing.then(|| match compressing {
                true => Packer::default(),
                false => Packer::plain(),
            })
        };
        let rules = Rules {
            codec,
            boards: &boards,
            limits: &limits,
        };
        // One submission (a live club's upload) is checked on this thread.
        let checking = std::time::Instant::now();
        let decided: Vec<Decided> = if ready.len() == 1 {
            let mut packer = packer();
            (ready.into_iter())
                .map(|r| rules.check(&deals, &mut packer, r))
                .collect()
        } else {
            (ready.into_par_iter())
                .map_init(packer, |packer, r| rules.check(&deals, packer, r))
                .collect()
        };
        // Unshared, so that learning a deal below does not copy what the event knows.
        drop(deals);
        tracing::trace!(elapsed = ?checking.elapsed(), submissions = decided.len(), "submissions checked");
        for decided in decided {
            let (ready, verdict, announced) = self.with_deals_now(&rules, packer, decided);
            // So is the club's section in force.
            let (verdict, announced) = match verdict {
                Ok(mut a) => {
                    let in_force = self.results.get(&ready.seal.club_id);
                    let applied = (&mut a.applied, &ready.seal);
                    let (announced, notes) =
                        crate::sections::name_accepted(in_force, codec, applied, announced, packer);
                    a.notes = notes;
                    (Ok(a), announced)
                }
                rejected => (rejected, announced),
            };
            let effect = match verdict {
                Err(rejection) => self.set_aside(&ready.seal, ready.offset, rejection),
                Ok(accepted) => {
                    match self.accept(batch, &ready.seal, ready.offset, accepted, announced) {
                        Applied::Shared(applied) => Effect::Applied(applied),
                        Applied::Announced(announcement) => {
                            batch.announced.push((ready.trigger, announcement));
                            continue;
                        }
                    }
                }
            };
            batch.effects.push((ready.trigger, effect));
        }
        tracing::trace!(elapsed = ?checking.elapsed(), "submissions applied");
    }

    /// A verdict given with the deals known when the batch began, given with those known at the
    /// seal's place, as judging one submission at a time would: deals learnt from a submission
    /// applied earlier in the batch are checked, and a submission set aside for its deals is
    /// judged again (a club withdrawn earlier in the batch may have held them).
    fn with_deals_now(
        &self,
        rules: &Rules<'_>,
        packer: impl Fn() -> Option<Packer>,
        (ready, verdict, announced): Decided,
    ) -> Decided {
        let place = Place::of(ready.partition, ready.offset);
        match verdict {
            Err(rejection) if rejection.for_its_deals() => {
                rules.check(&self.deals, &mut packer(), ready)
            }
            verdict => {
                let verdict = verdict.and_then(|a| {
                    crate::judge::check_deals_again(&ready.seal, a, &self.deals, place)
                });
                (ready, verdict, announced)
            }
        }
    }

    /// Applies a submission the judge accepted and notes it.
    fn accept(
        &mut self,
        batch: &mut Batch<'_>,
        seal: &SubmissionSealed,
        offset: i64,
        accepted: Accepted,
        announced: Option<Announced>,
    ) -> Applied {
        let club = seal.club_id.clone();
        let key = sealed_key(seal);
        let first = !self.results.contains_key(&club) && accepted.applied.withdrawn.is_empty();
        let verdict = Verdict::Applied {
            warnings: accepted.warnings,
            notes: accepted.notes,
        };
        self.note(seal, offset, verdict);
        // The first club to apply a board's deal teaches it: the deal a seal is held to where
        // no hand record holds (none declared, or declared after the seal).
        if !accepted.deals.is_empty() {
            Arc::make_mut(&mut self.deals).learn(accepted.deals, &club);
        }
        let withdrew = !accepted.applied.withdrawn.is_empty();
        let applied = self.apply(key, offset, accepted.applied, announced);
        if withdrew && self.deals.gave(&club) {
            self.forget_withdrawn_deals(&club);
        }
        // The field built by the checks is the club's field only when the club's results in
        // force are exactly this submission's.
        if first {
            batch.fields.insert(club, accepted.field);
        } else {
            batch.fields.remove(&club);
        }
        applied
    }

    /// A club whose results of a board are all withdrawn no longer vouches for the board's deal.
    fn forget_withdrawn_deals(&mut self, club: &str) {
        let mut kept = BTreeSet::new();
        if let Some(results) = self.results.get(club) {
            results.visit(|r| {
                kept.insert(r.board);
            });
        }
        Arc::make_mut(&mut self.deals).forget(club, &kept);
    }

    /// Sets a sealed submission aside. Its records are dropped: a copy of the same signed
    /// content is refused again without being gathered, and a submission whose records were
    /// altered or missing on the way can be published again and apply.
    fn set_aside(&mut self, seal: &SubmissionSealed, offset: i64, rejection: Rejection) -> Effect {
        let reason = rejection.to_string();
        let key = sealed_key(seal);
        self.pending.remove(&key);
        if rejection.may_arrive_again() {
            self.judged.remove(&key);
        } else {
            self.note(seal, offset, Verdict::SetAside(rejection));
        }
        dead(reason)
    }

    /// Notes what the judge decided about a seal.
    fn note(&mut self, seal: &SubmissionSealed, offset: i64, verdict: Verdict) {
        let key = sealed_key(seal);
        self.judged.insert(
            key,
            Judged {
                offset,
                sealed_at_ms: seal.sealed_at_ms,
                source: seal.source.clone(),
                count: seal.count,
                warnings: seal.warnings.clone(),
                key_id: seal.key_id.clone(),
                verdict,
            },
        );
    }

    /// Whether a submission was judged for good (applied, or its signed content refused): its
    /// records and seal, arriving again, change nothing.
    fn settled(&self, key: &SubmissionKey) -> bool {
        self.applied.contains(key)
            || self
                .judged
                .get(key)
                .is_some_and(|j| matches!(j.verdict, Verdict::SetAside(_)))
            || self.set_aside_before.contains(key)
    }

    /// Every sealed submission judged so far: (club, submission) and what became of it.
    pub(crate) fn judged(&self) -> impl Iterator<Item = (&SubmissionKey, &Judged)> + '_ {
        self.judged.iter()
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
        let Some(declared) = self.declared() else {
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
        let part = match event {
            Event::SubmissionSealed(seal) => return self.handle_seal(batch, index, seal, offset),
            Event::LineDrawn(line) => return self.draw_line(&line, offset),
            other => match Part::of_event(other) {
                Ok(part) => part,
                Err(event_type) => {
                    return vec![dead(format!(
                        "{event_type} does not belong on the results stream"
                    ))];
                }
            },
        };
        let (club, submission, sequence) = part.names();
        let key: SubmissionKey = (club.into(), submission.into());
        if self.settled(&key) {
            // A redelivered record of a submission already applied changes nothing.
            return Vec::new();
        }
        if let Some(instead) = self.not_joining(&key, sequence, 1, &message) {
            return instead;
        }
        self.join(batch, index, key, sequence, message, part);
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
        let Some(declared) = self.declared() else {
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
        let key: SubmissionKey = (batch.club_id.clone(), batch.submission_id.clone());
        if self.settled(&key) {
            return Vec::new();
        }
        let (club, submission) = (&key.0, &key.1);
        if batch.lines == 0 {
            return vec![dead(format!(
                "club {club} sent an empty batch of results in submission {submission}"
            ))];
        }
        let first = batch.first_sequence;
        let len = i32::try_from(batch.lines).unwrap_or(i32::MAX);
        if let Some(instead) = self.not_joining(&key, first, len, &message) {
            return instead;
        }
        // The batch is kept whole at its first sequence.
        self.join(ready, index, key, first, message, Part::Lines(batch));
        Vec::new()
    }

    /// What becomes of a record standing for `len` sequences from `first` (a batch of results, or
    /// one record) instead of joining its submission's records so far, if it does not join them:
    /// nothing for an exact copy of a record already held (a redelivery); set aside if it repeats a
    /// sequence with other content, overlaps the sequences of another batch, or takes the
    /// submission past the event's limits.
    fn not_joining(
        &self,
        key: &SubmissionKey,
        first: i32,
        len: i32,
        message: &[u8],
    ) -> Option<Vec<Effect>> {
        let none_yet = Pending::default();
        let pending = self.pending.get(key).unwrap_or(&none_yet);
        let limits = self.roster.as_ref().map(|r| r.limits).unwrap_or_default();
        let (club, submission) = (&key.0, &key.1);
        match pending.covering(first) {
            Some((at, bytes)) if at == first && bytes == datum(message) => return Some(Vec::new()),
            Some(_) => {
                return Some(vec![dead(format!(
                    "club {club} sent two different records with sequence {first} in submission {submission}; the second is set aside"
                ))]);
            }
            None => {}
        }
        let sequences = first..first.saturating_add(len);
        if pending.overlaps(sequences.clone()) {
            let clash = sequences
                .into_iter()
                .find(|&s| pending.covering(s).is_some())
                .unwrap_or(first);
            return Some(vec![dead(format!(
                "club {club}'s batch in submission {submission} repeats sequence {clash}; it is set aside"
            ))]);
        }
        limits
            .check_count(pending.sequences + i64::from(len))
            .err()
            .map(|exceeded| vec![over_limit(key, exceeded)])
    }

    /// Adds a record to its submission's, at its first sequence; a sealed submission waiting for it
    /// may now complete.
    fn join(
        &mut self,
        batch: &mut Batch<'_>,
        index: usize,
        key: SubmissionKey,
        first: i32,
        message: Vec<u8>,
        part: Part,
    ) {
        let pending = self.pending.entry(key).or_default();
        pending.insert(first, message, part);
        if let Some((seal, _)) = &pending.seal {
            let club = seal.club_id.clone();
            self.drain(batch, index, &club);
        }
    }

    fn handle_seal(
        &mut self,
        batch: &mut Batch<'_>,
        index: usize,
        seal: SubmissionSealed,
        offset: i64,
    ) -> Vec<Effect> {
        let key = sealed_key(&seal);
        // Who sealed it is checked first: a forged seal is reported even when it copies a submission
        // that already applied.
        let Some(roster) = &self.roster else {
            return vec![dead("a seal arrived before the event was declared".into())];
        };
        // Checked beforehand, in parallel with the batch's other seals, when the reader could.
        let checked = match batch.prechecked.remove(&index) {
            Some(checked) => revoked_since(roster, &seal, self.partition, offset, checked),
            None => check_signer(roster, &seal, self.partition, offset),
        };
        if let Err(rejection) = checked {
            return vec![dead(rejection.to_string())];
        }
        let limits = roster.limits;
        if self.settled(&key) {
            // A redelivered seal of a submission already judged changes nothing.
            return Vec::new();
        }
        if let Err(exceeded) = limits.check_count(seal.count) {
            // Not worth gathering: its records are dropped as they come.
            let rejection = Rejection::Invalid {
                club: seal.club_id.clone(),
                submission: seal.submission_id.clone(),
                problems: vec![crate::judge::Problem::OverLimit(exceeded)],
            };
            return vec![self.set_aside(&seal, offset, rejection)];
        }
        let pending = self.pending.entry(key.clone()).or_default();
        if pending.seal.is_none() {
            pending.seal = Some((seal, offset));
        }
        let queue = self.queues.entry(key.0.to_string()).or_default();
        if !queue.iter().any(|s| *s == key.1) {
            queue.push_back(key.1.to_string());
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
            let key: SubmissionKey = (club.into(), submission.into());
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
            // A club's records and seals share its partition (their key is event/club).
            batch.ready.push(Ready {
                trigger: index,
                seal,
                partition: self.partition,
                offset,
                pending,
            });
        }
    }

    /// Applies a submission that passed its checks (this cannot fail): results supersede table by
    /// table, withdrawals remove, pairs are (re)entered. An announced submission's results are
    /// kept packed.
    fn apply(
        &mut self,
        key: SubmissionKey,
        offset: i64,
        mut applied: SubmissionApplied,
        announced: Option<Announced>,
    ) -> Applied {
        let club = key.0.to_string();
        applied.seal_offset = offset;
        self.enter(key, &applied.pairs);
        let club_results = self.results.entry(club.clone()).or_default();
        let applied = match announced {
            Some(announced) => {
                club_results.apply_packed(announced.packed, announced.results, &applied.withdrawn);
                Applied::Announced(announced.announcement)
            }
            // The state reads its results from the applied submission that goes out in the log:
            // shared, not copied.
            None => {
                let applied = Arc::new(applied);
                club_results.apply_in_order(&applied);
                Applied::Shared(applied)
            }
        };
        self.count(club);
        applied
    }

    /// Notes a submission as applied and (re)enters its pairs.
    fn enter(&mut self, key: SubmissionKey, pairs: &[simpairs_events::types::AppliedPair]) {
        let club = &key.0;
        for p in pairs {
            self.pairs.insert(
                crate::PairKey::new(
                    club.clone(),
                    p.section.clone(),
                    p.pair.clone(),
                    crate::wire::direction_key(p.direction),
                ),
                p.players.clone(),
            );
        }
        self.applied.insert(key);
        self.applied_count += 1;
    }

    /// Counts a club's results in force again, once a submission of it applied.
    fn count(&mut self, club: String) {
        let in_force = self.results.get(&club).map_or(0, |r| r.len());
        let before = self.clubs.insert(club, in_force).unwrap_or(0);
        self.result_count = self.result_count + in_force - before;
    }
}

/// Reads a results-stream message for [`EventState::stage`] (decoding can run in parallel; handling
/// is in log order): the record, a batch of results as its header ([`Codec::skim`]), and a copy of
/// the message (its datum is what the seal's digest covers; a batch's lines are read from it when
/// its submission is checked).
pub fn decode(codec: &Codec, message: &[u8]) -> Result<(Skimmed, Vec<u8>), String> {
    Ok((skim(codec, message)?, message.to_vec()))
}

/// [`decode`] without the copy of the message.
fn skim(codec: &Codec, message: &[u8]) -> Result<Skimmed, String> {
    codec
        .skim(message)
        .map_err(|e| format!("cannot read the message: {e}"))
}

/// Who sealed: a declared club, with a key declared for it and not revoked at `offset` of
/// `partition`, and a signature that verifies with it. Pure, so that the seals of a batch are
/// checked in parallel as the batch is read ([`precheck`]).
pub(crate) fn check_signer(
    roster: &Roster,
    seal: &SubmissionSealed,
    partition: u32,
    offset: i64,
) -> Result<(), Rejection> {
    let (club, submission) = (seal.club_id.clone(), seal.submission_id.clone());
    let offset = u64::try_from(offset).unwrap_or(0);
    let key = match roster.signer(seal, partition, offset) {
        Ok(key) => key,
        Err(SignerProblem::UnknownClub) => {
            return Err(Rejection::UnknownClub {
                club,
                event: roster.event_id().to_string(),
                submission,
            });
        }
        Err(SignerProblem::UnknownKey { declared }) => {
            return Err(Rejection::WrongKey {
                club,
                submission,
                used: seal.key_id.clone(),
                declared: declared.join(", "),
            });
        }
        Err(SignerProblem::Revoked { from_offset }) => {
            return Err(Rejection::Revoked {
                club,
                submission,
                key: seal.key_id.clone(),
                from_offset,
            });
        }
        Err(SignerProblem::Closed { from_offset }) => {
            return Err(closed(roster, seal, from_offset));
        }
        // Declared bytes that are no key: no signature can verify with them.
        Err(SignerProblem::NotAKey) => return Err(Rejection::Forged { club, submission }),
    };
    if !simpairs_events::verify_seal(&key, seal) {
        return Err(Rejection::Forged { club, submission });
    }
    Ok(())
}

/// A signer check made against the roster as the records were read ([`check_signer`]), made
/// against `roster` now: a line of an amendment met while they were staged may have closed the
/// event or revoked the key since. Lines only ever refuse (a line's place is drawn once), and a
/// closing, then a revocation, is checked after the club and its key are found and before the
/// signature.
fn revoked_since(
    roster: &Roster,
    seal: &SubmissionSealed,
    partition: u32,
    offset: i64,
    checked: Result<(), Rejection>,
) -> Result<(), Rejection> {
    if matches!(
        checked,
        Err(Rejection::UnknownClub { .. } | Rejection::WrongKey { .. })
    ) {
        return checked;
    }
    let place = u64::try_from(offset).unwrap_or(0);
    if let Some(from_offset) = roster.closed_at(partition, place) {
        return Err(closed(roster, seal, from_offset));
    }
    match roster.revoked_at(seal, partition, place) {
        Some(from_offset) => Err(Rejection::Revoked {
            club: seal.club_id.clone(),
            submission: seal.submission_id.clone(),
            key: seal.key_id.clone(),
            from_offset,
        }),
        None => checked,
    }
}

/// A seal that came after the organiser closed the event, from `from_offset` of its partition.
fn closed(roster: &Roster, seal: &SubmissionSealed, from_offset: u64) -> Rejection {
    Rejection::Closed {
        club: seal.club_id.clone(),
        submission: seal.submission_id.clone(),
        amendment: roster.closed.as_ref().map_or(0, |c| c.amendment),
        from_offset,
    }
}

/// The key of the submission a seal closes.
fn sealed_key(seal: &SubmissionSealed) -> SubmissionKey {
    (
        seal.club_id.as_str().into(),
        seal.submission_id.as_str().into(),
    )
}

fn dead(reason: String) -> Effect {
    Effect::DeadLetter { reason }
}

/// A record that would take its submission past the event's limits, set aside as it comes.
fn over_limit(key: &SubmissionKey, exceeded: crate::limits::Exceeded) -> Effect {
    dead(format!(
        "club {}'s submission {} holds more records than the event allows ({exceeded}); this record is set aside",
        key.0, key.1
    ))
}
