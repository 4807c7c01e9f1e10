use std::sync::Arc;

use simpairs_events::types::{AppliedPair, AppliedResult, Movement, ResultKey, SubmissionApplied};

use super::as_in_force;
use crate::results::ClubResults;

fn result(section: &str, board: i32, ns: &str, ew: &str) -> AppliedResult {
    AppliedResult {
        section: section.into(),
        ..crate::test_result::table(board, ns, ew)
    }
}

fn submission(results: Vec<AppliedResult>) -> SubmissionApplied {
    SubmissionApplied {
        event_id: "E".into(),
        club_id: "C".into(),
        submission_id: "S".into(),
        seal_offset: 0,
        results,
        withdrawn: Vec::new(),
        pairs: Vec::new(),
    }
}

fn in_force(sections: &[&str]) -> ClubResults {
    let mut club = ClubResults::default();
    let results = sections.iter().map(|s| result(s, 1, "1", "1")).collect();
    club.apply(&Arc::new(submission(results)));
    club
}

fn sections(applied: &SubmissionApplied) -> Vec<String> {
    let results = applied.results.iter().map(|r| r.section.to_string());
    let withdrawn = applied.withdrawn.iter().map(|w| w.section.to_string());
    let pairs = applied.pairs.iter().map(|p| p.section.clone());
    results.chain(withdrawn).chain(pairs).collect()
}

#[test]
fn an_unnamed_section_is_read_as_the_clubs_one_section_and_the_other_way_round() {
    let said = [
        "read in section A, the club's section in force (the unnamed section in this file)",
        "read in the unnamed section, the club's section in force (section A in this file)",
    ];
    for ((held, given), said) in [("A", ""), ("", "A")].into_iter().zip(said) {
        let mut applied = submission(vec![result(given, 1, "1", "1"), result(given, 2, "1", "2")]);
        applied.withdrawn.push(ResultKey {
            section: given.into(),
            board: 2,
            ns_pair: "2".into(),
            ew_pair: "1".into(),
        });
        applied.pairs.push(AppliedPair {
            section: given.into(),
            pair: "1".into(),
            direction: None,
            players: Vec::new(),
        });
        assert_eq!(as_in_force(Some(&in_force(&[held])), &mut applied), [said]);
        assert_eq!(sections(&applied), [held; 4]);
    }
}

#[test]
fn named_sections_several_sections_and_a_first_submission_are_read_as_written() {
    let cases: [(Option<&[&str]>, &[&str]); 5] = [
        // A club's first submission.
        (None, &[""]),
        // Two named sections: a club publishing its sections one at a time.
        (Some(&["A"]), &["B"]),
        // The same name.
        (Some(&["A"]), &["A"]),
        // The club's results in force are in two sections.
        (Some(&["A", "B"]), &[""]),
        // The submission has two.
        (Some(&["A"]), &["", "B"]),
    ];
    for (held, given) in cases {
        let club = held.map(in_force);
        let mut applied = submission(given.iter().map(|s| result(s, 3, "1", "1")).collect());
        let before = sections(&applied);
        assert!(
            as_in_force(club.as_ref(), &mut applied).is_empty(),
            "{held:?} {given:?}"
        );
        assert_eq!(sections(&applied), before);
    }
}

fn howell(section: &str, board: i32, ns: &str, ew: &str) -> AppliedResult {
    AppliedResult {
        movement: Movement::Howell,
        ..result(section, board, ns, ew)
    }
}

fn movements(applied: &SubmissionApplied) -> Vec<Movement> {
    applied.results.iter().map(|r| r.movement).collect()
}

#[test]
fn a_line_corrected_without_the_movement_takes_its_sections() {
    let mut club = ClubResults::default();
    let session = vec![
        howell("A", 1, "1", "2"),
        howell("A", 1, "3", "4"),
        howell("A", 2, "1", "3"),
    ];
    club.apply(&Arc::new(submission(session)));
    // One line from a CSV without a movement column: a Mitchell line of a Howell section.
    let mut one = submission(vec![result("A", 1, "3", "4")]);
    one.pairs.push(AppliedPair {
        section: "A".into(),
        pair: "3".into(),
        direction: Some(simpairs_events::types::Direction::Ns),
        players: Vec::new(),
    });
    assert_eq!(
        as_in_force(Some(&club), &mut one),
        ["section A's lines read as a Howell, the section's movement in force"]
    );
    assert_eq!(movements(&one), [Movement::Howell]);
    assert_eq!(one.pairs[0].direction, None);
    // The whole section again as a Mitchell: its movement put right, read as written.
    let all = vec![
        result("A", 1, "1", "2"),
        result("A", 1, "3", "4"),
        result("A", 2, "1", "3"),
    ];
    let mut whole = submission(all);
    assert!(as_in_force(Some(&club), &mut whole).is_empty());
    assert_eq!(movements(&whole), [Movement::Mitchell; 3]);
    // Another section's lines are that section's.
    let mut other = submission(vec![result("B", 1, "1", "2")]);
    assert!(as_in_force(Some(&club), &mut other).is_empty());
    assert_eq!(movements(&other), [Movement::Mitchell]);
}
