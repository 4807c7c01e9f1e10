//! On the embedded log: the aggregator killed with SIGKILL at random moments while clubs publish
//! converges, after restart, to exactly the leaderboard of a clean run, which holds every club; duplicated submissions change
//! nothing; forged and malformed input go to dead letters and change nothing.

use crate::common;

use common::*;

#[test]
fn killed_aggregator_converges_to_the_clean_run() {
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 99,
        clubs: 24,
        boards: 8,
        ..Default::default()
    });
    let clean = clean_run(embedded("kill-test"), &event, 1);
    let log = embedded("kill-test");
    log.declare(&event, 1);
    let kills = publish_while_killing(&log, &event, "main");
    assert!(
        log.aggregator("main", true).wait().unwrap().success(),
        "restarted, it catches up"
    );
    assert!(
        kills >= 3,
        "the test killed the aggregator only {kills} times"
    );
    let got = log.leaderboard();
    assert_complete(&event, &got);
    assert_eq!(got, clean);
    assert!(log.dead_letters().is_empty());
}

/// About 200,000 results, the aggregator killed at random moments at least 20 times while it
/// ingests them in small batches: once it has caught up, every view the projection serves
/// (national lists, clubs' standings, every board in every scope, every scorecard) is byte for
/// byte the clean run's.
#[test]
fn killed_twenty_times_during_a_large_ingest_every_view_is_the_clean_runs() {
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 18,
        clubs: 690,
        boards: 27,
        ..Default::default()
    });
    let results: usize = event.clubs.iter().map(|c| c.csv.lines().count() - 1).sum();
    assert!(results >= 200_000, "{results} results");
    let clean = embedded("kill-large");
    clean.declare(&event, 1);
    for (club, csv) in publish_order(&event) {
        clean.publish(&event, club, &csv);
    }
    assert!(clean.aggregator("clean", true).wait().unwrap().success());
    assert_complete(&event, &clean.leaderboard());
    let expected = clean.views();
    assert!(
        expected.len() > results / 10,
        "the clean run shows the field"
    );

    let log = embedded("kill-large");
    log.declare(&event, 1);
    for (club, csv) in publish_order(&event) {
        log.publish(&event, club, &csv);
    }
    let kills = kill_while_ingesting(&log, 20);
    assert!(kills >= 20, "killed {kills} times");
    assert!(
        log.aggregator_batched("main", 2_000)
            .wait()
            .unwrap()
            .success(),
        "it catches up"
    );
    assert_complete(&event, &log.leaderboard());
    let got = log.views();
    let first = got.iter().zip(&expected).position(|(a, b)| a != b);
    assert!(
        got == expected,
        "after {kills} kills the views differ from the clean run's (line {first:?} of {} and {})",
        got.len(),
        expected.len()
    );
}

#[test]
fn forged_and_malformed_input_go_to_dead_letters_and_change_nothing() {
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 5,
        clubs: 10,
        boards: 4,
        ..Default::default()
    });
    let log = embedded("forged-test");
    log.declare(&event, 1);
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
    let victim = &event.clubs[1].id;
    assert!(
        reasons.iter().any(|r| r.contains(victim.as_str())
            && (r.contains("signed with key") || r.contains("does not verify"))),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("cannot read")),
        "{reasons:?}"
    );
    log.assert_dead_letters_carry_their_records();
}
