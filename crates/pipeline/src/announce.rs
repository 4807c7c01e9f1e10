//! What the aggregator makes of a submission that applies, while it is judged: the
//! `SubmissionApplied` message it will write, and the submission packed for its state. Both are
//! made on the thread that judged the submission, and its decoded results are freed there, so a
//! batch of thousands of submissions is never held decoded (about 216 bytes a result) all at once
//! (see [`crate::state::Batch::announcing`]).

use simpairs_events::types::SubmissionApplied;
use simpairs_events::{Codec, PackedApplied, Packer};

/// A submission applied in a batch that announces: what goes out in the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Announcement {
    pub club_id: String,
    pub submission_id: String,
    /// The offset of its seal in the results stream.
    pub seal_offset: i64,
    /// The `SubmissionApplied` message, encoded in the current schema.
    pub message: Vec<u8>,
    /// How many results it applies, and how many it withdraws.
    pub results: u32,
    pub withdrawn: u32,
}

/// The announcement of a submission applied as it is (an effect of a batch that does not announce).
pub(crate) fn announcement(codec: &Codec, applied: &SubmissionApplied) -> Announcement {
    Announcement {
        club_id: applied.club_id.clone(),
        submission_id: applied.submission_id.clone(),
        seal_offset: applied.seal_offset,
        message: codec.encode_submission_applied(applied),
        results: u32::try_from(applied.results.len()).unwrap_or(u32::MAX),
        withdrawn: u32::try_from(applied.withdrawn.len()).unwrap_or(u32::MAX),
    }
}

/// An accepted submission once announced: the message, and what the state keeps of its results.
#[derive(Debug)]
pub(crate) struct Announced {
    pub announcement: Announcement,
    pub packed: PackedApplied,
    /// How many results it has (listed in table order, each table once).
    pub results: u32,
}

/// Encodes `applied`, sealed at `seal_offset`, packs it, and takes its results out of it (they
/// are freed here; its withdrawals and pairs stay, for the state to apply).
pub(crate) fn announce(
    codec: &Codec,
    packer: &mut Packer,
    applied: &mut SubmissionApplied,
    seal_offset: i64,
) -> Announced {
    applied.seal_offset = seal_offset;
    let message = codec.encode_submission_applied(applied);
    // The packed datum is the message's own (no second encoding); `pack` is there in case the
    // message were ever framed otherwise.
    let packed = packer
        .from_message(&message)
        .unwrap_or_else(|| packer.pack(applied));
    let results = u32::try_from(std::mem::take(&mut applied.results).len()).unwrap_or(u32::MAX);
    Announced {
        announcement: Announcement {
            club_id: applied.club_id.clone(),
            submission_id: applied.submission_id.clone(),
            seal_offset,
            message,
            results,
            withdrawn: u32::try_from(applied.withdrawn.len()).unwrap_or(u32::MAX),
        },
        packed,
        results,
    }
}
