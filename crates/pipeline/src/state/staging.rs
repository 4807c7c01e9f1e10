//! Staging many records at once (a batch of the aggregator, a rebuild, a replay, the replay
//! index's build): decoding a record and checking a seal's signature are independent of every
//! other record, so they are done in parallel; staging is in log order, one record after the
//! other ([`EventState::stage_at`]).

use simpairs_events::{Event, Skimmed};

use super::{Batch, EventState, check_signer};
use crate::judge::Rejection;
use crate::roster::Roster;

/// A record skimmed, and its signer checked when it is a seal.
type Decoded = (Result<Skimmed, String>, Option<Result<(), Rejection>>);

/// Records decoded at a time while the ones before are staged (see [`stage_overlapped`]): a few
/// tens of milliseconds of decoding.
const DECODE_CHUNK: usize = 8192;

/// Batches of at most this many records (a club's submission, as a live aggregator polls it) are
/// decoded and staged on the calling thread: a thread of their own and the parallel decoding cost
/// more than they overlap (docs/benchmarks.md, 2026-12-06).
const STAGED_HERE: usize = 64;

/// The signer check of a skimmed record, if it is a seal (see [`Batch::prechecked`]).
fn precheck(
    roster: &Roster,
    skimmed: &Skimmed,
    partition: u32,
    offset: i64,
) -> Option<Result<(), Rejection>> {
    match skimmed {
        Skimmed::Event(event) => match event.as_ref() {
            Event::SubmissionSealed(seal) => Some(check_signer(roster, seal, partition, offset)),
            _ => None,
        },
        Skimmed::Results(_) => None,
    }
}

/// Stages `records` in log order. Unless there are only a few ([`STAGED_HERE`]), they are
/// decoded, and their seals' signers checked, in chunks on a thread of their own (in parallel
/// within a chunk) while the records before are staged, so that staging does not wait for the
/// whole batch and the second core is not idle while it runs. `first_index` is the first record's
/// index in `batch`. A record staged gives its value to the state (a record of a submission keeps
/// it until the submission is judged: its datum is what the seal's digest covers), which leaves
/// it without one; a record that cannot be read keeps its value. The submissions the batch
/// completes are then checked in parallel ([`EventState::finish`]).
pub(crate) fn stage_overlapped(
    state: &mut EventState,
    batch: &mut Batch<'_>,
    records: &mut [simpairs_log::Record],
    first_index: usize,
) {
    let roster = state.roster.clone();
    let codec = batch.codec;
    if records.len() <= STAGED_HERE {
        for (i, record) in records.iter_mut().enumerate() {
            let decoded = decoded(roster.as_deref(), codec, record);
            stage_decoded(state, batch, record, decoded, first_index + i);
        }
        return;
    }
    std::thread::scope(|scope| {
        let (decoded_tx, decoded_rx) = std::sync::mpsc::sync_channel(2);
        scope.spawn(move || {
            for chunk in records.chunks_mut(DECODE_CHUNK) {
                let decoded = decode_chunk(roster.as_deref(), codec, chunk);
                // The chunk goes with its decoding: the staging takes its records' values.
                if decoded_tx.send((chunk, decoded)).is_err() {
                    return;
                }
            }
        });
        let mut index = first_index;
        for (chunk, decoded) in decoded_rx {
            for (record, decoded) in chunk.iter_mut().zip(decoded) {
                stage_decoded(state, batch, record, decoded, index);
                index += 1;
            }
        }
    });
}

/// Each record of `chunk` [`decoded`], in parallel.
fn decode_chunk(
    roster: Option<&Roster>,
    codec: &simpairs_events::Codec,
    chunk: &[simpairs_log::Record],
) -> Vec<Decoded> {
    use rayon::prelude::*;
    chunk
        .par_iter()
        .map(|r| decoded(roster, codec, r))
        .collect()
}

/// A record skimmed, and its seal's signer checked against `roster`.
fn decoded(
    roster: Option<&Roster>,
    codec: &simpairs_events::Codec,
    record: &simpairs_log::Record,
) -> Decoded {
    let skimmed = match super::skim(codec, &record.value) {
        Ok(skimmed) => skimmed,
        Err(reason) => return (Err(reason), None),
    };
    let checked = roster
        .and_then(|roster| precheck(roster, &skimmed, record.partition, record.offset as i64));
    (Ok(skimmed), checked)
}

/// Stages one decoded record at `index` of `batch`, with its signer check if it had one; the
/// record's value is taken unless it could not be read.
fn stage_decoded(
    state: &mut EventState,
    batch: &mut Batch<'_>,
    record: &mut simpairs_log::Record,
    (decoded, checked): Decoded,
    index: usize,
) {
    if let Some(checked) = checked {
        batch.prechecked.insert(index, checked);
    }
    let decoded = decoded.map(|skimmed| (skimmed, std::mem::take(&mut record.value)));
    state.stage_at(
        batch,
        decoded,
        record.partition,
        record.offset as i64,
        index,
    );
}

/// Chunks of [`DECODE_CHUNK`] records [`read_in_batches`] reads and decodes ahead of the
/// staging: the reading and the decoding go on while a batch's submissions are judged.
const CHUNKS_AHEAD: usize = 4;

/// Reads the offsets `range` of one partition of `stream` through `state`, in batches of
/// [`super::REBUILD_BATCH`] records (a rebuild, a replay, the replay index's build): each batch's
/// records staged in log order, then the submissions it completed checked together, in parallel
/// ([`EventState::finish`]). The records are read on a thread of their own and decoded on
/// another, in parallel within a chunk, ahead of the staging; they are staged without their
/// values. `keep` says which records are read (a replay as of a time leaves
/// out the later ones); `done` hears each batch's records' (offset, timestamp) and what it
/// finished. `batch` is an empty batch of the kind wanted.
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_in_batches(
    log: &dyn simpairs_log::Log,
    stream: &str,
    partition: u32,
    range: std::ops::Range<u64>,
    state: &mut EventState,
    mut batch: Batch<'_>,
    keep: impl FnMut(&simpairs_log::Record) -> bool + Send,
    mut done: impl FnMut(&EventState, &[(u64, i64)], super::Finished),
) -> crate::Result<()> {
    let (roster, codec) = (state.roster.clone(), batch.codec);
    std::thread::scope(|scope| {
        let (read_tx, read_rx) = std::sync::mpsc::sync_channel(1);
        let (decoded_tx, decoded_rx) = std::sync::mpsc::sync_channel(CHUNKS_AHEAD);
        let reading =
            scope.spawn(move || read_chunks(log, stream, partition, range, keep, read_tx));
        let decoding = scope.spawn(move || {
            for chunk in read_rx {
                let decoded = decode_chunk(roster.as_deref(), codec, &chunk);
                if decoded_tx.send((chunk, decoded)).is_err() {
                    return;
                }
            }
        });
        // The (offset, timestamp) of each record of the batch.
        let mut positions: Vec<(u64, i64)> = Vec::new();
        for (mut chunk, decoded) in decoded_rx {
            for (record, decoded) in chunk.iter_mut().zip(decoded) {
                stage_decoded(state, &mut batch, record, decoded, positions.len());
                positions.push((record.offset, record.timestamp_ms));
            }
            if positions.len() >= super::REBUILD_BATCH {
                let finished = state.finish(batch.take());
                done(state, &positions, finished);
                positions.clear();
            }
        }
        joined(decoding);
        // A read that failed leaves the records after it unread: the last batch is not finished.
        joined(reading)?;
        let finished = state.finish(batch.take());
        done(state, &positions, finished);
        Ok(())
    })
}

/// What a scoped thread returned; its panic carried on.
fn joined<T>(thread: std::thread::ScopedJoinHandle<'_, T>) -> T {
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Reads the offsets `range` of one partition of `stream`, the records `keep` keeps sent in
/// chunks of [`DECODE_CHUNK`] (until the receiver is gone).
fn read_chunks(
    log: &dyn simpairs_log::Log,
    stream: &str,
    partition: u32,
    range: std::ops::Range<u64>,
    mut keep: impl FnMut(&simpairs_log::Record) -> bool,
    chunks: std::sync::mpsc::SyncSender<Vec<simpairs_log::Record>>,
) -> crate::Result<()> {
    let mut chunk = Vec::with_capacity(DECODE_CHUNK);
    let mut receiving = true;
    crate::read_range(log, stream, partition, range.start, range.end, |r| {
        if !receiving || !keep(&r) {
            return;
        }
        chunk.push(r);
        if chunk.len() == DECODE_CHUNK {
            let full = std::mem::replace(&mut chunk, Vec::with_capacity(DECODE_CHUNK));
            receiving = chunks.send(full).is_ok();
        }
    })?;
    if !chunk.is_empty() {
        // The receiver gone means the staging ended early, which its own thread reports.
        let _ = chunks.send(chunk);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
