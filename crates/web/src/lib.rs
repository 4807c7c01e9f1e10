//! # simpairs-web
//!
//! The results website of a simpairs event: what players and directors open during and after a
//! national simultaneous pairs. Server-rendered pages over the projection (maud templates, escaped
//! by default), a small script that keeps open pages up to date as clubs arrive (server-sent
//! events; every page works without it), and the JSON API.
//!
//! | path | page |
//! |---|---|
//! | `/` | event home: clubs in and the latest arrival, search, leaders, boards |
//! | `/search?q=` | players (accents and case ignored), national ids, clubs, pair numbers |
//! | `/rankings?list=combined\|ns\|ew&club=&offset=&me_club=&me_pair=` | national rankings, by club, jump to a pair |
//! | `/clubs`, `/club/{club}` | every club; a club's own ranking, NS and EW apart, and its travellers |
//! | `/pair/{club}/{number}?section=&dir=` | a pair's scorecard (`/pair?club=&pair=` too) |
//! | `/board/{board}?club=&scope=club` | hand record, double dummy and par, frequency, traveller |
//! | `/boards`, `/director` | the boards; the director's page |
//! | `/movement?club=&pair=&section=&dir=&top=` | how the field moved: the leaders' (and a pair's) places over the generations, an SVG chart |
//! | `/compare?a_scoring=&a_factoring=&a_conventions=&a=&b_...` | what if: two scorings side by side, the pairs that change |
//! | `/player/{national_id}` | a player's season: events, partners, places, percentages |
//! | `/live` | server-sent events: an `update` per new generation |
//! | `/api/...` | JSON ([`api`]) |
//!
//! ## Layout
//! - [`run`]: the `serve` role: the projection on a thread of its own, the catalog kept up to
//!   date, the server; exits with an error when the projection stops.
//! - [`server`]: the HTTP server with its bounds (connections, timeouts); [`security`]: the
//!   headers every response carries.
//! - [`analysts`]: the analysts' figures (`simpairs-analysis` over the log), bounded and kept
//!   per generation.
//! - [`site`]: the shared state; [`health`]: live, reading or failed; [`deals`]: hand records and
//!   their double-dummy analysis.
//! - [`pages`]: one module per page; [`api`]: the JSON API; [`live`]: the update stream;
//!   [`params`]: query parameters, checked; [`assets`]: the stylesheet and script.
//!
//! The data each page shows is computed by `simpairs_pipeline::views` from the projection; the
//! pages only lay it out.
//!
//! ## Example
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use tower::ServiceExt;
//! let site = simpairs_web::site::Site::loaded(simpairs_pipeline::project::Projection::new("demo"));
//! let app = simpairs_web::router(simpairs_web::App::new(site, 16));
//! let request = axum::http::Request::get("/").body(axum::body::Body::empty()).unwrap();
//! let response = app.oneshot(request).await.unwrap();
//! assert_eq!(response.status(), 200);
//! assert!(response.headers()["content-security-policy"].to_str().unwrap().contains("script-src 'self'"));
//! # });
//! ```

pub mod analysts;
pub mod api;
pub mod assets;
pub mod deals;
pub mod error;
pub mod health;
pub mod live;
pub mod pages;
pub mod params;
pub mod run;
pub mod security;
pub mod server;
pub mod site;
#[cfg(test)]
mod test_event;

use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRef, Path};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::sync::{Semaphore, watch};

pub use error::{Error, Result};
pub use run::{Config, run, run_site};
pub use site::Site;

/// The router's state: the site and the live streams' bounds.
#[derive(Clone)]
pub struct App {
    pub site: Site,
    pub live: live::Live,
    /// Set to `true` to end the live streams (the server is stopping).
    pub stop_live: Arc<watch::Sender<bool>>,
}

impl App {
    /// An app over `site` with at most `max_live` live streams.
    pub fn new(site: Site, max_live: usize) -> App {
        let (stop_live, stopping) = watch::channel(false);
        App {
            site,
            live: live::Live {
                slots: Arc::new(Semaphore::new(max_live)),
                stopping,
            },
            stop_live: Arc::new(stop_live),
        }
    }
}

impl FromRef<App> for Site {
    fn from_ref(app: &App) -> Site {
        app.site.clone()
    }
}

async fn asset(Path(name): Path<String>) -> Response {
    match assets::find(&name) {
        Some(a) => a.response(),
        None => (axum::http::StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

/// Every page, the API and the update stream, with the security headers.
pub fn router(app: App) -> Router {
    let routes = Router::new()
        .route("/", get(pages::home::home))
        .route("/search", get(pages::search::search))
        .route("/rankings", get(pages::rankings::rankings))
        .route("/clubs", get(pages::clubs::clubs))
        .route("/club/{club}", get(pages::clubs::club))
        .route("/pair", get(pages::pair::by_query))
        .route("/pair/{club}/{number}", get(pages::pair::by_path))
        .route("/boards", get(pages::board::boards))
        .route("/board/{board}", get(pages::board::board))
        .route("/director", get(pages::director::director))
        .route("/movement", get(pages::movement::movement))
        .route("/compare", get(pages::compare::compare))
        .route("/player/{id}", get(pages::player::player))
        .route("/live", get(live::live))
        .route("/static/{name}", get(asset))
        .route("/api/status", get(api::status))
        .route("/api/leaderboard", get(api::leaderboard))
        .route("/api/clubs", get(api::clubs))
        .route("/api/clubs/{club}", get(api::club))
        .route("/api/pair", get(api::pair))
        .route("/api/boards/{board}", get(api::board))
        .route("/api/movement", get(api::movement))
        .route("/api/compare", get(api::compare))
        .route("/api/player/{id}", get(api::player))
        .fallback(pages::errors::fallback)
        .with_state(app);
    security::harden(routes)
}
