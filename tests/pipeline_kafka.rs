//! The pipeline across processes on a real Kafka-protocol broker (`SIMPAIRS_KAFKA`, started by
//! `scripts/broker start`): two aggregator processes in one group give the leaderboard of one; an
//! aggregator killed with SIGKILL mid-stream converges to the clean result; duplicated, forged and
//! malformed input behave as on the embedded log. Without a broker these tests fail in CI and are
//! skipped (with a note) elsewhere.

use crate::common;

use std::time::Duration;

use common::*;

const PARTITIONS: u32 = 3;

/// The tests here each start several aggregator processes against one broker on a 2-core machine;
/// run concurrently they starve each other's group joins, so they take turns.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn two_aggregators_in_one_group_give_the_result_of_one() {
    let _turn = turn();
    let Some(clean_log) = kafka("two-clean") else {
        return;
    };
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 12,
        clubs: 16,
        boards: 9,
        ..Default::default()
    });
    let clean = clean_run(clean_log, &event, PARTITIONS);
    let log = kafka("two").expect("broker");
    log.declare(&event, PARTITIONS);
    let mut a = log.aggregator("a", false);
    let mut b = log.aggregator("b", false);
    for (club, csv) in publish_order(&event) {
        log.publish(&event, club, &csv);
    }
    let converged = log.converges_to(&clean, Duration::from_secs(120));
    a.kill().unwrap();
    b.kill().unwrap();
    a.wait().unwrap();
    b.wait().unwrap();
    if let Err(difference) = converged {
        panic!("two aggregators did not converge to one's leaderboard: {difference}");
    }
    assert!(log.dead_letters().is_empty());
}

#[test]
fn killed_aggregator_converges_to_the_clean_run_over_kafka() {
    let _turn = turn();
    let Some(clean_log) = kafka("kill-clean") else {
        return;
    };
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 99,
        clubs: 14,
        boards: 8,
        ..Default::default()
    });
    let clean = clean_run(clean_log, &event, PARTITIONS);
    let log = kafka("kill").expect("broker");
    log.declare(&event, PARTITIONS);
    let kills = publish_while_killing(&log, &event, "main");
    assert!(log.aggregator("main", true).wait().unwrap().success());
    assert!(kills >= 2, "killed only {kills} times");
    if let Err(difference) = log.converges_to(&clean, Duration::from_secs(30)) {
        panic!("after SIGKILLs the leaderboard differs from the clean run: {difference}");
    }
    assert!(log.dead_letters().is_empty());
}

#[test]
fn forged_and_malformed_input_over_kafka() {
    let _turn = turn();
    let Some(log) = kafka("forged") else { return };
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 5,
        clubs: 10,
        boards: 4,
        ..Default::default()
    });
    log.declare(&event, PARTITIONS);
    for (club, csv) in publish_order(&event).iter().take(6) {
        log.publish(&event, *club, csv);
    }
    assert!(log.aggregator("main", true).wait().unwrap().success());
    let before = log.leaderboard();
    send_forged_and_malformed(&log, &event);
    assert!(log.aggregator("main", true).wait().unwrap().success());
    assert_eq!(log.leaderboard(), before, "nothing else changes");
    let reasons = log.dead_letters();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("signed with key") || r.contains("does not verify")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("cannot read")),
        "{reasons:?}"
    );
    // A record the aggregator staged is read again through the broker for its dead letter.
    log.assert_dead_letters_carry_their_records();
}
