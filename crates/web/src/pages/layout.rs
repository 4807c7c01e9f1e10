//! The frame of every page: the event's name, the site's navigation and search, a line saying how
//! far the event is (clubs in, the latest arrival, or why the results stopped), and the live
//! updates' announcements.

use maud::{DOCTYPE, Markup, PreEscaped, html};
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::views::{Catalog, text};

use crate::assets;
use crate::health::State;
use crate::pages::fmt;
use crate::site::Site;

/// What the frame shows about the event.
#[derive(Clone, Debug)]
pub struct Frame {
    pub event: String,
    pub state: State,
    pub clubs_in: usize,
    pub clubs_declared: usize,
    pub last_ms: Option<i64>,
    /// When the organiser closed the event, if it did.
    pub closed_ms: Option<i64>,
    pub generation: i64,
    pub boards: usize,
}

impl Frame {
    pub fn of(site: &Site, p: &Projection, catalog: &Catalog) -> Frame {
        let name = if p.name.is_empty() {
            &p.event_id
        } else {
            &p.name
        };
        Frame {
            event: text::display_name(name),
            state: site.health.state(),
            clubs_in: catalog.clubs().values().filter(|c| !c.withdrawn()).count(),
            clubs_declared: p.club_names.len(),
            last_ms: catalog.clubs().values().map(|c| c.last_ms).max(),
            closed_ms: p.closed_ms(),
            generation: p.generation(),
            boards: p.boards.len(),
        }
    }
}

/// `Provisional results: 212 of 300 clubs in, last at 20:41 UTC`, `Final results (closed by the
/// organiser at 21:40 UTC): ...` once it closed the event, or what stops the results being
/// complete.
pub fn status(f: &Frame) -> Markup {
    html! {
        div data-live="status" {
            @match &f.state {
                State::Failed(why) => p.alert role="alert" {
                    "The results stopped updating: " (text::display_name(why))
                    ". What is shown is what had arrived before."
                },
                State::Reading => p.note { "Reading the results from the log; the pages fill in as they are read." },
                State::Live => {},
            }
            p.meta {
                @if f.clubs_in == 0 && f.state == State::Live {
                    "No club's results are in yet: clubs are still publishing."
                } @else {
                    // Until the organiser closes the event, a late club or a correction may still
                    // change the results, and a player reading them after the session should know.
                    // The same words as clubs arrive: a line that grew would move what the
                    // reader is looking at.
                    @match f.closed_ms {
                        Some(ms) => { "Final results (closed by the organiser at " (fmt::time(ms)) "): " }
                        None => { "Provisional results: " }
                    }
                    (f.clubs_in) " of " (f.clubs_declared) " clubs in"
                    @if let Some(ms) = f.last_ms { ", last at " (fmt::time(ms)) }
                    "." @if f.boards > 0 { " " (f.boards) " boards." }
                }
            }
        }
    }
}

/// A pair the reader is looking at, remembered by the page's script for "jump to my pair".
pub struct Mine {
    /// The query parameters naming the pair (`me_club=..&me_pair=..`).
    pub query: String,
    pub label: String,
}

/// A whole page.
pub fn page(f: &Frame, title: &str, mine: Option<&Mine>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                // The home page's title is the event's own name: said once, not twice.
                title { (title) @if title != f.event { " — " (f.event) } }
                link rel="icon" href="data:,";
                link rel="stylesheet" href=(assets::CSS.url());
                script src=(assets::JS.url()) defer {}
            }
            body {
                a.skip href="#main" { "Skip to the results" }
                (header(f))
                div #live-status role="status" aria-live="polite" {}
                main #main data-generation=(f.generation) data-closed=(u8::from(f.closed_ms.is_some()))
                    data-my-pair=[mine.map(|m| &m.query)] data-my-label=[mine.map(|m| &m.label)] {
                    h1 { (title) }
                    (status(f))
                    (body)
                }
            }
        }
    }
}

fn header(f: &Frame) -> Markup {
    html! {
        header.top {
            a.event href="/" { (f.event) }
            nav aria-label="Site" {
                a href="/rankings" { "Rankings" }
                a href="/clubs" { "Clubs" }
                a href="/boards" { "Boards" }
                a href="/director" { "Director" }
            }
            form role="search" action="/search" method="get" {
                label.vh for="site-q" { "Search players, clubs or national ids" }
                input #site-q type="search" name="q" placeholder="Player, club or ID" autocomplete="off";
                button type="submit" { "Search" }
            }
        }
    }
}

/// A pager: first, previous, where we are, next, last.
pub(crate) fn pager(base: &str, offset: usize, limit: usize, total: usize) -> Markup {
    let limit = limit.max(1);
    let pages = total.div_ceil(limit).max(1);
    let at = offset / limit;
    let link = |page: usize| format!("{base}offset={}", page * limit);
    html! {
        @if pages > 1 {
            nav.pager aria-label="Pages" {
                @if at > 0 {
                    a href=(link(0)) { "First" }
                    a href=(link(at - 1)) rel="prev" { "Previous" }
                }
                span { "Page " (at + 1) " of " (pages) }
                @if at + 1 < pages {
                    a href=(link(at + 1)) rel="next" { "Next" }
                    a href=(link(pages - 1)) { "Last" }
                }
            }
        }
    }
}

/// Text for a screen reader only.
pub fn hidden(text: &str) -> Markup {
    html! { span.vh { (text) } }
}

/// An empty element (keeps maud from collapsing a required child).
pub fn nothing() -> Markup {
    PreEscaped(String::new())
}
