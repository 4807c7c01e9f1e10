//! Reading a 100,000-line USEBIO file (31 MB, generated: a 20-table Mitchell with contracts, leads,
//! official matchpoints and named pairs), and writing it back re-scored.
//!
//! Run with `cargo bench -p simpairs-formats --bench usebio`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use simpairs_formats::{export, read};
use simpairs_scoring::{Options, score};

#[path = "../tests/common/generate.rs"]
mod generate;

const LINES: usize = 100_000;

fn usebio(c: &mut Criterion) {
    let text = generate::usebio(LINES, 20);
    let mut group = c.benchmark_group("usebio");
    group.sample_size(10);
    group.throughput(Throughput::Elements(LINES as u64));
    group.bench_function("read 100k lines", |b| {
        b.iter(|| black_box(read("bench.xml", black_box(text.as_bytes()), None).expect("valid")))
    });
    let imported = read("bench.xml", text.as_bytes(), None).expect("valid");
    let scoring = score(&imported.field, &Options::default()).expect("scored");
    group.bench_function("write 100k lines", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(text.len());
            export::write_usebio(&mut out, &imported, &scoring).expect("written");
            black_box(out)
        })
    });
    group.finish();
}

criterion_group!(benches, usebio);
criterion_main!(benches);
