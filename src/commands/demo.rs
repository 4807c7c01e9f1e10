//! `simpairs demo`: the whole pipeline in one process on the embedded log, over a simulated national
//! simultaneous pairs event: hundreds of clubs of different sizes publish over a couple of minutes while
//! the aggregator rescores and the projection serves the live leaderboard. A forged upload, a late club
//! and a correction are part of the show. The event is the same for the same `--seed`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use sha2::{Digest, Sha256};
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Seed of the simulated event.
    #[arg(long, default_value_t = 2026)]
    pub seed: u64,
    /// Clubs taking part.
    #[arg(long, default_value_t = 300)]
    pub clubs: usize,
    /// Boards in play.
    #[arg(long, default_value_t = 27)]
    pub boards: u16,
    /// Seconds over which the clubs publish.
    #[arg(long, default_value_t = 120)]
    pub publish_seconds: u64,
    /// Log directory (default: a fresh directory under the system's temporary directory).
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Address of the leaderboard web page (another free port is used if this one is taken).
    #[arg(long, default_value = "127.0.0.1:8080", env = "SIMPAIRS_LISTEN")]
    pub listen: SocketAddr,
    /// Stop once every club is in and the leaderboard shows it (instead of serving until Ctrl-C).
    #[arg(long)]
    pub exit_when_done: bool,
    #[command(flatten)]
    pub web: super::serve::WebArgs,
}

/// Marks a directory as a demo's log, so that the next demo may clear it.
const MARKER: &str = ".simpairs-demo";

fn fresh_dir(args: &Args) -> anyhow::Result<PathBuf> {
    let dir = args
        .log
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("simpairs-demo-{}", args.seed)));
    if dir.exists() {
        let is_empty = std::fs::read_dir(&dir)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !is_empty && !dir.join(MARKER).exists() {
            anyhow::bail!(
                "{} exists and is not a demo log; give --log an empty or new directory",
                dir.display()
            );
        }
        std::fs::remove_dir_all(&dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join(MARKER),
        b"a simpairs demo log; simpairs demo clears it\n",
    )?;
    Ok(dir)
}

/// The demo's club keys are derived from the seed, so that a demo can be rerun with the same files.
fn demo_key(seed: u64, club: &str) -> simpairs_events::PrivateKey {
    let mut h = Sha256::new();
    h.update(b"simpairs demo key");
    h.update(seed.to_le_bytes());
    h.update(club.as_bytes());
    simpairs_events::PrivateKey::from_secret(h.finalize().into())
}

/// Progress shared between the roles and the display.
#[derive(Clone, Default)]
struct Progress {
    /// The generation the aggregator last wrote.
    applied: Arc<AtomicI64>,
    /// The generation the leaderboard shows.
    shown: Arc<AtomicI64>,
    /// From a seal to the leaderboard showing it, for the last generation shown.
    latency_ms: Arc<AtomicU64>,
    /// When each submission was published, by generation.
    published_at: Arc<Mutex<Vec<Instant>>>,
}

impl Progress {
    fn published_now(&self) {
        self.published_at
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Instant::now());
    }

    fn status(&self, bar: &indicatif::ProgressBar) {
        bar.set_message(format!(
            "leaderboard generation {} (applied {}), last seal-to-leaderboard {} ms",
            self.shown.load(Ordering::Relaxed),
            self.applied.load(Ordering::Relaxed),
            self.latency_ms.load(Ordering::Relaxed)
        ));
    }
}

/// Declares the demo's event, its clubs' keys derived from the seed.
fn declare_demo(
    log: &dyn simpairs_log::Log,
    event: &simpairs_sim::SimEvent,
    seed: u64,
    event_id: &str,
) -> anyhow::Result<()> {
    let clubs: Vec<ClubLine> = event
        .clubs
        .iter()
        .map(|c| ClubLine {
            club_id: c.id.clone(),
            name: c.name.clone(),
            public_key: Some(demo_key(seed, &c.id).public()),
        })
        .collect();
    declare(
        log,
        Declaration::matchpoints(
            event_id,
            &format!("Simulated national simultaneous pairs (seed {seed})"),
            event.boards,
            clubs,
            1,
        )
        .with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )?;
    Ok(())
}

type Role = std::thread::JoinHandle<anyhow::Result<()>>;

/// Runs the aggregator on a thread of its own until `stop`.
fn spawn_aggregator(
    log: Arc<dyn simpairs_log::Log>,
    event_id: String,
    stop: Arc<AtomicBool>,
    progress: &Progress,
) -> Role {
    let applied = progress.applied.clone();
    std::thread::spawn(move || -> anyhow::Result<()> {
        let mut aggregator = Aggregator::open(log, &event_id, simpairs_sim::aggregator_key())?;
        aggregator.run(&AggregateOptions::default(), &stop, |batch| {
            applied.store(batch.generation, Ordering::Relaxed);
        })?;
        Ok(())
    })
}

/// Serves the leaderboard on a thread of its own until `stop`; its address is sent on `url_tx`.
fn spawn_server(
    log: Arc<dyn simpairs_log::Log>,
    event_id: String,
    args: &Args,
    stop: Arc<AtomicBool>,
    progress: &Progress,
    url_tx: std::sync::mpsc::Sender<SocketAddr>,
) -> Role {
    let (listen, web) = (args.listen, args.web.clone());
    let (shown, latency_ms, published_at) = (
        progress.shown.clone(),
        progress.latency_ms.clone(),
        progress.published_at.clone(),
    );
    std::thread::spawn(move || -> anyhow::Result<()> {
        let on_generation = move |generation: i64| {
            shown.store(generation, Ordering::Relaxed);
            let times = published_at.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(t) = times.get((generation as usize).saturating_sub(1)) {
                latency_ms.store(t.elapsed().as_millis() as u64, Ordering::Relaxed);
            }
        };
        serve_demo(log, &event_id, listen, &web, stop, on_generation, url_tx)
    })
}

/// Publishes: every club but the last, spread over the publishing time; a forged upload; the late
/// club; a correction.
fn publish_clubs(
    args: &Args,
    event: &simpairs_sim::SimEvent,
    log: &dyn simpairs_log::Log,
    event_id: &str,
    stop: &AtomicBool,
    progress: &Progress,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<()> {
    let codec = simpairs_events::Codec::new()?;
    let on_time = event.clubs.len() - 1;
    let pause = Duration::from_millis(args.publish_seconds * 1000 / (on_time as u64 + 3));
    let publish = |club: &simpairs_sim::SimClub,
                   csv: &str,
                   key: &simpairs_events::PrivateKey,
                   what: &str|
     -> anyhow::Result<()> {
        let imported =
            simpairs_formats::import::read(&format!("{}.csv", club.id), csv.as_bytes(), None)?;
        let submission =
            simpairs_pipeline::publish::submission_events(event_id, &club.id, &imported)?;
        let sealed = simpairs_pipeline::publish::seal(
            &codec,
            event_id,
            &club.id,
            key,
            submission.events,
            simpairs_pipeline::publish::SealInfo {
                source: Some(what.to_string()),
                ..Default::default()
            },
        );
        simpairs_pipeline::publish::append_submission(log, &codec, event_id, &sealed)?;
        Ok(())
    };
    for club in &event.clubs[..on_time] {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        progress.published_now();
        let named = simpairs_sim::names::with_names(club, args.seed);
        publish(club, &named, &demo_key(args.seed, &club.id), "on time")?;
        bar.inc(1);
        progress.status(bar);
        std::thread::sleep(pause);
    }
    if stop.load(Ordering::Relaxed) {
        return Ok(());
    }
    // Someone tries to upload for club 2 without its key: set aside, nothing changes.
    let victim = &event.clubs[1];
    publish(
        victim,
        &victim.csv,
        &simpairs_events::PrivateKey::from_secret([0x5E; 32]),
        "forged",
    )?;
    say(
        bar,
        format!(
            "a forged upload for {} was sent (it goes to the dead-letter stream)",
            victim.id
        ),
    );
    std::thread::sleep(pause * 2);
    let late = &event.clubs[on_time];
    progress.published_now();
    let named = simpairs_sim::names::with_names(late, args.seed);
    publish(late, &named, &demo_key(args.seed, &late.id), "late")?;
    bar.inc(1);
    say(
        bar,
        format!(
            "late club {} ({}) is in: the whole event is rescored",
            late.id, late.name
        ),
    );
    std::thread::sleep(pause * 2);
    let (index, csv) = &event.correction;
    let corrected = &event.clubs[*index];
    progress.published_now();
    publish(
        corrected,
        csv,
        &demo_key(args.seed, &corrected.id),
        "correction",
    )?;
    say(
        bar,
        format!("{} corrected one traveller line", corrected.id),
    );
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let dir = fresh_dir(&args)?;
    let log = simpairs_pipeline::streams::open_embedded(&dir)?;
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: args.seed,
        clubs: args.clubs.max(2),
        boards: args.boards.max(1),
        ..Default::default()
    });
    let event_id = format!("demo-{}", args.seed);
    declare_demo(log.as_ref(), &event, args.seed, &event_id)?;
    let results_total: usize = event.clubs.iter().map(|c| c.results).sum();
    println!(
        "simpairs demo: {} clubs, {} boards, {} results; log in {}",
        event.clubs.len(),
        event.boards,
        results_total,
        dir.display()
    );

    let stop = super::stop_on_signal();
    let progress = Progress::default();
    let aggregator = spawn_aggregator(log.clone(), event_id.clone(), stop.clone(), &progress);
    let (url_tx, url_rx) = std::sync::mpsc::channel::<SocketAddr>();
    let server = spawn_server(
        log.clone(),
        event_id.clone(),
        &args,
        stop.clone(),
        &progress,
        url_tx,
    );
    let url = url_rx
        .recv_timeout(Duration::from_secs(10))
        .context("the web server did not start")?;
    println!("live leaderboard: http://{url}/");

    let bar = progress_bar(event.clubs.len() as u64);
    publish_clubs(
        &args,
        &event,
        log.as_ref(),
        &event_id,
        &stop,
        &progress,
        &bar,
    )?;
    let shown = &progress.shown;
    let expected = event.clubs.len() as i64 + 1;
    let waited = Instant::now();
    while shown.load(Ordering::Relaxed) < expected
        && !stop.load(Ordering::Relaxed)
        && waited.elapsed() < Duration::from_secs(120)
    {
        progress.status(&bar);
        std::thread::sleep(Duration::from_millis(100));
    }
    progress.status(&bar);
    bar.finish();
    println!(
        "all {} clubs are in (generation {}); leaderboard at http://{url}/",
        event.clubs.len(),
        shown.load(Ordering::Relaxed)
    );
    if !args.exit_when_done {
        println!("serving until Ctrl-C");
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    stop.store(true, Ordering::Relaxed);
    let a = aggregator
        .join()
        .map_err(|_| anyhow::anyhow!("the aggregator thread failed"))?;
    let s = server
        .join()
        .map_err(|_| anyhow::anyhow!("the server thread failed"))?;
    a?;
    s?;
    if shown.load(Ordering::Relaxed) < expected {
        anyhow::bail!(
            "the leaderboard shows generation {}, not {expected}",
            shown.load(Ordering::Relaxed)
        );
    }
    Ok(())
}

/// Serves the projection, on `listen` or, if it is taken, on a free port.
fn serve_demo(
    log: Arc<dyn simpairs_log::Log>,
    event_id: &str,
    listen: SocketAddr,
    web: &super::serve::WebArgs,
    stop: Arc<std::sync::atomic::AtomicBool>,
    on_generation: impl FnMut(i64) + Send + 'static,
    url: std::sync::mpsc::Sender<SocketAddr>,
) -> anyhow::Result<()> {
    let address = if std::net::TcpListener::bind(listen).is_ok() {
        listen
    } else {
        SocketAddr::new(listen.ip(), 0)
    };
    super::serve::serve_with(
        log,
        event_id,
        web.config(address, true),
        stop,
        on_generation,
        move |addr| {
            let _ = url.send(addr);
        },
    )
}

/// A line for people: above the bar on a terminal, on stderr otherwise.
fn say(bar: &indicatif::ProgressBar, line: String) {
    if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
}

fn progress_bar(len: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{elapsed_precise} clubs {pos}/{len} {bar:30} {msg}",
    ) {
        bar.set_style(style);
    }
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        // Not a terminal: a line every few seconds instead of a redrawn bar.
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        let b = bar.clone();
        std::thread::spawn(move || {
            while !b.is_finished() {
                eprintln!(
                    "clubs {}/{} {}",
                    b.position(),
                    b.length().unwrap_or(0),
                    b.message()
                );
                std::thread::sleep(Duration::from_secs(5));
            }
        });
    }
    bar
}
