//! Where the replay index of an event is kept (`--index-dir`), shared by the commands that read an
//! event as of a moment (`replay`, `export`, `compare`, `history`).

use std::path::PathBuf;

use simpairs_pipeline::LogLocation;

/// The replay index's flags.
#[derive(clap::Args, Debug, Clone)]
pub struct IndexFlags {
    /// Directory of the replay index (every generation of the event, so that any moment is read
    /// rather than judged again); by default under $XDG_CACHE_HOME (or ~/.cache)/simpairs.
    #[arg(long, env = "SIMPAIRS_INDEX_DIR")]
    pub index_dir: Option<PathBuf>,
    /// Replay the log from its first record, without the index.
    #[arg(long, env = "SIMPAIRS_NO_INDEX")]
    pub no_index: bool,
}

impl IndexFlags {
    /// The index directory for a log, if one is to be used.
    pub fn dir(&self, log: &LogLocation) -> Option<PathBuf> {
        if self.no_index {
            return None;
        }
        if let Some(dir) = &self.index_dir {
            return Some(dir.clone());
        }
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(
            cache
                .join("simpairs")
                .join("replay-index")
                .join(log_key(log)),
        )
    }
}

/// A directory name for a log: the log's place, made absolute, hashed (two logs never share an
/// index; the index itself checks that the log is the one it indexed).
fn log_key(log: &LogLocation) -> String {
    use sha2::Digest;
    let place = match log {
        LogLocation::Embedded(dir) => std::fs::canonicalize(dir)
            .unwrap_or_else(|_| dir.clone())
            .display()
            .to_string(),
        other => other.to_string(),
    };
    hex::encode(&sha2::Sha256::digest(place.as_bytes())[..12])
}
