//! What `simpairs score` and `simpairs replay` print: the JSON shape (README, "JSON") and a readable table.

use rustc_hash::FxHashMap;
use std::io::{self, Write};

use rayon::prelude::*;

use serde::Serialize;
use simpairs_scoring::standings::display_order;
use simpairs_scoring::value::{format_value, to_f64, value_hundredths};
use simpairs_scoring::{Factoring, Method, Outcome, Scale, Scoring, Value};

use crate::import::Imported;

mod line;

fn method_name(m: Method) -> &'static str {
    match m {
        Method::Butler => "butler",
        Method::CrossImps => "cross-imps",
        _ => "mp",
    }
}

fn factoring_name(f: Factoring) -> &'static str {
    match f {
        Factoring::Ratio => "ratio",
        _ => "neuberg",
    }
}

fn scale_name(s: Scale) -> &'static str {
    match s {
        Scale::Single => "single",
        _ => "double",
    }
}

#[derive(Serialize)]
struct OptionsJson {
    method: &'static str,
    factoring: &'static str,
    scale: &'static str,
    /// The conventions' text form, when they are not the seeds' (whose output is unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    conventions: Option<String>,
}

fn is_mp(scoring: &Scoring<'_>) -> bool {
    scoring.options().method == Method::Matchpoints
}

/// Writes the scored field as the JSON the README describes ("JSON").
pub fn write_json<W: Write + Send>(out: W, scoring: &Scoring<'_>) -> io::Result<()> {
    write_json_of(out, scoring, None)
}

/// Writes the JSON (README, "JSON") for a file read: besides the results, each pair's players
/// (`"names"`, when the file names them) and the file's warnings (`"warnings"`: file, line, field,
/// message; when there are any). A file with neither prints what [`write_json`] prints.
pub fn write_imported_json<W: Write + Send>(
    out: W,
    imported: &Imported,
    scoring: &Scoring<'_>,
) -> io::Result<()> {
    write_json_of(out, scoring, Some(imported))
}

fn write_json_of<W: Write + Send>(
    out: W,
    scoring: &Scoring<'_>,
    imported: Option<&Imported>,
) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 20, out);
    let o = scoring.options();
    out.write_all(b"{\"scoring\":")?;
    serde_json::to_writer(
        &mut out,
        &OptionsJson {
            method: method_name(o.method),
            factoring: factoring_name(o.factoring),
            scale: scale_name(o.scale),
            conventions: (o.conventions != simpairs_scoring::Conventions::SEEDS)
                .then(|| o.conventions.to_string()),
        },
    )?;
    let field = scoring.field();
    // The names' JSON and the order the results print in do not depend on each other, and each
    // leaves a thread idle for part of its time.
    let (names, (by_board, printed)) = rayon::join(
        || crate::result_json::Names::of(field),
        || {
            let by_board = field.rows_by_board();
            let printed = print_order(field, &by_board);
            (by_board, printed)
        },
    );
    out.write_all(b",\"boards\":[")?;
    write_json_boards(&mut out, scoring, &names, &by_board, &printed)?;
    out.write_all(b"],\"pairs\":[")?;
    write_json_pairs(&mut out, scoring, &names, imported)?;
    out.write_all(b"]")?;
    if let Some(imported) = imported.filter(|i| !i.warnings.is_empty()) {
        out.write_all(b",\"warnings\":")?;
        let warnings: Vec<WarningJson<'_>> = imported
            .warnings
            .iter()
            .map(|w| WarningJson {
                file: &w.at.file,
                line: w.at.line,
                field: w.at.field.as_deref(),
                message: &w.message,
            })
            .collect();
        serde_json::to_writer(&mut out, &warnings)?;
    }
    out.write_all(b"}\n")?;
    out.flush()
}

#[derive(Serialize)]
struct WarningJson<'a> {
    file: &'a str,
    line: u64,
    field: Option<&'a str>,
    message: &'a str,
}

/// Results rendered at a time by one thread (about 2 MB of JSON).
const RENDER_CHUNK: usize = 16_384;

/// Pieces of JSON (a board's opening or closing, or a chunk of results or pairs) rendered at once,
/// up to about 8 MB: work for every thread while the pieces before are written. Three batches are
/// held (written, rendered, given back), and a processor whose last-level cache is 32 MB keeps
/// them at this size: in the first `replay --json` of a national field, such a cache (simulated by
/// cachegrind) missed 42.6 M times with batches of 32 MB and 33.8 M times with these (see
/// docs/benchmarks.md, 2026-12-05).
const PIECES_AT_ONCE: usize = 4;

/// A piece of the boards' JSON.
enum Piece<'r> {
    /// Board `i`'s opening: its number, top and datum.
    Opening(usize),
    /// Rows of a board's results, the first ones of that board or not.
    Results {
        rows: &'r [u32],
        first: bool,
    },
    Closing,
}

/// Every board with its results, in a canonical order (`printed`, board after board as
/// `by_board` lists them: [`print_order`]). A national field's boards are millions of results:
/// they are rendered in parallel, a chunk at a time, and written in order while the next chunks
/// are rendered.
fn write_json_boards<W: Write + Send>(
    out: &mut W,
    scoring: &Scoring<'_>,
    names: &crate::result_json::Names,
    by_board: &simpairs_scoring::BoardRows,
    printed: &[u32],
) -> io::Result<()> {
    let mut pieces = Vec::new();
    for (i, w) in by_board.starts.windows(2).enumerate() {
        pieces.push(Piece::Opening(i));
        let chunks = printed[w[0]..w[1]].chunks(RENDER_CHUNK).enumerate();
        pieces.extend(chunks.map(|(k, rows)| Piece::Results {
            rows,
            first: k == 0,
        }));
        pieces.push(Piece::Closing);
    }
    let render = |piece: &Piece<'_>, out: &mut Vec<u8>| match *piece {
        Piece::Opening(i) => board_opening(out, scoring, by_board.boards[i], i == 0),
        Piece::Results { rows, first } => {
            render_results(out, scoring, names, rows, first);
            Ok(())
        }
        Piece::Closing => {
            out.extend_from_slice(b"]}");
            Ok(())
        }
    };
    crate::overlapped::write_rendered(out, &pieces, PIECES_AT_ONCE, render)
}

/// A board's JSON up to its results: its number, top and datum; `first` for the boards' first (no
/// comma before it).
fn board_opening(
    head: &mut Vec<u8>,
    scoring: &Scoring<'_>,
    number: u16,
    first: bool,
) -> io::Result<()> {
    let board = scoring
        .board(number)
        .expect("every board of the field is scored");
    if !first {
        head.push(b',');
    }
    write!(
        head,
        "{{\"board\":{number},\"results_count\":{}",
        board.results
    )?;
    if is_mp(scoring) {
        head.extend_from_slice(b",\"top\":");
        serde_json::to_writer(&mut *head, &to_f64(scoring.top(board)))?;
    }
    if let Some(datum) = board.datum {
        write!(head, ",\"datum\":{datum}")?;
    }
    head.extend_from_slice(b",\"results\":[");
    Ok(())
}

/// Each board's rows in the order its results print, board after board as `by_board` lists
/// them: by NS pair, then EW pair (in [`pair_ranks`]' order), so that the same results print the
/// same bytes whatever order they arrived in; a table given twice in row order. Boards are
/// sorted in parallel, each on one thread.
fn print_order(
    field: &simpairs_scoring::Field,
    by_board: &simpairs_scoring::BoardRows,
) -> Vec<u32> {
    let ranks = pair_ranks(field);
    packed_order(field, by_board, &ranks).unwrap_or_else(|| tuple_order(field, by_board, &ranks))
}

/// [`print_order`] sorting (NS rank, EW rank, place among the board's rows) packed in one
/// integer, which sorts faster than a triple: `None` when they do not fit in 64 bits. The place
/// keeps a table given twice in row order.
fn packed_order(
    field: &simpairs_scoring::Field,
    by_board: &simpairs_scoring::BoardRows,
    ranks: &[u32],
) -> Option<Vec<u32>> {
    let bits = |n: usize| usize::BITS - n.leading_zeros();
    let rank_bits = bits(ranks.iter().copied().max().unwrap_or(0) as usize);
    let place_bits = bits(by_board.iter().map(<[u32]>::len).max().unwrap_or(0));
    if 2 * rank_bits + place_bits > u64::BITS {
        return None;
    }
    let keyed = keyed_by_board(field, by_board, ranks, |ns, ew, place| {
        (u64::from(ns) << rank_bits | u64::from(ew)) << place_bits | place as u64
    });
    let place_mask = (1u64 << place_bits) - 1;
    Some(sorted_by_board(keyed, by_board, |start, key| {
        by_board.rows[start + (key & place_mask) as usize]
    }))
}

/// [`print_order`] sorting (NS rank, EW rank, place among the board's rows) as a triple.
fn tuple_order(
    field: &simpairs_scoring::Field,
    by_board: &simpairs_scoring::BoardRows,
    ranks: &[u32],
) -> Vec<u32> {
    let keyed = keyed_by_board(field, by_board, ranks, |ns, ew, place| (ns, ew, place));
    sorted_by_board(keyed, by_board, |start, (_, _, place)| {
        by_board.rows[start + place]
    })
}

/// Each result's key, made by `key` from its NS pair's place in `ranks`, its EW pair's and its
/// place among its board's rows, board after board as `by_board` lists them. Filled in one pass
/// over the field in row order: a board's rows are spread over the whole field, and reading them
/// board by board read every column once a board. (Split between threads, each taking a run of
/// rows, it measured no faster.)
fn keyed_by_board<K: Copy + Default>(
    field: &simpairs_scoring::Field,
    by_board: &simpairs_scoring::BoardRows,
    ranks: &[u32],
    key: impl Fn(u32, u32, usize) -> K,
) -> Vec<K> {
    let mut next = vec![0usize; 1 << 16];
    let mut start = vec![0usize; 1 << 16];
    for (&board, &first) in by_board.boards.iter().zip(&by_board.starts) {
        next[usize::from(board)] = first;
        start[usize::from(board)] = first;
    }
    let mut keyed = vec![K::default(); field.len()];
    for row in 0..field.len() {
        let r = field.result(row);
        let b = usize::from(r.board);
        let at = next[b];
        keyed[at] = key(ranks[r.ns as usize], ranks[r.ew as usize], at - start[b]);
        next[b] += 1;
    }
    keyed
}

/// The keys of each board sorted (boards in parallel), read back as rows by `row` (given the
/// board's first index in `by_board`).
fn sorted_by_board<K: Ord + Copy + Send + Sync>(
    mut keyed: Vec<K>,
    by_board: &simpairs_scoring::BoardRows,
    row: impl Fn(usize, K) -> u32 + Sync,
) -> Vec<u32> {
    let mut boards: Vec<(usize, &mut [K])> = Vec::with_capacity(by_board.boards.len());
    let mut rest = keyed.as_mut_slice();
    for w in by_board.starts.windows(2) {
        let (board, after) = std::mem::take(&mut rest).split_at_mut(w[1] - w[0]);
        boards.push((w[0], board));
        rest = after;
    }
    boards
        .into_par_iter()
        .flat_map_iter(|(start, keys)| {
            keys.sort_unstable();
            let row = &row;
            keys.iter().map(move |&k| row(start, k))
        })
        .collect()
}

/// Each pair's place in the order tables list pairs (club, section, number, direction), pairs
/// that compare equal sharing one: sorting results by these is sorting them by
/// [`simpairs_scoring::Field::compare_pairs`], at the cost of two lookups a comparison.
fn pair_ranks(field: &simpairs_scoring::Field) -> Vec<u32> {
    let names = field.name_order();
    let mut ids: Vec<u32> = (0..field.pairs().len() as u32).collect();
    ids.par_sort_by(|&a, &b| field.compare_pairs(&names, a, b));
    let mut ranks = vec![0u32; ids.len()];
    let mut rank = 0;
    for (k, &id) in ids.iter().enumerate() {
        if k > 0 && field.compare_pairs(&names, ids[k - 1], id) != std::cmp::Ordering::Equal {
            rank += 1;
        }
        ranks[id as usize] = rank;
    }
    ranks
}

/// Some results of one board as JSON, each preceded by a comma but the very first.
fn render_results(
    out: &mut Vec<u8>,
    scoring: &Scoring<'_>,
    names: &crate::result_json::Names,
    rows: &[u32],
    first: bool,
) {
    out.reserve(rows.len() * 160);
    // A plain score's values, and so what it prints after its pairs, depend only on the board
    // and the score: a board has a few hundred distinct scores, so each is written once.
    let mut tails: FxHashMap<i32, Vec<u8>> = FxHashMap::default();
    for (k, &row) in rows.iter().enumerate() {
        if k > 0 || !first {
            out.push(b',');
        }
        let row = row as usize;
        let r = scoring.field().result(row);
        crate::result_json::write_pairs(out, names, r.ns, r.ew);
        match r.outcome {
            Outcome::Played(score) if !r.arrow_switch && r.group.is_none() => {
                let tail = tails.entry(score).or_insert_with(|| {
                    let mut tail = Vec::new();
                    let line = scoring.line_values(row);
                    crate::result_json::write_tail(&mut tail, &result_tail(scoring, row, r, line));
                    tail
                });
                out.extend_from_slice(tail);
            }
            _ => {
                let line = scoring.line_values(row);
                crate::result_json::write_tail(out, &result_tail(scoring, row, r, line));
            }
        }
    }
}

/// What one result prints after its pairs; `line` are its values as the conventions print them
/// ([`Scoring::line_values`]).
fn result_tail<'a>(
    scoring: &'a Scoring<'_>,
    row: usize,
    r: simpairs_scoring::TableResult,
    line: (Value, Value),
) -> crate::result_json::Tail<'a> {
    let field = scoring.field();
    let (ns_v, ew_v) = line;
    let (ns_score, ew_score, adjusted) = match r.outcome {
        Outcome::Played(s) => (Some(s), None, None),
        Outcome::Split { ns, ew } => (Some(ns), Some(ew), None),
        Outcome::Adjusted { .. } => (None, None, Some(adjusted_text(field, row, r.outcome))),
    };
    crate::result_json::Tail {
        ns_score,
        ew_score,
        adjusted,
        arrow_switch: r.arrow_switch,
        group: r.group.map(|g| field.group_name(g).1),
        values: (to_f64(ns_v), to_f64(ew_v)),
        matchpoints: is_mp(scoring),
    }
}

/// An adjusted score as written: `60/40`, or a director's award in IMPs, `0/1.2 IMP`.
fn adjusted_text(field: &simpairs_scoring::Field, row: usize, outcome: Outcome) -> String {
    match (field.imp_award(row), outcome) {
        (Some((ns, ew)), _) => {
            // As a director writes it: 1.2, not 1.20.
            let short = |v: Value| {
                let text = crate::text::format_exact(v);
                match text.contains('.') {
                    true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
                    false => text,
                }
            };
            format!("{}/{} IMP", short(ns), short(ew))
        }
        (
            None,
            Outcome::Adjusted {
                ns_percent,
                ew_percent,
            },
        ) => format!("{ns_percent}/{ew_percent}"),
        _ => String::new(),
    }
}

/// Every pair's standing, in display order, with its players when the file names them: chunks
/// of pairs rendered in parallel, a batch at a time, written while the next batch is rendered.
fn write_json_pairs<W: Write + Send>(
    out: &mut W,
    scoring: &Scoring<'_>,
    names: &crate::result_json::Names,
    imported: Option<&Imported>,
) -> io::Result<()> {
    let shown = shown_totals(scoring);
    let order = display_order(scoring);
    let render = |&(k, ids): &(usize, &[u32]), out: &mut Vec<u8>| {
        out.reserve(ids.len() * 200);
        let mut players = Vec::new();
        for (i, &id) in ids.iter().enumerate() {
            if k > 0 || i > 0 {
                out.push(b',');
            }
            players.clear();
            if let Some(imported) = imported {
                players.extend(imported.players(id).iter().map(|p| p.name.as_str()));
            }
            let line = pair_line(scoring, names, shown.as_deref(), id, &players);
            crate::pair_json::write_pair(out, &line);
        }
        Ok(())
    };
    let chunks: Vec<(usize, &[u32])> = order.chunks(RENDER_CHUNK).enumerate().collect();
    crate::overlapped::write_rendered(out, &chunks, PIECES_AT_ONCE, render)
}

/// One pair's standing as JSON prints it; `shown` are the totals as the conventions print them,
/// when they print them otherwise than exactly ([`shown_totals`]), and `players` the pair's
/// players' names.
fn pair_line<'a>(
    scoring: &Scoring<'_>,
    names: &'a crate::result_json::Names,
    shown: Option<&[i64]>,
    id: simpairs_scoring::PairId,
    players: &'a [&'a str],
) -> crate::pair_json::PairLine<'a> {
    let field = scoring.field();
    let pair = &field.pairs()[id as usize];
    let s = &scoring.standings()[id as usize];
    // A total the conventions print otherwise (scaled, cut) is printed as they print it.
    let (mp_total, total) = match shown {
        Some(h) => (h[id as usize] as f64 / 100.0, h[id as usize] as f64 / 100.0),
        None => (s.total, s.total_hundredths as f64 / 100.0),
    };
    crate::pair_json::PairLine {
        club: names.club(pair.club),
        section: names.section(pair.section),
        pair: names.pair(id),
        direction: pair.direction.map_or("", |d| d.as_str()),
        boards: s.boards,
        points: match is_mp(scoring) {
            true => crate::pair_json::Points::Matchpoints {
                mp: mp_total,
                max: s.max,
            },
            false => crate::pair_json::Points::Imps(total),
        },
        pct: s.percent(),
        rank: s.rank,
        tied: s.tied,
        combined_rank: s.combined_rank,
        combined_tied: s.combined_tied,
        names: players,
    }
}

/// Each pair's total in hundredths as the conventions print it, when they print totals otherwise
/// than exactly (`None` under the seeds' conventions: the standings' own figures are printed).
fn shown_totals(scoring: &Scoring<'_>) -> Option<Vec<i64>> {
    let c = &scoring.options().conventions;
    (c.scale_totals || c.totals != simpairs_scoring::Rounding::Exact)
        .then(|| scoring.shown_total_hundredths())
}

fn pad_left(line: &mut Vec<u8>, text: &[u8], width: usize) {
    line.resize(line.len() + width.saturating_sub(text.len()), b' ');
    line.extend_from_slice(text);
}

/// Appends hundredths as a two-decimal number right-aligned in `width`.
fn push_hundredths(line: &mut Vec<u8>, h: i64, width: usize) {
    let mut digits = itoa::Buffer::new();
    let whole = digits.format(h.unsigned_abs() / 100);
    let frac = (h.unsigned_abs() % 100) as u8;
    let len = usize::from(h < 0) + whole.len() + 3;
    line.resize(line.len() + width.saturating_sub(len), b' ');
    if h < 0 {
        line.push(b'-');
    }
    line.extend_from_slice(whole.as_bytes());
    line.extend_from_slice(&[b'.', b'0' + frac / 10, b'0' + frac % 10]);
}

/// A value in hundredths printed with two decimals, without allocating.
struct Hundredths(i64);

impl std::fmt::Display for Hundredths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let a = self.0.unsigned_abs();
        let text = format_args!("{sign}{}.{:02}", a / 100, a % 100);
        match f.width() {
            // Pad as a whole (Formatter padding applies to str, so render small values into a buffer).
            Some(w) => {
                let mut buf = [0u8; 32];
                let mut cursor = std::io::Cursor::new(&mut buf[..]);
                std::io::Write::write_fmt(&mut cursor, text).map_err(|_| std::fmt::Error)?;
                let n = cursor.position() as usize;
                let s = std::str::from_utf8(&buf[..n]).map_err(|_| std::fmt::Error)?;
                write!(f, "{s:>w$}")
            }
            None => f.write_fmt(text),
        }
    }
}

/// A pair's name in a table: club and section when the field has them, then the number.
struct PairName<'a> {
    scoring: &'a Scoring<'a>,
    id: u32,
    club: bool,
    section: bool,
}

impl std::fmt::Display for PairName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let field = self.scoring.field();
        let p = &field.pairs()[self.id as usize];
        let mut buf = String::new();
        let out: &str = if !self.club && !self.section {
            match &p.label {
                simpairs_scoring::PairLabel::Number(n) => {
                    return write!(f, "{:<w$}", n, w = f.width().unwrap_or(0));
                }
                simpairs_scoring::PairLabel::Text(t) => t,
            }
        } else {
            if self.club {
                buf.push_str(field.club_name(p.club));
                buf.push(' ');
            }
            if self.section {
                buf.push_str(field.section_name(p.section));
                buf.push(' ');
            }
            use std::fmt::Write as _;
            let _ = write!(buf, "{}", p.label);
            &buf
        };
        write!(f, "{:<w$}", out, w = f.width().unwrap_or(0))
    }
}

/// The heading of a direction's standings (after an empty line).
fn direction_heading(
    text: &mut Vec<u8>,
    direction: Option<simpairs_scoring::Direction>,
    mp: bool,
    players: bool,
) {
    text.push(b'\n');
    match direction {
        Some(d) => {
            text.extend_from_slice(d.as_str().as_bytes());
            text.extend_from_slice(b" pairs\n");
        }
        None => text.extend_from_slice(b"Pairs\n"),
    }
    let heading = if mp {
        format!(
            "{:<6} {:<24} {:>6} {:>10} {:>10} {:>7}",
            "Place", "Pair", "Boards", "Total", "Max", "%"
        )
    } else {
        format!(
            "{:<6} {:<24} {:>6} {:>10}",
            "Place", "Pair", "Boards", "IMPs"
        )
    };
    text.extend_from_slice(heading.as_bytes());
    if players {
        text.extend_from_slice(b"  Players");
    }
    text.push(b'\n');
}

/// Which parts of a pair's name the standings table shows besides its label.
#[derive(Clone, Copy)]
struct NameParts<'a> {
    club: bool,
    section: bool,
    /// The file read, when it names the players: their names follow each line.
    players: Option<&'a Imported>,
}

/// Appends a pair's name as [`PairName`] writes it, left-aligned in `width` characters (written
/// directly: a national table has hundreds of thousands of lines).
fn push_pair_name(
    line: &mut Vec<u8>,
    field: &simpairs_scoring::Field,
    facts: &LineFacts<'_>,
    parts: NameParts<'_>,
    width: usize,
) {
    let start = line.len();
    if parts.club {
        line.extend_from_slice(facts.club);
        line.push(b' ');
    }
    if parts.section {
        line.extend_from_slice(field.section_name(facts.section).as_bytes());
        line.push(b' ');
    }
    match facts.label {
        Label::Number(n) => line.extend_from_slice(itoa::Buffer::new().format(n).as_bytes()),
        Label::Text(t) => line.extend_from_slice(t.as_bytes()),
    }
    // Padding counts characters, as the formatter's width does.
    let written = &line[start..];
    let chars = if written.is_ascii() {
        written.len()
    } else {
        String::from_utf8_lossy(written).chars().count()
    };
    line.resize(line.len() + width.saturating_sub(chars), b' ');
}

/// What a line of the standings shows of one pair: its name, its club's name and its standing,
/// copied out of the field and the standings while they are gathered.
struct LineFacts<'s> {
    id: u32,
    label: Label<'s>,
    section: simpairs_scoring::field::SectionId,
    direction: Option<simpairs_scoring::Direction>,
    club_id: simpairs_scoring::field::ClubId,
    /// The club's name, found after the facts of a few hundred lines are gathered
    /// ([`StandingsTable::format_chunk`]).
    club: &'s [u8],
    standing: simpairs_scoring::Standing,
}

/// A pair's label, copied when it is a number.
#[derive(Clone, Copy)]
enum Label<'s> {
    Number(u32),
    Text(&'s str),
}

impl<'s> LineFacts<'s> {
    /// The facts of pair `id` but its club's name.
    fn of(scoring: &'s Scoring<'_>, id: u32) -> LineFacts<'s> {
        let pair = &scoring.field().pairs()[id as usize];
        LineFacts {
            id,
            label: match &pair.label {
                simpairs_scoring::PairLabel::Number(n) => Label::Number(*n),
                simpairs_scoring::PairLabel::Text(t) => Label::Text(t),
            },
            section: pair.section,
            direction: pair.direction,
            club_id: pair.club,
            club: b"",
            standing: scoring.standings()[id as usize].clone(),
        }
    }
}

/// The clubs' names side by side in one block. A table in place order reads them at random: from
/// one block (about a megabyte for a national field) they stay in the processor's cache, where
/// each name in an allocation of its own was a read from memory for every line.
struct ClubNames {
    text: Vec<u8>,
    /// Where each club's name ends in `text`; it starts where the one before ends.
    ends: Vec<usize>,
}

impl ClubNames {
    fn of(field: &simpairs_scoring::Field) -> ClubNames {
        let mut text = Vec::new();
        let ends = field
            .clubs()
            .map(|name| {
                text.extend_from_slice(name.as_bytes());
                text.len()
            })
            .collect();
        ClubNames { text, ends }
    }

    /// The club's name, as bytes: a name's text is only copied, and its first byte need not be
    /// read to check that it starts a character (a read from memory for most lines).
    fn name(&self, club: u32) -> &[u8] {
        let club = club as usize;
        let start = club.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.text[start..self.ends[club]]
    }
}

/// A standing's Max as the table shows it, in hundredths.
fn max_hundredths(s: &simpairs_scoring::Standing) -> i64 {
    (s.max * 100.0).round() as i64
}

/// One pair's line of the standings table.
fn standing_line(
    line: &mut Vec<u8>,
    field: &simpairs_scoring::Field,
    facts: &LineFacts<'_>,
    mp: bool,
    parts: NameParts<'_>,
    shown_total: Option<i64>,
) {
    let (id, s) = (facts.id, &facts.standing);
    let mut rank = itoa::Buffer::new();
    let start = line.len();
    line.extend_from_slice(rank.format(s.rank).as_bytes());
    if s.tied {
        line.push(b'=');
    }
    line.resize(start.max(line.len()).max(start + 6), b' ');
    line.push(b' ');
    push_pair_name(line, field, facts, parts, 24);
    line.push(b' ');
    let mut boards = itoa::Buffer::new();
    pad_left(line, boards.format(s.boards).as_bytes(), 6);
    line.push(b' ');
    push_hundredths(line, shown_total.unwrap_or(s.total_hundredths), 10);
    if mp {
        line.push(b' ');
        push_hundredths(line, max_hundredths(s), 10);
        line.push(b' ');
        push_hundredths(line, s.percent_hundredths.unwrap_or_default(), 7);
    }
    if let Some(imported) = parts.players {
        for (k, player) in imported.players(id).iter().enumerate() {
            line.extend_from_slice(if k == 0 { b"  " } else { b" & " });
            line.extend_from_slice(player.name.as_bytes());
        }
    }
    line.push(b'\n');
}

/// Pairs per chunk of the standings table formatted in parallel.
const TABLE_CHUNK: usize = 8_192;

/// Chunks of the standings table formatted at once, while the ones before are written: work for
/// every thread, and never the whole text of a national table held at once.
const CHUNKS_AT_ONCE: usize = 16;

/// Lines of the standings table whose pairs are gathered before they are formatted: few enough
/// that what was gathered is still in the processor's cache when it is formatted.
const GATHERED: usize = 256;

/// Writes the standings (and, if asked, every board's traveller) as a table for people.
pub fn write_table<W: Write + Send>(
    out: W,
    scoring: &Scoring<'_>,
    title: &str,
    travellers: bool,
) -> io::Result<()> {
    write_table_of(out, scoring, title, travellers, None)
}

/// Writes the table of [`write_table`] for a file read, with what the file carries: the players'
/// names beside their pair, and on the travellers each table's contract, result and declarer in
/// bridge notation (`4S+1 N`, `3NTX-2 E`, `PASS`) and its lead.
pub fn write_imported_table<W: Write + Send>(
    out: W,
    imported: &Imported,
    scoring: &Scoring<'_>,
    title: &str,
    travellers: bool,
) -> io::Result<()> {
    write_table_of(out, scoring, title, travellers, Some(imported))
}

fn write_table_of<W: Write + Send>(
    out: W,
    scoring: &Scoring<'_>,
    title: &str,
    travellers: bool,
    imported: Option<&Imported>,
) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 20, out);
    let field = scoring.field();
    let o = scoring.options();
    let method = match o.method {
        Method::Butler => "Butler IMPs".to_string(),
        Method::CrossImps => "cross-IMPs".to_string(),
        _ => format!(
            "matchpoints ({} scale, {} factoring)",
            scale_name(o.scale),
            factoring_name(o.factoring)
        ),
    };
    let method = if o.conventions == simpairs_scoring::Conventions::SEEDS {
        method
    } else {
        format!("{method}, conventions {}", o.conventions)
    };
    writeln!(
        out,
        "{title}: {}, {}, {}; {method}",
        counted(scoring.boards().len(), "board", "boards"),
        counted(field.len(), "result", "results"),
        counted(field.pairs().len(), "pair", "pairs")
    )?;
    let parts = NameParts {
        club: field.clubs().count() > 1 || field.clubs().any(|c| !c.is_empty()),
        section: field
            .pairs()
            .iter()
            .any(|p| !field.section_name(p.section).is_empty()),
        players: imported.filter(|i| i.pairs.iter().any(|p| !p.players.is_empty())),
    };
    write_standings(&mut out, scoring, parts)?;
    if travellers {
        write_travellers(&mut out, scoring, parts, imported)?;
    }
    out.flush()
}

/// Writes the standings table's lines, formatted in parallel chunks (a national field has
/// hundreds of thousands of pairs), in order. A few chunks are formatted at a time and written
/// while the next are formatted, so that the text of a national table (about 70 bytes a pair,
/// more than its rows when pairs play few boards) is never held whole.
fn write_standings<W: Write + Send>(
    out: &mut W,
    scoring: &Scoring<'_>,
    parts: NameParts<'_>,
) -> io::Result<()> {
    let started = std::time::Instant::now();
    let order = display_order(scoring);
    tracing::debug!(elapsed = ?started.elapsed(), "table: pairs in display order");
    let field = scoring.field();
    let table = StandingsTable {
        scoring,
        parts,
        order: &order,
        shown: shown_totals(scoring),
        clubs: ClubNames::of(field),
        mp: is_mp(scoring),
        in_place: parts.players.is_none()
            && (!parts.club || field.clubs().all(|c| line::fits(c, line::CLUB_MAX)))
            && (!parts.section || field.sections().all(|s| line::fits(s, line::SECTION_MAX))),
    };
    let chunks: Vec<(usize, &[u32])> = order.chunks(TABLE_CHUNK).enumerate().collect();
    let render = |&(c, ids): &(usize, &[u32]), text: &mut Vec<u8>| {
        text.reserve(ids.len() * 72);
        table.format_chunk(text, c, ids);
        Ok(())
    };
    crate::overlapped::write_rendered(out, &chunks, CHUNKS_AT_ONCE, render)?;
    tracing::debug!(elapsed = ?started.elapsed(), "table: standings written");
    Ok(())
}

/// What every chunk of the standings table is formatted from.
struct StandingsTable<'s> {
    scoring: &'s Scoring<'s>,
    parts: NameParts<'s>,
    /// The pairs in the order of the table's lines.
    order: &'s [u32],
    shown: Option<Vec<i64>>,
    clubs: ClubNames,
    mp: bool,
    /// Whether a numbered pair's line is written in place ([`line`]): every name it may show is
    /// short and ASCII, and no line shows players.
    in_place: bool,
}

impl StandingsTable<'_> {
    /// Appends the lines of chunk `c`, the pairs `ids`; the chunk starts a direction's heading
    /// when its first pair's direction differs from the pair before it.
    fn format_chunk(&self, text: &mut Vec<u8>, c: usize, ids: &[u32]) {
        let field = self.scoring.field();
        let mut current: Option<Option<simpairs_scoring::Direction>> =
            (c > 0).then(|| field.pairs()[self.order[c * TABLE_CHUNK - 1] as usize].direction);
        // Place order reads the pairs, their standings and their clubs' names at random. They are
        // gathered first, in a loop of their own that keeps many of those reads in flight at
        // once; read between the formatting of lines, they came one at a time (on a
        // 2,000,000-pair table, formatting took 0.81 s that way and 0.45 s this way).
        let mut facts: Vec<LineFacts<'_>> = Vec::with_capacity(GATHERED);
        for ids in ids.chunks(GATHERED) {
            facts.clear();
            facts.extend(ids.iter().map(|&id| LineFacts::of(self.scoring, id)));
            // The clubs' names in a loop of their own, whose reads depend on none of its own.
            for fact in &mut facts {
                fact.club = self.clubs.name(fact.club_id);
            }
            for fact in &facts {
                let direction = fact.direction;
                if current != Some(direction) {
                    current = Some(direction);
                    direction_heading(text, direction, self.mp, self.parts.players.is_some());
                }
                self.line(text, fact);
            }
        }
    }

    /// Appends the line of `fact`: in place when it can be, field by field otherwise.
    fn line(&self, text: &mut Vec<u8>, fact: &LineFacts<'_>) {
        let field = self.scoring.field();
        let total = self.shown.as_ref().map(|h| h[fact.id as usize]);
        if let Label::Number(number) = fact.label
            && self.in_place
        {
            let name = line::Name {
                club: self.parts.club.then_some(fact.club),
                section: (self.parts.section).then(|| field.section_name(fact.section).as_bytes()),
                number,
            };
            let figures = line::Figures {
                standing: &fact.standing,
                total_hundredths: total.unwrap_or(fact.standing.total_hundredths),
                mp: self.mp,
            };
            if line::write(text, &name, &figures) {
                return;
            }
        }
        standing_line(text, field, fact, self.mp, self.parts, total);
    }
}

/// Every board's traveller; with the file's contracts and leads when it has any.
fn write_travellers<W: Write>(
    out: &mut W,
    scoring: &Scoring<'_>,
    parts: NameParts<'_>,
    imported: Option<&Imported>,
) -> io::Result<()> {
    let field = scoring.field();
    let details = imported.filter(|i| !i.details.is_empty());
    let name = |id: u32| PairName {
        scoring,
        id,
        club: parts.club,
        section: parts.section,
    };
    let by_board = field.rows_by_board();
    for (i, rows) in by_board.iter().enumerate() {
        let number = by_board.boards[i];
        let board = scoring.board(number).expect("scored");
        writeln!(out)?;
        let mut heading = format!("Board {number}");
        if is_mp(scoring) {
            heading.push_str(&format!(", top {}", format_value(scoring.shown_top(board))));
        }
        if let Some(d) = board.datum {
            heading.push_str(&format!(", datum {d}"));
        }
        writeln!(out, "{heading}")?;
        let played = if details.is_some() {
            format!(" {:<10} {:<4}", "Contract", "Lead")
        } else {
            String::new()
        };
        writeln!(
            out,
            "{:<16} {:<16}{played} {:>8} {:>8} {:>8} {:>8}",
            "NS", "EW", "NS", "EW", "NS pts", "EW pts"
        )?;
        for &row in rows {
            traveller_line(out, scoring, row as usize, &name, details)?;
        }
    }
    Ok(())
}

/// One table's line of a traveller.
fn traveller_line<'s, W: Write>(
    out: &mut W,
    scoring: &'s Scoring<'s>,
    row: usize,
    name: &dyn Fn(u32) -> PairName<'s>,
    details: Option<&Imported>,
) -> io::Result<()> {
    let r = scoring.field().result(row);
    let (ns_v, ew_v): (Value, Value) = scoring.line_values(row);
    let (a, b) = match scoring.field().imp_award(row) {
        // A director's award in IMPs, as written beside the adjusted score.
        Some(_) => {
            let text = adjusted_text(scoring.field(), row, r.outcome);
            (text, String::new())
        }
        None => table_scores(r.outcome),
    };
    let played = match details {
        Some(imported) => {
            let d = imported.details(row);
            format!(
                " {:<10} {:<4}",
                d.and_then(crate::import::LineDetails::notation)
                    .unwrap_or_default(),
                d.and_then(|d| d.lead.as_deref()).unwrap_or_default()
            )
        }
        None => String::new(),
    };
    let mark = if r.arrow_switch { " A/S" } else { "" };
    writeln!(
        out,
        "{:<16} {:<16}{played} {a:>8} {b:>8} {:>8} {:>8}{mark}",
        name(r.ns),
        name(r.ew),
        Hundredths(value_hundredths(ns_v)),
        Hundredths(value_hundredths(ew_v)),
    )
}

/// A result's NS and EW score columns as a traveller shows them.
fn table_scores(outcome: Outcome) -> (String, String) {
    match outcome {
        Outcome::Played(s) if s >= 0 => (s.to_string(), String::new()),
        Outcome::Played(s) => (String::new(), (-s).to_string()),
        Outcome::Split { ns, ew } => (ns.to_string(), ew.to_string()),
        Outcome::Adjusted {
            ns_percent,
            ew_percent,
        } => (format!("{ns_percent}%"), format!("{ew_percent}%")),
    }
}

/// `n` things, in the singular when there is one.
fn counted(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simpairs_scoring::{Direction, Field, Options, Pair, PairLabel};

    const NAMED: &str = "board,ns_pair,ew_pair,contract,declarer,tricks,lead,ns_score,ns_names,ew_names\n\
        1,1,1,4S,N,11,HA,,Ann & Bob,Cy & Di\n\
        1,2,2,3NTX,E,7,,,Ed & Flo,Gus & Hal\n\
        1,3,3,PASS,,,,,,\n\
        1,4,4,4S,N,10,,400,,\n";

    fn scored(text: &str) -> (crate::Imported, Options) {
        let imported = crate::read("n.csv", text.as_bytes(), None).unwrap();
        (imported, Options::default())
    }

    /// Players' names beside pair numbers; travellers in bridge notation.
    #[test]
    fn tables_show_names_and_contracts() {
        let (imported, options) = scored(NAMED);
        let scoring = simpairs_scoring::score(&imported.field, &options).unwrap();
        let mut out = Vec::new();
        write_imported_table(&mut out, &imported, &scoring, "t", true).unwrap();
        let text = String::from_utf8(out).unwrap();
        let line_of = |start: &str| {
            text.lines()
                .find(|l| {
                    l.starts_with(char::is_numeric) && l.split_whitespace().nth(1) == Some(start)
                })
                .unwrap_or_else(|| panic!("no line for pair {start}:\n{text}"))
                .to_string()
        };
        assert!(line_of("1").ends_with("Ann & Bob"), "{text}");
        assert!(text.contains("4S+1 N"), "{text}");
        assert!(text.contains("3NTX-2 E"), "{text}");
        assert!(text.contains("PASS"), "{text}");
        assert!(text.contains("4S= N"), "{text}");
        assert!(text.contains(" HA "), "{text}");
        // Without a file's details the table is as before.
        let mut plain = Vec::new();
        write_table(&mut plain, &scoring, "t", true).unwrap();
        let plain = String::from_utf8(plain).unwrap();
        assert!(!plain.contains("Ann") && !plain.contains("4S+1"), "{plain}");
    }

    /// Names under their own key, and the warnings, only when there are any: a file without them
    /// prints the same bytes as before.
    #[test]
    fn json_has_names_and_warnings_only_when_there_are_some() {
        let (imported, options) = scored(NAMED);
        let scoring = simpairs_scoring::score(&imported.field, &options).unwrap();
        let mut out = Vec::new();
        write_imported_json(&mut out, &imported, &scoring).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let pair1 = json["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pair"] == "1" && p["direction"] == "NS")
            .unwrap();
        assert_eq!(pair1["names"], serde_json::json!(["Ann", "Bob"]));
        let w = &json["warnings"][0];
        assert_eq!(
            (w["file"].as_str(), w["line"].as_u64()),
            (Some("n.csv"), Some(5))
        );
        assert_eq!(w["field"], "ns_score");
        assert!(w["message"].as_str().unwrap().contains("disagrees"), "{w}");

        let plain = "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n1,2,2,400\n";
        let (imported, options) = scored(plain);
        let scoring = simpairs_scoring::score(&imported.field, &options).unwrap();
        let (mut with, mut without) = (Vec::new(), Vec::new());
        write_imported_json(&mut with, &imported, &scoring).unwrap();
        write_json(&mut without, &scoring).unwrap();
        assert_eq!(
            String::from_utf8(with).unwrap(),
            String::from_utf8(without).unwrap()
        );
    }

    proptest::proptest! {
        /// Each board's results print by NS pair, then EW pair (their places in
        /// [`pair_ranks`]), a table given twice in row order: packed in one integer or sorted
        /// as a triple, whatever order the rows came in.
        #[test]
        fn a_board_s_results_print_by_pair_then_row(
            rows in proptest::collection::vec((1u16..4, 0u32..12, 0u32..12), 0..80),
        ) {
            let mut field = Field::new();
            let (club, section) = (field.club("C"), field.section(""));
            let mut pair = |n: u32, direction| {
                field.pair(Pair {
                    club,
                    section,
                    label: PairLabel::Number(n + 1),
                    direction: Some(direction),
                })
            };
            let ids: Vec<(u32, u32, u16)> = rows
                .iter()
                .map(|&(board, ns, ew)| (pair(ns, Direction::NS), pair(ew, Direction::EW), board))
                .collect();
            for (ns, ew, board) in ids {
                field.push_played(board, ns, ew, 0);
            }
            let by_board = field.rows_by_board();
            let ranks = pair_ranks(&field);
            let mut expected = Vec::new();
            for rows in by_board.iter() {
                let mut rows = rows.to_vec();
                rows.sort_by_key(|&row| {
                    let r = field.result(row as usize);
                    (ranks[r.ns as usize], ranks[r.ew as usize])
                });
                expected.extend(rows);
            }
            let packed = packed_order(&field, &by_board, &ranks);
            proptest::prop_assert_eq!(packed.as_ref(), Some(&expected));
            proptest::prop_assert_eq!(tuple_order(&field, &by_board, &ranks), expected);
        }
    }

    /// A Mitchell field whose NS pairs fill whole chunks of the table: each direction's heading
    /// comes once, the EW one at the start of a chunk. In the second field the NS pairs also run
    /// on past the first batch of chunks written together.
    #[test]
    fn direction_headings_are_written_once_across_chunks() {
        for tables in [TABLE_CHUNK, (CHUNKS_AT_ONCE + 1) * TABLE_CHUNK] {
            headings_written_once(tables);
        }
    }

    /// A table of `tables` North-South and as many East-West pairs has each direction's heading
    /// once, with every North-South line before it.
    fn headings_written_once(tables: usize) {
        let mut field = Field::new();
        let (club, section) = (field.club(""), field.section(""));
        let pair = |field: &mut Field, n: usize, direction| {
            field.pair(Pair {
                club,
                section,
                label: PairLabel::Number(n as u32 + 1),
                direction: Some(direction),
            })
        };
        let ns: Vec<u32> = (0..tables)
            .map(|t| pair(&mut field, t, Direction::NS))
            .collect();
        let ew: Vec<u32> = (0..tables)
            .map(|t| pair(&mut field, t, Direction::EW))
            .collect();
        for t in 0..tables {
            field.push_played(1, ns[t], ew[t], (t as i32 % 50) * 10);
        }
        let scoring = simpairs_scoring::score(&field, &Options::default()).unwrap();
        let mut out = Vec::new();
        write_table(&mut out, &scoring, "t", false).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("NS pairs\n").count(), 1);
        assert_eq!(text.matches("EW pairs\n").count(), 1);
        assert_eq!(text.matches("Place ").count(), 2);
        // title, and per direction: empty line, heading, column names, one line per pair
        assert_eq!(text.lines().count(), 1 + 2 * (3 + tables));
        let ew_at = text.find("EW pairs").unwrap();
        assert_eq!(text[..ew_at].lines().count(), 1 + 3 + tables + 1);
    }
}
