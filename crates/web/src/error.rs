//! The web crate's errors, in words an organiser running the site can act on.

use std::net::SocketAddr;

/// What can stop the results website.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The address is taken or not ours to listen on.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The projection stopped reading the log (a damaged stream, the log unreadable): the pages
    /// would no longer follow the event.
    #[error("the results stopped updating: {0}")]
    ProjectionStopped(String),
    /// The server's runtime or a thread of it could not be started.
    #[error("the web server could not start: {0}")]
    Start(std::io::Error),
    #[error("{0}")]
    Pipeline(#[from] simpairs_pipeline::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
