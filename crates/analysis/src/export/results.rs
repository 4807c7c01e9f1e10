//! The results table: every result in force with its club, pairs and players, what was played
//! (contract, declarer, tricks, lead, score), the board's par and the score's distance from it, and
//! its national and club figures: matchpoints, top and percentages in matchpoint scoring; IMPs
//! (and, for Butler, the board's datum) in IMP scoring. Each kind has columns of its own, named
//! for its unit, and the other kind's are empty: an IMP is never in a column named `_mp`.

use std::path::Path;

use rayon::prelude::*;
use simpairs_events::types::{AppliedResult, Movement, Player, SubmissionApplied};
use simpairs_pipeline::history::InForce;
use simpairs_scoring::{Method, Options, Scoring};

use super::Context;
use super::fields::{ClubPart, club_parts, national};
use super::table::{Format, Kind, Table, Written};
use crate::Result;
use crate::figures::number;

const COLUMNS: &[(&str, Kind)] = &[
    ("event", Kind::Text),
    ("generation", Kind::Int),
    ("submission", Kind::Text),
    ("club", Kind::Text),
    ("club_name", Kind::Text),
    ("section", Kind::Text),
    ("board", Kind::Int),
    ("ns_pair", Kind::Text),
    ("ew_pair", Kind::Text),
    ("movement", Kind::Text),
    ("ns_players", Kind::Text),
    ("ns_player1", Kind::Text),
    ("ns_player1_id", Kind::Text),
    ("ns_player2", Kind::Text),
    ("ns_player2_id", Kind::Text),
    ("ew_players", Kind::Text),
    ("ew_player1", Kind::Text),
    ("ew_player1_id", Kind::Text),
    ("ew_player2", Kind::Text),
    ("ew_player2_id", Kind::Text),
    ("contract", Kind::Text),
    ("declarer", Kind::Text),
    ("tricks", Kind::Int),
    ("lead", Kind::Text),
    ("ns_score", Kind::Int),
    ("ew_score", Kind::Int),
    ("par_ns_score", Kind::Int),
    ("ns_score_minus_par", Kind::Int),
    ("adjusted", Kind::Text),
    ("arrow_switch", Kind::Flag),
    ("fouled_group", Kind::Text),
    ("national_ns_mp", Kind::Float),
    ("national_ew_mp", Kind::Float),
    ("national_top", Kind::Float),
    ("national_ns_percent", Kind::Float),
    ("national_ew_percent", Kind::Float),
    ("national_ns_imps", Kind::Float),
    ("national_ew_imps", Kind::Float),
    ("national_datum", Kind::Int),
    ("club_ns_mp", Kind::Float),
    ("club_ew_mp", Kind::Float),
    ("club_top", Kind::Float),
    ("club_ns_percent", Kind::Float),
    ("club_ew_percent", Kind::Float),
    ("club_ns_imps", Kind::Float),
    ("club_ew_imps", Kind::Float),
    ("club_datum", Kind::Int),
    ("applied_at", Kind::Time),
];

/// A result's figures in one field.
#[derive(Clone, Copy, Debug)]
enum Values {
    /// Matchpoints to NS and to EW, and the board's top.
    Matchpoints { ns: f64, ew: f64, top: Option<f64> },
    /// IMPs to NS and to EW, and the board's Butler datum (none in cross-IMPs).
    Imps {
        ns: f64,
        ew: f64,
        datum: Option<i32>,
    },
}

/// The values of a field row.
fn values(scoring: &Scoring<'_>, row: usize) -> Values {
    let (ns, ew) = scoring.result_values(row);
    let (ns, ew) = (number(ns), number(ew));
    let board = scoring.board(scoring.field().board_of(row));
    match scoring.options().method {
        Method::Matchpoints => Values::Matchpoints {
            ns,
            ew,
            top: board.map(|b| number(scoring.top(b))),
        },
        _ => Values::Imps {
            ns,
            ew,
            datum: board.and_then(|b| b.datum),
        },
    }
}

fn percent(v: f64, top: Option<f64>) -> Option<f64> {
    top.filter(|t| *t > 0.0).map(|t| v / t * 100.0)
}

/// Writes one field's columns (`_mp`, `_top`, `_percent`, `_imps`, `_datum`) of a result. A
/// result of a fouled group was played on another deal than the board's, so the board's datum
/// is not the one it was scored against: its datum is empty.
fn figure_columns(table: &mut Table, values: Option<Values>, fouled: bool) {
    let (mp, imps) = match values {
        Some(Values::Matchpoints { ns, ew, top }) => (Some((ns, ew, top)), None),
        Some(Values::Imps { ns, ew, datum }) => (None, Some((ns, ew, datum))),
        None => (None, None),
    };
    table
        .float(mp.map(|m| m.0))
        .float(mp.map(|m| m.1))
        .float(mp.and_then(|m| m.2))
        .float(mp.and_then(|(ns, _, top)| percent(ns, top)))
        .float(mp.and_then(|(_, ew, top)| percent(ew, top)))
        .float(imps.map(|i| i.0))
        .float(imps.map(|i| i.1))
        .int(imps.and_then(|i| i.2).filter(|_| !fouled).map(i64::from));
}

/// Writes the results table of the results in force.
pub fn write(
    dir: &Path,
    format: Format,
    cx: &Context<'_>,
    in_force: &InForce,
    options: &Options,
) -> Result<Written> {
    let clubs: Vec<(&str, Vec<(&AppliedResult, &SubmissionApplied)>)> = in_force
        .clubs()
        .iter()
        .map(|(club, results)| (club.as_str(), results.iter_sourced().collect()))
        .collect();
    let parts = club_parts(clubs);
    let (field, starts) = national(&parts);
    let national = simpairs_scoring::score(&field, options)?;
    let own: Vec<Scoring<'_>> = parts
        .par_iter()
        .map(|p| simpairs_scoring::score(&p.field, options))
        .collect::<Result<_, _>>()?;
    let mut table = Table::create(dir, "results", format, COLUMNS)?;
    for ((part, start), club_scoring) in parts.iter().zip(starts).zip(&own) {
        for (i, (r, from)) in part.results.iter().enumerate() {
            let row = part.rows[i].map(|row| row as usize);
            let nat = row.map(|row| values(&national, start + row));
            let club = row.map(|row| values(club_scoring, row));
            row_of(&mut table, cx, in_force, part, r, from, nat, club)?;
        }
    }
    table.finish()
}

/// The players of a pair: their names joined, then the first two names and national ids.
fn players<'a>(
    in_force: &'a InForce,
    club: &str,
    r: &AppliedResult,
    ns: bool,
) -> Option<&'a Vec<Player>> {
    let (pair, direction) = match (ns, r.movement) {
        (true, Movement::Mitchell) => (&r.ns_pair, "NS"),
        (false, Movement::Mitchell) => (&r.ew_pair, "EW"),
        (true, Movement::Howell) => (&r.ns_pair, ""),
        (false, Movement::Howell) => (&r.ew_pair, ""),
    };
    in_force.pairs().get(&simpairs_pipeline::PairKey::new(
        club,
        r.section.to_string(),
        pair.to_string(),
        direction,
    ))
}

fn player_columns(table: &mut Table, players: Option<&Vec<Player>>) {
    let players = players.map(Vec::as_slice).unwrap_or_default();
    let joined = players
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(" & ");
    table.text((!joined.is_empty()).then_some(joined.as_str()));
    for k in 0..2 {
        let p = players.get(k);
        table.text(p.map(|p| p.name.as_str()));
        table.text(p.and_then(|p| p.national_id.as_deref()));
    }
}

/// The board's par to NS and the NS score's distance from it. Both are empty when the deal is
/// not known whole, and for a result that was not played on it: an adjusted (artificial) score,
/// a table that did not play, or a fouled board (its group played another deal).
fn par_columns(cx: &Context<'_>, r: &AppliedResult) -> (Option<i64>, Option<i64>) {
    let ns_score = r.ns_score.or(r.ew_score.map(|ew| -ew));
    let played = r.adjusted.is_none() && r.group.is_none() && ns_score.is_some();
    let par = cx
        .double_dummy(r.board)
        .filter(|_| played)
        .map(|dd| i64::from(dd.par.ns_score));
    let from_par = par.zip(ns_score).map(|(par, ns)| i64::from(ns) - par);
    (par, from_par)
}

#[allow(clippy::too_many_arguments)]
fn row_of(
    table: &mut Table,
    cx: &Context<'_>,
    in_force: &InForce,
    part: &ClubPart<'_>,
    r: &AppliedResult,
    from: &SubmissionApplied,
    nat: Option<Values>,
    club: Option<Values>,
) -> Result<()> {
    let generation = cx.generation_of(part.club, &from.submission_id);
    table
        .text(Some(cx.event))
        .int(generation.map(|g| g.generation))
        .text(Some(&from.submission_id))
        .text(Some(part.club))
        .text(Some(cx.club_name(part.club)))
        .text(Some(&r.section))
        .int(Some(i64::from(r.board)))
        .text(Some(&r.ns_pair))
        .text(Some(&r.ew_pair))
        .text(Some(match r.movement {
            Movement::Mitchell => "mitchell",
            Movement::Howell => "howell",
        }));
    player_columns(table, players(in_force, part.club, r, true));
    player_columns(table, players(in_force, part.club, r, false));
    let adjusted = r
        .adjusted
        .map(|a| format!("{}/{}", a.ns_percent, a.ew_percent));
    table
        .text(r.contract.as_deref())
        .text(r.declarer.as_deref())
        .int(r.tricks.map(i64::from))
        .text(r.lead.as_deref())
        .int(r.ns_score.map(i64::from))
        .int(r.ew_score.map(i64::from));
    let (par, from_par) = par_columns(cx, r);
    table
        .int(par)
        .int(from_par)
        .text(adjusted.as_deref())
        .flag(Some(r.arrow_switch))
        .text(r.group.as_deref());
    for values in [nat, club] {
        figure_columns(table, values, r.group.is_some());
    }
    table.time(generation.map(|g| g.applied_at_ms));
    table.end_row()
}
