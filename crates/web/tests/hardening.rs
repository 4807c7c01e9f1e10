//! What the site withstands (issue 18, "Trust"): names from uploaded files holding markup are
//! shown as text on every page; no parameter is written back into a page; every response carries
//! the security headers; a 20 MB name is never served whole; slow clients are bounded in number
//! and in time; a damaged log stops `serve` with an error instead of a frozen or empty event.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use simpairs_web::Site;

const EVIL: &str = "<script>alert(1)</script>";
const EVIL_IMG: &str = "<img src=x onerror=alert(2)>";

/// The only script a page may load is the site's own file.
fn assert_no_markup_from_files(path: &str, body: &str) {
    assert!(
        !body.contains("<script>alert"),
        "{path} carries a script from a file:\n{body}"
    );
    assert!(
        !body.contains("<img src=x"),
        "{path} carries an element from a file"
    );
    let scripts: Vec<&str> = body
        .match_indices("<script")
        .map(|(i, _)| &body[i..(i + 40).min(body.len())])
        .collect();
    assert!(
        scripts
            .iter()
            .all(|s| s.starts_with("<script src=\"/static/live.js")),
        "{path}: {scripts:?}"
    );
}

/// A club's traveller CSV with its players named `<script>...` and `<img ...>`.
fn evil_csv(club: &simpairs_sim::SimClub) -> String {
    let mut out = String::new();
    for (i, line) in club.csv.lines().enumerate() {
        out.push_str(line);
        out.push_str(if i == 0 { ",ns_names,ew_names\n" } else { "" });
        if i > 0 {
            out.push_str(&format!(",{EVIL} & Ann,{EVIL_IMG} & Bob\n"));
        }
    }
    out
}

#[tokio::test]
async fn names_from_files_are_text_on_every_page() {
    let settings = common::settings(5, 4, 3);
    let event = common::declared_as("xss", &format!("{EVIL} national"), &settings, |c| {
        format!("{EVIL_IMG} {}", c.name)
    });
    for club in &event.sim.clubs {
        event.publish_csv(&club.id, &evil_csv(club));
    }
    event.aggregate();
    let site = event.site();
    let (club, pair, section) = {
        let p = site.projection();
        let first = p.leaderboard("ns", 0, 1).1.remove(0);
        (first.club_id, first.pair, first.section)
    };
    let pages = [
        "/".to_string(),
        "/search?q=script".to_string(),
        "/search?q=alert".to_string(),
        "/rankings?list=combined".to_string(),
        "/rankings?list=ns".to_string(),
        format!("/rankings?list=ew&club={club}"),
        "/clubs".to_string(),
        format!("/club/{club}"),
        format!("/pair/{club}/{pair}?section={section}&dir=NS"),
        format!("/pair/{club}/{pair}"),
        "/board/1".to_string(),
        format!("/board/1?club={club}"),
        format!("/board/1?club={club}&scope=club"),
        "/boards".to_string(),
        "/director".to_string(),
    ];
    let mut shown_escaped = 0;
    for path in &pages {
        let (status, _, body) = common::get(&site, path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_no_markup_from_files(path, &body);
        shown_escaped += usize::from(body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }
    assert!(
        shown_escaped >= pages.len() - 2,
        "the names are shown, as text ({shown_escaped} pages)"
    );
    // The analysts' pages (the chart's lines are titled with the names) and their JSON.
    site.set_analysts(
        simpairs_web::analysts::Analysts::new(event.log.clone(), &event.id, None).unwrap(),
    );
    for path in [
        "/movement".to_string(),
        format!("/movement?club={club}&pair={pair}&section={section}&dir=NS"),
        "/compare?b_factoring=ratio&b=fouled%3Dadd-one".to_string(),
    ] {
        let (status, _, body) = common::get(&site, &path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_no_markup_from_files(&path, &body);
    }
    // The JSON carries the names as JSON text, never as a page.
    for path in ["/api/movement", "/api/compare?b_scoring=butler"] {
        let (status, headers, _) = common::get(&site, path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers["content-type"], "application/json", "{path}");
    }
    let (_, _, chart) = common::get(&site, "/movement").await;
    assert!(
        chart.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the lines are named, as text"
    );
}

#[tokio::test]
async fn no_parameter_is_written_back_into_a_page() {
    let event = common::published("reflect", "Reflection", &common::settings(6, 3, 2));
    let site = event.site();
    site.set_analysts(
        simpairs_web::analysts::Analysts::new(event.log.clone(), &event.id, None).unwrap(),
    );
    let attack = "%22%3E%3Cscript%3Ex()%3C%2Fscript%3E";
    let paths = [
        format!("/?list={attack}"),
        format!("/rankings?list={attack}"),
        format!("/rankings?offset={attack}"),
        format!("/rankings?club={attack}"),
        format!("/rankings?limit={attack}"),
        format!("/board/{attack}"),
        format!("/board/1?scope={attack}"),
        format!("/board/1?club={attack}"),
        format!("/board/1?offset={attack}"),
        format!("/club/{attack}"),
        format!("/pair/{attack}/1"),
        format!("/pair/C0001/{attack}"),
        format!("/pair/C0001/1?dir={attack}"),
        format!("/pair?club={attack}&pair=1"),
        format!("/clubs?offset={attack}"),
        format!("/director?state={attack}"),
        format!("/api/leaderboard?list={attack}"),
        format!("/api/boards/{attack}"),
        format!("/api/pair?club={attack}&pair=1"),
        format!("/nowhere{attack}"),
        format!("/movement?top={attack}"),
        format!("/movement?club={attack}&pair=1"),
        format!("/movement?club=C0001&pair=1&dir={attack}"),
        format!("/compare?a={attack}"),
        format!("/compare?b_conventions={attack}"),
        format!("/compare?a_factoring=ratio&limit={attack}"),
        format!("/player/{attack}"),
        format!("/api/movement?club={attack}&pair=1"),
        format!("/api/compare?b={attack}"),
        format!("/api/player/{attack}"),
    ];
    for path in &paths {
        let (status, _, body) = common::get(&site, path).await;
        assert!(status.is_client_error(), "{path} answered {status}");
        assert!(!body.contains("<script>x"), "{path} reflects the script");
        assert!(
            !body.contains("&lt;script&gt;x"),
            "{path} writes the parameter back:\n{body}"
        );
        assert!(
            !body.contains("x()"),
            "{path} writes the parameter back:\n{body}"
        );
    }
    // What a reader typed stays in the box they typed it in, as text.
    for path in [
        format!("/search?q={attack}"),
        format!("/rankings?me_club={attack}&me_pair=1"),
    ] {
        let (status, _, body) = common::get(&site, &path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert!(!body.contains("<script>x"), "{path}");
        let echoed: Vec<usize> = body
            .match_indices("&lt;script&gt;x")
            .map(|(i, _)| i)
            .collect();
        assert!(
            echoed.iter().all(|&i| body[..i]
                .rsplit_once('<')
                .is_some_and(|(_, tag)| tag.starts_with("input"))),
            "{path}: the text typed is shown only in its input box"
        );
    }
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let event = common::published("headers", "Headers", &common::settings(7, 3, 2));
    let site = event.site();
    for path in [
        "/",
        "/rankings",
        "/api/status",
        "/api/leaderboard",
        "/static/site.css",
        "/static/live.js",
        "/nowhere",
        "/rankings?list=x",
    ] {
        let (_, headers, _) = common::get(&site, path).await;
        let csp = headers
            .get("content-security-policy")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        assert!(
            csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
            "{path}: {csp:?}"
        );
        assert_eq!(
            headers.get("x-content-type-options").map(|v| v.as_bytes()),
            Some(&b"nosniff"[..]),
            "{path}"
        );
        assert!(headers.contains_key("referrer-policy"), "{path}");
    }
    // No inline script or style anywhere: the policy would block it.
    let (_, _, home) = common::get(&site, "/").await;
    assert!(!home.contains("<style") && !home.contains(" style=") && !home.contains("<script>"));
}

/// A projection as the log would give it if a writer let a 20 MB name through: one club, one
/// board, two tables.
fn projection_with_a_huge_name() -> simpairs_pipeline::project::Projection {
    use simpairs_events::Event;
    use simpairs_events::types::*;
    let huge = "Ñ".repeat(10 << 20);
    let mut p = simpairs_pipeline::project::Projection::new("huge");
    p.apply(Event::EventDeclared(EventDeclared {
        event_id: "huge".into(),
        name: huge.clone(),
        boards: vec![1],
        scoring: Scoring::Matchpoints,
        factoring: Factoring::Neuberg,
        clubs: vec![ClubEntry {
            club_id: "C".into(),
            name: huge.clone(),
            key_id: "k".into(),
            public_key: vec![0; 32],
        }],
        declared_at_ms: 0,
        aggregator_keys: Vec::new(),
        organiser_key: None,
        limits: None,
        conventions: None,
    }));
    let table = |ns: &str, score: i32| AppliedResult {
        section: "A".into(),
        board: 1,
        ns_pair: ns.into(),
        ew_pair: ns.into(),
        movement: Movement::Mitchell,
        contract: None,
        declarer: None,
        tricks: None,
        ns_score: Some(score),
        ew_score: None,
        adjusted: None,
        arrow_switch: false,
        group: None,
        lead: Some(huge.clone().into()),
    };
    let pair = |n: &str, d| AppliedPair {
        section: "A".into(),
        pair: n.into(),
        direction: Some(d),
        players: vec![Player {
            name: huge.clone(),
            national_id: Some(huge.clone()),
        }],
    };
    p.apply(Event::SubmissionApplied(SubmissionApplied {
        event_id: "huge".into(),
        club_id: "C".into(),
        submission_id: "s".into(),
        seal_offset: 0,
        results: vec![table("1", 420), table("2", -50)],
        withdrawn: Vec::new(),
        pairs: vec![
            pair("1", Direction::Ns),
            pair("1", Direction::Ew),
            pair("2", Direction::Ns),
        ],
    }));
    p.rank_national().unwrap();
    p
}

#[tokio::test]
async fn a_20_mb_name_is_never_served_whole() {
    let site = Site::loaded(projection_with_a_huge_name());
    for path in [
        "/",
        "/rankings",
        "/rankings?list=ns",
        "/clubs",
        "/club/C",
        "/pair/C/1?dir=NS",
        "/pair/C/1",
        "/board/1",
        "/board/1?club=C",
        "/search?q=nnnn",
        "/director",
        "/api/status",
        "/api/clubs",
        "/api/pair?club=C&section=A&pair=1&direction=NS",
    ] {
        let (status, _, body) = common::get(&site, path).await;
        assert!(status.is_success(), "{path}: {status}");
        assert!(body.len() < 64 * 1024, "{path} is {} bytes", body.len());
    }
    let (_, _, card) = common::get(&site, "/pair/C/1?dir=NS").await;
    assert!(card.contains("ÑÑÑÑÑ…"), "the name is shown, cut");
}

/// A client that sends its request's headers a byte at a time and never finishes; returns how
/// long the server kept it.
fn slow_client(addr: std::net::SocketAddr, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_millis(100))).ok()?;
    let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n");
    let mut buf = [0u8; 256];
    while started.elapsed() < limit {
        let _ = s.write_all(b"X");
        match s.read(&mut buf) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return Some(started.elapsed()),
        }
    }
    None
}

fn get_page(addr: std::net::SocketAddr) -> (Duration, String) {
    let started = Instant::now();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(b"GET /api/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    (started.elapsed(), out)
}

#[test]
fn slow_clients_are_bounded_in_number_and_in_time() {
    let event = common::published("slow", "Slow", &common::settings(8, 3, 2));
    let mut config = simpairs_web::Config::new("127.0.0.1:0".parse().unwrap());
    let timeout = Duration::from_secs(1);
    config.server.max_connections = 16;
    config.server.header_read_timeout = timeout;
    let served = common::serve(&event, config);
    let addr: std::net::SocketAddr = served.url.trim_start_matches("http://").parse().unwrap();
    // Three times as many slow clients as connections served at once.
    let limit = Duration::from_secs(20);
    let clients: Vec<_> = (0..48)
        .map(|_| std::thread::spawn(move || slow_client(addr, limit)))
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let (waited, answer) = get_page(addr);
    let kept: Vec<Option<Duration>> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    let stats = &served.site.connections;
    assert!(
        stats.peak() <= 16,
        "{} connections were open at once",
        stats.peak()
    );
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "a reader is served during the attack: {answer:?}"
    );
    // Each wave of 16 is dropped after the timeout; three waves, and the reader's turn.
    assert!(waited < timeout * 5, "the reader waited {waited:?}");
    let longest = kept
        .iter()
        .map(|k| k.expect("every slow client is dropped"))
        .max()
        .unwrap();
    assert!(longest < timeout * 5, "a slow client was kept {longest:?}");
}

#[test]
fn an_idle_kept_alive_connection_is_closed() {
    let event = common::published("idle", "Idle", &common::settings(9, 2, 2));
    let mut config = simpairs_web::Config::new("127.0.0.1:0".parse().unwrap());
    config.server.header_read_timeout = Duration::from_secs(1);
    let served = common::serve(&event, config);
    let addr: std::net::SocketAddr = served.url.trim_start_matches("http://").parse().unwrap();
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = Instant::now();
    let mut buf = vec![0u8; 1 << 16];
    // The response, then the close.
    let mut got = 0;
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    assert!(got > 0, "a response came first");
    let idle = started.elapsed();
    assert!(
        idle < Duration::from_secs(3),
        "an idle connection was kept {idle:?}"
    );
}

fn http_get(addr: std::net::SocketAddr, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

#[test]
fn a_damaged_log_stops_serve_with_the_error_shown_meanwhile() {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let event = common::published("damaged", "Damaged", &common::settings(10, 4, 3));
    // A record in the middle of the board scores damaged, whole records after it.
    let segment = event
        .dir
        .path()
        .join("damaged.board-scores/0/00000000000000000000.log");
    let mut bytes = std::fs::read(&segment).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 0xff;
    std::fs::write(&segment, bytes).unwrap();

    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(event.dir.path()).unwrap());
    let mut config = simpairs_web::Config::new("127.0.0.1:0".parse().unwrap());
    let grace = Duration::from_secs(3);
    config.fail_grace = grace;
    let (tx, rx) = std::sync::mpsc::channel();
    let started = Instant::now();
    let serving = std::thread::spawn(move || {
        simpairs_web::run(
            log,
            "damaged",
            config,
            Arc::new(AtomicBool::new(false)),
            |_| {},
            move |a| {
                let _ = tx.send(a);
            },
        )
    });
    let addr = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    let status = loop {
        let answer = http_get(addr, "/api/status");
        if answer.contains("\"state\":\"failed\"") {
            break answer;
        }
        assert!(
            started.elapsed() < grace,
            "the error is reported while the site still answers: {answer}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.starts_with("HTTP/1.1 503"), "{status}");
    assert!(
        status.contains("damaged.board-scores"),
        "the error names the stream: {status}"
    );
    let home = http_get(addr, "/");
    assert!(home.contains("The results stopped updating"), "{home}");
    assert!(
        !home.contains("No club's results are in yet"),
        "a damaged log is not an empty event"
    );
    let ended = serving.join().unwrap();
    assert!(
        matches!(ended, Err(simpairs_web::Error::ProjectionStopped(_))),
        "{ended:?}"
    );
    let took = started.elapsed();
    assert!(
        took >= grace && took < grace + Duration::from_secs(10),
        "stopped after {took:?}"
    );
}
