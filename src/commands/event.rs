//! `simpairs event declare`: the organiser declares an event.

use std::path::PathBuf;

use simpairs_events::types::{Factoring, Scoring};
use simpairs_pipeline::LogLocation;
use simpairs_pipeline::declare::{Declaration, declare, parse_boards, read_clubs};

use super::{FactoringArg, ScoringArg};

#[derive(clap::Subcommand, Debug)]
pub enum EventCommand {
    /// Declares an event: its boards, scoring, factoring and the clubs that may publish (with their keys).
    Declare(DeclareArgs),
}

#[derive(clap::Args, Debug)]
pub struct DeclareArgs {
    /// The log: a directory (embedded log).
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    /// Event id (letters, digits, '_', '-'); it names the event's streams.
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: String,
    /// A name for people (defaults to the id).
    #[arg(long)]
    pub name: Option<String>,
    /// Boards played, such as 1-27 or 1-24,30.
    #[arg(long)]
    pub boards: String,
    #[arg(long, value_enum, default_value = "mp")]
    pub scoring: ScoringArg,
    #[arg(long, value_enum, default_value = "neuberg")]
    pub factoring: FactoringArg,
    /// Clubs file: CSV with columns club,name[,key] (key: hex HMAC key; fresh keys are drawn for clubs without one).
    #[arg(long)]
    pub clubs: PathBuf,
    /// Where fresh keys are written as <club>.key (default: a `keys` directory beside the clubs file).
    #[arg(long)]
    pub keys_out: Option<PathBuf>,
    /// Partitions of the results stream (Kafka; the embedded log uses 1).
    #[arg(long, default_value_t = 1)]
    pub partitions: u32,
}

pub fn run(command: EventCommand) -> anyhow::Result<()> {
    let EventCommand::Declare(args) = command;
    let log = super::open_log(&args.log)?;
    let clubs = read_clubs(&args.clubs)?;
    let keys_dir = args.keys_out.clone().unwrap_or_else(|| {
        args.clubs
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .join("keys")
    });
    let fresh = clubs.iter().filter(|c| c.key.is_none()).count();
    let declared = declare(
        log.as_ref(),
        Declaration {
            event_id: args.event.clone(),
            name: args.name.clone().unwrap_or_else(|| args.event.clone()),
            boards: parse_boards(&args.boards)?,
            scoring: match args.scoring {
                ScoringArg::Mp => Scoring::Matchpoints,
                ScoringArg::Butler => Scoring::Butler,
                ScoringArg::CrossImps => Scoring::CrossImps,
            },
            factoring: match args.factoring {
                FactoringArg::Neuberg => Factoring::Neuberg,
                FactoringArg::Ratio => Factoring::Ratio,
            },
            clubs,
            keys_dir: Some(keys_dir.clone()),
            partitions: args.partitions,
        },
    )?;
    println!(
        "event {} declared in {}: {} boards, {} clubs",
        declared.event_id,
        args.log,
        declared.boards.len(),
        declared.clubs.len()
    );
    if fresh > 0 {
        println!(
            "{fresh} fresh club keys written to {} (hand each club its <club>.key)",
            keys_dir.display()
        );
    }
    Ok(())
}
