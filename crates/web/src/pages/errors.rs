//! Pages for what cannot be shown: an unknown address, a parameter that is not what a page
//! expects. They say what to do next and never repeat what the link carried.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};

use crate::pages::layout::{Frame, page};
use crate::params::BadParam;
use crate::site::Site;

fn frame(site: &Site) -> Frame {
    let p = site.projection();
    let catalog = site.catalog();
    Frame::of(site, &p, &catalog)
}

fn ways_on() -> Markup {
    html! {
        ul.links {
            li { a href="/" { "Event home" } }
            li { a href="/rankings" { "Rankings" } }
            li { a href="/clubs" { "Clubs" } }
            li { a href="/search" { "Search" } }
        }
    }
}

/// A 404 page with `message` (text the server wrote, not the client's) and ways on.
pub(crate) fn not_found(site: &Site, title: &str, message: Markup) -> Response {
    let f = frame(site);
    let body = html! { p { (message) } (ways_on()) };
    (StatusCode::NOT_FOUND, page(&f, title, None, body)).into_response()
}

/// A 400 page naming the parameter that is wrong.
pub(crate) fn bad_param(site: &Site, bad: BadParam) -> Response {
    let f = frame(site);
    let body = html! {
        p { "This link's " code { (bad.name) } " is not one this page understands: it should be " (bad.expected) "." }
        (ways_on())
    };
    (
        StatusCode::BAD_REQUEST,
        page(&f, "Link not understood", None, body),
    )
        .into_response()
}

/// Any address the site does not have: one written with a slash at its end is sent to the
/// address without it (`/club/C0005/`); under `/api/` the answer is JSON, as the API's are.
pub(crate) async fn fallback(
    axum::extract::State(site): axum::extract::State<Site>,
    uri: axum::http::Uri,
) -> Response {
    let path = uri.path();
    let trimmed = path.trim_end_matches('/');
    if trimmed.len() < path.len()
        && !trimmed.is_empty()
        && !trimmed.contains("//")
        && !trimmed.contains('\\')
    {
        let mut to = trimmed.to_string();
        if let Some(q) = uri.query() {
            to.push('?');
            to.push_str(q);
        }
        return axum::response::Redirect::permanent(&to).into_response();
    }
    if path == "/api" || path.starts_with("/api/") {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(serde_json::json!({ "error": "no such API path; the API's paths are listed in the site's documentation" })),
        )
            .into_response();
    }
    not_found(
        &site,
        "Page not found",
        html! { "There is no such page on this results site." },
    )
}

/// The status an analysts' figure that cannot be shown is answered with.
pub(crate) fn unavailable_status(why: &crate::analysts::Unavailable) -> StatusCode {
    use crate::analysts::Unavailable;
    match why {
        Unavailable::NoLog | Unavailable::Busy => StatusCode::SERVICE_UNAVAILABLE,
        Unavailable::Usage(_) => StatusCode::BAD_REQUEST,
        Unavailable::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// A page for an analysts' figure that cannot be shown now: still being computed (reload), or
/// why not. The message is the server's own, never the link's text.
pub(crate) fn unavailable(site: &Site, why: &crate::analysts::Unavailable) -> Response {
    use crate::analysts::Unavailable;
    let f = frame(site);
    let (title, body) = match why {
        Unavailable::Busy => (
            "Still being computed",
            html! { p { "These figures take a few seconds on an event this size and are still being worked out. Reload this page in a few seconds." } },
        ),
        other => (
            "Not available",
            html! { p { (simpairs_pipeline::views::text::display_text(&other.to_string(), simpairs_pipeline::views::text::MAX_TEXT)) } },
        ),
    };
    let mut response = (
        unavailable_status(why),
        page(&f, title, None, html! { (body) (ways_on()) }),
    )
        .into_response();
    if matches!(why, Unavailable::Busy) {
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from_static("5"),
        );
    }
    response
}
