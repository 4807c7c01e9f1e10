//! Events for the crate's own unit tests: a simulated event declared in a log of its own, and one
//! with its first club published and aggregated (the integration tests' `common` does the same
//! for whole events).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use simpairs_log::Log;
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};

/// The settings of a one-club, four-board event.
fn one_club() -> simpairs_sim::Settings {
    simpairs_sim::Settings {
        seed: 5,
        clubs: 1,
        boards: 4,
        ..Default::default()
    }
}

/// A log holding the declaration of event `id`: one simulated club, nothing published.
pub(crate) fn declared(id: &str) -> (tempfile::TempDir, Arc<dyn Log>, simpairs_sim::SimEvent) {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let sim = simpairs_sim::national_event(&one_club());
    let clubs = sim
        .clubs
        .iter()
        .map(|c| ClubLine {
            club_id: c.id.clone(),
            name: c.name.clone(),
            public_key: Some(simpairs_sim::club_key(&c.id).public()),
        })
        .collect();
    let declaration = Declaration::matchpoints(id, "Sim", sim.boards, clubs, 1).with_keys(
        simpairs_sim::aggregator_key().public(),
        simpairs_sim::organiser_key().public(),
    );
    declare(log.as_ref(), declaration).unwrap();
    (dir, log, sim)
}

/// [`declared`], with its club published and aggregated.
pub(crate) fn published(id: &str) -> (tempfile::TempDir, Arc<dyn Log>) {
    let (dir, log, sim) = declared(id);
    let club = &sim.clubs[0];
    let csv = simpairs_sim::names::with_names(club, one_club().seed);
    let key = simpairs_sim::club_key(&club.id);
    let file = csv.as_bytes();
    simpairs_pipeline::publish::publish_file(
        log.as_ref(),
        id,
        &club.id,
        &key,
        "club.csv",
        file,
        None,
    )
    .unwrap();
    let mut aggregator = Aggregator::open(log.clone(), id, simpairs_sim::aggregator_key()).unwrap();
    let options = AggregateOptions {
        until_idle: true,
        ..Default::default()
    };
    aggregator
        .run(&options, &AtomicBool::new(false), |_| {})
        .unwrap();
    (dir, log)
}
