//! The clubs: every club of the event with whether its results are in and when, and each club's
//! own page: its ranking (club top), North-South and East-West apart, each pair's national place
//! beside its club place, and its travellers.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::views::rankings::{List, Row, club_ranking};
use simpairs_pipeline::views::{Catalog, club_name, is_imps, text};

use crate::pages::fmt;
use crate::pages::layout::{Frame, page, pager};
use crate::params::{MAX_LIMIT, Params, enc};
use crate::site::Site;

/// `text` as club names compare: accents, case, spaces and punctuation ignored.
pub(crate) fn name_key(text: &str) -> String {
    simpairs_pipeline::views::fold::fold(text)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

/// The club id `text` names in any case (`c0005` is `C0005`), if the event has such a club.
pub(crate) fn club_id_any_case(p: &Projection, catalog: &Catalog, text: &str) -> Option<String> {
    if simpairs_pipeline::views::resolve::is_club(p, text) {
        return Some(text.to_string());
    }
    p.club_names
        .keys()
        .chain(catalog.clubs().keys())
        .find(|id| id.eq_ignore_ascii_case(text))
        .cloned()
}

/// The club a reader typed: its id in any case, or a name that names one club. A name that is
/// a club's whole name wins over the clubs it begins (`Tauranga Bridge Club` is not `Tauranga
/// Bridge Club 2`).
pub(crate) fn club_named(p: &Projection, catalog: &Catalog, text: &str) -> Option<String> {
    if let Some(id) = club_id_any_case(p, catalog, text) {
        return Some(id);
    }
    let found = catalog.search().search(text).clubs;
    if let [one] = found.as_slice() {
        return Some(one.club.clone());
    }
    let key = name_key(text);
    let exact: Vec<&str> = found
        .iter()
        .filter(|c| name_key(&club_name(p, &c.club)) == key || name_key(&c.name) == key)
        .map(|c| c.club.as_str())
        .collect();
    match exact.as_slice() {
        [one] => Some(one.to_string()),
        _ => None,
    }
}

/// Clubs listed per page.
const PAGE: usize = 100;

pub async fn clubs(State(site): State<Site>, params: Params) -> Response {
    let (offset, limit) = match (
        params.number("offset", usize::MAX / 2),
        params.number("limit", MAX_LIMIT),
    ) {
        (Ok(o), Ok(l)) => (o.unwrap_or(0), l.unwrap_or(PAGE).max(1)),
        (Err(bad), _) | (_, Err(bad)) => return crate::pages::errors::bad_param(&site, bad),
    };
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(&site, &p, &catalog);
    // Declared clubs by name, then any club with results that the declaration does not name.
    let mut all: Vec<(String, &str)> = p
        .club_names
        .iter()
        .map(|(id, n)| (text::display_name(n), id.as_str()))
        .collect();
    all.extend(
        catalog
            .clubs()
            .keys()
            .filter(|c| !p.club_names.contains_key(*c))
            .map(|c| (c.clone(), c.as_str())),
    );
    all.sort();
    let total = all.len();
    let body = html! {
        div data-live="clubs" {
            table {
                caption { "Clubs " (offset.min(total) + 1) " to " ((offset + limit).min(total)) " of " (total) ", by name" }
                thead { tr {
                    th.l scope="col" { "Club" }
                    th.l.wide scope="col" { "Number" }
                    th.l scope="col" { "Results" }
                    th.wide scope="col" { "Pairs" }
                } }
                tbody {
                    @for (name, id) in all.iter().skip(offset).take(limit) {
                        @let info = catalog.clubs().get(*id);
                        tr {
                            td.l.names { a href=(fmt::club_url(id)) { (name) } }
                            td.l.wide { (text::display_name(id)) }
                            td.l { @match info {
                                Some(i) if i.withdrawn() => { "withdrawn at " (fmt::time(i.last_ms)) },
                                Some(i) => { "in at " (fmt::time(i.first_ms)) @if i.submissions > 1 { ", corrected at " (fmt::time(i.last_ms)) } },
                                None => "not yet",
                            } }
                            td.num.wide { @if let Some(i) = info { (i.pairs) } }
                        }
                    }
                }
            }
            (pager(&format!("/clubs?limit={limit}&"), offset, limit, total))
        }
    };
    page(&f, "Clubs", None, body).into_response()
}

pub async fn club(State(site): State<Site>, Path(club): Path<String>) -> Response {
    let p = site.projection();
    let catalog = site.catalog();
    // A club id typed in another case (`c0005`): the address as the site writes it.
    if let Some(id) = club_id_any_case(&p, &catalog, &club)
        && id != club
    {
        return axum::response::Redirect::permanent(&fmt::club_url(&id)).into_response();
    }
    if !simpairs_pipeline::views::resolve::is_club(&p, &club) {
        drop((p, catalog));
        return crate::pages::errors::not_found(
            &site,
            "No such club",
            html! {
                "This event has no club with that number. The " a href="/clubs" { "list of clubs" } " has them all."
            },
        );
    }
    let f = Frame::of(&site, &p, &catalog);
    let name = club_name(&p, &club);
    let body = html! {
        p.meta { "Club number " (text::display_name(&club)) "." }
        div data-live="club" { (club_body(&p, &catalog, &club)) }
    };
    page(&f, &name, None, body).into_response()
}

fn club_body(p: &Projection, catalog: &Catalog, club: &str) -> Markup {
    let lists = club_ranking(p, catalog, club);
    html! {
        @if let Some(info) = catalog.clubs().get(club).filter(|i| i.withdrawn()) {
            p { "This club's results were withdrawn at " (fmt::time(info.last_ms)) ": they count in no ranking." }
        } @else if lists.is_empty() {
            p { (fmt::no_results(p)) }
        } @else {
            ul.links {
                @for list in [List::Ns, List::Ew, List::Combined] {
                    li { a href={ "/rankings?list=" (list.key()) "&club=" (enc(club)) } { "This club's pairs in the national " (list.title()) " ranking" } }
                }
            }
            @for (direction, rows) in &lists {
                (club_table(p, direction, rows))
            }
            h2 { "This club's travellers" }
            ul.boards aria-label="Boards at this club" {
                @for b in &p.boards { li { a href=(fmt::board_url(*b, Some(club), true)) { (b) } } }
            }
        }
    }
}

fn direction_title(d: &str) -> &'static str {
    match d {
        "NS" => "North-South",
        "EW" => "East-West",
        _ => "All pairs",
    }
}

/// Which national list a club table's national places are in.
fn national_list(d: &str) -> &'static str {
    match d {
        "NS" => "NS",
        "EW" => "EW",
        _ => "all pairs",
    }
}

fn club_table(p: &Projection, direction: &str, rows: &[Row]) -> Markup {
    let imps = is_imps(p);
    html! {
        table {
            caption { (direction_title(direction)) ": the club's own ranking (club top)" }
            thead { tr {
                th scope="col" { "Place" }
                th.l scope="col" { "Pair" }
                th.wide scope="col" { "Boards" }
                th.wide[!imps] scope="col" { @if imps { "IMPs" } @else { "Total" } }
                @if !imps { th scope="col" { "%" } }
                th scope="col" { "National place, " (national_list(direction)) }
            } }
            tbody {
                @for r in rows {
                    tr {
                        td.num { (fmt::place(r.place)) }
                        td.l.names { a href=(fmt::pair_url(&r.pair)) { (fmt::pair_label(&r.pair, &r.players)) } " " span.meta { (fmt::pair_number(&r.pair)) } }
                        td.num.wide { (r.boards) }
                        td.num.wide[!imps] { (simpairs_pipeline::views::value::show_hundredths(r.total_hundredths)) }
                        @if !imps { td.num { (fmt::pct(r.percent_hundredths)) } }
                        td.num { @if let Some(n) = r.other { (fmt::place(n)) } }
                    }
                }
            }
        }
    }
}
