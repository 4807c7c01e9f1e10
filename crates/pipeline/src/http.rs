//! The projection's HTTP service: a JSON API and plain HTML pages of the live leaderboard.
//!
//! | path | what |
//! |---|---|
//! | `/` | national leaderboard (`?list=combined|ns|ew&offset=&limit=`) |
//! | `/club/{club}` | a club's own standings and links to its pairs |
//! | `/pair?club=&section=&pair=&direction=` | a pair's scorecard, club and national matchpoints per board |
//! | `/board/{board}?scope=` | a board's frequency table (national, or a club's) |
//! | `/api/status`, `/api/leaderboard`, `/api/clubs`, `/api/clubs/{club}`, `/api/pair`, `/api/boards/{board}` | the same as JSON |

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, RwLock};

use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use serde::{Deserialize, Serialize};
use simpairs_events::types::{Direction, Fraction, PairStanding};

use crate::project::{PairRef, Projection};

type Shared = Arc<RwLock<Projection>>;

/// The router of the projection's service.
pub fn router(projection: Shared) -> Router {
    Router::new()
        .route("/", get(page_leaderboard))
        .route("/club/{club}", get(page_club))
        .route("/pair", get(page_pair))
        .route("/board/{board}", get(page_board))
        .route("/api/status", get(api_status))
        .route("/api/leaderboard", get(api_leaderboard))
        .route("/api/clubs", get(api_clubs))
        .route("/api/clubs/{club}", get(api_club))
        .route("/api/pair", get(api_pair))
        .route("/api/boards/{board}", get(api_board))
        .with_state(projection)
}

fn read(p: &Shared) -> std::sync::RwLockReadGuard<'_, Projection> {
    p.read().unwrap_or_else(|e| e.into_inner())
}

/// Escapes text for HTML.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for a URL query value.
fn url(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

fn hundredths(h: i64) -> String {
    let sign = if h < 0 { "-" } else { "" };
    format!(
        "{sign}{}.{:02}",
        h.unsigned_abs() / 100,
        h.unsigned_abs() % 100
    )
}

fn direction_name(d: Option<Direction>) -> &'static str {
    match d {
        Some(Direction::Ns) => "NS",
        Some(Direction::Ew) => "EW",
        None => "",
    }
}

fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
<title>{t}</title><style>body{{font-family:system-ui,sans-serif;margin:1.5em;color:#222}}table{{border-collapse:collapse}}\
th,td{{padding:.2em .6em;text-align:right}}th{{background:#eef}}tr:nth-child(even){{background:#f7f7f7}}td.l,th.l{{text-align:left}}\
nav a{{margin-right:1em}}.muted{{color:#777}}</style></head><body>\n<h1>{t}</h1>\n{body}\n</body></html>\n",
        t = esc(title)
    ))
}

#[derive(Deserialize, Default)]
struct ListQuery {
    list: Option<String>,
    offset: Option<usize>,
    limit: Option<usize>,
}

fn pair_link(s: &PairStanding) -> String {
    format!(
        "/pair?club={}&section={}&pair={}&direction={}",
        url(&s.club_id),
        url(&s.section),
        url(&s.pair),
        direction_name(s.direction)
    )
}

fn standings_table<'a>(
    p: &Projection,
    rows: impl IntoIterator<Item = &'a PairStanding>,
    combined: bool,
    out: &mut String,
) {
    let mp = p
        .national
        .as_ref()
        .is_none_or(|n| n.scoring == simpairs_events::types::Scoring::Matchpoints);
    out.push_str(
        "<table><tr><th>Place</th><th class=l>Pair</th><th class=l>Club</th><th>Boards</th>",
    );
    out.push_str(if mp {
        "<th>Total</th><th>%</th></tr>\n"
    } else {
        "<th>IMPs</th></tr>\n"
    });
    for s in rows {
        let (rank, tied) = if combined {
            (s.combined_rank, s.combined_tied)
        } else {
            (s.rank, s.tied)
        };
        let names = p
            .players
            .get(&(
                s.club_id.clone(),
                s.section.clone(),
                s.pair.clone(),
                crate::state::direction_key(s.direction),
            ))
            .map(|ps| {
                ps.iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(" & ")
            })
            .unwrap_or_default();
        let label = format!(
            "{} {}{}",
            s.pair,
            direction_name(s.direction),
            if names.is_empty() {
                String::new()
            } else {
                format!(" — {names}")
            }
        );
        let club = p
            .club_names
            .get(&s.club_id)
            .cloned()
            .unwrap_or_else(|| s.club_id.clone());
        let _ = write!(
            out,
            "<tr><td>{rank}{}</td><td class=l><a href=\"{}\">{}</a></td><td class=l><a href=\"/club/{}\">{}</a></td><td>{}</td><td>{}</td>",
            if tied { "=" } else { "" },
            esc(&pair_link(s)),
            esc(&label),
            url(&s.club_id),
            esc(&club),
            s.boards,
            hundredths(s.total_hundredths),
        );
        if mp {
            let _ = write!(
                out,
                "<td>{}</td>",
                s.percent_hundredths.map(hundredths).unwrap_or_default()
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

async fn page_leaderboard(State(p): State<Shared>, Query(q): Query<ListQuery>) -> Html<String> {
    let p = read(&p);
    let list = q.list.as_deref().unwrap_or("combined");
    let (offset, limit) = (q.offset.unwrap_or(0), q.limit.unwrap_or(100).min(5000));
    let (total, rows) = p.leaderboard(list, offset, limit);
    let mut body = String::new();
    let _ = write!(
        body,
        "<p class=muted>{} clubs, {} results in; generation {} — refresh for the latest.</p>\n<nav><a href=\"/?list=combined\">Combined</a><a href=\"/?list=ns\">North-South</a><a href=\"/?list=ew\">East-West</a></nav>\n",
        p.clubs.len(),
        p.result_count(),
        p.generation()
    );
    if total == 0 {
        body.push_str("<p>No results yet: clubs are still publishing.</p>");
    } else {
        standings_table(&p, &rows, list != "ns" && list != "ew", &mut body);
        if offset + limit < total {
            let _ = write!(
                body,
                "<p><a href=\"/?list={list}&offset={}&limit={limit}\">Next {limit}</a> of {total}</p>",
                offset + limit,
            );
        }
    }
    body.push_str("<h2>Boards</h2><p>");
    for b in &p.boards {
        let _ = write!(body, "<a href=\"/board/{b}\">{b}</a> ");
    }
    body.push_str("</p>");
    let title = if p.name.is_empty() {
        p.event_id.clone()
    } else {
        p.name.clone()
    };
    page(&format!("{title} — national leaderboard"), &body)
}

async fn page_club(State(p): State<Shared>, Path(club): Path<String>) -> Response {
    let p = read(&p);
    let Some(s) = p.clubs.get(&club) else {
        return (
            StatusCode::NOT_FOUND,
            page(
                "Not found",
                &format!("<p>No results from club {} yet.</p>", esc(&club)),
            ),
        )
            .into_response();
    };
    let mut body = String::from(
        "<p><a href=\"/\">National leaderboard</a></p><h2>Club standings (club top)</h2>",
    );
    standings_table(&p, &s.standings, false, &mut body);
    let name = p.club_names.get(&club).cloned().unwrap_or(club.clone());
    page(&name, &body).into_response()
}

#[derive(Deserialize)]
struct PairQuery {
    club: String,
    #[serde(default)]
    section: String,
    pair: String,
    #[serde(default)]
    direction: String,
}

fn pair_ref(q: &PairQuery) -> PairRef {
    let d = match q.direction.to_ascii_uppercase().as_str() {
        "NS" => "NS",
        "EW" => "EW",
        _ => "",
    };
    (q.club.clone(), q.section.clone(), q.pair.clone(), d)
}

fn opt(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.2}")).unwrap_or_default()
}

async fn page_pair(State(p): State<Shared>, Query(q): Query<PairQuery>) -> Response {
    let p = read(&p);
    let Some(card) = p.scorecard(&pair_ref(&q)) else {
        return (
            StatusCode::NOT_FOUND,
            page("Not found", "<p>No such pair.</p>"),
        )
            .into_response();
    };
    let mut body = format!(
        "<p><a href=\"/\">National leaderboard</a> · <a href=\"/club/{}\">{}</a></p><p>{}</p>",
        url(&card.club),
        esc(&card.club_name),
        esc(&card.players.join(" & "))
    );
    for (what, s) in [("National", &card.national), ("Club", &card.club_standing)] {
        if let Some(s) = s {
            let _ = write!(
                body,
                "<p>{what}: place {}{} with {} ({}%)</p>",
                s.rank,
                if s.tied { "=" } else { "" },
                hundredths(s.total_hundredths),
                s.percent_hundredths.map(hundredths).unwrap_or_default()
            );
        }
    }
    body.push_str("<table><tr><th>Board</th><th>Dir</th><th>Opp</th><th class=l>Contract</th><th>NS score</th><th>Club</th><th>of</th><th>National</th><th>of</th></tr>\n");
    for l in &card.lines {
        let contract = match (&l.adjusted, &l.contract) {
            (Some(a), _) => format!("adjusted {a}"),
            (None, Some(c)) => format!(
                "{c} {} {}",
                l.declarer.clone().unwrap_or_default(),
                l.tricks.map(|t| t.to_string()).unwrap_or_default()
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            body,
            "<tr><td><a href=\"/board/{b}\">{b}</a></td><td>{}</td><td>{}</td><td class=l>{}</td><td>{}</td><td>{}</td><td class=muted>{}</td><td>{}</td><td class=muted>{}</td></tr>",
            l.direction,
            esc(&l.opponents),
            esc(&contract),
            l.ns_score.map(|s| s.to_string()).unwrap_or_default(),
            opt(l.club_value),
            opt(l.club_top),
            opt(l.national_value),
            opt(l.national_top),
            b = l.board
        );
    }
    body.push_str("</table>");
    page(
        &format!("Pair {} {} — scorecard", card.pair, card.direction),
        &body,
    )
    .into_response()
}

#[derive(Deserialize, Default)]
struct ScopeQuery {
    scope: Option<String>,
}

fn frac(f: Fraction) -> f64 {
    if f.den == 0 {
        0.0
    } else {
        f.num as f64 / f.den as f64
    }
}

async fn page_board(
    State(p): State<Shared>,
    Path(board): Path<i32>,
    Query(q): Query<ScopeQuery>,
) -> Response {
    let p = read(&p);
    let scope = q.scope.unwrap_or_default();
    let Some(b) = p.board_scores.get(&(scope.clone(), board)) else {
        return (
            StatusCode::NOT_FOUND,
            page(
                "Not found",
                &format!("<p>Board {board} has no scores yet.</p>"),
            ),
        )
            .into_response();
    };
    let mut body = format!(
        "<p><a href=\"/\">National leaderboard</a></p><p>{} results; top {:.2}{}</p>\n<table><tr><th>NS score</th><th>Tables</th><th>NS</th><th>EW</th></tr>\n",
        b.results_count,
        frac(b.top),
        b.datum.map(|d| format!("; datum {d}")).unwrap_or_default()
    );
    for e in b.table.iter().rev() {
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td></tr>",
            e.ns_score,
            e.count,
            frac(e.ns_value),
            frac(e.ew_value)
        );
    }
    body.push_str("</table>");
    if !b.specials.is_empty() {
        body.push_str("<h2>Adjusted, split, arrow-switched and fouled results</h2><table><tr><th class=l>Club</th><th>NS</th><th>EW</th><th>NS value</th><th>EW value</th></tr>\n");
        for s in &b.specials {
            let _ = writeln!(
                body,
                "<tr><td class=l>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td></tr>",
                esc(&s.club_id),
                esc(&s.key.ns_pair),
                esc(&s.key.ew_pair),
                frac(s.ns_value),
                frac(s.ew_value)
            );
        }
        body.push_str("</table>");
    }
    let scope_name = if scope.is_empty() {
        "national".to_string()
    } else {
        format!("club {scope}")
    };
    page(&format!("Board {board} ({scope_name})"), &body).into_response()
}

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
}

async fn api_status(State(p): State<Shared>) -> Json<Status> {
    let p = read(&p);
    Json(Status {
        event: p.event_id.clone(),
        name: p.name.clone(),
        generation: p.generation(),
        clubs: p.clubs.len(),
        results: p.result_count(),
        submissions: p.submissions(),
        dead_letters: p.dead_letters,
        updated_ms: p.updated_ms,
    })
}

#[derive(Serialize)]
struct Leaderboard<'a> {
    generation: i64,
    list: &'a str,
    total: usize,
    offset: usize,
    rows: Vec<PairStanding>,
}

async fn api_leaderboard(State(p): State<Shared>, Query(q): Query<ListQuery>) -> Response {
    let p = read(&p);
    let list = q.list.as_deref().unwrap_or("combined");
    if !["combined", "ns", "ew"].contains(&list) {
        return (StatusCode::BAD_REQUEST, "list is combined, ns or ew").into_response();
    }
    let (offset, limit) = (q.offset.unwrap_or(0), q.limit.unwrap_or(100).min(10_000));
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

async fn api_clubs(State(p): State<Shared>) -> Json<BTreeMap<String, serde_json::Value>> {
    let p = read(&p);
    Json(
        p.club_names
            .iter()
            .map(|(id, name)| {
                let pairs = p.clubs.get(id).map_or(0, |s| s.standings.len());
                (id.clone(), serde_json::json!({ "name": name, "pairs": pairs, "in": p.clubs.contains_key(id) }))
            })
            .collect(),
    )
}

async fn api_club(State(p): State<Shared>, Path(club): Path<String>) -> Response {
    let p = read(&p);
    match p.clubs.get(&club) {
        Some(s) => Json(s.clone()).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            format!("no results from club {club} yet"),
        )
            .into_response(),
    }
}

async fn api_pair(State(p): State<Shared>, Query(q): Query<PairQuery>) -> Response {
    let p = read(&p);
    match p.scorecard(&pair_ref(&q)) {
        Some(card) => Json(card).into_response(),
        None => (StatusCode::NOT_FOUND, "no such pair").into_response(),
    }
}

async fn api_board(
    State(p): State<Shared>,
    Path(board): Path<i32>,
    Query(q): Query<ScopeQuery>,
) -> Response {
    let p = read(&p);
    match p.board_scores.get(&(q.scope.unwrap_or_default(), board)) {
        Some(b) => Json(b.clone()).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            format!("board {board} has no scores yet"),
        )
            .into_response(),
    }
}
