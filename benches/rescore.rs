//! Criterion benchmark of a full in-memory rescore (every result's matchpoints, every pair's total,
//! percentage and place) of a simulated national field: 36 boards x 200,000 results, Mitchell clubs
//! laid out like the peers' gen.py. `simpairs-bench` (crates/bench) measures the 36 x 1,000,000 field beside the peers.

use criterion::{Criterion, criterion_group, criterion_main};
use simpairs_scoring::{Direction, Field, Options, Pair, PairLabel, score};
use simpairs_sim::BoardPlan;

fn national_field(boards: u16, per_board: usize, seed: u64) -> Field {
    let mut rng = fastrand::Rng::with_seed(seed);
    let plans: Vec<BoardPlan> = (1..=boards).map(|b| BoardPlan::new(b, &mut rng)).collect();
    let mut field = Field::new();
    field.reserve(per_board * boards as usize);
    let section = field.section("");
    let (mut done, mut club) = (0, 0);
    while done < per_board {
        let tables = rng.usize(3..=30).min(per_board - done).max(1);
        let c = field.club(&format!("C{club}"));
        club += 1;
        let ns: Vec<u32> = (0..tables)
            .map(|t| {
                field.pair(Pair {
                    club: c,
                    section,
                    label: PairLabel::Number(t as u32 + 1),
                    direction: Some(Direction::NS),
                })
            })
            .collect();
        let ew: Vec<u32> = (0..tables)
            .map(|t| {
                field.pair(Pair {
                    club: c,
                    section,
                    label: PairLabel::Number(t as u32 + 1),
                    direction: Some(Direction::EW),
                })
            })
            .collect();
        for plan in &plans {
            for t in 0..tables {
                let score = plan.ns_score(plan.draw(&mut rng));
                field.push_played(
                    plan.board,
                    ns[t],
                    ew[(t + plan.board as usize) % tables],
                    score,
                );
            }
        }
        done += tables;
    }
    field
}

fn rescore(c: &mut Criterion) {
    let field = national_field(36, 200_000, 20240601);
    let options = Options::default();
    let mut group = c.benchmark_group("rescore");
    group.sample_size(10);
    group.bench_function("36 boards x 200,000 results", |b| {
        b.iter(|| {
            let scoring = score(&field, &options).unwrap();
            std::hint::black_box(scoring.standings().len())
        })
    });
    // The simulated national event of the demo and the pipeline benchmark: clubs play different
    // subsets of boards, so boards have different numbers of results and Neuberg factoring makes
    // the matchpoints fractions (the exact sums' slower path).
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 4242,
        clubs: 2_500,
        boards: 36,
        ..Default::default()
    });
    let clubs: Vec<Field> = event
        .clubs
        .iter()
        .map(|c| {
            simpairs_formats::csv::read("club.csv", c.csv.as_bytes())
                .unwrap()
                .field
        })
        .collect();
    // The aggregator's work per club at ingest: each club's own field scored alone, clubs in
    // parallel. A club is a few hundred results, so what a scoring costs whatever the field's size
    // shows here.
    let name = format!("simulated national event, {} clubs each alone", clubs.len());
    group.bench_function(name.as_str(), |b| {
        b.iter(|| {
            use rayon::prelude::*;
            let pairs: usize = clubs
                .par_iter()
                .map(|club| score(club, &options).unwrap().standings().len())
                .sum();
            std::hint::black_box(pairs)
        })
    });
    let field = Field::concat(clubs);
    let name = format!("simulated national event, {} results", field.len());
    group.bench_function(name.as_str(), |b| {
        b.iter(|| {
            let scoring = score(&field, &options).unwrap();
            std::hint::black_box(scoring.standings().len())
        })
    });
    group.finish();
}

criterion_group!(benches, rescore);
criterion_main!(benches);
