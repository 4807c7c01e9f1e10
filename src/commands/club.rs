//! `simpairs club publish`: a club publishes its results file as a signed submission.

use std::path::PathBuf;

use anyhow::Context;
use simpairs_formats::import::Format;
use simpairs_pipeline::LogLocation;

#[derive(clap::Subcommand, Debug)]
pub enum ClubCommand {
    /// Publishes a results file (traveller CSV, USEBIO, PBN): checked whole, then sealed and signed.
    Publish(PublishArgs),
}

#[derive(clap::Args, Debug)]
pub struct PublishArgs {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: String,
    /// This club's id, as declared.
    #[arg(long, env = "SIMPAIRS_CLUB")]
    pub club: String,
    /// File holding this club's key (hex), as the organiser handed it out.
    #[arg(long, env = "SIMPAIRS_CLUB_KEY")]
    pub key: PathBuf,
    /// The results file.
    pub file: PathBuf,
    /// Format of the file (detected when not given).
    #[arg(long)]
    pub format: Option<String>,
}

pub fn run(command: ClubCommand) -> anyhow::Result<()> {
    let ClubCommand::Publish(args) = command;
    let key_text = std::fs::read_to_string(&args.key)
        .with_context(|| format!("cannot read the key file {}", args.key.display()))?;
    let key = simpairs_pipeline::declare::parse_key(&key_text, &args.key.display().to_string())?;
    let format = match &args.format {
        Some(f) => Some(
            Format::from_name(f)
                .with_context(|| format!("unknown format {f:?}: csv, usebio, pbn"))?,
        ),
        None => None,
    };
    let name = args.file.display().to_string();
    let bytes = super::read_file(&args.file).with_context(|| format!("cannot read {name}"))?;
    let log = super::open_log(&args.log)?;
    let published = simpairs_pipeline::publish::publish_file(
        log.as_ref(),
        &args.event,
        &args.club,
        &key,
        &name,
        &bytes,
        format,
    )?;
    println!(
        "club {} published {}: {} results, {} pairs as submission {} (seal at offset {})",
        args.club,
        name,
        published.results,
        published.pairs,
        published.submission_id,
        published.seal_offset
    );
    for warning in &published.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(())
}
