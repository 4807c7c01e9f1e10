//! Where things are: log locations and the names of an event's streams.

use std::path::PathBuf;
use std::sync::Arc;

use simpairs_events::Stream;
use simpairs_log::Log;

use crate::{Error, EventError, LocationError, Result};

/// A log given on the command line: a directory (the embedded log) or `kafka://host:port[,host:port]`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogLocation {
    Embedded(PathBuf),
    Kafka { brokers: String },
}

impl std::str::FromStr for LogLocation {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        if let Some(brokers) = s.strip_prefix("kafka://") {
            if brokers.is_empty() {
                return Err(LocationError::NoBroker.into());
            }
            return Ok(LogLocation::Kafka {
                brokers: brokers.trim_end_matches('/').to_string(),
            });
        }
        if s.contains("://") {
            return Err(LocationError::Unknown {
                location: s.to_string(),
            }
            .into());
        }
        Ok(LogLocation::Embedded(PathBuf::from(s)))
    }
}

impl std::fmt::Display for LogLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogLocation::Embedded(dir) => write!(f, "{}", dir.display()),
            LogLocation::Kafka { brokers } => write!(f, "kafka://{brokers}"),
        }
    }
}

/// Opens the embedded log in a directory (the command line opens the Kafka backend itself).
pub fn open_embedded(dir: &std::path::Path) -> Result<Arc<dyn Log>> {
    std::fs::create_dir_all(dir).map_err(crate::io("create the log directory", dir))?;
    Ok(Arc::new(simpairs_log::EmbeddedLog::open(dir)?))
}

/// Checks that `dir` holds an embedded log (every one has its consumer groups' directory), for a
/// role that reads or adds to an event's log rather than makes one: a mistyped path is an error
/// saying so, not an empty log made there.
pub fn check_embedded(dir: &std::path::Path) -> Result<()> {
    if simpairs_log::EmbeddedLog::is_log(dir) {
        return Ok(());
    }
    Err(crate::LocationError::NoLog {
        dir: dir.to_path_buf(),
        exists: dir.exists(),
    }
    .into())
}

/// The name of one of an event's streams: `<event>.<stream>` (a Kafka topic, an embedded log directory).
pub fn stream_name(event_id: &str, stream: Stream) -> String {
    format!("{event_id}.{}", stream.name())
}

/// Checks that an event id can name streams (Kafka topic rules: letters, digits, `.`, `_`, `-`).
pub(crate) fn check_event_id(event_id: &str) -> Result<()> {
    let ok = !event_id.is_empty()
        && event_id.len() <= 200
        && event_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(EventError::BadId {
            event: event_id.to_string(),
        }
        .into())
    }
}
