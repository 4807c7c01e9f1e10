//! Output rendered in parallel and written in order, the writing on a thread of its own while the
//! next batch is rendered: a national field's JSON or table is hundreds of megabytes (gigabytes of
//! JSON for the largest), and written to a file the kernel's copy of each batch would otherwise
//! leave the rendering threads waiting. The buffers written are rendered into again, so that the
//! output does not take fresh memory from the kernel, page after page, as it goes.

use std::io::{self, Write};
use std::sync::mpsc;

use rayon::prelude::*;

/// Writes `pieces` in order, each rendered by `render` into an empty buffer, `at_once` rendered
/// in parallel while the ones before are written. At most three batches' buffers are held: the
/// one being written, the one being rendered and the one written before, whose buffers are
/// rendered into again. The first error, of the writing or of the rendering, is returned; nothing
/// is written after it.
pub(crate) fn write_rendered<W, P>(
    out: &mut W,
    pieces: &[P],
    at_once: usize,
    render: impl Fn(&P, &mut Vec<u8>) -> io::Result<()> + Sync,
) -> io::Result<()>
where
    W: Write + Send,
    P: Sync,
{
    std::thread::scope(|scope| {
        // A rendezvous: a batch is handed over only once the one before is written.
        let (handed, to_write) = mpsc::sync_channel::<Vec<Vec<u8>>>(0);
        let (give_back, written) = mpsc::channel::<Vec<Vec<u8>>>();
        let writer = scope.spawn(move || write_each(out, to_write, give_back));
        let mut spare: Vec<Vec<u8>> = Vec::new();
        let mut rendered = Ok(());
        for batch in pieces.chunks(at_once.max(1)) {
            spare.extend(written.try_iter().flatten());
            spare.resize_with(batch.len(), Vec::new);
            let parts: io::Result<Vec<Vec<u8>>> = batch
                .par_iter()
                .zip(std::mem::take(&mut spare))
                .map(|(piece, mut buffer)| {
                    buffer.clear();
                    render(piece, &mut buffer).map(|()| buffer)
                })
                .collect();
            match parts {
                // A writer that stopped has an error, returned below.
                Ok(parts) => {
                    if handed.send(parts).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    rendered = Err(e);
                    break;
                }
            }
        }
        drop(handed);
        let wrote = writer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        wrote.and(rendered)
    })
}

/// Writes each batch handed over, then gives its buffers back to be rendered into again.
fn write_each<W: Write>(
    out: &mut W,
    to_write: mpsc::Receiver<Vec<Vec<u8>>>,
    give_back: mpsc::Sender<Vec<Vec<u8>>>,
) -> io::Result<()> {
    for parts in to_write {
        parts.iter().try_for_each(|part| out.write_all(part))?;
        // The renderer gone, the buffers are not wanted.
        let _ = give_back.send(parts);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::{self, Write};
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::write_rendered;

    /// Piece `p` renders as a letter and a digit: "a0", "a1", "b0", ...
    fn render(p: &u8, buffer: &mut Vec<u8>) -> io::Result<()> {
        assert!(buffer.is_empty(), "a buffer given back is emptied first");
        buffer.extend_from_slice(&[b'a' + p / 2, b'0' + p % 2]);
        Ok(())
    }

    #[test]
    fn pieces_are_written_in_order_whatever_the_batches() {
        let pieces: Vec<u8> = (0..10).collect();
        for at_once in [1, 2, 3, 10, 20] {
            let mut out = Vec::new();
            write_rendered(&mut out, &pieces, at_once, render).unwrap();
            assert_eq!(out, b"a0a1b0b1c0c1d0d1e0e1", "{at_once} at once");
        }
    }

    #[test]
    fn a_rendering_error_stops_the_writing_after_the_batches_before() {
        let pieces: Vec<u8> = (0..10).collect();
        let failing = |p: &u8, buffer: &mut Vec<u8>| match p {
            5 => Err(io::Error::other("piece 5")),
            p => render(p, buffer),
        };
        let mut out = Vec::new();
        let e = write_rendered(&mut out, &pieces, 2, failing).unwrap_err();
        assert_eq!(e.to_string(), "piece 5");
        // Pieces 4 and 5 are a batch: nothing of it is written.
        assert_eq!(out, b"a0a1b0b1");
    }

    /// Takes `room` bytes, then refuses every write.
    struct Full {
        taken: Vec<u8>,
        room: usize,
    }

    impl Write for Full {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if self.taken.len() + bytes.len() > self.room {
                return Err(io::Error::new(io::ErrorKind::StorageFull, "full"));
            }
            self.taken.extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_writing_error_is_returned_and_the_rendering_stops() {
        let pieces: Vec<u8> = (0..200).collect();
        let mut out = Full {
            taken: Vec::new(),
            room: 5,
        };
        let rendered = AtomicUsize::new(0);
        let counting = |p: &u8, buffer: &mut Vec<u8>| {
            rendered.fetch_add(1, Ordering::Relaxed);
            render(p, buffer)
        };
        let e = write_rendered(&mut out, &pieces, 2, counting).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert_eq!(out.taken, b"a0a1");
        // The batch written, the one whose writing failed and the one rendered meanwhile, whose
        // handing over failed.
        assert_eq!(rendered.into_inner(), 6);
    }
}
