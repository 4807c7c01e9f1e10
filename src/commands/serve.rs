//! `simpairs serve`: the projection role, serving the results website (`simpairs-web`) over HTTP.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use simpairs_pipeline::LogLocation;

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
    #[command(flatten)]
    pub web: WebArgs,
    /// Where the analysts' pages (how the field moved, what-if, a player's season) keep the
    /// replay index.
    #[command(flatten)]
    pub index: super::replay_index::IndexFlags,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

/// The web server's bounds.
#[derive(clap::Args, Debug, Clone)]
pub struct WebArgs {
    /// Connections served at once (more wait in the kernel's queue); keep it under the process's
    /// file descriptor limit.
    #[arg(long, default_value_t = 512, env = "SIMPAIRS_MAX_CONNECTIONS")]
    pub max_connections: usize,
    /// Time a client has to send its request's headers, and a kept-alive connection may stay idle.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration, env = "SIMPAIRS_HEADER_TIMEOUT")]
    pub header_timeout: Duration,
    /// Live-update streams open at once.
    #[arg(long, default_value_t = 256, env = "SIMPAIRS_MAX_LIVE")]
    pub max_live: usize,
}

impl WebArgs {
    /// The site's settings for `listen`.
    pub fn config(&self, listen: SocketAddr, publish: bool) -> simpairs_web::Config {
        let mut config = simpairs_web::Config::new(listen);
        config.publish = publish;
        config.server.max_connections = self.max_connections.max(1);
        config.server.header_read_timeout = self.header_timeout;
        config.server.max_live = self.max_live.min(self.max_connections);
        config
    }
}

/// Serves the site of `event` until `stop` is set; an error if the projection stopped on one.
pub fn serve_with(
    log: Arc<dyn simpairs_log::Log>,
    event: &str,
    config: simpairs_web::Config,
    stop: Arc<std::sync::atomic::AtomicBool>,
    on_generation: impl FnMut(i64) + Send + 'static,
    on_ready: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    simpairs_web::run(log, event, config, stop, on_generation, on_ready)?;
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let log = super::open_log(&args.log, &args.kafka)?;
    let event = simpairs_pipeline::declare::pick_event(log.as_ref(), args.event.as_deref())?;
    let stop = super::stop_on_signal();
    let mut config = args.web.config(args.listen, !args.no_publish);
    // `--no-index` still gets an index, in a temporary directory: the pages read many moments.
    config.index_dir = args.index.dir(&args.log);
    serve_with(
        log,
        &event,
        config,
        stop,
        |_| {},
        |addr| {
            println!("results of {event}: http://{addr}/");
        },
    )
}
