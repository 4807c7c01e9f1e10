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
    let aggregators = open_each(&log, &events, &key, args.event.is_none())?;
    let results: Vec<anyhow::Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = aggregators
            .into_iter()
            .map(|(event, mut aggregator)| {
                let (stop, options) = (stop.clone(), options.clone());
                scope.spawn(move || -> anyhow::Result<()> {
                    let mut batches = 0;
                    aggregator.run(&options, &stop, |batch| {
                        batches += 1;
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
                    if batches == 0 && options.until_idle {
                        eprintln!("{event}: nothing new to aggregate: everything published is applied");
                    }
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

/// Opens an aggregator of each event. Without `--event` (`every`), an event this key does not
/// sign for is left to its own aggregator, with a note; none at all is an error.
fn open_each<'e>(
    log: &std::sync::Arc<dyn simpairs_log::Log>,
    events: &'e [String],
    key: &simpairs_events::PrivateKey,
    every: bool,
) -> anyhow::Result<Vec<(&'e String, Aggregator)>> {
    let mut opened = Vec::new();
    let mut others = Vec::new();
    for event in events {
        match Aggregator::open(log.clone(), event, key.clone()) {
            Ok(aggregator) => opened.push((event, aggregator)),
            Err(simpairs_pipeline::Error::Key(simpairs_pipeline::KeyError::NotAggregators {
                ..
            })) if every && events.len() > 1 => others.push(event.as_str()),
            Err(e) => return Err(e.into()),
        }
    }
    if opened.is_empty() {
        anyhow::bail!(
            "this key ({}) is not the aggregator key of any event in the log ({}): give the \
             event's aggregator.key, and --event to name one",
            key.public().id(),
            others.join(", ")
        );
    }
    for event in others {
        eprintln!(
            "note: event {event} is not aggregated here: this key is not one of its aggregator \
             keys (run its aggregator with its aggregator.key and --event {event})"
        );
    }
    Ok(opened)
}
