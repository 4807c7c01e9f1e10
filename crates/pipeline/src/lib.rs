//! # simpairs-pipeline
//!
//! The event-sourced pipeline: clubs publish their results as signed submissions to a log; the
//! aggregator applies each submission when its seal checks out and rescores the boards; the projection
//! materialises leaderboards and serves them. The log is the source of truth: every view here can be
//! rebuilt from it.
//!
//! ## Layout
//! - [`streams`]: log locations and stream names (`<event>.results` ...).
//! - [`state`]: the pure state of an event as the log tells it (what applied, what was set aside);
//!   [`PairKey`]: a pair of the event by its names.
//! - [`judge`]: the one judge of whether a submission applies, used by every role; [`limits`]:
//!   how big a submission may be.
//! - [`results`]: one club's results in force, kept in table order.
//! - [`field`]: from applied results to a scoring field.
//! - [`publish`]: the club node: a results file becomes a signed submission.
//! - [`declare`]: the organiser: an event, its boards, scoring and clubs with their keys.
//! - [`aggregate`]: the aggregator role.
//! - [`project`]: the projection's views (the `simpairs-web` crate serves them).
//! - [`replay`]: rebuilding a field from the log, as of any offset or time; [`history`]: the
//!   replay index, every generation kept on disk so that any moment is read, not judged again.
//! - [`views`]: the data the results website shows (search, rankings, scorecards, travellers),
//!   computed from the projection.
//! - [`wire`]: every conversion between the events' types and the scoring engine's.

pub mod aggregate;
pub mod announce;
pub mod background;
pub mod deals;
pub mod declare;
mod derive;
pub mod error;
pub mod field;
pub mod history;
pub mod judge;
pub mod keys;
pub mod known_deals;
pub mod limits;
pub mod output;
mod pair;
mod pending;
pub mod project;
pub mod publish;
pub mod replay;
pub mod results;
pub mod roster;
mod sections;
pub mod state;
pub mod streams;
pub mod submissions;
#[cfg(test)]
mod test_result;
pub mod views;
mod when;
pub mod wire;
mod words;
mod writing;
mod written;

pub use error::{
    AmendmentRefused, BadClubId, DeclareError, EventError, FirstSeal, FoundKey, KeyError,
    LocationError, PublishError, ReplayError,
};
pub use pair::PairKey;
pub use streams::{LogLocation, stream_name};

/// Errors of the pipeline, in words a tournament director or an IT team can act on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The event a request names, or the lack of one.
    #[error(transparent)]
    Event(#[from] EventError),
    /// A signing key that cannot be read, or may not sign this.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A declaration or amendment that cannot be declared.
    #[error(transparent)]
    Declare(#[from] DeclareError),
    /// A club's file that cannot be published.
    #[error(transparent)]
    Publish(#[from] PublishError),
    /// A moment or part of a replay that cannot be given.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// A log location that cannot be opened.
    #[error(transparent)]
    Location(#[from] LocationError),
    /// A file or directory could not be read, written or made.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done, e.g. "read the key file".
        action: &'static str,
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The operating system's random source failed.
    #[error("cannot draw a random key: {0}")]
    Random(#[source] getrandom::Error),
    /// The replay index cannot be read or written. It is only a copy of what the log says.
    #[error(
        "replay index {}: {what}: {source} (the index is only a copy of what the log says: delete the file and it is built again, or replay with --no-index)",
        path.display()
    )]
    Index {
        path: std::path::PathBuf,
        /// What failed: "cannot write", "damaged", ...
        what: &'static str,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A thread doing part of the work stopped without finishing it.
    #[error("{0} failed")]
    Stopped(&'static str),
    #[error(transparent)]
    Log(#[from] simpairs_log::Error),
    #[error("event: {0}")]
    Events(#[from] simpairs_events::Error),
    #[error("{0}")]
    Formats(#[from] simpairs_formats::Error),
    #[error("scoring: {0}")]
    Scoring(#[from] simpairs_scoring::Error),
    /// An event that is declared already.
    #[error(
        "event {event} is already declared in this log (at {declared_at}, with {clubs} clubs); nothing was changed. To add clubs, declare hand records or change keys, use simpairs event amend with the organiser's key"
    )]
    AlreadyDeclared {
        event: String,
        clubs: usize,
        declared_at: String,
    },
    /// An event declared by a simpairs that signed with shared HMAC keys.
    #[error(
        "event {event} was declared by an earlier simpairs, with shared HMAC keys that every club could read from the log, so any club could sign for another; it is refused. Declare the event again (a new event id) with simpairs event declare: clubs then sign with private keys of their own"
    )]
    Legacy { event: String },
    /// Records a stream must keep are gone from the log.
    #[error(
        "the records of stream {stream} (partition {partition}) from offset {from} up to offset {until} are gone from the log: the results are the source of truth and are kept forever, so the log lost them; restore it from a backup (nothing was shown as if the event were whole)"
    )]
    Lost {
        stream: String,
        partition: u32,
        from: u64,
        until: u64,
    },
    /// A declaration that names a scoring choice this program does not know.
    #[error(
        "event {event} is declared with {what}, which this version of simpairs does not know; use the simpairs that declared it, or a later one"
    )]
    Undeclarable { event: String, what: String },
    /// A value the events cannot carry, or the engine cannot take.
    #[error("{0}")]
    Wire(#[from] wire::Unknown),
    /// The judge would set a submission aside: nothing was published.
    #[error("nothing was published: the aggregator would set this submission aside: {0}")]
    Refused(Box<publish::Refused>),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An [`Error::Io`] of `action` on `path`, from the operating system's error.
pub(crate) fn io<'p>(
    action: &'static str,
    path: &'p std::path::Path,
) -> impl FnOnce(std::io::Error) -> Error + 'p {
    move |source| Error::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Reads every message of one partition of a stream from `from` up to (not including) `until`.
/// Reads up to `max` records from `*at`, or from the partition's first kept record when the ones
/// before it were removed (Kafka compaction or retention can move a partition's start; Tansu's
/// compaction does): `*at` then moves there.
pub(crate) fn read_kept(
    log: &dyn simpairs_log::Log,
    stream: &str,
    partition: u32,
    at: &mut u64,
    max: usize,
) -> Result<Vec<simpairs_log::Record>> {
    match log.read(stream, partition, *at, max) {
        Err(simpairs_log::Error::OffsetOutOfRange { start, .. }) if *at < start => {
            if !compacted(stream) {
                // Records the log must keep forever are gone: never a smaller event shown as whole.
                return Err(Error::Lost {
                    stream: stream.to_string(),
                    partition,
                    from: *at,
                    until: start,
                });
            }
            *at = start;
            Ok(log.read(stream, partition, start, max)?)
        }
        other => Ok(other?),
    }
}

/// Whether a stream is compacted (its older records may be gone by design): the derived
/// board scores and leaderboards. The declarations, results and dead letters are kept forever.
fn compacted(stream: &str) -> bool {
    use simpairs_events::Stream;
    [Stream::BoardScores, Stream::Leaderboard]
        .iter()
        .any(|s| stream.ends_with(&format!(".{}", s.name())))
}

/// Gives `each` every record of one partition of `stream` from offset `from` to `until`, in
/// order; each is given over (a reader that keeps records keeps them without a copy).
pub fn read_range(
    log: &dyn simpairs_log::Log,
    stream: &str,
    partition: u32,
    from: u64,
    until: u64,
    mut each: impl FnMut(simpairs_log::Record),
) -> Result<()> {
    let mut at = from;
    while at < until {
        let batch = read_kept(log, stream, partition, &mut at, 10_000)?;
        if batch.is_empty() {
            // Nothing before `until`: the offsets left are not records (Kafka's transaction
            // markers), or the log stopped answering. Asking it again tells which.
            log.end_offset(stream, partition)?;
            break;
        }
        for record in batch {
            if record.offset >= until {
                return Ok(());
            }
            at = record.offset + 1;
            each(record);
        }
    }
    Ok(())
}
