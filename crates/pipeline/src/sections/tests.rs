use std::sync::Arc;

use simpairs_events::types::{AppliedPair, AppliedResult, ResultKey, SubmissionApplied};

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
    for (held, given) in [("A", ""), ("", "A")] {
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
        assert!(as_in_force(Some(&in_force(&[held])), &mut applied));
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
            !as_in_force(club.as_ref(), &mut applied),
            "{held:?} {given:?}"
        );
        assert_eq!(sections(&applied), before);
    }
}
