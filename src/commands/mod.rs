//! One module per subcommand; shared flag types live here.

pub mod aggregate;
pub mod bench;
pub mod bench_pipeline;
pub mod club;
pub mod demo;
pub mod event;
pub mod replay;
pub mod score;
pub mod serve;

use clap::ValueEnum;
use simpairs_scoring::{Factoring, FouledMethod, Method, Options, Scale};

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

/// The scoring flags shared by `score`, `replay` and `event declare`.
#[derive(clap::Args, Debug, Clone, Copy)]
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
}

impl ScoringFlags {
    /// The scoring options, with `method` and `factoring` when the flags do not say.
    pub fn options(&self, method: Method, factoring: Factoring) -> Options {
        Options {
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

/// Opens the log a `--log` flag names.
pub fn open_log(
    location: &simpairs_pipeline::LogLocation,
) -> anyhow::Result<std::sync::Arc<dyn simpairs_log::Log>> {
    match location {
        simpairs_pipeline::LogLocation::Embedded(dir) => {
            Ok(simpairs_pipeline::streams::open_embedded(dir)?)
        }
        simpairs_pipeline::LogLocation::Kafka { .. } => {
            // Settings beyond the brokers (security protocol, SASL, TLS files, client id) come from
            // the environment (SIMPAIRS_KAFKA_*): see the simpairs-kafka crate's documentation.
            Ok(std::sync::Arc::new(simpairs_kafka::KafkaLog::open(
                &location.to_string(),
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
