//! An applied submission kept in its Avro encoding, compressed: about 11 bytes a result instead of
//! the 216 of a decoded [`AppliedResult`](crate::types::AppliedResult) and its texts. The aggregator holds
//! every result in force of a national event (millions) and reads a club's again only when the
//! club sends a correction; it keeps them packed.

use crate::codec::split_message;
use crate::event::EventType;
use crate::types::SubmissionApplied;
use crate::wire::{Out, ReadError, Wire, generated_fingerprint, read_datum};

/// A `SubmissionApplied`'s datum, as the generated codec of the current schema writes it,
/// compressed as an LZ4 block: a club's results repeat their section, pairs and empty fields, and
/// come down to about 11 bytes a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedApplied {
    bytes: Box<[u8]>,
    /// The datum's length, or `None` when it is kept as it is.
    datum_len: Option<u32>,
}

/// Packs submissions: compressed, or kept as they are ([`Packer::plain`]).
///
/// LZ4 rather than zstd: the aggregator packs every submission it applies, and on the 3.6 M-result
/// bench field zstd at level 1 took 281 ms of CPU for 93 MB of datums (25.8 MB packed) where LZ4
/// takes 163 ms (40.1 MB), and it unpacks a correction's submission in a third of the time
/// (docs/benchmarks.md, 2026-12-04). The 14 MB more are 4 bytes a result.
pub struct Packer {
    compress: bool,
    /// Where a datum is compressed before its bytes are copied out at their size: reused, so
    /// that a submission costs one allocation of its packed size, not a zeroed buffer of the
    /// largest size LZ4 may write, shrunk afterwards.
    buffer: Vec<u8>,
}

impl Default for Packer {
    fn default() -> Self {
        Packer {
            compress: true,
            buffer: Vec::new(),
        }
    }
}

impl Packer {
    /// A packer that keeps each submission's datum as it is, uncompressed (about 27 bytes a
    /// result): for submissions held only while a log is read once, where compressing them would
    /// cost more time than the memory it saves is worth.
    pub fn plain() -> Packer {
        Packer {
            compress: false,
            buffer: Vec::new(),
        }
    }

    /// Packs `applied`.
    pub fn pack(&mut self, applied: &SubmissionApplied) -> PackedApplied {
        let mut datum = Vec::with_capacity(64 + 40 * applied.results.len());
        applied.write(&mut Out(&mut datum));
        self.compressed(&datum)
    }

    /// The datum of a `SubmissionApplied` message written in the current schema (as
    /// [`crate::Codec::encode_submission_applied`] writes it), without encoding it again; `None`
    /// for any other message.
    pub fn from_message(&mut self, message: &[u8]) -> Option<PackedApplied> {
        let framed = split_message(message).ok()?;
        let current = generated_fingerprint(EventType::SubmissionApplied);
        (framed.fingerprint == current).then(|| self.compressed(framed.datum))
    }

    fn compressed(&mut self, datum: &[u8]) -> PackedApplied {
        let len = u32::try_from(datum.len()).ok().filter(|_| self.compress);
        let compressed = len.and_then(|len| {
            let written = self.compress_into_buffer(datum)?;
            Some(PackedApplied {
                bytes: self.buffer[..written].into(),
                datum_len: Some(len),
            })
        });
        compressed.unwrap_or_else(|| PackedApplied {
            bytes: datum.into(),
            datum_len: None,
        })
    }

    /// Compresses `datum` into the buffer, grown to the most LZ4 may write; how many bytes it
    /// wrote. `None` if LZ4 found the buffer short (it is not), and the datum is kept as it is.
    fn compress_into_buffer(&mut self, datum: &[u8]) -> Option<usize> {
        let most = lz4_flex::block::get_maximum_output_size(datum.len());
        if self.buffer.len() < most {
            self.buffer.resize(most, 0);
        }
        lz4_flex::block::compress_into(datum, &mut self.buffer).ok()
    }
}

impl PackedApplied {
    /// Packs `applied` (with a packer of its own: [`Packer`] for many).
    pub fn pack(applied: &SubmissionApplied) -> PackedApplied {
        Packer::default().pack(applied)
    }

    /// The submission again, as it was packed.
    pub fn unpack(&self) -> Result<SubmissionApplied, String> {
        let datum = match self.datum_len {
            None => std::borrow::Cow::Borrowed(&self.bytes[..]),
            Some(len) => std::borrow::Cow::Owned(
                lz4_flex::block::decompress(&self.bytes, len as usize)
                    .map_err(|e| format!("cannot decompress the submission: {e}"))?,
            ),
        };
        read_datum(&datum, |d| SubmissionApplied::read(d, "SubmissionApplied")).map_err(|e| match e
        {
            ReadError::Malformed(detail) => detail,
            ReadError::TrailingBytes(n) => format!("{n} bytes after the submission"),
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::Codec;

    proptest! {
        #[test]
        fn a_packed_submission_unpacks_as_it_was(applied in crate::test_samples::arb::submission_applied()) {
            let packed = PackedApplied::pack(&applied);
            prop_assert_eq!(packed.unpack(), Ok(applied.clone()));
            // The message the codec writes holds the same bytes.
            let message = Codec::new().unwrap().encode_submission_applied(&applied);
            prop_assert_eq!(Packer::default().from_message(&message), Some(packed));
        }
    }

    #[test]
    fn a_clubs_submission_is_held_in_a_fraction_of_its_datum() {
        // A club's results repeat their section, pairs and empty fields: 12 tables playing 24
        // boards, as the sample's first result varies them.
        let mut applied = crate::test_samples::submission_applied();
        let first = applied.results[0].clone();
        applied.results = (0..12 * 24)
            .map(|i| crate::types::AppliedResult {
                board: 1 + i % 24,
                ns_pair: (1 + i / 24).to_string().into(),
                ew_pair: (13 + i / 24).to_string().into(),
                ns_score: Some([420, 450, 50, -100][i as usize % 4]),
                ..first.clone()
            })
            .collect();
        let mut datum = Vec::new();
        applied.write(&mut Out(&mut datum));
        let packed = PackedApplied::pack(&applied);
        assert!(
            packed.bytes.len() * 2 < datum.len(),
            "{} bytes packed from {}",
            packed.bytes.len(),
            datum.len()
        );
        assert_eq!(packed.unpack(), Ok(applied.clone()));
        // A plain packer keeps the datum as it is.
        let plain = Packer::plain().pack(&applied);
        assert_eq!((&plain.bytes[..], plain.datum_len), (&datum[..], None));
        assert_eq!(plain.unpack(), Ok(applied));
    }

    #[test]
    fn a_packer_used_again_packs_as_a_new_one() {
        // A large submission first leaves the reused buffer longer than a small one needs.
        let small = crate::test_samples::submission_applied();
        let mut large = small.clone();
        large.results = (0..40).flat_map(|_| small.results.clone()).collect();
        let mut packer = Packer::default();
        for applied in [&large, &small, &large] {
            let packed = packer.pack(applied);
            assert_eq!(packed, PackedApplied::pack(applied));
            assert_eq!(packed.unpack().as_ref(), Ok(applied));
        }
    }

    #[test]
    fn only_a_current_submission_applied_message_is_taken() {
        let codec = Codec::new().unwrap();
        let other = crate::test_samples::samples()
            .into_iter()
            .find(|e| !matches!(e, crate::Event::SubmissionApplied(_)));
        let other = codec.encode(&other.unwrap());
        assert_eq!(Packer::default().from_message(&other), None);
        assert_eq!(Packer::default().from_message(b"too short"), None);
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        for datum_len in [None, Some(100)] {
            let damaged = PackedApplied {
                bytes: vec![0xff; 12].into_boxed_slice(),
                datum_len,
            };
            assert!(damaged.unpack().is_err());
        }
    }
}
