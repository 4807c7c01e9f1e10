//! A large file's chunks read on every thread, taken in the file's order, with each chunk's names
//! joined into the file's field (a [`Joiner`]) on a thread of its own as soon as the chunks before
//! it are read. Joined afterwards, the names of a national field (2,000,000 pairs) took one thread
//! a tenth of a second while the other waited.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use rayon::prelude::*;
use simpairs_scoring::field::{Joined, JoinedRows, Joiner, RowSlot};

use crate::csv_row::Chunk;

/// The field the chunks `read` reads join into, each chunk's results moved into its room in the
/// file's columns (chunk `k` has room for `room[k]` results); each chunk, its results moved, is
/// then given to `each`, in order, on the joining thread. Stops at the first error `read` returns.
pub(crate) fn read_and_join<'l, E: Send>(
    room: &[usize],
    read: impl Fn(usize) -> Result<Chunk<'l>, E> + Sync,
    each: impl FnMut(Chunk<'l>) + Send,
) -> Result<Joined, E> {
    let mut rows = JoinedRows::new(room);
    let joiner = {
        let slots: Vec<Mutex<Option<RowSlot<'_>>>> = rows
            .slots()
            .into_iter()
            .map(|slot| Mutex::new(Some(slot)))
            .collect();
        let count = slots.len();
        // Chunks are handed out in order, so that they are read about in the order they are
        // joined in, and the joining keeps up with the reading.
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let (sender, receiver) = mpsc::channel();
        std::thread::scope(|scope| {
            let joining = scope.spawn(move || join_in_order(receiver, count, each));
            (0..rayon::current_num_threads())
                .into_par_iter()
                .for_each_with(sender, |sender, _| {
                    while !failed.load(Ordering::Relaxed) {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(slot) = slots.get(k) else { break };
                        let taken = slot.lock().ok().and_then(|mut s| s.take());
                        let Some(mut slot) = taken else { break };
                        let chunk = read(k).map(|chunk| chunk.place(&mut slot));
                        if chunk.is_err() {
                            failed.store(true, Ordering::Relaxed);
                        }
                        if sender.send((k, chunk)).is_err() {
                            break;
                        }
                    }
                });
            joining
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })?
    };
    Ok(joiner.finish(rows))
}

/// Takes the chunks as they are read, in any order, and joins each one's names once every chunk
/// before it is joined, then gives it to `each`: the joiner holding all of them.
fn join_in_order<'l, E>(
    chunks: mpsc::Receiver<(usize, Result<Chunk<'l>, E>)>,
    count: usize,
    mut each: impl FnMut(Chunk<'l>),
) -> Result<Joiner, E> {
    let mut waiting: Vec<Option<Chunk<'l>>> = (0..count).map(|_| None).collect();
    let mut joined = 0;
    let mut joiner = Joiner::new();
    for (k, chunk) in chunks {
        waiting[k] = Some(chunk?);
        while let Some(mut chunk) = waiting.get_mut(joined).and_then(Option::take) {
            if let Some(part) = chunk.placed.take() {
                joiner.add(part);
            }
            each(chunk);
            joined += 1;
        }
    }
    Ok(joiner)
}
