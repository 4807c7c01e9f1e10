//! The site's JSON API and pages through the router (moved here from the projection's former
//! service): the API agrees with what the aggregator wrote, and unknown things are 404s.

use crate::common;

use axum::http::StatusCode;
use simpairs_web::Site;

const EVENT: &str = "http-test";

async fn get2(site: &Site, uri: &str) -> (StatusCode, String) {
    let (status, _, body) = common::get(site, uri).await;
    (status, body)
}

#[tokio::test]
async fn api_and_pages() {
    let event = common::published(
        EVENT,
        "Club <night> & friends",
        &common::settings(31, 12, 6),
    );
    let p = event.site();
    let (status, body) = get2(&p, "/api/status").await;
    assert_eq!(status, StatusCode::OK);
    let s: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(s["clubs"], 12);
    assert_eq!(s["generation"], 12);

    // NS list: places rise, ties share.
    let (_, body) = get2(&p, "/api/leaderboard?list=ns&limit=10000").await;
    let l: serde_json::Value = serde_json::from_str(&body).unwrap();
    let rows = l["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r["direction"] == "NS"));
    let ranks: Vec<i64> = rows.iter().map(|r| r["rank"].as_i64().unwrap()).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
    assert_eq!(
        get2(&p, "/api/leaderboard?list=sideways").await.0,
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
    let (status, body) = get2(&p, &uri).await;
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
    let (_, body) = get2(&p, "/api/boards/1").await;
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
    let (status, html) = get2(&p, "/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("Club &lt;night&gt; &amp; friends"),
        "the event name is escaped"
    );
    assert!(html.contains("<table>") && html.contains("/pair/"));
    let club = first["club_id"].as_str().unwrap();
    assert_eq!(get2(&p, &format!("/club/{club}")).await.0, StatusCode::OK);
    let section = first["section"].as_str().unwrap();
    let (status, html) = get2(
        &p,
        &format!(
            "/pair?club={club}&section={section}&pair={}&direction=NS",
            first["pair"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("Scorecard") && html.contains("National, combined"),
        "{html}"
    );
    assert_eq!(get2(&p, "/board/1").await.0, StatusCode::OK);
    assert_eq!(get2(&p, "/club/NOPE").await.0, StatusCode::NOT_FOUND);
    assert_eq!(get2(&p, "/board/99").await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        get2(&p, "/pair?club=NOPE&pair=1").await.0,
        StatusCode::NOT_FOUND
    );
}
