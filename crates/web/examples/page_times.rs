//! Server time per page: loads an event from a log directory (the projection and the site's
//! catalog, as `simpairs serve` has them once caught up), then asks the router for each kind of
//! page many times and prints the median and 99th percentile of the time from request to the
//! last byte of the body.
//!
//! ```sh
//! cargo run --release -p simpairs-web --example page_times -- LOG_DIR [EVENT] [REQUESTS]
//! ```
//! `simpairs-bench --pipeline --pipeline-log DIR` leaves a 3,600,000-result event in `DIR`;
//! `simpairs demo --log DIR --exit-when-done` leaves the demo's.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use tower::ServiceExt;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

/// The pages to time: a name, and the addresses to ask for in turn.
fn pages(
    site: &simpairs_web::Site,
    rng: &mut fastrand::Rng,
    n: usize,
) -> Vec<(&'static str, Vec<String>)> {
    let p = site.projection();
    let catalog = site.catalog();
    let total = p.leaderboard("combined", 0, 0).0.max(1);
    let pairs: Vec<_> = (0..n)
        .map(|_| p.leaderboard("combined", rng.usize(..total), 1).1.remove(0))
        .collect();
    let clubs: Vec<&String> = catalog.clubs().keys().collect();
    let club = |rng: &mut fastrand::Rng| clubs[rng.usize(..clubs.len())].clone();
    let boards = p.boards.clone();
    let board = |rng: &mut fastrand::Rng| boards[rng.usize(..boards.len())];
    let words = [
        "smith",
        "mull",
        "zoe",
        "auckland 7",
        "wellington",
        "o'brien",
        "nguyen",
        "C0042",
    ];
    let pair_url = |s: &simpairs_events::types::PairStanding| {
        format!(
            "/pair/{}/{}?section={}&dir={}",
            s.club_id,
            s.pair,
            s.section,
            simpairs_pipeline::wire::direction_key(s.direction)
        )
    };
    vec![
        ("home", vec!["/".to_string()]),
        (
            "search",
            words
                .iter()
                .map(|w| format!("/search?q={}", w.replace(' ', "+")))
                .collect(),
        ),
        (
            "rankings, first page",
            vec!["/rankings?list=combined".to_string()],
        ),
        (
            "rankings, any page",
            (0..n)
                .map(|_| format!("/rankings?list=ns&offset={}", rng.usize(..total / 2)))
                .collect(),
        ),
        (
            "rankings, jump to a pair",
            pairs
                .iter()
                .map(|s| {
                    format!(
                        "/rankings?list=combined&me_club={}&me_section={}&me_pair={}&me_dir={}",
                        s.club_id,
                        s.section,
                        s.pair,
                        simpairs_pipeline::wire::direction_key(s.direction)
                    )
                })
                .collect(),
        ),
        (
            "rankings, one club's pairs",
            (0..n)
                .map(|_| format!("/rankings?list=combined&club={}", club(rng)))
                .collect(),
        ),
        ("clubs", vec!["/clubs".to_string()]),
        (
            "club",
            (0..n).map(|_| format!("/club/{}", club(rng))).collect(),
        ),
        ("scorecard", pairs.iter().map(pair_url).collect()),
        (
            "board, national",
            (0..n)
                .map(|_| format!("/board/{}?offset={}", board(rng), rng.usize(..total / 10)))
                .collect(),
        ),
        (
            "board, a club's",
            (0..n)
                .map(|_| format!("/board/{}?club={}&scope=club", board(rng), club(rng)))
                .collect(),
        ),
        ("director", vec!["/director".to_string()]),
        ("api status", vec!["/api/status".to_string()]),
    ]
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or_else(|| anyhow::anyhow!("usage: page_times LOG_DIR [EVENT] [REQUESTS]"))?;
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(std::path::Path::new(&dir))?);
    let event = args.next().filter(|e| !e.is_empty());
    let event = simpairs_pipeline::declare::pick_event(log.as_ref(), event.as_deref())?;
    let requests: usize = args.next().map_or(Ok(200), |n| n.parse())?;
    let started = Instant::now();
    let projection = simpairs_pipeline::project::Projection::load(log.as_ref(), &event)?;
    let loaded = started.elapsed();
    let site = simpairs_web::Site::loaded(projection);
    let catalogued = started.elapsed() - loaded;
    let read = Instant::now();
    site.read_log(log.as_ref())?;
    println!(
        "event {event}: {} results, {} pairs ranked; projection loaded in {loaded:.2?}, catalog built in {catalogued:.2?}, director's listing read in {:.2?}",
        site.projection().result_count(),
        site.projection().leaderboard("combined", 0, 0).0,
        read.elapsed()
    );
    let app = simpairs_web::router(simpairs_web::App::new(site.clone(), 16));
    let mut rng = fastrand::Rng::with_seed(19);
    println!(
        "{:<28} {:>10} {:>10} {:>10} {:>9}",
        "page", "median", "p99", "max", "bytes"
    );
    for (name, urls) in pages(&site, &mut rng, requests) {
        let mut times = Vec::with_capacity(requests);
        let mut bytes = 0;
        for i in 0..requests {
            let url = &urls[i % urls.len()];
            let t = Instant::now();
            let response = app
                .clone()
                .oneshot(Request::get(url.as_str()).body(Body::empty())?)
                .await?;
            let body = axum::body::to_bytes(response.into_body(), 64 << 20).await?;
            times.push(t.elapsed());
            bytes = bytes.max(body.len());
        }
        times.sort();
        println!(
            "{name:<28} {:>10.2?} {:>10.2?} {:>10.2?} {bytes:>9}",
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            times[times.len() - 1]
        );
    }
    Ok(())
}
