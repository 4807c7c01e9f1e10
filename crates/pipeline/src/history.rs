//! The replay index: every generation of an event (each submission applied, in the order the
//! judge applied it, with the record whose arrival applied it), kept in one file beside the log,
//! so that the event as of any moment is read from what applied up to it instead of judged again
//! from the log's first record.
//!
//! `replay` judges every seal again (digests, signatures, every result's checks) each time it is
//! run: about 3 s of CPU for a national event of 3,600,000 results, plus the field and the
//! scoring. The index is built by that same replay, once ([`Index::build`]); a moment is then
//! the applied submissions up to it, decoded in parallel and put in force as the state puts them
//! ([`Moment`]); the process that has just built the index takes them from what it built. The
//! log stays the source of truth: the index names the records it covers (the end offset and a
//! digest of the last record of each partition). When records were appended since and a moment
//! after what it covers is asked for, it is read on from the state it saved at its end
//! ([`Index::read_on`], [`crate::state::Saved`]); it is built again when the log is not the one
//! it indexed.
//!
//! ## Which moments the index answers
//! - Everything, and any offset (one partition; offsets are inclusive, as `replay` takes them):
//!   the submissions whose completing record is at or before the offset, in the order they applied.
//! - A time, on one partition whose timestamps never go back (the embedded log's): the records
//!   at or before a time are then the records before an offset.
//!
//! A time on a log of several partitions is left to the replay ([`Index::moment`] says it cannot
//! answer, and [`replay_at`] replays): replay reads the partitions one after the other, and which
//! submissions a time holds depends on which copy of a record republished by a club arrived
//! first in which partition, a judgment the index would have to make again. The generations of
//! such a log are numbered in the order replay applies them (partition after partition).
//!
//! Both are held to `replay` at every record of test logs (`tests/history.rs`).
//!
//! ## Layout
//! - [`build`]: the results stream read once through the state, each effect noted with its
//!   record; or read on from the state saved at the end of what an index covers.
//! - [`store`]: the file (meta, record positions, the applied submissions' messages).
//! - [`in_force`]: results put in force a submission at a time, as the state does.
//! - [`moment`]: the event as of a moment, from the index or from a replay.

mod build;
mod imported;
mod in_force;
mod moment;
mod store;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use simpairs_events::Stream;
use simpairs_events::types::SubmissionApplied;
use simpairs_log::Log;

pub use in_force::InForce;
pub use moment::{Moment, Results};

use crate::replay::AsOf;
use crate::{Error, Result, stream_name};

/// The version of the index file, its layout and the rules its results in force were read by
/// (docs/rules.md, "Corrections", a pair number read as the pair in force; the organiser's seals
/// for a club, docs/decisions/trust.md; hand records from where they were declared, its saved
/// state keeping the clubs' deals apart; a withdrawn club's deals forgotten, a board at a time,
/// its saved state keeping which clubs gave each deal; the organiser's close, docs/rules.md,
/// "Closing an event"): an index of another version is built again.
pub const FORMAT: u32 = 8;

/// One generation: a submission applied, where, and what it needed to apply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    /// Submissions applied once this one is (from 1).
    pub generation: i64,
    pub club: String,
    pub submission: String,
    /// The seal's offset on the results stream (what `club publish` printed).
    pub seal_offset: i64,
    /// When the club sealed it (ms since the epoch).
    pub sealed_at_ms: i64,
    /// The file the club named as its source.
    pub source: Option<String>,
    /// The record whose arrival applied it: partition, offset, and its timestamp (ms).
    pub partition: u32,
    pub offset: u64,
    pub applied_at_ms: i64,
    /// Results and withdrawals it carried.
    pub results: usize,
    pub withdrawn: usize,
    /// What the club's reading of its file warned of, as its seal carries it.
    pub warnings: Vec<simpairs_events::types::SealWarning>,
    /// Its message's place in the file's applied section, and a CRC-32 of it.
    bytes: (u64, u64),
    crc: u32,
}

/// A record set aside, with the record whose handling set it aside.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeadLetter {
    pub partition: u32,
    pub offset: u64,
    pub at_ms: i64,
    pub reason: String,
}

/// What the index covers of one partition: its end offset when it was built, and the SHA-256 of
/// the last record before it (hex; empty for an empty partition).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Covered {
    end: u64,
    last: String,
}

/// How the log stands against the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// The log is exactly what was indexed.
    Whole,
    /// Records were appended since: moments before them are answered.
    Grown,
    /// The log is not the one indexed (shorter, or other records): build again.
    Other,
}

/// An event's replay index, open (its applied submissions are read from the file when asked).
#[derive(Clone, Debug)]
pub struct Index {
    path: PathBuf,
    meta: store::Meta,
    /// Per partition, every record's (offset, timestamp) in offset order.
    records: Vec<Vec<(u64, i64)>>,
    /// Where the applied section starts in the file.
    applied_at: u64,
    /// The applied submissions' messages, in the order they applied, when this process has just
    /// built the index: read from here instead of the file ([`store::Applied`]).
    built: Option<Arc<[Vec<u8>]>>,
    /// Every applied submission decoded, when several moments are read from this index at once
    /// ([`replay_each`]): decoded once for all of them, not once for each.
    decoded: Option<Arc<[Arc<SubmissionApplied>]>>,
    /// When this process has just built the index: the field of each club whose results in force
    /// at the end are its only submission's, as the checks built it (the latest moment's national
    /// field is joined from them instead of built again: [`Index::kept`]).
    fields: Arc<std::collections::BTreeMap<String, simpairs_scoring::Field>>,
    /// With `fields`: each pair's players at the end the build reached, as its state entered
    /// them (the latest moment's players are these, not read again).
    players: Arc<std::collections::BTreeMap<crate::PairKey, Vec<simpairs_events::types::Player>>>,
    /// The file this index was read from, kept open: another reader may read the index on and
    /// rename a new file over it, and this index's sections are where it read them, in this file.
    file: Option<Arc<std::fs::File>>,
}

/// The file of `event`'s index in `dir`.
pub fn index_path(dir: &Path, event: &str) -> PathBuf {
    dir.join(format!("{event}.replay-index"))
}

impl Index {
    /// Replays the event's whole log and writes its index to `dir` (replacing any older one).
    pub fn build(log: &dyn Log, event: &str, dir: &Path) -> Result<Index> {
        let (index, unwritten) = Index::built(log, event, dir)?;
        unwritten.write()?;
        Ok(index)
    }

    /// [`Index::build`] but for writing its file: the index answers from what the build holds.
    fn built(log: &dyn Log, event: &str, dir: &Path) -> Result<(Index, store::Unwritten)> {
        let started = std::time::Instant::now();
        let built = build::build(log, event)?;
        tracing::debug!(elapsed = ?started.elapsed(), "replay index: the log read through the judge");
        let (index, unwritten) = store::prepare(&index_path(dir, event), built, None)?;
        tracing::info!(
            event,
            generations = index.meta.generations.len(),
            elapsed = ?started.elapsed(),
            "replay index built"
        );
        Ok((index, unwritten))
    }

    /// The index of the whole log as it is now, in `dir`: the one there when it covers the
    /// whole log, read on through the records appended since it was built when it can be
    /// ([`Coverage::Grown`]), else built again.
    pub fn up_to_date(log: &dyn Log, event: &str, dir: &Path) -> Result<Index> {
        let opened = opened(log, event, dir)?;
        Ok(Index::brought_up(log, event, dir, opened, Write::Now)?.0)
    }

    /// [`Index::up_to_date`], from the index opened in `dir` and how the log stands against it;
    /// with [`Write::Later`], an index built afresh comes with its file still to write.
    fn brought_up(
        log: &dyn Log,
        event: &str,
        dir: &Path,
        opened: Option<(Index, Coverage)>,
        write: Write,
    ) -> Result<(Index, Option<store::Unwritten>)> {
        let read_on = match opened {
            Some((index, Coverage::Whole)) => Some(index),
            Some((index, Coverage::Grown)) => index.extended(log, dir)?,
            Some((_, Coverage::Other)) | None => None,
        };
        if let Some(index) = read_on {
            return Ok((index, None));
        }
        match write {
            Write::Now => Ok((Index::build(log, event, dir)?, None)),
            Write::Later => {
                let (index, unwritten) = Index::built(log, event, dir)?;
                Ok((index, Some(unwritten)))
            }
        }
    }

    /// This index read on through the records appended to the log since it was built, from the
    /// state it saved at its end, and written to `dir`. `None` when it cannot be and must be built
    /// again: the log is not one that grew from what it covers ([`Coverage`]), records were
    /// appended to another partition than the last (replay reads the partitions one after the
    /// other, so they are not read after what the index read last), or its file or its state does
    /// not read back.
    pub fn read_on(&self, log: &dyn Log, dir: &Path) -> Result<Option<Index>> {
        if self.coverage(log)? != Coverage::Grown {
            return Ok(None);
        }
        self.extended(log, dir)
    }

    /// [`Index::read_on`], the log known to have grown from what the index covers.
    fn extended(&self, log: &dyn Log, dir: &Path) -> Result<Option<Index>> {
        let started = std::time::Instant::now();
        let event = self.meta.event.as_str();
        let (applied, kept) = match store::applied_kept(self) {
            Ok(read) => read,
            // The index is only a copy of what the log says: a damaged one is built again.
            Err(e @ Error::Index { .. }) => {
                tracing::warn!(
                    event,
                    "the replay index cannot be read on ({e}); it is built again"
                );
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        tracing::debug!(elapsed = ?started.elapsed(), "replay index: applied submissions read");
        let Some(built) = build::extend(log, self, applied)? else {
            return Ok(None);
        };
        let index = store::write(&index_path(dir, event), built, Some(kept))?;
        tracing::info!(
            event,
            generations = index.meta.generations.len(),
            elapsed = ?started.elapsed(),
            "replay index read on through the records appended"
        );
        Ok(Some(index))
    }

    /// The index of `event` in `dir`, if there is one this program can read (an index of
    /// another version, or damaged, is `None`: build it again).
    pub fn open(dir: &Path, event: &str) -> Result<Option<Index>> {
        store::read(&index_path(dir, event), event)
    }

    /// The generations, in the order they applied.
    pub fn generations(&self) -> &[Generation] {
        &self.meta.generations
    }

    /// The records set aside, in the order replay finds them.
    pub fn dead_letters(&self) -> &[DeadLetter] {
        &self.meta.dead_letters
    }

    /// The deal of each board as the event knew it when the index was built: the organiser's
    /// hand records, else the first applied club's (PBN notation from North).
    pub fn deals(&self) -> &std::collections::BTreeMap<i32, String> {
        &self.meta.deals
    }

    /// How the log stands against what the index covers.
    pub fn coverage(&self, log: &dyn Log) -> Result<Coverage> {
        let results = stream_name(&self.meta.event, Stream::Results);
        if log.partitions(&results)? as usize != self.meta.covered.len() {
            return Ok(Coverage::Other);
        }
        // Amendments decide whose seals verify: any change there is another event to judge.
        if build::declarations(log, &self.meta.event)? != self.meta.declarations {
            return Ok(Coverage::Other);
        }
        let mut grown = false;
        for (partition, covered) in self.meta.covered.iter().enumerate() {
            let end = log.end_offset(&results, partition as u32)?;
            if end < covered.end
                || build::last_digest(log, &results, partition as u32, covered.end)? != covered.last
            {
                return Ok(Coverage::Other);
            }
            grown |= end > covered.end;
        }
        Ok(if grown {
            Coverage::Grown
        } else {
            Coverage::Whole
        })
    }

    /// This index with every applied submission decoded (in parallel), for reading several
    /// moments from it.
    fn all_decoded(mut self) -> Result<Index> {
        let all = store::applied(&self, 0..self.meta.generations.len())?;
        self.decoded = Some(Arc::from(all));
        // The messages are read no more.
        self.built = None;
        Ok(self)
    }

    /// The applied submissions of generations `range` (indices into [`Index::generations`]),
    /// read from the file and decoded in parallel.
    pub fn applied(&self, range: std::ops::Range<usize>) -> Result<Vec<Arc<SubmissionApplied>>> {
        store::applied(self, range)
    }
}

/// The event as of a moment: from the index in `dir` when it can answer exactly (built first if
/// there is none, or if it does not cover the moment), from a replay of the log otherwise, or
/// always when `dir` is `None`.
pub fn replay_at(
    log: &dyn Log,
    event: &str,
    dir: Option<&Path>,
    as_of: Option<AsOf>,
) -> Result<Moment> {
    let [moment] = replay_each(log, event, dir, [as_of])?;
    moment
}

/// The event as of each moment, as [`replay_at`] gives it: from one index, opened (or brought
/// up to date) once, so that the submissions it has just read on are not decoded again from its
/// file for the next moment. The outer error is the index's; each moment has its own.
pub fn replay_each<const N: usize>(
    log: &dyn Log,
    event: &str,
    dir: Option<&Path>,
    as_ofs: [Option<AsOf>; N],
) -> Result<[Result<Moment>; N]> {
    let index = match dir {
        Some(dir) => index_answering(log, event, dir, &as_ofs, Write::Now)?.map(|(index, _)| index),
        None => None,
    };
    let index = match index {
        Some(index) if N > 1 => Some(index.all_decoded()?),
        index => index,
    };
    Ok(as_ofs.map(|as_of| match &index {
        Some(index) => moment_of(index, log, event, as_of),
        None => Moment::replayed(log, event, as_of),
    }))
}

/// The moment from `index`, or replayed when the index leaves it to the replay.
fn moment_of(index: &Index, log: &dyn Log, event: &str, as_of: Option<AsOf>) -> Result<Moment> {
    match index.moment(log, as_of)? {
        Some(moment) => Ok(moment),
        None => Moment::replayed(log, event, as_of),
    }
}

/// [`replay_at`], and `then` made from the moment. When the index is built afresh, its file is
/// written on a thread of its own while `then` is made (the moment is read from what the build
/// holds, not from the file): the first replay of a national event does not wait for 100 MB to be
/// written. A file that cannot be written is reported, and the answer stands.
pub fn replay_at_then<T>(
    log: &dyn Log,
    event: &str,
    dir: Option<&Path>,
    as_of: Option<AsOf>,
    then: impl FnOnce(&Moment) -> Result<T>,
) -> Result<(Moment, T)> {
    let answering = match dir {
        Some(dir) => index_answering(log, event, dir, &[as_of], Write::Later)?,
        None => None,
    };
    let Some((index, unwritten)) = answering else {
        let moment = Moment::replayed(log, event, as_of)?;
        let made = then(&moment)?;
        return Ok((moment, made));
    };
    std::thread::scope(|scope| {
        let writing = unwritten.map(|unwritten| scope.spawn(move || unwritten.write()));
        let answered = moment_of(&index, log, event, as_of)
            .and_then(|moment| then(&moment).map(|made| (moment, made)));
        let written = writing.map(|writing| {
            writing
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        if let Some(Err(e)) = written {
            tracing::warn!(
                "the replay index could not be written ({e}): this replay's answer is whole, and \
                 the next replay builds the index again"
            );
        }
        answered
    })
}

/// When an index built afresh is written ([`Index::brought_up`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Write {
    /// Before the index is given.
    Now,
    /// By the caller, with the file given beside the index.
    Later,
}

/// The index in `dir` if it answers every moment of `as_ofs`, else brought up to date (with its
/// file to write, when built afresh and `write` is [`Write::Later`]); `None` when it cannot be (a
/// directory that cannot be written, a full disk): a replay answers then.
fn index_answering(
    log: &dyn Log,
    event: &str,
    dir: &Path,
    as_ofs: &[Option<AsOf>],
    write: Write,
) -> Result<Option<(Index, Option<store::Unwritten>)>> {
    let opened = opened(log, event, dir)?;
    if let Some((index, coverage)) = &opened {
        let mut all = true;
        for &as_of in as_ofs {
            all = all && answers(index, *coverage, log, as_of)?;
        }
        if all {
            return Ok(opened.map(|(index, _)| (index, None)));
        }
    }
    match Index::brought_up(log, event, dir, opened, write) {
        Ok(brought_up) => Ok(Some(brought_up)),
        Err(e @ (Error::Index { .. } | Error::Io { .. })) => {
            tracing::warn!("replaying without the index: {e}");
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The index of `event` in `dir`, if there is one, and how `log` stands against it.
fn opened(log: &dyn Log, event: &str, dir: &Path) -> Result<Option<(Index, Coverage)>> {
    let Some(index) = Index::open(dir, event)? else {
        return Ok(None);
    };
    let coverage = index.coverage(log)?;
    Ok(Some((index, coverage)))
}

/// Whether an index open on `log` covers `as_of` (else it is read on, or built again).
fn answers(index: &Index, coverage: Coverage, log: &dyn Log, as_of: Option<AsOf>) -> Result<bool> {
    Ok(match coverage {
        Coverage::Whole => true,
        Coverage::Other => false,
        Coverage::Grown => index.within(log, as_of)?,
    })
}
