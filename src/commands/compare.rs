//! `simpairs compare`: the event scored two ways (or at two moments) side by side: the pairs
//! whose place or percentage changed, with both figures, largest change first. Pairs ranked on
//! both sides are counted apart from those on one side only (new in B, only in A); moves read up
//! the rankings as gains (`▲3`, `places_gained: 3`), and are ordered by the move in percentile of
//! the combined list of every pair (`simpairs_analysis::compare`).

use serde::Serialize;
use simpairs_analysis::compare::{Change, Comparison, Counts, SideSummary, compare};
use simpairs_analysis::figures::Figures;
use simpairs_analysis::variant::{Side, Variant};
use simpairs_pipeline::LogLocation;
use simpairs_pipeline::replay::AsOf;
use simpairs_pipeline::submissions::counted;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: Option<String>,
    /// Side A's scoring, changed from the declared one: "factoring=neuberg", "scoring=butler,
    /// butler-trim=25", "scale=single", "fouled=add-one" (empty: as declared).
    #[arg(long, default_value = "")]
    pub a: Variant,
    /// Side B's scoring.
    #[arg(long, default_value = "")]
    pub b: Variant,
    /// Side A as of this offset (inclusive) or time; the whole log by default.
    #[arg(long)]
    pub a_as_of: Option<AsOf>,
    #[arg(long)]
    pub b_as_of: Option<AsOf>,
    /// Print at most this many changed pairs (all with 0).
    #[arg(long, default_value_t = 0)]
    pub limit: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub index: super::replay_index::IndexFlags,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let log = super::open_log(&args.log, &args.kafka)?;
    let event = simpairs_pipeline::declare::pick_event(log.as_ref(), args.event.as_deref())?;
    let a = Side {
        variant: args.a,
        as_of: args.a_as_of,
    };
    let b = Side {
        variant: args.b,
        as_of: args.b_as_of,
    };
    let index = args.index.dir(&args.log);
    let mut comparison = compare(log.as_ref(), &event, index.as_deref(), &a, &b)?;
    // Counted before `--limit` shortens the list.
    let counts = comparison.counts();
    if args.limit > 0 {
        comparison.changed.truncate(args.limit);
    }
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer(&mut out, &JsonComparison::of(&comparison, counts))
            .map_err(std::io::Error::other)
            .and_then(|()| std::io::Write::write_all(&mut out, b"\n"))
    } else {
        write_table(&mut out, &comparison, &counts)
    };
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// `--json`: the comparison with its counts, each move read up the rankings.
#[derive(Serialize)]
struct JsonComparison<'a> {
    event: &'a str,
    a: &'a SideSummary,
    b: &'a SideSummary,
    /// Pairs ranked on both sides (changed or not), and on one side only.
    counts: Counts,
    /// Pairs ranked on both sides with the same place and percentage (`counts.unchanged`).
    unchanged: usize,
    /// The pairs that changed, largest move first (at most `--limit`).
    changed: Vec<JsonChange<'a>>,
}

/// A changed pair. `places_gained` is up its own list (its direction, or every pair for a
/// Howell: positive a better place); `percentile_gained` up the combined list of every pair, in
/// percentile points (100 first, 0 last), the move the list is ordered by.
#[derive(Serialize)]
struct JsonChange<'a> {
    club: &'a str,
    section: &'a str,
    pair: &'a str,
    direction: &'a str,
    players: &'a [String],
    a: Option<&'a Figures>,
    b: Option<&'a Figures>,
    places_gained: Option<i64>,
    percentile_gained: Option<f64>,
    percent_change_hundredths: Option<i64>,
    total_change_hundredths: Option<i64>,
}

impl<'a> JsonComparison<'a> {
    fn of(c: &'a Comparison, counts: Counts) -> JsonComparison<'a> {
        JsonComparison {
            event: &c.event,
            a: &c.a,
            b: &c.b,
            counts,
            unchanged: c.unchanged,
            changed: c
                .changed
                .iter()
                .map(|ch| JsonChange {
                    club: &ch.club,
                    section: &ch.section,
                    pair: &ch.pair,
                    direction: &ch.direction,
                    players: &ch.players,
                    a: ch.a.as_ref(),
                    b: ch.b.as_ref(),
                    places_gained: ch.places_gained(),
                    percentile_gained: c.percentile_gained(ch),
                    percent_change_hundredths: ch.percent_change_hundredths,
                    total_change_hundredths: ch.total_change_hundredths,
                })
                .collect(),
        }
    }
}

/// A move up (`▲3`) or down (`▼307`) a list, `=` for none.
fn moved(gained: f64, decimals: usize) -> String {
    let size = format!("{:.decimals$}", gained.abs());
    if size.trim_start_matches(['0', '.']).is_empty() {
        "=".to_string()
    } else if gained > 0.0 {
        format!("▲{size}")
    } else {
        format!("▼{size}")
    }
}

/// The counts line: pairs on both sides (changed or not), then on one side only.
fn counts_line(counts: &Counts, shown: usize) -> String {
    let mut line = format!(
        "{} in both: {} changed place or score, {} did not",
        counted(counts.in_both, "pair", "pairs"),
        counts.changed,
        counts.unchanged
    );
    if counts.new_in_b > 0 || counts.only_in_a > 0 {
        line.push_str(&format!(
            "; {} new in B; {} only in A",
            counts.new_in_b, counts.only_in_a
        ));
    }
    let listed = counts.changed + counts.new_in_b + counts.only_in_a;
    if shown < listed {
        line.push_str(&format!(" (the first {shown} shown)"));
    }
    line
}

/// A figure as the tables print it: `3=` for a shared place, percentages to two decimals.
fn place(p: u32, tied: bool) -> String {
    format!("{p}{}", if tied { "=" } else { "" })
}

fn score(c: &Change, a: bool) -> String {
    let f = if a { &c.a } else { &c.b };
    match f {
        None => "-".to_string(),
        Some(f) => match f.percent_hundredths {
            Some(h) => simpairs_scoring::value::format_hundredths(h),
            None => simpairs_scoring::value::format_hundredths(f.total_hundredths),
        },
    }
}

/// The comparison as a table; `counts` counts every pair, before any `--limit`.
fn write_table(
    out: &mut impl std::io::Write,
    c: &Comparison,
    counts: &Counts,
) -> std::io::Result<()> {
    let moment = |m: &Option<String>| {
        m.as_ref()
            .map(|m| format!(" as of {m}"))
            .unwrap_or_default()
    };
    writeln!(out, "event {}", c.event)?;
    for (name, side) in [("A", &c.a), ("B", &c.b)] {
        writeln!(
            out,
            "{name}: {}{} ({} applied, {})",
            side.options,
            moment(&side.as_of),
            counted(side.generation.max(0) as usize, "submission", "submissions"),
            counted(side.pairs, "pair", "pairs")
        )?;
    }
    writeln!(out, "{}", counts_line(counts, c.changed.len()))?;
    writeln!(
        out,
        "places: up (▲) or down (▼) the pair's own list; pctile: up or down the list of every pair, in percentile points (largest first)\n"
    )?;
    writeln!(
        out,
        "{:<10} {:<4} {:>5} {:<3} {:>6} {:>6} {:>6} {:>7} {:>8} {:>8} {:>8}  players",
        "club", "sect", "pair", "dir", "A pl", "B pl", "places", "pctile", "A", "B", "change"
    )?;
    for ch in &c.changed {
        let (pa, pb) = (
            ch.a.as_ref().map(|f| place(f.place, f.tied)),
            ch.b.as_ref().map(|f| place(f.place, f.tied)),
        );
        let delta = ch
            .percent_change_hundredths
            .or(ch.total_change_hundredths)
            .map(|h| {
                format!(
                    "{}{}",
                    if h > 0 { "+" } else { "" },
                    simpairs_scoring::value::format_hundredths(h)
                )
            })
            .unwrap_or_else(|| "-".into());
        writeln!(
            out,
            "{:<10} {:<4} {:>5} {:<3} {:>6} {:>6} {:>6} {:>7} {:>8} {:>8} {:>8}  {}",
            ch.club,
            ch.section,
            ch.pair,
            ch.direction,
            pa.unwrap_or_else(|| "-".into()),
            pb.unwrap_or_else(|| "-".into()),
            ch.places_gained()
                .map_or_else(|| "-".into(), |d| moved(d as f64, 0)),
            c.percentile_gained(ch)
                .map_or_else(|| "-".into(), |p| moved(p, 2)),
            score(ch, true),
            score(ch, false),
            delta,
            ch.players.join(" & ")
        )?;
    }
    Ok(())
}
