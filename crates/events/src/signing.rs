//! Submission digests and seal signatures (HMAC-SHA256 with the club's key).
//!
//! A club's submission is a run of records (`ResultRecorded`, `ResultWithdrawn`,
//! `PairEntered`) with sequences `0..count`, closed by a `SubmissionSealed` that carries
//!
//! * `digest` = [`submission_digest`] of the messages' datum bytes in sequence order, and
//! * `signature` = [`seal_signature`] over the seal's identity, `count` and `digest`.
//!
//! A `ResultsRecorded` batch of `n` lines holds `n` sequences (`count` counts lines) but is
//! one message: its datum enters the digest once, at its `first_sequence`. Without
//! batches this is exactly "each record's datum, in sequence order".
//!
//! The consumer recomputes the digest from the datums it received (the message bytes
//! after the 10-byte header, see [`crate::split_message`], never a re-encoding) and
//! checks the signature with [`verify_seal`], in constant time. `key_id`, `sealed_at_ms`
//! and `source` are not signed: `key_id` only selects the key (a wrong one fails to
//! verify), the other two are informative.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::types::SubmissionSealed;

/// Length of a digest and of a signature, in bytes.
pub const DIGEST_LEN: usize = 32;

/// Domain-separation prefix of the canonical seal bytes (see [`seal_bytes`]).
pub const SEAL_DOMAIN: &[u8] = b"simpairs/SubmissionSealed/v1\0";

type HmacSha256 = Hmac<Sha256>;

/// Appends the length of `bytes` as a 4-byte little-endian integer, then `bytes`.
///
/// Lengths over `u32::MAX` cannot occur: no log accepts messages of 4 GiB.
fn put_prefixed(out: &mut impl FnMut(&[u8]), bytes: &[u8]) {
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out(&len.to_le_bytes());
    out(bytes);
}

/// SHA-256 over the datums of a submission's messages, in sequence order (a batch at its
/// first sequence), each preceded by its length as a 4-byte little-endian integer:
///
/// ```text
/// SHA-256( len(d0) as u32 LE ‖ d0 ‖ len(d1) as u32 LE ‖ d1 ‖ … )
/// ```
///
/// The length prefixes make the split between records part of what is hashed.
pub fn submission_digest<'a>(datums: impl IntoIterator<Item = &'a [u8]>) -> [u8; DIGEST_LEN] {
    let mut hasher = Sha256::new();
    let mut update = |bytes: &[u8]| hasher.update(bytes);
    for datum in datums {
        put_prefixed(&mut update, datum);
    }
    hasher.finalize().into()
}

/// The canonical bytes a seal signature covers:
///
/// ```text
/// SEAL_DOMAIN                         "simpairs/SubmissionSealed/v1\0" (29 bytes)
/// u32 LE length ‖ event_id (UTF-8)
/// u32 LE length ‖ club_id (UTF-8)
/// u32 LE length ‖ submission_id (UTF-8)
/// count as i64 LE (8 bytes)
/// u32 LE length ‖ digest (32 bytes for a SHA-256 digest)
/// ```
pub fn seal_bytes(
    event_id: &str,
    club_id: &str,
    submission_id: &str,
    count: i64,
    digest: &[u8],
) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(
        SEAL_DOMAIN.len() + 16 + event_id.len() + club_id.len() + submission_id.len() + 8 + 32,
    );
    let mut out = |part: &[u8]| bytes.extend_from_slice(part);
    out(SEAL_DOMAIN);
    put_prefixed(&mut out, event_id.as_bytes());
    put_prefixed(&mut out, club_id.as_bytes());
    put_prefixed(&mut out, submission_id.as_bytes());
    out(&count.to_le_bytes());
    put_prefixed(&mut out, digest);
    bytes
}

fn mac(key: &[u8], message: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length (long keys are hashed, short ones padded).
    let mut mac = <HmacSha256 as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(message);
    mac
}

/// HMAC-SHA256 with the club's `key` over [`seal_bytes`]`(event_id, club_id,
/// submission_id, count, digest)`: the `signature` of a `SubmissionSealed`.
pub fn seal_signature(
    key: &[u8],
    event_id: &str,
    club_id: &str,
    submission_id: &str,
    count: i64,
    digest: &[u8],
) -> [u8; DIGEST_LEN] {
    let bytes = seal_bytes(event_id, club_id, submission_id, count, digest);
    mac(key, &bytes).finalize().into_bytes().into()
}

/// Whether `seal.signature` is the club's signature of `seal` under `key`, compared in
/// constant time. Does not check the digest against the records: compare
/// [`submission_digest`] of the received datums with `seal.digest` for that.
#[must_use]
pub fn verify_seal(key: &[u8], seal: &SubmissionSealed) -> bool {
    let bytes = seal_bytes(
        &seal.event_id,
        &seal.club_id,
        &seal.submission_id,
        seal.count,
        &seal.digest,
    );
    mac(key, &bytes).verify_slice(&seal.signature).is_ok()
}

/// HMAC-SHA256 of `message` under `key`, the primitive the seals use (exposed for test
/// vectors and tools).
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; DIGEST_LEN] {
    mac(key, message).finalize().into_bytes().into()
}
