//! A board: its hand record with the double-dummy tricks and par (when the deal is known), the
//! frequency table with a bar for each score, and the traveller: every table's pairs by name,
//! contract, declarer, lead, result, score, and what each side earned nationally and in its club,
//! adjusted, split, arrow-switched and fouled lines labelled. In the national field or a club's.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use simpairs_pipeline::views::board::{BoardQuery, BoardView, Scope, TravellerLine, board_view};
use simpairs_pipeline::views::value::show_hundredths;
use simpairs_pipeline::views::{club_name, text};

use crate::deals::{Analysis, Given, STRAINS};
use crate::pages::fmt;
use crate::pages::layout::{Frame, page, pager};
use crate::params::{BadParam, MAX_LIMIT, Params, enc};
use crate::site::Site;

/// Traveller lines per page.
const PAGE: usize = 100;
/// Width of the longest bar of the frequency table, in pixels.
const BAR: u32 = 80;

fn query(board: i32, params: &Params) -> Result<BoardQuery, BadParam> {
    let club = params.text("club")?.map(str::to_string);
    let scope = match (
        params.choice("scope", &["national", "club"], "national or club")?,
        &club,
    ) {
        (Some("club"), Some(c)) => Scope::Club(c.clone()),
        _ => Scope::National,
    };
    Ok(BoardQuery {
        board,
        scope,
        club,
        offset: params.number("offset", usize::MAX / 2)?.unwrap_or(0),
        limit: params.number("limit", MAX_LIMIT)?.unwrap_or(PAGE).max(1),
    })
}

pub async fn board(
    State(site): State<Site>,
    Path(board): Path<String>,
    params: Params,
) -> Response {
    let Ok(number) = board.parse::<i32>() else {
        return crate::pages::errors::bad_param(
            &site,
            BadParam {
                name: "board",
                expected: "a board number",
            },
        );
    };
    let q = match query(number, &params) {
        Ok(q) => q,
        Err(bad) => return crate::pages::errors::bad_param(&site, bad),
    };
    let deal = site.deals.get(number);
    let p = site.projection();
    if let Some(c) = &q.club
        && !simpairs_pipeline::views::resolve::is_club(&p, c)
    {
        drop(p);
        return crate::pages::errors::not_found(
            &site,
            "No such club",
            html! {
                "This event has no club with that number. The " a href="/clubs" { "list of clubs" } " has them all."
            },
        );
    }
    let catalog = site.catalog();
    let Some(view) = board_view(&p, &catalog, &q) else {
        drop((p, catalog));
        return crate::pages::errors::not_found(
            &site,
            "No such board",
            html! {
                "This event has no board with that number. The " a href="/boards" { "boards" } " page lists them."
            },
        );
    };
    let f = Frame::of(&site, &p, &catalog);
    let scope_name = match &view.scope {
        Scope::National => "national field".to_string(),
        Scope::Club(c) => format!("field of {}", club_name(&p, c)),
    };
    let club_label = q.club.as_deref().map(|c| club_name(&p, c));
    let title = format!("Board {number}, {scope_name}");
    let body = html! {
        p.meta { "Dealer " (view.dealer) " · Vulnerable: " (view.vulnerability) }
        (scopes(&q, club_label.as_deref()))
        (hand_record(deal.as_deref(), given_words(&p, site.deals.given(number))))
        div data-live="board" {
            (frequency(&view))
            (traveller(&view, &q, club_label.as_deref()))
        }
    };
    page(&f, &title, None, body).into_response()
}

fn scopes(q: &BoardQuery, club: Option<&str>) -> Markup {
    html! {
        @if let (Some(c), Some(name)) = (&q.club, club) {
            ul.links aria-label="Fields" {
                li { @if q.scope == Scope::National { strong aria-current="page" { "National field" } }
                     @else { a href=(fmt::board_url(q.board, Some(c), false)) { "National field" } } }
                li { @if q.scope != Scope::National { strong aria-current="page" { "Field of " (name) } }
                     @else { a href=(fmt::board_url(q.board, Some(c), true)) { "Field of " (name) } } }
                li { a href=(fmt::board_url(q.board, None, false)) { "Every club's tables" } }
            }
        }
    }
}

const SEAT_NAMES: [&str; 4] = ["North", "East", "South", "West"];
const SEAT_AREAS: [&str; 4] = ["n", "e", "s", "w"];

fn hand(a: &Analysis, seat: usize) -> Markup {
    html! {
        div class={ "hand " (SEAT_AREAS[seat]) } {
            b { (SEAT_NAMES[seat]) }
            @match &a.hands[seat] {
                Some(suits) => {
                    @for (k, cards) in suits.iter().enumerate() {
                        div { (fmt::suit(k)) " " @if cards.is_empty() { "—" } @else { (cards.replace('T', "10")) } }
                    }
                }
                None => { div.meta { "not given" } }
            }
        }
    }
}

/// Whose the hand record is, in words.
fn given_words(p: &simpairs_pipeline::project::Projection, given: Option<Given>) -> Option<String> {
    match given? {
        Given::Organiser => Some("The organiser's hand record.".to_string()),
        Given::Club(club) => Some(format!(
            "As {}'s file gave it: the organiser has declared no hand record of this board.",
            club_name(p, &club)
        )),
    }
}

fn hand_record(deal: Option<&Analysis>, given: Option<String>) -> Markup {
    let Some(a) = deal else {
        return html! { p.meta { "The hand record of this board is not published yet." } };
    };
    html! {
        section aria-labelledby="hand-record" {
            h2 #hand-record { "Hand record" }
            @if let Some(given) = given { p.meta { (given) } }
            div.deal {
                @for seat in 0..4 { (hand(a, seat)) }
                div.c { "Board " (a.board) br; "Dealer " (a.dealer) br; "Vul: " (a.vulnerability) }
            }
            @if let Some(tricks) = &a.tricks {
                table.dd {
                    caption { "Double-dummy tricks for each declarer (DDS)" }
                    thead { tr {
                        th scope="col" { "Declarer" }
                        @for (k, s) in STRAINS.iter().enumerate() {
                            th scope="col" { @if k == 0 { (s) } @else { (fmt::suit(k - 1)) } }
                        }
                    } }
                    tbody {
                        // Partners together, as hand records print them.
                        @for seat in [0usize, 2, 1, 3] {
                            tr {
                                th scope="row" { (SEAT_NAMES[seat]) }
                                @for row in tricks { td.num { (row[seat]) } }
                            }
                        }
                    }
                }
            } @else {
                p.meta { "No double-dummy analysis: the hand record does not give every hand." }
            }
            @if let Some(par) = &a.par {
                p { "Par: " @if par.ns_score >= 0 { "NS " (par.ns_score) } @else { "EW " (-par.ns_score) }
                    @if !par.contracts.is_empty() { " (" (par.contracts.join(", ")) ")" } }
            }
        }
    }
}

/// A bar `count / most` of [`BAR`] pixels, as a small SVG (drawn, not scripted).
fn bar(count: i32, most: i32) -> Markup {
    let width = if most > 0 {
        (count.max(0) as u32 * BAR).div_ceil(most as u32).max(1)
    } else {
        0
    };
    html! {
        svg.bar width=(BAR) height="12" viewBox={ "0 0 " (BAR) " 12" } aria-hidden="true" focusable="false" {
            rect x="0" y="1" width=(width) height="10" {}
        }
    }
}

fn frequency(view: &BoardView) -> Markup {
    let most = view.frequency.iter().map(|f| f.count).max().unwrap_or(0);
    let unit = if view.imps { "IMPs" } else { "%" };
    // Which field the values are of: the traveller beside it shows both.
    let field = match view.scope {
        Scope::National => "national",
        Scope::Club(_) => "club",
    };
    html! {
        h2 { "Frequency" }
        @if view.frequency.is_empty() {
            p { "No scores for this board in this field yet." }
        } @else {
            table.freq {
                caption {
                    (view.results) " results"
                    @if let Some(top) = &view.top { @if !view.imps { "; top " (show_hundredths(top.value_hundredths())) " matchpoints" } }
                    @if let Some(d) = view.datum { "; datum " (d) }
                }
                thead { tr {
                    th scope="col" { "NS score" }
                    th scope="col" { "Tables" }
                    th.l scope="col" { span.vh { "Share of the tables" } }
                    th.wide scope="col" { @if view.imps { "NS IMPs" } @else { "NS MP" } " " (field) }
                    th scope="col" { "NS " (unit) " " (field) }
                    th scope="col" { "EW " (unit) " " (field) }
                } }
                tbody {
                    @for row in &view.frequency {
                        tr {
                            th.num scope="row" { (row.ns_score) }
                            td.num { (row.count) }
                            td.l { (bar(row.count, most)) }
                            td.num.wide { (fmt::mp(&row.ns)) }
                            td.num { @if view.imps { (fmt::mp(&row.ns)) } @else { (fmt::pct(row.ns.percent_hundredths())) } }
                            td.num { @if view.imps { (fmt::mp(&row.ew)) } @else { (fmt::pct(row.ew.percent_hundredths())) } }
                        }
                    }
                }
            }
            @if view.specials > 0 {
                p.meta { (fmt::count(view.specials, "line is", "lines are")) " scored outside this table (adjusted, split, arrow-switched or fouled); the traveller labels them." }
            }
        }
    }
}

fn side(pair: &simpairs_pipeline::PairKey, players: &[simpairs_events::types::Player]) -> Markup {
    html! {
        a href=(fmt::pair_url(pair)) { (fmt::pair_label(pair, players)) }
        @if !players.is_empty() { " " span.meta { (fmt::pair_number(pair)) } }
    }
}

/// A side's value: its percentage with the matchpoints under it (on a wide screen), or its IMPs.
fn pct_or_imps(v: Option<&simpairs_pipeline::views::Value>, imps: bool) -> Markup {
    html! {
        @match v {
            None => {},
            Some(v) if imps => { (fmt::mp(v)) },
            Some(v) => { (fmt::pct(v.percent_hundredths())) span.mp { (fmt::mp(v)) " MP" } },
        }
    }
}

fn traveller_row(
    l: &TravellerLine,
    national: bool,
    imps: bool,
    leads: bool,
    club_first: bool,
) -> Markup {
    let (nat_ns, nat_ew) = (
        l.national.as_ref().map(|v| &v.0),
        l.national.as_ref().map(|v| &v.1),
    );
    let (club_ns, club_ew) = (
        l.in_club.as_ref().map(|v| &v.0),
        l.in_club.as_ref().map(|v| &v.1),
    );
    html! {
        tr {
            @if national { td.l.wide { a href=(fmt::club_url(&l.club)) { (l.club_name) } } }
            td.l.names {
                (side(&l.ns, &l.ns_players))
                span.fold { "v " (side(&l.ew, &l.ew_players)) @if national { " · " (l.club_name) } }
            }
            td.l.names.wide { (side(&l.ew, &l.ew_players)) }
            td.l {
                (l.result.as_deref().unwrap_or("—"))
                @for k in l.marks.labels() { " " span.kind { (k) } }
                @if let Some(c) = &l.correction { " " span.kind.corrected { (fmt::correction(c)) } }
            }
            @if leads { td.l.wide { (l.lead.as_deref().map(text::display_name).unwrap_or_default()) } }
            td.num { (fmt::score(l.ns_score)) @if let Some(ew) = l.ew_score { " / EW " (ew) } }
            td.num.wide[club_first] { (pct_or_imps(nat_ns, imps)) }
            td.num.wide { (pct_or_imps(nat_ew, imps)) }
            td.num.wide[!club_first] { (pct_or_imps(club_ns, imps)) }
            td.num.wide { (pct_or_imps(club_ew, imps)) }
        }
    }
}

fn traveller(view: &BoardView, q: &BoardQuery, club: Option<&str>) -> Markup {
    let national = q.club.is_none();
    let unit = if view.imps { "IMPs" } else { "%" };
    let leads = view.traveller.iter().any(|l| l.lead.is_some());
    // A phone has room for one NS value: the club's in a club's field, else the national.
    let club_first = view.scope != Scope::National;
    let base = match &q.club {
        Some(c) => format!(
            "/board/{}?club={}&scope={}&limit={}&",
            view.board,
            enc(c),
            if view.scope == Scope::National {
                "national"
            } else {
                "club"
            },
            q.limit
        ),
        None => format!("/board/{}?limit={}&", view.board, q.limit),
    };
    html! {
        h2 { "Traveller" }
        @if view.traveller_total == 0 {
            p { "No table has played this board yet." }
        } @else {
            table {
                caption {
                    @match club { Some(c) => { "Tables of " (c) }, None => { "Every club's tables, club by club" } }
                    ": " (view.offset + 1) " to " (view.offset + view.traveller.len()) " of " (view.traveller_total)
                }
                thead { tr {
                    @if national { th.l.wide scope="col" { "Club" } }
                    th.l scope="col" { "North-South" }
                    th.l.wide scope="col" { "East-West" }
                    th.l scope="col" { "Contract" }
                    @if leads { th.l.wide scope="col" { "Lead" } }
                    th scope="col" { "NS score" }
                    th.wide[club_first] scope="col" { "NS " (unit) " national" }
                    th.wide scope="col" { "EW " (unit) " national" }
                    th.wide[!club_first] scope="col" { "NS " (unit) " club" }
                    th.wide scope="col" { "EW " (unit) " club" }
                } }
                tbody { @for l in &view.traveller { (traveller_row(l, national, view.imps, leads, club_first)) } }
            }
            (pager(&base, view.offset, q.limit, view.traveller_total))
        }
    }
}

/// The list of boards.
pub async fn boards(State(site): State<Site>) -> Response {
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(&site, &p, &catalog);
    let body = html! {
        @if p.boards.is_empty() {
            p { "The event's boards are not declared yet." }
        } @else {
            ul.boards aria-label="Boards" {
                @for b in &p.boards { li { a href=(fmt::board_url(*b, None, false)) { "Board " (b) } } }
            }
        }
    };
    page(&f, "Boards", None, body).into_response()
}
