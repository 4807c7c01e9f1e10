//! The projection's service, through its router: the JSON API and the HTML pages agree with what the
//! aggregator wrote, and unknown things are 404s.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, RwLock};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};
use simpairs_pipeline::project::Projection;
use tower::ServiceExt;

const EVENT: &str = "http-test";

fn projection() -> Arc<RwLock<Projection>> {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 31,
        clubs: 12,
        boards: 6,
        adjusted_one_in: 40,
        ..Default::default()
    });
    let key = simpairs_sim::club_key;
    declare(
        log.as_ref(),
        Declaration::matchpoints(
            EVENT,
            "Club <night> & friends",
            6,
            event
                .clubs
                .iter()
                .map(|c| ClubLine {
                    club_id: c.id.clone(),
                    name: c.name.clone(),
                    public_key: Some(key(&c.id).public()),
                })
                .collect(),
            1,
        )
        .with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )
    .unwrap();
    for c in &event.clubs {
        simpairs_pipeline::publish::publish_file(
            log.as_ref(),
            EVENT,
            &c.id,
            &key(&c.id),
            "c.csv",
            c.csv.as_bytes(),
            None,
        )
        .unwrap();
    }
    let mut aggregator =
        Aggregator::open(log.clone(), EVENT, simpairs_sim::aggregator_key()).unwrap();
    aggregator
        .run(
            &AggregateOptions {
                until_idle: true,
                ..Default::default()
            },
            &AtomicBool::new(false),
            |_| {},
        )
        .unwrap();
    let p = Projection::load(log.as_ref(), EVENT).unwrap();
    Arc::new(RwLock::new(p))
}

async fn get(p: &Arc<RwLock<Projection>>, uri: &str) -> (StatusCode, String) {
    let response = simpairs_pipeline::http::router(p.clone())
        .oneshot(Request::builder().uri(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 16 << 20)
        .await
        .unwrap();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

#[tokio::test]
async fn api_and_pages() {
    let p = projection();
    let (status, body) = get(&p, "/api/status").await;
    assert_eq!(status, StatusCode::OK);
    let s: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(s["clubs"], 12);
    assert_eq!(s["generation"], 12);

    // NS list: places rise, ties share.
    let (_, body) = get(&p, "/api/leaderboard?list=ns&limit=10000").await;
    let l: serde_json::Value = serde_json::from_str(&body).unwrap();
    let rows = l["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r["direction"] == "NS"));
    let ranks: Vec<i64> = rows.iter().map(|r| r["rank"].as_i64().unwrap()).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
    assert_eq!(
        get(&p, "/api/leaderboard?list=sideways").await.0,
        StatusCode::BAD_REQUEST
    );

    // A pair's scorecard adds up to its national total.
    let first = &rows[0];
    let uri = format!(
        "/api/pair?club={}&section={}&pair={}&direction=NS",
        first["club_id"].as_str().unwrap(),
        first["section"].as_str().unwrap(),
        first["pair"].as_str().unwrap()
    );
    let (status, body) = get(&p, &uri).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let card: serde_json::Value = serde_json::from_str(&body).unwrap();
    let lines = card["lines"].as_array().unwrap();
    assert_eq!(lines.len() as i64, first["boards"].as_i64().unwrap());
    let sum: f64 = lines
        .iter()
        .map(|l| l["national_value"].as_f64().unwrap())
        .sum();
    let total = first["total_hundredths"].as_i64().unwrap() as f64 / 100.0;
    assert!(
        (sum - total).abs() < 0.006,
        "scorecard sums to {sum}, standing says {total}"
    );
    assert!(
        lines.iter().all(|l| l["club_value"].is_number()),
        "club values are shown too"
    );

    // A board's frequency table counts every result.
    let (_, body) = get(&p, "/api/boards/1").await;
    let b: serde_json::Value = serde_json::from_str(&body).unwrap();
    let counted: i64 = b["table"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["count"].as_i64().unwrap())
        .sum::<i64>()
        + b["specials"].as_array().unwrap().len() as i64;
    assert_eq!(counted, b["results_count"].as_i64().unwrap());

    // Pages.
    let (status, html) = get(&p, "/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("Club &lt;night&gt; &amp; friends"),
        "the event name is escaped"
    );
    assert!(html.contains("<table>") && html.contains("/pair?club="));
    let club = first["club_id"].as_str().unwrap();
    assert_eq!(get(&p, &format!("/club/{club}")).await.0, StatusCode::OK);
    let section = first["section"].as_str().unwrap();
    let (status, html) = get(
        &p,
        &format!(
            "/pair?club={club}&section={section}&pair={}&direction=NS",
            first["pair"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("scorecard") && html.contains("National"),
        "{html}"
    );
    assert_eq!(get(&p, "/board/1").await.0, StatusCode::OK);
    assert_eq!(get(&p, "/club/NOPE").await.0, StatusCode::NOT_FOUND);
    assert_eq!(get(&p, "/board/99").await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        get(&p, "/pair?club=NOPE&pair=1").await.0,
        StatusCode::NOT_FOUND
    );
}
