//! `simpairs score FILE`: offline scoring of every result in one file as one field.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use simpairs_scoring::{Factoring, Method};

use super::ScoringFlags;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The result file (traveller CSV).
    pub file: PathBuf,
    #[command(flatten)]
    pub scoring: ScoringFlags,
    /// Print the SPEC's JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also print every board's traveller with its matchpoints or IMPs.
    #[arg(long)]
    pub travellers: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let name = args.file.display().to_string();
    let started = std::time::Instant::now();
    let bytes = super::read_file(&args.file).with_context(|| format!("cannot read {name}"))?;
    tracing::debug!(elapsed = ?started.elapsed(), bytes = bytes.len(), "file read");
    let read = simpairs_formats::csv::read(&name, &bytes)?;
    tracing::debug!(elapsed = ?started.elapsed(), results = read.field.len(), "parsed and checked");
    drop(bytes);
    let options = args.scoring.options(Method::Matchpoints, Factoring::Neuberg);
    let scoring = simpairs_scoring::score(&read.field, &options)?;
    tracing::debug!(elapsed = ?started.elapsed(), "scored");
    let stdout = std::io::stdout().lock();
    let written = if args.json {
        simpairs_formats::report::write_json(stdout, &scoring)
    } else {
        simpairs_formats::report::write_table(stdout, &scoring, &name, args.travellers)
    };
    match written {
        // A closed pipe (`| head`) is not an error worth reporting.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.with_context(|| "cannot write the results".to_string()),
    }?;
    std::io::stdout().flush().ok();
    tracing::debug!(elapsed = ?started.elapsed(), "written");
    Ok(())
}
