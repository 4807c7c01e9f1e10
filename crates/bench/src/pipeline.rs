//! `simpairs-bench --pipeline`: the pipeline's speed on the embedded log (or the log of
//! `--pipeline-log`, such as a Kafka broker).
//!
//! - publish: clubs of a simulated national field (36 boards x 100,000 results by default) publish their
//!   submissions one after the other (read, check, seal, append with fsync), timed from the first to the
//!   last;
//! - ingest: an aggregator started on that log reads, verifies and applies every submission and writes
//!   its scores (in batches, as it would live), timed from its start to the commit of its last batch
//!   (the poll timeout that then tells it the log is drained is not counted);
//! - latency: with that field in, the aggregator and the projection run live in this process while new
//!   clubs of 30 tables publish one at a time; each is timed from its seal's append (records and seal
//!   in one durable append) to the projection's append of the leaderboard that includes it (its
//!   first 20 pairs), and to the projection showing that generation (every list and page), and also
//!   from the start of its publish (the club reading, checking and signing its file). Medians are
//!   reported;
//! - replay: `simpairs replay --json` of the event, with a fresh replay index and again, timed
//!   whole with its peak memory, and `simpairs serve` started on the log until its rankings page
//!   answers and lists the field (`serve.rs`; on the embedded log, where the `simpairs` program is
//!   found).

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use simpairs_pipeline::LogLocation;
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};
use simpairs_pipeline::project::{Projection, Update};
use simpairs_sim::club_key;

/// Figures of one pipeline measurement.
pub struct PipelineFigures {
    /// Which log: "embedded log" or the Kafka location.
    pub log: String,
    pub results: usize,
    pub clubs: usize,
    pub publish: Duration,
    pub ingest: Duration,
    /// How much the process's resident memory grew at its peak during the ingest, in bytes: the
    /// aggregator's state, a batch in flight and the log's pages it maps (`None` where the
    /// system does not say).
    pub ingest_memory: Option<u64>,
    /// Each new club's seal-to-leaderboard time: from the append of its sealed submission (its
    /// records and seal, one durable append) to the projection's append of the leaderboard that
    /// includes it (its first pairs, ranked before the rest of the field).
    pub latencies: Vec<Duration>,
    /// The same to the projection showing the generation that includes it: every list and page.
    pub standings: Vec<Duration>,
    /// The same from the start of the club's publish (reading and checking its file, reading the
    /// declaration, signing).
    pub from_publish: Vec<Duration>,
    /// From starting the live aggregator and projection on the ingested log until both are
    /// ready (the aggregator's state rebuilt from the log, the projection read to the end).
    pub restart: Duration,
    /// `simpairs replay --json` of the event once everything is in: the first (building the
    /// replay index), then again (reading it). `None` without a `simpairs` program or on a log
    /// the command line cannot be given here (Kafka, whose settings the bench holds itself).
    pub replays: Option<Replays>,
    /// `simpairs serve` started on the log with a fresh replay index, until its rankings page
    /// answers and until it lists a pair (`None` as for `replays`).
    pub first_page: Option<crate::serve::FirstPage>,
}

/// The two replays' runs (wall time and peak memory of the `simpairs replay` process).
pub struct Replays {
    pub first: crate::child::Run,
    pub again: crate::child::Run,
}

/// The log measured: `location`, or an embedded log in `dir`; with its name for the report.
fn open_bench_log(
    location: Option<&LogLocation>,
    kafka: &simpairs_kafka::KafkaFlags,
    dir: &std::path::Path,
) -> anyhow::Result<(Arc<dyn simpairs_log::Log>, String)> {
    Ok(match location {
        None => (
            Arc::new(simpairs_log::EmbeddedLog::open(dir)?),
            "embedded log".into(),
        ),
        Some(LogLocation::Embedded(dir)) => (
            simpairs_pipeline::streams::open_embedded(dir)?,
            "embedded log".into(),
        ),
        Some(l @ LogLocation::Kafka { .. }) => {
            let config = kafka.config(&l.to_string())?;
            (
                Arc::new(simpairs_kafka::KafkaLog::connect(config)?),
                l.to_string(),
            )
        }
        Some(other) => anyhow::bail!("unsupported log location {other}"),
    })
}

/// A latency club's id as the bench declares and publishes it: `L` and its simulated id. The
/// latency clubs come from another simulated event, whose club ids are the field's own.
fn late_id(c: &simpairs_sim::SimClub) -> String {
    format!("L{}", c.id)
}

/// A latency club's id and its traveller CSV under that id.
pub(crate) fn late_club(c: &simpairs_sim::SimClub) -> (String, String) {
    let id = late_id(c);
    let csv = c.csv.replace(&format!(",{},", c.id), &format!(",{id},"));
    (id, csv)
}

/// The simulated field: the event, how many of its first clubs make up the results asked for,
/// and the latency clubs (30 tables or so, published one at a time).
pub(crate) fn bench_event(
    results_wanted: usize,
    boards: u16,
    new_clubs: usize,
) -> (simpairs_sim::SimEvent, usize, Vec<simpairs_sim::SimClub>) {
    // About 9 tables per club on average: clubs = results per board / 9.
    let per_board = results_wanted / boards as usize;
    let clubs = (per_board / 9).max(2);
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 4242,
        clubs: clubs + new_clubs,
        boards,
        howell_percent: 0,
        ..Default::default()
    });
    // The latency clubs have 30 tables: reuse the simulator's boards with a fixed size.
    let late = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 77,
        // About one club in eight has 20 tables or more.
        clubs: new_clubs * 20,
        boards,
        howell_percent: 0,
        ..Default::default()
    });
    let late: Vec<simpairs_sim::SimClub> = late
        .clubs
        .into_iter()
        .filter(|c| c.tables >= 20)
        .take(new_clubs)
        .collect();
    // The simulator's clubs are larger than 9 tables on average: the field is the first clubs that
    // make up the results asked for.
    let clubs = event
        .clubs
        .iter()
        .scan(0usize, |total, c| {
            let before = *total;
            *total += c.results;
            Some(before)
        })
        .take_while(|&before| before < results_wanted)
        .count()
        .max(2);
    (event, clubs, late)
}

/// Declares the bench's event: the field's clubs and the latency clubs (named `L<id>`).
fn declare_bench(
    log: &dyn simpairs_log::Log,
    event_id: &str,
    field: &[simpairs_sim::SimClub],
    late: &[simpairs_sim::SimClub],
    boards: u16,
    partitions: u32,
) -> anyhow::Result<()> {
    let mut lines: Vec<ClubLine> = field
        .iter()
        .map(|c| ClubLine {
            club_id: c.id.clone(),
            name: c.name.clone(),
            public_key: Some(club_key(&c.id).public()),
        })
        .collect();
    lines.extend(late.iter().map(|c| ClubLine {
        club_id: late_id(c),
        name: c.name.clone(),
        public_key: Some(club_key(&late_id(c)).public()),
    }));
    declare(
        log,
        Declaration::matchpoints(event_id, "bench", boards, lines, partitions).with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )?;
    Ok(())
}

/// Publishes the field's clubs, then ingests them all: the time of each, and the ingest's growth of
/// the resident memory at its peak.
fn publish_and_ingest(
    log: &Arc<dyn simpairs_log::Log>,
    event_id: &str,
    field: &[simpairs_sim::SimClub],
) -> anyhow::Result<(Duration, Duration, Option<u64>)> {
    let started = Instant::now();
    for c in field {
        simpairs_pipeline::publish::publish_file(
            log.as_ref(),
            event_id,
            &c.id,
            &club_key(&c.id),
            "club.csv",
            c.csv.as_bytes(),
            None,
        )?;
    }
    let publish = started.elapsed();

    let before = crate::reset_peak_rss().then(crate::current_rss).flatten();
    let mut aggregator = Aggregator::open(log.clone(), event_id, simpairs_sim::aggregator_key())?;
    let started = Instant::now();
    // Until the last batch is committed: the wait that tells `until_idle` that nothing more is
    // coming (a poll's timeout) is not ingest.
    let mut last_batch = started;
    aggregator.run(
        &AggregateOptions {
            until_idle: true,
            ..Default::default()
        },
        &AtomicBool::new(false),
        |_| last_batch = Instant::now(),
    )?;
    let grown = before
        .zip(crate::peak_rss())
        .map(|(before, peak)| peak.saturating_sub(before));
    Ok((publish, last_batch.duration_since(started), grown))
}

/// The generation the live projection shows, and when it showed each; the same of the
/// leaderboards it published.
#[derive(Clone, Default)]
struct Shown {
    /// The live aggregator has rebuilt its state from the log and reads new records.
    aggregator_ready: Arc<AtomicBool>,
    generation: Arc<AtomicI64>,
    at: Arc<RwLock<Vec<(i64, Instant)>>>,
    published: Arc<AtomicI64>,
    published_at: Arc<RwLock<Vec<(i64, Instant)>>>,
}

impl Shown {
    /// Notes what the projection has just done.
    fn note(&self, update: Update) {
        let (generation, last, at) = match update {
            Update::Published(g) => (g, &self.published, &self.published_at),
            Update::Shown(g) => (g, &self.generation, &self.at),
        };
        last.store(generation, Ordering::Relaxed);
        let mut at = at.write().unwrap_or_else(|e| e.into_inner());
        at.push((generation, Instant::now()));
    }

    /// When the first generation from `want` on was shown (or published), if it was.
    fn when(at: &RwLock<Vec<(i64, Instant)>>, want: i64) -> Option<Instant> {
        let at = at.read().unwrap_or_else(|e| e.into_inner());
        at.iter().find(|(g, _)| *g >= want).map(|(_, t)| *t)
    }
}

type Role = std::thread::JoinHandle<anyhow::Result<()>>;

/// Starts the live aggregator and projection threads, which run until `stop`.
fn spawn_live(
    log: &Arc<dyn simpairs_log::Log>,
    event_id: &str,
    stop: &Arc<AtomicBool>,
    shown: &Shown,
) -> (Role, Role, Arc<RwLock<Projection>>) {
    let live_aggregator = {
        let (log, stop, event_id) = (log.clone(), stop.clone(), event_id.to_string());
        let ready = shown.aggregator_ready.clone();
        std::thread::spawn(move || -> anyhow::Result<()> {
            let mut a = Aggregator::open(log, &event_id, simpairs_sim::aggregator_key())?;
            let options = AggregateOptions {
                ready: Some(ready),
                ..AggregateOptions::default()
            };
            a.run(&options, &stop, |_| {})?;
            Ok(())
        })
    };
    let projection = Arc::new(RwLock::new(Projection::new(event_id)));
    let live_projection = {
        let (log, stop, projection, shown, event_id) = (
            log.clone(),
            stop.clone(),
            projection.clone(),
            shown.clone(),
            event_id.to_string(),
        );
        std::thread::spawn(move || -> anyhow::Result<()> {
            simpairs_pipeline::project::run(log, &event_id, projection, &stop, true, |update| {
                shown.note(update)
            })?;
            Ok(())
        })
    };
    (live_aggregator, live_projection, projection)
}

/// The records the projection reads (every partition of its streams) as the log holds them now.
fn projection_end(log: &dyn simpairs_log::Log, event_id: &str) -> anyhow::Result<u64> {
    let mut end = 0;
    for stream in simpairs_pipeline::project::STREAMS {
        let name = simpairs_pipeline::stream_name(event_id, stream);
        for partition in 0..log.partitions(&name)? {
            end += log.end_offset(&name, partition)?;
        }
    }
    Ok(end)
}

/// What the live measurement gives: each new club's times, and how long the live roles took to
/// be ready on the ingested log.
struct Live {
    latencies: Vec<Duration>,
    standings: Vec<Duration>,
    from_publish: Vec<Duration>,
    restart: Duration,
}

/// Waits until the live roles started on the ingested log are ready; returns how long that took.
/// Timing starts once the projection has shown the whole field and read everything the ingest
/// wrote (the derived records after the last applied submission too), and the live aggregator
/// has rebuilt its state from the log: otherwise the first new club waits behind the ingest's
/// tail or the aggregator's restart, and times those, not the club. (A compacted Kafka topic has
/// gaps in its offsets: there, a count that stops moving for a second once the field is shown is
/// caught up too.)
fn wait_until_ready(
    log: &Arc<dyn simpairs_log::Log>,
    event_id: &str,
    base: i64,
    shown: &Shown,
    projection: &RwLock<Projection>,
    deadline: Instant,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let (mut last_read, mut moved) = (0, Instant::now());
    loop {
        let read = projection
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .records_read();
        if read != last_read {
            (last_read, moved) = (read, Instant::now());
        }
        let shown_all = shown.generation.load(Ordering::Relaxed) >= base
            && shown.aggregator_ready.load(Ordering::Relaxed);
        let read_all = read >= projection_end(log.as_ref(), event_id)?
            || moved.elapsed() > Duration::from_secs(1);
        if (shown_all && read_all) || Instant::now() > deadline {
            return Ok(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Live: aggregator and projection threads, then one new club at a time; each club's
/// seal-to-leaderboard and publish-to-leaderboard times.
fn live_latencies(
    log: &Arc<dyn simpairs_log::Log>,
    event_id: &str,
    clubs: usize,
    late: &[simpairs_sim::SimClub],
) -> anyhow::Result<Live> {
    let stop = Arc::new(AtomicBool::new(false));
    let shown = Shown::default();
    let (live_aggregator, live_projection, projection) = spawn_live(log, event_id, &stop, &shown);
    let base = clubs as i64;
    let deadline = Instant::now() + Duration::from_secs(600);
    let restart = wait_until_ready(log, event_id, base, &shown, &projection, deadline)?;
    let codec = simpairs_events::Codec::new()?;
    let (mut latencies, mut standings, mut from_publish) = (Vec::new(), Vec::new(), Vec::new());
    for (i, c) in late.iter().enumerate() {
        let (id, csv) = late_club(c);
        let publishing = Instant::now();
        let submission = simpairs_pipeline::publish::seal_file(
            &codec,
            log.as_ref(),
            event_id,
            &id,
            &club_key(&id),
            &simpairs_pipeline::publish::ClubFile {
                name: "late.csv",
                bytes: csv.as_bytes(),
                format: None,
                whole_session: false,
            },
        )?;
        // The seal goes out with the club's records in one durable append.
        let sealed = Instant::now();
        simpairs_pipeline::publish::append_submission(
            log.as_ref(),
            &codec,
            event_id,
            &submission.events,
        )?;
        // The next club waits until this one is both published and shown, so that each is timed
        // on its own.
        let want = base + i as i64 + 1;
        let behind = |last: &AtomicI64| last.load(Ordering::Relaxed) < want;
        while (behind(&shown.generation) || behind(&shown.published)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_micros(200));
        }
        let published = Shown::when(&shown.published_at, want);
        if let (Some(at), Some(shown_at)) = (published, Shown::when(&shown.at, want)) {
            let latency = at.saturating_duration_since(sealed);
            let all = shown_at.saturating_duration_since(sealed);
            tracing::info!(
                club = i + 1,
                ?latency,
                ?all,
                "seal to leaderboard, and to standings"
            );
            latencies.push(latency);
            standings.push(all);
            from_publish.push(at.saturating_duration_since(publishing));
        }
    }
    stop.store(true, Ordering::Relaxed);
    live_aggregator
        .join()
        .map_err(|_| anyhow::anyhow!("aggregator thread failed"))??;
    live_projection
        .join()
        .map_err(|_| anyhow::anyhow!("projection thread failed"))??;
    Ok(Live {
        latencies,
        standings,
        from_publish,
        restart,
    })
}

/// What the pipeline is measured on and with.
pub struct Setup<'a> {
    pub location: Option<&'a LogLocation>,
    pub kafka: &'a simpairs_kafka::KafkaFlags,
    pub partitions: u32,
    pub results_wanted: usize,
    pub boards: u16,
    pub new_clubs: usize,
    /// The `simpairs` program whose replays are timed (none: not timed).
    pub simpairs: Option<&'a std::path::Path>,
}

pub fn measure(setup: &Setup<'_>) -> anyhow::Result<PipelineFigures> {
    let Setup {
        location,
        kafka,
        partitions,
        results_wanted,
        boards,
        new_clubs,
        simpairs,
    } = *setup;
    let dir = tempfile::tempdir()?;
    let (log, log_name) = open_bench_log(location, kafka, dir.path())?;
    // A new event each run: on Kafka its topics are fresh.
    let event_id = format!(
        "bench-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis())
    );
    let event_id = event_id.as_str();
    let (event, clubs, late) = bench_event(results_wanted, boards, new_clubs);
    let field = &event.clubs[..clubs];
    declare_bench(log.as_ref(), event_id, field, &late, boards, partitions)?;
    let results: usize = field.iter().map(|c| c.results).sum();
    let (publish, ingest, ingest_memory) = publish_and_ingest(&log, event_id, field)?;
    let live = live_latencies(&log, event_id, clubs, &late)?;
    let on_disk = match location {
        None => Some(dir.path().to_path_buf()),
        Some(LogLocation::Embedded(d)) => Some(d.clone()),
        Some(_) => None,
    };
    let (replays, first_page) = match (simpairs, on_disk) {
        (Some(program), Some(log_dir)) => (
            Some(replays(program, &log_dir, event_id)?),
            Some(crate::serve::first_page(program, &log_dir, event_id)?),
        ),
        _ => (None, None),
    };
    Ok(PipelineFigures {
        log: log_name,
        results,
        clubs,
        publish,
        ingest,
        ingest_memory,
        latencies: live.latencies,
        standings: live.standings,
        from_publish: live.from_publish,
        restart: live.restart,
        replays,
        first_page,
    })
}

/// `simpairs replay --json` of the event, its JSON to nowhere: first with a fresh replay index
/// (every submission judged again, the index built), then again (the index read).
fn replays(
    program: &std::path::Path,
    log_dir: &std::path::Path,
    event_id: &str,
) -> anyhow::Result<Replays> {
    let index = tempfile::tempdir()?;
    let args: [&std::ffi::OsStr; 8] = [
        "replay".as_ref(),
        "--log".as_ref(),
        log_dir.as_os_str(),
        "--event".as_ref(),
        event_id.as_ref(),
        "--index-dir".as_ref(),
        index.path().as_os_str(),
        "--json".as_ref(),
    ];
    let first = crate::child::measure(program, &args)?;
    let again = crate::child::measure(program, &args)?;
    Ok(Replays { first, again })
}
