//! `simpairs history`: a player's season: every event of the log the player played in, with
//! partners, percentages and places, nationally and in the club. Each event is listed once,
//! with the player's pairs in it; a national ID in two pairs of one event (two clubs of a
//! simultaneous event) is warned of, as a duplicate or mistyped ID.

use simpairs_analysis::season::{PlayerHistory, player_history};
use simpairs_pipeline::LogLocation;
use simpairs_pipeline::replay::describe_time;
use simpairs_pipeline::submissions::counted;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    /// The player's national id (membership number), as the clubs entered it.
    #[arg(long)]
    pub player: String,
    /// Print JSON instead of a list.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub index: super::replay_index::IndexFlags,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let log = super::open_log(&args.log, &args.kafka)?;
    // One index directory per log; each event's index is a file of its own in it.
    let index = args.index.dir(&args.log);
    let history = player_history(log.as_ref(), &args.player, index.as_deref())?;
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer(&mut out, &history)
            .map_err(std::io::Error::other)
            .and_then(|()| std::io::Write::write_all(&mut out, b"\n"))
    } else {
        write_list(&mut out, &history)
    };
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

fn figures(f: &Option<simpairs_analysis::figures::Figures>, of: usize) -> String {
    match f {
        None => "no result in force".to_string(),
        // The place among every pair (`of` counts them all), not within a direction.
        Some(f) => format!(
            "place {}{} of {}, {}",
            f.combined_place,
            if f.combined_tied { "=" } else { "" },
            counted(of, "pair", "pairs"),
            match f.percent_hundredths {
                Some(h) => format!("{}%", simpairs_scoring::value::format_hundredths(h)),
                None => format!(
                    "{} IMPs",
                    simpairs_scoring::value::format_hundredths(f.total_hundredths)
                ),
            }
        ),
    }
}

fn write_list(out: &mut impl std::io::Write, h: &PlayerHistory) -> std::io::Result<()> {
    if h.events.is_empty() {
        return writeln!(out, "player {}: in no event of this log", h.national_id);
    }
    writeln!(
        out,
        "player {} ({}): {}",
        h.national_id,
        h.names.join(", "),
        counted(h.event_count, "event", "events")
    )?;
    for w in &h.in_two_pairs {
        writeln!(out, "warning: {}", w.warning)?;
    }
    for (event, lines) in h.by_event() {
        let first = lines[0];
        let clubs = if lines.len() > 1 {
            format!(", in {}", counted(lines.len(), "pair", "pairs"))
        } else {
            String::new()
        };
        writeln!(
            out,
            "\n{event} ({}), declared {}{clubs}",
            first.event_name,
            describe_time(first.declared_at_ms)
        )?;
        for e in lines {
            let partners: Vec<String> = e
                .partners
                .iter()
                .map(|p| match &p.national_id {
                    Some(id) => format!("{} ({id})", p.name),
                    None => p.name.clone(),
                })
                .collect();
            writeln!(
                out,
                "  club {} ({}), section {:?}, pair {} {}, with {}",
                e.club,
                e.club_name,
                e.section,
                e.pair,
                e.direction,
                if partners.is_empty() {
                    "nobody named".to_string()
                } else {
                    partners.join(" & ")
                }
            )?;
            writeln!(
                out,
                "    national: {}",
                figures(&e.national, e.national_pairs)
            )?;
            writeln!(
                out,
                "    club:     {}",
                figures(&e.club_figures, e.club_pairs)
            )?;
        }
    }
    Ok(())
}
