//! `simpairs compare`: the event scored two ways (or at two moments) side by side: the pairs
//! whose place or percentage changed, with both figures, largest change first.

use simpairs_analysis::compare::{Change, Comparison, compare};
use simpairs_analysis::variant::{Side, Variant};
use simpairs_pipeline::LogLocation;
use simpairs_pipeline::replay::AsOf;

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
    let changed = comparison.changed.len();
    if args.limit > 0 {
        comparison.changed.truncate(args.limit);
    }
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer(&mut out, &comparison)
            .map_err(std::io::Error::other)
            .and_then(|()| std::io::Write::write_all(&mut out, b"\n"))
    } else {
        write_table(&mut out, &comparison, changed)
    };
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
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

/// The comparison as a table; `changed` counts every pair that changed, before any `--limit`.
fn write_table(
    out: &mut impl std::io::Write,
    c: &Comparison,
    changed: usize,
) -> std::io::Result<()> {
    let moment = |m: &Option<String>| {
        m.as_ref()
            .map(|m| format!(" as of {m}"))
            .unwrap_or_default()
    };
    writeln!(out, "event {}", c.event)?;
    writeln!(
        out,
        "A: {}{} ({} submissions applied, {} pairs)",
        c.a.options,
        moment(&c.a.as_of),
        c.a.generation,
        c.a.pairs
    )?;
    writeln!(
        out,
        "B: {}{} ({} submissions applied, {} pairs)",
        c.b.options,
        moment(&c.b.as_of),
        c.b.generation,
        c.b.pairs
    )?;
    // Every pair that changed is counted, however many `--limit` lets through.
    let shown = if c.changed.len() < changed {
        format!(" (the first {} shown)", c.changed.len())
    } else {
        String::new()
    };
    writeln!(
        out,
        "{changed} pairs changed place or score, {} did not{shown}\n",
        c.unchanged
    )?;
    writeln!(
        out,
        "{:<10} {:<4} {:>5} {:<3} {:>6} {:>6} {:>6} {:>8} {:>8} {:>8}  players",
        "club", "sect", "pair", "dir", "A pl", "B pl", "moved", "A", "B", "change"
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
            "{:<10} {:<4} {:>5} {:<3} {:>6} {:>6} {:>6} {:>8} {:>8} {:>8}  {}",
            ch.club,
            ch.section,
            ch.pair,
            ch.direction,
            pa.unwrap_or_else(|| "-".into()),
            pb.unwrap_or_else(|| "-".into()),
            ch.place_change.map_or_else(
                || "-".into(),
                |d| format!("{}{d}", if d > 0 { "+" } else { "" })
            ),
            score(ch, true),
            score(ch, false),
            delta,
            ch.players.join(" & ")
        )?;
    }
    Ok(())
}
