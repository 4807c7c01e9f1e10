//! Property: any sequence of batches, of any record sizes, reads back exactly.

use crate::common;

use common::{log_with_stream, open_log, read_all};
use proptest::prelude::*;
use simpairs_log::{Log, Produce};

/// One record: key length, value length, a byte to fill them with, a partition.
type Rec = (usize, usize, u8, u32);
/// A record as read back: key, value, timestamp.
type Stored = (Vec<u8>, Vec<u8>, i64);

fn batches() -> impl Strategy<Value = Vec<Vec<Rec>>> {
    let record = (0usize..40, 0usize..400, any::<u8>(), 0u32..3);
    prop::collection::vec(prop::collection::vec(record, 1..30), 1..25)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn batches_round_trip(
        batches in batches(),
        segment_bytes in 1u64..3_000,
        chunk in 1usize..50,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let log = log_with_stream(dir.path(), "s", 3, segment_bytes);
        // What each partition should hold: (key, value, timestamp).
        let mut expected: [Vec<Stored>; 3] = Default::default();
        let mut timestamp = -5i64;
        for batch in &batches {
            let owned: Vec<(Vec<u8>, Vec<u8>, i64, u32)> = batch
                .iter()
                .map(|&(k, v, fill, p)| {
                    timestamp += 1_000_003;
                    (vec![fill; k], vec![fill.wrapping_add(1); v], timestamp, p)
                })
                .collect();
            let records: Vec<Produce<'_>> = owned
                .iter()
                .map(|(k, v, t, p)| Produce::new(k, v, *t).to_partition(*p))
                .collect();
            let placed = log.append("s", &records).unwrap();
            for ((k, v, t, p), (placed_p, offset)) in owned.into_iter().zip(placed) {
                prop_assert_eq!(placed_p, p);
                prop_assert_eq!(offset, expected[p as usize].len() as u64);
                expected[p as usize].push((k, v, t));
            }
        }
        // Read back through the writing log (warm index) and a fresh one (cold).
        for reader in [log.clone(), open_log(dir.path(), segment_bytes)] {
            for (p, want) in expected.iter().enumerate() {
                let got: Vec<Stored> = read_all(&reader, "s", p as u32, chunk)
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| {
                        assert_eq!(r.offset, i as u64);
                        (r.key, r.value, r.timestamp_ms)
                    })
                    .collect();
                prop_assert_eq!(&got, want);
                prop_assert_eq!(reader.end_offset("s", p as u32).unwrap(), want.len() as u64);
            }
        }
        // Random access from a cold log.
        let cold = open_log(dir.path(), segment_bytes);
        for (p, want) in expected.iter().enumerate() {
            for offset in (0..want.len()).rev().step_by(3) {
                let r = cold.read("s", p as u32, offset as u64, 1).unwrap();
                prop_assert_eq!(&r[0].value, &want[offset].1);
            }
        }
    }
}
