//! `simpairs score FILE`: offline scoring of every result in one file as one field.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::ValueEnum;
use simpairs_formats::{Format, Imported};
use simpairs_scoring::{Factoring, Method};

use super::ScoringFlags;

/// `--format`
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    /// The traveller CSV (docs/rules-input.md, "Traveller CSV").
    Csv,
    /// USEBIO 1.2 / 1.3 results XML.
    Usebio,
    /// The session XML of NZ Bridge's club program Scorer.
    Scorer,
    /// PBN 2.1 with [ScoreTable] travellers.
    Pbn,
    /// The traveller-entry CSV of R. Hillyard's Bridge director program.
    HillyardCsv,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Csv => Format::Csv,
            FormatArg::Usebio => Format::Usebio,
            FormatArg::Scorer => Format::Scorer,
            FormatArg::Pbn => Format::Pbn,
            FormatArg::HillyardCsv => Format::HillyardCsv,
        }
    }
}

/// What `score --help` says after the flags.
const AFTER_HELP: &str = "\
Every line of the file is checked. A line that is not a result (a contract that does not exist, \
more than 13 tricks, a score that is no bridge score) refuses the whole file: each problem is printed \
as `file:line: field name: what is wrong` and the exit code is 1.

A recorded score stands: when a line gives a contract and a score that disagree, the recorded score \
is what the director ruled and is the one scored. A score given alone, and an assigned score (a \
split score, a director's award), need only be a possible bridge score (a multiple of 10 from -7600 \
to 7600), even if no contract makes it at the board's vulnerability. Both are scored and reported \
on stderr as `warning: file:line: field name: ...`; --json lists them under \"warnings\" (file, \
line, field, message).

Players' names are printed beside their pair when the file has them; --travellers shows each \
table's contract, result and declarer (4S+1 N, 3NTX-2 E, PASS) and lead.

--check compares simpairs' figures with the official ones the file carries (each line's \
matchpoints or IMPs, each pair's total, percentage and place) at the file's own precision, and \
prints each difference with the conventions under which it would agree; the exit code is 2 when \
a difference no convention explains remains.";

/// `score --help`'s closing text: the checks, then the conventions.
fn after_help() -> String {
    format!("{AFTER_HELP}\n\n{}", super::CONVENTIONS_HELP)
}

#[derive(clap::Args, Debug)]
#[command(after_long_help = after_help())]
pub struct Args {
    /// The result file: a traveller CSV, USEBIO or Scorer XML, or PBN (the format is detected).
    pub file: PathBuf,
    /// The file's format, when detection (from the content, then the extension) is not wanted.
    #[arg(long, value_enum, env = "SIMPAIRS_FORMAT")]
    pub format: Option<FormatArg>,
    #[command(flatten)]
    pub scoring: ScoringFlags,
    /// Print JSON (README, "JSON") instead of a table (with the players' names and the file's warnings
    /// when it has any).
    #[arg(long)]
    pub json: bool,
    /// Also print every board's traveller: each table's contract and lead as the file gives them,
    /// its score and its matchpoints or IMPs.
    #[arg(long)]
    pub travellers: bool,
    /// Compare the file's official figures with ours and name the conventions that explain each
    /// difference (or the file's own way of writing it: totals that are its percentages written
    /// again); exit code 2 when a difference remains unexplained.
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub export: super::rescored::ExportFlag,
}

/// The title printed above the table: the file, then what the file says about its event.
fn title(name: &str, imported: &Imported) -> String {
    let e = &imported.event;
    let about: Vec<&str> = [e.name.as_deref(), e.club_name.as_deref(), e.date.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    if about.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({})", about.join(", "))
    }
}

/// Reads and checks a results file: a large plain traveller CSV chunk by chunk as it is parsed
/// (no buffer the size of the file), anything else whole.
fn read_results(
    path: &std::path::Path,
    name: &str,
    format: Option<Format>,
) -> anyhow::Result<simpairs_formats::Imported> {
    use std::os::unix::fs::FileExt;
    let started = std::time::Instant::now();
    let file = std::fs::File::open(path).with_context(|| format!("cannot read {name}"))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {name}"))?;
    if meta.is_file() {
        let fetch = |at: u64, buffer: &mut [u8]| file.read_exact_at(buffer, at);
        if let Some(imported) = simpairs_formats::read_ranged(name, meta.len(), &fetch, format)? {
            return Ok(imported);
        }
    }
    let bytes = super::read_file(path).with_context(|| format!("cannot read {name}"))?;
    tracing::debug!(elapsed = ?started.elapsed(), bytes = bytes.len(), "file read");
    Ok(simpairs_formats::read(name, &bytes, format)?)
}

/// The method the file is scored by: the file's own, matchpoints when it does not say. A method the
/// file names that simpairs cannot score is refused unless `--scoring` chose another (`chosen`).
fn method(name: &str, imported: &Imported, chosen: bool) -> anyhow::Result<Method> {
    if let Some(what) = &imported.event.unscorable_method {
        if !chosen {
            bail!(
                "{name}: the file says the event is scored by {what}, which simpairs cannot score; give \
                 --scoring mp, butler or cross-imps to score it by one of those instead"
            );
        }
        eprintln!(
            "warning: {name}: the file says the event is scored by {what}; scored as --scoring says"
        );
    }
    Ok(imported.method().unwrap_or(Method::Matchpoints))
}

/// Exit code of `--check` when a difference no convention explains remains.
const UNEXPLAINED_EXIT: i32 = 2;

/// `--check`: the file's official figures beside ours, each difference with what explains it.
fn check(
    name: &str,
    imported: &Imported,
    options: &simpairs_scoring::Options,
) -> anyhow::Result<()> {
    if imported.official.lines.is_empty() && imported.official.pairs.is_empty() {
        bail!("{name}: the file has no official figures to check against");
    }
    let check = simpairs_formats::check::check(imported, options)?;
    print_warnings(&imported.warnings);
    let mut stdout = std::io::stdout().lock();
    let _ = write!(stdout, "{}", check.report(&options.conventions));
    let _ = stdout.flush();
    if check.unexplained() > 0 {
        eprintln!(
            "simpairs: {name}: {} of {} differences with the official figures are unexplained",
            check.unexplained(),
            check.differences.len()
        );
        std::process::exit(UNEXPLAINED_EXIT);
    }
    Ok(())
}

/// Most warnings printed on stderr; the JSON lists them all.
const MAX_WARNINGS_SHOWN: usize = 100;

/// Prints the file's warnings on stderr, each as `warning: file:line: field name: what`.
fn print_warnings(warnings: &[simpairs_formats::Problem]) {
    let mut stderr = std::io::stderr().lock();
    for w in warnings.iter().take(MAX_WARNINGS_SHOWN) {
        let _ = writeln!(stderr, "warning: {w}");
    }
    if warnings.len() > MAX_WARNINGS_SHOWN {
        let _ = writeln!(
            stderr,
            "warning: ... and {} more warnings (--json lists them all)",
            warnings.len() - MAX_WARNINGS_SHOWN
        );
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let export = args.export.asked()?;
    let name = args.file.display().to_string();
    let started = std::time::Instant::now();
    let imported = read_results(&args.file, &name, args.format.map(Format::from))?;
    tracing::debug!(
        elapsed = ?started.elapsed(),
        format = %imported.format,
        results = imported.field.len(),
        not_played = imported.not_played,
        "parsed and checked"
    );
    let method = method(&name, &imported, args.scoring.scoring.is_some())?;
    let options = args.scoring.options(method, Factoring::Neuberg);
    if args.check {
        return check(&name, &imported, &options);
    }
    let scoring = simpairs_scoring::score(&imported.field, &options)?;
    tracing::debug!(elapsed = ?started.elapsed(), "scored");
    print_warnings(&imported.warnings);
    let stdout = super::report_output()?;
    let written = if args.json {
        simpairs_formats::report::write_imported_json(stdout, &imported, &scoring)
    } else {
        simpairs_formats::report::write_imported_table(
            stdout,
            &imported,
            &scoring,
            &title(&name, &imported),
            args.travellers,
        )
    };
    match written {
        // A closed pipe (`| head`) is not an error worth reporting.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.with_context(|| "cannot write the results".to_string()),
    }?;
    std::io::stdout().flush().ok();
    tracing::debug!(elapsed = ?started.elapsed(), "written");
    if let Some(export) = export {
        export.write(&imported, &scoring)?;
    }
    // The process ends with this command: its memory goes back to the system at once when it
    // exits, which is quicker than freeing a large file's columns, names and standings piece by
    // piece first (see docs/benchmarks.md, 2026-11-28 midday).
    std::mem::forget(scoring);
    std::mem::forget(imported);
    Ok(())
}
