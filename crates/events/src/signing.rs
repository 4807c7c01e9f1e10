//! Signatures: Ed25519 key pairs, submission digests, and the canonical bytes each signed record
//! covers.
//!
//! Whoever signs holds a private key; the event's declaration holds only public keys, so nothing
//! anyone can read in the log lets them sign for someone else.
//!
//! * A club's submission is a run of records (`ResultRecorded`, `ResultsRecorded`,
//!   `ResultWithdrawn`, `PairEntered`, `DealRecorded`) with sequences `0..count`, closed by a
//!   `SubmissionSealed` whose `digest` is [`submission_digest`] of the records' datum bytes in
//!   sequence order and whose `signature` is the club's Ed25519 signature of [`seal_bytes`].
//!   A `ResultsRecorded` batch of `n` lines holds `n` sequences but is one message: its datum
//!   enters the digest once, at its `first_sequence`.
//! * An aggregator's derived records are vouched for by an `OutputSealed` listing their hashes
//!   ([`record_hash`]), signed over [`output_seal_bytes`].
//!
//! The consumer recomputes the digest from the datums it received (the message bytes after the
//! 10-byte header, see [`crate::split_message`], never a re-encoding). `key_id` only selects the
//! key (a wrong one fails to verify); `sealed_at_ms` and `source` of a seal are informative.

use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

use crate::types::{EventAmended, HashFunction, OutputSealed, SubmissionSealed};

/// Length of a digest and of a record hash, in bytes.
pub const DIGEST_LEN: usize = 32;

/// Length of a signature, in bytes.
pub const SIGNATURE_LEN: usize = ed25519_dalek::SIGNATURE_LENGTH;

/// Domain-separation prefix of the canonical seal bytes (see [`seal_bytes`]). Version 1 was
/// HMAC-SHA256 with keys every club could read; its seals are refused.
pub const SEAL_DOMAIN: &[u8] = b"simpairs/SubmissionSealed/v2\0";

/// The same for a seal whose digest is BLAKE3 (schema version 3): the function is part of what
/// is signed, so a seal cannot be read under the other one.
pub const SEAL_DOMAIN_BLAKE3: &[u8] = b"simpairs/SubmissionSealed/v3/BLAKE3\0";

/// The mark a seal's signed bytes end with when it gives its sections whole (schema version 4,
/// see [`seal_bytes`]).
pub const WHOLE_SESSION: &[u8] = b"whole-session\0";

/// Domain-separation prefix of an aggregator's output seal of SHA-256 hashes (see
/// [`output_seal_bytes`]).
pub const OUTPUT_DOMAIN: &[u8] = b"simpairs/OutputSealed/v1\0";

/// The same for an output seal of BLAKE3 hashes (schema version 2).
pub const OUTPUT_DOMAIN_BLAKE3: &[u8] = b"simpairs/OutputSealed/v2/BLAKE3\0";

/// The hash function this program writes digests and output seals with. BLAKE3: on a processor
/// without SHA instructions SHA-256 costs about 3 ns a byte, and every byte a club publishes and
/// an aggregator writes is hashed (docs/benchmarks.md, 2026-11-27). Seals of SHA-256 written
/// before are still read and checked.
pub const HASH_FUNCTION: HashFunction = HashFunction::Blake3;

/// One hash computation, fed in parts.
enum Hasher {
    Sha256(Box<ring::digest::Context>),
    Blake3(Box<blake3::Hasher>),
}

impl Hasher {
    fn new(function: HashFunction) -> Hasher {
        match function {
            HashFunction::Sha256 => {
                Hasher::Sha256(Box::new(ring::digest::Context::new(&ring::digest::SHA256)))
            }
            HashFunction::Blake3 => Hasher::Blake3(Box::new(blake3::Hasher::new())),
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Sha256(c) => c.update(bytes),
            Hasher::Blake3(h) => {
                h.update(bytes);
            }
        }
    }

    fn finish(self) -> [u8; DIGEST_LEN] {
        match self {
            Hasher::Sha256(c) => sha256_bytes(c.finish()),
            Hasher::Blake3(h) => *h.finalize().as_bytes(),
        }
    }
}

/// Domain-separation prefix of an organiser's amendment (the amendment's datum follows).
pub const AMENDMENT_DOMAIN: &[u8] = b"simpairs/EventAmended/v1\0";

/// A private signing key (its secret never printed).
#[derive(Clone)]
pub struct PrivateKey(SigningKey);

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PrivateKey({})", self.public().id())
    }
}

/// A public key, as a declaration carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublicKey(VerifyingKey);

impl PrivateKey {
    /// The key whose 32-byte secret is `secret` (drawn from a random source, or derived).
    pub fn from_secret(secret: [u8; 32]) -> PrivateKey {
        PrivateKey(SigningKey::from_bytes(&secret))
    }

    /// The 32-byte secret, to store.
    pub fn secret(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    pub fn public(&self) -> PublicKey {
        PublicKey(self.0.verifying_key())
    }

    /// The Ed25519 signature of `message`.
    pub fn sign(&self, message: &[u8]) -> [u8; SIGNATURE_LEN] {
        self.0.sign(message).to_bytes()
    }
}

/// Why bytes are not a public key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("a public key is 32 bytes, not {0}")]
    Length(usize),
    #[error("those 32 bytes are not an Ed25519 public key")]
    NotAKey,
}

impl PublicKey {
    /// The key from its 32 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<PublicKey, KeyError> {
        let bytes: [u8; 32] = bytes
            .try_into()
            .map_err(|_| KeyError::Length(bytes.len()))?;
        VerifyingKey::from_bytes(&bytes)
            .map(PublicKey)
            .map_err(|_| KeyError::NotAKey)
    }

    pub fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    /// The key's id: `k` and the first 12 hex digits of the SHA-256 of its bytes.
    pub fn id(&self) -> String {
        key_id(self.0.as_bytes())
    }

    /// Whether `signature` is this key's signature of `message` (strict: no malleable
    /// signatures, no weak keys).
    #[must_use]
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        let Ok(bytes) = <[u8; SIGNATURE_LEN]>::try_from(signature) else {
            return false;
        };
        let signature = ed25519_dalek::Signature::from_bytes(&bytes);
        self.0.verify_strict(message, &signature).is_ok()
    }
}

/// A key's id from its public bytes: `k` and the first 12 hex digits of their SHA-256.
pub fn key_id(public: &[u8]) -> String {
    let digest = Sha256::digest(public);
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("k{hex}")
}

/// Appends the length of `bytes` as a 4-byte little-endian integer, then `bytes`.
///
/// Lengths over `u32::MAX` cannot occur: no log accepts messages of 4 GiB.
fn put_prefixed(out: &mut impl FnMut(&[u8]), bytes: &[u8]) {
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out(&len.to_le_bytes());
    out(bytes);
}

/// The hash (`function`) of the datums of a submission's messages, in sequence order (a batch at
/// its first sequence), each preceded by its length as a 4-byte little-endian integer:
///
/// ```text
/// H( len(d0) as u32 LE ‖ d0 ‖ len(d1) as u32 LE ‖ d1 ‖ … )
/// ```
///
/// The length prefixes make the split between records part of what is hashed.
pub fn submission_digest<'a>(
    function: HashFunction,
    datums: impl IntoIterator<Item = &'a [u8]>,
) -> [u8; DIGEST_LEN] {
    let mut fed = Gathered::new(Hasher::new(function));
    let mut update = |bytes: &[u8]| fed.update(bytes);
    for datum in datums {
        put_prefixed(&mut update, datum);
    }
    fed.finish()
}

/// Bytes gathered before a hasher is given them: at least this many at a time, but the last.
/// BLAKE3 hashes a run of whole 1 KiB chunks together, with the processor's vector instructions,
/// but a datum of a few hundred bytes (a board's results at a club) one 64-byte block after
/// another: a club's submission of 12 KB was digested in 10.4 µs fed datum by datum, in 4.1 µs
/// gathered (docs/benchmarks.md, 2026-12-03 night). The bytes hashed are the same.
const GATHER: usize = 64 * 1024;

/// A hasher given its input in runs of [`GATHER`] bytes.
struct Gathered {
    hasher: Hasher,
    gathered: Vec<u8>,
}

impl Gathered {
    fn new(hasher: Hasher) -> Gathered {
        Gathered {
            hasher,
            // A club's submission (a dozen KB) in one allocation, not eight growing ones.
            gathered: Vec::with_capacity(GATHER / 4),
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        if self.gathered.len() + bytes.len() > GATHER {
            self.hasher.update(&self.gathered);
            self.gathered.clear();
        }
        if bytes.len() >= GATHER {
            self.hasher.update(bytes);
        } else {
            self.gathered.extend_from_slice(bytes);
        }
    }

    fn finish(mut self) -> [u8; DIGEST_LEN] {
        self.hasher.update(&self.gathered);
        self.hasher.finish()
    }
}

/// The 32 bytes of a SHA-256 digest. SHA-256 digests and seals (those written before BLAKE3) are
/// checked with ring's: its assembly uses the processor's vector or SHA instructions, 1.7 times
/// as fast as `sha2`'s portable code on a processor without SHA ones.
fn sha256_bytes(digest: ring::digest::Digest) -> [u8; DIGEST_LEN] {
    let mut bytes = [0u8; DIGEST_LEN];
    bytes.copy_from_slice(digest.as_ref());
    bytes
}

/// The canonical bytes a seal's signature covers:
///
/// ```text
/// SEAL_DOMAIN                         "simpairs/SubmissionSealed/v2\0" (SHA-256 digest)
///   or SEAL_DOMAIN_BLAKE3             "simpairs/SubmissionSealed/v3/BLAKE3\0"
/// u32 LE length ‖ event_id, club_id, submission_id (UTF-8, each)
/// count as i64 LE (8 bytes)
/// u32 LE length ‖ digest
/// warnings: their number as u32 LE, then each as line (i64 LE) ‖ prefixed field ‖ prefixed message
/// WHOLE_SESSION                       "whole-session\0", only when `whole_session` is set
/// ```
///
/// The mark of a whole session comes last and only when set, so that the bytes of every seal
/// written before it existed (and of every seal without it) are unchanged and their signatures
/// still verify; the warnings' count ends the part before it, so the two cannot be confused.
pub fn seal_bytes(seal: &SubmissionSealed) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(SEAL_DOMAIN_BLAKE3.len() + 128);
    let mut out = |part: &[u8]| bytes.extend_from_slice(part);
    out(match seal.hash_function {
        HashFunction::Sha256 => SEAL_DOMAIN,
        HashFunction::Blake3 => SEAL_DOMAIN_BLAKE3,
    });
    put_prefixed(&mut out, seal.event_id.as_bytes());
    put_prefixed(&mut out, seal.club_id.as_bytes());
    put_prefixed(&mut out, seal.submission_id.as_bytes());
    out(&seal.count.to_le_bytes());
    put_prefixed(&mut out, &seal.digest);
    let warnings = u32::try_from(seal.warnings.len()).unwrap_or(u32::MAX);
    out(&warnings.to_le_bytes());
    for w in &seal.warnings {
        out(&w.line.to_le_bytes());
        put_prefixed(&mut out, w.field.as_bytes());
        put_prefixed(&mut out, w.message.as_bytes());
    }
    if seal.whole_session {
        out(WHOLE_SESSION);
    }
    bytes
}

/// Signs a seal: sets its `key_id` and `signature`.
pub fn sign_seal(key: &PrivateKey, seal: &mut SubmissionSealed) {
    seal.key_id = key.public().id();
    seal.signature = key.sign(&seal_bytes(seal)).to_vec();
}

/// Whether `seal.signature` is `key`'s signature of the seal. Does not check the digest against
/// the records: compare [`submission_digest`] of the received datums with `seal.digest` for that.
#[must_use]
pub fn verify_seal(key: &PublicKey, seal: &SubmissionSealed) -> bool {
    key.verify(&seal_bytes(seal), &seal.signature)
}

/// The hash an output seal lists for a record: the hash (`function`) of its datum.
pub fn record_hash(function: HashFunction, datum: &[u8]) -> [u8; DIGEST_LEN] {
    match function {
        HashFunction::Sha256 => sha256_bytes(ring::digest::digest(&ring::digest::SHA256, datum)),
        HashFunction::Blake3 => *blake3::hash(datum).as_bytes(),
    }
}

/// The canonical bytes an output seal's signature covers: [`OUTPUT_DOMAIN`] (SHA-256 hashes) or
/// [`OUTPUT_DOMAIN_BLAKE3`], then the prefixed event id and stream, the partition (i32 LE), the
/// prefixed hashes and `sealed_at_ms` (i64 LE).
pub fn output_seal_bytes(seal: &OutputSealed) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(OUTPUT_DOMAIN_BLAKE3.len() + 64 + seal.hashes.len());
    let mut out = |part: &[u8]| bytes.extend_from_slice(part);
    out(match seal.hash_function {
        HashFunction::Sha256 => OUTPUT_DOMAIN,
        HashFunction::Blake3 => OUTPUT_DOMAIN_BLAKE3,
    });
    put_prefixed(&mut out, seal.event_id.as_bytes());
    put_prefixed(&mut out, seal.stream.as_bytes());
    out(&seal.partition.to_le_bytes());
    put_prefixed(&mut out, &seal.hashes);
    out(&seal.sealed_at_ms.to_le_bytes());
    bytes
}

/// Signs an output seal: sets its `key_id` and `signature`.
pub fn sign_output(key: &PrivateKey, seal: &mut OutputSealed) {
    seal.key_id = key.public().id();
    seal.signature = key.sign(&output_seal_bytes(seal)).to_vec();
}

/// Whether an output seal verifies with `key`.
#[must_use]
pub fn verify_output(key: &PublicKey, seal: &OutputSealed) -> bool {
    key.verify(&output_seal_bytes(seal), &seal.signature)
}

/// The bytes an amendment's signature covers: [`AMENDMENT_DOMAIN`] and the amendment's datum
/// written with an empty signature. The fields after the signature that are empty at the
/// datum's end are left out (each one byte, the count 0): `closed_from` when it is empty, then
/// `hands_from` when it is empty too. An amendment written before those fields keeps the bytes
/// it was signed over.
pub fn amendment_bytes(codec: &crate::Codec, amended: &EventAmended) -> Vec<u8> {
    let unsigned = crate::Event::EventAmended(EventAmended {
        signature: Vec::new(),
        ..amended.clone()
    });
    let mut datum = codec.datum(&unsigned);
    // The fields added since version 1, last first.
    for added in [&amended.closed_from, &amended.hands_from] {
        if !added.is_empty() {
            break;
        }
        // An empty array is written as its count, 0, alone, and it is the datum's last field.
        debug_assert_eq!(datum.last(), Some(&0));
        datum.pop();
    }
    [AMENDMENT_DOMAIN, &datum].concat()
}
