//! Torn tails are cut; damage elsewhere is reported, never cut, never a panic.

use crate::common;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

use common::{as_interrupted, assert_dense, log_with_stream, open_log, read_all, segment_files};
use simpairs_log::{Error, Log, Produce};

/// Bytes of one record with a 1-byte key and a 20-byte value.
const FRAME: u64 = 36 + 1 + 20;

/// Appends batches of `sizes` records (key "k", 20-byte values naming their index).
fn append_batches(log: &dyn Log, sizes: &[usize]) {
    let mut n = 0u32;
    for &size in sizes {
        let values: Vec<String> = (0..size)
            .map(|_| {
                n += 1;
                format!("value number {:07}", n - 1)
            })
            .collect();
        let records: Vec<_> = values
            .iter()
            .map(|v| Produce::new(b"k", v.as_bytes(), 0).to_partition(0))
            .collect();
        log.append("s", &records).unwrap();
    }
}

fn values(log: &dyn Log) -> Vec<String> {
    read_all(log, "s", 0, 1000)
        .into_iter()
        .map(|r| String::from_utf8(r.value).unwrap())
        .collect()
}

fn expected(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("value number {i:07}")).collect()
}

fn append_bytes(path: &Path, bytes: &[u8]) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

fn truncate_by(path: &Path, bytes: u64) {
    let file = OpenOptions::new().write(true).open(path).unwrap();
    let len = file.metadata().unwrap().len();
    file.set_len(len - bytes).unwrap();
}

fn flip_byte(path: &Path, at: u64) {
    let mut bytes = fs::read(path).unwrap();
    bytes[at as usize] ^= 0x5a;
    fs::write(path, bytes).unwrap();
}

fn only_segment(dir: &Path) -> std::path::PathBuf {
    let files = segment_files(dir, "s", 0);
    assert_eq!(files.len(), 1);
    files.into_iter().next().unwrap()
}

#[test]
fn garbage_after_the_last_record_is_cut_by_the_next_append() {
    for garbage in [&b"garbage!"[..], &[0u8; 100], &[0xffu8; 3], &[0x30u8; 4096]] {
        let dir = tempfile::tempdir().unwrap();
        let log = log_with_stream(dir.path(), "s", 1, 1 << 20);
        append_batches(&log, &[3, 4, 3]);
        let segment = only_segment(dir.path());
        append_bytes(&segment, garbage);

        // Readers, old and new, see the ten records and nothing of the garbage.
        assert_eq!(values(&log), expected(10));
        let fresh = open_log(dir.path(), 1 << 20);
        assert_eq!(values(&fresh), expected(10));
        assert_eq!(fresh.end_offset("s", 0).unwrap(), 10);
        assert_eq!(
            fs::metadata(&segment).unwrap().len(),
            10 * FRAME + garbage.len() as u64
        );

        // A writer in a new process (here: a new log) cuts it and continues at offset 10.
        let writer = open_log(dir.path(), 1 << 20);
        let placed = writer
            .append("s", &[Produce::new(b"k", b"value number 0000010", 0)])
            .unwrap();
        assert_eq!(placed, [(0, 10)]);
        assert_eq!(fs::metadata(&segment).unwrap().len(), 11 * FRAME);
        assert_eq!(values(&log), expected(11));
        assert_eq!(values(&open_log(dir.path(), 1 << 20)), expected(11));
    }
}

#[test]
fn a_record_cut_short_loses_its_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 1 << 20);
    append_batches(&log, &[3, 4]);
    as_interrupted(dir.path(), "s", 0, || append_batches(&log, &[3]));
    let segment = only_segment(dir.path());
    truncate_by(&segment, 5); // inside the last record of the interrupted batch

    let fresh = open_log(dir.path(), 1 << 20);
    assert_eq!(
        values(&fresh),
        expected(7),
        "the torn batch is invisible as a whole"
    );
    let writer = open_log(dir.path(), 1 << 20);
    append_batches(&writer, &[]);
    let placed = writer
        .append("s", &[Produce::new(b"k", b"value number 0000007", 0)])
        .unwrap();
    assert_eq!(
        placed,
        [(0, 7)],
        "offsets continue after the last whole batch"
    );
    assert_eq!(fs::metadata(&segment).unwrap().len(), 8 * FRAME);
    let records = read_all(&open_log(dir.path(), 1 << 20), "s", 0, 3);
    assert_dense(&records, "s", 0);
    assert_eq!(values(&fresh), expected(8));
}

#[test]
fn whole_records_of_an_unfinished_batch_are_cut_too() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 1 << 20);
    append_batches(&log, &[2]);
    as_interrupted(dir.path(), "s", 0, || append_batches(&log, &[5]));
    let segment = only_segment(dir.path());
    truncate_by(&segment, 2 * FRAME); // three of the five records of the interrupted batch remain

    assert_eq!(values(&open_log(dir.path(), 1 << 20)), expected(2));
    let writer = open_log(dir.path(), 1 << 20);
    assert_eq!(writer.end_offset("s", 0).unwrap(), 2);
    append_batches(&writer, &[1]);
    // The new record is offset 2 (it is named "value number 0000000" by the helper).
    let records = read_all(&open_log(dir.path(), 1 << 20), "s", 0, 10);
    assert_eq!(records.len(), 3);
    assert_dense(&records, "s", 0);
    assert_eq!(fs::metadata(&segment).unwrap().len(), 3 * FRAME);
}

#[test]
fn damage_in_the_middle_is_an_error_naming_file_offset_and_position() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 1 << 20);
    append_batches(&log, &[3, 4, 3]);
    let segment = only_segment(dir.path());
    let len_before = fs::metadata(&segment).unwrap().len();
    flip_byte(&segment, 3 * FRAME + 40); // in the value of offset 3

    let fresh = open_log(dir.path(), 1 << 20);
    let err = fresh.read("s", 0, 0, 100).unwrap_err();
    let Error::Corrupt {
        offset, position, ..
    } = &err
    else {
        panic!("expected a corruption error, got {err}");
    };
    assert_eq!((*offset, *position), (3, 3 * FRAME));
    let message = err.to_string();
    let head = format!(
        "stream \"s\" partition 0 is damaged: the record with offset 3 at byte {} of {} is unreadable (its checksum does not match its contents",
        3 * FRAME,
        segment.display()
    );
    assert!(message.starts_with(&head), "{message}");
    assert!(
        message.contains("so this is damage, not the torn end of an interrupted append"),
        "{message}"
    );

    // Records before the damage can still be read; the damaged one and later ones cannot.
    assert_eq!(fresh.read("s", 0, 0, 3).unwrap().len(), 3);
    assert!(fresh.read("s", 0, 3, 1).is_err());
    assert!(fresh.end_offset("s", 0).is_err());

    // A writer refuses to append after damage instead of cutting good records.
    let writer = open_log(dir.path(), 1 << 20);
    let err = writer
        .append("s", &[Produce::new(b"k", b"x", 0)])
        .unwrap_err();
    assert!(matches!(err, Error::Corrupt { offset: 3, .. }), "{err}");
    assert_eq!(fs::metadata(&segment).unwrap().len(), len_before);
}

#[test]
fn a_damaged_length_field_is_not_mistaken_for_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 1 << 20);
    append_batches(&log, &[3, 4, 3]);
    let segment = only_segment(dir.path());
    let len_before = fs::metadata(&segment).unwrap().len();
    // The high byte of offset 5's length field: it now claims to run far past the end.
    flip_byte(&segment, 5 * FRAME + 2);

    let err = open_log(dir.path(), 1 << 20)
        .read("s", 0, 0, 100)
        .unwrap_err();
    assert!(
        matches!(err, Error::Corrupt { offset: 5, position, .. } if position == 5 * FRAME),
        "{err}"
    );
    let err = open_log(dir.path(), 1 << 20)
        .append("s", &[Produce::new(b"k", b"x", 0)])
        .unwrap_err();
    assert!(matches!(err, Error::Corrupt { offset: 5, .. }), "{err}");
    assert_eq!(fs::metadata(&segment).unwrap().len(), len_before);
}

#[test]
fn damage_at_the_end_of_an_earlier_segment_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    // Each batch of 2 records (114 bytes) fills a segment.
    let log = log_with_stream(dir.path(), "s", 1, 150);
    append_batches(&log, &[2, 2, 2]);
    let files = segment_files(dir.path(), "s", 0);
    assert_eq!(files.len(), 3);
    truncate_by(&files[1], 3);

    // Seen from the segment's size and its seal (what it held when the next one was started)
    // by every reader and writer, without reading it.
    let log = open_log(dir.path(), 150);
    for err in [
        log.read("s", 0, 0, 100).unwrap_err(),
        log.end_offset("s", 0).unwrap_err(),
        log.append("s", &[Produce::new(b"k", b"x", 0)]).unwrap_err(),
    ] {
        let message = err.to_string();
        assert!(
            matches!(
                err,
                Error::Lost {
                    expected_offset: 2,
                    ..
                }
            ),
            "{message}"
        );
        assert!(
            message.contains("the file ends at byte 111, before byte 114 where it ended when the next segment was started"),
            "{message}"
        );
        assert!(
            message.contains(&files[1].display().to_string()),
            "{message}"
        );
    }
    // Without its seal (a segment written before seals existed), reading it tells.
    fs::remove_file(dir.path().join("s").join("0").join("seals")).unwrap();
    let err = open_log(dir.path(), 150).read("s", 0, 0, 100).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::Corrupt { offset: 3, .. }), "{message}");
    assert!(
        message.contains("although a later segment exists"),
        "{message}"
    );
    assert!(
        message.contains(&files[1].display().to_string()),
        "{message}"
    );
}

#[test]
fn a_missing_segment_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 150);
    append_batches(&log, &[2, 2, 2]);
    let files = segment_files(dir.path(), "s", 0);
    fs::remove_file(&files[1]).unwrap();
    let err = open_log(dir.path(), 150).read("s", 0, 0, 100).unwrap_err();
    assert!(
        matches!(&err, Error::Lost { expected_offset: 2, segment, .. } if segment.ends_with("00000000000000000002.log")),
        "{err}"
    );
    assert!(err.to_string().contains("offsets 2 to 3 are gone"), "{err}");
}

#[test]
fn random_damage_never_panics() {
    // Whatever byte of a record is changed, reading reports that very record as corrupt: never a
    // panic, never a record whose bytes differ from what was written, never damage passed over as
    // a torn tail (the checkpoint says every record was written); appending never panics either.
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "s", 1, 1 << 20);
    append_batches(&log, &[3, 4, 3]);
    let segment = only_segment(dir.path());
    let original = fs::read(&segment).unwrap();
    assert_eq!(original.len() as u64, 10 * FRAME);
    for at in (0..original.len()).step_by(7) {
        let mut bytes = original.clone();
        bytes[at] ^= 0xa5;
        fs::write(&segment, &bytes).unwrap();
        let damaged = at as u64 / FRAME;
        let fresh = open_log(dir.path(), 1 << 20);
        match fresh.read("s", 0, 0, 100) {
            Err(Error::Corrupt { offset, .. }) if offset == damaged => {}
            other => panic!("byte {at} (record {damaged}) changed: {other:?}"),
        }
        let _ = open_log(dir.path(), 1 << 20).append("s", &[Produce::new(b"k", b"x", 0)]);
    }
}

#[test]
fn a_new_segment_holding_only_a_torn_batch() {
    // A writer started a segment and was killed while writing its first batch.
    for torn_len in [0usize, 20, 50] {
        let dir = tempfile::tempdir().unwrap();
        let log = log_with_stream(dir.path(), "s", 1, 150);
        append_batches(&log, &[2, 2]);
        let files = segment_files(dir.path(), "s", 0);
        assert_eq!(files.len(), 2);
        let first_record = fs::read(&files[1]).unwrap()[..FRAME as usize].to_vec();
        let torn = files[1].with_file_name("00000000000000000004.log");
        fs::write(&torn, &first_record[..torn_len]).unwrap();

        for reader in [open_log(dir.path(), 150), log.clone()] {
            assert_eq!(values(&reader), expected(4));
            assert_eq!(reader.end_offset("s", 0).unwrap(), 4);
        }
        let placed = open_log(dir.path(), 150)
            .append("s", &[Produce::new(b"k", b"value number 0000004", 0)])
            .unwrap();
        assert_eq!(placed, [(0, 4)]);
        assert_eq!(fs::metadata(&torn).unwrap().len(), FRAME);
        assert_eq!(values(&log), expected(5));
        assert_eq!(values(&open_log(dir.path(), 150)), expected(5));
    }
}
