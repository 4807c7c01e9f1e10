//! End to end on real data over the embedded log (the scenario is in `common`).

use crate::common;

use std::sync::Arc;

fn embedded() -> (tempfile::TempDir, Arc<dyn simpairs_log::Log>) {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn simpairs_log::Log> =
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    (dir, log)
}

#[test]
fn real_mitchell_session_split_into_clubs() {
    let (national, clubs) = common::split_session("cobalt/mp_pairs_mitchell_03.xml");
    let (_dir, log) = embedded();
    common::run_pipeline(log, "real-e2e", 1, &national, &clubs);
}

#[test]
fn real_session_with_adjusted_scores_split_into_clubs() {
    // 21-table Mitchell with artificial adjusted scores (A5050, A6060): Neuberg fractions throughout.
    let (national, clubs) = common::split_session("cobalt/mp_pairs_mitchell_02.xml");
    let (_dir, log) = embedded();
    common::run_pipeline(log, "real-e2e", 1, &national, &clubs);
}
