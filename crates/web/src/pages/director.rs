//! The director's page: what the projection knows of the event's submissions — clubs in, clubs
//! not in yet, corrections and when they came, and how many messages were set aside.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use maud::html;
use simpairs_pipeline::views::{club_name, text};

use crate::pages::fmt;
use crate::pages::layout::{Frame, page};
use crate::site::Site;

pub async fn director(State(site): State<Site>) -> Response {
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(&site, &p, &catalog);
    let missing: Vec<&String> = p
        .club_names
        .keys()
        .filter(|c| !catalog.clubs().contains_key(*c))
        .collect();
    let body = html! {
        div data-live="director" {
            ul {
                li { (p.submissions()) " submissions applied from " (catalog.clubs().len()) " clubs; " (p.result_count()) " results in force." }
                li { (p.dead_letters) " messages set aside (dead letters)." }
            }
            h2 { "Arrivals and corrections" }
            @if catalog.arrivals().is_empty() { p { "None yet." } } @else {
                table {
                    caption { "Submissions applied, latest first" }
                    thead { tr { th.l scope="col" { "When" } th.l scope="col" { "Club" } th.l scope="col" { "What" } } }
                    tbody {
                        @for a in catalog.arrivals().iter().rev() {
                            tr {
                                td.l { (fmt::time(a.at_ms)) }
                                td.l.names { a href=(fmt::club_url(&a.club)) { (club_name(&p, &a.club)) } }
                                td.l { @if a.correction { "a correction (applied)" } @else { "first submission (applied)" } }
                            }
                        }
                    }
                }
            }
            h2 { "Clubs not in yet" }
            @if missing.is_empty() { p { "Every declared club is in." } } @else {
                ul { @for c in missing { li { (club_name(&p, c)) " (" (text::display_name(c)) ")" } } }
            }
        }
    };
    page(&f, "Director's page", None, body).into_response()
}
