//! The crate's errors, in words an analyst can act on.

/// What went wrong, and where to look.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A request that cannot be carried out as given (a method spelled wrong, a player nobody
    /// knows); the message says what would be understood.
    #[error("{0}")]
    Usage(String),
    /// The log, the replay or the scoring failed.
    #[error(transparent)]
    Pipeline(#[from] simpairs_pipeline::Error),
    #[error("scoring: {0}")]
    Scoring(#[from] simpairs_scoring::Error),
    /// A file of the export could not be written.
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A file that could not be written, and why.
    pub(crate) fn write(path: &std::path::Path, reason: impl std::fmt::Display) -> Error {
        Error::Write {
            path: path.display().to_string(),
            reason: reason.to_string(),
        }
    }
}
