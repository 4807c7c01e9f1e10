//! The analysts' pages through the router, held to `simpairs_analysis`: how the field moved
//! (`/api/movement`, `/movement`), what-if (`/api/compare`, `/compare`: Neuberg against ratio
//! factoring on two real club files whose boards 22-27 were played in one club only), a
//! player's season (`/api/player/{id}`, `/player/{id}`); the parameters are checked and never
//! written back; a site without the log says so; a figure slower than the wait is "still being
//! computed" and kept for the reload.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use axum::http::StatusCode;
use simpairs_analysis::movement::{HistoryOptions, Pairs, field_history};
use simpairs_analysis::timeline::Every;
use simpairs_analysis::variant::Side;
use simpairs_web::analysts::Analysts;

/// The site over `e`, given its log (as `serve` gives it), waiting as long as a test needs.
fn site(e: &common::Event) -> simpairs_web::Site {
    let site = e.site();
    let mut analysts = Analysts::new(e.log.clone(), &e.id, None).unwrap();
    analysts.timeout = Duration::from_secs(300);
    site.set_analysts(analysts);
    site
}

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap()
}

/// Equal as served: numbers to the last digit the JSON reader keeps (serde_json parses floats
/// to within an ulp), everything else exactly.
fn same(got: &serde_json::Value, want: &serde_json::Value) -> bool {
    use serde_json::Value::*;
    match (got, want) {
        (Number(a), Number(b)) => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
            _ => a == b,
        },
        (Array(a), Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
        (Object(a), Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        (a, b) => a == b,
    }
}

fn assert_same(got: &serde_json::Value, want: impl serde::Serialize, what: &str) {
    let want = serde_json::to_value(want).unwrap();
    assert!(same(got, &want), "{what}: served {got}, analysis {want}");
}

type Key = (String, String, String, String);

fn key_of(v: &serde_json::Value) -> Key {
    let s = |k: &str| v[k].as_str().unwrap().to_string();
    (s("club"), s("section"), s("pair"), s("direction"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_field_s_movement_is_the_analysis_figures_for_the_leaders_and_a_pair() {
    let e = common::published("moves", "Moves", &common::settings(43, 6, 8));
    let site = site(&e);
    // Every pair at every generation, as the analysis crate computes them.
    let all = field_history(
        e.log.as_ref(),
        &e.id,
        None,
        &HistoryOptions {
            every: Every::Each,
            pairs: Pairs::All,
            ..HistoryOptions::default()
        },
    )
    .unwrap();
    let expected: BTreeMap<Key, &simpairs_analysis::movement::PairPath> = all
        .pairs
        .iter()
        .map(|p| {
            let k = (
                p.club.clone(),
                p.section.clone(),
                p.pair.clone(),
                p.direction.clone(),
            );
            (k, p)
        })
        .collect();
    // The pair last in the combined ranking at the end: not one of the leaders.
    let last = all
        .pairs
        .iter()
        .max_by_key(|p| p.points.last().unwrap().combined_place)
        .unwrap();
    let uri = format!(
        "/api/movement?top=5&club={}&pair={}&section={}&dir={}",
        last.club, last.pair, last.section, last.direction
    );
    let (status, _, body) = common::get(&site, &uri).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let served = json(&body);
    let pairs = served["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 6, "the 5 leaders and the pair asked for");
    let scored: Vec<i64> = serde_json::from_value(served["scored"].clone()).unwrap();
    assert_eq!(
        scored, all.scored,
        "every generation of a small event is drawn"
    );
    let mut leaders = 0;
    for p in pairs {
        let want = expected[&key_of(p)];
        assert_same(&p["points"], &want.points, &format!("{:?}", key_of(p)));
        let last_place = want.points.last().unwrap().combined_place;
        if last_place <= 5 {
            leaders += 1;
        }
    }
    assert!(leaders >= 5, "the leaders are the best combined places");
    assert!(
        pairs
            .iter()
            .any(|p| key_of(p).2 == last.pair && key_of(p).0 == last.club)
    );

    page_shows_the_pair_and_is_linked(&site, &uri, last).await;
}

/// The page draws the chart and lists the pair's figures after each club; the event home and
/// the pair's scorecard link to it.
async fn page_shows_the_pair_and_is_linked(
    site: &simpairs_web::Site,
    uri: &str,
    last: &simpairs_analysis::movement::PairPath,
) {
    let page = uri.replace("/api/movement", "/movement");
    let (status, _, html) = common::get(site, &page).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("<svg") && html.contains("<polyline"),
        "a chart"
    );
    assert!(!html.contains("style="), "no inline style (CSP)");
    for point in &last.points {
        let pct = simpairs_pipeline::views::value::show_hundredths(
            (point.percent.unwrap() * 100.0).round() as i64,
        );
        // The row of the generation in the table "After each club".
        let row = format!(
            "<td class=\"num\">{}</td><td class=\"num wide\">{}{}</td><td class=\"num\">{pct}</td>",
            point.combined_place,
            point.place,
            if point.tied { "=" } else { "" }
        );
        assert!(
            html.contains(&row),
            "generation {}: {row}",
            point.generation
        );
    }
    let (_, _, home) = common::get(site, "/").await;
    assert!(home.contains("href=\"/movement\"") && home.contains("href=\"/compare\""));
    let card = format!(
        "/pair/{}/{}?section={}&dir={}",
        last.club, last.pair, last.section, last.direction
    );
    let (_, _, card) = common::get(site, &card).await;
    assert!(card.contains(&format!(
        "/movement?club={}&amp;pair={}",
        last.club, last.pair
    )));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_if_ratio_factoring_changes_the_pairs_of_the_club_that_played_boards_22_to_27() {
    let e = common::real_clubs("whatif");
    let site = site(&e);
    let side = |v: &str| Side {
        variant: v.parse().unwrap(),
        as_of: None,
    };
    let expected = simpairs_analysis::compare::compare(
        e.log.as_ref(),
        &e.id,
        None,
        &side("factoring=neuberg"),
        &side("factoring=ratio"),
    )
    .unwrap();
    let (status, _, body) = common::get(
        &site,
        "/api/compare?a_factoring=neuberg&b_factoring=ratio&limit=500",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let served = json(&body);
    assert_eq!(served["unchanged"], expected.unchanged);
    assert_eq!(served["total"], expected.changed.len());
    let changed = served["changed"].as_array().unwrap();
    assert_eq!(changed.len(), expected.changed.len());
    for (got, want) in changed.iter().zip(&expected.changed) {
        assert_eq!(got["pair"], want.pair.as_str());
        assert_eq!(got["club"], want.club.as_str());
        assert_same(&got["a"], &want.a, &want.pair);
        assert_same(&got["b"], &want.b, &want.pair);
        assert_eq!(
            got["place_change"],
            serde_json::to_value(want.place_change).unwrap()
        );
        // Up the rankings as a gain, as `simpairs compare --json` gives it.
        assert_eq!(
            got["places_gained"],
            serde_json::to_value(want.place_change.map(|m| -m)).unwrap()
        );
    }
    // Boards 22-27 were played only at LINDFIELD, so only they are factored: the percentages
    // that move are LINDFIELD's; LINDFIELD-2's pairs at most change places.
    let moved: Vec<&str> = expected
        .changed
        .iter()
        .filter(|c| c.percent_change_hundredths.is_some_and(|h| h != 0))
        .map(|c| c.club.as_str())
        .collect();
    assert!(!moved.is_empty(), "Neuberg and ratio differ");
    assert!(moved.iter().all(|c| *c == "LINDFIELD"), "{moved:?}");

    page_shows_the_largest_change_first(&site, &expected).await;
}

/// The page: both scorings named, the largest change first, with both figures.
async fn page_shows_the_largest_change_first(
    site: &simpairs_web::Site,
    expected: &simpairs_analysis::compare::Comparison,
) {
    let (status, _, html) = common::get(
        site,
        "/compare?a_factoring=neuberg&b_factoring=ratio&limit=5",
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("scoring=mp,factoring=ratio"));
    let first = &expected.changed[0];
    let pct = |f: &Option<simpairs_analysis::figures::Figures>| {
        simpairs_pipeline::views::value::show_hundredths(
            f.as_ref().unwrap().percent_hundredths.unwrap(),
        )
    };
    let at = html.find("<tbody>").unwrap();
    let row = &html[at..html[at..].find("</tr>").unwrap() + at];
    assert!(
        row.contains(&pct(&first.a)) && row.contains(&pct(&first.b)),
        "{row}"
    );
    assert!(html.contains("Page 1 of") || expected.changed.len() <= 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_s_season_is_the_analysis_figures_and_the_scorecard_links_to_it() {
    let e = common::real_clubs("season");
    let site = site(&e);
    let id = "900001";
    let expected = simpairs_analysis::season::player_history(e.log.as_ref(), id, None).unwrap();
    assert!(!expected.events.is_empty());
    let (status, _, body) = common::get(&site, &format!("/api/player/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let served = json(&body);
    let events = served["events"].as_array().unwrap();
    assert_eq!(events.len(), expected.events.len());
    for (got, want) in events.iter().zip(&expected.events) {
        assert_eq!(
            got["national"],
            serde_json::to_value(&want.national).unwrap()
        );
        assert_eq!(
            got["club_figures"],
            serde_json::to_value(&want.club_figures).unwrap()
        );
        assert_eq!(got["pair"], want.pair.as_str());
    }
    let (status, _, html) = common::get(&site, &format!("/player/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    for e in &expected.events {
        let f = e.national.as_ref().unwrap();
        let pct = simpairs_pipeline::views::value::show_hundredths(f.percent_hundredths.unwrap());
        assert!(html.contains(&pct), "{pct}");
        assert!(html.contains(&format!(" of {}", e.national_pairs)));
        for p in &e.partners {
            assert!(html.contains(&p.name), "{}", p.name);
        }
    }
    // The scorecard of the player's pair links to the season.
    let first = &expected.events[0];
    let card = format!(
        "/pair/{}/{}?section={}&dir={}",
        first.club, first.pair, first.section, first.direction
    );
    let (_, _, card) = common::get(&site, &card).await;
    assert!(card.contains(&format!("href=\"/player/{id}\"")), "{card}");
    // Nobody with that ID: a 404 that does not repeat it.
    let (status, _, html) = common::get(&site, "/player/nobody-0000").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(!html.contains("nobody-0000"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_s_parameters_are_checked_and_never_written_back() {
    let e = common::published("escape", "Escape", &common::settings(44, 2, 4));
    let site = site(&e);
    let attack = "%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E";
    for (uri, name) in [
        (format!("/compare?a={attack}"), "a"),
        (format!("/compare?b=factoring%3D{attack}"), "b"),
        (format!("/compare?a_scoring={attack}"), "a_scoring"),
        (format!("/compare?b_conventions={attack}"), "b_conventions"),
        (
            format!("/compare?a_factoring=ratio&offset={attack}"),
            "offset",
        ),
        (format!("/movement?top={attack}"), "top"),
        (format!("/movement?club={attack}"), "pair"),
    ] {
        let (status, _, html) = common::get(&site, &uri).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}");
        assert!(
            html.contains(&format!("<code>{name}</code>")),
            "{uri}: {html}"
        );
        assert!(!html.contains("<script>alert"), "{uri}");
        assert!(
            !html.contains("alert(1)"),
            "{uri}: the value is not repeated"
        );
    }
    let (status, _, body) = common::get(&site, &format!("/api/compare?a={attack}")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(!body.contains("alert"), "{body}");
    // What the reader typed in "other options" comes back in the box, escaped.
    let (status, _, html) = common::get(&site, "/compare?b=fouled%3Dadd-one").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("value=\"fouled=add-one\""));
    let (status, _, html) = common::get(&site, "/player/%3Cscript%3E").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(!html.contains("<script>"));
}

#[tokio::test]
async fn a_site_without_the_log_says_the_history_cannot_be_read() {
    let e = common::published("nolog", "No log", &common::settings(45, 2, 4));
    let site = e.site();
    for uri in [
        "/movement",
        "/compare?b_factoring=ratio",
        "/player/1",
        "/api/movement",
    ] {
        let (status, _, body) = common::get(&site, uri).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{uri}");
        assert!(body.contains("not given the event"), "{uri}: {body}");
    }
    // The form alone needs nothing computed.
    let (status, _, _) = common::get(&site, "/compare").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_figure_answers_try_again_and_is_kept_for_the_reload() {
    let e = common::published("slow", "Slow", &common::settings(46, 4, 4));
    let site = e.site();
    let mut analysts = Analysts::new(e.log.clone(), &e.id, None).unwrap();
    // No request waits: the first is told to come back, the work goes on.
    analysts.timeout = Duration::from_millis(1);
    site.set_analysts(analysts);
    let (status, headers, body) = common::get(&site, "/movement").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(headers["retry-after"], "5");
    assert!(body.contains("Still being computed"));
    let started = std::time::Instant::now();
    loop {
        let (status, _, body) = common::get(&site, "/movement").await;
        if status == StatusCode::OK {
            assert!(body.contains("<svg"));
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "never kept");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A pair of a club whose results were withdrawn: its chart ends where it was ranked, and the
/// page says it is out and why, where it said the place it had before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdrawn_club_s_pair_is_out_of_the_ranking_on_its_movement_page() {
    let e = common::published("moves-out", "Moves out", &common::settings(17, 3, 4));
    let club = e.sim.clubs[1].id.clone();
    simpairs_pipeline::publish::withdraw_club(
        e.log.as_ref(),
        &e.id,
        &club,
        &simpairs_sim::organiser_key(),
        "played the boards early",
    )
    .unwrap();
    e.aggregate();
    let all = field_history(e.log.as_ref(), &e.id, None, &HistoryOptions::default()).unwrap();
    // The withdrawal is the last generation, marked so; the arrivals are not.
    let steps: Vec<(&str, bool)> = (all.generations.iter())
        .map(|s| (s.club.as_str(), s.withdrawn))
        .collect();
    assert_eq!(steps.last(), Some(&(club.as_str(), true)), "{steps:?}");
    assert!(
        steps[..steps.len() - 1].iter().all(|(_, w)| !w),
        "{steps:?}"
    );
    let out = all
        .pairs
        .iter()
        .find(|p| p.club == club)
        .expect("a pair of the club");
    let ranked = all
        .pairs
        .iter()
        .find(|p| p.club != club)
        .expect("a pair of another");
    let withdrawn_at = all.generations.last().unwrap().generation;
    let site = site(&e);
    let page = |p: &simpairs_analysis::movement::PairPath| {
        format!(
            "/movement?top=3&club={}&pair={}&section={}&dir={}",
            p.club, p.pair, p.section, p.direction
        )
    };
    let (status, _, html) = common::get(&site, &page(out)).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let told = format!("results were withdrawn at generation {withdrawn_at}.");
    assert!(html.contains(&told), "{told}: {html}");
    // The pair's row, first in the table of the pairs followed, says "out", not a place.
    let row = &html[html.find("<tr class=\"mine\">").expect("the pair's row")..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains("<td class=\"num\">out</td>"), "{row}");
    // A pair still ranked is told nothing of the kind.
    let (_, _, html) = common::get(&site, &page(ranked)).await;
    assert!(
        !html.contains("no longer ranked") && !html.contains(">out<"),
        "{html}"
    );
}
