//! Scoring a whole field: two parallel passes over the results and one valuation per board.
//!
//! 1. Pass one counts, per board, how many plain results have each score: a histogram over the grid of
//!    bridge scores (multiples of 10 within +-8000, 1,601 positions), so no board is ever sorted. A
//!    small field (one club's) uses its own distinct scores as positions instead: valuing 1,601
//!    positions per board would cost more than its few hundred results.
//! 2. Each board is valued from its histogram and its few special results ([`crate::board`]): prefix
//!    sums give every score's matchpoints (or IMPs), stored in a table by score position. A small
//!    field's board of plain results keeps one value for each of its own scores instead
//!    ([`BoardScore`]'s `by_plain`).
//! 3. Pass two looks every result up in its board's table and adds its values to the two pairs' totals
//!    (per-thread totals, merged afterwards; a small field's row by row, each looked up on its
//!    board). A result's values are the same lookup afterwards
//!    ([`Scoring::result_values`]), so nothing per result is stored beyond the field itself.
//! 4. Pairs are ranked by their total factored to the most boards played ([`crate::standings`]); the
//!    rank order is kept, so that the printed lists need no sort of their own.
//!
//! A field that grows between scorings (a live national field) can keep pass one's counts in a
//! [`BoardCounts`]: then only the rows added since are counted ([`crate::score_growing`]).

use num_bigint::BigInt;
use num_rational::BigRational;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::board::{BoardInput, BoardScore, FieldContext, from_target, value_board};
use crate::conventions::ShortLines;
use crate::field::{ColumnScore, Field, PairId, SPECIAL_SCORE, Special};
use crate::ranks::{RankOrder, Standing};
use crate::value::Value;
use crate::{Error, Factoring, Method, Options, Outcome, Result, Scale};

mod exact;
mod float_pass;
mod pair_cells;
mod previous;
use float_pass::float_pass;
pub(crate) use pair_cells::{CellValues, PairCells};
pub(crate) use previous::{Moved, Previous};

/// Every bridge score is a multiple of 10 within +-8000 (7NTXX vulnerable down 13 is 7600).
const GRID_LIMIT: i32 = 8000;
const GRID_STEP: i32 = 10;
const GRID_LEN: usize = (2 * GRID_LIMIT / GRID_STEP) as usize + 1;
/// Largest number of score positions kept in a dense table when scores leave the bridge grid.
const MAX_DENSE_POSITIONS: i64 = 1 << 16;
/// Largest per-thread histogram (boards x positions) before boards are counted with hash maps.
const MAX_HISTOGRAM_CELLS: usize = 1 << 24;
/// Pair totals are packed with the boards count in the low 16 bits (a pair plays each board once and
/// there are at most 65,535 board numbers).
const COUNT_BITS: u32 = 16;

/// Maps scores to table positions; generic so the hot loops inline the bridge grid's arithmetic.
pub(crate) trait Positions: Sync {
    fn position(&self, score: i32) -> usize;
}

/// The grid of all bridge scores: position = (score + 8000) / 10, a division by a constant.
#[derive(Clone, Copy, Debug)]
struct BridgeGrid;

impl BridgeGrid {
    fn fits(score: i32) -> bool {
        BridgeGrid::on_grid(score).is_some()
    }

    /// The position of `score` if it is on the grid. Unsigned, so that one comparison bounds it
    /// on both sides and the division by the step is a multiplication and a shift.
    #[inline(always)]
    fn on_grid(score: i32) -> Option<usize> {
        let from_lowest = score.wrapping_add(GRID_LIMIT) as u32;
        let at = from_lowest / GRID_STEP as u32;
        (from_lowest <= 2 * GRID_LIMIT as u32 && at * GRID_STEP as u32 == from_lowest)
            .then_some(at as usize)
    }
}

impl Positions for BridgeGrid {
    #[inline(always)]
    fn position(&self, score: i32) -> usize {
        // Unsigned: a score on the grid is at least -GRID_LIMIT, and the division is then a
        // multiplication and a shift without a sign's correction.
        (score.wrapping_add(GRID_LIMIT) as u32 / GRID_STEP as u32) as usize
    }
}

/// [`GRID_POSITIONS`]' mark of a score off the bridge grid (or a special score).
const OFF_GRID: u16 = u16::MAX;

/// Every column score's position on the bridge grid, by the score's bits: one lookup a row in
/// pass one instead of the grid's arithmetic (with the boards' own numbers read as their index,
/// L.csv's pass one took 18 ms instead of 25).
static GRID_POSITIONS: std::sync::LazyLock<Box<[u16; 1 << 16]>> = std::sync::LazyLock::new(|| {
    let mut positions = Box::new([OFF_GRID; 1 << 16]);
    for (bits, at) in positions.iter_mut().enumerate() {
        if let Some(on) = BridgeGrid::on_grid((bits as u16 as ColumnScore).into()) {
            *at = on as u16;
        }
    }
    positions
});

/// Maps a North-South score to its position in the boards' value tables.
#[derive(Clone, Debug)]
pub(crate) enum ScorePositions {
    /// Position = (score - min) / step.
    Dense { min: i32, step: i32, len: usize },
    /// Unusual scores: position = index among the distinct scores.
    Sparse(Vec<i32>),
}

impl Positions for ScorePositions {
    #[inline]
    fn position(&self, score: i32) -> usize {
        match self {
            ScorePositions::Dense { min, step, .. } => {
                ((i64::from(score) - i64::from(*min)) / i64::from(*step)) as usize
            }
            ScorePositions::Sparse(scores) => scores
                .binary_search(&score)
                .expect("every score of the field has a position"),
        }
    }
}

impl ScorePositions {
    fn len(&self) -> usize {
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

    fn grid() -> ScorePositions {
        ScorePositions::Dense {
            min: -GRID_LIMIT,
            step: GRID_STEP,
            len: GRID_LEN,
        }
    }
}

/// One line of a board's frequency table ([`Scoring::board_table`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableLine {
    pub ns_score: i32,
    /// Plain results with this score.
    pub count: u32,
    pub ns_value: Value,
    pub ew_value: Value,
}

/// The scored field: every board's values and every pair's standing.
#[derive(Debug)]
pub struct Scoring<'f> {
    pub(crate) field: &'f Field,
    pub(crate) options: Options,
    pub(crate) boards: Vec<BoardScore>,
    /// Board number -> index in `boards`, `u32::MAX` if absent.
    pub(crate) board_index: Vec<u32>,
    pub(crate) positions: ScorePositions,
    pub(crate) standings: Vec<Standing>,
    /// The pairs in rank order (empty with `standings`).
    pub(crate) rank_order: RankOrder,
    /// The most times any board was played.
    pub(crate) target: u32,
}

/// Board numbers below this index the histograms directly (no pass to find which boards exist).
const DIRECT_BOARDS: usize = 128;

/// Fields with fewer results than this are counted with hash maps rather than dense histograms.
const SMALL_FIELD: usize = 1 << 14;

/// Board numbers present and the index of each, from a pass over the board column.
fn board_map(field: &Field) -> (Vec<u16>, Vec<u32>) {
    let present = if field.len() < SMALL_FIELD {
        // A club's field: one pass, a bitmap as wide as its highest board.
        let mut present = vec![0u64; field.max_board as usize / 64 + 1];
        for &b in &field.boards {
            present[b as usize / 64] |= 1 << (b % 64);
        }
        present
    } else {
        parts(field.len(), 1)
            .into_par_iter()
            .map(|part| {
                let mut present = vec![0u64; 1024];
                for &b in &field.boards[part] {
                    present[b as usize / 64] |= 1 << (b % 64);
                }
                present
            })
            .reduce(
                || vec![0u64; 1024],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x |= y);
                    a
                },
            )
    };
    let count = present.iter().map(|bits| bits.count_ones() as usize).sum();
    let mut board_numbers = Vec::with_capacity(count);
    let highest = present
        .iter()
        .enumerate()
        .rev()
        .find(|(_, bits)| **bits != 0)
        .map_or(0, |(word, bits)| {
            word * 64 + 63 - bits.leading_zeros() as usize
        });
    let mut board_index = vec![u32::MAX; highest + 1];
    // Only the set bits: a club's field has a few dozen boards among the 65,536 possible numbers.
    for (word, &bits) in present.iter().enumerate() {
        let mut rest = bits;
        while rest != 0 {
            let b = word * 64 + rest.trailing_zeros() as usize;
            rest &= rest - 1;
            board_index[b] = board_numbers.len() as u32;
            board_numbers.push(b as u16);
        }
    }
    (board_numbers, board_index)
}

/// Splits `0..len` into contiguous parts, `per_thread` for each thread.
fn parts(len: usize, per_thread: usize) -> Vec<std::ops::Range<usize>> {
    let n = (rayon::current_num_threads() * per_thread).max(1);
    let size = len.div_ceil(n).max(1 << 14);
    (0..len)
        .step_by(size)
        .map(|start| start..(start + size).min(len))
        .collect()
}

/// Per board: results on it and the distinct plain scores with their counts.
struct Histograms {
    results: Vec<u32>,
    plain: Vec<Vec<(i32, u32)>>,
}

/// Dense per-board counts of some rows: results on each board, and plain results at each score
/// position (`hist[board * width + position]`).
#[derive(Clone, Debug)]
struct Counts {
    results: Vec<u32>,
    hist: Vec<u32>,
    /// Every plain score counted was on the bridge grid (when counted with `grid`).
    fits: bool,
}

impl Counts {
    fn zero(nboards: usize, width: usize) -> Counts {
        Counts {
            results: crate::zeroed::written(nboards),
            hist: crate::zeroed::written(nboards * width),
            fits: true,
        }
    }

    /// Adds the counts of `rows` of `field`, one row after the other. With `grid`, stops at the
    /// first plain score off the bridge grid and notes it in `fits`.
    fn add_rows<P: Positions>(
        &mut self,
        field: &Field,
        rows: std::ops::Range<usize>,
        board_index: &[u32],
        p: &P,
        grid: bool,
    ) {
        let width = self.hist.len() / self.results.len().max(1);
        let (boards, scores) = (&field.boards[rows.clone()], &field.scores[rows]);
        if grid {
            self.add_grid_rows(boards, scores, board_index, width, field.max_board);
            return;
        }
        for (&b, &s) in boards.iter().zip(scores) {
            let bi = board_index[b as usize] as usize;
            self.results[bi] += 1;
            if s != SPECIAL_SCORE {
                self.hist[bi * width + p.position(s.into())] += 1;
            }
        }
    }

    /// [`Counts::add_rows`] on the bridge grid. A board's results follow one another, often with
    /// the same score, and an add to the cell the row before added to waits for that add: rows
    /// are taken two at a time, the second of each into its own histogram, so that each add waits
    /// for the one two rows back at most (L.csv's 36,000,000 rows: 44-46 ms to 31-32). For the
    /// same reason no row adds to its board's count of results, which every row of the board
    /// would wait for: a board's plain results are its histogram's sum, taken once at the end.
    fn add_grid_rows(
        &mut self,
        boards: &[u16],
        scores: &[ColumnScore],
        board_index: &[u32],
        width: usize,
        max_board: u16,
    ) {
        if boards.len() < SMALL_FIELD {
            self.add_grid_run(boards, scores, board_index, width);
            return;
        }
        let (board_pairs, boards_left) = boards.as_chunks::<2>();
        let (score_pairs, scores_left) = scores.as_chunks::<2>();
        // A large field's boards are mostly indexed by their own numbers: no lookup then, and
        // the two histograms need no board above the field's highest.
        let identity = board_index
            .iter()
            .enumerate()
            .all(|(i, &b)| b as usize == i);
        let nboards = if identity {
            self.results.len().min(usize::from(max_board) + 1)
        } else {
            self.results.len()
        };
        // Histograms only: a board's results are their sums.
        let mut first: Vec<u32> = crate::zeroed::written(nboards * width);
        let mut second = first.clone();
        let grid = &*GRID_POSITIONS;
        for (b, s) in board_pairs.iter().zip(score_pairs) {
            let (at0, at1) = (grid[s[0] as u16 as usize], grid[s[1] as u16 as usize]);
            if at0 != OFF_GRID && at1 != OFF_GRID {
                let (b0, b1) = if identity {
                    (b[0] as usize, b[1] as usize)
                } else {
                    (
                        board_index[b[0] as usize] as usize,
                        board_index[b[1] as usize] as usize,
                    )
                };
                first[b0 * width + at0 as usize] += 1;
                second[b1 * width + at1 as usize] += 1;
            } else {
                // Specials, or a score off the grid: counted one at a time, results and all.
                self.add_grid_run(b, s, board_index, width);
                if !self.fits {
                    return;
                }
            }
        }
        self.add_grid_run(boards_left, scores_left, board_index, width);
        self.add_histograms(&first, width);
        self.add_histograms(&second, width);
    }

    /// Adds `hist`, histograms of this one's first boards (or all) whose results were not
    /// counted, with each board's plain results as its results.
    fn add_histograms(&mut self, hist: &[u32], width: usize) {
        let boards = self
            .hist
            .chunks_exact_mut(width)
            .zip(hist.chunks_exact(width));
        for (results, (mine, theirs)) in self.results.iter_mut().zip(boards) {
            *results += theirs.iter().sum::<u32>();
            add_each(mine, theirs);
        }
    }

    /// [`Counts::add_grid_rows`] one row after the other: each score's position and whether it is
    /// on the grid from one unsigned division (a special score, far below the grid, is off it too).
    fn add_grid_run(
        &mut self,
        boards: &[u16],
        scores: &[ColumnScore],
        board_index: &[u32],
        width: usize,
    ) {
        for (&b, &s) in boards.iter().zip(scores) {
            let bi = board_index[b as usize] as usize;
            self.results[bi] += 1;
            match BridgeGrid::on_grid(s.into()) {
                Some(at) => self.hist[bi * width + at] += 1,
                None if s == SPECIAL_SCORE => {}
                None => {
                    self.fits = false;
                    return;
                }
            }
        }
    }

    fn add(&mut self, other: &Counts) {
        add_each(&mut self.results, &other.results);
        self.hist
            .par_iter_mut()
            .zip(&other.hist)
            .for_each(|(a, b)| *a += b);
        self.fits &= other.fits;
    }

    /// The counts of `rows` of `field`, counted in parallel.
    #[allow(clippy::too_many_arguments)]
    fn of_rows<P: Positions>(
        field: &Field,
        rows: std::ops::Range<usize>,
        board_index: &[u32],
        nboards: usize,
        p: &P,
        width: usize,
        grid: bool,
    ) -> Counts {
        parts(rows.len(), 1)
            .into_par_iter()
            .map(|part| {
                let mut counts = Counts::zero(nboards, width);
                let part = rows.start + part.start..rows.start + part.end;
                counts.add_rows(field, part, board_index, p, grid);
                counts
            })
            .reduce(
                || Counts::zero(nboards, width),
                |mut a, b| {
                    a.add(&b);
                    a
                },
            )
    }

    /// The histograms of the boards: each board's distinct plain scores with their counts.
    fn histograms(&self, positions: &ScorePositions) -> Histograms {
        let width = positions.len();
        let plain = (0..self.results.len())
            .map(|bi| {
                self.hist[bi * width..(bi + 1) * width]
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c > 0)
                    .map(|(pos, &c)| (positions.score_at(pos), c))
                    .collect()
            })
            .collect();
        Histograms {
            results: self.results.clone(),
            plain,
        }
    }
}

/// The boards' score counts of a field that grows, kept from one scoring to the next so that the
/// rows already counted are not counted again ([`crate::score_growing`]).
///
/// A live national field gains a club at a time: counting a club's thousand rows instead of the
/// field's millions takes pass one out of each rescoring. For a field with fractions (Neuberg
/// factors boards played different numbers of times) the counts also keep each pair's results
/// ([`PairCells`]), from which pass two adds up every pair's values reading each pair's cells in
/// turn, instead of adding into every pair's total at random while walking the field's rows. The
/// counts belong to one field and the rows it had when they were taken; given another field (or a
/// clone, which may have grown apart) they start again from its first row.
#[derive(Clone, Debug, Default)]
pub struct BoardCounts {
    /// The lineage of the field counted, the rows counted, and their counts on the bridge grid by
    /// board number (`None` once a row off the grid was seen: such a field is scored whole).
    counted: Option<(u64, usize, Option<Counts>)>,
    /// The lineage of the field indexed, and each of its pairs' results, for pass two of a field
    /// with fractions ([`PairCells`]); made the first time such a pass needs it.
    cells: Option<(u64, PairCells)>,
    /// The last ranking of the field indexed, while its pairs are indexed as they were then.
    previous: Option<Previous>,
}

impl BoardCounts {
    pub fn new() -> BoardCounts {
        BoardCounts::default()
    }

    /// Each pair's results in `field`, brought up to date; `None` if the field cannot be indexed
    /// so; with the last ranking of the field, if its pairs are still indexed as they were then.
    /// Only for a field whose histograms on the bridge grid these counts just gave.
    fn pair_cells(&mut self, field: &Field) -> Option<(&PairCells, &mut Option<Previous>)> {
        let lineage = field.lineage.id();
        if !matches!(&self.cells, Some((l, _)) if *l == lineage) {
            self.cells = Some((lineage, PairCells::default()));
            self.previous = None;
        }
        let started = std::time::Instant::now();
        let indexed = self.cells.as_mut().is_some_and(|(_, c)| c.catch_up(field));
        tracing::trace!(elapsed = ?started.elapsed(), indexed, "pass two: pairs' results kept");
        if !indexed {
            self.cells = None;
        }
        let cells = self.cells.as_ref().map(|(_, cells)| cells);
        if cells.is_none_or(|c| c.started_over) {
            self.previous = None;
        }
        cells.map(|cells| (cells, &mut self.previous))
    }

    /// The histograms of every row of `field` on the bridge grid, with the boards indexed directly
    /// by number, after counting the rows not counted yet; `None` if a plain score is off the grid.
    fn histograms(&mut self, field: &Field) -> Option<Histograms> {
        let lineage = field.lineage.id();
        let board_index: Vec<u32> = (0..DIRECT_BOARDS as u32).collect();
        let (nboards, width) = (DIRECT_BOARDS, GRID_LEN);
        if !matches!(&self.counted, Some((l, rows, _)) if *l == lineage && *rows <= field.len()) {
            self.counted = None;
        }
        let (_, rows, counts) = self
            .counted
            .get_or_insert_with(|| (lineage, 0, Some(Counts::zero(nboards, width))));
        let new_rows = *rows..field.len();
        *rows = field.len();
        if let Some(c) = counts.as_mut() {
            if new_rows.len() < SMALL_FIELD {
                c.add_rows(field, new_rows, &board_index, &BridgeGrid, true);
            } else {
                let more = Counts::of_rows(
                    field,
                    new_rows,
                    &board_index,
                    nboards,
                    &BridgeGrid,
                    width,
                    true,
                );
                c.add(&more);
            }
            if !c.fits {
                *counts = None;
            }
        }
        counts
            .as_ref()
            .map(|c| c.histograms(&ScorePositions::grid()))
    }
}

/// Pass one over a field whose scores have positions `p` in tables of `width`. With `grid`, returns
/// `None` as soon as it is known that a plain score is off the bridge grid.
fn histograms<P: Positions>(
    field: &Field,
    board_index: &[u32],
    nboards: usize,
    p: &P,
    positions: &ScorePositions,
    grid: bool,
) -> Option<Histograms> {
    let width = positions.len();
    if field.len() < SMALL_FIELD {
        return Some(small_histograms(field, board_index, nboards));
    }
    if nboards * width > MAX_HISTOGRAM_CELLS {
        let mut results = vec![0u32; nboards];
        let mut counts: Vec<FxHashMap<i32, u32>> = vec![FxHashMap::default(); nboards];
        for (&b, &s) in field.boards.iter().zip(&field.scores) {
            let bi = board_index[b as usize] as usize;
            results[bi] += 1;
            if s != SPECIAL_SCORE {
                *counts[bi].entry(s.into()).or_default() += 1;
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
        return Some(Histograms { results, plain });
    }
    let counts = Counts::of_rows(field, 0..field.len(), board_index, nboards, p, width, grid);
    counts.fits.then(|| counts.histograms(positions))
}

/// [`histograms`] of a club's field: its plain scores placed board by board (a counting sort on
/// the board), each board's dozen sorted on its own and counted in runs. Sorting the club's few
/// hundred results by board and score took two and a half times the comparisons, and a board's
/// list grew by doubling.
fn small_histograms(field: &Field, board_index: &[u32], nboards: usize) -> Histograms {
    let mut results = vec![0u32; nboards];
    // Where each board's plain scores start in `scores`: counted, then summed.
    let mut starts = vec![0usize; nboards + 1];
    for (&b, &s) in field.boards.iter().zip(&field.scores) {
        let bi = board_index[b as usize] as usize;
        results[bi] += 1;
        starts[bi + 1] += usize::from(s != SPECIAL_SCORE);
    }
    for bi in 0..nboards {
        starts[bi + 1] += starts[bi];
    }
    let mut scores = vec![0i32; starts[nboards]];
    let mut next = starts.clone();
    for (&b, &s) in field.boards.iter().zip(&field.scores) {
        if s != SPECIAL_SCORE {
            let at = &mut next[board_index[b as usize] as usize];
            scores[*at] = s.into();
            *at += 1;
        }
    }
    let plain = starts
        .windows(2)
        .map(|w| {
            let board = &mut scores[w[0]..w[1]];
            board.sort_unstable();
            let mut counted = Vec::with_capacity(board.len());
            counted.extend(
                board
                    .chunk_by(|a, b| a == b)
                    .map(|run| (run[0], run.len() as u32)),
            );
            counted
        })
        .collect();
    Histograms { results, plain }
}

/// The comparable scores of special results (split scores give two).
fn special_scores(field: &Field) -> impl Iterator<Item = i32> + '_ {
    field
        .specials
        .iter()
        .flat_map(|(_, special)| match special.outcome {
            Outcome::Played(s) => [Some(s), None],
            Outcome::Split { ns, ew } => [Some(ns), Some(-ew)],
            Outcome::Adjusted { .. } => [None, None],
        })
        .flatten()
}

/// The distinct scores of the field, plain and special, ascending.
fn distinct_scores(field: &Field) -> Vec<i32> {
    if field.len() < SMALL_FIELD
        && let Some(distinct) = distinct_on_grid(field)
    {
        return distinct;
    }
    let mut distinct: Vec<i32> = field
        .scores
        .iter()
        .copied()
        .filter(|&s| s != SPECIAL_SCORE)
        .map(i32::from)
        .chain(special_scores(field))
        .collect();
    if distinct.len() < SMALL_FIELD {
        distinct.sort_unstable();
    } else {
        distinct.par_sort_unstable();
    }
    distinct.dedup();
    distinct
}

/// [`distinct_scores`] of a club's field whose scores are all on the bridge grid (`None` as soon
/// as one is not): each marked in a bitmap of the grid's 1,601 positions, then read off in order.
/// Sorting a club's few hundred scores was an eighth of the club's scoring.
fn distinct_on_grid(field: &Field) -> Option<Vec<i32>> {
    let mut seen = [0u64; GRID_LEN.div_ceil(64)];
    let scores = field.scores.iter().copied().filter(|&s| s != SPECIAL_SCORE);
    for score in scores.map(i32::from).chain(special_scores(field)) {
        let at = BridgeGrid::on_grid(score)?;
        seen[at / 64] |= 1 << (at % 64);
    }
    let mut distinct = Vec::with_capacity(seen.iter().map(|w| w.count_ones() as usize).sum());
    for (word, &bits) in seen.iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            let at = word * 64 + bits.trailing_zeros() as usize;
            distinct.push(at as i32 * GRID_STEP - GRID_LIMIT);
            bits &= bits - 1;
        }
    }
    Some(distinct)
}

/// Positions for a field whose scores are not all on the bridge grid.
fn general_positions(field: &Field) -> ScorePositions {
    let scores = field
        .scores
        .iter()
        .copied()
        .filter(|&s| s != SPECIAL_SCORE)
        .map(i32::from)
        .chain(special_scores(field));
    let (mut min, mut max, mut step) = (i32::MAX, i32::MIN, 0i32);
    for s in scores {
        min = min.min(s);
        max = max.max(s);
        step = num_integer::gcd(step, s);
    }
    if min > max {
        return ScorePositions::grid();
    }
    let step = step.max(1);
    let span = (i64::from(max) - i64::from(min)) / i64::from(step) + 1;
    if span <= MAX_DENSE_POSITIONS {
        ScorePositions::Dense {
            min,
            step,
            len: span as usize,
        }
    } else {
        ScorePositions::Sparse(distinct_scores(field))
    }
}

/// How far [`score`] goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// Every board's values, every pair's total and standing.
    Standings,
    /// Only every board's values: the pairs' standings are left empty.
    Boards,
    /// Every board's values, and pass two unless it would read each pair's kept results
    /// ([`PairCells`]): that is left to the caller ([`PassTwo::FromCells`]).
    Valued,
}

/// Pass two as [`score`] leaves it.
pub(crate) enum PassTwo<'c> {
    /// Not asked for ([`Depth::Boards`]).
    Skipped,
    Done(Sums<'c>),
    /// To be done from each pair's results ([`cells_pass`]), with the values it will read and the
    /// last ranking of the field ([`Depth::Valued`]).
    FromCells {
        cells: &'c PairCells,
        values: CellValues,
        previous: &'c mut Option<Previous>,
    },
}

/// Scores every result of `field` as one field; pass one takes the counts kept in `counts` (and
/// brings them up to date) where it can.
pub fn score<'f, 'c>(
    field: &'f Field,
    options: &Options,
    depth: Depth,
    counts: Option<&'c mut BoardCounts>,
) -> Result<(Scoring<'f>, PassTwo<'c>)> {
    let started = std::time::Instant::now();
    let lap = |what: &str| tracing::debug!(elapsed = ?started.elapsed(), "score: {what}");

    // Which boards exist. Board numbers are small in practice, so they index the histogram directly
    // when all are below `DIRECT_BOARDS`; otherwise a pass over the board column maps them first.
    // Small fields (one club's) skip the direct histograms: zeroing 128 boards x 1,601 positions
    // would cost more than the field itself.
    let small = field.len() < SMALL_FIELD;
    let direct = !small && (field.max_board as usize) < DIRECT_BOARDS;
    let (board_numbers, board_index) = if direct {
        let all: Vec<u16> = (0..DIRECT_BOARDS as u16).collect();
        let index: Vec<u32> = (0..DIRECT_BOARDS as u32)
            .map(|b| {
                if (b as usize) < DIRECT_BOARDS {
                    b
                } else {
                    u32::MAX
                }
            })
            .collect();
        (all, index)
    } else {
        board_map(field)
    };
    let nboards = board_numbers.len();
    lap("boards found");

    // Pass one, on the bridge grid when every score is on it. A club's small field is not: it has a
    // few hundred distinct scores at most, and on the grid every board's values would take 1,601
    // positions, whose valuing and tabulating would cost many times what the club's results do.
    let grid = ScorePositions::grid();
    // The kept counts index boards directly, as `direct` does.
    let mut kept = counts.filter(|_| direct);
    let on_grid = |kept: &mut Option<&mut BoardCounts>| match kept {
        Some(counts) => counts.histograms(field),
        None => histograms(field, &board_index, nboards, &BridgeGrid, &grid, true),
    };
    if !small
        && special_scores(field).all(BridgeGrid::fits)
        && let Some(h) = on_grid(&mut kept)
    {
        lap("pass one (histograms)");
        return finish(
            field,
            options,
            grid,
            &BridgeGrid,
            board_numbers,
            board_index,
            h,
            depth,
            kept,
            lap,
        );
    }
    let positions = if small {
        ScorePositions::Sparse(distinct_scores(field))
    } else {
        general_positions(field)
    };
    let h = histograms(field, &board_index, nboards, &positions, &positions, false)
        .expect("general positions hold every score");
    lap("pass one (histograms, general positions)");
    let p = positions.clone();
    finish(
        field,
        options,
        positions,
        &p,
        board_numbers,
        board_index,
        h,
        depth,
        None,
        lap,
    )
}

/// Keeps only the boards that were played: their numbers, results and plain scores (with
/// their counts), re-indexed in `board_index` (`u32::MAX` for a board not played).
#[allow(clippy::type_complexity)]
fn played_boards(
    board_numbers: Vec<u16>,
    board_index: &mut [u32],
    histograms: Histograms,
) -> (Vec<u16>, Vec<u32>, Vec<Vec<(i32, u32)>>) {
    let Histograms { results, plain } = histograms;
    // Sized at once: a club's whole field is scored in about 25 µs, in which growing these three
    // by doubling across its boards was a few percent (docs/benchmarks.md, 2026-12-05 morning).
    let boards = board_numbers.len();
    let mut kept_numbers = Vec::with_capacity(boards);
    let mut results_per_board = Vec::with_capacity(boards);
    let mut plain_per_board = Vec::with_capacity(boards);
    for ((number, count), plain) in board_numbers.into_iter().zip(results).zip(plain) {
        if count > 0 {
            board_index[number as usize] = kept_numbers.len() as u32;
            kept_numbers.push(number);
            results_per_board.push(count);
            plain_per_board.push(plain);
        } else {
            board_index[number as usize] = u32::MAX;
        }
    }
    (kept_numbers, results_per_board, plain_per_board)
}

#[allow(clippy::too_many_arguments)]
fn finish<'f, 'c, P: Positions>(
    field: &'f Field,
    options: &Options,
    positions: ScorePositions,
    p: &P,
    board_numbers: Vec<u16>,
    mut board_index: Vec<u32>,
    histograms: Histograms,
    depth: Depth,
    kept: Option<&'c mut BoardCounts>,
    lap: impl Fn(&str),
) -> Result<(Scoring<'f>, PassTwo<'c>)> {
    let width = positions.len();
    let (board_numbers, results_per_board, plain_per_board) =
        played_boards(board_numbers, &mut board_index, histograms);
    let nboards = board_numbers.len();
    let target = results_per_board.iter().copied().max().unwrap_or(0);

    let mut specials_per_board: Vec<Vec<(u32, Special)>> = vec![Vec::new(); nboards];
    for &(row, special) in &field.specials {
        let bi = board_index[field.boards[row as usize] as usize] as usize;
        specials_per_board[bi].push((row, special));
    }
    let ctx = FieldContext { target };
    let position = |s: i32| p.position(s);
    // A club's boards keep their values by plain score: by position, each of its three dozen
    // boards would take two tables as wide as the club's few hundred scores.
    let by_plain = field.len() < SMALL_FIELD;
    let value = |bi: usize, plain: Vec<(i32, u32)>, specials: &[(u32, Special)]| {
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
            by_plain,
        )
    };
    // A club's boards are valued on this thread: clubs are scored in parallel already, and a board
    // of a dozen results is less work than handing it to another thread.
    let boards: Vec<BoardScore> = if field.len() < SMALL_FIELD {
        // A loop rather than a collect into `Result`, which cannot size the vector first.
        let mut boards = Vec::with_capacity(nboards);
        for (bi, (plain, specials)) in plain_per_board
            .into_iter()
            .zip(&specials_per_board)
            .enumerate()
        {
            boards.push(value(bi, plain, specials)?);
        }
        boards
    } else {
        plain_per_board
            .into_par_iter()
            .zip(specials_per_board.par_iter())
            .enumerate()
            .map(|(bi, (plain, specials))| value(bi, plain, specials))
            .collect::<Result<_>>()?
    };
    lap("boards valued");
    let scoring = Scoring {
        field,
        options: *options,
        boards,
        board_index,
        positions,
        standings: Vec::new(),
        rank_order: RankOrder::default(),
        target,
    };
    let two = pass_two(&scoring, p, depth, kept, &lap)?;
    Ok((scoring, two))
}

/// Pass two of `scoring` as far as `depth` asks: none, or each pair's values ready to sum (from
/// the pairs' results kept in `kept`), or each pair's sums.
fn pass_two<'c, P: Positions>(
    scoring: &Scoring<'_>,
    p: &P,
    depth: Depth,
    kept: Option<&'c mut BoardCounts>,
    lap: impl Fn(&str),
) -> Result<PassTwo<'c>> {
    if depth == Depth::Boards {
        return Ok(PassTwo::Skipped);
    }
    let (field, width, ratio) = (scoring.field, scoring.positions.len(), scoring.ratio());
    // Values that are whole numbers once scaled by a small common denominator (an artificial 60% of
    // a top of 2(N-1) is a multiple of 1/5) go the exact integer way; others (Neuberg's factors,
    // ratio factoring's tops that differ by board) the floating-point way, made exact where it matters.
    let (boards, board_index) = (&scoring.boards, &scoring.board_index);
    let unit = if ratio { None } else { common_unit(boards, p) };
    // Counts are kept only with the bridge grid's positions (`p`), which a pair's cells hold; the
    // cells are made only for a field with fractions.
    let sums = match unit {
        Some(unit) if field.len() < SMALL_FIELD => {
            integer_pass_small(field, boards, board_index, p, unit)
        }
        Some(unit) => integer_pass(field, boards, board_index, p, width, unit),
        None => match kept.and_then(|k| k.pair_cells(field)) {
            Some((cells, previous)) => {
                let values = pair_cells::cell_values(scoring);
                if depth == Depth::Valued {
                    lap("values by cell");
                    return Ok(PassTwo::FromCells {
                        cells,
                        values,
                        previous,
                    });
                }
                cells.sums(scoring, &values.by_cell)
            }
            None => float_pass(field, boards, board_index, p, width, ratio),
        },
    };
    lap("pass two (values and totals)");
    Ok(PassTwo::Done(each_board_once(field, sums)?))
}

/// Pass two of `scoring` from each pair's results ([`PassTwo::FromCells`]).
pub(crate) fn cells_pass<'c>(
    scoring: &Scoring<'_>,
    cells: &'c PairCells,
    values: &CellValues,
) -> Result<Sums<'c>> {
    each_board_once(scoring.field, cells.sums(scoring, &values.by_cell))
}

/// `sums`, if no pair played a board twice: every row then counts once for each of its pairs.
fn each_board_once<'c>(field: &Field, sums: Sums<'c>) -> Result<Sums<'c>> {
    let total_boards: u64 = sums.boards.iter().map(|&b| u64::from(b)).sum();
    if total_boards != 2 * field.len() as u64 {
        return Err(Error::Invalid(
            "a pair plays the same board more than once; check the field for tables entered twice"
                .into(),
        ));
    }
    Ok(sums)
}

/// Largest common denominator the integer pass scales values by.
const MAX_UNIT: i64 = 1 << 20;

/// The common denominator of every value of the boards (1 when all are whole), if the integer pass
/// can carry the values scaled by it: each scaled value fits an `i32`, and a pair's total over
/// every board fits beside its boards count in one packed `i64`.
fn common_unit<P: Positions>(boards: &[BoardScore], p: &P) -> Option<i64> {
    // Only the positions of scores that were played hold values a result takes: the others are
    // zero.
    let values = boards.iter().flat_map(|b| {
        b.plain_lines(|score| p.position(score))
            .flat_map(|(_, _, ns, ew)| [ns, ew])
            .chain(b.specials.iter().flat_map(|s| [s.1, s.2]))
    });
    let mut unit: i64 = 1;
    // The largest numerator of each denominator: the largest value in units is then known in one
    // pass, whatever the unit turns out to be.
    let mut whole_largest = 0u64;
    let mut largest_by_den: Vec<(i64, u64)> = Vec::new();
    for v in values {
        let (den, numer) = (*v.denom(), v.numer().unsigned_abs());
        // Most values are whole: no division for them.
        if den == 1 {
            whole_largest = whole_largest.max(numer);
            continue;
        }
        match largest_by_den.iter_mut().find(|(d, _)| *d == den) {
            Some((_, n)) => *n = (*n).max(numer),
            None => largest_by_den.push((den, numer)),
        }
        // Only a denominator that does not divide the unit yet costs an lcm.
        if unit % den != 0 {
            unit = num_integer::Integer::lcm(&unit, &den);
            if unit > MAX_UNIT {
                return None;
            }
        }
    }
    let largest = largest_by_den
        .iter()
        .map(|&(den, numer)| u128::from(numer) * (unit / den) as u128)
        .fold(u128::from(whole_largest) * unit as u128, u128::max);
    (largest <= i32::MAX as u128 && largest * (boards.len() as u128) < 1 << (62 - COUNT_BITS))
        .then_some(unit)
}

/// Each pair's sums from pass two.
pub(crate) struct Sums<'c> {
    /// Exact totals, in units of `1 / unit`, when every value is a whole number of such units.
    pub total_int: Option<Vec<i64>>,
    /// The denominator of `total_int` (1 when every value is whole).
    pub unit: i64,
    /// Totals as `f64` otherwise.
    pub total_f: Vec<f64>,
    /// Sums of tops (ratio factoring, where tops differ by board).
    pub tops_f: Vec<f64>,
    pub boards: Vec<u32>,
    /// The lowest and highest pair id in each [`ROW_BLOCK`] rows (float pass only): lets
    /// [`Scoring::exact_totals`] skip the rows of other pairs.
    pub pair_ranges: Vec<(PairId, PairId)>,
    /// Each pair's results, when pass two summed from them: [`Scoring::exact_totals`] then reads
    /// a pair's own results instead of the field's rows.
    pub cells: Option<&'c PairCells>,
}

/// Rows summarised together in [`Sums::pair_ranges`]. A national field is built club by club and a
/// club's pairs have neighbouring ids, so a block's range is narrow.
const ROW_BLOCK: usize = 512;

/// Adds `from` into `into`, element by element.
fn add_each<T: Copy + std::ops::AddAssign>(into: &mut [T], from: &[T]) {
    into.iter_mut().zip(from).for_each(|(x, &y)| *x += y);
}

/// The lowest and highest pair of a block's rows, given by their pairs ([`Sums::pair_ranges`]).
fn block_range(ns: &[PairId], ew: &[PairId]) -> (PairId, PairId) {
    ns.iter()
        .zip(ew)
        .fold((PairId::MAX, 0), |(lowest, highest), (&n, &e)| {
            (lowest.min(n.min(e)), highest.max(n.max(e)))
        })
}

/// Splits `rows` at multiples of [`ROW_BLOCK`].
fn row_blocks(rows: std::ops::Range<usize>) -> impl Iterator<Item = std::ops::Range<usize>> {
    let mut start = rows.start;
    std::iter::from_fn(move || {
        (start < rows.end).then(|| {
            let end = ((start / ROW_BLOCK + 1) * ROW_BLOCK).min(rows.end);
            let block = start..end;
            start = end;
            block
        })
    })
}

/// (North-South value, East-West value) of a plain result, by board and position, side by side so
/// that one lookup reads both; converted by `convert` for pass two's sums. Only the positions of
/// scores played on the board are filled (the others are never looked up).
fn value_table<P: Positions, T: Copy + Default>(
    boards: &[BoardScore],
    p: &P,
    width: usize,
    convert: impl Fn(Value) -> T,
) -> Vec<[T; 2]> {
    let mut table = vec![[T::default(); 2]; boards.len() * width];
    for (bi, b) in boards.iter().enumerate() {
        for (score, _, ns, ew) in b.plain_lines(|score| p.position(score)) {
            table[bi * width + p.position(score)] = [convert(ns), convert(ew)];
        }
    }
    table
}

/// Board number -> where the board's values start in a [`value_table`]: one lookup a row instead of
/// a lookup and a multiplication.
fn board_bases(board_index: &[u32], width: usize) -> Vec<usize> {
    board_index
        .iter()
        .map(|&bi| {
            if bi == u32::MAX {
                0
            } else {
                bi as usize * width
            }
        })
        .collect()
}

/// Pass two when every value is a whole number of `1 / unit` ([`common_unit`]): one packed `i64`
/// add per pair per result.
fn integer_pass<P: Positions>(
    field: &Field,
    boards: &[BoardScore],
    board_index: &[u32],
    p: &P,
    width: usize,
    unit: i64,
) -> Sums<'static> {
    let pairs = field.pairs().len();
    let pack = |v: Value| packed_value(v, unit);
    let table = value_table(boards, p, width, pack);
    let base = board_bases(board_index, width);
    let packed = parts(field.len(), 1)
        .into_par_iter()
        .map(|part| {
            let (table, base) = (table.as_slice(), base.as_slice());
            let mut acc = crate::zeroed::written::<i64>(pairs);
            let mut special_at = field
                .specials
                .partition_point(|(r, _)| (*r as usize) < part.start);
            let rows = part.start..part.end;
            let columns = field.boards[rows.clone()]
                .iter()
                .zip(&field.scores[rows.clone()])
                .zip(field.ns[rows.clone()].iter().zip(&field.ew[rows]));
            for ((&b, &s), (&n, &e)) in columns {
                let [nv, ev] = if s == SPECIAL_SCORE {
                    let (row, _) = field.specials[special_at];
                    special_at += 1;
                    let (n, e) = boards[board_index[b as usize] as usize].special_values(row);
                    [pack(n), pack(e)]
                } else {
                    table[base[b as usize] + p.position(s.into())]
                };
                acc[n as usize] += nv;
                acc[e as usize] += ev;
            }
            acc
        })
        .reduce_with(|mut a, b| {
            a.par_iter_mut()
                .zip(b.par_iter())
                .for_each(|(x, y)| *x += y);
            a
        })
        .unwrap_or_else(|| crate::zeroed::written(pairs));
    unpacked_sums(&packed, unit)
}

/// [`integer_pass`] of a club's small field: each row's values found on its own board, among its
/// dozen scores, rather than in a table of the field's few hundred score positions for each of its
/// boards, zeroed and freed club by club (docs/benchmarks.md, 2026-12-07 morning).
fn integer_pass_small<P: Positions>(
    field: &Field,
    boards: &[BoardScore],
    board_index: &[u32],
    p: &P,
    unit: i64,
) -> Sums<'static> {
    let mut packed = vec![0i64; field.pairs().len()];
    let mut special_at = 0;
    let columns = (field.boards.iter().zip(&field.scores)).zip(field.ns.iter().zip(&field.ew));
    for ((&b, &s), (&n, &e)) in columns {
        let board = &boards[board_index[b as usize] as usize];
        let (nv, ev) = if s == SPECIAL_SCORE {
            let (row, _) = field.specials[special_at];
            special_at += 1;
            board.special_values(row)
        } else {
            board.plain_values(s.into(), |score| p.position(score))
        };
        packed[n as usize] += packed_value(nv, unit);
        packed[e as usize] += packed_value(ev, unit);
    }
    unpacked_sums(&packed, unit)
}

/// A value as the integer pass adds it: in `unit`s, packed with the one board it counts (see
/// [`COUNT_BITS`]). Exact: [`common_unit`] checked that the value's denominator divides `unit` and
/// that the result fits.
#[inline]
fn packed_value(v: Value, unit: i64) -> i64 {
    let scaled = (*v.numer() * (unit / *v.denom())) as i32;
    (i64::from(scaled) << COUNT_BITS) + 1
}

/// Pass two's sums from each pair's total packed with its boards count ([`COUNT_BITS`]).
fn unpacked_sums(packed: &[i64], unit: i64) -> Sums<'static> {
    let mask = (1i64 << COUNT_BITS) - 1;
    let (total, count): (Vec<i64>, Vec<u32>) = packed
        .par_iter()
        .map(|&a| {
            let count = a & mask;
            ((a - count) >> COUNT_BITS, count as u32)
        })
        .unzip();
    Sums {
        total_int: Some(total),
        unit,
        total_f: Vec::new(),
        tops_f: Vec::new(),
        boards: count,
        pair_ranges: Vec::new(),
        cells: None,
    }
}

impl<'f> Scoring<'f> {
    /// Whether matchpoints are factored by ratio (each pair's sum of tops kept in pass two).
    fn ratio(&self) -> bool {
        let o = &self.options;
        o.method == Method::Matchpoints && o.factoring == Factoring::Ratio
    }

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
        let i = self
            .board_index
            .get(number as usize)
            .copied()
            .unwrap_or(u32::MAX);
        (i != u32::MAX).then(|| &self.boards[i as usize])
    }

    /// Every pair's standing, indexed by pair id (empty for a field scored with
    /// [`crate::score_boards_growing`]).
    pub fn standings(&self) -> &[Standing] {
        &self.standings
    }

    /// The standings, taken out of the scoring (which keeps an empty list).
    pub fn take_standings(&mut self) -> Vec<Standing> {
        std::mem::take(&mut self.standings)
    }

    /// A board's frequency table: each North-South score of a plain result, how many tables had it, and
    /// its values to NS and EW (presentation scale). Special results are in [`Scoring::board_specials`].
    pub fn board_table(&self, board: &BoardScore) -> Vec<TableLine> {
        self.board_table_lines(board).collect()
    }

    /// The lines of [`Scoring::board_table`] one by one, for a caller that turns them into
    /// something else (the aggregator's board events, a board of every club's field each time)
    /// without a vector of them first.
    pub fn board_table_lines<'s>(
        &'s self,
        board: &'s BoardScore,
    ) -> impl ExactSizeIterator<Item = TableLine> + 's {
        board
            .plain_lines(|score| self.positions.position(score))
            .map(move |(score, count, ns, ew)| TableLine {
                ns_score: score,
                count,
                ns_value: self.presented(ns),
                ew_value: self.presented(ew),
            })
    }

    /// A board's special results (adjusted, split, arrow-switched, fouled): row and values to the
    /// row's NS and EW pairs (presentation scale).
    pub fn board_specials<'s>(
        &'s self,
        board: &'s BoardScore,
    ) -> impl Iterator<Item = (usize, Value, Value)> + 's {
        board
            .specials
            .iter()
            .map(move |&(row, ns, ew)| (row as usize, self.presented(ns), self.presented(ew)))
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

    /// A value of the internal double scale on the presentation scale. Only matchpoints on the
    /// single scale are divided: a division of `Ratio` reduces its result with a gcd even by one,
    /// and every board's table of every club's field is presented this way.
    fn presented(&self, v: Value) -> Value {
        match self.scale_divisor() {
            1 => v,
            d => v / Value::from_integer(d),
        }
    }

    /// Values of the result in `row` to its NS pair and to its EW pair, exactly, on the presentation scale.
    pub fn result_values(&self, row: usize) -> (Value, Value) {
        let (ns, ew) = self.raw_values(row);
        (self.presented(ns), self.presented(ew))
    }

    /// The top of a board on the presentation scale.
    pub fn top(&self, board: &BoardScore) -> Value {
        self.presented(board.top)
    }

    /// This scoring printed under other conventions: for choices that change only how figures are
    /// printed (`short-lines`, `lines`, `totals`, `scale-totals`); the values scored are this
    /// scoring's, so choices that change them (`missing`, `artificial`, `datum`, `trim-from`) need a
    /// scoring of their own.
    pub fn with_conventions(&self, conventions: crate::Conventions) -> Scoring<'f> {
        Scoring {
            field: self.field,
            options: Options {
                conventions,
                ..self.options
            },
            boards: self.boards.clone(),
            board_index: self.board_index.clone(),
            positions: self.positions.clone(),
            standings: self.standings.clone(),
            rank_order: self.rank_order.clone(),
            target: self.target,
        }
    }

    /// What the traveller line of `row` shows under the conventions (presentation scale): the
    /// values of [`Scoring::result_values`], unfactored on a board played fewer times when the
    /// conventions say `short-lines=raw`, then cut as `lines` says. Under the seeds' conventions it is
    /// [`Scoring::result_values`].
    pub fn line_values(&self, row: usize) -> (Value, Value) {
        let c = &self.options.conventions;
        if !c.changes_presentation() {
            return self.result_values(row);
        }
        let (mut ns, mut ew) = self.raw_values(row);
        let bi = self.board_index[self.field.boards[row] as usize] as usize;
        let board = &self.boards[bi];
        if c.short_lines == ShortLines::Raw
            && self.options.method == Method::Matchpoints
            && board.results < self.target
        {
            (ns, ew) = match self.field.result(row).outcome {
                // A percentage of the board's own top rather than of the factored one.
                Outcome::Adjusted { .. } => {
                    let scale = self.shown_top(board) * Value::from_integer(self.scale_divisor())
                        / board.top;
                    (ns * scale, ew * scale)
                }
                _ => (
                    from_target(ns, board.results, self.target, &self.options),
                    from_target(ew, board.results, self.target, &self.options),
                ),
            };
        }
        let (ns, ew) = (self.presented(ns), self.presented(ew));
        // `lines` is how matchpoints are printed; IMPs are printed as they are (Compscore prints
        // its cross-IMPs to 0.01 and its matchpoints to 0.1: cobalt cross_imp_howell.xml).
        match self.options.method {
            Method::Matchpoints => (c.lines.apply(ns), c.lines.apply(ew)),
            _ => (ns, ew),
        }
    }

    /// The top a board's traveller shows (presentation scale): the board's own when the conventions
    /// print its lines unfactored, else [`Scoring::top`].
    pub fn shown_top(&self, board: &BoardScore) -> Value {
        let c = &self.options.conventions;
        let raw = c.short_lines == ShortLines::Raw && board.results < self.target;
        if !raw || self.options.method != Method::Matchpoints || board.top == Value::from_integer(0)
        {
            return self.top(board);
        }
        let own = Value::from_integer(2 * (i64::from(board.results) - 1));
        self.presented(own)
    }

    /// Each pair's total as the conventions print it, in hundredths (indexed by pair id): exact,
    /// scaled to the most boards any pair of its list (NS, EW or Howell) played when
    /// `scale-totals=yes`, cut as `totals` says, then
    /// rounded to hundredths with halves away from zero. Under the seeds' conventions it is each
    /// [`Standing::total_hundredths`].
    pub fn shown_total_hundredths(&self) -> Vec<i64> {
        let c = &self.options.conventions;
        if !c.scale_totals && c.totals == crate::Rounding::Exact {
            return self.standings.iter().map(|s| s.total_hundredths).collect();
        }
        let pairs: Vec<PairId> = (0..self.field.pairs().len() as PairId).collect();
        let exact = self.exact_totals(&pairs, &[], None);
        // The most boards played in each list (NS, EW, Howell): a Mitchell's NS and EW pairs are two
        // competitions, and may play different numbers of boards (cobalt mp_pairs_mitchell_03: every
        // NS pair 18 boards, every EW pair 21, none scaled).
        let list = |pair: PairId| match self.field.pairs()[pair as usize].direction {
            Some(crate::Direction::NS) => 0,
            Some(crate::Direction::EW) => 1,
            None => 2,
        };
        let mut most = [0u32; 3];
        for s in &self.standings {
            let l = list(s.pair);
            most[l] = most[l].max(s.boards);
        }
        let divisor = BigInt::from(self.scale_divisor());
        self.standings
            .iter()
            .map(|s| {
                let Some((total, _)) = exact.get(&s.pair) else {
                    return s.total_hundredths;
                };
                let mut t = BigRational::new(total.numer().clone(), total.denom() * &divisor);
                if c.scale_totals && s.boards > 0 {
                    let most = most[list(s.pair)];
                    t *= BigRational::new(BigInt::from(most), BigInt::from(s.boards));
                }
                let t = crate::conventions::apply_big(c.totals, t);
                crate::value::big_hundredths(&t)
            })
            .collect()
    }

    /// Values on the internal double scale.
    pub(crate) fn raw_values(&self, row: usize) -> (Value, Value) {
        let bi = self.board_index[self.field.boards[row] as usize] as usize;
        let board = &self.boards[bi];
        let s = self.field.scores[row];
        if s == SPECIAL_SCORE {
            board.special_values(row as u32)
        } else {
            board.plain_values(s.into(), |score| self.positions.position(score))
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Direction;
    use crate::field::{Pair, PairLabel, TableResult};

    /// A field of `rows` rows in runs of six a board, most of a run on one score (as a club's
    /// traveller is), with an artificial score at each row of `specials` and `off_grid` at its row.
    fn field_of(rows: usize, specials: &[usize], off_grid: Option<usize>) -> Field {
        let rows: Vec<(u16, Outcome)> = (0..rows)
            .map(|row| {
                let board = (row / 6 % 36 + 1) as u16;
                let score = if row % 6 < 4 {
                    420
                } else {
                    -50 * (row % 3) as i32
                };
                let outcome = match off_grid {
                    Some(at) if at == row => Outcome::Played(425),
                    _ if specials.contains(&row) => Outcome::Adjusted {
                        ns_percent: 60,
                        ew_percent: 40,
                    },
                    _ => Outcome::Played(score),
                };
                (board, outcome)
            })
            .collect();
        club_field(&rows)
    }

    /// A club's field of the given boards and outcomes, pairs in a Mitchell of six tables.
    fn club_field(rows: &[(u16, Outcome)]) -> Field {
        let mut field = Field::new();
        let (club, section) = (field.club("C"), field.section("A"));
        let pairs: Vec<PairId> = (0..12)
            .map(|n| {
                field.pair(Pair {
                    club,
                    section,
                    label: PairLabel::Number(n),
                    direction: Some(if n < 6 { Direction::NS } else { Direction::EW }),
                })
            })
            .collect();
        for (row, &(board, outcome)) in rows.iter().enumerate() {
            let (ns, ew) = (pairs[row % 6], pairs[6 + (row + board as usize) % 6]);
            let result = TableResult {
                board,
                ns,
                ew,
                outcome,
                arrow_switch: false,
                group: None,
            };
            field.push(result).unwrap();
        }
        field
    }

    /// The counts of every row of `field` on the grid: two rows at a time, and one at a time.
    fn counted_both_ways(field: &Field) -> (Counts, Counts) {
        let board_index: Vec<u32> = (0..DIRECT_BOARDS as u32).collect();
        counted_both_ways_by(field, &board_index)
    }

    /// [`counted_both_ways`] with the boards at `board_index`.
    fn counted_both_ways_by(field: &Field, board_index: &[u32]) -> (Counts, Counts) {
        let (boards, scores) = (&field.boards[..], &field.scores[..]);
        let mut paired = Counts::zero(board_index.len(), GRID_LEN);
        paired.add_grid_rows(boards, scores, board_index, GRID_LEN, field.max_board);
        let mut single = Counts::zero(board_index.len(), GRID_LEN);
        single.add_grid_run(boards, scores, board_index, GRID_LEN);
        (paired, single)
    }

    #[test]
    fn a_club_field_is_summed_row_by_row_as_its_value_table_sums_it() {
        // Three dozen boards of six results; every seventeenth result adjusted (rows 0, 17, ..., 204:
        // 13 boards), so that those boards are valued by their groups (by position) and the other
        // 23 by plain score.
        let rows: Vec<(u16, Outcome)> = (0..36 * 6)
            .map(|r| {
                let outcome = if r % 17 == 0 {
                    Outcome::Adjusted {
                        ns_percent: 60,
                        ew_percent: 40,
                    }
                } else {
                    Outcome::Played(10 * (r % 3) - 50 * (r % 5))
                };
                ((r / 6 + 1) as u16, outcome)
            })
            .collect();
        let field = club_field(&rows);
        let (scoring, _) = score(&field, &Options::default(), Depth::Boards, None).unwrap();
        let layouts = scoring.boards.iter().map(|b| b.by_plain);
        assert_eq!(
            layouts.fold((0, 0), |(p, q), by| (
                p + usize::from(by),
                q + usize::from(!by)
            )),
            (23, 13),
        );
        let (p, boards, index) = (&scoring.positions, &scoring.boards, &scoring.board_index);
        let unit = common_unit(boards, p).expect("matchpoints in whole units");
        let by_table = integer_pass(&field, boards, index, p, p.len(), unit);
        let by_row = integer_pass_small(&field, boards, index, p, unit);
        assert_eq!(by_row.total_int, by_table.total_int);
        assert_eq!(by_row.boards, by_table.boards);
        assert_eq!(by_row.boards, vec![36; 12]);
    }

    #[test]
    fn rows_counted_two_at_a_time_count_as_one_at_a_time() {
        // Odd, so that one row is left after the pairs; specials first and second of a pair.
        let rows = 2 * SMALL_FIELD + 1;
        let field = field_of(rows, &[0, 7, 8, 9, 1001, rows - 1], None);
        let (paired, single) = counted_both_ways(&field);
        assert!(paired.fits && single.fits);
        assert_eq!(paired.results, single.results);
        assert_eq!(paired.hist, single.hist);
        assert_eq!(paired.results.iter().sum::<u32>() as usize, rows);
    }

    #[test]
    fn boards_counted_at_an_index_of_their_own_count_as_one_at_a_time() {
        // Board b at index 40 - b: not the boards' own numbers, which the pairs' loop skips.
        let board_index: Vec<u32> = (0..=40).rev().collect();
        let rows = 2 * SMALL_FIELD + 1;
        let field = field_of(rows, &[3, 4, 999], None);
        let (paired, single) = counted_both_ways_by(&field, &board_index);
        assert!(paired.fits && single.fits);
        assert_eq!(paired.results, single.results);
        assert_eq!(paired.hist, single.hist);
        // Board 1's six rows in each run of 216 are at index 39.
        assert_eq!(paired.results[39] as usize, rows.div_ceil(216) * 6);
    }

    #[test]
    fn a_score_off_the_grid_is_found_two_rows_at_a_time() {
        for at in [SMALL_FIELD, SMALL_FIELD + 1, 2 * SMALL_FIELD] {
            let field = field_of(2 * SMALL_FIELD + 1, &[at - 1], Some(at));
            let (paired, single) = counted_both_ways(&field);
            assert!(
                !paired.fits && !single.fits,
                "score off the grid at row {at}"
            );
        }
    }

    /// Every comparable score of the field, sorted and deduplicated: what the bitmap must give.
    fn sorted_distinct(field: &Field) -> Vec<i32> {
        let plain = field.scores.iter().filter(|&&s| s != SPECIAL_SCORE);
        let mut all: Vec<i32> = plain
            .map(|&s| i32::from(s))
            .chain(special_scores(field))
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    #[test]
    fn a_club_s_distinct_scores_on_the_grid_are_its_scores_sorted() {
        let played = Outcome::Played;
        let rows = [
            (3, played(8000)),
            (1, played(-8000)),
            (1, played(420)),
            (2, played(0)),
            (1, played(420)),
            (2, played(-50)),
            (3, Outcome::Split { ns: 630, ew: 600 }),
            (
                2,
                Outcome::Adjusted {
                    ns_percent: 60,
                    ew_percent: 40,
                },
            ),
            (7, played(-7990)),
        ];
        let field = club_field(&rows);
        let distinct = distinct_on_grid(&field).expect("every score is on the grid");
        assert_eq!(distinct, sorted_distinct(&field));
        assert_eq!(distinct, [-8000, -7990, -600, -50, 0, 420, 630, 8000]);
        assert_eq!(distinct_scores(&field), distinct);
    }

    #[test]
    fn a_club_s_score_off_the_grid_leaves_its_distinct_scores_to_the_sort() {
        for off in [425, 8010, -8010] {
            let field = club_field(&[(1, Outcome::Played(420)), (2, Outcome::Played(off))]);
            assert_eq!(distinct_on_grid(&field), None, "{off} is off the grid");
            assert_eq!(distinct_scores(&field), sorted_distinct(&field));
        }
        let split = Outcome::Split { ns: 420, ew: 405 };
        assert_eq!(distinct_on_grid(&club_field(&[(1, split)])), None);
    }

    #[test]
    fn a_club_s_histograms_count_each_board_s_scores_in_order() {
        let rows: Vec<(u16, Outcome)> = (0..200u32)
            .map(|r| {
                let board = (r * 7 % 5 + 1) as u16;
                match r % 11 {
                    0 => (
                        board,
                        Outcome::Adjusted {
                            ns_percent: 50,
                            ew_percent: 50,
                        },
                    ),
                    k => (
                        board,
                        Outcome::Played(((r * 31 % 9) as i32 - 4) * 10 * k as i32),
                    ),
                }
            })
            .collect();
        let field = club_field(&rows);
        let (numbers, index) = board_map(&field);
        let counted = small_histograms(&field, &index, numbers.len());
        for (bi, &board) in numbers.iter().enumerate() {
            let on_board = rows.iter().filter(|(b, _)| *b == board);
            let mut scores: Vec<i32> = on_board
                .clone()
                .filter_map(|(_, o)| match o {
                    Outcome::Played(s) => Some(*s),
                    _ => None,
                })
                .collect();
            scores.sort_unstable();
            let mut expected: Vec<(i32, u32)> = Vec::new();
            for s in scores {
                match expected.last_mut() {
                    Some((last, n)) if *last == s => *n += 1,
                    _ => expected.push((s, 1)),
                }
            }
            assert_eq!(counted.plain[bi], expected, "board {board}");
            assert_eq!(
                counted.results[bi] as usize,
                on_board.count(),
                "board {board}"
            );
        }
    }
}
