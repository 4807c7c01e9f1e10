//! `simpairs serve`: the projection role, serving the live leaderboard over HTTP.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, RwLock};

use anyhow::Context;
use simpairs_pipeline::LogLocation;
use simpairs_pipeline::project::Projection;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: Option<String>,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080", env = "SIMPAIRS_LISTEN")]
    pub listen: SocketAddr,
    /// Do not write LeaderboardPublished events (a read-only replica).
    #[arg(long)]
    pub no_publish: bool,
}

/// Starts the projection of `event` on a thread and serves it at `listen` until `stop` is set.
pub fn serve(
    log: Arc<dyn simpairs_log::Log>,
    event: &str,
    listen: SocketAddr,
    publish: bool,
    stop: Arc<std::sync::atomic::AtomicBool>,
    on_ready: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    serve_with(log, event, listen, publish, stop, |_| {}, on_ready)
}

/// [`serve`], telling `on_generation` about each new national generation shown.
pub fn serve_with(
    log: Arc<dyn simpairs_log::Log>,
    event: &str,
    listen: SocketAddr,
    publish: bool,
    stop: Arc<std::sync::atomic::AtomicBool>,
    on_generation: impl FnMut(i64) + Send + 'static,
    on_ready: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    let projection = Arc::new(RwLock::new(Projection::new(event)));
    let worker = {
        let (log, projection, stop, event) = (
            log.clone(),
            projection.clone(),
            stop.clone(),
            event.to_string(),
        );
        std::thread::spawn(move || {
            simpairs_pipeline::project::run(log, &event, projection, &stop, publish, on_generation)
        })
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("cannot listen on {listen}"))?;
        on_ready(listener.local_addr()?);
        let app = simpairs_pipeline::http::router(projection);
        let stop_wait = stop.clone();
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                while !stop_wait.load(Ordering::Relaxed) {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            })
            .await
            .context("the web server stopped")
    });
    stop.store(true, Ordering::Relaxed);
    match worker.join() {
        Ok(r) => r?,
        Err(_) => anyhow::bail!("the projection thread failed"),
    }
    served
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let log = super::open_log(&args.log)?;
    let event = simpairs_pipeline::declare::pick_event(log.as_ref(), args.event.as_deref())?;
    let stop = super::stop_on_signal();
    serve(log, &event, args.listen, !args.no_publish, stop, |addr| {
        println!("leaderboard of {event}: http://{addr}/");
    })
}
