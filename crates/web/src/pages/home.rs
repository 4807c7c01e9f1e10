//! The event's home page: how far the event is, the search box, the leaders, the boards, the
//! latest arrivals, and the way to every other page.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::views::Catalog;
use simpairs_pipeline::views::rankings::{List, national_page};

use crate::pages::fmt;
use crate::pages::layout::{Frame, page};
use crate::params::{Params, enc};
use crate::site::Site;

/// Leaders shown on the home page.
const LEADERS: usize = 10;
/// Arrivals shown on the home page.
const ARRIVALS: usize = 8;

pub async fn home(State(site): State<Site>, params: Params) -> Response {
    // The leaderboard used to live at `/?list=..`: its links go to the rankings.
    match params.choice("list", &["combined", "ns", "ew"], "combined, ns or ew") {
        Err(bad) => return crate::pages::errors::bad_param(&site, bad),
        Ok(Some(list)) => {
            return Redirect::to(&format!("/rankings?list={}", enc(list))).into_response();
        }
        Ok(None) => {}
    }
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(&site, &p, &catalog);
    let title = f.event.clone();
    let body = html! {
        form.inline role="search" action="/search" method="get" {
            label {
                "Find your pair: a player's name, national ID, club or pair number"
                input #home-q type="search" name="q" size="30";
            }
            button type="submit" { "Find" }
        }
        ul.links {
            @for list in List::ALL {
                li { a href={ "/rankings?list=" (list.key()) } { (list.title()) " ranking" } }
            }
            li { a href="/clubs" { "Clubs and their own rankings" } }
            li { a href="/boards" { "Boards: travellers and hands" } }
            li { a href="/movement" { "How the field moved" } }
            li { a href="/compare" { "What if: another scoring" } }
            li { a href="/director" { "Director's page" } }
        }
        (leaders(&p))
        (boards(&p))
        (arrivals(&p, &catalog))
    };
    page(&f, &title, None, body).into_response()
}

fn leaders(p: &Projection) -> Markup {
    let top = national_page(p, List::Combined, None, 0, LEADERS);
    html! {
        section data-live="leaders" {
            @if !top.rows.is_empty() {
                h2 { "Leading pairs" }
                table {
                    caption { "National ranking, combined: the first " (top.rows.len()) " of " (top.total) }
                    thead { tr {
                        th scope="col" { "Place" }
                        th.l scope="col" { "Pair" }
                        th.l.wide scope="col" { "Club" }
                        th scope="col" { "%" }
                    } }
                    tbody {
                        @for r in &top.rows {
                            tr {
                                td.num { (fmt::place(r.place)) }
                                td.l { a href=(fmt::pair_url(&r.pair)) { (fmt::pair_label(&r.pair, &r.players)) }
                                    span.fold { (r.club_name) } }
                                td.l.wide { (r.club_name) }
                                td.num { (fmt::pct(r.percent_hundredths)) }
                            }
                        }
                    }
                }
                p { a href="/rankings?list=combined" { "The whole ranking" } }
            }
        }
    }
}

fn boards(p: &Projection) -> Markup {
    html! {
        @if !p.boards.is_empty() {
            h2 { "Boards" }
            ul.boards aria-label="Boards" {
                @for b in &p.boards { li { a href=(fmt::board_url(*b, None, false)) { (b) } } }
            }
        }
    }
}

fn arrivals(p: &Projection, catalog: &Catalog) -> Markup {
    let latest: Vec<_> = catalog.arrivals().iter().rev().take(ARRIVALS).collect();
    html! {
        section data-live="arrivals" {
            @if !latest.is_empty() {
                h2 { "Latest arrivals" }
                ul {
                    @for a in latest {
                        li {
                            (fmt::time(a.at_ms)) " "
                            a href=(fmt::club_url(&a.club)) { (simpairs_pipeline::views::club_name(p, &a.club)) }
                            @if a.withdrawn { " (its results withdrawn)" } @else if a.correction { " (a correction)" }
                        }
                    }
                }
            }
        }
    }
}
