//! A player's page (`/player/{national_id}`): the player's season, every event of the log the
//! player was entered in (found by national ID), with partners, percentages and places, nationally
//! and in the club. The figures are `simpairs_analysis::season::player_history`'s; the same
//! season is served as JSON at `/api/player/{national_id}`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use simpairs_analysis::figures::Figures;
use simpairs_analysis::season::{Partner, PlayerEvent, PlayerHistory};
use simpairs_pipeline::PairKey;
use simpairs_pipeline::views::text;
use simpairs_pipeline::views::value::show_hundredths;

use crate::analysts::Unavailable;
use crate::pages::fmt;
use crate::pages::layout::{Frame, page};
use crate::params::{BadParam, MAX_VALUE, enc};
use crate::site::Site;

/// The link's national ID, checked (trimmed, not empty, not too long).
pub fn read(id: &str) -> Result<String, BadParam> {
    let id = id.trim();
    if id.is_empty() || id.chars().count() > MAX_VALUE {
        return Err(BadParam {
            name: "national ID",
            expected: "a player's national ID (membership number), at most 200 characters",
        });
    }
    Ok(id.to_string())
}

/// The link to a player's page.
pub(crate) fn player_url(national_id: &str) -> String {
    format!("/player/{}", enc(national_id.trim()))
}

/// The player's season, from the analysts (kept per generation).
pub async fn season(site: &Site, id: String) -> Result<Arc<PlayerHistory>, Unavailable> {
    let analysts = site.analysts().ok_or(Unavailable::NoLog)?;
    let generation = site.projection().generation();
    analysts.season(id, generation).await
}

pub async fn player(State(site): State<Site>, Path(id): Path<String>) -> Response {
    let id = match read(&id) {
        Ok(id) => id,
        Err(bad) => return crate::pages::errors::bad_param(&site, bad),
    };
    match season(&site, id).await {
        Ok(h) if h.events.is_empty() => crate::pages::errors::not_found(
            &site,
            "No such player",
            html! { "No pair of this log's events has a player with this national ID. "
            a href="/search" { "Search" } " for the player's name instead." },
        ),
        Ok(h) => show(&site, &h),
        Err(why) => crate::pages::errors::unavailable(&site, &why),
    }
}

fn show(site: &Site, h: &PlayerHistory) -> Response {
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(site, &p, &catalog);
    let here = p.event_id.clone();
    drop((p, catalog));
    let events = h
        .events
        .iter()
        .map(|e| e.event.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let names: Vec<String> = h.names.iter().map(|n| text::display_name(n)).collect();
    let title = if names.is_empty() {
        "A player's season".to_string()
    } else {
        names.join(" / ")
    };
    let body = html! {
        p.meta { "National ID " (text::display_name(&h.national_id)) ": "
            (events) @if events == 1 { " event" } @else { " events" } " on this results log"
            @if h.events.len() > events { " (" (h.events.len()) " pairs)" }
            ", as each stands now. Places are among every pair of the event, or of the club." }
        h2 { "Season" }
        table.season {
            caption { "Events played: partners, national and club place and percentage" }
            thead { tr {
                th.l scope="col" { "Event" }
                th.l.wide scope="col" { "Club" }
                th.l scope="col" { "Partner" }
                th scope="col" { "National" }
                th scope="col" { "%" }
                th.wide scope="col" { "In the club" }
                th.wide scope="col" { "Club %" }
            } }
            tbody { @for e in &h.events { (row(e, &here)) } }
        }
        p.meta { "The same figures as JSON: " a href=(format!("/api{}", player_url(&h.national_id))) { "/api/player" } "." }
    };
    page(&f, &title, None, body).into_response()
}

fn partner(p: &Partner) -> Markup {
    html! {
        @match &p.national_id {
            Some(id) if !id.trim().is_empty() => { a href=(player_url(id)) { (text::display_name(&p.name)) } }
            _ => { (text::display_name(&p.name)) }
        }
    }
}

fn placed(f: Option<&Figures>, of: usize) -> Markup {
    html! {
        @match f {
            None => { "—" }
            // The place among every pair ranked (combined), so that "of N" is the same list.
            Some(f) => { strong { (fmt::ordinal(f.combined_place as i32)) @if f.combined_tied { "=" } } " of " (of) }
        }
    }
}

fn score(f: Option<&Figures>) -> String {
    f.map_or_else(String::new, |f| {
        show_hundredths(f.percent_hundredths.unwrap_or(f.total_hundredths))
    })
}

fn row(e: &PlayerEvent, here: &str) -> Markup {
    let pair = PairKey::from_text(
        e.club.clone(),
        e.section.clone(),
        e.pair.clone(),
        &e.direction,
    );
    html! {
        tr {
            th.l scope="row" {
                @if e.event == here { a href=(fmt::pair_url(&pair)) { (text::display_name(&e.event_name)) } }
                @else { (text::display_name(&e.event_name)) }
                br; span.meta { (fmt::time_date(e.declared_at_ms)) ", pair " (fmt::pair_number(&pair)) }
                span.fold { (text::display_name(&e.club_name)) }
            }
            td.l.wide { (text::display_name(&e.club_name)) }
            td.l {
                @for (i, p) in e.partners.iter().enumerate() { @if i > 0 { " & " } (partner(p)) }
                @if e.partners.is_empty() { "—" }
            }
            td.num { (placed(e.national.as_ref(), e.national_pairs)) }
            td.num { (score(e.national.as_ref())) }
            td.num.wide { (placed(e.club_figures.as_ref(), e.club_pairs)) }
            td.num.wide { (score(e.club_figures.as_ref())) }
        }
    }
}
