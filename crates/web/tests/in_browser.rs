//! The site in a real browser (headless Chromium through WebDriver), as a player uses it: open the
//! event, search a player by part of a name, follow ranking -> scorecard -> board -> hand, see a
//! club published during the test appear without a reload, and on every page type: no sideways
//! scroll at 390 px, no serious accessibility violation (axe-core), screenshots at 1280 and 390 px
//! under `target/browser-screenshots/`.

use crate::browser;
use crate::common;

use std::time::Duration;

use fantoccini::{Client, Locator};

const CLUBS: usize = 12;
const BOARDS: u16 = 6;
const SEED: u64 = 2026;

/// The pages of every type, once the event is in.
fn page_types(served: &common::Served) -> Vec<(&'static str, String)> {
    let site = &served.site;
    let p = site.projection();
    let first = p.leaderboard("ns", 0, 1).1.remove(0);
    let club = first.club_id.clone();
    vec![
        ("home", "/".to_string()),
        ("search", "/search?q=smith".to_string()),
        ("rankings", "/rankings?list=combined".to_string()),
        ("clubs", "/clubs".to_string()),
        ("club", format!("/club/{club}")),
        (
            "scorecard",
            format!(
                "/pair/{club}/{}?section={}&dir=NS",
                first.pair, first.section
            ),
        ),
        ("board", format!("/board/1?club={club}")),
        ("board-national", "/board/2".to_string()),
        ("boards", "/boards".to_string()),
        ("director", "/director".to_string()),
        (
            "movement",
            format!(
                "/movement?club={club}&pair={}&section={}&dir=NS",
                first.pair, first.section
            ),
        ),
        ("not-found", "/no/such/page".to_string()),
    ]
}

/// The text of the first element matching `css`, read in one step (a live update may replace the
/// element between a find and a read).
async fn text(c: &Client, css: &str) -> String {
    let got = c
        .execute(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;",
            vec![css.into()],
        )
        .await
        .unwrap();
    got.as_str()
        .unwrap_or_else(|| panic!("no {css} on the page"))
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_finds_their_results_live_on_a_phone_and_a_desktop() {
    let Some(tools) = browser::tools() else {
        return;
    };
    let axe_source = std::fs::read_to_string(&tools.axe).unwrap();
    let event = common::declared(
        "browser-demo",
        "Simulated national simultaneous pairs",
        &common::settings(SEED, CLUBS, BOARDS),
    );
    for i in 0..CLUBS - 1 {
        event.publish(i);
    }
    let served = common::serve(
        &event,
        simpairs_web::Config::new("127.0.0.1:0".parse().unwrap()),
    );
    // Two real clubs' files, with their hand records, for the way from a ranking to a hand.
    let real = common::real_clubs("browser-real");
    let real_served = common::serve(
        &real,
        simpairs_web::Config::new("127.0.0.1:0".parse().unwrap()),
    );
    served.wait_for_clubs(CLUBS - 1);
    real_served.wait_for_clubs(2);
    real_served.wait_for_deal(1);
    let driver = browser::start_driver(&tools);
    let profile = tempfile::tempdir().unwrap();
    let c = browser::session(&tools, &driver, profile.path(), 1280, 900).await;

    keyboard_first(&c, &served).await;
    search_by_part_of_a_name(&c, &served).await;
    from_a_ranking_to_a_hand(&c, &real_served).await;
    a_club_arrives_while_the_scorecard_is_open(&c, &served, &event).await;
    board_links_are_big_enough_to_tap(&c, &served).await;
    for (name, path) in page_types(&served) {
        check_page(&c, &served.url, name, &path, &axe_source).await;
    }
    the_event_closes_while_a_page_is_open(&c, &served, &event).await;
    for (name, path) in [
        ("board-hand", "/board/1?club=LINDFIELD"),
        ("scorecard-real", "/pair/LINDFIELD/1?dir=NS"),
        (
            "compare-real",
            "/compare?a_factoring=neuberg&b_factoring=ratio",
        ),
        ("compare-form", "/compare"),
        ("player-real", "/player/900001"),
    ] {
        check_page(&c, &real_served.url, name, path, &axe_source).await;
    }
    c.close().await.unwrap();
}

/// From the keyboard: the first Tab shows the skip link, and the search box is a few Tabs on.
async fn keyboard_first(c: &Client, served: &common::Served) {
    const TAB: &str = "\u{e004}";
    c.goto(&served.url).await.unwrap();
    c.active_element()
        .await
        .unwrap()
        .send_keys(TAB)
        .await
        .unwrap();
    let skip = c
        .execute("const e = document.activeElement; return [e.className, e.getBoundingClientRect().left >= 0];", vec![])
        .await
        .unwrap();
    assert_eq!(
        skip,
        serde_json::json!(["skip", true]),
        "the first Tab lands on a visible skip link"
    );
    let mut reached = false;
    for _ in 0..8 {
        c.active_element()
            .await
            .unwrap()
            .send_keys(TAB)
            .await
            .unwrap();
        let id = c
            .execute("return document.activeElement.id;", vec![])
            .await
            .unwrap();
        if id == "site-q" {
            reached = true;
            break;
        }
    }
    assert!(reached, "the search box is reached by Tab");
}

/// Search a player by part of a surname (without its accent).
async fn search_by_part_of_a_name(c: &Client, served: &common::Served) {
    c.goto(&served.url).await.unwrap();
    assert!(
        c.title().await.unwrap().contains("Simulated national"),
        "the event's name is the title"
    );
    // A player of the first club's pair 1 NS, found by the start of the surname, unaccented.
    let names = simpairs_sim::names::pair_names(SEED, "C0001", "1", "NS");
    let first_player = names.split(" & ").next().unwrap().to_string();
    let surname = first_player.rsplit(' ').next().unwrap();
    let part: String = deunicode_lower(surname).chars().take(4).collect();
    c.find(Locator::Css("#site-q"))
        .await
        .unwrap()
        .send_keys(&part)
        .await
        .unwrap();
    c.find(Locator::Css("header.top form button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // The click may return before the browser has left the page it was on.
    c.wait()
        .for_element(Locator::Css("main input#q"))
        .await
        .expect("the search page opens");
    let results = text(c, "main").await;
    assert!(
        results.contains(&first_player),
        "searching {part:?} finds {first_player}:\n{results}"
    );
}

/// On two real clubs' event: ranking -> scorecard -> board -> the hand record, with its
/// double-dummy table and par.
async fn from_a_ranking_to_a_hand(c: &Client, served: &common::Served) {
    c.goto(&format!("{}/rankings?list=ns", served.url))
        .await
        .unwrap();
    c.find(Locator::Css("td.names a"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait()
        .for_element(Locator::Css(".places"))
        .await
        .expect("the scorecard opens");
    let places = text(c, ".places").await;
    assert!(
        places.contains("National, North-South") && places.contains("Club, North-South"),
        "{places}"
    );
    assert!(
        text(c, "h1").await.contains(" & "),
        "the scorecard names both players"
    );
    c.find(Locator::Css("table.card tbody th a"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait()
        .for_element(Locator::Css(".deal"))
        .await
        .expect("the board opens");
    assert!(c.current_url().await.unwrap().path().starts_with("/board/"));
    let hand = text(c, ".deal").await;
    assert!(hand.contains("North") && hand.contains("West"), "{hand}");
    let dd = text(c, "table.dd").await;
    assert!(dd.contains("Declarer"), "{dd}");
    assert!(text(c, "main").await.contains("Par: "));
}

fn deunicode_lower(s: &str) -> String {
    simpairs_pipeline::views::fold::fold(s)
}

/// With a scorecard open, a club publishes: the page says so and shows the new places without
/// reloading (a mark set on the page survives).
async fn a_club_arrives_while_the_scorecard_is_open(
    c: &Client,
    served: &common::Served,
    event: &common::Event,
) {
    // A phone, so that the page is long enough to scroll.
    c.set_window_size(390, 700).await.unwrap();
    let (club, pair, section, dir) = {
        let p = served.site.projection();
        let first = p.leaderboard("combined", 0, 1).1.remove(0);
        let dir = simpairs_pipeline::wire::direction_key(first.direction);
        (first.club_id, first.pair, first.section, dir)
    };
    c.goto(&format!(
        "{}/pair/{club}/{pair}?section={section}&dir={dir}",
        served.url
    ))
    .await
    .unwrap();
    let before = text(c, "[data-live=status]").await;
    assert!(
        before.contains(&format!("{} of {CLUBS} clubs in", CLUBS - 1)),
        "{before}"
    );
    mark_loaded(c).await;
    // The reader has scrolled down; the update keeps them there.
    let scrolled = c
        .execute("window.scrollTo(0, 300); return window.scrollY;", vec![])
        .await
        .unwrap();
    let card_top =
        "return Math.round(document.querySelector('table.card').getBoundingClientRect().top);";
    let top_before = c.execute(card_top, vec![]).await.unwrap();
    let places = "return Array.from(document.querySelectorAll('[data-place-key]')).map(e => [e.dataset.label, Number(e.dataset.rank)]);";
    let before_places = c.execute(places, vec![]).await.unwrap();
    assert_eq!(
        before_places.as_array().map(Vec::len),
        Some(3),
        "a scorecard with its three places"
    );
    // Let the page's live stream open before the club arrives.
    tokio::time::sleep(Duration::from_millis(500)).await;
    event.publish(CLUBS - 1);
    let arrived = browser::wait_until(
        c,
        &format!("return document.querySelector('[data-live=status]').textContent.includes('{CLUBS} of {CLUBS} clubs in');"),
        Duration::from_secs(30),
    )
    .await;
    if !arrived {
        let shown = text(c, "[data-live=status]").await;
        let said = text(c, "#live-status").await;
        let p = served.site.projection();
        panic!(
            "the club did not appear without a reload: the page says {shown:?} ({said:?}); the site has {} clubs, generation {}, {} submissions",
            served.site.catalog().clubs().len(),
            p.generation(),
            p.submissions()
        );
    }
    assert!(still_loaded(c).await, "the page was not reloaded");
    let said = text(c, "#live-status").await;
    let late = &event.sim.clubs[CLUBS - 1].name;
    assert!(
        said.contains(&format!("Club {late} arrived")),
        "the page says what changed: {said:?}"
    );
    // Each place that changed is told as a move, and none that did not.
    let after_places = c.execute(places, vec![]).await.unwrap();
    let (before, after) = (
        before_places.as_array().unwrap(),
        after_places.as_array().unwrap(),
    );
    for (b, a) in before.iter().zip(after) {
        let (from, to) = (b[1].as_i64().unwrap() as i32, a[1].as_i64().unwrap() as i32);
        let told = format!(
            "you moved from {} to {} ({})",
            ordinal(from),
            ordinal(to),
            a[0].as_str().unwrap()
        );
        assert_eq!(said.contains(&told), from != to, "{told:?} in {said:?}");
    }
    // What the reader was looking at stays where it was on the screen (the page scrolls with
    // the announcement added above it).
    let top_after = c.execute(card_top, vec![]).await.unwrap();
    assert!(
        scrolled.as_f64().unwrap_or(0.0) > 0.0,
        "the page scrolled: {scrolled}"
    );
    let moved = (top_after.as_f64().unwrap() - top_before.as_f64().unwrap()).abs();
    assert!(
        moved <= 2.0,
        "the scorecard moved on the screen from {top_before} to {top_after}"
    );
}

/// The organiser closes the event while a reader has the home page open: the page says the
/// results are final without a reload, and the live region says why (a close makes no new
/// generation).
async fn the_event_closes_while_a_page_is_open(
    c: &Client,
    served: &common::Served,
    event: &common::Event,
) {
    c.goto(&format!("{}/", served.url)).await.unwrap();
    let before = text(c, "[data-live=status]").await;
    assert!(before.contains("Provisional results"), "{before}");
    mark_loaded(c).await;
    // Let the page's live stream open before the close.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let close = simpairs_pipeline::declare::Amendment {
        close: true,
        ..Default::default()
    };
    let organiser = simpairs_sim::organiser_key();
    simpairs_pipeline::declare::amend(event.log.as_ref(), &event.id, &organiser, close).unwrap();
    let closed = browser::wait_until(
        c,
        "return document.querySelector('[data-live=status]').textContent.includes('Final results');",
        Duration::from_secs(30),
    )
    .await;
    let shown = text(c, "[data-live=status]").await;
    assert!(closed, "the page still says {shown:?} after the close");
    assert!(still_loaded(c).await, "the page was not reloaded");
    let said = text(c, "#live-status").await;
    assert!(said.contains("The organiser closed the event"), "{said:?}");
}

/// Marks the page loaded now, so that [`still_loaded`] tells whether it was reloaded since.
async fn mark_loaded(c: &Client) {
    c.execute("window.__notReloaded = true; return true;", vec![])
        .await
        .unwrap();
}

/// Whether the page marked by [`mark_loaded`] is still the one loaded then.
async fn still_loaded(c: &Client) -> bool {
    let kept = c.execute("return window.__notReloaded === true;", vec![]);
    kept.await.unwrap() == serde_json::Value::Bool(true)
}

fn ordinal(n: i32) -> String {
    let suffix = match (n % 100, n % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// On a phone, a scorecard's board links ("1" and "club" under it) are at least 24 by 24 px.
async fn board_links_are_big_enough_to_tap(c: &Client, served: &common::Served) {
    c.set_window_size(390, 900).await.unwrap();
    let first = served.site.projection().leaderboard("ns", 0, 1).1.remove(0);
    c.goto(&format!(
        "{}/pair/{}/{}?section={}&dir=NS",
        served.url, first.club_id, first.pair, first.section
    ))
    .await
    .unwrap();
    let sizes = c
        .execute(
            "return Array.from(document.querySelectorAll('table.card tbody th a')).map(a => { const r = a.getBoundingClientRect(); return [r.width, r.height]; });",
            vec![],
        )
        .await
        .unwrap();
    let sizes = sizes.as_array().unwrap();
    assert!(!sizes.is_empty(), "a scorecard's board links");
    for s in sizes {
        let (w, h) = (s[0].as_f64().unwrap(), s[1].as_f64().unwrap());
        assert!(w >= 24.0 && h >= 24.0, "a board link of {w} by {h} px");
    }
}

/// One page at 1280 px and at 390 px: no sideways scroll on the phone, no serious accessibility
/// violation, a screenshot of each.
async fn check_page(c: &Client, base: &str, name: &str, path: &str, axe_source: &str) {
    for width in [1280u32, 390] {
        c.set_window_size(width, 900).await.unwrap();
        c.goto(&format!("{base}{path}")).await.unwrap();
        let inner = c
            .execute("return window.innerWidth;", vec![])
            .await
            .unwrap();
        assert_eq!(
            inner.as_u64(),
            Some(u64::from(width)),
            "{name}: the window is {width} px wide"
        );
        // The screenshot first: it shows what a failing check below found.
        let shot = browser::screenshot(c, name, width).await;
        eprintln!("screenshot: {}", shot.display());
        assert_eq!(
            browser::overflow(c).await,
            0,
            "{name} scrolls sideways at {width} px"
        );
        let violations = browser::axe(c, axe_source).await;
        assert!(
            violations.is_empty(),
            "{name} at {width} px:\n{}",
            violations.join("\n")
        );
    }
}
