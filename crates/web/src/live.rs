//! Live updates: `/live` is a stream of server-sent events, one `update` event per new national
//! generation with the clubs that arrived (JSON of [`crate::site::Update`]). Each open page's
//! script then fetches the page again and swaps in what changed. The streams are bounded in
//! number ([`crate::server::ServerConfig::max_live`]) and end when the server stops.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, watch};

use crate::site::{Site, Update};

/// What the live stream needs besides the site.
#[derive(Clone)]
pub struct Live {
    pub slots: Arc<Semaphore>,
    pub stopping: watch::Receiver<bool>,
}

/// How often an idle stream sends a comment, so that proxies keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

struct Stream_ {
    /// What the page missed before its stream opened, sent first.
    missed: Option<Update>,
    updates: broadcast::Receiver<Update>,
    stopping: watch::Receiver<bool>,
    site: Site,
    _slot: OwnedSemaphorePermit,
}

fn event(u: &Update) -> Event {
    Event::default()
        .event("update")
        .json_data(u)
        .unwrap_or_else(|_| {
            Event::default()
                .event("update")
                .data("{\"generation\":0,\"clubs\":[],\"closed\":false}")
        })
}

fn stream_of(s: Stream_) -> impl Stream<Item = Result<Event, Infallible>> {
    stream::unfold(s, |mut s| async move {
        if let Some(first) = s.missed.take() {
            return Some((Ok(event(&first)), s));
        }
        loop {
            tokio::select! {
                got = s.updates.recv() => match got {
                    Ok(u) => return Some((Ok(event(&u)), s)),
                    // Fell behind: one update with the latest generation makes the page catch up.
                    Err(RecvError::Lagged(_)) => {
                        let generation = s.site.projection().generation();
                        let closed = s.site.projection().closed_ms().is_some();
                        let update = Update { generation, clubs: Vec::new(), closed };
                        return Some((Ok(event(&update)), s));
                    }
                    Err(RecvError::Closed) => return None,
                },
                changed = s.stopping.changed() => if changed.is_err() || *s.stopping.borrow() { return None },
            }
        }
    })
}

/// `/live?since=G`: the page shows generation `G`; what it missed is sent first.
pub async fn live(State(app): State<crate::App>, params: crate::params::Params) -> Response {
    let (site, live) = (app.site, app.live);
    let since = params
        .number("since", i64::MAX as usize)
        .ok()
        .flatten()
        .map(|g| g as i64);
    let Ok(slot) = live.slots.clone().try_acquire_owned() else {
        // The pages still work without live updates; the script retries later.
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "too many live pages open; reload later",
        )
            .into_response();
    };
    // Subscribed before looking at what was missed: an update in between is heard twice at
    // worst (the page then fetches itself once more), never missed.
    let updates = site.updates.subscribe();
    let s = Stream_ {
        missed: since.map(|g| site.since(g)),
        updates,
        stopping: live.stopping.clone(),
        site,
        _slot: slot,
    };
    Sse::new(stream_of(s))
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response()
}
