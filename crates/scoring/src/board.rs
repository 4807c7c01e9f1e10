//! Valuing one board: each comparable result's matchpoints or IMPs in its direction's field.
//!
//! A board's results fall into groups: the board as dealt and, when it was fouled, each fouled version
//! (seed 002 slides 15-18). Within a group each direction is a field of scores seen from North-South's
//! side; a plain result contributes the same score to both fields, a split score its own score to each,
//! an arrow-switched table is compared as usual and its values handed to the other pair afterwards
//! (slides 19-20). Artificial adjusted scores are not compared: they get a percentage of the top.

use num_rational::Ratio;

use crate::conventions::{Artificial, Missing};
use crate::field::{Outcome, Special};
use crate::imps::{datum_of, imps};
use crate::value::{Value, value_from};
use crate::{Direction, Error, Factoring, FouledMethod, Method, Options, Result};

/// Set percentages for a fouled group of fewer than 4 results, by rank (seed 002 slide 17:
/// one score 60%; two 65/55; three 70/60/50).
const FOULED_SET_PERCENT: [&[i64]; 4] = [&[], &[60], &[65, 55], &[70, 60, 50]];

/// The smallest group that is matchpointed on its own (seed 002 slide 15: "4+ times").
const SMALLEST_SCORED_GROUP: u32 = 4;

/// IMPs for an artificial adjusted score: 3 IMPs per 10% away from average (AVE+ = +3, AVE- = -3),
/// the value of an average-plus in IMP play.
const IMPS_PER_TEN_PERCENT: i64 = 3;

type Exact = Ratio<i128>;

/// What the board's valuation needs to know about the whole field.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldContext {
    /// The most times any board was played: every board is factored to this many results.
    pub target: u32,
}

/// A board's values: tables for plain results by score position, and each special result's values.
#[derive(Clone, Debug)]
pub struct BoardScore {
    pub board: u16,
    /// Results on the board, artificial ones included.
    pub results: u32,
    /// The top on the double scale (2 per result beaten, factored); zero for IMP scoring.
    pub top: Value,
    /// The Butler datum of the board as dealt.
    pub datum: Option<i32>,
    /// North-South's value of a plain result, by score position (zero where no result has that
    /// score), or by the score's place in `plain` (see `by_plain`).
    pub(crate) ns: Vec<Value>,
    /// East-West's value of a plain result, by the position of its North-South score, or by its
    /// place in `plain`.
    pub(crate) ew: Vec<Value>,
    /// (row, value to the NS pair of the row, value to the EW pair), in row order.
    pub(crate) specials: Vec<(u32, Value, Value)>,
    /// Plain results: each distinct North-South score with its count, ascending.
    pub(crate) plain: Vec<(i32, u32)>,
    /// Whether `ns` and `ew` hold one value for each entry of `plain`, in its order, rather than
    /// one for each of the field's score positions. A club's board: its dozen results would
    /// otherwise fill tables as wide as the few hundred scores of the club's whole field, zeroed
    /// and freed board by board (docs/benchmarks.md, 2026-12-07 morning).
    pub(crate) by_plain: bool,
}

impl BoardScore {
    /// The values (North-South, East-West) of the plain score `score`; `position` gives the
    /// score's position in the field's tables (not asked when the board keeps its values by plain
    /// score).
    #[inline]
    pub(crate) fn plain_values(
        &self,
        score: i32,
        position: impl FnOnce(i32) -> usize,
    ) -> (Value, Value) {
        let at = if self.by_plain {
            self.plain
                .binary_search_by_key(&score, |e| e.0)
                .expect("a plain result's score is in its board's plain scores")
        } else {
            position(score)
        };
        (self.ns[at], self.ew[at])
    }

    /// Each plain score with its count and its values (North-South, East-West), ascending.
    pub(crate) fn plain_lines<'b>(
        &'b self,
        position: impl Fn(i32) -> usize + 'b,
    ) -> impl ExactSizeIterator<Item = (i32, u32, Value, Value)> + 'b {
        self.plain
            .iter()
            .enumerate()
            .map(move |(i, &(score, count))| {
                let at = if self.by_plain { i } else { position(score) };
                (score, count, self.ns[at], self.ew[at])
            })
    }

    /// The values of a special row of this board.
    pub(crate) fn special_values(&self, row: u32) -> (Value, Value) {
        let at = self
            .specials
            .binary_search_by_key(&row, |(r, _, _)| *r)
            .expect("special rows are valued with their board");
        (self.specials[at].1, self.specials[at].2)
    }
}

/// A direction's field in one group: distinct North-South-view scores with their counts, ascending.
#[derive(Clone, Debug, Default)]
struct DirectionField {
    entries: Vec<(i32, u32)>,
    size: u32,
}

impl DirectionField {
    fn from_scores(mut scores: Vec<i32>) -> DirectionField {
        scores.sort_unstable();
        let mut entries: Vec<(i32, u32)> = Vec::new();
        for s in scores {
            match entries.last_mut() {
                Some((last, count)) if *last == s => *count += 1,
                _ => entries.push((s, 1)),
            }
        }
        let size = entries.iter().map(|e| e.1).sum();
        DirectionField { entries, size }
    }

    fn find(&self, score: i32) -> usize {
        self.entries
            .binary_search_by_key(&score, |e| e.0)
            .expect("a member's score is in its field")
    }

    /// Results at or below `score`.
    fn count_le(&self, score: i64, cumulative: &[u64]) -> u64 {
        let i = self.entries.partition_point(|e| i64::from(e.0) <= score);
        if i == 0 { 0 } else { cumulative[i - 1] }
    }

    fn count_ge(&self, score: i64, cumulative: &[u64]) -> u64 {
        let i = self.entries.partition_point(|e| i64::from(e.0) < score);
        u64::from(self.size) - if i == 0 { 0 } else { cumulative[i - 1] }
    }
}

/// One group of a board: its two direction fields and the plain scores that set its Butler datum.
#[derive(Debug, Default)]
struct Group {
    ns: DirectionField,
    ew: DirectionField,
    datum: Option<i32>,
}

/// Values, per entry of a direction field, for the scoring method.
struct GroupValues {
    ns: Vec<Exact>,
    ew: Vec<Exact>,
}

/// How to value matchpoints on this board.
struct MatchpointScale {
    /// Results on this board (n_b).
    results: u32,
    /// Results every board is factored to (N).
    target: u32,
    /// More than one group on the board: small groups get set percentages.
    several_groups: bool,
    factoring: Factoring,
    fouled: FouledMethod,
    /// How a board played fewer times is brought to the target ([`crate::Conventions::missing`]).
    missing: Missing,
    /// How results beside an artificial score are valued ([`crate::Conventions::artificial`]).
    artificial: Artificial,
    top: Exact,
}

impl MatchpointScale {
    fn new(results: u32, ctx: FieldContext, several_groups: bool, options: &Options) -> Self {
        let (n, target) = (i128::from(results), i128::from(ctx.target.max(results)));
        let top = match options.factoring {
            Factoring::Neuberg => Exact::from_integer(2 * (target - 1)),
            Factoring::Ratio => Exact::new(2 * (n - 1) * target, n.max(1)),
        };
        MatchpointScale {
            results,
            target: ctx.target.max(results),
            several_groups,
            factoring: options.factoring,
            fouled: options.fouled,
            missing: options.conventions.missing,
            artificial: options.conventions.artificial,
            top,
        }
    }

    fn percent_of_top(&self, percent: i64) -> Exact {
        self.top * Exact::new(i128::from(percent), 100)
    }

    /// The value of a result that beat `worse` and tied `equal - 1` of the `size` in its group.
    fn value(&self, worse: u64, equal: u64, size: u32) -> Exact {
        let (size, n, target) = (
            i128::from(size),
            i128::from(self.results),
            i128::from(self.target),
        );
        if self.several_groups && size < i128::from(SMALLEST_SCORED_GROUP) {
            let table = FOULED_SET_PERCENT[size as usize];
            let better = size - worse as i128 - equal as i128;
            let positions = &table[better as usize..(better + equal as i128) as usize];
            let percent = Exact::new(i128::from(positions.iter().sum::<i64>()), equal as i128);
            return self.top * percent / Exact::from_integer(100);
        }
        let x = Exact::from_integer(2 * worse as i128 + equal as i128 - 1);
        // Stage one: to the results of this board (Neuberg, or the manual "add one per score in the
        // other group" for fouled groups; beside artificial scores as the conventions say).
        let on_board = if size == n {
            x
        } else if self.several_groups {
            match self.fouled {
                FouledMethod::AddOne => x + Exact::from_integer(n - size),
                _ => neuberg(x, size, n),
            }
        } else {
            match self.artificial {
                Artificial::Ratio => in_ratio(x, size, n),
                Artificial::Tie => x + Exact::from_integer(n - size),
                Artificial::None => x,
                _ => neuberg(x, size, n),
            }
        };
        // Stage two: to the most times any board was played.
        if n == target {
            on_board
        } else {
            to_target(on_board, n, target, self.missing, self.factoring)
        }
    }

    fn group_values(&self, group: &Group) -> GroupValues {
        let ns = self.direction_values(&group.ns, Direction::NS);
        let ew = self.direction_values(&group.ew, Direction::EW);
        GroupValues { ns, ew }
    }

    fn direction_values(&self, field: &DirectionField, direction: Direction) -> Vec<Exact> {
        let mut below = 0u64;
        let mut out = Vec::with_capacity(field.entries.len());
        for &(_, count) in &field.entries {
            let count = u64::from(count);
            let above = u64::from(field.size) - below - count;
            let worse = match direction {
                Direction::NS => below,
                Direction::EW => above,
            };
            out.push(self.value(worse, count, field.size));
            below += count;
        }
        out
    }
}

/// Stage two of a matchpoint value: a value among a board's `n` results brought to `target` results.
fn to_target(v: Exact, n: i128, target: i128, missing: Missing, factoring: Factoring) -> Exact {
    match (missing, factoring) {
        // Each missing result is a tie: 1 on the double scale.
        (Missing::Tie, _) => v + Exact::from_integer(target - n),
        (_, Factoring::Ratio) => in_ratio(v, n, target),
        _ => neuberg(v, n, target),
    }
}

/// Neuberg's formula, a value among `from` results brought to `to`: (v + 1) x to / from - 1, on
/// the double scale. As one fraction reduced once: a national field values tens of thousands of
/// scores, and each step of `Ratio`'s arithmetic reduces its result with a 128-bit gcd. (The
/// numbers stay far inside 128 bits: results and targets are below 2^32.)
fn neuberg(v: Exact, from: i128, to: i128) -> Exact {
    let (p, q) = (*v.numer(), *v.denom());
    reduced((p + q) * to - from * q, q * from)
}

/// A value among `from` results brought to `to` in proportion: v x to / from, reduced once.
fn in_ratio(v: Exact, from: i128, to: i128) -> Exact {
    reduced(*v.numer() * to, *v.denom() * from)
}

/// `n / d` in lowest terms, as [`Exact::new`] makes it, reduced in 64-bit arithmetic where the
/// terms fit: a gcd of 128-bit terms was most of the time a national board's values took.
fn reduced(n: i128, d: i128) -> Exact {
    if d != 0
        && let Some(v) = value_from(n, d)
    {
        return Exact::new_raw(i128::from(*v.numer()), i128::from(*v.denom()));
    }
    Exact::new(n, d)
}

/// The inverse of stage two: a value brought to `target` results, as it was among the board's `n`
/// (what a program that factors only in the totals prints on the traveller).
pub(crate) fn from_target(v: Value, n: u32, target: u32, options: &Options) -> Value {
    if n == target || n == 0 {
        return v;
    }
    let (n, t) = (i128::from(n), i128::from(target));
    let factored = v;
    let v = exact(v);
    let one = Exact::from_integer(1);
    let raw = match (options.conventions.missing, options.factoring) {
        (Missing::Tie, _) => v - Exact::from_integer(t - n),
        (_, Factoring::Ratio) => v * Exact::new(n, t),
        _ => (v + one) * Exact::new(n, t) - one,
    };
    // The raw value has a smaller denominator than the factored one it came from: it fits.
    value_from(*raw.numer(), *raw.denom()).unwrap_or(factored)
}

fn butler_values(group: &Group) -> GroupValues {
    let datum = i64::from(group.datum.unwrap_or(0));
    let ns = group
        .ns
        .entries
        .iter()
        .map(|&(s, _)| Exact::from_integer(i128::from(imps(i64::from(s) - datum))))
        .collect();
    let ew = group
        .ew
        .entries
        .iter()
        .map(|&(s, _)| Exact::from_integer(i128::from(imps(datum - i64::from(s)))))
        .collect();
    GroupValues { ns, ew }
}

/// Cross-IMPs: each score against every other in its direction, averaged over the comparisons.
/// Summed with cumulative counts, one binary search per IMP step, instead of comparing every pair.
fn cross_imp_values(group: &Group) -> GroupValues {
    const STEPS: [i64; 24] = [
        20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500, 1750,
        2000, 2250, 2500, 3000, 3500, 4000,
    ];
    let sums = |field: &DirectionField| -> Vec<i128> {
        let mut cumulative = Vec::with_capacity(field.entries.len());
        let mut running = 0u64;
        for e in &field.entries {
            running += u64::from(e.1);
            cumulative.push(running);
        }
        field
            .entries
            .iter()
            .map(|&(s, _)| {
                let s = i64::from(s);
                STEPS
                    .iter()
                    .map(|&step| {
                        field.count_le(s - step, &cumulative) as i128
                            - field.count_ge(s + step, &cumulative) as i128
                    })
                    .sum()
            })
            .collect()
    };
    let per = |field: &DirectionField, sign: i128| -> Vec<Exact> {
        let comparisons = i128::from(field.size.saturating_sub(1)).max(1);
        sums(field)
            .into_iter()
            .map(|total| Exact::new(sign * total, comparisons))
            .collect()
    };
    GroupValues {
        ns: per(&group.ns, 1),
        ew: per(&group.ew, -1),
    }
}

/// Everything about one board needed to value it.
pub(crate) struct BoardInput<'a> {
    pub board: u16,
    /// Results on the board (plain and special).
    pub results: u32,
    /// Distinct plain North-South scores with their counts, ascending.
    pub plain: Vec<(i32, u32)>,
    /// The board's special rows.
    pub specials: &'a [(u32, Special)],
}

fn exact(v: Value) -> Exact {
    Exact::new(i128::from(*v.numer()), i128::from(*v.denom()))
}

/// `x` as a [`Value`]. An `Exact` is in lowest terms already (`Ratio` reduces every result it
/// makes, and this module makes none without reducing it), so only its size is checked: a second
/// gcd for each of a national board's values was a tenth of the time its boards took to value.
fn to_value(x: Exact, board: u16) -> Result<Value> {
    match (i64::try_from(*x.numer()), i64::try_from(*x.denom())) {
        (Ok(numerator), Ok(denominator)) => Ok(Value::new_raw(numerator, denominator)),
        _ => Err(Error::Invalid(format!(
            "board {board}: a value does not fit 64-bit arithmetic"
        ))),
    }
}

/// A board's fouled-board groups (index 0: the board as dealt), each with its key and its
/// results' scores, and, for Butler scoring, its datum.
fn groups_of(input: &BoardInput<'_>, options: &Options) -> (Vec<Option<u32>>, Vec<Group>) {
    // Gather the groups: index 0 is the board as dealt.
    let mut group_keys: Vec<Option<u32>> = vec![None];
    let mut ns_scores: Vec<Vec<i32>> = vec![Vec::new()];
    let mut ew_scores: Vec<Vec<i32>> = vec![Vec::new()];
    let mut plain_scores: Vec<Vec<i32>> = vec![Vec::new()];
    for (_, special) in input.specials {
        let (ns, ew) = match special.outcome {
            Outcome::Played(s) => (s, s),
            Outcome::Split { ns, ew } => (ns, -ew),
            Outcome::Adjusted { .. } => continue,
        };
        let g = match group_keys.iter().position(|k| *k == special.group) {
            Some(g) => g,
            None => {
                group_keys.push(special.group);
                ns_scores.push(Vec::new());
                ew_scores.push(Vec::new());
                plain_scores.push(Vec::new());
                group_keys.len() - 1
            }
        };
        ns_scores[g].push(ns);
        ew_scores[g].push(ew);
        if let Outcome::Played(s) = special.outcome {
            plain_scores[g].push(s);
        }
    }
    let mut groups: Vec<Group> = Vec::with_capacity(group_keys.len());
    for g in 0..group_keys.len() {
        let mut ns = std::mem::take(&mut ns_scores[g]);
        let mut ew = std::mem::take(&mut ew_scores[g]);
        let plain = std::mem::take(&mut plain_scores[g]);
        let (mut ns_field, mut ew_field) = (
            DirectionField::from_scores(std::mem::take(&mut ns)),
            DirectionField::from_scores(std::mem::take(&mut ew)),
        );
        if g == 0 {
            merge_counts(&mut ns_field, &input.plain);
            merge_counts(&mut ew_field, &input.plain);
        }
        let datum = if options.method == Method::Butler {
            let dealt: &[(i32, u32)] = if g == 0 { &input.plain } else { &[] };
            group_datum(dealt, plain, &ns_field, options)
        } else {
            None
        };
        groups.push(Group {
            ns: ns_field,
            ew: ew_field,
            datum,
        });
    }
    (group_keys, groups)
}

/// The Butler datum of a group: of its plain scores (`dealt`, with counts, and `plain`), or of its
/// North-South scores when it has only split scores.
fn group_datum(
    dealt: &[(i32, u32)],
    mut plain: Vec<i32>,
    ns_field: &DirectionField,
    options: &Options,
) -> Option<i32> {
    let mut sorted = Vec::new();
    for &(s, c) in dealt {
        sorted.extend(std::iter::repeat_n(s, c as usize));
    }
    sorted.append(&mut plain);
    if sorted.is_empty() {
        // Only split scores: their North-South scores set the datum.
        for &(s, c) in &ns_field.entries {
            sorted.extend(std::iter::repeat_n(s, c as usize));
        }
    }
    sorted.sort_unstable();
    datum_of(&sorted, options.butler_trim_percent, &options.conventions)
}

/// What a board's groups are worth: its scale, each group's values.
struct Valued<'g> {
    mp: MatchpointScale,
    keys: Vec<Option<u32>>,
    groups: &'g [Group],
    values: Vec<GroupValues>,
}

/// The values of a board's special rows: (row, value to the row's NS pair, to its EW pair), in
/// row order.
fn special_values(
    input: &BoardInput<'_>,
    options: &Options,
    v: &Valued<'_>,
) -> Result<Vec<(u32, Value, Value)>> {
    let check = |x: Exact| -> Result<Value> { to_value(x, input.board) };
    // A national board's adjusted scores repeat a few percentages (60, 50, 40) over dozens of
    // rows: each percentage is valued once.
    let mut by_percent: Vec<(u8, Exact)> = Vec::new();
    let mut artificial = |percent: u8| {
        if let Some(&(_, x)) = by_percent.iter().find(|(p, _)| *p == percent) {
            return x;
        }
        let x = match options.method {
            Method::Matchpoints => v.mp.percent_of_top(i64::from(percent)),
            Method::Butler | Method::CrossImps => Exact::new(
                i128::from((i64::from(percent) - 50) * IMPS_PER_TEN_PERCENT),
                10,
            ),
        };
        by_percent.push((percent, x));
        x
    };
    let mut specials = Vec::with_capacity(input.specials.len());
    for &(row, special) in input.specials {
        let (ns, ew) = match special.outcome {
            Outcome::Adjusted {
                ns_percent,
                ew_percent,
            } => {
                match (options.method, special.imps) {
                    // A director's award in IMPs (`0/1.2`) stands as given in IMP scoring.
                    (Method::Butler | Method::CrossImps, Some((ns, ew))) => (exact(ns), exact(ew)),
                    _ => (artificial(ns_percent), artificial(ew_percent)),
                }
            }
            Outcome::Played(_) | Outcome::Split { .. } => {
                let (ns_score, ew_score) = match special.outcome {
                    Outcome::Split { ns, ew } => (ns, -ew),
                    Outcome::Played(s) => (s, s),
                    Outcome::Adjusted { .. } => unreachable!("handled above"),
                };
                let g = v
                    .keys
                    .iter()
                    .position(|k| *k == special.group)
                    .expect("every comparable special is in a group");
                (
                    v.values[g].ns[v.groups[g].ns.find(ns_score)],
                    v.values[g].ew[v.groups[g].ew.find(ew_score)],
                )
            }
        };
        let (ns, ew) = (check(ns)?, check(ew)?);
        // Arrow-switch: scored as usual, then each pair takes the other direction's value.
        specials.push(if special.arrow_switch {
            (row, ew, ns)
        } else {
            (row, ns, ew)
        });
    }
    Ok(specials)
}

/// Values one board. `positions` maps a North-South score to its table position. With `by_plain`
/// a board of plain results in matchpoints has its values by plain score instead
/// ([`BoardScore::by_plain`]).
pub(crate) fn value_board(
    input: BoardInput<'_>,
    ctx: FieldContext,
    options: &Options,
    positions: &dyn Fn(i32) -> usize,
    table_len: usize,
    by_plain: bool,
) -> Result<BoardScore> {
    if input.specials.is_empty() && options.method == Method::Matchpoints {
        let table = if by_plain {
            Table::ByPlain
        } else {
            Table::ByPosition(positions, table_len)
        };
        plain_matchpoints(input, ctx, options, table)
    } else {
        value_board_by_groups(input, ctx, options, positions, table_len)
    }
}

/// [`value_board_by_groups`] of a board of plain results only, in matchpoints (every board of most
/// clubs' fields): its one group's values straight from its counts, without the groups and
/// direction fields gathered first, a dozen small allocations a board. Every club's own field is
/// scored when it applies, three dozen boards of a dozen results each.
fn plain_matchpoints(
    input: BoardInput<'_>,
    ctx: FieldContext,
    options: &Options,
    table: Table<'_>,
) -> Result<BoardScore> {
    let board = input.board;
    let size: u32 = input.plain.iter().map(|e| e.1).sum();
    // One group at most: no group's results are valued as a small group's.
    let mp = MatchpointScale::new(input.results, ctx, false, options);
    let zero = Value::from_integer(0);
    let len = match table {
        Table::ByPlain => input.plain.len(),
        Table::ByPosition(_, len) => len,
    };
    let (mut ns, mut ew) = (vec![zero; len], vec![zero; len]);
    let mut below = 0u64;
    for (i, &(score, count)) in input.plain.iter().enumerate() {
        let count = u64::from(count);
        let above = u64::from(size) - below - count;
        let at = match table {
            Table::ByPlain => i,
            Table::ByPosition(positions, _) => positions(score),
        };
        ns[at] = to_value(mp.value(below, count, size), board)?;
        ew[at] = to_value(mp.value(above, count, size), board)?;
        below += count;
    }
    Ok(BoardScore {
        board,
        results: input.results,
        top: to_value(mp.top, board)?,
        datum: None,
        ns,
        ew,
        specials: Vec::new(),
        plain: input.plain,
        by_plain: matches!(table, Table::ByPlain),
    })
}

/// How [`plain_matchpoints`] lays out a board's values: by the field's score positions (the
/// function and the tables' width), or by plain score ([`BoardScore::by_plain`]).
#[derive(Clone, Copy)]
enum Table<'p> {
    ByPosition(&'p dyn Fn(i32) -> usize, usize),
    ByPlain,
}

/// Values one board by its groups (the board as dealt, and each fouled board's), whatever its
/// results and scoring method.
fn value_board_by_groups(
    input: BoardInput<'_>,
    ctx: FieldContext,
    options: &Options,
    positions: &dyn Fn(i32) -> usize,
    table_len: usize,
) -> Result<BoardScore> {
    let board = input.board;
    let (keys, groups) = groups_of(&input, options);
    let populated = groups.iter().filter(|g| g.ns.size > 0).count();
    let mp = MatchpointScale::new(input.results, ctx, populated > 1, options);
    let values: Vec<GroupValues> = groups
        .iter()
        .map(|g| match options.method {
            Method::Matchpoints => mp.group_values(g),
            Method::Butler => butler_values(g),
            Method::CrossImps => cross_imp_values(g),
        })
        .collect();

    let check = |x: Exact| -> Result<Value> { to_value(x, board) };
    let zero = Value::from_integer(0);
    let mut ns_table = vec![zero; table_len];
    let mut ew_table = vec![zero; table_len];
    for (entry, v) in groups[0].ns.entries.iter().zip(&values[0].ns) {
        ns_table[positions(entry.0)] = check(*v)?;
    }
    for (entry, v) in groups[0].ew.entries.iter().zip(&values[0].ew) {
        ew_table[positions(entry.0)] = check(*v)?;
    }
    let top = match options.method {
        Method::Matchpoints => check(mp.top)?,
        Method::Butler | Method::CrossImps => zero,
    };
    let valued = Valued {
        mp,
        keys,
        groups: &groups,
        values,
    };
    let specials = special_values(&input, options, &valued)?;

    Ok(BoardScore {
        board,
        results: input.results,
        top,
        datum: groups[0].datum,
        ns: ns_table,
        ew: ew_table,
        specials,
        plain: input.plain,
        by_plain: false,
    })
}

/// Adds plain-score counts (ascending) into a direction field.
fn merge_counts(field: &mut DirectionField, plain: &[(i32, u32)]) {
    if plain.is_empty() {
        return;
    }
    let mut merged = Vec::with_capacity(field.entries.len() + plain.len());
    let (mut a, mut b) = (field.entries.iter().peekable(), plain.iter().peekable());
    loop {
        match (a.peek(), b.peek()) {
            (Some(&&(sa, ca)), Some(&&(sb, cb))) => {
                if sa == sb {
                    merged.push((sa, ca + cb));
                    a.next();
                    b.next();
                } else if sa < sb {
                    merged.push((sa, ca));
                    a.next();
                } else {
                    merged.push((sb, cb));
                    b.next();
                }
            }
            (Some(&&e), None) => {
                merged.push(e);
                a.next();
            }
            (None, Some(&&e)) => {
                merged.push(e);
                b.next();
            }
            (None, None) => break,
        }
    }
    field.size += plain.iter().map(|e| e.1).sum::<u32>();
    field.entries = merged;
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A board of plain results valued in matchpoints straight from its counts is valued as
        /// its groups value it, to the last fraction: whatever the counts, a board played fewer
        /// times than the target, Neuberg's or ratio factoring, and the conventions for it.
        #[test]
        fn plain_boards_are_valued_as_their_groups_value_them(
            counts in proptest::collection::btree_map(-50i32..50, 1u32..6, 1..12),
            short in 0u32..4,
            ratio in proptest::bool::ANY,
            tie in proptest::bool::ANY,
        ) {
            let plain: Vec<(i32, u32)> = counts.into_iter().map(|(s, c)| (s * 10, c)).collect();
            let results: u32 = plain.iter().map(|e| e.1).sum();
            let mut options = Options::default();
            if ratio {
                options.factoring = crate::Factoring::Ratio;
            }
            if tie {
                options.conventions.missing = crate::conventions::Missing::Tie;
            }
            let ctx = FieldContext { target: results + short };
            let positions = |s: i32| ((s + 500) / 10) as usize;
            let input = |plain: &Vec<(i32, u32)>| BoardInput {
                board: 7,
                results,
                plain: plain.clone(),
                specials: &[],
            };
            let fast = plain_matchpoints(input(&plain), ctx, &options, Table::ByPosition(&positions, 101));
            let general = value_board_by_groups(input(&plain), ctx, &options, &positions, 101);
            let by_plain = plain_matchpoints(input(&plain), ctx, &options, Table::ByPlain);
            let (fast, general, by_plain) = (fast.unwrap(), general.unwrap(), by_plain.unwrap());
            proptest::prop_assert_eq!(&fast.ns, &general.ns);
            proptest::prop_assert_eq!(&fast.ew, &general.ew);
            // By plain score: one value for each plain score, the one its position holds.
            proptest::prop_assert_eq!(by_plain.ns.len(), plain.len());
            let lines: Vec<_> = by_plain.plain_lines(|_| unreachable!()).collect();
            let expected: Vec<_> = general.plain_lines(positions).collect();
            proptest::prop_assert_eq!(lines, expected);
            for &(score, _) in &plain {
                proptest::prop_assert_eq!(
                    by_plain.plain_values(score, |_| unreachable!()),
                    general.plain_values(score, positions)
                );
            }
            proptest::prop_assert_eq!(fast.top, general.top);
            proptest::prop_assert_eq!(fast.datum, general.datum);
            proptest::prop_assert_eq!(fast.results, general.results);
            proptest::prop_assert_eq!(&fast.plain, &general.plain);
            proptest::prop_assert!(fast.specials.is_empty() && general.specials.is_empty());
        }
    }
}
