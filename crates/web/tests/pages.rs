//! The pages as a player reads them, through the router: the numbers on each page agree with the
//! engine's (a scorecard adds up to the pair's standing, a line's percentage is its board's),
//! a pair is found from its club and number alone, rankings page and jump to a pair, a club's
//! own ranking keeps North-South and East-West apart, the traveller has every table; and on an
//! event of real club files, players are found by national ID and by name.

use crate::common;

use axum::http::StatusCode;
use simpairs_pipeline::PairKey;
use simpairs_pipeline::views::rankings::List;
use simpairs_pipeline::views::scorecard::scorecard;
use simpairs_pipeline::views::value::show_hundredths;

fn event() -> (common::Event, simpairs_web::Site) {
    let e = common::published("pages", "Pages", &common::settings(41, 10, 8));
    let site = e.site();
    (e, site)
}

fn first_ns(site: &simpairs_web::Site) -> PairKey {
    let p = site.projection();
    let s = p.leaderboard("ns", 0, 1).1.remove(0);
    PairKey::new(s.club_id, s.section, s.pair, "NS")
}

#[tokio::test]
async fn a_scorecard_adds_up_to_the_standing_and_each_line_is_its_boards() {
    let (_e, site) = event();
    let p = site.projection();
    let catalog = site.catalog();
    for list in ["ns", "ew"] {
        for standing in p.leaderboard(list, 0, 25).1 {
            let pair = PairKey::new(
                standing.club_id.clone(),
                standing.section.clone(),
                standing.pair.clone(),
                simpairs_pipeline::wire::direction_key(standing.direction),
            );
            let card = scorecard(&p, &catalog, &pair).unwrap();
            assert_eq!(card.lines.len() as i32, standing.boards, "{pair:?}");
            let last = card.lines.last().unwrap();
            let running = last.running_national.unwrap();
            let published = standing.percent_hundredths.unwrap();
            assert!(
                (running - published).abs() <= 1,
                "{pair:?}: running {running}, standing {published}"
            );
            let total: f64 = card
                .lines
                .iter()
                .map(|l| l.national.unwrap().value_f64())
                .sum();
            assert!(
                (total - standing.total).abs() < 0.006,
                "{pair:?}: {total} vs {}",
                standing.total
            );
            // Each plain line's percentage is its score's in the board's frequency table.
            for l in card.lines.iter().filter(|l| l.marks.is_plain()) {
                let board = &p.board_scores[&(String::new(), l.board)];
                let score = if l.sat == "NS" {
                    l.score.unwrap()
                } else {
                    -l.score.unwrap()
                };
                let entry = board.table.iter().find(|e| e.ns_score == score).unwrap();
                let value = if l.sat == "NS" {
                    entry.ns_value
                } else {
                    entry.ew_value
                };
                assert_eq!(
                    l.national.unwrap().value,
                    value,
                    "{pair:?} board {}",
                    l.board
                );
            }
        }
    }
}

#[tokio::test]
async fn the_scorecard_page_names_every_ranking_and_shows_percentages() {
    let (_e, site) = event();
    let pair = first_ns(&site);
    let url = format!(
        "/pair/{}/{}?section={}&dir=NS",
        pair.club, pair.pair, pair.section
    );
    let (status, _, html) = common::get(&site, &url).await;
    assert_eq!(status, StatusCode::OK);
    for label in [
        "National, combined",
        "National, North-South",
        "Club, North-South",
        "Running %",
        "National %",
        "Club %",
    ] {
        assert!(html.contains(label), "{label} missing");
    }
    let card = {
        let p = site.projection();
        scorecard(&p, &site.catalog(), &pair).unwrap()
    };
    // Results written as on a traveller, opponents by name.
    let line = card
        .lines
        .iter()
        .find(|l| l.marks.is_plain() && l.result.is_some())
        .unwrap();
    assert!(html.contains(line.result.as_deref().unwrap()));
    let pct = show_hundredths(line.national.unwrap().percent_hundredths().unwrap());
    assert!(html.contains(&pct), "{pct}");
    let opponents = simpairs_sim::names::pair_names(41, &pair.club, &line.opponents.pair, "EW");
    assert!(
        html.contains(&opponents.replace('&', "&amp;").replace('\'', "&#39;"))
            || html.contains(&opponents.replace('&', "&amp;")),
        "{opponents}"
    );
}

#[tokio::test]
async fn a_browser_tab_names_the_page_then_the_event_and_the_event_once() {
    let (_e, site) = event();
    let title = |html: &str| {
        let start = html.find("<title>").expect("a title") + "<title>".len();
        html[start..start + html[start..].find("</title>").expect("its end")].to_string()
    };
    let (status, _, home) = common::get(&site, "/").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(title(&home), "Pages");
    let (status, _, clubs) = common::get(&site, "/clubs").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(title(&clubs), "Clubs — Pages");
}

#[tokio::test]
async fn a_pair_is_found_from_its_club_and_number_alone() {
    let (_e, site) = event();
    let pair = first_ns(&site);
    // Mitchell clubs number NS and EW pairs alike: the number alone offers the choice.
    let (status, _, html) = common::get(&site, &format!("/pair/{}/{}", pair.club, pair.pair)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("which is yours") && html.contains("dir=NS") && html.contains("dir=EW"),
        "{html}"
    );
    let (status, _, html) =
        common::get(&site, &format!("/pair/{}/{}?dir=ns", pair.club, pair.pair)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Places in each ranking"));
    // The former address works too.
    let (status, _, _) = common::get(
        &site,
        &format!(
            "/pair?club={}&pair={}&section={}&direction=NS",
            pair.club, pair.pair, pair.section
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // No such pair: not a bare 404, the club's pairs to choose from.
    let (status, _, html) = common::get(&site, &format!("/pair/{}/999", pair.club)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(
        html.contains("has no pair with that number")
            && html.contains(&format!("/pair/{}/{}", pair.club, pair.pair))
    );
}

#[tokio::test]
async fn rankings_page_and_jump_to_a_pair() {
    let (_e, site) = event();
    let total = site.projection().leaderboard("combined", 0, 0).0;
    let (_, _, first) = common::get(&site, "/rankings?list=combined&limit=20").await;
    assert!(
        first.contains(&format!("of {total}"))
            && first.contains("rel=\"next\"")
            && first.contains(">Last<")
    );
    assert!(!first.contains("rel=\"prev\""));
    // Jump: the page holding the pair, its row marked.
    let (pair, at) = {
        let p = site.projection();
        let s = p.leaderboard("combined", 0, usize::MAX).1.remove(total - 3);
        (
            (
                s.club_id,
                s.section,
                s.pair,
                simpairs_pipeline::wire::direction_key(s.direction),
            ),
            total - 3,
        )
    };
    let url = format!(
        "/rankings?list=combined&limit=20&me_club={}&me_section={}&me_pair={}&me_dir={}",
        pair.0, pair.1, pair.2, pair.3
    );
    let (_, _, html) = common::get(&site, &url).await;
    assert!(html.contains("id=\"me\""), "the row is marked");
    let page_start = at / 20 * 20 + 1;
    assert!(
        html.contains(&format!("places {page_start} to")),
        "the page holding the pair"
    );
    assert!(html.contains("rel=\"prev\""));
    // Every row names both players and shows the club place beside the national one.
    assert!(html.contains("club place"));
    let p = site.projection();
    let catalog = site.catalog();
    let page = simpairs_pipeline::views::rankings::national_page(&p, List::Combined, None, 0, 20);
    assert!(
        page.rows
            .iter()
            .all(|r| r.players.len() == 2 && r.other.is_some())
    );
    drop((p, catalog));
}

#[tokio::test]
async fn a_clubs_own_ranking_keeps_its_directions_apart() {
    let (e, site) = event();
    let mitchell = e.sim.clubs.iter().find(|c| !c.howell).unwrap();
    let (_, _, html) = common::get(&site, &format!("/club/{}", mitchell.id)).await;
    assert!(
        html.contains("North-South: the club&#39;s own ranking")
            || html.contains("North-South: the club's own ranking")
    );
    assert!(html.contains("East-West: the club"));
    assert_eq!(html.matches("<table").count(), 2, "one table per direction");
}

#[tokio::test]
async fn a_traveller_has_every_table_and_labels_adjusted_lines() {
    let (_e, site) = event();
    let (results, adjusted_clubs) = {
        let p = site.projection();
        let b = &p.board_scores[&(String::new(), 1)];
        let adjusted: Vec<String> = b.specials.iter().map(|s| s.club_id.clone()).collect();
        (b.results_count as usize, adjusted)
    };
    let (_, _, html) = common::get(&site, "/board/1?limit=500").await;
    assert!(
        html.contains(&format!("1 to {results} of {results}")),
        "every table of every club"
    );
    let traveller = html.split("<h2>Traveller</h2>").nth(1).unwrap();
    assert_eq!(
        traveller.matches("<tr>").count(),
        results + 1,
        "a row per table, and the header"
    );
    for club in adjusted_clubs {
        let (_, _, html) = common::get(&site, &format!("/board/1?club={club}")).await;
        assert!(
            html.contains("adjusted"),
            "{club}'s adjusted line is labelled"
        );
    }
}

/// Two real clubs' USEBIO files (Compscore3, with players' names and national IDs) as the two
/// clubs of one event.
fn real_event() -> (tempfile::TempDir, simpairs_web::Site) {
    use simpairs_pipeline::declare::{ClubLine, Declaration, declare};
    let dir = tempfile::tempdir().unwrap();
    let log: std::sync::Arc<dyn simpairs_log::Log> =
        std::sync::Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let files = ["mp_pairs_mitchell_02.xml", "mp_pairs_mitchell_03.xml"];
    let clubs = ["LINDFIELD", "LINDFIELD-2"];
    let lines = clubs
        .iter()
        .map(|c| ClubLine {
            club_id: c.to_string(),
            name: format!("Club {c}"),
            public_key: Some(simpairs_sim::club_key(c).public()),
        })
        .collect();
    declare(
        log.as_ref(),
        Declaration::matchpoints("real", "Two real clubs", 27, lines, 1).with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )
    .unwrap();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/realdata/native/cobalt");
    for (club, file) in clubs.iter().zip(files) {
        let bytes = common::without_hand_records_but_the_first(
            club == &clubs[0],
            std::fs::read(fixtures.join(file)).unwrap(),
        );
        simpairs_pipeline::publish::publish_file(
            log.as_ref(),
            "real",
            club,
            &simpairs_sim::club_key(club),
            file,
            &bytes,
            None,
        )
        .unwrap();
    }
    let mut aggregator = simpairs_pipeline::aggregate::Aggregator::open(
        log.clone(),
        "real",
        simpairs_sim::aggregator_key(),
    )
    .unwrap();
    let options = simpairs_pipeline::aggregate::AggregateOptions {
        until_idle: true,
        ..Default::default()
    };
    aggregator
        .run(&options, &std::sync::atomic::AtomicBool::new(false), |_| {})
        .unwrap();
    let site = simpairs_web::Site::loaded(
        simpairs_pipeline::project::Projection::load(log.as_ref(), "real").unwrap(),
    );
    site.read_log(log.as_ref()).unwrap();
    assert_eq!(site.projection().submissions(), 2, "both clubs applied");
    (dir, site)
}

#[tokio::test]
async fn a_real_clubs_hand_records_reach_the_board_page_with_double_dummy_and_par() {
    let (_dir, site) = real_event();
    let bytes = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/realdata/native/cobalt/mp_pairs_mitchell_02.xml"),
    )
    .unwrap();
    let imported = simpairs_formats::import::read("f.xml", &bytes, None).unwrap();
    let deal = imported.deals.iter().find(|d| d.board == 5).unwrap();
    let north = deal.hands[0].as_ref().unwrap();
    let (_, _, html) = common::get(&site, "/board/5").await;
    assert!(
        html.contains("Hand record")
            && html.contains("Double-dummy tricks")
            && html.contains("Par: "),
        "{html}"
    );
    let spades = if north.spades.is_empty() {
        "—".to_string()
    } else {
        north.spades.replace('T', "10")
    };
    assert!(html.contains(&spades), "North's spades {spades}");
    // Analysed once per board, from the deal the log holds.
    let a = site.deals.get(5).unwrap();
    assert_eq!(a.pbn, deal.to_pbn());
    // The leads the club recorded are on the traveller.
    let (_, _, traveller) = common::get(&site, "/board/5?club=LINDFIELD").await;
    assert!(traveller.contains(">Lead<"), "the lead column is shown");
    // Whose the hand record is: no organiser's is declared.
    let whose = "As Club LINDFIELD's file gave it: the organiser has declared no hand record of this board.";
    assert!(html.contains(whose), "{html}");
}

/// The club whose file gave the hands is withdrawn: they leave the board page.
#[tokio::test]
async fn a_withdrawn_clubs_hands_leave_the_board_page() {
    let (dir, site) = real_event();
    assert!(site.deals.get(5).is_some());
    let log = simpairs_log::EmbeddedLog::open(dir.path()).unwrap();
    let organiser = simpairs_sim::organiser_key();
    simpairs_pipeline::publish::withdraw_club(&log, "real", "LINDFIELD", &organiser, "test")
        .unwrap();
    let replay = simpairs_pipeline::replay::replay_packed(&log, "real", None).unwrap();
    site.deals.know(replay.state.known_deals());
    assert_eq!((site.deals.get(5), site.deals.given(5)), (None, None));
    let (_, _, html) = common::get(&site, "/board/5").await;
    let gone = "The hand record of this board is not published yet.";
    assert!(html.contains(gone), "{html}");
}

#[tokio::test]
async fn players_of_real_files_are_found_by_national_id_and_name() {
    let (_dir, site) = real_event();
    let bytes = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/realdata/native/cobalt/mp_pairs_mitchell_02.xml"),
    )
    .unwrap();
    let imported = simpairs_formats::import::read("f.xml", &bytes, None).unwrap();
    let info = imported
        .pairs
        .iter()
        .find(|p| p.players.iter().any(|pl| pl.national_id.is_some()))
        .unwrap();
    let player = info
        .players
        .iter()
        .find(|pl| pl.national_id.is_some())
        .unwrap();
    let id = player.national_id.clone().unwrap();
    let (_, _, html) = common::get(&site, &format!("/search?q={id}")).await;
    assert!(
        html.contains(&format!("/pair/LINDFIELD/{}", info.label)),
        "national ID {id} finds pair {}:\n{html}",
        info.label
    );
    let lower = player.name.to_lowercase();
    let (_, _, html) = common::get(&site, &format!("/search?q={}", lower.replace(' ', "+"))).await;
    assert!(
        html.contains(&player.name),
        "{} is found in lower case",
        player.name
    );
    // Both clubs in one national field: a pair's scorecard shows both fields.
    let dir = info.direction.map_or("", |d| d.as_str());
    let (status, _, html) =
        common::get(&site, &format!("/pair/LINDFIELD/{}?dir={dir}", info.label)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("National, combined") && html.contains("Club, "));
}

/// A key revoked after its club published: the director's page says from where the revocation
/// holds, and a seal after it is set aside.
#[tokio::test]
async fn the_directors_page_says_where_a_revocation_holds_from() {
    let e = common::declared("revoked", "Revoked", &common::settings(44, 2, 3));
    e.publish(0);
    let club = &e.sim.clubs[1];
    let key = simpairs_sim::club_key(&club.id);
    let amendment = simpairs_pipeline::declare::Amendment {
        revoked: vec![(club.id.clone(), key.public().id())],
        ..Default::default()
    };
    let organiser = simpairs_sim::organiser_key();
    simpairs_pipeline::declare::amend(e.log.as_ref(), &e.id, &organiser, amendment).unwrap();
    append(&e, &club.id, &key, &club.csv, "after.csv");
    e.aggregate();
    let site = e.site();
    let (_, _, html) = common::get(&site, "/director").await;
    let said = format!(
        "Amendment 1: club {}'s key {} revoked, from offset ",
        club.id,
        key.public().id()
    );
    let section = html.contains("The organiser's amendments");
    assert!(section && html.contains(&said), "{html}");
    assert!(
        html.contains("which the organiser revoked from offset"),
        "{html}"
    );
}

/// Once the organiser closes the event, every page says its results are final, a club with none
/// is said to have none (not "not in yet"), and a submission sealed after the close is set aside.
#[tokio::test]
async fn a_closed_event_says_its_results_are_final() {
    let e = common::declared("closed", "Closed", &common::settings(45, 3, 3));
    e.publish(0);
    let close = simpairs_pipeline::declare::Amendment {
        close: true,
        ..Default::default()
    };
    let organiser = simpairs_sim::organiser_key();
    simpairs_pipeline::declare::amend(e.log.as_ref(), &e.id, &organiser, close).unwrap();
    let late = &e.sim.clubs[1];
    let key = simpairs_sim::club_key(&late.id);
    append(&e, &late.id, &key, &late.csv, "late.csv");
    e.aggregate();
    let site = e.site();
    let (_, _, home) = common::get(&site, "/").await;
    let final_line = "Final results (closed by the organiser at ";
    assert!(
        home.contains(final_line) && home.contains("): 1 of 3 clubs in"),
        "{home}"
    );
    assert!(!home.contains("Provisional"), "{home}");
    let (_, _, club) = common::get(&site, &format!("/club/{}", late.id)).await;
    assert!(
        club.contains("which the organiser closed without them"),
        "{club}"
    );
    let (_, _, director) = common::get(&site, "/director").await;
    let said = [
        "Clubs with no results (the event is closed)",
        "was sealed after the organiser closed the event",
    ];
    assert!(said.iter().all(|s| director.contains(s)), "{director}");
    let (_, _, status) = common::get(&site, "/api/status").await;
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert!(status["closed_ms"].as_i64().is_some(), "{status}");
}

/// A board the club corrected after its first upload says so on the pair's scorecard, with what
/// the first upload gave; the other boards say nothing.
#[tokio::test]
async fn a_corrected_board_says_so_on_the_scorecard_with_what_the_first_upload_gave() {
    let e = common::declared("fixed", "Fixed", &common::settings(46, 2, 3));
    e.publish(0);
    e.publish(1);
    let club = &e.sim.clubs[0];
    let mut lines = club.csv.lines();
    let header = lines.next().unwrap();
    let played = lines
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .find(|c| !c[5].is_empty() && c[5] != "PASS" && c[10] == "mitchell")
        .expect("a board played in a Mitchell section");
    let (board, ns, ew) = (played[0], played[3], played[4]);
    let (contract, declarer) = (played[5], played[6]);
    // The table passed the board out after all.
    let corrected = [
        board, played[1], played[2], ns, ew, "PASS", "", "", "", "", "mitchell",
    ];
    e.publish_csv(&club.id, &format!("{header}\n{}\n", corrected.join(",")));
    e.aggregate();
    let site = e.site();
    let url = format!("/pair/{}/{ns}?section=A&dir=NS", club.id);
    let (status, _, html) = common::get(&site, &url).await;
    assert_eq!(status, 200, "{html}");
    let said = "corrected, was ";
    assert_eq!(html.matches(said).count(), 1, "{html}");
    let row = html.split("<tr>").find(|r| r.contains(said)).unwrap();
    assert!(
        row.contains(&format!(">{board}</a>")) && row.contains("PASS"),
        "{row}"
    );
    // The club's traveller of the board too.
    let traveller = format!("/board/{board}?scope=club&club={}", club.id);
    let (_, _, html) = common::get(&site, &traveller).await;
    assert_eq!(html.matches(said).count(), 1, "{html}");
    assert!(
        html.contains(&format!("corrected, was {contract}")),
        "{html}"
    );
    // The JSON says the same, for tools.
    let api = format!("/api/pair?club={}&pair={ns}&section=A&dir=NS", club.id);
    let (_, _, json) = common::get(&site, &api).await;
    let card: serde_json::Value = serde_json::from_str(&json).unwrap();
    let lines = card["lines"].as_array().unwrap();
    let corrected: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["corrected"] == true).collect();
    assert_eq!(corrected.len(), 1, "{json}");
    assert_eq!(corrected[0]["board"].to_string(), board);
    assert_eq!(corrected[0]["first_upload"]["contract"], contract, "{json}");
    assert_eq!(corrected[0]["contract"], "PASS", "{json}");
    let was = format!("corrected, was {contract}");
    assert!(
        row.contains(&was) && row.contains(&format!(" {declarer}, ")),
        "{was}: {row}"
    );
}

/// Seals and appends a submission as a club program would, without publish's own checks.
fn append(
    e: &common::Event,
    club: &str,
    key: &simpairs_events::PrivateKey,
    csv: &str,
    source: &str,
) {
    let codec = simpairs_events::Codec::new().unwrap();
    let imported = simpairs_formats::import::read(source, csv.as_bytes(), None).unwrap();
    let submission = simpairs_pipeline::publish::submission_events(&e.id, club, &imported).unwrap();
    let sealed = simpairs_pipeline::publish::seal(
        &codec,
        &e.id,
        club,
        key,
        submission.events,
        simpairs_pipeline::publish::SealInfo {
            source: Some(source.into()),
            ..Default::default()
        },
    );
    simpairs_pipeline::publish::append_submission(e.log.as_ref(), &codec, &e.id, &sealed).unwrap();
}

#[tokio::test]
async fn the_directors_page_says_what_became_of_every_submission() {
    let e = common::declared("director", "Director", &common::settings(43, 3, 3));
    for i in 0..3 {
        e.publish(i);
    }
    // A correction of the first club; an upload for the second signed with another key; the
    // third club's results for a board the event does not have.
    let (index, csv) = &e.sim.correction;
    e.publish_csv(&e.sim.clubs[*index].id, csv);
    let victim = &e.sim.clubs[1];
    append(
        &e,
        &victim.id,
        &simpairs_sim::club_key("someone else"),
        &victim.csv,
        "forged.csv",
    );
    let third = &e.sim.clubs[2];
    append(
        &e,
        &third.id,
        &simpairs_sim::club_key(&third.id),
        "board,ns_pair,ew_pair,ns_score\n99,1,1,420\n",
        "board99.csv",
    );
    e.aggregate();
    let site = e.site();
    let listing = site.director().unwrap();
    let refused = listing
        .listing
        .submissions
        .iter()
        .find(|s| s.source.as_deref() == Some("board99.csv"))
        .unwrap_or_else(|| panic!("{:#?}", listing.listing));
    assert_eq!(
        refused.state,
        simpairs_pipeline::submissions::State::SetAside
    );
    let forged = listing
        .listing
        .dead_letters
        .first()
        .unwrap_or_else(|| panic!("{:#?}", listing.listing));
    let (_, _, html) = common::get(&site, "/director").await;
    assert!(
        html.contains("5 submissions")
            && html.contains("0 superseded")
            && html.contains("1 set aside")
            && html.contains("1 record set aside on its own"),
        "{html}"
    );
    // The correction named links to its row among its club's submissions.
    let first = &e.sim.clubs[*index].id;
    let correction = (listing.listing.submissions.iter())
        .rfind(|s| s.club == *first)
        .unwrap();
    let link = format!("/director?club={first}#s-{}", correction.submission);
    assert!(
        html.contains(&link) && html.contains(&format!("id=\"s-{}\"", correction.submission)),
        "{link}: {html}"
    );
    // The correction replaced a few lines: the club's first file is still applied, corrected.
    assert!(
        html.contains("applied</strong>, corrected by")
            && html.contains("of its lines still in force"),
        "{html}"
    );
    let text = |t: &str| {
        simpairs_pipeline::views::text::display_text(t, simpairs_pipeline::views::text::MAX_TEXT)
            .replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    assert!(
        html.contains(&text(refused.reason.as_deref().unwrap())),
        "the reason it was set aside"
    );
    assert!(
        html.contains(&text(&forged.reason)),
        "the forged record's reason: {}",
        forged.reason
    );
    let (_, _, only) = common::get(&site, "/director?state=set-aside").await;
    assert!(only.contains("board99.csv") && !only.contains(">applied<"));
    // The forged upload's records wait for a seal that applies: the director sees them, one for
    // each result line of the file.
    let lines = victim.csv.lines().skip(1).filter(|l| !l.is_empty()).count();
    let waiting = &listing.listing.unsealed;
    assert!(
        waiting.len() == 1
            && waiting[0].club == victim.id
            && waiting[0].records == lines as i64
            && waiting[0].seal.is_none(),
        "{waiting:?} {lines}"
    );
    assert!(
        html.contains("Submissions not complete") && html.contains("none that applies"),
        "{html}"
    );
    // Every club in: the results are still provisional, and the page says so.
    let (_, _, home) = common::get(&site, "/").await;
    assert!(
        home.contains("Provisional results: 3 of 3 clubs in"),
        "{home}"
    );
    // One club's submissions, its id typed in any case; sealed times to the second.
    let third_id = third.id.to_lowercase();
    let (_, _, only) = common::get(&site, &format!("/director?club={third_id}")).await;
    assert!(
        only.contains("board99.csv")
            && !only.contains("forged.csv")
            && only.contains("Submissions, latest first: 1 to 2 of 2"),
        "{only}"
    );
    assert!(only.contains("data-local=\"seconds\""), "{only}");
}

#[tokio::test]
async fn the_director_finds_the_submissions_with_a_note_and_the_correction_one_takes_back() {
    let e = common::declared("noted", "Noted", &common::settings(44, 2, 3));
    for i in 0..2 {
        e.publish(i);
    }
    // A club corrects a line, then publishes its first file again, which takes it back.
    let (index, csv) = &e.sim.correction;
    let club = &e.sim.clubs[*index];
    e.publish_csv(&club.id, csv);
    e.publish(*index);
    e.aggregate();
    let site = e.site();
    let listing = site.director().unwrap();
    let mine: Vec<_> = (listing.listing.submissions.iter())
        .filter(|s| s.club == club.id)
        .collect();
    let [_, correction, again] = mine[..] else {
        panic!("{:#?}", listing.listing)
    };
    let (_, _, html) = common::get(&site, "/director").await;
    assert!(
        html.contains("<a href=\"/director?notes=yes\">1 with a note</a>"),
        "{html}"
    );
    let (_, _, noted) = common::get(&site, "/director?notes=yes").await;
    assert!(
        noted.contains("Submissions with a note, latest first: 1 to 1 of 1")
            && noted.contains(&format!("id=\"s-{}\"", again.submission))
            && noted.contains("takes back 1 correction"),
        "{noted}"
    );
    // The correction it names links to its row among the club's submissions.
    let link = format!(
        "<a href=\"/director?club={}#s-{id}\">{id}</a> had corrected it",
        club.id,
        id = correction.submission
    );
    assert!(noted.contains(&link), "{link}: {noted}");
    let (status, _, _) = common::get(&site, "/director?notes=maybe").await;
    assert_eq!(status, 400);
}

/// While the log is still being read (a restart on a national event), a club with no results
/// shown may be in already: the director's page says so instead of calling it missing.
#[tokio::test]
async fn clubs_not_shown_while_the_log_is_read_are_not_called_missing() {
    let e = common::declared("reading", "Reading", &common::settings(11, 3, 4));
    e.publish(0);
    e.aggregate();
    let loaded =
        || simpairs_pipeline::project::Projection::load(e.log.as_ref(), "reading").unwrap();
    let absent = &e.sim.clubs[1].id;

    let reading = simpairs_web::Site::new(std::sync::Arc::new(std::sync::RwLock::new(loaded())));
    reading.refresh();
    let (_, _, html) = common::get(&reading, "/director").await;
    assert!(
        html.contains("Clubs not read yet")
            && html.contains("a club listed here may be in already")
            && !html.contains("Clubs not in yet")
            && html.contains(absent.as_str()),
        "{html}"
    );

    let live = simpairs_web::Site::loaded(loaded());
    let (_, _, html) = common::get(&live, "/director").await;
    assert!(
        html.contains("Clubs not in yet")
            && !html.contains("Clubs not read yet")
            && html.contains(absent.as_str()),
        "{html}"
    );
}

/// A club whose submission applied in the log while the aggregator has not published its scores
/// (stopped, or behind) is not called missing: the director is told to look at the aggregator.
#[tokio::test]
async fn a_club_applied_but_not_aggregated_is_told_apart_from_one_not_in() {
    let e = common::declared("behind", "Behind", &common::settings(11, 3, 4));
    e.publish(0);
    e.aggregate();
    // Club 1 publishes; no aggregator runs after it.
    e.publish(1);
    let site = e.site();
    let (_, _, html) = common::get(&site, "/director").await;
    let (waiting, absent) = (&e.sim.clubs[1].id, &e.sim.clubs[2].id);
    let at = |text: &str| html.find(text).unwrap_or_else(|| panic!("{text}: {html}"));
    let (applied, not_in) = (at("Applied, not shown yet"), at("Clubs not in yet"));
    let (w, a) = (at(&format!("({waiting})")), at(&format!("({absent})")));
    assert!(applied < w && w < not_in && not_in < a, "{html}");
    assert!(
        html.contains("check that the aggregator is running"),
        "{html}"
    );
}

/// A club whose results were withdrawn is said to be so on every page that lists it, not called
/// in, not shown yet or not in yet.
#[tokio::test]
async fn a_club_withdrawn_is_said_to_be_so_and_counted_out() {
    let e = common::declared("withdrawn", "Withdrawn", &common::settings(11, 3, 4));
    for i in 0..3 {
        e.publish(i);
    }
    let club = &e.sim.clubs[1];
    simpairs_pipeline::publish::withdraw_club(
        e.log.as_ref(),
        &e.id,
        &club.id,
        &simpairs_sim::organiser_key(),
        "played the boards early",
    )
    .unwrap();
    e.aggregate();
    let site = e.site();
    let (_, _, director) = common::get(&site, "/director").await;
    let at = |text: &str| {
        director
            .find(text)
            .unwrap_or_else(|| panic!("{text}: {director}"))
    };
    assert!(
        director.contains(r##"<a href="#withdrawn">1 club withdrawn</a>"##),
        "{director}"
    );
    assert_eq!(
        director
            .matches("signed by the organiser for the club")
            .count(),
        1
    );
    let section = &director[at("Clubs withdrawn")..at("Clubs not in yet")];
    assert!(
        section.contains("withdrawal: played the boards early"),
        "{section}"
    );
    assert_eq!(section.matches("<li>").count(), 1, "{section}");
    assert!(
        !director.contains("Applied, not shown yet")
            && director.contains("Every declared club not withdrawn is in."),
        "{director}"
    );
    assert!(director.contains("2 of 3 clubs in"), "{director}");
    let (_, _, clubs) = common::get(&site, "/clubs").await;
    assert!(clubs.contains("withdrawn at "), "{clubs}");
    let (_, _, page) = common::get(&site, &format!("/club/{}", club.id)).await;
    assert!(
        page.contains("This club&#39;s results were withdrawn at")
            || page.contains("This club's results were withdrawn at"),
        "{page}"
    );
    let (_, _, pair) = common::get(&site, &format!("/pair?club={}&pair=1", club.id)).await;
    assert!(
        pair.contains("results were withdrawn: they count in no ranking"),
        "{pair}"
    );
    let (_, _, home) = common::get(&site, "/").await;
    assert!(home.contains("(its results withdrawn)"), "{home}");
    // A player who searches finds the pair, said to be out; the other clubs' pairs are not.
    let search = |name: &str| format!("/search?q={}+1", name.replace(' ', "+"));
    let (_, _, found) = common::get(&site, &search(&club.name)).await;
    let said = [
        "the club&#39;s results withdrawn",
        "the club's results withdrawn",
    ];
    assert!(found.contains("Pairs found"), "{found}");
    assert!(said.iter().any(|s| found.contains(s)), "{found}");
    let (_, _, other) = common::get(&site, &search(&e.sim.clubs[0].name)).await;
    assert!(other.contains("Pairs found"), "{other}");
    assert!(!said.iter().any(|s| other.contains(s)), "{other}");
    let (_, _, api) = common::get(&site, "/api/clubs").await;
    let api: serde_json::Value = serde_json::from_str(&api).unwrap();
    let (entry, other) = (&api[club.id.as_str()], &api[e.sim.clubs[0].id.as_str()]);
    assert_eq!(
        (&entry["in"], &entry["withdrawn"], &entry["pairs"]),
        (&false.into(), &true.into(), &0.into()),
        "{api}"
    );
    assert_eq!(
        (&other["in"], &other["withdrawn"]),
        (&true.into(), &false.into()),
        "{api}"
    );
    let (_, _, status) = common::get(&site, "/api/status").await;
    assert!(status.contains(r#""clubs":2,"#), "{status}");
    // Its pairs are in no national ranking.
    let (_, _, leaderboard) = common::get(&site, "/api/leaderboard?limit=1000").await;
    let leaderboard: serde_json::Value = serde_json::from_str(&leaderboard).unwrap();
    let rows = leaderboard["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(|r| r["club_id"] != club.id.as_str()),
        "{leaderboard}"
    );
}
