//! Search: a player's name (accents and case ignored), a national id, a club's name or id, a pair
//! number with its club. Answers come from the catalog's index, not from reading every pair.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::views::rankings::national_standing;
use simpairs_pipeline::views::search::{MAX_HITS, SearchResults};
use simpairs_pipeline::views::{Catalog, club_name};

use crate::pages::fmt;
use crate::pages::layout::{Frame, page};
use crate::params::Params;
use crate::site::Site;

pub async fn search(State(site): State<Site>, params: Params) -> Response {
    let q = match params.text("q") {
        Ok(q) => q.unwrap_or("").to_string(),
        Err(bad) => return crate::pages::errors::bad_param(&site, bad),
    };
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(&site, &p, &catalog);
    let found = catalog.search().search(&q);
    let body = html! {
        form.inline role="search" action="/search" method="get" {
            label { "Player, national ID, club or pair number"
                input #q type="search" name="q" value=(q) size="30"; }
            button type="submit" { "Search" }
        }
        @if q.is_empty() {
            p { "Type part of a name (\"smi\" finds Smith and Smithers), a national ID, a club's name or number, or a club and a pair number (\"Auckland 7\")." }
        } @else {
            (results(&p, &catalog, &found))
        }
    };
    page(&f, "Search", None, body).into_response()
}

fn results(p: &Projection, catalog: &Catalog, found: &SearchResults) -> Markup {
    html! {
        @if found.clubs.is_empty() && found.pairs.is_empty() {
            p { "Nothing found. Try fewer letters, or a club's name." }
        }
        @if !found.clubs.is_empty() {
            h2 { "Clubs" }
            ul { @for c in &found.clubs { li { a href=(fmt::club_url(&c.club)) { (club_name(p, &c.club)) } " (" (c.club) ")" } } }
        }
        @if !found.pairs.is_empty() {
            h2 { "Pairs" }
            @if found.too_wide || found.pairs_matched > MAX_HITS {
                p.meta { "The first " (found.pairs.len()) " of " @if found.too_wide { "more than " } (found.pairs_matched) " pairs; add a word (a first name, a club) to narrow the search." }
            }
            table {
                caption { "Pairs found" }
                thead { tr {
                    th.l scope="col" { "Players" }
                    th.l scope="col" { "Club, pair" }
                    th.wide scope="col" { "National place" }
                    th scope="col" { "%" }
                } }
                tbody {
                    @for hit in &found.pairs {
                        @let standing = national_standing(p, catalog, &hit.pair);
                        tr {
                            td.l { a href=(fmt::pair_url(&hit.pair)) { (fmt::pair_label(&hit.pair, &simpairs_pipeline::views::players_of(p, &hit.pair))) } }
                            td.l { (club_name(p, &hit.pair.club)) ", pair " (fmt::pair_number(&hit.pair))
                                @if !hit.pair.section.is_empty() { ", section " (hit.pair.section) }
                                @if catalog.clubs().get(&hit.pair.club).is_some_and(|c| c.withdrawn()) {
                                    br; span.meta { "the club's results withdrawn" } } }
                            td.num.wide { @if let Some(s) = &standing { (s.rank) @if s.tied { "=" } } }
                            td.num { @if let Some(s) = &standing { (fmt::pct(s.percent_hundredths)) } }
                        }
                    }
                }
            }
        }
    }
}
