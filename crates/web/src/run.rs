//! The `serve` role: the projection of an event on a thread of its own, the site's catalog kept up
//! to date beside it, and the web server. When the projection stops on an error (a damaged
//! stream, a log that cannot be read) the pages and `/api/status` say so for
//! [`Config::fail_grace`], then the server stops and [`run`] returns the error, so that the
//! process exits non-zero instead of serving a frozen event as if it were whole.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use simpairs_log::Log;
use simpairs_pipeline::project::Projection;
use tower_http::timeout::TimeoutLayer;

use crate::health::{State, WatchedLog};
use crate::server::ServerConfig;
use crate::{App, Error, Result, Site};

/// How the site runs.
#[derive(Clone, Debug)]
pub struct Config {
    pub listen: SocketAddr,
    /// Write `LeaderboardPublished` for each new national generation.
    pub publish: bool,
    pub server: ServerConfig,
    /// How long the site keeps answering, with the error, after the projection stopped.
    pub fail_grace: Duration,
    /// The replay index's directory for the analysts' pages (a temporary one if `None`).
    pub index_dir: Option<std::path::PathBuf>,
}

impl Config {
    pub fn new(listen: SocketAddr) -> Config {
        Config {
            listen,
            publish: true,
            server: ServerConfig::default(),
            fail_grace: Duration::from_secs(5),
            index_dir: None,
        }
    }
}

/// How often the catalog is brought up to date when no new generation wakes it (a club's own
/// standings may arrive after the generation that applied it).
const REFRESH: Duration = Duration::from_millis(500);

/// How often the director's thread looks whether the projection has caught up.
const WAIT_FOR_PROJECTION: Duration = Duration::from_millis(50);

/// The longest the director's listing waits for the projection to catch up: on a log that grows
/// faster than the projection reads it, the listing is read anyway.
const PROJECTION_GRACE: Duration = Duration::from_secs(30);

/// Starts the projection and what the site keeps beside it, each on a thread of its own.
fn start_projection(
    log: Arc<dyn Log>,
    event: &str,
    site: &Site,
    publish: bool,
    stop: &Arc<AtomicBool>,
    on_generation: impl FnMut(i64) + Send + 'static,
) -> [std::thread::JoinHandle<()>; 3] {
    let (wake, woken) = std::sync::mpsc::channel::<()>();
    [
        spawn_projection(log.clone(), event, site, publish, stop, on_generation, wake),
        spawn_catalog(site, stop, woken),
        spawn_director(log, site, stop),
    ]
}

/// The projection: follows the log; a new generation wakes the catalog; an error marks the site
/// failed.
fn spawn_projection(
    log: Arc<dyn Log>,
    event: &str,
    site: &Site,
    publish: bool,
    stop: &Arc<AtomicBool>,
    mut on_generation: impl FnMut(i64) + Send + 'static,
    wake: std::sync::mpsc::Sender<()>,
) -> std::thread::JoinHandle<()> {
    let (site, stop, event) = (site.clone(), stop.clone(), event.to_string());
    std::thread::spawn(move || {
        let watched: Arc<dyn Log> = Arc::new(WatchedLog::new(log, site.health.clone(), &event));
        let on_update = |update| {
            if let simpairs_pipeline::project::Update::Shown(g) = update {
                on_generation(g);
                let _ = wake.send(());
            }
        };
        let projection = site.projection.clone();
        if let Err(e) =
            simpairs_pipeline::project::run(watched, &event, projection, &stop, publish, on_update)
        {
            tracing::error!(event = %event, "the projection stopped: {e}");
            site.health.fail(e.to_string());
        }
    })
}

/// The catalog: brought up to date after each generation, and every [`REFRESH`].
fn spawn_catalog(
    site: &Site,
    stop: &Arc<AtomicBool>,
    woken: std::sync::mpsc::Receiver<()>,
) -> std::thread::JoinHandle<()> {
    let (site, stop) = (site.clone(), stop.clone());
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            match woken.recv_timeout(REFRESH) {
                Ok(()) | Err(RecvTimeoutError::Timeout) => site.refresh(),
                Err(RecvTimeoutError::Disconnected) => {
                    site.refresh();
                    break;
                }
            }
        }
    })
}

/// The director's listing and the boards' deals: they replay the results stream (seconds on a
/// national event), and a deal's analysis takes a fraction of a second, so they have a thread
/// of their own and never hold up the live updates or a page.
fn spawn_director(
    log: Arc<dyn Log>,
    site: &Site,
    stop: &Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    let (site, stop) = (site.clone(), stop.clone());
    std::thread::spawn(move || {
        // On threads of the lowest priority: the replay judges every submission again, and on a
        // national event it would take the cores the projection needs to show the first page.
        let pool = simpairs_pipeline::background::pool("director");
        wait_for_projection(&site, &stop);
        let mut warned = false;
        while !stop.load(Ordering::Relaxed) {
            let read = simpairs_pipeline::background::install(pool.as_ref(), || {
                site.read_log(log.as_ref())
            });
            if let Err(e) = read
                && !std::mem::replace(&mut warned, true)
            {
                tracing::warn!("the director's listing or the hand records cannot be read: {e}");
            }
            std::thread::sleep(REFRESH);
        }
    })
}

/// Returns once the projection has read what the log held (or failed, or [`PROJECTION_GRACE`]
/// has passed, or `stop` is set). Until then the cores go to the projection, and a player's first
/// page and the live results come sooner: the director's replay of a national event's results
/// took a third of the CPU while the projection caught up, even at the lowest priority.
fn wait_for_projection(site: &Site, stop: &AtomicBool) {
    let started = Instant::now();
    while site.health.state() == State::Reading
        && !stop.load(Ordering::Relaxed)
        && started.elapsed() < PROJECTION_GRACE
    {
        std::thread::sleep(WAIT_FOR_PROJECTION);
    }
}

/// Resolves when the server should stop: `stop` set, or the projection failed `grace` ago.
async fn until_stopped(site: Site, stop: Arc<AtomicBool>, grace: Duration) {
    let mut failed_at: Option<Instant> = None;
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if matches!(site.health.state(), State::Failed(_)) {
            let at = *failed_at.get_or_insert_with(Instant::now);
            if at.elapsed() >= grace {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Runs the site of `event` until `stop` is set (or the projection fails): `on_ready` hears the
/// address served, `on_generation` each new national generation.
pub fn run(
    log: Arc<dyn Log>,
    event: &str,
    config: Config,
    stop: Arc<AtomicBool>,
    on_generation: impl FnMut(i64) + Send + 'static,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<()> {
    let site = Site::new(Arc::new(RwLock::new(Projection::new(event))));
    run_site(site, log, config, stop, on_generation, on_ready)
}

/// [`run`] over a site made by the caller (which keeps a handle on it), whose projection is
/// still empty.
pub fn run_site(
    site: Site,
    log: Arc<dyn Log>,
    config: Config,
    stop: Arc<AtomicBool>,
    on_generation: impl FnMut(i64) + Send + 'static,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<()> {
    let event = site.projection().event_id.clone();
    let event = event.as_str();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(Error::Start)?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(config.listen))
        .map_err(|source| Error::Listen {
            addr: config.listen,
            source,
        })?;
    let analysts = crate::analysts::Analysts::new(log.clone(), event, config.index_dir.clone())
        .map_err(Error::Start)?;
    site.set_analysts(analysts);
    let threads = start_projection(log, event, &site, config.publish, &stop, on_generation);
    let app = App::new(site.clone(), config.server.max_live);
    let stop_live = app.stop_live.clone();
    let router = crate::router(app).layer(TimeoutLayer::with_status_code(
        StatusCode::SERVICE_UNAVAILABLE,
        config.server.request_timeout,
    ));
    runtime.block_on(async {
        if let Ok(addr) = listener.local_addr() {
            on_ready(addr);
        }
        let stopped = {
            let (site, stop) = (site.clone(), stop.clone());
            async move {
                until_stopped(site, stop, config.fail_grace).await;
                let _ = stop_live.send(true);
            }
        };
        crate::server::serve(
            listener,
            router,
            &config.server,
            site.connections.clone(),
            stopped,
        )
        .await;
    });
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    match site.health.state() {
        State::Failed(why) => Err(Error::ProjectionStopped(why)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, RwLock};
    use std::time::{Duration, Instant};

    use simpairs_pipeline::project::Projection;

    use crate::Site;

    #[test]
    fn the_directors_listing_is_read_once_the_projection_has_caught_up() {
        let (_dir, log, _) = crate::test_event::declared("wait-1");
        let site = Site::new(Arc::new(RwLock::new(Projection::new("wait-1"))));
        let stop = Arc::new(AtomicBool::new(false));
        let director = super::spawn_director(log, &site, &stop);
        std::thread::sleep(Duration::from_millis(400));
        assert!(
            site.director().is_none(),
            "the listing was read while the projection was still reading the log"
        );
        site.health.set_caught_up();
        let deadline = Instant::now() + Duration::from_secs(20);
        while site.director().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        stop.store(true, Ordering::Relaxed);
        director.join().unwrap();
        assert!(
            site.director().is_some(),
            "the listing was not read once caught up"
        );
    }
}
