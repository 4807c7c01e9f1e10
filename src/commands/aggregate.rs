//! `simpairs aggregate`: the aggregator role.

use std::sync::atomic::Ordering;

use simpairs_pipeline::LogLocation;
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    /// The event to aggregate (default: every event of the log).
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: Option<String>,
    /// Stop when the results stream is drained instead of waiting for more.
    #[arg(long)]
    pub until_idle: bool,
    /// This aggregator's name among the event's aggregators (default: the host name); a restarted
    /// aggregator with the same name resumes where it stopped. Several instances are standbys of
    /// each other: each reads everything and publishes everything.
    #[arg(long, env = "SIMPAIRS_INSTANCE")]
    pub instance: Option<String>,
    /// Most records read and handled at once (one rescoring, one commit): smaller batches hold
    /// less in memory; much smaller ones (a few thousand records) catch up more slowly.
    #[arg(long, env = "SIMPAIRS_BATCH", default_value_t = AggregateOptions::default().batch)]
    pub batch: usize,
    /// The aggregator's private key file (aggregator.key, made when the event was declared): it
    /// signs what the aggregator derives, and readers accept nothing unsigned.
    #[arg(long, env = "SIMPAIRS_AGGREGATOR_KEY")]
    pub key: std::path::PathBuf,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let log = super::open_log(&args.log, &args.kafka)?;
    let key = simpairs_pipeline::keys::read_private(&args.key)?;
    let events: Vec<String> = match &args.event {
        Some(e) => vec![simpairs_pipeline::declare::pick_event(
            log.as_ref(),
            Some(e),
        )?],
        None => simpairs_pipeline::declare::events(log.as_ref())?
            .into_iter()
            .map(|e| e.event_id)
            .collect(),
    };
    if events.is_empty() {
        anyhow::bail!(
            "no event is declared in {}; run simpairs event declare first",
            args.log
        );
    }
    let stop = super::stop_on_signal();
    let instance = args
        .instance
        .clone()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .filter(|i| !i.is_empty())
        .unwrap_or_else(|| "main".into());
    let options = AggregateOptions {
        until_idle: args.until_idle,
        instance,
        batch: args.batch.max(1),
        ..AggregateOptions::default()
    };
    let results: Vec<anyhow::Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = events
            .iter()
            .map(|event| {
                let (log, stop, options, key) = (log.clone(), stop.clone(), options.clone(), key.clone());
                scope.spawn(move || -> anyhow::Result<()> {
                    let mut aggregator = Aggregator::open(log, event, key)?;
                    aggregator.run(&options, &stop, |batch| {
                        eprintln!(
                            "{event}: generation {}: {} submission(s) applied, {} set aside; {} clubs, {} results ({} ms)",
                            batch.generation,
                            batch.submissions_applied,
                            batch.dead_letters,
                            batch.clubs,
                            batch.results,
                            batch.elapsed.as_millis()
                        );
                    })?;
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("an aggregator thread failed")))
            })
            .collect()
    });
    stop.store(true, Ordering::Relaxed);
    for r in results {
        r?;
    }
    Ok(())
}
