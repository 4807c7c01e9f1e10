//! Helpers shared by the web crate's tests: a simulated event published through the pipeline (as
//! `simpairs demo` does: the same simulation, the players' names added), and requests through
//! the router.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};
use simpairs_pipeline::project::Projection;
use simpairs_web::{App, Site};
use tower::ServiceExt;

/// An event in a log of its own.
pub struct Event {
    pub dir: tempfile::TempDir,
    pub log: Arc<dyn simpairs_log::Log>,
    pub id: String,
    pub sim: simpairs_sim::SimEvent,
    pub seed: u64,
}

pub fn settings(seed: u64, clubs: usize, boards: u16) -> simpairs_sim::Settings {
    simpairs_sim::Settings {
        seed,
        clubs,
        boards,
        adjusted_one_in: 40,
        ..Default::default()
    }
}

/// Declares a simulated event named `name` (nothing published yet).
pub fn declared(id: &str, name: &str, settings: &simpairs_sim::Settings) -> Event {
    declared_as(id, name, settings, |c| c.name.clone())
}

/// [`declared`], each club named by `club_name`.
pub fn declared_as(
    id: &str,
    name: &str,
    settings: &simpairs_sim::Settings,
    club_name: impl Fn(&simpairs_sim::SimClub) -> String,
) -> Event {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let sim = simpairs_sim::national_event(settings);
    let clubs = sim
        .clubs
        .iter()
        .map(|c| ClubLine {
            club_id: c.id.clone(),
            name: club_name(c),
            public_key: Some(simpairs_sim::club_key(&c.id).public()),
        })
        .collect();
    let declaration = Declaration::matchpoints(id, name, sim.boards, clubs, 1).with_keys(
        simpairs_sim::aggregator_key().public(),
        simpairs_sim::organiser_key().public(),
    );
    declare(log.as_ref(), declaration).unwrap();
    Event {
        dir,
        log,
        id: id.to_string(),
        sim,
        seed: settings.seed,
    }
}

impl Event {
    /// Publishes club `i` with its players' names.
    pub fn publish(&self, i: usize) {
        let club = &self.sim.clubs[i];
        let csv = simpairs_sim::names::with_names(club, self.seed);
        self.publish_csv(&club.id, &csv);
    }

    /// Publishes a traveller CSV for a club.
    pub fn publish_csv(&self, club: &str, csv: &str) {
        simpairs_pipeline::publish::publish_file(
            self.log.as_ref(),
            &self.id,
            club,
            &simpairs_sim::club_key(club),
            "club.csv",
            csv.as_bytes(),
            None,
        )
        .unwrap();
    }

    /// Runs an aggregator until the log is drained.
    pub fn aggregate(&self) {
        let mut aggregator =
            Aggregator::open(self.log.clone(), &self.id, simpairs_sim::aggregator_key()).unwrap();
        let options = AggregateOptions {
            until_idle: true,
            ..Default::default()
        };
        aggregator
            .run(&options, &AtomicBool::new(false), |_| {})
            .unwrap();
    }

    /// The site over everything the log holds now, the director's listing read.
    pub fn site(&self) -> Site {
        let site = Site::loaded(Projection::load(self.log.as_ref(), &self.id).unwrap());
        site.read_log(self.log.as_ref()).unwrap();
        site
    }
}

/// An event with every club published and aggregated.
pub fn published(id: &str, name: &str, settings: &simpairs_sim::Settings) -> Event {
    let e = declared(id, name, settings);
    for i in 0..e.sim.clubs.len() {
        e.publish(i);
    }
    e.aggregate();
    e
}

pub fn app(site: &Site) -> axum::Router {
    simpairs_web::router(App::new(site.clone(), 16))
}

/// GETs `uri`: status, headers, body.
pub async fn get(site: &Site, uri: &str) -> (StatusCode, HeaderMap, String) {
    let response = app(site)
        .oneshot(Request::builder().uri(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), 64 << 20)
        .await
        .unwrap();
    (status, headers, String::from_utf8(bytes.to_vec()).unwrap())
}

/// Two real clubs' USEBIO files (Compscore3: players' names, national IDs, leads and hand
/// records) published as the two clubs of one event, and aggregated.
pub fn real_clubs(id: &str) -> Event {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let clubs = ["LINDFIELD", "LINDFIELD-2"];
    let lines = clubs
        .iter()
        .map(|c| ClubLine {
            club_id: c.to_string(),
            name: format!("Lindfield {c}"),
            public_key: Some(simpairs_sim::club_key(c).public()),
        })
        .collect();
    let declaration = Declaration::matchpoints(id, "Two real clubs", 27, lines, 1).with_keys(
        simpairs_sim::aggregator_key().public(),
        simpairs_sim::organiser_key().public(),
    );
    declare(log.as_ref(), declaration).unwrap();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/realdata/native/cobalt");
    let sim = simpairs_sim::national_event(&settings(1, 0, 27));
    let e = Event {
        dir,
        log,
        id: id.to_string(),
        sim,
        seed: 1,
    };
    for (club, file) in clubs
        .iter()
        .zip(["mp_pairs_mitchell_02.xml", "mp_pairs_mitchell_03.xml"])
    {
        let bytes = without_hand_records_but_the_first(
            club == &clubs[0],
            std::fs::read(fixtures.join(file)).unwrap(),
        );
        simpairs_pipeline::publish::publish_file(
            e.log.as_ref(),
            id,
            club,
            &simpairs_sim::club_key(club),
            file,
            &bytes,
            None,
        )
        .unwrap();
    }
    e.aggregate();
    e
}

/// A site served live over `event`'s log: the aggregator and the site's projection follow the
/// log as the test publishes.
pub struct Served {
    pub url: String,
    pub site: Site,
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

pub fn serve(event: &Event, config: simpairs_web::Config) -> Served {
    let stop = Arc::new(AtomicBool::new(false));
    let site = Site::new(Arc::new(std::sync::RwLock::new(Projection::new(&event.id))));
    let aggregator = {
        let (log, id, stop) = (event.log.clone(), event.id.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut aggregator =
                Aggregator::open(log, &id, simpairs_sim::aggregator_key()).unwrap();
            aggregator
                .run(&AggregateOptions::default(), &stop, |_| {})
                .unwrap();
        })
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let server = {
        let (log, stop, site) = (event.log.clone(), stop.clone(), site.clone());
        std::thread::spawn(move || {
            let _ = simpairs_web::run_site(
                site,
                log,
                config,
                stop,
                |_| {},
                move |addr| {
                    let _ = tx.send(addr);
                },
            );
        })
    };
    let addr = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the site listens");
    Served {
        url: format!("http://{addr}"),
        site,
        stop,
        threads: vec![aggregator, server],
    }
}

impl Served {
    /// Waits until the site has analysed the deal of `board`, up to 60 s.
    pub fn wait_for_deal(&self, board: i32) {
        let started = std::time::Instant::now();
        while self.site.deals.get(board).is_none() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "no hand record of board {board}"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// Whether the site shows `clubs` clubs in, nationally ranked. (The projection's lock is
    /// taken and let go before the catalog's, as the site does.)
    fn shows(&self, clubs: usize) -> bool {
        let generation = self
            .site
            .projection()
            .national
            .as_ref()
            .map_or(0, |n| n.generation);
        let in_catalog = self.site.catalog().clubs().len();
        in_catalog >= clubs && generation as usize >= clubs
    }

    /// Waits until the site shows `clubs` clubs in, up to 30 s.
    pub fn wait_for_clubs(&self, clubs: usize) {
        let started = std::time::Instant::now();
        while !self.shows(clubs) {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the site did not show {clubs} clubs: {:?}, {} clubs, generation {}",
                self.site.health.state(),
                self.site.catalog().clubs().len(),
                self.site.projection().generation()
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// The file as published, or without its hand records: the two sessions were dealt differently,
/// and a club whose deals differ from the event's is set aside.
pub fn without_hand_records_but_the_first(first: bool, bytes: Vec<u8>) -> Vec<u8> {
    if first {
        return bytes;
    }
    let text = String::from_utf8(bytes).unwrap();
    match (text.find("<HANDSET>"), text.rfind("</HANDSET>")) {
        (Some(a), Some(b)) => {
            format!("{}{}", &text[..a], &text[b + "</HANDSET>".len()..]).into_bytes()
        }
        _ => text.into_bytes(),
    }
}
