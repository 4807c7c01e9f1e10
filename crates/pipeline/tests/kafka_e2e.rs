//! End to end on real data over Kafka: the embedded scenario (`common`) unchanged, on a real
//! Kafka-protocol broker with three partitions. The broker's address comes from `SIMPAIRS_KAFKA`
//! (`scripts/broker start` prints it); without it the test fails in CI and says how to start one
//! elsewhere.

use crate::common;

use std::sync::Arc;

fn kafka() -> Option<Arc<dyn simpairs_log::Log>> {
    match std::env::var("SIMPAIRS_KAFKA") {
        Ok(location) => Some(Arc::new(
            simpairs_kafka::KafkaLog::open(&location).expect("the broker answers"),
        )),
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!(
                "SIMPAIRS_KAFKA is not set: start the broker with scripts/broker start and export its address"
            )
        }
        Err(_) => {
            eprintln!(
                "skipped: no broker (start one with `export SIMPAIRS_KAFKA=$(scripts/broker start)`)"
            );
            None
        }
    }
}

/// A fresh event id per run, so each run has fresh topics.
fn fresh(prefix: &str) -> String {
    format!("{prefix}-{}-{}", std::process::id(), fastrand::u32(..))
}

#[test]
fn real_mitchell_session_split_into_clubs_over_kafka() {
    let Some(log) = kafka() else { return };
    let (national, clubs) = common::split_session("cobalt/mp_pairs_mitchell_03.xml");
    common::run_pipeline(log, &fresh("real-e2e"), 3, &national, &clubs);
}

#[test]
fn real_session_with_adjusted_scores_split_into_clubs_over_kafka() {
    let Some(log) = kafka() else { return };
    let (national, clubs) = common::split_session("cobalt/mp_pairs_mitchell_02.xml");
    common::run_pipeline(log, &fresh("real-adj"), 3, &national, &clubs);
}
