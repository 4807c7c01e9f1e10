//! The byte layout of one record in a segment file (see the crate docs for the table).
//!
//! Pure functions over byte slices: encoding, and checking a frame without trusting any byte.

use std::fmt;

use crate::MAX_RECORD_BYTES;

/// Bytes of the length field that starts every frame.
const LEN_FIELD: usize = 4;
/// Bytes from the start of the frame to the start of the key.
const KEY_START: usize = 32;
/// Fixed bytes of a frame: everything except key and value.
pub(crate) const FRAME_OVERHEAD: usize = 36;
/// Smallest value the length field can hold (a record with empty key and value).
const MIN_LEN: u32 = (FRAME_OVERHEAD - LEN_FIELD) as u32;
/// Largest value the length field can hold.
const MAX_LEN: u64 = (FRAME_OVERHEAD - LEN_FIELD + MAX_RECORD_BYTES) as u64;

/// The stored checksum of a frame that starts at `frame[0]` (written by [`encode`]).
pub(crate) fn stored_crc(frame: &[u8]) -> Option<u32> {
    (frame.len() >= 8).then(|| u32_at(frame, 4))
}

/// Appends one framed record to `out`.
///
/// The caller has checked `key.len() + value.len() <= MAX_RECORD_BYTES`.
pub(crate) fn encode(
    out: &mut Vec<u8>,
    offset: u64,
    timestamp_ms: i64,
    batch_rest: u32,
    key: &[u8],
    value: &[u8],
) {
    let start = out.len();
    let len = (FRAME_OVERHEAD - LEN_FIELD + key.len() + value.len()) as u32;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // checksum, filled in below
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&timestamp_ms.to_le_bytes());
    out.extend_from_slice(&batch_rest.to_le_bytes());
    out.extend_from_slice(&(key.len() as u32).to_le_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&(value.len() as u32).to_le_bytes());
    out.extend_from_slice(value);
    let crc = checksum(&out[start..]);
    out[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
}

/// The CRC-32 of a frame: over the length field and everything after the checksum field.
fn checksum(frame: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&frame[..LEN_FIELD]);
    hasher.update(&frame[8..]);
    hasher.finalize()
}

/// The header fields of a frame that passed [`check`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    /// Total bytes of the frame, length field included.
    pub total_len: usize,
    pub offset: u64,
    pub timestamp_ms: i64,
    /// How many more records of the same append call follow this one (0 = last of its batch).
    pub batch_rest: u32,
    pub key_len: usize,
    /// The stored checksum (it identifies the record in a partition's checkpoint).
    pub crc: u32,
}

impl Header {
    /// The key within the frame's bytes.
    pub fn key<'a>(&self, frame: &'a [u8]) -> &'a [u8] {
        &frame[KEY_START..KEY_START + self.key_len]
    }

    /// The value within the frame's bytes.
    pub fn value<'a>(&self, frame: &'a [u8]) -> &'a [u8] {
        &frame[KEY_START + self.key_len + 4..self.total_len]
    }
}

/// What the bytes at the start of a buffer are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Check {
    /// A complete, checksum-valid frame.
    Valid(Header),
    /// The buffer ends before the frame does; `needed` bytes would hold it (or at least its length field).
    Incomplete { needed: usize },
    /// Not a valid frame.
    Invalid(Invalid),
}

/// Why bytes are not a valid frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Invalid {
    /// The length field holds a value no record can have.
    Length(u32),
    /// The stored checksum does not match the bytes.
    Checksum { stored: u32, computed: u32 },
    /// Key and value lengths do not add up to the frame length.
    Lengths { frame: u32, key: u32, value: u32 },
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::Length(len) => write!(
                f,
                "its length field says {len} bytes, which no record can have (between {MIN_LEN} and {MAX_LEN})"
            ),
            Invalid::Checksum { stored, computed } => write!(
                f,
                "its checksum does not match its contents (stored {stored:08x}, computed {computed:08x})"
            ),
            Invalid::Lengths { frame, key, value } => write!(
                f,
                "its key ({key} bytes) and value ({value} bytes) do not fit its length ({frame} bytes)"
            ),
        }
    }
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    let mut b = [0; 4];
    b.copy_from_slice(&buf[at..at + 4]);
    u32::from_le_bytes(b)
}

fn u64_at(buf: &[u8], at: usize) -> u64 {
    let mut b = [0; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Reads the offset field of a frame whose first 16 bytes are in `buf`, without checking anything.
pub(crate) fn raw_offset(buf: &[u8]) -> Option<u64> {
    (buf.len() >= 16).then(|| u64_at(buf, 8))
}

/// Reads the length field of a frame without checking it; `None` if it is impossible.
pub(crate) fn raw_total_len(buf: &[u8]) -> Option<usize> {
    if buf.len() < LEN_FIELD {
        return None;
    }
    let len = u32_at(buf, 0);
    (MIN_LEN..=MAX_LEN as u32)
        .contains(&len)
        .then_some(len as usize + LEN_FIELD)
}

/// Checks the frame at the start of `buf`. Never panics, whatever the bytes.
pub(crate) fn check(buf: &[u8]) -> Check {
    if buf.len() < LEN_FIELD {
        return Check::Incomplete { needed: LEN_FIELD };
    }
    let len = u32_at(buf, 0);
    if len < MIN_LEN || u64::from(len) > MAX_LEN {
        return Check::Invalid(Invalid::Length(len));
    }
    let total = len as usize + LEN_FIELD;
    if buf.len() < total {
        return Check::Incomplete { needed: total };
    }
    let frame = &buf[..total];
    let stored = u32_at(frame, 4);
    let computed = checksum(frame);
    if stored != computed {
        return Check::Invalid(Invalid::Checksum { stored, computed });
    }
    let key_len = u32_at(frame, 28);
    let Some(value_len_at) = (key_len as usize)
        .checked_add(KEY_START)
        .filter(|&at| at + 4 <= total)
    else {
        return Check::Invalid(Invalid::Lengths {
            frame: len,
            key: key_len,
            value: 0,
        });
    };
    let value_len = u32_at(frame, value_len_at);
    if value_len_at + 4 + value_len as usize != total {
        return Check::Invalid(Invalid::Lengths {
            frame: len,
            key: key_len,
            value: value_len,
        });
    }
    Check::Valid(Header {
        total_len: total,
        offset: u64_at(frame, 8),
        timestamp_ms: u64_at(frame, 16) as i64,
        batch_rest: u32_at(frame, 24),
        key_len: key_len as usize,
        crc: stored,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(offset: u64, ts: i64, rest: u32, key: &[u8], value: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        encode(&mut out, offset, ts, rest, key, value);
        out
    }

    #[test]
    fn layout_matches_the_documented_table() {
        let bytes = one(0x0102, -2, 7, b"k1", b"val");
        assert_eq!(bytes.len(), FRAME_OVERHEAD + 5);
        assert_eq!(&bytes[0..4], &(bytes.len() as u32 - 4).to_le_bytes());
        assert_eq!(&bytes[8..16], &0x0102u64.to_le_bytes());
        assert_eq!(&bytes[16..24], &(-2i64).to_le_bytes());
        assert_eq!(&bytes[24..28], &7u32.to_le_bytes());
        assert_eq!(&bytes[28..32], &2u32.to_le_bytes());
        assert_eq!(&bytes[32..34], b"k1");
        assert_eq!(&bytes[34..38], &3u32.to_le_bytes());
        assert_eq!(&bytes[38..41], b"val");
        let mut h = crc32fast::Hasher::new();
        h.update(&bytes[0..4]);
        h.update(&bytes[8..]);
        assert_eq!(&bytes[4..8], &h.finalize().to_le_bytes());
    }

    #[test]
    fn round_trip() {
        let bytes = one(42, 1_700_000_000_000, 0, b"key", b"value");
        let Check::Valid(h) = check(&bytes) else {
            panic!("not valid: {:?}", check(&bytes));
        };
        assert_eq!(h.offset, 42);
        assert_eq!(h.timestamp_ms, 1_700_000_000_000);
        assert_eq!(h.batch_rest, 0);
        assert_eq!(h.key(&bytes), b"key");
        assert_eq!(h.value(&bytes), b"value");
        assert_eq!(h.total_len, bytes.len());
    }

    #[test]
    fn every_prefix_is_incomplete() {
        let bytes = one(1, 2, 3, b"abc", b"defgh");
        for n in 0..bytes.len() {
            assert!(
                matches!(check(&bytes[..n]), Check::Incomplete { .. }),
                "prefix {n}"
            );
        }
    }

    #[test]
    fn every_single_bit_flip_is_detected() {
        let bytes = one(9, 10, 0, b"key", b"some value");
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut bad = bytes.clone();
                bad[i] ^= 1 << bit;
                assert!(
                    !matches!(check(&bad), Check::Valid(_)),
                    "flip of bit {bit} in byte {i} went unnoticed"
                );
            }
        }
    }

    #[test]
    fn impossible_lengths_are_invalid() {
        assert!(matches!(
            check(&[0, 0, 0, 0, 1, 2, 3]),
            Check::Invalid(Invalid::Length(0))
        ));
        assert!(matches!(
            check(&[0xff; 40]),
            Check::Invalid(Invalid::Length(_))
        ));
    }
}
