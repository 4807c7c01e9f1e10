//! `simpairs replay`: rebuild an event from its log, as of any moment, and score it with any method.

use simpairs_pipeline::LogLocation;
use simpairs_pipeline::replay::AsOf;

use super::ScoringFlags;

#[derive(clap::Args, Debug)]
#[command(after_long_help = super::CONVENTIONS_HELP)]
pub struct Args {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: Option<String>,
    /// As of this offset of the results stream (inclusive: the seal offset `club publish` prints) or
    /// this date and time: 2026-11-22T20:15:00Z (UTC), or 2026-11-22 20:15 (local time).
    #[arg(long)]
    pub as_of: Option<AsOf>,
    /// One club's own field instead of the national one.
    #[arg(long)]
    pub club: Option<String>,
    #[command(flatten)]
    pub scoring: ScoringFlags,
    #[command(flatten)]
    pub index: super::replay_index::IndexFlags,
    /// Print JSON (the shape of `score --json`) instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub export: super::rescored::ExportFlag,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let export = args.export.asked()?;
    let log = super::open_log(&args.log, &args.kafka)?;
    let event = simpairs_pipeline::declare::pick_event(log.as_ref(), args.event.as_deref())?;
    let index = args.index.dir(&args.log);
    let started = std::time::Instant::now();
    // The field is built while an index built afresh is written.
    let (moment, mut imported) = simpairs_pipeline::history::replay_at_then(
        log.as_ref(),
        &event,
        index.as_deref(),
        args.as_of,
        |moment| moment.imported(args.club.as_deref()),
    )?;
    tracing::debug!(elapsed = ?started.elapsed(), results = imported.field.len(), "moment read, field built");
    if let Some(note) = simpairs_pipeline::replay::beyond_the_log(args.as_of, moment.records) {
        eprintln!("note: {note}");
    }
    // The event as the organiser declared it (what an exported file is named by).
    imported.event.event_id = Some(event.clone());
    imported.event.name = Some(moment.declared.name.clone());
    if export.is_some() {
        // An exported file names each club as declared, beside the id the field knows it by.
        imported.event.club_names = club_names(log.as_ref(), &event)?;
    }
    let declared_options = simpairs_pipeline::wire::options_from_wire(&moment.declared)?;
    // The flags override what the event declared, conventions included.
    let options = args.scoring.options_with(
        declared_options.method,
        declared_options.factoring,
        declared_options.conventions,
    );
    let scoring = simpairs_scoring::score(&imported.field, &options)?;
    tracing::debug!(elapsed = ?started.elapsed(), "field scored");
    let written = write_report(&args, &event, &moment, &imported, &scoring);
    tracing::debug!(elapsed = ?started.elapsed(), "written");
    if let Some(export) = export {
        export.write(&imported, &scoring)?;
    }
    // The process ends here: a national event's moment, field and scores are millions of small
    // allocations, which the exit gives back at once, and freeing them one by one took longer.
    std::mem::forget(scoring);
    std::mem::forget(imported);
    std::mem::forget(moment);
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Each declared club's name (amendments' clubs too), by its id.
fn club_names(
    log: &dyn simpairs_log::Log,
    event: &str,
) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    let codec = simpairs_events::Codec::new()?;
    let roster = simpairs_pipeline::publish::roster(log, &codec, event)?;
    Ok(roster
        .clubs
        .into_iter()
        .map(|(id, club)| (id, club.name))
        .collect())
}

/// The results on stdout: JSON, or a table under a title.
fn write_report(
    args: &Args,
    event: &str,
    moment: &simpairs_pipeline::history::Moment,
    imported: &simpairs_formats::Imported,
    scoring: &simpairs_scoring::Scoring<'_>,
) -> std::io::Result<()> {
    let stdout = super::report_output()?;
    if args.json {
        return simpairs_formats::report::write_imported_json(stdout, imported, scoring);
    }
    let title = format!(
        "{event}{}: {} records replayed, {} set aside",
        args.club
            .as_ref()
            .map(|c| format!(" club {c}"))
            .unwrap_or_default(),
        moment.records,
        moment.dead_letters.len()
    );
    simpairs_formats::report::write_imported_table(stdout, imported, scoring, &title, false)
}
