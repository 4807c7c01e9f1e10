//! `simpairs submissions`: the director's view of an event's submissions and dead letters.

use simpairs_pipeline::LogLocation;
use simpairs_pipeline::replay::{AsOf, describe_time};
use simpairs_pipeline::submissions::{Submissions, list};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: Option<String>,
    /// As of this offset of the results stream (inclusive) or this date and time.
    #[arg(long)]
    pub as_of: Option<AsOf>,
    /// Print JSON instead of a list.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let log = super::open_log(&args.log, &args.kafka)?;
    let event = simpairs_pipeline::declare::pick_event(log.as_ref(), args.event.as_deref())?;
    let submissions = list(log.as_ref(), &event, args.as_of)?;
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer(&mut out, &submissions)
            .map_err(std::io::Error::other)
            .and_then(|()| std::io::Write::write_all(&mut out, b"\n"))
    } else {
        write_list(&mut out, &submissions)
    };
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// The submissions in words, one block each.
fn write_list(out: &mut impl std::io::Write, s: &Submissions) -> std::io::Result<()> {
    writeln!(
        out,
        "event {}: {} submissions, {} records set aside on their own",
        s.event,
        s.submissions.len(),
        s.dead_letters.len()
    )?;
    for v in &s.submissions {
        writeln!(
            out,
            "\nclub {}, submission {} ({}), sealed {} at offset {}: {} records, {}",
            v.club,
            v.submission,
            v.source.as_deref().unwrap_or("no file named"),
            describe_time(v.sealed_at_ms),
            v.offset,
            v.records,
            v.state.words()
        )?;
        if let Some(by) = &v.superseded_by {
            writeln!(out, "  corrected by submission {by}")?;
        }
        if let Some(reason) = &v.reason {
            writeln!(out, "  why: {reason}")?;
        }
        for w in &v.warnings {
            writeln!(out, "  warning: {w}")?;
        }
    }
    for d in &s.dead_letters {
        writeln!(out, "\nset aside at offset {}: {}", d.offset, d.reason)?;
    }
    Ok(())
}
