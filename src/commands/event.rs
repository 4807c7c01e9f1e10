//! `simpairs event declare|amend|hands`: the organiser declares an event and amends it.

use std::path::{Path, PathBuf};

use simpairs_events::types::{Factoring, Scoring};
use simpairs_pipeline::LogLocation;
use simpairs_pipeline::declare::{
    Amendment, Declaration, Declared, amend, declare, parse_boards, read_clubs,
};
use simpairs_pipeline::keys;
use simpairs_pipeline::limits::Limits;
use simpairs_pipeline::submissions::counted;

use super::{FactoringArg, ScoringArg};

#[derive(clap::Subcommand, Debug)]
pub enum EventCommand {
    /// Declares an event: its boards, scoring, limits and the clubs that may publish (with their
    /// public keys; key pairs are made for clubs without one). Refuses an event already declared.
    Declare(Box<DeclareArgs>),
    /// Amends a declared event, signed with the organiser's key: adds clubs or club keys, revokes
    /// keys, closes the event.
    Amend(AmendArgs),
    /// Declares the boards' hand records (a PBN file's deals): a club whose deals differ is set
    /// aside, naming the boards.
    Hands(HandsArgs),
}

#[derive(clap::Args, Debug)]
#[command(after_long_help = super::CONVENTIONS_HELP)]
pub struct DeclareArgs {
    /// The log: a directory (embedded log) or kafka://host:port.
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
    /// Clubs file: CSV with columns club,name[,public_key] (public_key as `simpairs club keygen`
    /// prints it; key pairs are made for clubs without one).
    #[arg(long)]
    pub clubs: PathBuf,
    /// Where private keys made here are written as <club>.key, aggregator.key and organiser.key
    /// (default: a `keys` directory beside the clubs file). No key file is ever written over.
    #[arg(long)]
    pub keys_out: Option<PathBuf>,
    /// The aggregator's public key file, when it made its own key pair (`simpairs club keygen`).
    #[arg(long)]
    pub aggregator_public_key: Option<PathBuf>,
    /// The organiser's public key file, when you made your own key pair.
    #[arg(long)]
    pub organiser_public_key: Option<PathBuf>,
    /// Partitions of the results stream (Kafka; the embedded log uses 1).
    #[arg(long, default_value_t = 1)]
    pub partitions: u32,
    #[command(flatten)]
    pub limits: LimitFlags,
    #[command(flatten)]
    pub conventions: super::ConventionsFlags,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

/// The event's limits (defaults far above a club's session, far below what would stall the event).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct LimitFlags {
    /// Most results in one club's submission.
    #[arg(long, default_value_t = Limits::default().results_per_submission)]
    pub max_results: u32,
    /// Most results of one board in one submission (tables that played it).
    #[arg(long, default_value_t = Limits::default().tables_per_board)]
    pub max_tables_per_board: u32,
    /// Most pairs one submission enters.
    #[arg(long, default_value_t = Limits::default().pairs_per_submission)]
    pub max_pairs: u32,
    /// Longest player name or national ID, in bytes.
    #[arg(long, default_value_t = Limits::default().name_bytes)]
    pub max_name_bytes: u32,
    /// Longest other text of a result (section, pair number, contract, group), in bytes.
    #[arg(long, default_value_t = Limits::default().field_bytes)]
    pub max_field_bytes: u32,
    /// Largest file a club may publish, in bytes.
    #[arg(long, default_value_t = Limits::default().file_bytes)]
    pub max_file_bytes: u64,
}

impl LimitFlags {
    fn limits(self) -> Limits {
        Limits {
            results_per_submission: self.max_results,
            tables_per_board: self.max_tables_per_board,
            pairs_per_submission: self.max_pairs,
            name_bytes: self.max_name_bytes,
            field_bytes: self.max_field_bytes,
            file_bytes: self.max_file_bytes,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct AmendArgs {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: String,
    /// The organiser's private key file (organiser.key, made when the event was declared).
    #[arg(long, env = "SIMPAIRS_ORGANISER_KEY")]
    pub organiser_key: PathBuf,
    /// Clubs to add: a clubs file as for `event declare`, of the new clubs or the whole list again
    /// (the clubs declared already, listed as they are, are left as they are).
    #[arg(long)]
    pub add_clubs: Option<PathBuf>,
    /// A further key a club may sign with: CLUB=PUBLIC_KEY, the key as `club keygen` printed it
    /// (ed25519-public:...) or the file holding it (repeatable).
    #[arg(long)]
    pub add_key: Vec<String>,
    /// A club's key no longer accepted from now on: CLUB=KEY_ID (as the director's listing and
    /// the errors name it, k...), or the key as `club keygen` printed it (ed25519-public:...) or
    /// the file holding it (repeatable).
    #[arg(long)]
    pub revoke: Vec<String>,
    /// Closes the event, for good: the results in by now are final. A submission sealed from now
    /// on is set aside, and `club publish` refuses. See docs/rules.md, "Closing an event".
    #[arg(long)]
    pub close: bool,
    /// Where private keys made for added clubs are written.
    #[arg(long)]
    pub keys_out: Option<PathBuf>,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

#[derive(clap::Args, Debug)]
pub struct HandsArgs {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: String,
    /// The organiser's private key file.
    #[arg(long, env = "SIMPAIRS_ORGANISER_KEY")]
    pub organiser_key: PathBuf,
    /// A PBN file with the boards' deals ([Deal] tags), as the dealing program wrote it.
    pub file: PathBuf,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

pub fn run(command: EventCommand) -> anyhow::Result<()> {
    match command {
        EventCommand::Declare(args) => run_declare(*args),
        EventCommand::Amend(args) => run_amend(args),
        EventCommand::Hands(args) => run_hands(args),
    }
}

/// The clubs file's clubs, its warnings printed.
fn clubs_of(path: &std::path::Path) -> anyhow::Result<Vec<simpairs_pipeline::declare::ClubLine>> {
    let file = read_clubs(path)?;
    for warning in &file.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(file.clubs)
}

fn run_declare(args: DeclareArgs) -> anyhow::Result<()> {
    // A log directory this declaration makes is taken away again if nothing is declared in it.
    let made = match &args.log {
        LogLocation::Embedded(dir) if !dir.exists() => Some(dir.clone()),
        _ => None,
    };
    let declared = declare_event(&args);
    if let (Err(_), Some(dir)) = (&declared, made) {
        let _ = std::fs::remove_dir_all(dir);
    }
    declared
}

fn declare_event(args: &DeclareArgs) -> anyhow::Result<()> {
    let log = super::create_log(&args.log, &args.kafka)?;
    let clubs = clubs_of(&args.clubs)?;
    let keys_dir = args
        .keys_out
        .clone()
        .unwrap_or_else(|| beside(&args.clubs, "keys"));
    let public = |path: &Option<PathBuf>| path.as_deref().map(keys::read_public).transpose();
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
            keys_dir: Some(keys_dir),
            partitions: args.partitions,
            limits: args.limits.limits(),
            conventions: declared_conventions(&args.conventions),
            aggregator_keys: public(&args.aggregator_public_key)?.into_iter().collect(),
            organiser_key: public(&args.organiser_public_key)?,
        },
    )?;
    let e = &declared.event;
    println!(
        "event {} declared in {}: {} boards, {} clubs",
        e.event_id,
        args.log,
        e.boards.len(),
        e.clubs.len()
    );
    let l = args.limits.limits();
    println!(
        "limits: {} results and {} pairs a submission, {} tables a board, names of {} bytes, other texts of {} bytes, files of {} bytes",
        l.results_per_submission,
        l.pairs_per_submission,
        l.tables_per_board,
        l.name_bytes,
        l.field_bytes,
        l.file_bytes
    );
    if let Some(conventions) = &e.conventions {
        println!("conventions: {conventions}");
    }
    print_key_files(&declared);
    Ok(())
}

/// The conventions in their text form, or none when they are the seeds' (the default).
fn declared_conventions(flags: &super::ConventionsFlags) -> Option<String> {
    let conventions = flags.conventions(simpairs_scoring::Conventions::SEEDS);
    (!conventions.is_seeds()).then(|| conventions.to_string())
}

/// Says where private keys were written and what to do with them.
fn print_key_files(declared: &Declared) {
    if declared.key_files.is_empty() {
        return;
    }
    println!("private keys written (mode 0600; keep them secret, there is no other copy):");
    for path in &declared.key_files {
        let whose = match path.file_stem().and_then(|s| s.to_str()) {
            Some("aggregator") => "for the aggregator (simpairs aggregate --key)".to_string(),
            Some("organiser") => {
                "yours, to amend the event (simpairs event amend --organiser-key)".to_string()
            }
            Some(club) => format!("hand to club {club} (simpairs club publish --key)"),
            None => String::new(),
        };
        println!("  {}  {whose}", path.display());
    }
}

fn beside(file: &Path, dir: &str) -> PathBuf {
    file.parent().unwrap_or(Path::new(".")).join(dir)
}

/// `CLUB=VALUE`.
fn club_and(text: &str, flag: &str) -> anyhow::Result<(String, String)> {
    let (club, value) = text
        .split_once('=')
        .ok_or_else(|| anyhow::anyhow!("{flag} {text:?}: expected CLUB=..."))?;
    Ok((club.trim().to_string(), value.trim().to_string()))
}

/// The id of a key given as its id (`k...`), as its public key text, or as a key file.
fn key_id_given(given: &str, source: &str) -> anyhow::Result<String> {
    let text = given.trim();
    let is_key = text.starts_with("ed25519-public:") || text.starts_with("ed25519-private:");
    if is_key || std::path::Path::new(text).is_file() {
        return Ok(keys::public_given(text, source)?.id());
    }
    Ok(text.to_string())
}

fn run_amend(args: AmendArgs) -> anyhow::Result<()> {
    let log = super::open_log(&args.log, &args.kafka)?;
    let organiser = keys::read_private(&args.organiser_key)?;
    let mut amendment = Amendment::default();
    if let Some(path) = &args.add_clubs {
        amendment.clubs = clubs_of(path)?;
        amendment.keys_dir = Some(
            args.keys_out
                .clone()
                .unwrap_or_else(|| beside(path, "keys")),
        );
    }
    for text in &args.add_key {
        let (club, file) = club_and(text, "--add-key")?;
        let key = keys::public_given(&file, &format!("--add-key {club}"))?;
        amendment.added_keys.push((club, key));
    }
    for text in &args.revoke {
        let (club, given) = club_and(text, "--revoke")?;
        let key_id = key_id_given(&given, &format!("--revoke {club}"))?;
        amendment.revoked.push((club, key_id));
    }
    let only_close = amendment.clubs.is_empty()
        && amendment.added_keys.is_empty()
        && amendment.revoked.is_empty();
    amendment.close = args.close;
    let declared = amend(log.as_ref(), &args.event, &organiser, amendment)?;
    if !(args.close && only_close) {
        println!("event {} amended", args.event);
    }
    if args.close {
        println!(
            "event {} closed: the results in by now are final; a submission sealed from now on is set aside, and clubs publishing are refused",
            args.event
        );
    }
    if !declared.unchanged.is_empty() {
        println!(
            "already part of the event, as listed, and left as they are: {}",
            declared.unchanged.join(", ")
        );
    }
    print_key_files(&declared);
    Ok(())
}

/// Board numbers in words: `1, 2, 5`.
fn numbers(boards: impl Iterator<Item = i32>) -> String {
    boards.map(|b| b.to_string()).collect::<Vec<_>>().join(", ")
}

fn run_hands(args: HandsArgs) -> anyhow::Result<()> {
    let log = super::open_log(&args.log, &args.kafka)?;
    let organiser = keys::read_private(&args.organiser_key)?;
    let name = args.file.display().to_string();
    let bytes = super::read_file(&args.file)?;
    let imported = simpairs_formats::pbn::read_deals(&name, &bytes)?;
    let dealt: Vec<(i32, String)> = imported
        .iter()
        .map(|d| (i32::from(d.board), d.to_pbn()))
        .collect();
    if dealt.is_empty() {
        anyhow::bail!("{name} holds no [Deal]: nothing to declare");
    }
    let replayed = simpairs_pipeline::replay::replay_packed(log.as_ref(), &args.event, None)?;
    // A dealing program deals more boards than a session plays: the others are left out.
    let boards = (replayed.state.roster())
        .map(|r| r.boards.clone())
        .unwrap_or_default();
    let (hands, others): (Vec<_>, Vec<_>) =
        dealt.into_iter().partition(|(b, _)| boards.contains(b));
    if hands.is_empty() {
        anyhow::bail!(
            "{name} holds no deal of event {}'s boards ({}): nothing to declare",
            args.event,
            numbers(others.iter().map(|(b, _)| *b))
        );
    }
    let count = hands.len();
    // The deals the event held to until now, where these differ from them.
    let known = replayed.state.known_deals();
    let replaced = known.declared_otherwise(&hands);
    let differing: Vec<(String, Vec<i32>)> = (known.learnt_otherwise(&hands).into_iter())
        .map(|(club, boards)| (club.to_string(), boards))
        .collect();
    amend(
        log.as_ref(),
        &args.event,
        &organiser,
        Amendment {
            hands: hands.clone(),
            ..Amendment::default()
        },
    )?;
    println!(
        "event {}: the hand records of {} declared; they hold for what is published from now on",
        args.event,
        counted(count, "board", "boards")
    );
    if !others.is_empty() {
        println!(
            "note: {name} also deals board(s) {}, not boards of the event: left out",
            numbers(others.iter().map(|(b, _)| *b))
        );
    }
    if !replaced.is_empty() {
        println!(
            "note: these replace the hand records of board(s) {} declared before, which differ: \
             what was published before now was judged by those",
            numbers(replaced.iter().copied())
        );
    }
    for (club, boards) in differing {
        println!(
            "note: until now the event's deals of board(s) {} were club {club}'s, the first club to apply them, and these differ: \
             the clubs applied before were judged by club {club}'s. If it played other boards, withdraw its results \
             (simpairs club withdraw --club {club} --key {} --reason \"...\") and have the clubs set aside for their deals publish again",
            numbers(boards.iter().copied()),
            args.organiser_key.display()
        );
    }
    Ok(())
}
