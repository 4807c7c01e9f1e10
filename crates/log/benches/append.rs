//! Throughput of the embedded log with small records (16-byte key, 60-byte value) in batches of
//! 1,000: appending (fsync off, and on for comparison), reading back by offset, and polling a
//! consumer.
//!
//! Run with `cargo bench -p simpairs-log --bench append`; the "thrpt" lines are records/s.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use simpairs_log::{EmbeddedLog, Log, Options, Produce, StreamConfig};

const BATCH: usize = 1_000;
const VALUE_BYTES: usize = 60;
/// Records written once for the read benchmarks.
const PRELOADED: u64 = 200_000;

fn values() -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..BATCH)
        .map(|i| {
            let key = format!("club-{:04}/b-{:04}", i % 1000, i).into_bytes();
            let value = (0..VALUE_BYTES).map(|j| (i * 31 + j) as u8).collect();
            (key, value)
        })
        .collect()
}

fn open(dir: &std::path::Path, fsync: bool) -> EmbeddedLog {
    let log = EmbeddedLog::open_with(
        dir,
        Options {
            fsync,
            ..Options::default()
        },
    )
    .expect("open the log");
    log.create_stream("bench", &StreamConfig::with_partitions(1))
        .expect("create the stream");
    log
}

fn append(c: &mut Criterion) {
    let values = values();
    let records: Vec<Produce<'_>> = values
        .iter()
        .enumerate()
        .map(|(i, (k, v))| Produce::new(k, v, i as i64).to_partition(0))
        .collect();

    let mut group = c.benchmark_group("append");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.measurement_time(Duration::from_secs(4));
    group.bench_function("batch of 1000, fsync off", |b| {
        b.iter_custom(|iters| {
            // A fresh log per sample, so the disk use stays bounded.
            let dir = tempfile::tempdir().expect("temporary directory");
            let log = open(dir.path(), false);
            let start = Instant::now();
            for _ in 0..iters {
                black_box(log.append("bench", &records).expect("append"));
            }
            start.elapsed()
        });
    });
    group.sample_size(10);
    group.bench_function("batch of 1000, fsync on", |b| {
        b.iter_custom(|iters| {
            let dir = tempfile::tempdir().expect("temporary directory");
            let log = open(dir.path(), true);
            let start = Instant::now();
            for _ in 0..iters {
                black_box(log.append("bench", &records).expect("append"));
            }
            start.elapsed()
        });
    });
    group.finish();
}

fn read(c: &mut Criterion) {
    let values = values();
    let records: Vec<Produce<'_>> = values
        .iter()
        .map(|(k, v)| Produce::new(k, v, 0).to_partition(0))
        .collect();
    let dir = tempfile::tempdir().expect("temporary directory");
    let log = open(dir.path(), false);
    for _ in 0..PRELOADED / BATCH as u64 {
        log.append("bench", &records).expect("append");
    }

    let mut group = c.benchmark_group("read");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.measurement_time(Duration::from_secs(4));
    let mut from = 0;
    group.bench_function("1000 records by offset", |b| {
        b.iter(|| {
            let got = log.read("bench", 0, from, BATCH).expect("read");
            from = (from + BATCH as u64) % PRELOADED;
            black_box(got)
        });
    });
    let mut consumer = log.consumer("bench", &["bench"]).expect("consumer");
    group.bench_function("consumer poll of 1000", |b| {
        b.iter(|| {
            let mut got = consumer.poll(BATCH, Duration::ZERO).expect("poll");
            if got.is_empty() {
                consumer.seek("bench", 0, 0).expect("seek");
                got = consumer.poll(BATCH, Duration::ZERO).expect("poll");
            }
            black_box(got)
        });
    });
    // A log opened afresh must scan the segment to find an offset the first time.
    group.sample_size(10);
    group.throughput(Throughput::Elements(PRELOADED));
    group.bench_function("all 200000 records from a freshly opened log", |b| {
        b.iter(|| {
            let fresh = EmbeddedLog::open_with(
                dir.path(),
                Options {
                    fsync: false,
                    ..Options::default()
                },
            )
            .expect("open");
            let mut from = 0;
            while from < PRELOADED {
                let got = fresh.read("bench", 0, from, 10_000).expect("read");
                from += got.len() as u64;
                black_box(got);
            }
        });
    });
    group.finish();
}

criterion_group!(benches, append, read);
criterion_main!(benches);
