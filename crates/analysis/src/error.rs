//! The crate's errors, in words an analyst can act on.

/// What went wrong, and where to look.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A way of scoring (`--variant`, the what-if page) that cannot be read; the message says
    /// what would be understood.
    #[error(transparent)]
    Variant(#[from] VariantError),
    /// A player's season asked for without a national id.
    #[error("give the player's national id (membership number)")]
    NoPlayerId,
    /// An export of an event that has nothing to export yet.
    #[error("nothing of event {event} applied or was set aside yet: nothing to export")]
    NothingToExport { event: String },
    /// The export was given the event replayed, not read from its replay index.
    #[error("the export reads the event from its replay index")]
    NotIndexed,
    /// The log, the replay or the scoring failed.
    #[error(transparent)]
    Pipeline(#[from] simpairs_pipeline::Error),
    #[error("scoring: {0}")]
    Scoring(#[from] simpairs_scoring::Error),
    /// No temporary directory could be made for the replay index.
    #[error("cannot make a temporary directory for the replay index: {0}")]
    TempDir(#[source] std::io::Error),
    /// A file of the export could not be written.
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
}

/// What a spec understands, for messages.
pub(crate) const KNOWN: &str = "scoring=mp|butler|cross-imps, factoring=neuberg|ratio, fouled=neuberg|add-one, \
                     scale=double|single, butler-trim=PERCENT (0-49), conventions=PRESET and each \
                     conventions choice (missing=, artificial=, short-lines=, lines=, totals=, \
                     scale-totals=, datum=, trim-from=; docs/rules.md, \"Conventions\")";

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a way of scoring (`key=value,...`) cannot be read: each names the part refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VariantError {
    /// A part that is not `key=value`.
    #[error("{part:?}: expected key=value ({KNOWN})")]
    NotKeyValue { part: String },
    /// A value the key does not take.
    #[error("{part:?}: {value:?} is not understood ({KNOWN})")]
    NotUnderstood { part: String, value: String },
    /// A key that is neither a scoring option nor a conventions choice.
    #[error("{part:?}: unknown option {key:?} ({KNOWN})")]
    UnknownOption { part: String, key: String },
    /// A conventions preset or choice that the scoring refuses.
    #[error("{part:?}: {source}")]
    Conventions {
        part: String,
        #[source]
        source: simpairs_scoring::ConventionsError,
    },
}

impl Error {
    /// Whether the request cannot be answered as given (a spec spelled wrong, no player id,
    /// nothing to export yet), as opposed to the log, the replay or the scoring failing.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::Variant(_) | Error::NoPlayerId | Error::NothingToExport { .. }
        )
    }

    /// A file that could not be written, and why.
    pub(crate) fn write(path: &std::path::Path, reason: impl std::fmt::Display) -> Error {
        Error::Write {
            path: path.display().to_string(),
            reason: reason.to_string(),
        }
    }
}
