//! What the aggregator derives from a batch once its applied submissions are on their way: the
//! national field brought up to date, its boards scored, and each touched club's own field scored,
//! as the `BoardScored` events that changed and the clubs' `StandingsComputed`.
//!
//! A [`Derivation`] owns everything this needs (the national field, its boards' counts, what was
//! last written), and nothing the judge reads, so that it runs on a thread of its own while the
//! aggregator reads, stages and judges the next batch ([`crate::writing`]). The only part that
//! reads the event's state, a club's field rebuilt from its results in force after a correction,
//! is done before it is handed over ([`club_fields`]).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Instant;

use compact_str::ToCompactString;
use simpairs_events::Event;
use simpairs_events::types::{BoardScored, ResultKey, SpecialValue, StandingsComputed, TableEntry};
use simpairs_scoring::{BoardCounts, Field, Options, Scoring};

use crate::Result;
use crate::background::Pace;
use crate::state::EventState;
use crate::wire::{options_to_wire, standing_to_wire, value_to_wire};
use crate::written::Written;

/// The aggregator's derived state: the national field and what was last written of it.
pub(crate) struct Derivation {
    event_id: String,
    options: Options,
    national: Field,
    /// The national boards' score counts, kept as clubs are appended to `national`.
    national_counts: BoardCounts,
    national_clubs: BTreeSet<String>,
    /// A hash of the table last written for each scope and board, to write only what changed.
    written: Written,
    /// Threads of the lowest priority the scoring runs on ([`crate::background`]).
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Whether `pool` gives way at once to any normal thread: once a batch keeps up with what
    /// arrives ([`Pace::Live`]), for good.
    giving_way: bool,
}

/// A batch's clubs, each with its own field, for [`Derivation::derive`].
pub(crate) struct Touched {
    pub(crate) fields: Vec<(String, Field)>,
    pub(crate) generation: i64,
    /// Whether the batch keeps up with what arrives or works through a backlog: how the
    /// low-priority threads that derive it give way to the others.
    pub(crate) pace: Pace,
    /// When the batch's work began (for the debug log's timings).
    pub(crate) started: Instant,
}

/// The events a batch derived: board scores that changed, and clubs' standings.
pub(crate) type DerivedEvents = (Vec<Event>, Vec<Event>);

impl Derivation {
    pub(crate) fn new(
        event_id: &str,
        options: Options,
        pool: Option<Arc<rayon::ThreadPool>>,
    ) -> Derivation {
        Derivation {
            event_id: event_id.to_string(),
            options,
            national: Field::new(),
            national_counts: BoardCounts::new(),
            national_clubs: BTreeSet::new(),
            written: Written::default(),
            pool,
            giving_way: false,
        }
    }

    /// How many results the national field holds.
    pub(crate) fn results(&self) -> usize {
        self.national.len()
    }

    /// Folds what a batch read again from the log applied into the national field: the fields
    /// the checks built are appended as they are, without reading any result back. (Its
    /// announcements were written when the batch was first read.)
    pub(crate) fn fold_in(&mut self, state: &EventState, finished: crate::state::Finished) {
        let clubs: BTreeSet<String> = finished
            .announced
            .into_iter()
            .map(|(_, a)| a.club_id)
            .collect();
        let fields = club_fields(state, clubs, finished.fields);
        self.fold(&fields);
    }

    /// Brings the national field up to date with the clubs' fields given: a club's first results
    /// are appended; a club sending a correction has its rows taken out and its field appended
    /// again.
    fn fold(&mut self, fields: &[(String, Field)]) {
        let again: Vec<&str> = fields
            .iter()
            .map(|(club, _)| club.as_str())
            .filter(|c| self.national_clubs.contains(*c))
            .collect();
        self.national.remove_club_rows(&again);
        for (club, field) in fields {
            self.national.append(field);
            self.national_clubs.insert(club.clone());
        }
    }

    /// Folds the touched clubs into the national field, and derives the board scores that changed
    /// and the touched clubs' standings, on the lowest-priority threads.
    pub(crate) fn derive(&mut self, touched: Touched) -> Result<DerivedEvents> {
        if touched.pace == Pace::Live && !self.giving_way {
            // The pool is idle here: only this thread gives it work.
            if let Some(pool) = &self.pool {
                crate::background::give_way_at_once(pool);
            }
            self.giving_way = true;
        }
        let pool = self.pool.clone();
        crate::background::install(pool.as_deref(), || self.derive_here(touched))
    }

    fn derive_here(&mut self, touched: Touched) -> Result<DerivedEvents> {
        let Touched {
            fields,
            generation,
            started,
            ..
        } = touched;
        let (mut scores, mut standings) = (Vec::new(), Vec::new());
        self.fold(&fields);
        tracing::debug!(elapsed = ?started.elapsed(), clubs = fields.len(), "fields rebuilt");
        // Nationally only the boards: pair totals and places are the projection's work.
        // The counts of the clubs already in are kept: only the new club's rows are counted.
        let national = simpairs_scoring::score_boards_growing(
            &self.national,
            &mut self.national_counts,
            &self.options,
        )?;
        tracing::debug!(elapsed = ?started.elapsed(), results = self.national.len(), "national boards scored");
        let boards = board_events(&self.event_id, &national, "", generation);
        tracing::debug!(elapsed = ?started.elapsed(), "national board events built");
        let clubs = self.clubs_scored(&fields, generation)?;
        // Room for every board event at once: pushed one at a time, a batch's events (hundreds of
        // kilobytes) would be copied again each time the vector doubled.
        scores.reserve(boards.len() + clubs.iter().map(|c| c.1.len()).sum::<usize>());
        standings.reserve(clubs.len());
        self.written.keep_changed("", boards, &mut scores);
        for (club, boards, club_standings) in clubs {
            self.written.keep_changed(&club, boards, &mut scores);
            standings.push(Event::StandingsComputed(club_standings));
        }
        tracing::debug!(elapsed = ?started.elapsed(), "club output derived");
        Ok((scores, standings))
    }

    /// Each club's own field scored (clubs in parallel: each is small): its board scores and
    /// its standings.
    fn clubs_scored(
        &self,
        fields: &[(String, Field)],
        generation: i64,
    ) -> Result<Vec<(String, Vec<Event>, StandingsComputed)>> {
        use rayon::prelude::*;
        let (event_id, options) = (&self.event_id, &self.options);
        fields
            .par_iter()
            .map(|(club, field)| -> Result<_> {
                let scoring = simpairs_scoring::score(field, options)?;
                Ok((
                    club.clone(),
                    board_events(event_id, &scoring, club, generation),
                    standings_event(event_id, &scoring, club, generation)?,
                ))
            })
            .collect()
    }
}

/// Each of `clubs` (in their order) with its own field, built in parallel from its results in
/// force (clubs are independent) unless `built` has it (the checks of the club's only submission
/// built it). Clubs' fields are not kept: a national event's would hold every result a second
/// time.
pub(crate) fn club_fields(
    state: &EventState,
    clubs: impl IntoIterator<Item = String>,
    mut built: HashMap<String, Field>,
) -> Vec<(String, Field)> {
    use rayon::prelude::*;
    let given: Vec<(String, Option<Field>)> = clubs
        .into_iter()
        .map(|club| {
            let field = built.remove(&club);
            (club, field)
        })
        .collect();
    given
        .into_par_iter()
        .map(|(club, field)| {
            let field = field.unwrap_or_else(|| match state.club(&club) {
                Some(results) => crate::field::club_field(&club, results),
                None => Field::new(),
            });
            (club, field)
        })
        .collect()
}

/// The `BoardScored` events of a scored field.
pub(crate) fn board_events(
    event_id: &str,
    scoring: &Scoring<'_>,
    scope: &str,
    generation: i64,
) -> Vec<Event> {
    scoring
        .boards()
        .iter()
        .map(|board| {
            let table = scoring
                .board_table_lines(board)
                .map(|line| TableEntry {
                    ns_score: line.ns_score,
                    count: line.count as i32,
                    ns_value: value_to_wire(line.ns_value),
                    ew_value: value_to_wire(line.ew_value),
                })
                .collect();
            Event::BoardScored(BoardScored {
                event_id: event_id.into(),
                scope: scope.into(),
                board: i32::from(board.board),
                generation,
                results_count: board.results as i32,
                target: scoring.target() as i32,
                top: value_to_wire(scoring.top(board)),
                datum: board.datum,
                table,
                specials: specials(scoring, board),
            })
        })
        .collect()
}

/// The values of a board's results that are not plain scores, each with its result's key.
fn specials(scoring: &Scoring<'_>, board: &simpairs_scoring::BoardScore) -> Vec<SpecialValue> {
    let field = scoring.field();
    scoring
        .board_specials(board)
        .map(|(row, ns, ew)| {
            let r = field.result(row);
            let (p_ns, p_ew) = (&field.pairs()[r.ns as usize], &field.pairs()[r.ew as usize]);
            SpecialValue {
                club_id: field.club_name(p_ns.club).to_string(),
                key: ResultKey {
                    section: field.section_name(p_ns.section).into(),
                    board: i32::from(board.board),
                    ns_pair: p_ns.label.to_compact_string(),
                    ew_pair: p_ew.label.to_compact_string(),
                },
                ns_value: value_to_wire(ns),
                ew_value: value_to_wire(ew),
            }
        })
        .collect()
}

/// The `StandingsComputed` event of a club's scored field: every pair, in display order.
pub(crate) fn standings_event(
    event_id: &str,
    scoring: &Scoring<'_>,
    scope: &str,
    generation: i64,
) -> Result<StandingsComputed> {
    let field = scoring.field();
    // A club's field, of a few dozen pairs, on this thread: clubs are scored in parallel already.
    let standings = simpairs_scoring::standings::display_order(scoring)
        .into_iter()
        .map(|id| {
            let pair = &field.pairs()[id as usize];
            standing_to_wire(
                field.club_name(pair.club),
                field.section_name(pair.section),
                pair,
                &scoring.standings()[id as usize],
            )
        })
        .collect();
    let (scoring, factoring) = options_to_wire(scoring.options())?;
    Ok(StandingsComputed {
        event_id: event_id.to_string(),
        scope: scope.to_string(),
        generation,
        scoring,
        factoring,
        standings,
    })
}
