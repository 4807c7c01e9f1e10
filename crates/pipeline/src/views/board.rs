//! A board as players look at it after the session: its traveller (every table's pairs by name,
//! contract, declarer, lead, result, score, and what each side earned nationally and in its club,
//! with percentages) and its frequency table, in the national field or in one club's.
//!
//! A national board has a line for every table of every club (a hundred thousand on a large
//! event), so the national traveller is read a page at a time: the catalog's tables per board per
//! club find the clubs a page starts and ends in, and only their results are read.

use simpairs_events::types::{AppliedResult, Player};
use simpairs_scoring::{Seat, Vulnerability};

use crate::PairKey;
use crate::project::Projection;
use crate::results::SinceFirst;
use crate::views::result::{Correction, Marks, result_text};
use crate::views::{Catalog, Value, club_name, players_of};

/// The field a board is shown in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    National,
    Club(String),
}

impl Scope {
    /// The scope's key in the projection's board scores (`""` is national).
    pub fn key(&self) -> &str {
        match self {
            Scope::National => "",
            Scope::Club(c) => c,
        }
    }
}

/// One score of the frequency table.
#[derive(Clone, Debug, PartialEq)]
pub struct Frequency {
    pub ns_score: i32,
    pub count: i32,
    pub ns: Value,
    pub ew: Value,
}

/// One table of the traveller.
#[derive(Clone, Debug, PartialEq)]
pub struct TravellerLine {
    pub club: String,
    pub club_name: String,
    pub ns: PairKey,
    pub ns_players: Vec<Player>,
    pub ew: PairKey,
    pub ew_players: Vec<Player>,
    pub contract: Option<String>,
    pub declarer: Option<String>,
    pub lead: Option<String>,
    pub result: Option<String>,
    pub ns_score: Option<i32>,
    /// EW's own score when it is not the opposite of NS's (a split score).
    pub ew_score: Option<i32>,
    pub marks: Marks,
    /// (NS, EW) nationally and in the club's field.
    pub national: Option<(Value, Value)>,
    pub in_club: Option<(Value, Value)>,
    /// What the club's first upload gave for this table, when a later submission corrected it
    /// (its score to NS).
    pub correction: Option<Correction>,
}

/// A board in one field.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardView {
    pub board: i32,
    pub scope: Scope,
    pub dealer: Seat,
    pub vulnerability: Vulnerability,
    /// Results in the field.
    pub results: i32,
    pub top: Option<Value>,
    pub datum: Option<i32>,
    pub frequency: Vec<Frequency>,
    /// Lines outside the frequency table (adjusted, split, arrow-switched, fouled).
    pub specials: usize,
    /// Tables in the traveller shown (all clubs, or the club asked for).
    pub traveller_total: usize,
    pub offset: usize,
    pub traveller: Vec<TravellerLine>,
    pub imps: bool,
}

/// The opening lead of a result, when the club gave it, cut for display.
pub(crate) fn lead_of(r: &AppliedResult) -> Option<String> {
    r.lead.as_deref().map(crate::views::text::display_name)
}

fn side_ref(club: &str, r: &AppliedResult, ns: bool) -> PairKey {
    let dir = match (r.movement, ns) {
        (simpairs_events::types::Movement::Howell, _) => "",
        (_, true) => "NS",
        (_, false) => "EW",
    };
    let label = if ns { &r.ns_pair } else { &r.ew_pair };
    PairKey::new(club, r.section.to_string(), label.to_string(), dir)
}

fn values(p: &Projection, scope: &str, club: &str, r: &AppliedResult) -> Option<(Value, Value)> {
    let (ns, ew) = p.result_values(scope, club, r)?;
    let top = p.board_scores.get(&(scope.to_string(), r.board))?.top;
    Some((Value { value: ns, top }, Value { value: ew, top }))
}

fn traveller_line(
    p: &Projection,
    club: &str,
    r: &AppliedResult,
    since: SinceFirst<'_>,
) -> TravellerLine {
    let (ns, ew) = (side_ref(club, r, true), side_ref(club, r, false));
    TravellerLine {
        club: club.to_string(),
        club_name: club_name(p, club),
        ns_players: players_of(p, &ns),
        ew_players: players_of(p, &ew),
        ns,
        ew,
        contract: r.contract.as_deref().map(crate::views::text::display_name),
        declarer: r
            .declarer
            .as_deref()
            .map(|d| crate::views::text::truncate(d, 1).to_string()),
        lead: lead_of(r),
        result: result_text(r),
        ns_score: r.ns_score,
        ew_score: r.ew_score.filter(|&ew| Some(-ew) != r.ns_score),
        marks: Marks::of(r),
        national: values(p, "", club, r),
        in_club: values(p, club, club, r),
        correction: Correction::of(since, true),
    }
}

/// One club's lines of a board, best NS score first (adjusted lines last).
fn club_lines(p: &Projection, club: &str, board: i32) -> Vec<TravellerLine> {
    let mut lines: Vec<TravellerLine> = p
        .club_results_since_first(club, |r| r.board == board)
        .map(|(r, since)| traveller_line(p, club, r, since))
        .collect();
    lines.sort_by_key(|l| (l.ns_score.is_none(), std::cmp::Reverse(l.ns_score)));
    lines
}

/// Lines `offset..offset + limit` of the national traveller, club by club.
fn national_lines(
    p: &Projection,
    catalog: &Catalog,
    board: i32,
    offset: usize,
    limit: usize,
) -> (usize, Vec<TravellerLine>) {
    let mut total = 0usize;
    let mut out = Vec::new();
    for (club, info) in catalog.clubs() {
        let tables = info.tables.get(&board).copied().unwrap_or(0) as usize;
        let (start, end) = (total, total + tables);
        total = end;
        if tables == 0 || end <= offset || start >= offset + limit {
            continue;
        }
        let lines = club_lines(p, club, board);
        let from = offset.saturating_sub(start);
        let take = (offset + limit).min(end) - start.max(offset);
        out.extend(lines.into_iter().skip(from).take(take));
    }
    (total, out)
}

fn frequency(
    p: &Projection,
    scope: &Scope,
    board: i32,
) -> (Vec<Frequency>, usize, Option<Value>, Option<i32>, i32) {
    let Some(b) = p.board_scores.get(&(scope.key().to_string(), board)) else {
        return (Vec::new(), 0, None, None, 0);
    };
    let rows = b
        .table
        .iter()
        .rev()
        .map(|e| Frequency {
            ns_score: e.ns_score,
            count: e.count,
            ns: Value {
                value: e.ns_value,
                top: b.top,
            },
            ew: Value {
                value: e.ew_value,
                top: b.top,
            },
        })
        .collect();
    let top = Value {
        value: b.top,
        top: b.top,
    };
    (rows, b.specials.len(), Some(top), b.datum, b.results_count)
}

/// What to show of a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardQuery {
    pub board: i32,
    pub scope: Scope,
    /// Only this club's tables in the traveller (a club scope implies it).
    pub club: Option<String>,
    pub offset: usize,
    pub limit: usize,
}

/// A board in one field, with a page of its traveller; `None` if the event has no such board.
pub fn board_view(p: &Projection, catalog: &Catalog, q: &BoardQuery) -> Option<BoardView> {
    if !p.boards.contains(&q.board) && !p.board_scores.contains_key(&(String::new(), q.board)) {
        return None;
    }
    let (frequency, specials, top, datum, results) = frequency(p, &q.scope, q.board);
    let club = match &q.scope {
        Scope::Club(c) => Some(c.as_str()),
        Scope::National => q.club.as_deref(),
    };
    let (traveller_total, traveller) = match club {
        Some(c) => {
            let lines = club_lines(p, c, q.board);
            let total = lines.len();
            (
                total,
                lines.into_iter().skip(q.offset).take(q.limit).collect(),
            )
        }
        None => national_lines(p, catalog, q.board, q.offset, q.limit),
    };
    let number = u32::try_from(q.board).unwrap_or(1);
    Some(BoardView {
        board: q.board,
        scope: q.scope.clone(),
        dealer: simpairs_scoring::contract::dealer_of_board(number),
        vulnerability: Vulnerability::of_board(number),
        results,
        top,
        datum,
        frequency,
        specials,
        traveller_total,
        offset: q.offset.min(traveller_total),
        traveller,
        imps: crate::views::is_imps(p),
    })
}
