//! Fuzzing the segment reader through the log: segment files (and checkpoints) cut, lengthened,
//! scrambled, replaced by arbitrary bytes or deleted, then read, appended to, checked and
//! repaired by a fresh log. Nothing may panic; every record returned must be the one written at
//! its offset; and when bytes that were durably written are changed or gone, reading the
//! partition through must fail rather than return a shorter stream, an append must not reuse an
//! offset, and `check` must not call the log whole.
//!
//! `SIMPAIRS_FUZZ_CASES` sets the number of cases of each property (default 128, about five
//! seconds in a debug build); failing cases are kept in `fuzz_segments.proptest-regressions`
//! beside this file, and run first.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{log_with_stream, open_log, segment_files};
use proptest::prelude::*;
use simpairs_log::{Log, Produce, RepairOptions};

/// Small segments, so that mutations hit sealed segments and the last one alike.
const SEGMENT_BYTES: u64 = 700;

fn cases() -> u32 {
    std::env::var("SIMPAIRS_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(128)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    }
}

/// The value written at `offset`: its length varies, its bytes say where it belongs.
fn value(offset: u64) -> Vec<u8> {
    let len = 5 + (offset * 37 % 90) as usize;
    let mut v = format!("{offset:05}").into_bytes();
    v.extend((0..len).map(|i| (offset as usize * 31 + i) as u8));
    v
}

/// What is done to the files after the appends.
#[derive(Debug, Clone)]
enum Damage {
    /// Bytes added at the end of the last segment: the torn end of an interrupted append.
    Lengthen(Vec<u8>),
    /// The segment (chosen by a fraction of the list) cut to a fraction of its length.
    Cut { segment: f64, keep: f64 },
    /// Bytes of a segment changed (xor with a non-zero mask) from a fraction of its length on.
    Scramble {
        segment: f64,
        at: f64,
        mask: Vec<u8>,
    },
    /// A segment replaced by arbitrary bytes.
    Replace { segment: f64, bytes: Vec<u8> },
    /// A segment deleted.
    Delete { segment: f64 },
    /// The checkpoint file replaced by arbitrary bytes, or cut.
    Checkpoint { bytes: Vec<u8> },
}

fn damage() -> impl Strategy<Value = Damage> {
    let frac = 0.0f64..1.0;
    let mask = prop::collection::vec(1u8..=255, 1..40);
    prop_oneof![
        prop::collection::vec(any::<u8>(), 1..300).prop_map(Damage::Lengthen),
        (frac.clone(), 0.0f64..0.999).prop_map(|(segment, keep)| Damage::Cut { segment, keep }),
        (frac.clone(), frac.clone(), mask).prop_map(|(segment, at, mask)| Damage::Scramble {
            segment,
            at,
            mask
        }),
        (frac.clone(), prop::collection::vec(any::<u8>(), 0..600))
            .prop_map(|(segment, bytes)| Damage::Replace { segment, bytes }),
        frac.prop_map(|segment| Damage::Delete { segment }),
        prop::collection::vec(any::<u8>(), 0..600).prop_map(|bytes| Damage::Checkpoint { bytes }),
    ]
}

fn pick(files: &[PathBuf], fraction: f64) -> &Path {
    let i = ((files.len() as f64 * fraction) as usize).min(files.len() - 1);
    &files[i]
}

/// What a damage did to the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Durably written bytes were changed or removed; `structural`: a segment is gone or has
    /// another size, or the last segment (the checkpoint's) is changed, which appends must
    /// notice too. Bytes changed in place inside an older segment are reported by every read
    /// that reaches them; an append, which does not read them, goes on at the right offset.
    Lost { structural: bool },
    /// Every record is still there (bytes after them do not count).
    Whole,
    /// The checkpoint was damaged: the records are there, but the log may refuse to vouch for them.
    Unverifiable,
}

/// Applies the damage.
fn apply(dir: &Path, damage: &Damage) -> Effect {
    let files = segment_files(dir, "s", 0);
    let is_last = |path: &Path| files.last().is_some_and(|l| l == path);
    match damage {
        Damage::Lengthen(bytes) => {
            let last = files.last().expect("a segment");
            let mut content = fs::read(last).unwrap();
            content.extend_from_slice(bytes);
            fs::write(last, content).unwrap();
            Effect::Whole
        }
        Damage::Cut { segment, keep } => {
            let path = pick(&files, *segment);
            let content = fs::read(path).unwrap();
            let keep = (content.len() as f64 * keep) as usize;
            fs::write(path, &content[..keep]).unwrap();
            Effect::Lost { structural: true }
        }
        Damage::Scramble { segment, at, mask } => {
            let path = pick(&files, *segment);
            let mut content = fs::read(path).unwrap();
            let start = (content.len() as f64 * at) as usize;
            for (byte, m) in content[start..].iter_mut().zip(mask) {
                *byte ^= m;
            }
            fs::write(path, content).unwrap();
            Effect::Lost {
                structural: is_last(path),
            }
        }
        Damage::Replace { segment, bytes } => {
            let path = pick(&files, *segment);
            let old = fs::read(path).unwrap();
            fs::write(path, bytes).unwrap();
            if old != *bytes {
                Effect::Lost {
                    structural: is_last(path) || old.len() != bytes.len(),
                }
            } else {
                Effect::Whole
            }
        }
        Damage::Delete { segment } => {
            fs::remove_file(pick(&files, *segment)).unwrap();
            Effect::Lost { structural: true }
        }
        Damage::Checkpoint { bytes } => {
            fs::write(common::checkpoint_path(dir, "s", 0), bytes).unwrap();
            Effect::Unverifiable
        }
    }
}

/// Reads the partition through from offset 0 in chunks; the records (each checked against what
/// was written) and whether it stopped on an error.
fn read_through(log: &dyn Log, chunk: usize) -> (u64, bool) {
    let mut next = 0;
    loop {
        match log.read("s", 0, next, chunk) {
            Ok(records) if records.is_empty() => return (next, false),
            Ok(records) => {
                for r in records {
                    assert_eq!(r.offset, next, "offsets are dense");
                    assert_eq!(
                        r.value,
                        value(r.offset),
                        "record {} is what was written",
                        r.offset
                    );
                    next += 1;
                }
            }
            Err(_) => return (next, true),
        }
    }
}

/// A log holding `batches` (sizes) of records, all appended durably.
fn written(dir: &Path, batches: &[usize]) -> u64 {
    let log = log_with_stream(dir, "s", 1, SEGMENT_BYTES);
    let mut next = 0u64;
    for &size in batches {
        let values: Vec<Vec<u8>> = (next..next + size as u64).map(value).collect();
        let records: Vec<Produce<'_>> = values
            .iter()
            .map(|v| Produce::new(b"key", v, 0).to_partition(0))
            .collect();
        log.append("s", &records).unwrap();
        next += size as u64;
    }
    next
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn damaged_segments_are_read_whole_or_refused(
        batches in prop::collection::vec(1usize..12, 1..25),
        damage in damage(),
        chunk in 1usize..40,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let total = written(dir.path(), &batches);
        let effect = apply(dir.path(), &damage);
        let lost = matches!(effect, Effect::Lost { .. });

        let log = open_log(dir.path(), SEGMENT_BYTES);
        let (read, failed) = read_through(&log, chunk);
        match effect {
            Effect::Lost { .. } => prop_assert!(
                failed,
                "{total} records written, {read} read as if whole after {damage:?}"
            ),
            Effect::Whole => prop_assert!(!failed && read == total, "{read} of {total} read after {damage:?}"),
            Effect::Unverifiable => prop_assert!(failed || read == total, "{read} of {total} read after {damage:?}"),
        }
        if let Ok(end) = log.end_offset("s", 0) {
            prop_assert_eq!(end, total, "the end is never moved back");
        }
        let report = simpairs_log::check(dir.path()).unwrap();
        prop_assert_eq!(report.is_whole(), !failed, "check and readers agree after {:?}", damage);
        let before: Vec<Vec<u8>> = segment_files(dir.path(), "s", 0)
            .iter()
            .map(|p| fs::read(p).unwrap())
            .collect();
        let repaired = simpairs_log::repair(dir.path(), &RepairOptions::default()).unwrap();
        if lost {
            prop_assert!(!repaired.is_whole());
            let after: Vec<Vec<u8>> = segment_files(dir.path(), "s", 0)
                .iter()
                .map(|p| fs::read(p).unwrap())
                .collect();
            prop_assert!(before == after, "repair changed a damaged partition");
        }
        match open_log(dir.path(), SEGMENT_BYTES).append("s", &[Produce::new(b"k", &value(total), 0)]) {
            Ok(placed) => {
                prop_assert!(
                    effect != Effect::Lost { structural: true },
                    "appended after {:?}",
                    damage
                );
                prop_assert_eq!(placed[0].1, total, "no offset reused");
            }
            Err(e) => prop_assert!(failed, "append refused ({e}) although the partition reads whole"),
        }
    }

    #[test]
    fn arbitrary_segment_files_never_panic(
        files in prop::collection::vec(
            (0u64..200, prop::collection::vec(any::<u8>(), 0..800)),
            1..4,
        ),
        version_1 in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let log = log_with_stream(dir.path(), "s", 1, SEGMENT_BYTES);
        let part = dir.path().join("s").join("0");
        for (base, bytes) in &files {
            fs::write(part.join(format!("{base:020}.log")), bytes).unwrap();
        }
        if version_1 {
            fs::remove_file(common::checkpoint_path(dir.path(), "s", 0)).unwrap();
            let meta = dir.path().join("s").join("stream.meta");
            let text = fs::read_to_string(&meta).unwrap().replace("stream 2", "stream 1");
            fs::write(meta, text).unwrap();
        }
        drop(log);
        // Whatever they hold: records or an error, never a panic.
        let fresh = open_log(dir.path(), SEGMENT_BYTES);
        let _ = fresh.read("s", 0, 0, 1000);
        let _ = fresh.end_offset("s", 0);
        let _ = simpairs_log::check(dir.path()).unwrap();
        let _ = simpairs_log::repair(dir.path(), &RepairOptions::default()).unwrap();
        let _ = open_log(dir.path(), SEGMENT_BYTES).append("s", &[Produce::new(b"k", b"v", 0)]);
    }
}
