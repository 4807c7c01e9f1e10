//! Exact ties and exact rounding in a field the size where the engine's shortcuts matter: tens of
//! thousands of results from hundreds of clubs, split between threads and read in blocks, with
//! Neuberg fractions of a different denominator on each board. Every pair's total, percentage and
//! place is checked against sums of the exact values of its results.

use crate::common;
use num_bigint::BigInt;
use num_rational::BigRational;

use simpairs_scoring::{Direction, Field, Options, Outcome, score};

const CLUBS: u32 = 250;
const TABLES: u32 = 9;
const BOARDS: u16 = 20;

/// A national field: each club a Mitchell of `TABLES` tables playing every board, NS pair t
/// against EW pair t. Scores come from a short list; even clubs repeat one pattern, so that many
/// pairs tie exactly. Each club
/// leaves one board out at its first table (so boards are played different numbers of times and
/// Neuberg factors every board differently, and some pairs play fewer boards), and one club in
/// seven gives an artificial 60/40 at its second table.
fn national_field() -> Field {
    let mut field = Field::new();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize
    };
    const SCORES: [i32; 5] = [420, 450, -50, 140, -100];
    for c in 0..CLUBS {
        let skipped = (c % u32::from(BOARDS)) as u16 + 1;
        common::add_mitchell_club(
            &mut field,
            &format!("C{c:03}"),
            TABLES,
            BOARDS,
            |t, board| {
                if t == 0 && board == skipped {
                    None
                } else if t == 1 && c % 7 == 0 && board == 3 {
                    Some(Outcome::Adjusted {
                        ns_percent: 60,
                        ew_percent: 40,
                    })
                } else if c % 2 == 0 {
                    // Clubs that leave out the same board repeat each other's scores: their
                    // pairs tie exactly.
                    Some(Outcome::Played(
                        SCORES[(t + usize::from(board)) % SCORES.len()],
                    ))
                } else {
                    Some(Outcome::Played(SCORES[next() % SCORES.len()]))
                }
            },
        );
    }
    field
}

fn big(v: simpairs_scoring::Value) -> BigRational {
    BigRational::new(BigInt::from(*v.numer()), BigInt::from(*v.denom()))
}

/// Hundredths of an exact value, rounded half away from zero.
fn hundredths(v: &BigRational) -> i64 {
    let scaled = v * BigRational::from_integer(BigInt::from(100));
    let (n, d) = (scaled.numer().clone(), scaled.denom().clone());
    let q: BigInt = ((n.magnitude() * 2u32 + d.magnitude()) / (d.magnitude() * 2u32)).into();
    let q = i64::try_from(q).unwrap();
    if n < BigInt::from(0) { -q } else { q }
}

#[test]
fn ties_and_rounding_are_exact_in_a_national_field() {
    let field = national_field();
    assert!(
        field.len() > 40_000,
        "large enough for several blocks and parts"
    );
    for ratio in [false, true] {
        let options = Options {
            factoring: if ratio {
                simpairs_scoring::Factoring::Ratio
            } else {
                simpairs_scoring::Factoring::Neuberg
            },
            ..Options::default()
        };
        let scoring = score(&field, &options).unwrap();
        let zero = BigRational::from_integer(BigInt::from(0));
        let mut totals = vec![zero.clone(); field.pairs().len()];
        let mut tops = vec![zero.clone(); field.pairs().len()];
        for row in 0..field.len() {
            let r = field.result(row);
            let (ns, ew) = scoring.result_values(row);
            let top = big(scoring.top(scoring.board(r.board).unwrap()));
            totals[r.ns as usize] += big(ns);
            totals[r.ew as usize] += big(ew);
            tops[r.ns as usize] += &top;
            tops[r.ew as usize] += &top;
        }
        let st = scoring.standings();
        let mut fractions = 0;
        for (p, s) in st.iter().enumerate() {
            assert_eq!(
                s.total_hundredths,
                hundredths(&totals[p]),
                "total of pair {p}"
            );
            let percent =
                hundredths(&(&totals[p] * BigRational::from_integer(100.into()) / &tops[p]));
            assert_eq!(
                s.percent_hundredths,
                Some(percent),
                "percentage of pair {p}"
            );
            fractions += usize::from(!totals[p].is_integer());
        }
        assert!(
            fractions > 1000,
            "the field has fractional totals ({fractions})"
        );
        // Places within each direction: pairs share one exactly when their factored totals are equal.
        for d in [Direction::NS, Direction::EW] {
            let mut ids: Vec<usize> = (0..st.len())
                .filter(|&p| field.pairs()[p].direction == Some(d))
                .collect();
            let factored = |p: usize| &totals[p] / BigRational::from_integer(st[p].boards.into());
            let keys: Vec<BigRational> = (0..st.len()).map(factored).collect();
            ids.sort_by(|&a, &b| keys[b].cmp(&keys[a]));
            let mut shared = 0;
            for (i, &p) in ids.iter().enumerate() {
                let first = ids[..i]
                    .iter()
                    .position(|&q| keys[q] == keys[p])
                    .unwrap_or(i);
                assert_eq!(
                    st[p].rank as usize,
                    first + 1,
                    "place of pair {p} ({ratio})"
                );
                assert_eq!(
                    st[p].tied,
                    first < i || ids.get(i + 1).is_some_and(|&q| keys[q] == keys[p])
                );
                shared += usize::from(first < i);
            }
            assert!(shared > 100, "the field has exact ties ({shared})");
        }
        // The combined list: every pair, both directions, placed the same way.
        let keys: Vec<BigRational> = (0..st.len())
            .map(|p| &totals[p] / BigRational::from_integer(st[p].boards.into()))
            .collect();
        let mut all: Vec<usize> = (0..st.len()).collect();
        all.sort_by(|&a, &b| keys[b].cmp(&keys[a]));
        let mut first = 0;
        for (i, &p) in all.iter().enumerate() {
            if keys[all[first]] != keys[p] {
                first = i;
            }
            assert_eq!(
                st[p].combined_rank as usize,
                first + 1,
                "combined place of pair {p} ({ratio})"
            );
            assert_eq!(
                st[p].combined_tied,
                first < i || all.get(i + 1).is_some_and(|&q| keys[q] == keys[p]),
                "combined tie of pair {p} ({ratio})"
            );
        }
    }
}

/// Every pair's figures as a report prints them, the floating-point ones by their bits.
fn figures(field: &Field, options: &Options) -> Vec<(u64, u64, i64, Option<i64>, u32, u32)> {
    score(field, options)
        .unwrap()
        .standings()
        .iter()
        .map(|s| {
            let places = (s.rank, s.combined_rank);
            let exact = (s.total_hundredths, s.percent_hundredths);
            (
                s.total.to_bits(),
                s.max.to_bits(),
                exact.0,
                exact.1,
                places.0,
                places.1,
            )
        })
        .collect()
}

/// A report's figures are the same on every machine: the floating-point totals (printed in full by
/// `score --json` and carried by the standings events) do not depend on how many threads summed
/// them, whether each club's rows come together (the field as built) or every pair's rows are
/// spread through the file (the same rows by board).
#[test]
fn the_figures_do_not_depend_on_the_number_of_threads() {
    let field = national_field();
    let mut by_board: Vec<usize> = (0..field.len()).collect();
    by_board.sort_by_key(|&row| field.board_of(row));
    let spread = field.subset(&by_board);
    for f in [&field, &spread] {
        for options in common::factored_options() {
            let factoring = options.factoring;
            let in_pool = |threads: usize| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| figures(f, &options))
            };
            let one = in_pool(1);
            for threads in [2, 3, 5] {
                let many = in_pool(threads);
                let differ = (0..one.len()).filter(|&p| one[p] != many[p]).count();
                assert_eq!(
                    differ, 0,
                    "{differ} pairs' figures differ between 1 and {threads} threads ({factoring:?})"
                );
            }
        }
    }
}

/// The first pairs of the combined list, ranked before the rest of the field
/// (`Summed::top`), are those of the whole field's ranking with the same standings, wherever the
/// cut falls: before, inside or just after a group of pairs sharing a place.
#[test]
fn the_first_pairs_are_those_of_the_whole_ranking() {
    let field = national_field();
    for options in common::factored_options() {
        let whole = score(&field, &options).unwrap();
        let combined = simpairs_scoring::standings::lists(&whole).combined;
        let place = |i: usize| whole.standings()[combined[i] as usize].combined_rank;
        // The first group of pairs sharing a place: the cut falls before, inside and after it.
        let first = (1..combined.len()).find(|&i| place(i) == place(i - 1));
        let first = first.expect("pairs share a place") - 1;
        let end = (first..combined.len()).find(|&i| place(i) != place(first));
        let end = end.unwrap_or(combined.len());
        let around = [first, first + 1, first + 2, end, end + 1];
        let mut counts = simpairs_scoring::BoardCounts::new();
        let summed = simpairs_scoring::score_growing_summed(&field, &mut counts, &options).unwrap();
        let ends = [257, 300, combined.len(), combined.len() + 1];
        for k in (1..=40).chain(around).chain(ends) {
            let expected: Vec<_> = (combined.iter().take(k))
                .map(|&p| whole.standings()[p as usize].clone())
                .collect();
            let top = summed.top(k);
            assert_eq!(top, expected, "{:?}: the first {k}", options.factoring);
        }
    }
}
