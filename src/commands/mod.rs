//! One module per subcommand; shared flag types live here.

pub mod aggregate;
pub mod club;
pub mod compare;
pub mod demo;
pub mod event;
pub mod export;
pub mod history;
pub mod log;
pub mod replay;
pub mod replay_index;
pub mod rescored;
pub mod score;
pub mod serve;
pub mod submissions;

use clap::ValueEnum;
use simpairs_scoring::{Conventions, Factoring, FouledMethod, Method, Options, Scale};

/// `--scoring`
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum ScoringArg {
    #[default]
    Mp,
    Butler,
    CrossImps,
}

/// `--factoring`
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum FactoringArg {
    #[default]
    Neuberg,
    Ratio,
}

/// `--fouled`
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum FouledArg {
    #[default]
    Neuberg,
    AddOne,
}

/// `--scale`
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum ScaleArg {
    #[default]
    Double,
    Single,
}

/// What `--conventions` says in `--help` after the flags (docs/rules.md has the whole story).
pub const CONVENTIONS_HELP: &str = "\
Conventions (--conventions NAME[,key=value...]): where the source documents leave a choice, each \
club program makes its own; a preset names one program's choices, and each choice is also a flag \
of its own (--missing, --artificial, --short-lines, --lines, --totals, --scale-totals, --datum, \
--trim-from), which overrides the preset.
  seeds        the source documents (default): Neuberg for boards played fewer times and beside \
artificial scores, exact values printed to 2 decimals, totals unscaled, Butler datum the mean \
less 20% at each end (from 3 results)
  ebu          English Bridge Union (EBUScore): Neuberg throughout, as the seeds
  acbl         ACBL (ACBLscore): Neuberg throughout, as the seeds (show the ACBL's scale with \
--scale single)
  compscore    Compscore (Australia): a board played fewer times shows its raw matchpoints on \
the traveller (factored in the totals only); lines printed to 0.1 with halves to even; a pair's \
total scaled to the most boards played (124 x 27/26 = 128.77), printed to 0.01 halves to even
  scorebridge  ScoreBridge (UK), default 'simple' scoring: each missing result, and each \
artificial score, counts as a tie with every result of the board (seed 002's manual method)
  jfr          JFR Pary (Poland): results beside an artificial score compared among themselves, \
unfactored; Butler datum the median
  nz-scorer    NZ Bridge Scorer: line matchpoints truncated to 0.1
--check compares the file's official figures with ours and names the conventions that explain \
each difference.";

/// A value of one `--conventions` choice flag, checked when the command line is read.
fn choice(key: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone {
    move |value: &str| {
        let mut c = Conventions::SEEDS;
        c.set(key, &value.trim().to_ascii_lowercase())
            .map(|_| value.trim().to_ascii_lowercase())
            .map_err(|e| e.to_string())
    }
}

/// The conventions flags: a preset and each choice on its own.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(next_help_heading = "Conventions (see the end of --help and docs/rules.md)")]
pub struct ConventionsFlags {
    /// A scoring program's conventions: seeds (default), ebu, acbl, compscore, scorebridge, jfr or
    /// nz-scorer, optionally with overrides (compscore,scale-totals=no).
    #[arg(long, env = "SIMPAIRS_CONVENTIONS", value_name = "NAME")]
    pub conventions: Option<Conventions>,
    /// Boards played fewer times: factor (by --factoring) or tie (each missing result a tie).
    #[arg(long, value_parser = choice("missing"), value_name = "factor|tie")]
    pub missing: Option<String>,
    /// Results beside an artificial score: neuberg, ratio, tie or none (compared among themselves).
    #[arg(long, value_parser = choice("artificial"), value_name = "neuberg|ratio|tie|none")]
    pub artificial: Option<String>,
    /// Traveller lines of a board played fewer times: factored, or raw (factored in totals only).
    #[arg(long, value_parser = choice("short-lines"), value_name = "factored|raw")]
    pub short_lines: Option<String>,
    /// How line values are printed: exact, round-0.1, round-0.1-even, truncate-0.1, round-0.01, ...
    #[arg(long, value_parser = choice("lines"), value_name = "ROUNDING")]
    pub lines: Option<String>,
    /// How pair totals are printed: exact, round-0.01-even, truncate-0.1, ...
    #[arg(long, value_parser = choice("totals"), value_name = "ROUNDING")]
    pub totals: Option<String>,
    /// Print a pair's total scaled to the most boards any pair played: yes or no.
    #[arg(long, value_parser = choice("scale-totals"), value_name = "yes|no")]
    pub scale_totals: Option<String>,
    /// Butler datum: mean (trimmed) or median.
    #[arg(long, value_parser = choice("datum"), value_name = "mean|median")]
    pub datum: Option<String>,
    /// Butler: the fewest results a board needs before its top and bottom scores are dropped.
    #[arg(long, value_parser = choice("trim-from"), value_name = "N")]
    pub trim_from: Option<String>,
}

impl ConventionsFlags {
    /// The conventions: `--conventions` (else `declared`), then each choice flag over it.
    pub fn conventions(&self, declared: Conventions) -> Conventions {
        let mut c = self.conventions.unwrap_or(declared);
        let flags = [
            ("missing", &self.missing),
            ("artificial", &self.artificial),
            ("short-lines", &self.short_lines),
            ("lines", &self.lines),
            ("totals", &self.totals),
            ("scale-totals", &self.scale_totals),
            ("datum", &self.datum),
            ("trim-from", &self.trim_from),
        ];
        for (key, value) in flags {
            if let Some(value) = value {
                // Checked when the command line was read (`choice`).
                let _ = c.set(key, value);
            }
        }
        c
    }
}

/// The scoring flags shared by `score`, `replay` and `event declare`.
#[derive(clap::Args, Debug, Clone)]
pub struct ScoringFlags {
    /// Matchpoints, Butler IMPs or cross-IMPs.
    #[arg(long, value_enum, env = "SIMPAIRS_SCORING")]
    pub scoring: Option<ScoringArg>,
    /// How boards played fewer times than others are factored up.
    #[arg(long, value_enum, env = "SIMPAIRS_FACTORING")]
    pub factoring: Option<FactoringArg>,
    /// How the groups of a fouled board are brought to the whole board.
    #[arg(long, value_enum, default_value = "neuberg", env = "SIMPAIRS_FOULED")]
    pub fouled: FouledArg,
    /// Scale matchpoints are shown on (percentages are the same).
    #[arg(long, value_enum, default_value = "double", env = "SIMPAIRS_SCALE")]
    pub scale: ScaleArg,
    /// Butler: percent of scores dropped at each end before averaging.
    #[arg(long, default_value_t = 20, env = "SIMPAIRS_BUTLER_TRIM")]
    pub butler_trim: u32,
    #[command(flatten)]
    pub conventions: ConventionsFlags,
}

impl ScoringFlags {
    /// The scoring options, with `method` and `factoring` when the flags do not say (and the seeds'
    /// conventions unless they do).
    pub fn options(&self, method: Method, factoring: Factoring) -> Options {
        self.options_with(method, factoring, Conventions::SEEDS)
    }

    /// The scoring options, with `method`, `factoring` and `conventions` (an event's declared ones)
    /// when the flags do not say.
    pub fn options_with(
        &self,
        method: Method,
        factoring: Factoring,
        conventions: Conventions,
    ) -> Options {
        Options {
            conventions: self.conventions.conventions(conventions),
            method: match self.scoring {
                None => method,
                Some(ScoringArg::Mp) => Method::Matchpoints,
                Some(ScoringArg::Butler) => Method::Butler,
                Some(ScoringArg::CrossImps) => Method::CrossImps,
            },
            factoring: match self.factoring {
                None => factoring,
                Some(FactoringArg::Neuberg) => Factoring::Neuberg,
                Some(FactoringArg::Ratio) => Factoring::Ratio,
            },
            fouled: match self.fouled {
                FouledArg::Neuberg => FouledMethod::Neuberg,
                FouledArg::AddOne => FouledMethod::AddOne,
            },
            scale: match self.scale {
                ScaleArg::Double => Scale::Double,
                ScaleArg::Single => Scale::Single,
            },
            butler_trim_percent: self.butler_trim,
        }
    }
}

/// Standard output for a report: the file or pipe itself, not the standard library's line
/// buffering, which searches everything written for a line end (a national field's JSON is
/// hundreds of megabytes on one line). The report's writer buffers it.
pub fn report_output() -> std::io::Result<std::fs::File> {
    use std::io::Write;
    use std::os::fd::AsFd;
    std::io::stdout().flush()?;
    let stdout = std::io::stdout().as_fd().try_clone_to_owned()?;
    Ok(std::fs::File::from(stdout))
}

/// Reads a whole file with one positioned read per thread into disjoint parts of one buffer: a large
/// results file is read about twice as fast as by one `read`, since the page copies run in parallel.
pub fn read_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    const PARALLEL_FROM: usize = 16 << 20;
    let file = std::fs::File::open(path)?;
    let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
    if len < PARALLEL_FROM {
        return std::fs::read(path);
    }
    let mut buffer = vec![0u8; len];
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 8);
    let per = len.div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = buffer
            .chunks_mut(per)
            .enumerate()
            .map(|(i, part)| {
                let file = &file;
                scope.spawn(move || file.read_exact_at(part, (i * per) as u64))
            })
            .collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err(std::io::Error::other("a reading thread failed")))
        })
    })?;
    Ok(buffer)
}

/// Opens the log a `--log` flag names, which must be there: an embedded log is made only by
/// `event declare` ([`create_log`]), so a mistyped directory is said to be one, not made.
pub fn open_log(
    location: &simpairs_pipeline::LogLocation,
    kafka: &simpairs_kafka::KafkaFlags,
) -> anyhow::Result<std::sync::Arc<dyn simpairs_log::Log>> {
    if let simpairs_pipeline::LogLocation::Embedded(dir) = location {
        simpairs_pipeline::streams::check_embedded(dir)?;
    }
    create_log(location, kafka)
}

/// Opens the log a `--log` flag names, making an embedded log's directory if it is not there; a
/// Kafka log with the command's `--kafka-*` flags.
pub fn create_log(
    location: &simpairs_pipeline::LogLocation,
    kafka: &simpairs_kafka::KafkaFlags,
) -> anyhow::Result<std::sync::Arc<dyn simpairs_log::Log>> {
    match location {
        simpairs_pipeline::LogLocation::Embedded(dir) => {
            Ok(simpairs_pipeline::streams::open_embedded(dir)?)
        }
        simpairs_pipeline::LogLocation::Kafka { .. } => {
            let config = kafka.config(&location.to_string())?;
            Ok(std::sync::Arc::new(simpairs_kafka::KafkaLog::connect(
                config,
            )?))
        }
        other => anyhow::bail!("unsupported log location {other}"),
    }
}

/// Stops long-running roles on Ctrl-C (SIGINT) or SIGTERM.
pub fn stop_on_signal() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(signal, stop.clone());
    }
    stop
}
