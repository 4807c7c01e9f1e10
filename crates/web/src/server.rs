//! The HTTP server, with bounds a public results site needs: at most
//! [`ServerConfig::max_connections`] connections at once (more wait in the kernel's queue, and
//! never cost this process a file descriptor), a client that has not sent its request's headers
//! within [`ServerConfig::header_read_timeout`] is dropped (also a kept-alive connection left idle
//! that long), a response a client does not read within [`ServerConfig::write_timeout`] ends its
//! connection, and request headers are bounded in size.
//!
//! (axum's own `serve` has none of these settings; a thousand slow clients used to hold the
//! leaderboard's connections for a minute and, at 1,024 file descriptors, shut everyone else out.)

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

/// The server's bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// Connections served at once.
    pub max_connections: usize,
    /// Time a client has to send a request's headers (and a kept-alive connection may stay idle).
    pub header_read_timeout: Duration,
    /// Time a response may wait for the client to read it.
    pub write_timeout: Duration,
    /// Time a page may take to answer.
    pub request_timeout: Duration,
    /// Live update streams open at once (each holds a connection).
    pub max_live: usize,
    /// Time open connections get to finish when the server stops.
    pub shutdown_grace: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_connections: 512,
            header_read_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(10),
            max_live: 256,
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

/// The most bytes of request headers read.
const MAX_HEADER_BYTES: usize = 64 * 1024;

/// Counts of the server's connections, for tests and the status page.
#[derive(Debug, Default)]
pub struct ServerStats {
    open: AtomicUsize,
    peak: AtomicUsize,
    accepted: AtomicU64,
}

impl ServerStats {
    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// The most connections open at once so far.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Acquire)
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> u64 {
        self.accepted.load(Ordering::Acquire)
    }
}

/// Decrements the open count when a connection ends, however it ends.
struct Open(Arc<ServerStats>);

impl Open {
    fn new(stats: &Arc<ServerStats>) -> Open {
        let now = stats.open.fetch_add(1, Ordering::AcqRel) + 1;
        stats.peak.fetch_max(now, Ordering::AcqRel);
        stats.accepted.fetch_add(1, Ordering::AcqRel);
        Open(stats.clone())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves `app` on `listener` until `stop` resolves, then lets open connections finish for
/// [`ServerConfig::shutdown_grace`].
pub async fn serve(
    listener: TcpListener,
    app: Router,
    config: &ServerConfig,
    stats: Arc<ServerStats>,
    stop: impl Future<Output = ()>,
) {
    let slots = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let (closing, _) = watch::channel(false);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.header_read_timeout)
        .max_buf_size(MAX_HEADER_BYTES)
        .keep_alive(true);
    tokio::pin!(stop);
    loop {
        // A slot first: past the limit, clients wait in the kernel's queue, not in this process.
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => match p { Ok(p) => p, Err(_) => break },
            () = &mut stop => break,
        };
        let (socket, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors or a connection reset before it was taken: wait a
                    // little rather than spin.
                    tracing::warn!("accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let open = Open::new(&stats);
        let _ = socket.set_nodelay(true);
        let mut io = tokio_io_timeout::TimeoutStream::new(socket);
        io.set_write_timeout(Some(config.write_timeout));
        let io = TokioIo::new(Box::pin(io));
        let conn = http.serve_connection(io, TowerToHyperService::new(app.clone()));
        let mut closing = closing.subscribe();
        tokio::spawn(async move {
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = closing.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
            drop(open);
            drop(permit);
        });
    }
    drop(listener);
    let _ = closing.send(true);
    let deadline = tokio::time::Instant::now() + config.shutdown_grace;
    while stats.open() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
