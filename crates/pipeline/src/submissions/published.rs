//! How far the aggregator's published scores have come, for the director's listing. The listing
//! is a replay of the log: it judges every submission itself, so a submission it lists as applied
//! may not be on the website yet, when the aggregator is behind or not running. The listing says
//! so, as the website's director's page does ("applied, not shown yet").

use simpairs_events::{Codec, Event, Stream};
use simpairs_log::Log;

use super::{State, SubmissionView};
use crate::{Result, read_range, stream_name};

/// How far back from the end of the aggregator's output the last applied submission is looked
/// for: a batch's board scores follow its applied submissions, a few hundred records a club.
const LOOK_BACK: u64 = 20_000;
/// Records read back at a time.
const STEP: u64 = 500;

/// The last applied submission the aggregator published.
#[derive(Debug, PartialEq, Eq)]
enum Published {
    /// None yet.
    Nothing,
    /// This submission's, by its id.
    Last(String),
    /// Not known: the output is in several partitions (their order is not the listing's), or no
    /// applied submission is near its end.
    Unknown,
}

/// How many of the submissions `listed` as applied (or superseded since) the aggregator has not
/// published yet; `None` when that cannot be told.
pub(super) fn awaiting(
    log: &dyn Log,
    event: &str,
    listed: &[SubmissionView],
) -> Result<Option<usize>> {
    let applied: Vec<&SubmissionView> = (listed.iter())
        .filter(|s| s.state != State::SetAside)
        .collect();
    if applied.is_empty() {
        return Ok(None);
    }
    Ok(match last_published(log, event)? {
        Published::Nothing => Some(applied.len()),
        Published::Last(id) => (applied.iter())
            .position(|s| s.submission == id)
            .map(|at| applied.len() - at - 1),
        Published::Unknown => None,
    })
}

/// The last applied submission in the aggregator's output, read back from its end.
fn last_published(log: &dyn Log, event: &str) -> Result<Published> {
    let stream = stream_name(event, Stream::BoardScores);
    let results = stream_name(event, Stream::Results);
    if log.partitions(&stream)? != 1 || log.partitions(&results)? != 1 {
        return Ok(Published::Unknown);
    }
    let codec = Codec::new()?;
    let end = log.end_offset(&stream, 0)?;
    let mut until = end;
    while until > 0 && end - until < LOOK_BACK {
        let from = until.saturating_sub(STEP);
        let mut last = None;
        read_range(log, &stream, 0, from, until, |r| {
            if let Ok(Event::SubmissionApplied(a)) = codec.decode(&r.value) {
                last = Some(a.submission_id);
            }
        })?;
        if let Some(id) = last {
            return Ok(Published::Last(id));
        }
        until = from;
    }
    Ok(match until {
        0 => Published::Nothing,
        _ => Published::Unknown,
    })
}
