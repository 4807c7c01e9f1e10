//! The projection: materialised views of an event, built only from what the aggregator wrote (board
//! scores, applied submissions, club standings). Applying an event is idempotent and the latest
//! generation of each board and field wins, so redelivered or repeated output changes nothing.
//!
//! The national leaderboard is ranked here ([`NationalRanking`]): from the results of the applied
//! submissions, with the scoring engine and the event's declared options, so it is exactly what
//! `simpairs score` gives on the same results. Its generation is the number of submissions applied.
//! (The aggregator used to write the national standings to the log; at a national event's size
//! writing and reading that one event per new club cost several times the ranking itself.)
//! The ranked standings are kept compact ([`NationalStandings`]: the engine's ranked pairs and the
//! pairs' names in chunks shared between rankings); a list's entries are built when a page or the
//! API asks for them. Ranking runs on a thread pool of its own, so that an aggregator in the same
//! process shares the cores with it but cannot hold up its work. The leaderboard's first pairs are
//! ranked first and published while the rest of the field is ranked
//! (`docs/decisions/leaderboard-first.md`).
//!
//! Views: the national leaderboard (combined, NS, EW), each club's own standings, a pair's scorecard
//! with club and national matchpoints per board, a board's frequency table.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde::Serialize;
use simpairs_events::types::{
    AppliedResult, BoardScored, Fraction, LeaderboardPublished, PairStanding, Player,
    StandingsComputed,
};
use simpairs_events::{Codec, Event, Stream};
use simpairs_log::{Log, Produce};

use crate::results::ClubResults;
use crate::{Result, now_ms, stream_name};

use crate::PairKey;
use crate::wire::direction_key;
use simpairs_scoring::PairId;

mod access;
mod trust;
pub use access::PairNames;
pub use trust::Read;

/// Pairs a published leaderboard shows: the first of the combined list.
pub const LEADERBOARD_TOP: usize = 20;

/// What the projection's service has just done for a national generation ([`run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Update {
    /// The generation's leaderboard (its first [`LEADERBOARD_TOP`] pairs) was appended to the
    /// leaderboard stream, ranked before the rest of the field.
    Published(i64),
    /// The generation's national standings are shown: every list and page.
    Shown(i64),
}

/// The projection's views of one event.
#[derive(Debug, Default)]
pub struct Projection {
    pub event_id: String,
    pub name: String,
    pub boards: Vec<i32>,
    pub club_names: BTreeMap<String, String>,
    /// The national standings, latest generation.
    pub national: Option<NationalStandings>,
    /// Each club's own standings, latest generation.
    pub clubs: BTreeMap<String, StandingsComputed>,
    /// Latest scores of each board, by (scope, board); scope "" is national.
    pub board_scores: BTreeMap<(String, i32), BoardScored>,
    /// Results in force, by club, then table. Kept by club so that a club's submission works on
    /// its own few hundred results, not on the whole nation's. (A pair's tables are found by
    /// reading its club's results when its scorecard is asked for: an index of every pair's
    /// tables cost more to keep up for each new club than the lookups it saved.)
    results: BTreeMap<String, ClubResults>,
    /// The number of results in `results`.
    result_count: usize,
    /// The number of clubs in `results` with a result in force. Counted as results apply: the
    /// leaderboard of each new club states it, and a count over the clubs (thousands of map
    /// entries, out of the cache while the field is ranked) took half a millisecond of the time
    /// to the leaderboard.
    clubs_in_force: usize,
    pub players: BTreeMap<PairKey, Vec<Player>>,
    /// The submissions applied, by (club, submission): standby aggregators each write a copy.
    applied: BTreeSet<(String, String)>,
    /// The declared scoring options, once the declaration is read.
    options: Option<simpairs_scoring::Options>,
    /// The national field as last ranked, and the clubs with submissions applied since.
    ranking: NationalRanking,
    /// Records set aside (each counted once, however many times it was written: a standby
    /// aggregator's copy or a repeat after a restart names the same record).
    pub dead_letters: usize,
    dead_letter_sources: BTreeSet<(String, i32, i64)>,
    /// Records the projection set aside: unsigned or forged derived records, records that do
    /// not fit the event, amendments that do not verify.
    rejected: usize,
    /// The event as declared and amended.
    roster: Option<crate::roster::Roster>,
    /// Holds derived records until a declared aggregator's seal vouches for them.
    verifier: crate::output::Verifier,
    /// National generations already published as `LeaderboardPublished`.
    published: BTreeSet<i64>,
    /// When the national standings last changed (ms since the epoch).
    pub updated_ms: i64,
    /// Records read from the event's streams, whatever became of them.
    records_read: u64,
}

fn pair_direction(r: &AppliedResult, ns: bool) -> &'static str {
    match r.movement {
        simpairs_events::types::Movement::Howell => "",
        simpairs_events::types::Movement::Mitchell => {
            if ns {
                "NS"
            } else {
                "EW"
            }
        }
    }
}

impl Projection {
    pub fn new(event_id: &str) -> Projection {
        Projection {
            event_id: event_id.to_string(),
            ..Projection::default()
        }
    }

    /// When the organiser closed the event (ms since the epoch), if it did: the results are final.
    pub fn closed_ms(&self) -> Option<i64> {
        self.roster.as_ref()?.closed.as_ref().map(|c| c.at_ms)
    }

    /// The national generation shown.
    pub fn generation(&self) -> i64 {
        self.national.as_ref().map_or(0, |s| s.generation)
    }

    /// Applies one event; returns whether the national field changed (a submission applied), so
    /// that the national leaderboard needs ranking again ([`Projection::rank_national`]).
    pub fn apply(&mut self, event: Event) -> bool {
        match event {
            Event::EventDeclared(d) => {
                // The aggregator refuses to start on such an event with the same words, so no
                // leaderboard is ever ranked under choices the organiser did not make.
                self.options = crate::wire::options_from_wire(&d)
                    .inspect_err(|e| tracing::error!("{e}"))
                    .ok();
                self.name = d.name;
                self.boards = d.boards;
                self.club_names = d.clubs.into_iter().map(|c| (c.club_id, c.name)).collect();
                false
            }
            Event::SubmissionApplied(mut a) => {
                if !self
                    .applied
                    .insert((a.club_id.clone(), a.submission_id.clone()))
                {
                    // A copy (a standby aggregator's, or a repeat after a restart): applying it
                    // again could undo a later correction of the same club.
                    return false;
                }
                self.ranking.touched.insert(a.club_id.clone());
                let pairs = std::mem::take(&mut a.pairs);
                let club = a.club_id.clone();
                for p in pairs {
                    self.players.insert(
                        PairKey::new(club.clone(), p.section, p.pair, direction_key(p.direction)),
                        p.players,
                    );
                }
                // As the aggregator applied them: the results, then the withdrawals.
                let results = self.results.entry(club).or_default();
                let before = results.len();
                results.apply(&std::sync::Arc::new(a));
                let after = results.len();
                self.result_count = self.result_count + after - before;
                match (before, after) {
                    (0, 1..) => self.clubs_in_force += 1,
                    (1.., 0) => self.clubs_in_force -= 1,
                    _ => {}
                }
                true
            }
            Event::BoardScored(b) => {
                let key = (b.scope.to_string(), b.board);
                if self
                    .board_scores
                    .get(&key)
                    .is_none_or(|old| old.generation <= b.generation)
                {
                    self.board_scores.insert(key, b);
                }
                false
            }
            Event::StandingsComputed(s) => {
                // National standings are ranked here (logs written by earlier versions also
                // carry the aggregator's; they are left aside).
                if !s.scope.is_empty()
                    && self
                        .clubs
                        .get(&s.scope)
                        .is_none_or(|old| old.generation <= s.generation)
                {
                    self.clubs.insert(s.scope.clone(), s);
                }
                false
            }
            Event::LeaderboardPublished(l) => {
                self.published.insert(l.generation);
                false
            }
            Event::DeadLettered(d) => {
                self.dead_letter_sources.insert((
                    d.source_stream,
                    d.source_partition,
                    d.source_offset,
                ));
                self.dead_letters = self.dead_letter_sources.len();
                false
            }
            _ => false,
        }
    }

    /// The results in force.
    pub fn result_count(&self) -> usize {
        self.result_count
    }

    /// The clubs with results in force (not those withdrawn).
    pub fn clubs_in_force(&self) -> usize {
        self.clubs_in_force
    }

    /// Every result in force, by club, then table.
    pub fn results(&self) -> impl Iterator<Item = (&str, &AppliedResult)> + '_ {
        self.results.keys().flat_map(|club| self.club_results(club))
    }

    /// One club's results in force, by table.
    pub fn club_results<'a>(
        &'a self,
        club: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a AppliedResult)> + 'a {
        self.results
            .get(club)
            .into_iter()
            .flat_map(move |results| results.iter().map(move |r| (club, r)))
    }

    /// A club's results in force that `keep` keeps, each with how it stands to what the club's
    /// first applied submission gave for its table.
    pub fn club_results_since_first<'a>(
        &'a self,
        club: &str,
        keep: impl Fn(&AppliedResult) -> bool + 'a,
    ) -> impl Iterator<Item = (&'a AppliedResult, crate::results::SinceFirst<'a>)> + 'a {
        self.results
            .get(club)
            .map(|results| results.filter_since_first(keep))
            .into_iter()
            .flatten()
    }

    /// Ranks the national field again if submissions were applied since it was last ranked, all
    /// in one step (the projection's service does the same with the lock held only to read and to
    /// swap, see [`run`]). Returns whether the national standings changed.
    pub fn rank_national(&mut self) -> Result<bool> {
        // Not before the declaration (its scoring options) is read: what changed stays noted.
        let Some(options) = self.options else {
            return Ok(false);
        };
        let mut ranking = std::mem::take(&mut self.ranking);
        let standings = if ranking.catch_up(self) {
            Some(ranking.rank(&options, self.submissions() as i64, None, |_| {}))
        } else {
            None
        };
        self.ranking = ranking;
        let Some(standings) = standings.transpose()? else {
            return Ok(false);
        };
        self.show_national(standings);
        Ok(true)
    }

    /// How many submissions were applied (each counted once).
    pub fn submissions(&self) -> usize {
        self.applied.len()
    }

    /// Records the projection set aside: unsigned or forged derived records, records that do not
    /// fit the event, amendments that do not verify.
    pub fn rejected(&self) -> usize {
        self.rejected + self.verifier.set_aside
    }

    /// Derived records read but not vouched for by a seal yet (not shown).
    pub fn unverified(&self) -> usize {
        self.verifier.waiting()
    }

    /// Shows new national standings; returns the ones they replace.
    fn show_national(&mut self, standings: NationalStandings) -> Option<NationalStandings> {
        self.updated_ms = now_ms();
        self.national.replace(standings)
    }

    /// Entries `offset..offset + limit` of a list of the national leaderboard (`combined`, `ns` or
    /// `ew`), and how many entries the list has.
    pub fn leaderboard(
        &self,
        list: &str,
        offset: usize,
        limit: usize,
    ) -> (usize, Vec<PairStanding>) {
        let Some(national) = &self.national else {
            return (0, Vec::new());
        };
        let ids = national.list(list);
        let shown = ids.iter().skip(offset).take(limit);
        (ids.len(), shown.map(|&id| national.entry(id)).collect())
    }

    /// The leaderboard event of national generation `generation`, whose first pairs are `top`, if
    /// it was not published yet (it is then counted as published).
    fn leaderboard_event(
        &mut self,
        generation: i64,
        top: Vec<PairStanding>,
    ) -> Option<LeaderboardPublished> {
        if !self.published.insert(generation) {
            return None;
        }
        Some(LeaderboardPublished {
            event_id: self.event_id.clone(),
            generation,
            published_at_ms: now_ms(),
            // The clubs with results in force: a club's own standings may be read after it is
            // ranked nationally.
            clubs_applied: self.clubs_in_force as i32,
            results_applied: self.result_count as i64,
            top,
        })
    }

    /// A pair's scorecard: each board it played with the result and its club and national values.
    pub fn scorecard(&self, pair: &PairKey) -> Option<Scorecard> {
        let club = &pair.club;
        let results = self.results.get(club)?;
        let plays = |r: &AppliedResult, ns: bool| {
            let label = if ns { &r.ns_pair } else { &r.ew_pair };
            r.section == pair.section
                && *label == pair.pair
                && pair_direction(r, ns) == pair.direction
        };
        let mut lines = Vec::new();
        for (r, since) in results.filter_since_first(|r| plays(r, true) || plays(r, false)) {
            let ns_side = plays(r, true);
            let values = |scope: &str| {
                self.value_of(scope, club, r)
                    .map(|(ns, ew)| if ns_side { ns } else { ew })
            };
            let top = |scope: &str| {
                self.board_scores
                    .get(&(scope.to_string(), r.board))
                    .map(|b| b.top)
            };
            lines.push(ScorecardLine {
                board: r.board,
                direction: if ns_side { "NS" } else { "EW" },
                opponents: if ns_side {
                    r.ew_pair.to_string()
                } else {
                    r.ns_pair.to_string()
                },
                played: Played::of(r),
                club_value: values(club).map(crate::wire::fraction_to_f64),
                club_top: top(club).map(crate::wire::fraction_to_f64),
                national_value: values("").map(crate::wire::fraction_to_f64),
                national_top: top("").map(crate::wire::fraction_to_f64),
                corrected: since != crate::results::SinceFirst::Unchanged,
                first_upload: match since {
                    crate::results::SinceFirst::Corrected(was) => Some(Played::of(was)),
                    _ => None,
                },
            });
        }
        if lines.is_empty() {
            // Not a pair of this club, or none of its results is in force.
            return None;
        }
        lines.sort_by_key(|l| l.board);
        let find_in_club = |s: &StandingsComputed| {
            s.standings
                .iter()
                .find(|p| {
                    p.club_id == pair.club
                        && p.section == pair.section
                        && p.pair == pair.pair
                        && direction_key(p.direction) == pair.direction
                })
                .cloned()
        };
        Some(Scorecard {
            club: pair.club.clone(),
            club_name: self
                .club_names
                .get(&pair.club)
                .cloned()
                .unwrap_or_else(|| pair.club.clone()),
            section: pair.section.clone(),
            pair: pair.pair.clone(),
            direction: pair.direction,
            players: self
                .players
                .get(pair)
                .map(|p| p.iter().map(|p| p.name.clone()).collect())
                .unwrap_or_default(),
            national: self.national.as_ref().and_then(|n| n.find(pair)),
            club_standing: self.clubs.get(&pair.club).and_then(find_in_club),
            lines,
        })
    }

    /// The values (to NS, to EW) of a result in a scope's scores of its board.
    fn value_of(&self, scope: &str, club: &str, r: &AppliedResult) -> Option<(Fraction, Fraction)> {
        let board = self.board_scores.get(&(scope.to_string(), r.board))?;
        let plain = r.adjusted.is_none()
            && !r.arrow_switch
            && r.group.is_none()
            && r.ew_score.is_none_or(|ew| Some(-ew) == r.ns_score);
        if plain && let Some(score) = r.ns_score {
            let at = board
                .table
                .binary_search_by_key(&score, |e| e.ns_score)
                .ok()?;
            let e = &board.table[at];
            return Some((e.ns_value, e.ew_value));
        }
        board
            .specials
            .iter()
            .find(|s| s.club_id == club && crate::results::is_table(r, &s.key))
            .map(|s| (s.ns_value, s.ew_value))
    }
}

/// The national field as the projection last ranked it, and the clubs with submissions applied
/// since. A new club's results are appended to the field; a club already in it that changed (a
/// correction, a withdrawal) has its rows taken out and its results appended again, unless that
/// leaves one of its pairs with no result, when the field is built again from every result in
/// force.
#[derive(Debug, Default)]
pub(crate) struct NationalRanking {
    field: simpairs_scoring::Field,
    /// The names of `field`'s pairs, clubs and sections, shared with the standings served.
    names: FieldNames,
    /// Clubs whose results are in `field`.
    in_field: BTreeSet<String>,
    /// Clubs with submissions applied since `field` was brought up to date.
    touched: BTreeSet<String>,
    /// The boards' score counts of `field`, kept as clubs are appended to it.
    counts: simpairs_scoring::BoardCounts,
}

impl NationalRanking {
    /// Brings the field up to date with the projection's results in force; returns whether it
    /// changed. Only reads the projection.
    fn catch_up(&mut self, p: &Projection) -> bool {
        let touched = std::mem::take(&mut self.touched);
        if touched.is_empty() {
            return false;
        }
        // Runs of clubs are built in parallel (a projection started on a national event's log
        // has thousands to build at once), then joined in club order.
        let build = |clubs: Vec<&String>| {
            crate::field::build_parts(clubs, |part, club| part.extend(p.club_results(club)))
        };
        // A club already in the field (a correction, a withdrawal) has its rows taken out and its
        // results appended again, as a new club's are: its pairs keep their ids.
        let again: Vec<&str> = touched
            .iter()
            .filter(|club| self.in_field.contains(*club))
            .map(String::as_str)
            .collect();
        self.field.remove_club_rows(&again);
        for field in build(touched.iter().collect()) {
            self.field.append(&field);
        }
        if self.field.has_pairs_without_rows(&again) {
            // A pair the club's results no longer list would be ranked with no result: the field
            // is built again from every result in force, and every id may change.
            let every: Vec<&String> = p.results.keys().collect();
            self.field = simpairs_scoring::Field::concat(build(every));
            self.names = FieldNames::default();
        }
        self.in_field.extend(touched);
        self.names.catch_up(&self.field);
        true
    }

    /// The national standings of the field, labelled `generation`, ranked on `pool` (or the
    /// calling thread's). `first` hears the first [`LEADERBOARD_TOP`] pairs of the combined list
    /// as soon as they are known, and runs while the rest of the field is ranked.
    fn rank(
        &mut self,
        options: &simpairs_scoring::Options,
        generation: i64,
        pool: Option<&rayon::ThreadPool>,
        first: impl FnOnce(Vec<PairStanding>) + Send,
    ) -> Result<NationalStandings> {
        let started = std::time::Instant::now();
        let (field, counts, names) = (&self.field, &mut self.counts, &self.names);
        // The first pairs come before pass two when the last ranking bounds them, else after it.
        let (top, rest) = crate::background::install(pool, move || {
            simpairs_scoring::score_growing_valued(field, counts, options)?.top(LEADERBOARD_TOP)
        })?;
        let before_pass_two = rest.listed_before_pass_two();
        tracing::debug!(elapsed = ?started.elapsed(), before_pass_two, "national leaderboard's first pairs ranked");
        let top = top.iter().map(|s| names.entry(s)).collect();
        // Publishing waits on the disk or the broker (behind the aggregator's own appends), not
        // on the processors: it has a thread of its own while the rest of the field is ranked, so
        // that the ranking keeps every thread of its pool.
        let (scoring, ranked) = std::thread::scope(|scope| {
            let publishing = scope.spawn(move || first(top));
            let ranked = crate::background::install(pool, move || rest.rank());
            if let Err(panic) = publishing.join() {
                std::panic::resume_unwind(panic);
            }
            ranked
        })?;
        tracing::debug!(elapsed = ?started.elapsed(), results = field.len(), "national field scored");
        crate::background::install(pool, || {
            NationalStandings::new(&scoring, ranked, names.clone(), generation)
        })
    }
}

/// The national leaderboard as last ranked, kept compact: the engine's ranked pairs and a copy of
/// the names of the pairs. A national field has hundreds of thousands of pairs; building every
/// entry with its strings on each new club cost nearly as much as ranking the field, so an entry
/// (and the engine's standing it shows) is built when it is asked for
/// ([`NationalStandings::entry`]).
#[derive(Debug)]
pub struct NationalStandings {
    /// The number of submissions applied when it was ranked.
    pub generation: i64,
    pub scoring: simpairs_events::types::Scoring,
    pub factoring: simpairs_events::types::Factoring,
    names: FieldNames,
    /// The ranked pairs, each pair's standing made when it is shown.
    ranked: simpairs_scoring::standings::Ranked,
    /// Pair ids as `simpairs score` lists them: NS by place, then EW, then Howell pairs; pairs
    /// sharing a place by club, section and number.
    display: Vec<PairId>,
    /// How many of `display` are NS pairs, then EW pairs.
    ns_pairs: usize,
    ew_pairs: usize,
    /// Pair ids by combined place, in display order within a place.
    combined: Vec<PairId>,
}

impl NationalStandings {
    /// `ranked` and `names` are those of the scored field.
    fn new(
        scoring: &simpairs_scoring::Scoring<'_>,
        ranked: simpairs_scoring::standings::Ranked,
        names: FieldNames,
        generation: i64,
    ) -> Result<NationalStandings> {
        let started = std::time::Instant::now();
        let lap = |what: &str| tracing::trace!(elapsed = ?started.elapsed(), "standings: {what}");
        let simpairs_scoring::standings::Lists {
            combined,
            display,
            ns: ns_pairs,
            ew: ew_pairs,
        } = simpairs_scoring::standings::lists(scoring);
        lap("lists");
        let (event_scoring, factoring) = crate::wire::options_to_wire(scoring.options())?;
        Ok(NationalStandings {
            generation,
            scoring: event_scoring,
            factoring,
            names,
            ranked,
            display,
            ns_pairs,
            ew_pairs,
            combined,
        })
    }

    /// Pair ids of a list: `ns`, `ew`, or (anything else) `combined`.
    pub fn list(&self, list: &str) -> &[PairId] {
        match list {
            "ns" => &self.display[..self.ns_pairs],
            "ew" => &self.display[self.ns_pairs..self.ns_pairs + self.ew_pairs],
            _ => &self.combined,
        }
    }

    /// How many pairs are ranked.
    pub fn len(&self) -> usize {
        self.ranked.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranked.is_empty()
    }

    /// A pair's entry, as the national `StandingsComputed` would carry it.
    pub fn entry(&self, id: PairId) -> PairStanding {
        self.names.entry(&self.ranked.standing(id))
    }

    /// A pair's entry by its names.
    pub fn find(&self, pair: &PairKey) -> Option<PairStanding> {
        let label = simpairs_scoring::PairLabel::new(&pair.pair);
        let direction = crate::wire::direction_from_key(pair.direction);
        let names = &self.names;
        let id = (0..self.len()).find(|&id| {
            let p = names.pairs.get(id);
            p.label == label
                && p.direction == direction
                && **names.clubs.get(p.club as usize) == *pair.club
                && **names.sections.get(p.section as usize) == *pair.section
        })?;
        Some(self.entry(id as PairId))
    }

    /// Every entry in display order, as one `StandingsComputed` of scope "" (national).
    pub fn to_event(&self, event_id: &str) -> StandingsComputed {
        StandingsComputed {
            event_id: event_id.to_string(),
            scope: String::new(),
            generation: self.generation,
            scoring: self.scoring,
            factoring: self.factoring,
            standings: self.display.iter().map(|&id| self.entry(id)).collect(),
        }
    }
}

/// The names of a national field's pairs, clubs and sections, by id. The field only grows between
/// rankings (a new club's pairs, clubs and sections take the next ids), so the names are kept in
/// shared chunks: each ranking's standings hold a copy that costs a few pointers, and a new club
/// copies at most the last chunk of each list.
#[derive(Clone, Debug, Default)]
struct FieldNames {
    pairs: Chunked<simpairs_scoring::Pair>,
    clubs: Chunked<Box<str>>,
    sections: Chunked<Box<str>>,
}

impl FieldNames {
    /// A pair's entry, as the national `StandingsComputed` would carry it.
    fn entry(&self, standing: &simpairs_scoring::Standing) -> PairStanding {
        let pair = self.pairs.get(standing.pair as usize);
        crate::wire::standing_to_wire(
            self.clubs.get(pair.club as usize),
            self.sections.get(pair.section as usize),
            pair,
            standing,
        )
    }

    /// Adds the names `field` has beyond those already here.
    fn catch_up(&mut self, field: &simpairs_scoring::Field) {
        for p in &field.pairs()[self.pairs.len().min(field.pairs().len())..] {
            self.pairs.push(p.clone());
        }
        for c in field.clubs().skip(self.clubs.len()) {
            self.clubs.push(c.into());
        }
        for s in field.sections().skip(self.sections.len()) {
            self.sections.push(s.into());
        }
    }
}

/// An append-only list in shared chunks of [`Chunked::CHUNK`] items.
#[derive(Clone, Debug)]
struct Chunked<T> {
    chunks: Vec<Arc<Vec<T>>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Clone> Chunked<T> {
    const CHUNK: usize = 4096;

    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, item: T) {
        if self.len.is_multiple_of(Self::CHUNK) {
            self.chunks.push(Arc::new(Vec::with_capacity(Self::CHUNK)));
        }
        if let Some(last) = self.chunks.last_mut() {
            // Copies the chunk only if standings still share it.
            Arc::make_mut(last).push(item);
        }
        self.len += 1;
    }

    fn get(&self, i: usize) -> &T {
        &self.chunks[i / Self::CHUNK][i % Self::CHUNK]
    }
}

/// One board of a pair's scorecard.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ScorecardLine {
    pub board: i32,
    pub direction: &'static str,
    pub opponents: String,
    /// The result in force (its fields side by side with the line's in the JSON).
    #[serde(flatten)]
    pub played: Played,
    pub club_value: Option<f64>,
    pub club_top: Option<f64>,
    pub national_value: Option<f64>,
    pub national_top: Option<f64>,
    /// Whether a later submission of the club corrected this board after its first upload (a
    /// changed result, or a table the first upload did not give).
    pub corrected: bool,
    /// What the club's first upload gave for this board, when a later submission changed it.
    pub first_upload: Option<Played>,
}

/// A board's result as a club gave it: a scorecard line's, or the one a correction replaced.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Played {
    pub contract: Option<String>,
    pub declarer: Option<String>,
    pub tricks: Option<i32>,
    pub ns_score: Option<i32>,
    /// An artificial adjusted score, as `60/40`.
    pub adjusted: Option<String>,
}

impl Played {
    fn of(r: &AppliedResult) -> Played {
        Played {
            contract: r.contract.as_deref().map(str::to_string),
            declarer: r.declarer.as_deref().map(str::to_string),
            tricks: r.tricks,
            ns_score: r.ns_score,
            adjusted: (r.adjusted).map(|a| format!("{}/{}", a.ns_percent, a.ew_percent)),
        }
    }
}

/// A pair's scorecard.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Scorecard {
    pub club: String,
    pub club_name: String,
    pub section: String,
    pub pair: String,
    pub direction: &'static str,
    pub players: Vec<String>,
    #[serde(skip)]
    pub national: Option<PairStanding>,
    #[serde(skip)]
    pub club_standing: Option<PairStanding>,
    pub lines: Vec<ScorecardLine>,
}

/// The streams a projection reads.
pub const STREAMS: [Stream; 4] = [
    Stream::Declarations,
    Stream::BoardScores,
    Stream::Leaderboard,
    Stream::DeadLetter,
];

impl Projection {
    /// The projection of everything the log holds now for `event_id`, national field ranked: what
    /// [`run`] shows once it has caught up (for tests and one-off reports). A record it cannot
    /// read is an error here.
    pub fn load(log: &dyn Log, event_id: &str) -> Result<Projection> {
        let codec = Codec::new()?;
        let mut projection = Projection::new(event_id);
        for stream in STREAMS {
            let name = stream_name(event_id, stream);
            for partition in 0..log.partitions(&name)? {
                let end = log.end_offset(&name, partition)?;
                let mut records = Vec::new();
                crate::read_range(log, &name, partition, 0, end, |r| records.push(r.value))?;
                // Decoded in parallel, a chunk at a time (a decoded chunk is let go before the
                // next: old generations of the national boards are large and soon replaced).
                let mut records = records.into_iter().peekable();
                while records.peek().is_some() {
                    let chunk: Vec<Vec<u8>> = records.by_ref().take(8192).collect();
                    for read in decode_all(&codec, stream, &name, partition, chunk) {
                        projection.read(&codec, read)?;
                    }
                }
            }
        }
        projection.rank_national()?;
        Ok(projection)
    }
}

/// Reads what each stream's partitions hold past `positions`, decoded, and moves the positions on.
fn read_new(
    log: &dyn Log,
    codec: &Codec,
    positions: &mut BTreeMap<(Stream, String, u32), u64>,
) -> Result<Vec<Read>> {
    let mut decoded = Vec::new();
    for ((stream, name, partition), at) in positions.iter_mut() {
        let batch = crate::read_kept(log, name, *partition, at, 50_000)?;
        if let Some(last) = batch.last() {
            *at = last.offset + 1;
        }
        // Decoded in parallel: on a national event's log a projection starting up has hundreds
        // of megabytes of derived records to read.
        let messages = batch.into_iter().map(|record| record.value).collect();
        decoded.extend(decode_all(codec, *stream, name, *partition, messages));
    }
    Ok(decoded)
}

/// Messages of one stream's partition decoded, in parallel, in their order.
fn decode_all(
    codec: &Codec,
    stream: Stream,
    name: &str,
    partition: u32,
    messages: Vec<Vec<u8>>,
) -> Vec<Read> {
    use rayon::prelude::*;
    messages
        .into_par_iter()
        .map(|message| Read {
            stream,
            stream_name: name.to_string(),
            partition,
            decoded: codec.decode(&message),
            message,
        })
        .collect()
}

/// Ranks the national field on the projection's own threads (or the shared ones); `None`, with a
/// warning, when it cannot be ranked. `first` hears the leaderboard's first pairs
/// ([`NationalRanking::rank`]).
fn rank_on(
    pool: Option<&rayon::ThreadPool>,
    ranking: &mut NationalRanking,
    options: &simpairs_scoring::Options,
    generation: i64,
    event_id: &str,
    first: impl FnOnce(Vec<PairStanding>) + Send,
) -> Option<NationalStandings> {
    match ranking.rank(options, generation, pool, first) {
        Ok(ranked) => Some(ranked),
        Err(e) => {
            tracing::warn!(event = event_id, "the national field cannot be ranked: {e}");
            None
        }
    }
}

/// Appends the leaderboard of national generation `generation` (its first pairs, `top`) to
/// `stream` unless it was published already; returns whether it was appended.
fn publish_first(
    log: &dyn Log,
    codec: &Codec,
    shared: &RwLock<Projection>,
    stream: &str,
    generation: i64,
    top: Vec<PairStanding>,
) -> Result<bool> {
    let mut p = shared.write().unwrap_or_else(|e| e.into_inner());
    let Some(leaderboard) = p.leaderboard_event(generation, top) else {
        return Ok(false);
    };
    drop(p);
    let event = Event::LeaderboardPublished(leaderboard);
    let bytes = codec.encode(&event);
    let key = event.partition_key();
    let appending = std::time::Instant::now();
    // A view of the log, published again by the next projection to start if a machine's crash
    // loses it, so it does not wait for the disk.
    log.append_derived(stream, &[Produce::new(&key, &bytes, now_ms())])?;
    tracing::trace!(elapsed = ?appending.elapsed(), generation, "national leaderboard appended");
    Ok(true)
}

/// Runs the projection of an event until stopped: reads the board-scores and leaderboard streams from
/// the start, keeps `shared` up to date, and (if `publish`) writes a `LeaderboardPublished` for each new
/// national generation as soon as its first pairs are ranked, before the rest of the field.
/// `on_update` hears each generation published and each shown.
pub fn run(
    log: Arc<dyn Log>,
    event_id: &str,
    shared: Arc<RwLock<Projection>>,
    stop: &AtomicBool,
    publish: bool,
    mut on_update: impl FnMut(Update) + Send,
) -> Result<()> {
    let codec = Codec::new()?;
    let mut positions: BTreeMap<(Stream, String, u32), u64> = BTreeMap::new();
    for stream in STREAMS {
        let name = stream_name(event_id, stream);
        for p in 0..log.partitions(&name)? {
            positions.insert((stream, name.clone(), p), 0);
        }
    }
    let leaderboard = stream_name(event_id, Stream::Leaderboard);
    // Ranking runs on threads of its own: where the aggregator shares the process (the demo, one
    // machine), its rescoring then cannot hold up the leaderboard's work inside one thread pool,
    // and the two share the cores.
    let pool = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("projection-{i}"))
        .build()
        .map_err(|e| tracing::warn!("the projection ranks on the shared threads: {e}"))
        .ok();
    let mut idle = 0u32;
    while !stop.load(Ordering::Relaxed) {
        let token = log.append_token();
        let decoded = read_new(log.as_ref(), &codec, &mut positions)?;
        if decoded.is_empty() {
            // Back off gently while nothing happens, but stay quick to notice new output: on the
            // embedded log an append in this process wakes the wait at once.
            idle = (idle + 1).min(20);
            log.wait_for_append(token, Duration::from_millis(u64::from(idle.min(10))));
            continue;
        }
        idle = 0;
        let applying = std::time::Instant::now();
        let count = decoded.len();
        // Apply under the write lock; bring the national field up to date under a read lock (the
        // service keeps answering); rank with no lock held; swap the standings in.
        let (mut ranking, options, generation) = {
            let mut p = shared.write().unwrap_or_else(|e| e.into_inner());
            for read in decoded {
                p.read(&codec, read)?;
            }
            (
                std::mem::take(&mut p.ranking),
                p.options,
                p.submissions() as i64,
            )
        };
        tracing::debug!(events = count, elapsed = ?applying.elapsed(), generation, "projection applied");
        let mut published: Result<()> = Ok(());
        // Not before the declaration is read: the clubs that changed stay noted until then.
        let ranked = match options {
            Some(options)
                if ranking.catch_up(&shared.read().unwrap_or_else(|e| e.into_inner())) =>
            {
                tracing::debug!(elapsed = ?applying.elapsed(), "national field brought up to date");
                let first = |top| {
                    if publish {
                        let (log, stream) = (log.as_ref(), leaderboard.as_str());
                        let done = publish_first(log, &codec, &shared, stream, generation, top);
                        if let Ok(true) = done {
                            on_update(Update::Published(generation));
                        }
                        published = done.map(drop);
                    }
                };
                rank_on(
                    pool.as_ref(),
                    &mut ranking,
                    &options,
                    generation,
                    event_id,
                    first,
                )
            }
            _ => None,
        };
        let replaced = {
            let mut p = shared.write().unwrap_or_else(|e| e.into_inner());
            p.ranking = ranking;
            ranked.and_then(|standings| {
                let replaced = p.show_national(standings);
                tracing::debug!(elapsed = ?applying.elapsed(), generation, "national field ranked");
                on_update(Update::Shown(generation));
                replaced
            })
        };
        // The standings replaced (hundreds of thousands of entries) are freed with no lock held.
        drop(replaced);
        published?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use simpairs_events::types::{Direction, EventDeclared, Factoring, Scoring, SubmissionApplied};

    fn declared() -> Event {
        Event::EventDeclared(EventDeclared {
            event_id: "E".into(),
            name: "test".into(),
            boards: vec![1],
            scoring: Scoring::Matchpoints,
            factoring: Factoring::Neuberg,
            clubs: Vec::new(),
            declared_at_ms: 0,
            aggregator_keys: Vec::new(),
            organiser_key: None,
            limits: None,
            conventions: None,
        })
    }

    /// Club C's submission `id`: board 1 at two tables, NS pair 1 scoring `first` against EW 1
    /// and NS pair 2 scoring 100 against EW 2.
    fn submission(id: &str, first: i32) -> Event {
        let result = |ns: &str, ew: &str, score: i32| AppliedResult {
            ns_score: Some(score),
            ..crate::test_result::table(1, ns, ew)
        };
        Event::SubmissionApplied(SubmissionApplied {
            event_id: "E".into(),
            club_id: "C".into(),
            submission_id: id.into(),
            seal_offset: 0,
            results: vec![result("1", "1", first), result("2", "2", 100)],
            withdrawn: Vec::new(),
            pairs: Vec::new(),
        })
    }

    /// Club `club`'s submission `id`: board 1, NS pair n against EW pair n scoring the nth of
    /// `scores`, and the tables of NS pairs `withdrawn` taken out.
    fn tables(club: &str, id: &str, scores: &[i32], withdrawn: &[&str]) -> Event {
        let Event::SubmissionApplied(mut applied) = submission(id, 0) else {
            unreachable!("a submission")
        };
        let first = applied.results[0].clone();
        applied.club_id = club.into();
        applied.results = (1..=scores.len())
            .zip(scores)
            .map(|(n, &score)| AppliedResult {
                ns_pair: n.to_string().into(),
                ew_pair: n.to_string().into(),
                ns_score: Some(score),
                ..first.clone()
            })
            .collect();
        applied.withdrawn = withdrawn
            .iter()
            .map(|&n| simpairs_events::types::ResultKey {
                section: "A".into(),
                board: 1,
                ns_pair: n.into(),
                ew_pair: n.into(),
            })
            .collect();
        Event::SubmissionApplied(applied)
    }

    /// Every entry of the combined list, in its order.
    fn entries(p: &Projection) -> Vec<PairStanding> {
        p.leaderboard("combined", 0, usize::MAX).1
    }

    /// A projection of `submissions` alone, ranked.
    fn afresh(submissions: Vec<Event>) -> Projection {
        let mut p = Projection::new("E");
        p.apply(declared());
        for s in submissions {
            p.apply(s);
        }
        p.rank_national().unwrap();
        p
    }

    #[test]
    fn a_correction_is_ranked_as_a_field_built_afresh_is() {
        let mut live = afresh(vec![
            tables("C", "c1", &[420, 100, -50], &[]),
            tables("D", "d1", &[400, 100], &[]),
        ]);
        // C corrects a score: its rows are taken out and appended again.
        live.apply(tables("C", "c2", &[420, -100, -50], &[]));
        assert!(live.rank_national().unwrap());
        let corrected = afresh(vec![
            tables("C", "c2", &[420, -100, -50], &[]),
            tables("D", "d1", &[400, 100], &[]),
        ]);
        assert_eq!(entries(&live), entries(&corrected));
        assert_eq!(entries(&live).len(), 10);
        // C withdraws its third table: its pair 3 has no result left, and is not ranked.
        live.apply(tables("C", "c3", &[420, -100], &["3"]));
        assert!(live.rank_national().unwrap());
        let withdrawn = afresh(vec![
            tables("C", "c3", &[420, -100], &[]),
            tables("D", "d1", &[400, 100], &[]),
        ]);
        assert_eq!(entries(&live), entries(&withdrawn));
        assert_eq!(entries(&live).len(), 8);
    }

    /// The clubs a leaderboard of `p` now would say have results in force.
    fn clubs_stated(p: &mut Projection) -> i32 {
        let generation = p.published.last().map_or(1, |g| g + 1);
        let leaderboard = p.leaderboard_event(generation, Vec::new());
        leaderboard.expect("not yet published").clubs_applied
    }

    #[test]
    fn a_leaderboard_counts_the_clubs_with_results_in_force() {
        let mut p = afresh(vec![tables("C", "c1", &[420, 100], &[])]);
        assert_eq!(clubs_stated(&mut p), 1);
        p.apply(tables("D", "d1", &[400], &[]));
        assert_eq!(clubs_stated(&mut p), 2);
        // A correction of C leaves it counted once.
        p.apply(tables("C", "c2", &[420, -100], &[]));
        assert_eq!(clubs_stated(&mut p), 2);
        // D withdraws its only table: it has no result in force, and is not counted.
        p.apply(tables("D", "d2", &[], &["1"]));
        assert_eq!(p.result_count(), 2);
        assert_eq!(clubs_stated(&mut p), 1);
        // D's results again.
        p.apply(tables("D", "d3", &[380], &[]));
        assert_eq!(clubs_stated(&mut p), 2);
    }

    fn national_ns_top(p: &Projection) -> (String, i64) {
        let (_, top) = p.leaderboard("ns", 0, 1);
        (top[0].pair.clone(), p.generation())
    }

    #[test]
    fn a_copy_of_an_earlier_submission_does_not_undo_its_correction() {
        let mut p = Projection::new("E");
        p.apply(declared());
        // NS 1 first beats NS 2, then a correction makes it lose.
        assert!(p.apply(submission("s1", 420)));
        assert!(p.apply(submission("s2", -50)));
        assert!(p.rank_national().unwrap());
        assert_eq!(national_ns_top(&p), ("2".to_string(), 2));
        // A standby aggregator's copies of both arrive later: nothing changes.
        assert!(!p.apply(submission("s1", 420)));
        assert!(!p.apply(submission("s2", -50)));
        assert!(!p.rank_national().unwrap());
        assert_eq!(national_ns_top(&p), ("2".to_string(), 2));
        assert_eq!(p.submissions(), 2);
    }

    /// (pair, direction, place shown) of a list's entries.
    fn list(p: &Projection, list: &str) -> Vec<(String, Option<Direction>, i32)> {
        let (total, rows) = p.leaderboard(list, 0, usize::MAX);
        assert_eq!(total, rows.len());
        let combined = list == "combined";
        rows.into_iter()
            .map(|s| {
                let place = if combined { s.combined_rank } else { s.rank };
                (s.pair, s.direction, place)
            })
            .collect()
    }

    #[test]
    fn the_lists_order_pairs_by_place_ns_before_ew_within_a_place() {
        use Direction::{Ew, Ns};
        let mut p = Projection::new("E");
        p.apply(declared());
        // NS 1 beats NS 2; so EW 2 (against NS 2) beats EW 1.
        p.apply(submission("s1", 420));
        p.rank_national().unwrap();
        let entry = |pair: &str, d, place| (pair.to_string(), Some(d), place);
        assert_eq!(
            list(&p, "combined"),
            [
                entry("1", Ns, 1),
                entry("2", Ew, 1),
                entry("2", Ns, 3),
                entry("1", Ew, 3)
            ]
        );
        assert_eq!(list(&p, "ns"), [entry("1", Ns, 1), entry("2", Ns, 2)]);
        assert_eq!(list(&p, "ew"), [entry("2", Ew, 1), entry("1", Ew, 2)]);
        // A page of a list, and a pair found by its names.
        let (total, page) = p.leaderboard("combined", 1, 2);
        assert_eq!(total, 4);
        assert_eq!(
            page.iter()
                .map(|s| (s.pair.as_str(), s.direction))
                .collect::<Vec<_>>(),
            [("2", Some(Ew)), ("2", Some(Ns))]
        );
        let found = p.national.as_ref().unwrap();
        let ew2 = found.find(&PairKey::new("C", "A", "2", "EW")).unwrap();
        assert_eq!(
            (ew2.rank, ew2.combined_rank, ew2.total_hundredths),
            (1, 1, 200)
        );
        assert!(found.find(&PairKey::new("C", "A", "3", "EW")).is_none());
    }

    #[test]
    fn the_national_field_is_ranked_once_the_declaration_is_known() {
        let mut p = Projection::new("E");
        assert!(p.apply(submission("s1", 420)));
        assert!(!p.rank_national().unwrap(), "no scoring options yet");
        assert!(p.national.is_none());
        p.apply(declared());
        assert!(p.rank_national().unwrap());
        assert_eq!(national_ns_top(&p), ("1".to_string(), 1));
    }
}
