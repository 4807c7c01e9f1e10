//! On the embedded log: the aggregator killed with SIGKILL at random moments while clubs publish
//! converges, after restart, to exactly the leaderboard of a clean run; duplicated submissions change
//! nothing; forged and malformed input go to dead letters and change nothing.

mod common;

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
    assert_eq!(log.leaderboard(), clean);
    assert!(log.dead_letters().is_empty());
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
}
