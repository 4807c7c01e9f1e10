//! Choosing a partition from a record key, the same way Kafka's Java client does.

/// The partition a record with this key goes to when the producer names none.
///
/// This is Kafka's default partitioner for keyed records: the 32-bit murmur2 hash of the key,
/// made non-negative, modulo the partition count. librdkafka does the same with
/// `partitioner=murmur2_random`, so a Kafka backend configured that way places every key in the
/// same partition as the embedded log does. An empty key is hashed like any other key (it is
/// not a "null key"), so placement stays deterministic.
///
/// `partitions` must be at least 1; 0 is treated as 1.
pub fn partition_for_key(key: &[u8], partitions: u32) -> u32 {
    (murmur2(key) & 0x7fff_ffff) % partitions.max(1)
}

/// Kafka's murmur2 (seed 0x9747b28c), as `org.apache.kafka.common.utils.Utils.murmur2`.
pub(crate) fn murmur2(data: &[u8]) -> u32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;

    let mut h = SEED ^ data.len() as u32;
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = chunks.remainder();
    if tail.len() >= 3 {
        h ^= u32::from(tail[2]) << 16;
    }
    if tail.len() >= 2 {
        h ^= u32::from(tail[1]) << 8;
    }
    if !tail.is_empty() {
        h ^= u32::from(tail[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases of Kafka's own `UtilsTest.testMurmur2`.
    #[test]
    fn matches_kafkas_java_client() {
        let cases: [(&[u8], i32); 6] = [
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            (b"abc", 479_470_107),
        ];
        for (key, want) in cases {
            assert_eq!(
                murmur2(key) as i32,
                want,
                "key {:?}",
                String::from_utf8_lossy(key)
            );
        }
    }

    #[test]
    fn partition_is_in_range_and_stable() {
        for n in 1..20 {
            for key in [&b""[..], b"a", b"club-17/board-3"] {
                let p = partition_for_key(key, n);
                assert!(p < n);
                assert_eq!(p, partition_for_key(key, n));
            }
        }
        assert_eq!(partition_for_key(b"x", 0), 0);
    }
}
