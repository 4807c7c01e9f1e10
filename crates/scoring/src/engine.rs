//! Scoring a whole field: two parallel passes over the results and one valuation per board.
//!
//! 1. Pass one counts, per board, how many plain results have each score (a histogram over at most a few
//!    thousand score positions: bridge scores are multiples of 10 between -7600 and +7600).
//! 2. Each board is valued from its histogram and its few special results ([`crate::board`]): prefix sums
//!    give every score's matchpoints, so no board is ever sorted.
//! 3. Pass two looks every result up in its board's table, records its values and adds them to the two
//!    pairs' totals (per-thread totals, merged afterwards).
//! 4. Pairs are ranked by their total factored to the most boards played ([`crate::standings`]).

use num_bigint::BigInt;
use num_rational::BigRational;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::board::{BoardInput, BoardScore, FieldContext, value_board};
use crate::field::{Field, PairId, SPECIAL_SCORE, Special};
use crate::standings::{Standing, rank_pairs};
use crate::value::{Value, to_f64};
use crate::{Error, Factoring, Method, Options, Result, Scale};

/// Largest number of score positions kept in a dense table (bridge needs about 1,521).
const MAX_DENSE_POSITIONS: i64 = 1 << 16;
/// Largest per-thread histogram (boards x positions) before boards are counted one by one.
const MAX_HISTOGRAM_CELLS: usize = 1 << 24;

/// Maps a North-South score to its position in the boards' value tables.
#[derive(Clone, Debug)]
pub(crate) enum ScorePositions {
    /// Position = (score - min) / step.
    Dense { min: i32, step: i32, len: usize },
    /// Unusual scores: position = index among the distinct scores.
    Sparse(Vec<i32>),
}

impl ScorePositions {
    #[inline]
    pub fn position(&self, score: i32) -> usize {
        match self {
            ScorePositions::Dense { min, step, .. } => {
                ((i64::from(score) - i64::from(*min)) / i64::from(*step)) as usize
            }
            ScorePositions::Sparse(scores) => scores
                .binary_search(&score)
                .expect("every score of the field has a position"),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            ScorePositions::Dense { len, .. } => *len,
            ScorePositions::Sparse(scores) => scores.len(),
        }
    }

    fn score_at(&self, position: usize) -> i32 {
        match self {
            ScorePositions::Dense { min, step, .. } => min + step * position as i32,
            ScorePositions::Sparse(scores) => scores[position],
        }
    }
}

/// Each result's values, kept as whole numbers when every value of the field is one.
#[derive(Clone, Debug)]
pub(crate) enum RowValues {
    Integral { ns: Vec<i32>, ew: Vec<i32> },
    /// Looked up in the boards' exact tables when asked for.
    Exact,
}

/// The scored field: every result's values and every pair's standing.
#[derive(Debug)]
pub struct Scoring<'f> {
    pub(crate) field: &'f Field,
    pub(crate) options: Options,
    pub(crate) boards: Vec<BoardScore>,
    /// Board number -> index in `boards`, `u32::MAX` if absent.
    pub(crate) board_index: Vec<u32>,
    pub(crate) positions: ScorePositions,
    pub(crate) values: RowValues,
    pub(crate) standings: Vec<Standing>,
    /// The most times any board was played.
    pub(crate) target: u32,
}

/// Per-thread sums of pass two.
struct Totals {
    total_int: Vec<i64>,
    total_f: Vec<f64>,
    tops_f: Vec<f64>,
    boards: Vec<u32>,
}

impl Totals {
    fn new(pairs: usize, integral: bool, ratio: bool) -> Totals {
        Totals {
            total_int: if integral { vec![0; pairs] } else { Vec::new() },
            total_f: if integral { Vec::new() } else { vec![0.0; pairs] },
            tops_f: if ratio { vec![0.0; pairs] } else { Vec::new() },
            boards: vec![0; pairs],
        }
    }

    fn merge(mut self, other: Totals) -> Totals {
        fn add<T: Copy + std::ops::AddAssign + Send + Sync>(a: &mut [T], b: &[T]) {
            a.par_iter_mut().zip(b.par_iter()).for_each(|(x, y)| *x += *y);
        }
        add(&mut self.total_int, &other.total_int);
        add(&mut self.total_f, &other.total_f);
        add(&mut self.tops_f, &other.tops_f);
        add(&mut self.boards, &other.boards);
        self
    }
}

/// Splits `0..len` into one contiguous part per thread (a few more for balance).
fn parts(len: usize) -> Vec<std::ops::Range<usize>> {
    let n = (rayon::current_num_threads() * 2).max(1);
    let size = len.div_ceil(n).max(1 << 14);
    (0..len)
        .step_by(size)
        .map(|start| start..(start + size).min(len))
        .collect()
}

/// Scores every result of `field` as one field.
pub fn score<'f>(field: &'f Field, options: &Options) -> Result<Scoring<'f>> {
    let rows = field.len();
    let pairs = field.pairs().len();

    // Pass zero: which boards exist and the range of scores.
    #[derive(Clone, Copy)]
    struct Range {
        min: i32,
        max: i32,
        step: i32,
    }
    let empty = Range {
        min: i32::MAX,
        max: i32::MIN,
        step: 0,
    };
    let widen = |r: Range, s: i32| Range {
        min: r.min.min(s),
        max: r.max.max(s),
        step: num_integer::gcd(r.step, s),
    };
    let join = |a: Range, b: Range| Range {
        min: a.min.min(b.min),
        max: a.max.max(b.max),
        step: num_integer::gcd(a.step, b.step),
    };
    let (mut range, present) = parts(rows)
        .into_par_iter()
        .map(|part| {
            let mut r = empty;
            let mut present = vec![0u64; 1024];
            let (boards, scores) = (&field.boards[part.clone()], &field.scores[part]);
            for (&b, &s) in boards.iter().zip(scores) {
                present[b as usize / 64] |= 1 << (b % 64);
                if s != SPECIAL_SCORE {
                    r = widen(r, s);
                }
            }
            (r, present)
        })
        .reduce(
            || (empty, vec![0u64; 1024]),
            |(ra, mut pa), (rb, pb)| {
                pa.iter_mut().zip(&pb).for_each(|(a, b)| *a |= b);
                (join(ra, rb), pa)
            },
        );
    for (_, special) in &field.specials {
        match special.outcome {
            crate::Outcome::Played(s) => range = widen(range, s),
            crate::Outcome::Split { ns, ew } => range = widen(widen(range, ns), -ew),
            crate::Outcome::Adjusted { .. } => {}
        }
    }
    if range.min > range.max {
        range = Range {
            min: 0,
            max: 0,
            step: 1,
        };
    }
    let step = range.step.max(1);
    let span = (i64::from(range.max) - i64::from(range.min)) / i64::from(step) + 1;
    let positions = if span <= MAX_DENSE_POSITIONS {
        ScorePositions::Dense {
            min: range.min,
            step,
            len: span as usize,
        }
    } else {
        let mut distinct: Vec<i32> = field
            .scores
            .iter()
            .copied()
            .filter(|&s| s != SPECIAL_SCORE)
            .collect();
        for (_, special) in &field.specials {
            match special.outcome {
                crate::Outcome::Played(s) => distinct.push(s),
                crate::Outcome::Split { ns, ew } => distinct.extend([ns, -ew]),
                crate::Outcome::Adjusted { .. } => {}
            }
        }
        distinct.par_sort_unstable();
        distinct.dedup();
        ScorePositions::Sparse(distinct)
    };
    let width = positions.len();

    let mut board_numbers = Vec::new();
    let mut board_index = vec![u32::MAX; 1 << 16];
    for (word, bits) in present.iter().enumerate() {
        for bit in 0..64 {
            if bits & (1 << bit) != 0 {
                let b = word * 64 + bit;
                board_index[b] = board_numbers.len() as u32;
                board_numbers.push(b as u16);
            }
        }
    }
    let nboards = board_numbers.len();

    // Pass one: results per board, and the plain scores' histogram.
    let dense_histogram = nboards * width <= MAX_HISTOGRAM_CELLS;
    let (results_per_board, plain_per_board): (Vec<u32>, Vec<Vec<(i32, u32)>>) = if dense_histogram {
        let (results, hist) = parts(rows)
            .into_par_iter()
            .map(|part| {
                let mut results = vec![0u32; nboards];
                let mut hist = vec![0u32; nboards * width];
                let (boards, scores) = (&field.boards[part.clone()], &field.scores[part]);
                for (&b, &s) in boards.iter().zip(scores) {
                    let bi = board_index[b as usize] as usize;
                    results[bi] += 1;
                    if s != SPECIAL_SCORE {
                        hist[bi * width + positions.position(s)] += 1;
                    }
                }
                (results, hist)
            })
            .reduce(
                || (vec![0; nboards], vec![0; nboards * width]),
                |(mut ra, mut ha), (rb, hb)| {
                    ra.iter_mut().zip(&rb).for_each(|(a, b)| *a += b);
                    ha.iter_mut().zip(&hb).for_each(|(a, b)| *a += b);
                    (ra, ha)
                },
            );
        let plain = (0..nboards)
            .map(|bi| {
                hist[bi * width..(bi + 1) * width]
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c > 0)
                    .map(|(p, &c)| (positions.score_at(p), c))
                    .collect()
            })
            .collect();
        (results, plain)
    } else {
        let mut results = vec![0u32; nboards];
        let mut counts: Vec<FxHashMap<i32, u32>> = vec![FxHashMap::default(); nboards];
        for (&b, &s) in field.boards.iter().zip(&field.scores) {
            let bi = board_index[b as usize] as usize;
            results[bi] += 1;
            if s != SPECIAL_SCORE {
                *counts[bi].entry(s).or_default() += 1;
            }
        }
        let plain = counts
            .into_iter()
            .map(|m| {
                let mut v: Vec<(i32, u32)> = m.into_iter().collect();
                v.sort_unstable();
                v
            })
            .collect();
        (results, plain)
    };
    let target = results_per_board.iter().copied().max().unwrap_or(0);

    // Each board's special rows.
    let mut specials_per_board: Vec<Vec<(u32, Special)>> = vec![Vec::new(); nboards];
    for &(row, special) in &field.specials {
        let bi = board_index[field.boards[row as usize] as usize] as usize;
        specials_per_board[bi].push((row, special));
    }

    // Value every board.
    let ctx = FieldContext { target };
    let position = |s: i32| positions.position(s);
    let boards: Vec<BoardScore> = plain_per_board
        .into_par_iter()
        .zip(specials_per_board.par_iter())
        .enumerate()
        .map(|(bi, (plain, specials))| {
            value_board(
                BoardInput {
                    board: board_numbers[bi],
                    results: results_per_board[bi],
                    plain,
                    specials,
                },
                ctx,
                options,
                &position,
                width,
            )
        })
        .collect::<Result<_>>()?;
    let integral = boards.iter().all(|b| b.integral);
    let ratio = options.method == Method::Matchpoints && options.factoring == Factoring::Ratio;

    // Pass two: every result's values, summed per pair.
    let int_tables: Vec<(Vec<i32>, Vec<i32>)> = if integral {
        boards
            .iter()
            .map(|b| {
                let whole = |t: &[Value]| t.iter().map(|v| *v.numer() as i32).collect();
                (whole(&b.ns), whole(&b.ew))
            })
            .collect()
    } else {
        Vec::new()
    };
    let float_tables: Vec<(Vec<f64>, Vec<f64>)> = if integral {
        Vec::new()
    } else {
        boards
            .iter()
            .map(|b| {
                let float = |t: &[Value]| t.iter().map(|v| to_f64(*v)).collect();
                (float(&b.ns), float(&b.ew))
            })
            .collect()
    };
    let tops_f: Vec<f64> = boards.iter().map(|b| to_f64(b.top)).collect();
    let (mut ns_values, mut ew_values) = if integral {
        (vec![0i32; rows], vec![0i32; rows])
    } else {
        (Vec::new(), Vec::new())
    };
    let row_parts = parts(rows);
    let mut ns_slices: Vec<&mut [i32]> = Vec::with_capacity(row_parts.len());
    let mut ew_slices: Vec<&mut [i32]> = Vec::with_capacity(row_parts.len());
    {
        let (mut ns_rest, mut ew_rest) = (&mut ns_values[..], &mut ew_values[..]);
        for part in &row_parts {
            let n = if integral { part.len() } else { 0 };
            let (a, b) = std::mem::take(&mut ns_rest).split_at_mut(n);
            let (c, d) = std::mem::take(&mut ew_rest).split_at_mut(n);
            ns_slices.push(a);
            ew_slices.push(c);
            ns_rest = b;
            ew_rest = d;
        }
    }
    let totals = row_parts
        .into_par_iter()
        .zip(ns_slices.into_par_iter().zip(ew_slices.into_par_iter()))
        .map(|(part, (ns_out, ew_out))| {
            let mut t = Totals::new(pairs, integral, ratio);
            let mut special_at = field.specials.partition_point(|(r, _)| (*r as usize) < part.start);
            for (i, row) in part.enumerate() {
                let b = field.boards[row];
                let bi = board_index[b as usize] as usize;
                let (ns_pair, ew_pair) = (field.ns[row] as usize, field.ew[row] as usize);
                let s = field.scores[row];
                let special = if s == SPECIAL_SCORE {
                    let (r, _) = field.specials[special_at];
                    debug_assert_eq!(r as usize, row);
                    special_at += 1;
                    Some(boards[bi].special_values(r))
                } else {
                    None
                };
                if integral {
                    let (nv, ev) = match special {
                        Some((n, e)) => (*n.numer() as i32, *e.numer() as i32),
                        None => {
                            let p = positions.position(s);
                            (int_tables[bi].0[p], int_tables[bi].1[p])
                        }
                    };
                    ns_out[i] = nv;
                    ew_out[i] = ev;
                    t.total_int[ns_pair] += i64::from(nv);
                    t.total_int[ew_pair] += i64::from(ev);
                } else {
                    let (nv, ev) = match special {
                        Some((n, e)) => (to_f64(n), to_f64(e)),
                        None => {
                            let p = positions.position(s);
                            (float_tables[bi].0[p], float_tables[bi].1[p])
                        }
                    };
                    t.total_f[ns_pair] += nv;
                    t.total_f[ew_pair] += ev;
                }
                t.boards[ns_pair] += 1;
                t.boards[ew_pair] += 1;
                if ratio {
                    t.tops_f[ns_pair] += tops_f[bi];
                    t.tops_f[ew_pair] += tops_f[bi];
                }
            }
            t
        })
        .reduce_with(Totals::merge)
        .unwrap_or_else(|| Totals::new(pairs, integral, ratio));

    let values = if integral {
        RowValues::Integral {
            ns: ns_values,
            ew: ew_values,
        }
    } else {
        RowValues::Exact
    };
    let mut scoring = Scoring {
        field,
        options: *options,
        boards,
        board_index,
        positions,
        values,
        standings: Vec::new(),
        target,
    };
    scoring.standings = rank_pairs(&scoring, totals.total_int, totals.total_f, totals.tops_f, totals.boards)?;
    Ok(scoring)
}

impl<'f> Scoring<'f> {
    /// The field that was scored.
    pub fn field(&self) -> &'f Field {
        self.field
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The boards, in board-number order.
    pub fn boards(&self) -> &[BoardScore] {
        &self.boards
    }

    /// The board of a board number.
    pub fn board(&self, number: u16) -> Option<&BoardScore> {
        let i = self.board_index[number as usize];
        (i != u32::MAX).then(|| &self.boards[i as usize])
    }

    /// Every pair's standing, indexed by pair id.
    pub fn standings(&self) -> &[Standing] {
        &self.standings
    }

    /// The most times any board was played (Neuberg's N).
    pub fn target(&self) -> u32 {
        self.target
    }

    /// The divisor that turns the internal double scale into the presentation scale.
    pub(crate) fn scale_divisor(&self) -> i64 {
        match (self.options.method, self.options.scale) {
            (Method::Matchpoints, Scale::Single) => 2,
            _ => 1,
        }
    }

    /// Values of the result in `row` to its NS pair and to its EW pair, exactly, on the presentation scale.
    pub fn result_values(&self, row: usize) -> (Value, Value) {
        let (ns, ew) = self.raw_values(row);
        let d = Value::from_integer(self.scale_divisor());
        (ns / d, ew / d)
    }

    /// The top of a board on the presentation scale.
    pub fn top(&self, board: &BoardScore) -> Value {
        board.top / Value::from_integer(self.scale_divisor())
    }

    /// Values on the internal double scale.
    pub(crate) fn raw_values(&self, row: usize) -> (Value, Value) {
        if let RowValues::Integral { ns, ew } = &self.values {
            return (Value::from_integer(i64::from(ns[row])), Value::from_integer(i64::from(ew[row])));
        }
        let bi = self.board_index[self.field.boards[row] as usize] as usize;
        let board = &self.boards[bi];
        let s = self.field.scores[row];
        if s == SPECIAL_SCORE {
            board.special_values(row as u32)
        } else {
            let p = self.positions.position(s);
            (board.ns[p], board.ew[p])
        }
    }

    /// Exact totals (and sums of tops) of some pairs, by one scan of every result.
    pub(crate) fn exact_totals(&self, wanted: &[PairId]) -> FxHashMap<PairId, (BigRational, BigRational)> {
        let mut want = vec![false; self.field.pairs().len()];
        for &p in wanted {
            want[p as usize] = true;
        }
        let zero = || BigRational::from_integer(BigInt::from(0));
        let big = |v: Value| BigRational::new(BigInt::from(*v.numer()), BigInt::from(*v.denom()));
        parts(self.field.len())
            .into_par_iter()
            .map(|part| {
                let mut sums: FxHashMap<PairId, (BigRational, BigRational)> = FxHashMap::default();
                for row in part {
                    let (ns_pair, ew_pair) = (self.field.ns[row], self.field.ew[row]);
                    if !want[ns_pair as usize] && !want[ew_pair as usize] {
                        continue;
                    }
                    let (ns, ew) = self.raw_values(row);
                    let bi = self.board_index[self.field.boards[row] as usize] as usize;
                    let top = big(self.boards[bi].top);
                    for (pair, v) in [(ns_pair, ns), (ew_pair, ew)] {
                        if want[pair as usize] {
                            let e = sums.entry(pair).or_insert_with(|| (zero(), zero()));
                            e.0 += big(v);
                            e.1 += top.clone();
                        }
                    }
                }
                sums
            })
            .reduce(FxHashMap::default, |mut a, b| {
                for (k, (t, m)) in b {
                    let e = a.entry(k).or_insert_with(|| (zero(), zero()));
                    e.0 += t;
                    e.1 += m;
                }
                a
            })
    }
}

/// Checks a scoring request before any work.
pub(crate) fn check_options(options: &Options) -> Result<()> {
    if options.butler_trim_percent >= 50 {
        return Err(Error::Invalid(format!(
            "Butler trim of {}% at each end leaves nothing to average",
            options.butler_trim_percent
        )));
    }
    Ok(())
}
