//! The JSON API (the shapes of the projection's former service, kept for the clients that read
//! them), with `/api/status` saying whether the results are live, still being read, or stopped
//! by an error.
//!
//! | path | what |
//! |---|---|
//! | `/api/status` | event, generation, clubs, results, submissions, dead letters, state |
//! | `/api/leaderboard?list=combined\|ns\|ew&offset=&limit=` | a page of a national list |
//! | `/api/clubs`, `/api/clubs/{club}` | the clubs; one club's own standings |
//! | `/api/pair?club=&section=&pair=&dir=` | a pair's scorecard (`direction=` too) |
//! | `/api/boards/{board}?scope=` | a board's scores (national, or a club's) |
//! | `/api/movement?top=&club=&pair=&section=&dir=` | places and percentages after each generation |
//! | `/api/compare?a_scoring=&a_factoring=&a_conventions=&a=&b_...&offset=&limit=` | two scorings side by side (`places_gained`: up the rankings) |
//! | `/api/player/{national_id}` | a player's season |

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use simpairs_events::types::PairStanding;
use simpairs_pipeline::views::text;

use crate::health::State as Health;
use crate::params::Params;
use crate::site::Site;

/// The most rows `/api/leaderboard` gives at once.
const MAX_ROWS: usize = 10_000;

#[derive(Serialize)]
struct Status {
    event: String,
    name: String,
    generation: i64,
    clubs: usize,
    results: usize,
    submissions: usize,
    dead_letters: usize,
    updated_ms: i64,
    /// When the organiser closed the event (its results are final), or null while it is open.
    closed_ms: Option<i64>,
    /// `live`, `reading` (catching up with the log) or `failed`.
    state: &'static str,
    /// Why the results stopped updating, when they did.
    error: Option<String>,
}

pub async fn status(State(site): State<Site>) -> Response {
    let (state, error) = match site.health.state() {
        Health::Live => ("live", None),
        Health::Reading => ("reading", None),
        Health::Failed(e) => ("failed", Some(e)),
    };
    let code = if error.is_some() {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    };
    let p = site.projection();
    let body = Status {
        event: p.event_id.clone(),
        name: text::display_name(&p.name),
        generation: p.generation(),
        clubs: p.clubs_in_force(),
        results: p.result_count(),
        submissions: p.submissions(),
        dead_letters: p.dead_letters,
        updated_ms: p.updated_ms,
        closed_ms: p.closed_ms(),
        state,
        error,
    };
    (code, Json(body)).into_response()
}

#[derive(Serialize)]
struct Leaderboard<'a> {
    generation: i64,
    list: &'a str,
    total: usize,
    offset: usize,
    rows: Vec<PairStanding>,
}

fn bad(what: &'static str) -> Response {
    (StatusCode::BAD_REQUEST, what).into_response()
}

pub async fn leaderboard(State(site): State<Site>, params: Params) -> Response {
    let Ok(list) = params.choice("list", &["combined", "ns", "ew"], "combined, ns or ew") else {
        return bad("list is combined, ns or ew");
    };
    let (Ok(offset), Ok(limit)) = (
        params.number("offset", usize::MAX / 2),
        params.number("limit", MAX_ROWS),
    ) else {
        return bad("offset and limit are whole numbers");
    };
    let list = list.unwrap_or("combined");
    let (offset, limit) = (offset.unwrap_or(0), limit.unwrap_or(100));
    let p = site.projection();
    let (total, rows) = p.leaderboard(list, offset, limit);
    Json(Leaderboard {
        generation: p.generation(),
        list,
        total,
        offset,
        rows,
    })
    .into_response()
}

pub async fn clubs(State(site): State<Site>) -> Json<BTreeMap<String, serde_json::Value>> {
    let p = site.projection();
    let catalog = site.catalog();
    Json(
        p.club_names
            .iter()
            .map(|(id, name)| {
                let pairs = p.clubs.get(id).map_or(0, |s| s.standings.len());
                let withdrawn = catalog.clubs().get(id).is_some_and(|c| c.withdrawn());
                let entry = serde_json::json!({
                    "name": text::display_name(name),
                    "pairs": pairs,
                    "in": p.clubs.contains_key(id) && !withdrawn,
                    "withdrawn": withdrawn,
                });
                (id.clone(), entry)
            })
            .collect(),
    )
}

pub async fn club(State(site): State<Site>, Path(club): Path<String>) -> Response {
    let p = site.projection();
    match p.clubs.get(&club) {
        Some(s) => Json(s.clone()).into_response(),
        None => (StatusCode::NOT_FOUND, "no results from this club yet").into_response(),
    }
}

pub async fn pair(State(site): State<Site>, params: Params) -> Response {
    let (Ok(Some(club)), Ok(section), Ok(Some(number)), Ok(direction)) = (
        params.text("club"),
        params.text("section"),
        params.text("pair"),
        params
            .choice("direction", &["NS", "EW"], "NS or EW")
            .and_then(|d| Ok(d.or(params.choice("dir", &["NS", "EW"], "NS or EW")?))),
    ) else {
        return bad("club and pair are needed; dir (or direction) is NS or EW");
    };
    let pair = simpairs_pipeline::PairKey::new(
        club,
        section.unwrap_or(""),
        number,
        direction.unwrap_or(""),
    );
    let p = site.projection();
    match p.scorecard(&pair) {
        Some(mut card) => {
            // Names are cut for display here too: a response never carries a 20 MB name.
            card.players = card.players.iter().map(|n| text::display_name(n)).collect();
            card.club_name = text::display_name(&card.club_name);
            Json(card).into_response()
        }
        None => (StatusCode::NOT_FOUND, "no such pair").into_response(),
    }
}

pub async fn board(
    State(site): State<Site>,
    Path(board): Path<String>,
    params: Params,
) -> Response {
    let (Ok(board), Ok(scope)) = (board.parse::<i32>(), params.text("scope")) else {
        return bad("a board is a number");
    };
    let p = site.projection();
    match p
        .board_scores
        .get(&(scope.unwrap_or("").to_string(), board))
    {
        Some(b) => Json(b.clone()).into_response(),
        None => (StatusCode::NOT_FOUND, "this board has no scores yet").into_response(),
    }
}

/// An analysts' figure that cannot be given now, as JSON: still being computed (503 with
/// `Retry-After`), no log, or why not.
fn unavailable(why: &crate::analysts::Unavailable) -> Response {
    let mut response = (
        crate::pages::errors::unavailable_status(why),
        Json(serde_json::json!({ "error": why.to_string() })),
    )
        .into_response();
    if matches!(why, crate::analysts::Unavailable::Busy) {
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from_static("5"),
        );
    }
    response
}

/// A parameter that is wrong, named (never its value).
fn bad_param(bad: crate::params::BadParam) -> Response {
    let message = format!("{} should be {}", bad.name, bad.expected);
    (
        StatusCode::BAD_REQUEST,
        Json(serde_json::json!({ "error": message })),
    )
        .into_response()
}

/// Names cut for display, as everywhere in the API.
fn cut(names: &[String]) -> Vec<String> {
    names.iter().map(|n| text::display_name(n)).collect()
}

/// `/api/movement?top=&club=&pair=&section=&dir=`: the leading pairs' (and a pair's) place and
/// percentage after each generation, as `simpairs_analysis::movement` computes them.
pub async fn movement(State(site): State<Site>, params: Params) -> Response {
    use crate::pages::movement::{Refused, history, read};
    let ask = match read(&site, &params) {
        Ok(ask) => ask,
        Err(Refused::Bad(b)) => return bad_param(b),
        Err(Refused::NoPair) => {
            return (
                StatusCode::NOT_FOUND,
                Json(serde_json::json!({ "error": "no such pair" })),
            )
                .into_response();
        }
    };
    match history(&site, &ask).await {
        Ok(h) => {
            let mut h = (*h).clone();
            h.name = text::display_name(&h.name);
            for p in &mut h.pairs {
                p.players = cut(&p.players);
            }
            Json(h).into_response()
        }
        Err(why) => unavailable(&why),
    }
}

#[derive(Serialize)]
struct ComparePage<'a> {
    event: &'a str,
    a: &'a simpairs_analysis::compare::SideSummary,
    b: &'a simpairs_analysis::compare::SideSummary,
    unchanged: usize,
    /// Pairs that change, in all.
    total: usize,
    offset: usize,
    changed: Vec<ChangeShown>,
}

/// A pair that changes, with its move read up the rankings as a gain (`places_gained`, as
/// `simpairs compare --json` gives it) beside `place_change` (positive: down the list).
#[derive(Serialize)]
struct ChangeShown {
    #[serde(flatten)]
    change: simpairs_analysis::compare::Change,
    places_gained: Option<i64>,
}

/// `/api/compare?a=&b=&a_scoring=&...&offset=&limit=`: two scorings side by side, a page of the
/// pairs that change, largest change first (`simpairs_analysis::compare`).
pub async fn compare(State(site): State<Site>, params: Params) -> Response {
    let ask = match crate::pages::compare::read(&params) {
        Ok(ask) => ask,
        Err(b) => return bad_param(b),
    };
    match crate::pages::compare::comparison(&site, &ask).await {
        Ok(c) => Json(ComparePage {
            event: &c.event,
            a: &c.a,
            b: &c.b,
            unchanged: c.unchanged,
            total: c.changed.len(),
            offset: ask.offset,
            changed: c
                .changed
                .iter()
                .skip(ask.offset)
                .take(ask.limit)
                .map(|x| ChangeShown {
                    places_gained: x.places_gained(),
                    change: simpairs_analysis::compare::Change {
                        players: cut(&x.players),
                        ..x.clone()
                    },
                })
                .collect(),
        })
        .into_response(),
        Err(why) => unavailable(&why),
    }
}

/// `/api/player/{national_id}`: the player's season (`simpairs_analysis::season`).
pub async fn player(State(site): State<Site>, Path(id): Path<String>) -> Response {
    let id = match crate::pages::player::read(&id) {
        Ok(id) => id,
        Err(b) => return bad_param(b),
    };
    match crate::pages::player::season(&site, id).await {
        // As the page: an ID nobody has is not repeated back.
        Ok(h) if h.events.is_empty() => (
            StatusCode::NOT_FOUND,
            Json(serde_json::json!({ "error": "no player with this national id" })),
        )
            .into_response(),
        Ok(h) => {
            let mut h = (*h).clone();
            h.names = cut(&h.names);
            for e in &mut h.events {
                e.name = text::display_name(&e.name);
                e.event_name = text::display_name(&e.event_name);
                e.club_name = text::display_name(&e.club_name);
                for p in &mut e.partners {
                    p.name = text::display_name(&p.name);
                }
            }
            Json(h).into_response()
        }
        Err(why) => unavailable(&why),
    }
}
