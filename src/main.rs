//! `simpairs`: the command line of the simpairs scoring system. Parses flags and hands each command to
//! its module under `commands/`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;

/// jemalloc instead of the C library's allocator: the aggregator allocates and frees a few
/// hundred small blocks for each club it applies, many of them on another thread than the one
/// that allocated them, and glibc's arenas spent a tenth of its time on that. Its settings
/// (two arenas, freed pages kept 30 s) are built in from `.cargo/config.toml`
/// (docs/benchmarks.md, 2026-12-07 morning, later).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Scores duplicate-bridge pairs events played across many clubs.
#[derive(Parser, Debug)]
#[command(name = "simpairs", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Scores every result in one file as one field and prints the standings (or JSON).
    Score(commands::score::Args),
    /// Runs the whole pipeline on a simulated national event and serves the live leaderboard.
    Demo(commands::demo::Args),
    /// The organiser's commands.
    #[command(subcommand)]
    Event(commands::event::EventCommand),
    /// A club's commands.
    #[command(subcommand)]
    Club(commands::club::ClubCommand),
    /// Runs the aggregator: applies sealed submissions and rescores the boards.
    Aggregate(commands::aggregate::Args),
    /// Runs the projection and serves the live leaderboard over HTTP.
    Serve(commands::serve::Args),
    /// Rebuilds an event from its log (as of any moment) and scores it.
    Replay(commands::replay::Args),
    /// Lists every submission of an event (applied, superseded or set aside, with reasons and
    /// warnings), every record set aside, the uploads not complete and the clubs not in yet: the
    /// director's view.
    Submissions(commands::submissions::Args),
    /// Writes an event's whole history as Parquet (or CSV) tables: results, submissions,
    /// standings after each generation.
    Export(commands::export::Args),
    /// Scores an event two ways (or at two moments) side by side: the pairs that moved.
    Compare(commands::compare::Args),
    /// A player's season: events, partners, percentages and places.
    History(commands::history::Args),
    /// Checks the embedded log for lost or damaged records, and cuts what a crash leaves.
    #[command(subcommand)]
    Log(commands::log::LogCommand),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        // Colours only on a terminal: a log file or a service's journal gets plain words.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Score(args) => commands::score::run(args),
        Command::Demo(args) => commands::demo::run(args),
        Command::Event(command) => commands::event::run(command),
        Command::Club(command) => commands::club::run(command),
        Command::Aggregate(args) => commands::aggregate::run(args),
        Command::Serve(args) => commands::serve::run(args),
        Command::Replay(args) => commands::replay::run(args),
        Command::Submissions(args) => commands::submissions::run(args),
        Command::Export(args) => commands::export::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::History(args) => commands::history::run(args),
        Command::Log(command) => return commands::log::run(command),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("simpairs: {}", error_text(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes, as `{:#}` shows them, but each cause once: a message that already
/// holds its cause's words (most say "...: {cause}", and keep the cause as their source) is not
/// followed by them again.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let words = cause.to_string();
        if !text.contains(&words) {
            text.push_str(": ");
            text.push_str(&words);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::error_text;

    #[test]
    fn causes_a_message_already_says_are_not_repeated() {
        let key = simpairs_pipeline::KeyError::Declared(simpairs_events::KeyError::Length(3));
        let e = anyhow::Error::new(simpairs_pipeline::Error::from(key)).context("reading x");
        assert_eq!(
            error_text(&e),
            "reading x: a declared key: a public key is 32 bytes, not 3"
        );
        let io = std::io::Error::other("disk gone");
        let e = anyhow::Error::new(io).context("writing y");
        assert_eq!(error_text(&e), "writing y: disk gone");
    }
}
