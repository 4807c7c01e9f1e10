//! Clubs' own fields scored as the aggregator scores them when clubs apply: each club's field on
//! its own, clubs in parallel, each board's table and every pair's standing read.
//!
//! ```text
//! cd /work/main && cargo bench -p simpairs-bench --bench clubs
//! ```
//!
//! criterion reports the time for 2,000 simulated clubs of a national field (36 boards, about 380
//! results a club) and the clubs per second. On a 2-core machine whose speed drifts, compare two
//! builds by running this bench from each, alternately (docs/benchmarks.md, 2026-12-07 morning).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use simpairs_scoring::{Field, Options};

/// The simulated clubs' fields, each read from its traveller CSV as a club's upload is.
fn club_fields() -> Vec<Field> {
    let settings = simpairs_sim::Settings {
        clubs: 2000,
        boards: 36,
        ..Default::default()
    };
    simpairs_sim::national_event(&settings)
        .clubs
        .iter()
        .map(|club| {
            simpairs_formats::import::read("club.csv", club.csv.as_bytes(), None)
                .expect("the simulated clubs' files read")
                .field
        })
        .collect()
}

/// Each club scored and read: the lines of its boards' tables and its pairs' standings.
fn scored(fields: &[Field], options: &Options) -> usize {
    fields
        .par_iter()
        .map(|field| {
            let scoring = simpairs_scoring::score(field, options).expect("a club's field scores");
            let tables: usize = (scoring.boards().iter())
                .map(|board| scoring.board_table_lines(board).len())
                .sum();
            tables + scoring.standings().len()
        })
        .sum()
}

fn clubs(c: &mut Criterion) {
    let fields = club_fields();
    let options = Options::default();
    let mut group = c.benchmark_group("clubs");
    group.throughput(Throughput::Elements(fields.len() as u64));
    group.bench_function("scored, tables and standings read", |b| {
        b.iter(|| scored(&fields, &options))
    });
    group.finish();
}

criterion_group!(benches, clubs);
criterion_main!(benches);
