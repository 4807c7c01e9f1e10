//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::Path;

use simpairs_log::{EmbeddedLog, Log, Options, Record, StreamConfig};

/// A log without fsync (tests do not survive machine crashes anyway) and the given segment size.
pub fn open_log(dir: &Path, segment_bytes: u64) -> EmbeddedLog {
    EmbeddedLog::open_with(
        dir,
        Options {
            fsync: false,
            segment_bytes,
        },
    )
    .expect("open the log")
}

/// A log and a stream in it.
pub fn log_with_stream(
    dir: &Path,
    stream: &str,
    partitions: u32,
    segment_bytes: u64,
) -> EmbeddedLog {
    let log = open_log(dir, segment_bytes);
    log.create_stream(stream, &StreamConfig::with_partitions(partitions))
        .expect("create the stream");
    log
}

/// A value of `len` bytes that says who wrote it (`writer`, `seq`) and can be checked for damage.
pub fn tagged_value(writer: u8, seq: u64, len: usize) -> Vec<u8> {
    let len = len.max(9);
    let mut v = Vec::with_capacity(len);
    v.push(writer);
    v.extend_from_slice(&seq.to_le_bytes());
    let mut x = seq.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(writer);
    while v.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push(x as u8);
    }
    v
}

/// The (writer, seq) of a [`tagged_value`], checking its bytes.
pub fn check_tagged(value: &[u8]) -> (u8, u64) {
    assert!(value.len() >= 9, "value too short: {} bytes", value.len());
    let writer = value[0];
    let seq = u64::from_le_bytes(value[1..9].try_into().unwrap());
    assert_eq!(
        value,
        &tagged_value(writer, seq, value.len())[..],
        "value of writer {writer} seq {seq} is damaged"
    );
    (writer, seq)
}

/// Every record of a partition, read in chunks of `chunk`.
pub fn read_all(log: &dyn Log, stream: &str, partition: u32, chunk: usize) -> Vec<Record> {
    let mut out: Vec<Record> = Vec::new();
    loop {
        let next = out.last().map_or(0, |r| r.offset + 1);
        let records = log
            .read(stream, partition, next, chunk)
            .expect("read the partition");
        if records.is_empty() {
            return out;
        }
        out.extend(records);
    }
}

/// Checks that the records have offsets 0, 1, 2, ... and belong to the partition.
pub fn assert_dense(records: &[Record], stream: &str, partition: u32) {
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.offset, i as u64, "offsets must be dense");
        assert_eq!(r.stream, stream);
        assert_eq!(r.partition, partition);
    }
}

/// The only segment files of a partition, sorted.
pub fn segment_files(dir: &Path, stream: &str, partition: u32) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir.join(stream).join(partition.to_string()))
        .expect("list the partition")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    files.sort();
    files
}

/// The checkpoint file of a partition.
pub fn checkpoint_path(dir: &Path, stream: &str, partition: u32) -> std::path::PathBuf {
    dir.join(stream)
        .join(partition.to_string())
        .join("checkpoint")
}

/// Runs `append` as if it had been interrupted after writing its records but before moving the
/// partition's checkpoint (which is put back as it was): what a crash leaves, and the only
/// bytes the log may cut as a torn tail.
pub fn as_interrupted(dir: &Path, stream: &str, partition: u32, append: impl FnOnce()) {
    let path = checkpoint_path(dir, stream, partition);
    let before = std::fs::read(&path).expect("read the checkpoint");
    append();
    std::fs::write(&path, before).expect("put the checkpoint back");
}
