//! The schema fingerprint: CRC-64-AVRO (Rabin) of the Parsing Canonical Form, as the Avro
//! specification's reference code computes it ("Schema Fingerprints"). The canonical form
//! itself is built while a file is read (`schema.rs`): names in full, only the attributes
//! that matter for parsing (`name`, `type`, `fields`, `symbols`, `items`), in that order, no
//! white space, a named type defined at its first use and referred to by name after.

/// The fingerprint of the empty input, and the polynomial.
const EMPTY: u64 = 0xc15d_213a_a4d7_a795;

/// CRC-64-AVRO of `bytes`.
pub fn fingerprint(bytes: &[u8]) -> u64 {
    let mut table = [0u64; 256];
    for (i, entry) in (0u64..).zip(table.iter_mut()) {
        let mut fp = i;
        for _ in 0..8 {
            fp = (fp >> 1) ^ (EMPTY & (fp & 1).wrapping_neg());
        }
        *entry = fp;
    }
    let mut fp = EMPTY;
    for &b in bytes {
        fp = (fp >> 8) ^ table[usize::from((fp as u8) ^ b)];
    }
    fp
}
