//! `simpairs export`: an event's whole history as Parquet (or CSV) tables for DuckDB, Polars or a
//! spreadsheet.

use std::path::PathBuf;

use simpairs_analysis::export::{ExportOptions, Format, STANDINGS_ROWS, export};
use simpairs_analysis::timeline::Every;
use simpairs_analysis::variant::Variant;
use simpairs_pipeline::LogLocation;
use simpairs_pipeline::submissions::counted;

/// `--format`
#[derive(Clone, Copy, Debug, clap::ValueEnum, Default)]
pub enum FormatArg {
    #[default]
    Parquet,
    Csv,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: Option<String>,
    /// Directory to write the tables to (results, submissions, dead_letters, standings, and
    /// export.json); created if needed, files of the same names replaced.
    #[arg(long)]
    pub to: PathBuf,
    #[arg(long, value_enum, default_value = "parquet")]
    pub format: FormatArg,
    /// Scoring changed from the declared one, e.g. "factoring=ratio" or "scoring=butler".
    #[arg(long, default_value = "")]
    pub scoring: Variant,
    /// Standings after every N-th generation (and the last); by default every generation, or
    /// every N-th when that would pass 20,000,000 pair-rows.
    #[arg(long)]
    pub standings_every: Option<u32>,
    #[command(flatten)]
    pub index: super::replay_index::IndexFlags,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let log = super::open_log(&args.log, &args.kafka)?;
    let event = simpairs_pipeline::declare::pick_event(log.as_ref(), args.event.as_deref())?;
    let options = ExportOptions {
        format: match args.format {
            FormatArg::Parquet => Format::Parquet,
            FormatArg::Csv => Format::Csv,
        },
        variant: args.scoring,
        every: args
            .standings_every
            .map_or(Every::Rows(STANDINGS_ROWS), Every::Step),
    };
    let index = args.index.dir(&args.log);
    let started = std::time::Instant::now();
    let exported = export(log.as_ref(), &event, index.as_deref(), &args.to, &options)?;
    eprintln!(
        "event {} ({}), scored {}: {}, standings of {} of them, in {:.1} s",
        exported.event,
        exported.name,
        exported.options,
        counted(exported.generations, "generation", "generations"),
        exported.standings_generations,
        started.elapsed().as_secs_f64()
    );
    for t in &exported.tables {
        eprintln!(
            "  {}: {}, {}, {}",
            t.table,
            counted(t.rows, "row", "rows"),
            counted(t.bytes as usize, "byte", "bytes"),
            t.path.display()
        );
    }
    for note in &exported.notes {
        eprintln!("  note: {note}");
    }
    Ok(())
}
