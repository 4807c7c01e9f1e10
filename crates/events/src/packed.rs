//! An applied submission kept in its Avro encoding: about 40 bytes a result instead of the 216 of
//! a decoded [`AppliedResult`](crate::types::AppliedResult) and its texts. The aggregator holds
//! every result in force of a national event (millions) and reads a club's again only when the
//! club sends a correction; it keeps them packed.

use crate::codec::split_message;
use crate::event::EventType;
use crate::types::SubmissionApplied;
use crate::wire::{Out, ReadError, Wire, generated_fingerprint, read_datum};

/// A `SubmissionApplied`'s datum, as the generated codec of the current schema writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedApplied(Box<[u8]>);

impl PackedApplied {
    /// Packs `applied`.
    pub fn pack(applied: &SubmissionApplied) -> PackedApplied {
        let mut datum = Vec::with_capacity(64 + 40 * applied.results.len());
        applied.write(&mut Out(&mut datum));
        PackedApplied(datum.into_boxed_slice())
    }

    /// The datum of a `SubmissionApplied` message written in the current schema (as
    /// [`crate::Codec::encode_submission_applied`] writes it), without encoding it again; `None`
    /// for any other message.
    pub fn from_message(message: &[u8]) -> Option<PackedApplied> {
        let framed = split_message(message).ok()?;
        let current = generated_fingerprint(EventType::SubmissionApplied);
        (framed.fingerprint == current).then(|| PackedApplied(framed.datum.into()))
    }

    /// The submission again, as it was packed.
    pub fn unpack(&self) -> Result<SubmissionApplied, String> {
        read_datum(&self.0, |d| SubmissionApplied::read(d, "SubmissionApplied")).map_err(
            |e| match e {
                ReadError::Malformed(detail) => detail,
                ReadError::TrailingBytes(n) => format!("{n} bytes after the submission"),
            },
        )
    }

    /// How many bytes it holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
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
            prop_assert_eq!(PackedApplied::from_message(&message), Some(packed));
        }
    }

    #[test]
    fn only_a_current_submission_applied_message_is_taken() {
        let codec = Codec::new().unwrap();
        let other = crate::test_samples::samples()
            .into_iter()
            .find(|e| !matches!(e, crate::Event::SubmissionApplied(_)));
        let other = codec.encode(&other.unwrap());
        assert_eq!(PackedApplied::from_message(&other), None);
        assert_eq!(PackedApplied::from_message(b"too short"), None);
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let damaged = PackedApplied(vec![0xff; 12].into_boxed_slice());
        assert!(damaged.unpack().is_err());
    }
}
