//! [`read_in_batches`]: every record kept reaches the staging once, in log order, batch by
//! batch; a read that fails is reported, and the batch it cut short is not finished.
//! [`stage_overlapped`]: a few records staged on the calling thread and many on a thread of their
//! own are staged alike.

use std::time::Duration;

use simpairs_log::{Consumer, EmbeddedLog, Log, Options, Produce, Record, StreamConfig};

use super::*;
use crate::state::Effect;

const STREAM: &str = "ev.results";
/// More than one batch ([`super::super::REBUILD_BATCH`]) and not a whole number of chunks.
const RECORDS: u64 = 70_001;

/// A log whose reads fail from offset `fails_from` on.
struct FailingLog {
    inner: EmbeddedLog,
    fails_from: u64,
}

impl Log for FailingLog {
    fn create_stream(&self, name: &str, config: &StreamConfig) -> simpairs_log::Result<()> {
        self.inner.create_stream(name, config)
    }
    fn partitions(&self, stream: &str) -> simpairs_log::Result<u32> {
        self.inner.partitions(stream)
    }
    fn append(
        &self,
        stream: &str,
        records: &[Produce<'_>],
    ) -> simpairs_log::Result<Vec<(u32, u64)>> {
        self.inner.append(stream, records)
    }
    fn read(
        &self,
        stream: &str,
        partition: u32,
        from: u64,
        max: usize,
    ) -> simpairs_log::Result<Vec<Record>> {
        if from >= self.fails_from {
            return Err(simpairs_log::Error::Io {
                action: "read the test's segment",
                path: "segment.log".into(),
                source: std::io::Error::other("gone"),
            });
        }
        let max = max.min((self.fails_from - from) as usize);
        self.inner.read(stream, partition, from, max)
    }
    fn end_offset(&self, stream: &str, partition: u32) -> simpairs_log::Result<u64> {
        self.inner.end_offset(stream, partition)
    }
    fn consumer(&self, group: &str, streams: &[&str]) -> simpairs_log::Result<Box<dyn Consumer>> {
        self.inner.consumer(group, streams)
    }
}

/// A log of [`RECORDS`] records that are not events (each is set aside as unreadable), whose
/// reads fail from `fails_from`.
fn log_of_unreadable_records(dir: &std::path::Path, fails_from: u64) -> FailingLog {
    let options = Options {
        fsync: false,
        ..Options::default()
    };
    let inner = EmbeddedLog::open_with(dir, options).unwrap();
    let config = StreamConfig {
        partitions: 1,
        compacted: false,
        retention: None::<Duration>,
    };
    inner.create_stream(STREAM, &config).unwrap();
    let values: Vec<[u8; 8]> = (0..RECORDS).map(u64::to_le_bytes).collect();
    for block in values.chunks(10_000) {
        let records: Vec<Produce<'_>> = block
            .iter()
            .map(|v| Produce::new(b"k", v, 0).to_partition(0))
            .collect();
        inner.append(STREAM, &records).unwrap();
    }
    FailingLog { inner, fails_from }
}

/// What `done` heard: each batch's offsets, and whether every record of it was set aside.
fn read(
    log: &FailingLog,
    keep: impl FnMut(&Record) -> bool + Send,
) -> (crate::Result<()>, Vec<Vec<u64>>) {
    let codec = simpairs_events::Codec::new().unwrap();
    let mut state = EventState::new();
    let mut batches = Vec::new();
    let result = read_in_batches(
        log,
        STREAM,
        0,
        0..RECORDS,
        &mut state,
        Batch::new(&codec),
        keep,
        |_, positions, finished| {
            let dead = unreadable_indices(&finished);
            assert_eq!(dead, (0..positions.len()).collect::<Vec<_>>());
            batches.push(positions.iter().map(|(offset, _)| *offset).collect());
        },
    );
    (result, batches)
}

/// The indices of the batch's records set aside as unreadable, in order.
fn unreadable_indices(finished: &crate::state::Finished) -> Vec<usize> {
    finished
        .effects
        .iter()
        .filter(|(_, e)| matches!(e, Effect::DeadLetter { reason } if reason.starts_with("cannot read the message")))
        .map(|(index, _)| *index)
        .collect()
}

#[test]
fn every_record_is_staged_once_in_log_order_batch_by_batch() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_of_unreadable_records(dir.path(), u64::MAX);
    let (result, batches) = read(&log, |_| true);
    result.unwrap();
    let sizes: Vec<usize> = batches.iter().map(Vec::len).collect();
    let batch = crate::state::REBUILD_BATCH;
    assert_eq!(sizes, [batch, RECORDS as usize - batch]);
    assert_eq!(batches.concat(), (0..RECORDS).collect::<Vec<_>>());
}

#[test]
fn only_the_records_kept_are_staged_and_kept_is_asked_in_log_order() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_of_unreadable_records(dir.path(), u64::MAX);
    let mut asked = Vec::new();
    let (result, batches) = read(&log, |r| {
        asked.push(r.offset);
        r.offset % 3 == 0
    });
    result.unwrap();
    assert_eq!(asked, (0..RECORDS).collect::<Vec<_>>());
    let kept: Vec<u64> = (0..RECORDS).filter(|o| o % 3 == 0).collect();
    assert_eq!(batches.concat(), kept);
    assert_eq!(batches.len(), 1, "fewer kept records than a batch");
}

#[test]
fn a_read_that_fails_is_reported_and_the_batch_it_cut_short_is_not_finished() {
    let dir = tempfile::tempdir().unwrap();
    for (fails_from, finished) in [(0, 0), (40_000, 0), (68_000, 1)] {
        let log = log_of_unreadable_records(&dir.path().join(fails_from.to_string()), fails_from);
        let (result, batches) = read(&log, |_| true);
        let error = result.unwrap_err().to_string();
        assert!(error.contains("read the test's segment"), "{error}");
        assert_eq!(batches.len(), finished, "failing from {fails_from}");
        assert_eq!(
            batches.concat(),
            (0..finished as u64 * crate::state::REBUILD_BATCH as u64).collect::<Vec<_>>()
        );
    }
}

/// `n` records that are not events, at offsets 0..n.
fn unreadable_records(n: usize) -> Vec<Record> {
    (0..n as u64)
        .map(|offset| Record {
            stream: STREAM.into(),
            partition: 0,
            offset,
            timestamp_ms: 0,
            key: b"k".to_vec(),
            value: offset.to_le_bytes().to_vec(),
        })
        .collect()
}

#[test]
fn a_few_records_staged_here_and_many_on_a_thread_are_staged_alike() {
    let codec = simpairs_events::Codec::new().unwrap();
    let first_index = 5;
    for n in [1, STAGED_HERE, STAGED_HERE + 1, DECODE_CHUNK + 3] {
        let mut records = unreadable_records(n);
        let mut state = EventState::new();
        let mut batch = Batch::new(&codec);
        stage_overlapped(&mut state, &mut batch, &mut records, first_index);
        let finished = state.finish(batch);
        let dead = unreadable_indices(&finished);
        assert_eq!(
            dead,
            (first_index..first_index + n).collect::<Vec<_>>(),
            "{n}"
        );
        // An unreadable record keeps its value: it is what its dead letter carries.
        assert!(records.iter().all(|r| r.value.len() == 8), "{n}");
    }
}
