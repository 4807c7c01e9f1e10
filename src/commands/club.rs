//! `simpairs club publish|withdraw|keygen`: a club publishes its results file as a signed
//! submission, withdraws its results, and makes its own key pair.

use std::path::PathBuf;

use anyhow::Context;
use simpairs_formats::import::Format;
use simpairs_pipeline::LogLocation;
use simpairs_pipeline::keys;
use simpairs_pipeline::submissions::counted;

#[derive(clap::Subcommand, Debug)]
pub enum ClubCommand {
    /// Publishes a results file (traveller CSV, USEBIO, PBN, Scorer): checked whole and judged as
    /// the aggregator will, then sealed and signed with the club's private key.
    Publish(Box<PublishArgs>),
    /// Withdraws every result a club has in the event (results published to the wrong event, a
    /// club disqualified): a signed submission that takes them out. Signed with the club's key or
    /// the organiser's; the club may publish again afterwards unless its key is revoked.
    Withdraw(Box<WithdrawArgs>),
    /// Makes a key pair: the private key goes to a new file (mode 0600) that stays with the club;
    /// the public key is printed (and written beside it as .pub) for the organiser.
    Keygen(KeygenArgs),
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
    /// This club's private key file (from `simpairs club keygen`, or as the organiser handed it),
    /// or the organiser's, publishing a file a club sent it.
    #[arg(long, env = "SIMPAIRS_CLUB_KEY")]
    pub key: PathBuf,
    /// The results file.
    pub file: PathBuf,
    /// Format of the file (detected when not given).
    #[arg(long)]
    pub format: Option<String>,
    /// The file is the club's whole session, published again: the results published before in
    /// the sections it holds that it does not have (a table entered under a mistyped board) are
    /// taken out. Without it, each line corrects its own table and leaves the others.
    #[arg(long)]
    pub whole_session: bool,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

#[derive(clap::Args, Debug)]
pub struct WithdrawArgs {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: String,
    /// The club whose results are withdrawn, as declared.
    #[arg(long)]
    pub club: String,
    /// The club's private key file, or the organiser's.
    #[arg(long)]
    pub key: PathBuf,
    /// Why, for the director's listing (`simpairs submissions`).
    #[arg(long)]
    pub reason: String,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// Where to write the private key (never over an existing file).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(command: ClubCommand) -> anyhow::Result<()> {
    match command {
        ClubCommand::Publish(args) => publish(*args),
        ClubCommand::Withdraw(args) => withdraw(*args),
        ClubCommand::Keygen(args) => keygen(args),
    }
}

fn keygen(args: KeygenArgs) -> anyhow::Result<()> {
    let key = keys::generate()?;
    keys::write_private(&key, &args.out)?;
    let public_path = args.out.with_extension("pub");
    keys::write_public(&key.public(), &public_path)?;
    println!("{}", keys::public_text(&key.public()));
    eprintln!(
        "private key written to {} (keep it; there is no other copy), public key {} to {}: give the organiser the public key",
        args.out.display(),
        key.public().id(),
        public_path.display()
    );
    Ok(())
}

fn publish(args: PublishArgs) -> anyhow::Result<()> {
    let key = keys::read_private(&args.key)?;
    let format = match &args.format {
        Some(f) => Some(
            Format::from_name(f)
                .with_context(|| format!("unknown format {f:?}: csv, usebio, scorer, pbn"))?,
        ),
        None => None,
    };
    let name = args.file.display().to_string();
    let log = super::open_log(&args.log, &args.kafka)?;
    // Over the event's limit, the file is refused before it is read.
    let size = std::fs::metadata(&args.file)
        .with_context(|| format!("cannot read {name}"))?
        .len();
    let codec = simpairs_events::Codec::new()?;
    let roster = simpairs_pipeline::publish::roster_for(
        log.as_ref(),
        &codec,
        &args.event,
        Some(&args.club),
    )?;
    roster
        .limits
        .check_file(size)
        .map_err(|e| anyhow::anyhow!("{name}: {e}; nothing was published"))?;
    let bytes = super::read_file(&args.file).with_context(|| format!("cannot read {name}"))?;
    let file = simpairs_pipeline::publish::ClubFile {
        name: &name,
        bytes: &bytes,
        format,
        whole_session: args.whole_session,
    };
    let published = simpairs_pipeline::publish::publish_club_file(
        log.as_ref(),
        &args.event,
        &args.club,
        &key,
        &file,
    )?;
    let not_played = match published.withdrawn {
        0 => String::new(),
        n => format!(", {n} marked not played"),
    };
    let whole = match args.whole_session {
        true => " as the club's whole session",
        false => "",
    };
    println!(
        "club {} published {}{whole}: {}, {}{not_played} as submission {} (seal at offset {})",
        args.club,
        name,
        counted(published.results, "result", "results"),
        pairs_words(published.pairs, published.named),
        published.submission_id,
        published.seal_offset
    );
    for warning in &published.warnings {
        eprintln!("warning: {warning}");
    }
    if args.whole_session {
        // A few lines published so by mistake would take the rest of the session out.
        println!(
            "note: as the club's whole session, it takes out the lines published before in its \
             sections that it does not hold; `simpairs submissions --club {}` lists what it took out",
            args.club
        );
    }
    Ok(())
}

/// The pairs a file's results seat, and how many it names the players of.
fn pairs_words(pairs: usize, named: usize) -> String {
    let seated = counted(pairs, "pair", "pairs");
    match named {
        0 => format!("{seated} (no players' names in the file)"),
        n if n == pairs => format!("{seated} with their players' names"),
        n => format!("{seated}, {n} with players' names"),
    }
}

fn withdraw(args: WithdrawArgs) -> anyhow::Result<()> {
    let key = keys::read_private(&args.key)?;
    let reason = args.reason.trim();
    anyhow::ensure!(
        !reason.is_empty(),
        "--reason is empty: say why the club's results are withdrawn, for the director's listing"
    );
    let log = super::open_log(&args.log, &args.kafka)?;
    let published = simpairs_pipeline::publish::withdraw_club(
        log.as_ref(),
        &args.event,
        &args.club,
        &key,
        reason,
    )?;
    println!(
        "club {}: its results withdrawn as submission {} (seal at offset {}); `simpairs submissions --club {}` says how many lines it took out once it applies",
        args.club, published.submission_id, published.seal_offset, args.club
    );
    Ok(())
}
