use std::sync::Arc;

use simpairs_events::types::{AppliedPair, AppliedResult, Movement, ResultKey, SubmissionApplied};

use crate::results::ClubResults;
use crate::test_result::key;

/// The notes of reading `applied` as in force: what the rules changed, then what they left.
fn as_in_force(
    in_force: Option<&ClubResults>,
    applied: &mut SubmissionApplied,
    whole_session: bool,
) -> Vec<String> {
    in_force.map_or_else(Vec::new, |club| {
        super::read_as_in_force(club, applied, whole_session).notes()
    })
}

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

/// A club whose results in force are `results`, from one submission.
fn holding(results: Vec<AppliedResult>) -> ClubResults {
    let mut club = ClubResults::default();
    club.apply(&Arc::new(submission(results)));
    club
}

fn in_force(sections: &[&str]) -> ClubResults {
    holding(sections.iter().map(|s| result(s, 1, "1", "1")).collect())
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
        assert_eq!(
            as_in_force(Some(&in_force(&[held])), &mut applied, false),
            [said]
        );
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
            as_in_force(club.as_ref(), &mut applied, false).is_empty(),
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
    let club = holding(vec![
        howell("A", 1, "1", "2"),
        howell("A", 1, "3", "4"),
        howell("A", 2, "1", "3"),
    ]);
    // One line from a CSV without a movement column: a Mitchell line of a Howell section.
    let mut one = submission(vec![result("A", 1, "3", "4")]);
    one.pairs.push(AppliedPair {
        section: "A".into(),
        pair: "3".into(),
        direction: Some(simpairs_events::types::Direction::Ns),
        players: Vec::new(),
    });
    assert_eq!(
        as_in_force(Some(&club), &mut one, false),
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
    assert!(as_in_force(Some(&club), &mut whole, false).is_empty());
    assert_eq!(movements(&whole), [Movement::Mitchell; 3]);
    // Another section's lines are that section's.
    let mut other = submission(vec![result("B", 1, "1", "2")]);
    assert!(as_in_force(Some(&club), &mut other, false).is_empty());
    assert_eq!(movements(&other), [Movement::Mitchell]);
}

fn tables(club: &ClubResults) -> Vec<(String, i32, String, String)> {
    let mut tables = Vec::new();
    club.visit(|r| {
        tables.push((
            r.section.to_string(),
            r.board,
            r.ns_pair.to_string(),
            r.ew_pair.to_string(),
        ));
    });
    tables
}

fn table(section: &str, board: i32, ns: &str, ew: &str) -> (String, i32, String, String) {
    (section.to_string(), board, ns.to_string(), ew.to_string())
}

#[test]
fn a_whole_session_takes_out_the_lines_in_force_it_does_not_hold_in_its_sections() {
    // Section A's board 5 entered as board 15 (NS 2 did not play 15), and a section B.
    let mut club = holding(vec![
        result("A", 1, "1", "1"),
        result("A", 15, "2", "3"),
        result("B", 1, "1", "1"),
    ]);
    let again = vec![result("A", 1, "1", "1"), result("A", 5, "2", "3")];
    // Line by line, the mistyped board stays: nothing of board 15 seats pair 2 or 3.
    let mut lines = submission(again.clone());
    assert!(as_in_force(Some(&club), &mut lines, false).is_empty());
    assert!(lines.withdrawn.is_empty());
    // Given whole, it goes; section B, which the file does not hold, stays.
    let mut whole = submission(again);
    assert_eq!(
        as_in_force(Some(&club), &mut whole, true),
        [
            "the whole session: 1 line in force that this file does not hold taken out (section A board 15 NS 2 EW 3)"
        ]
    );
    club.apply(&Arc::new(whole));
    assert_eq!(
        tables(&club),
        [
            table("A", 1, "1", "1"),
            table("A", 5, "2", "3"),
            table("B", 1, "1", "1")
        ]
    );
}

#[test]
fn a_whole_session_is_read_in_the_section_in_force_and_in_its_own_movement() {
    let mut club = holding(vec![
        howell("A", 1, "1", "2"),
        howell("A", 1, "3", "4"),
        howell("A", 2, "1", "3"),
    ]);
    // The file again from a program that leaves the section unnamed, without the line of
    // board 2, and as a Mitchell.
    let mut whole = submission(vec![result("", 1, "1", "2"), result("", 1, "3", "4")]);
    assert_eq!(
        as_in_force(Some(&club), &mut whole, true),
        [
            "read in section A, the club's section in force (the unnamed section in this file)",
            "the whole session: 1 line in force that this file does not hold taken out (section A board 2 NS 1 EW 3)",
        ]
    );
    assert_eq!(movements(&whole), [Movement::Mitchell; 2]);
    // The same file given whole twice takes nothing more out, and says nothing.
    club.apply(&Arc::new(whole.clone()));
    assert_eq!(
        tables(&club),
        [table("A", 1, "1", "2"), table("A", 1, "3", "4")]
    );
    whole.withdrawn.clear();
    assert!(as_in_force(Some(&club), &mut whole, true).is_empty());
    // A club's first submission has nothing in force to take out.
    let mut first = submission(vec![result("", 1, "1", "2")]);
    assert!(as_in_force(None, &mut first, true).is_empty());
    assert!(first.withdrawn.is_empty());
}

#[test]
fn a_whole_session_names_its_first_five_lines_taken_out() {
    let club = holding((1..=8).map(|b| result("", b, "1", "2")).collect());
    let mut whole = submission(vec![result("", 1, "1", "2")]);
    assert_eq!(
        as_in_force(Some(&club), &mut whole, true),
        [
            "the whole session: 7 lines in force that this file does not hold taken out (board 2 NS 1 EW 2, board 3 NS 1 EW 2, board 4 NS 1 EW 2, board 5 NS 1 EW 2, board 6 NS 1 EW 2, and 2 more)"
        ]
    );
    assert_eq!(whole.withdrawn.len(), 7);
}

#[test]
fn a_whole_session_of_nothing_withdraws_every_line_in_force_of_every_section() {
    let mut club = holding(vec![result("A", 1, "1", "1"), result("B", 2, "1", "2")]);
    let mut nothing = submission(Vec::new());
    assert_eq!(
        as_in_force(Some(&club), &mut nothing, true),
        [
            "the club's results withdrawn: 2 lines in force taken out (section A board 1 NS 1 EW 1, section B board 2 NS 1 EW 2)"
        ]
    );
    club.apply(&Arc::new(nothing));
    assert!(tables(&club).is_empty());
    // Not given whole, a submission of nothing changes nothing.
    let club = holding(vec![result("A", 1, "1", "1")]);
    let mut nothing = submission(Vec::new());
    assert!(as_in_force(Some(&club), &mut nothing, false).is_empty());
    assert!(nothing.withdrawn.is_empty());
}

#[test]
fn a_file_given_line_by_line_that_looks_whole_names_the_lines_it_leaves_in_force() {
    // Section A: boards 1-8 at one table, board 15 entered for board 9; section B apart.
    let mut held: Vec<AppliedResult> = (1..=8).map(|b| result("A", b, "1", "2")).collect();
    held.push(result("A", 15, "3", "4"));
    held.push(result("A", 10, "5", "6"));
    held.push(result("B", 1, "1", "2"));
    let club = holding(held);
    // The file again: board 9 put right, board 10's pair number put right (it replaces the line
    // seating pair 5 NS), board 1 marked not played.
    let mut again: Vec<AppliedResult> = (2..=8).map(|b| result("A", b, "1", "2")).collect();
    again.push(result("A", 9, "3", "4"));
    again.push(result("A", 10, "5", "7"));
    let mut file = submission(again.clone());
    file.withdrawn.push(key("A", 1, "1", "2"));
    assert_eq!(
        as_in_force(Some(&club), &mut file, false),
        [
            "1 line in force that this file does not hold stays (section A board 15 NS 3 EW 4): if the file is the club's whole session, publish it again with --whole-session to take it out"
        ]
    );
    // Told, not done: nothing more is withdrawn.
    assert_eq!(file.withdrawn, [key("A", 1, "1", "2")]);
    // A few lines typed to correct a board leave most of the session beside them: no note.
    let mut few = submission(vec![result("A", 9, "3", "4")]);
    assert!(as_in_force(Some(&club), &mut few, false).is_empty());
    // Three lines left beside twelve given still say so, each named.
    let mut twelve = submission((2..=13).map(|b| result("A", b, "1", "2")).collect());
    let said = as_in_force(Some(&club), &mut twelve, false);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("3 lines in force that this file does not hold stay (section A board 1 NS 1 EW 2, section A board 10 NS 5 EW 6, section A board 15 NS 3 EW 4)"),
        "{said:?}"
    );
    assert!(said[0].ends_with("to take them out"), "{said:?}");
}

#[test]
fn a_pair_number_without_its_leading_zero_is_read_as_the_pair_in_force() {
    let club = holding(vec![
        result("", 1, "01", "01"),
        result("", 1, "02", "02"),
        result("", 2, "01", "02"),
        result("A", 1, "7", "07"),
    ]);
    let mut applied = submission(vec![result("", 1, "2", "02"), result("", 3, "10", "1")]);
    applied.withdrawn.push(key("", 2, "1", "2"));
    applied.pairs.push(AppliedPair {
        section: "".into(),
        pair: "2".into(),
        direction: None,
        players: Vec::new(),
    });
    let notes = as_in_force(Some(&club), &mut applied, false);
    assert_eq!(
        notes,
        [
            "pair 1 read as pair 01, the club's pair in force",
            "pair 2 read as pair 02, the club's pair in force",
        ]
    );
    let tables: Vec<(i32, &str, &str)> = (applied.results.iter())
        .map(|r| (r.board, &*r.ns_pair, &*r.ew_pair))
        .collect();
    // Pair 10 has no pair in force of its number: as written.
    assert_eq!(tables, [(1, "02", "02"), (3, "10", "01")]);
    let withdrawn = &applied.withdrawn[0];
    assert_eq!((&*withdrawn.ns_pair, &*withdrawn.ew_pair), ("01", "02"));
    assert_eq!(applied.pairs[0].pair, "02");

    // Section A writes 7 both ways: neither is chosen, and other sections' numbers are not its.
    let mut applied = submission(vec![result("A", 1, "007", "2")]);
    assert!(as_in_force(Some(&club), &mut applied, false).is_empty());
    assert_eq!(
        (&*applied.results[0].ns_pair, &*applied.results[0].ew_pair),
        ("007", "2")
    );
}

fn scored(board: i32, contract: &str, tricks: i32, ns_score: i32) -> AppliedResult {
    AppliedResult {
        contract: Some(contract.into()),
        declarer: Some("E".into()),
        tricks: Some(tricks),
        ns_score: Some(ns_score),
        ..result("A", board, "1", "2")
    }
}

#[test]
fn an_old_file_published_again_is_told_it_takes_back_a_correction() {
    let first = vec![scored(1, "3NT", 6, 150), scored(2, "4S", 10, -420)];
    let mut club = holding(first.clone());
    // The director corrected board 1: three down was two down.
    let correction = SubmissionApplied {
        submission_id: "S2".into(),
        ..submission(vec![scored(1, "3NT", 7, 100)])
    };
    club.apply(&Arc::new(correction.clone()));
    let told = "takes back 1 correction, giving what the club's first upload gave: \
                section A board 1 NS 1 EW 2 is 3NT-3 E, NS 150 again (submission S2 had \
                corrected it to 3NT-2 E, NS 100); if the correction stands, publish it again";
    // The first file published again, line by line or as the whole session.
    for whole in [false, true] {
        let mut again = submission(first.clone());
        assert_eq!(as_in_force(Some(&club), &mut again, whole), [told]);
    }
    // The first file again with the lead it left out: the same result.
    let mut led = first.clone();
    led[0].lead = Some("HA".into());
    assert_eq!(
        as_in_force(Some(&club), &mut submission(led), false),
        [told]
    );
    // The correction again, or corrected once more: nothing taken back.
    let mut again = correction;
    assert!(as_in_force(Some(&club), &mut again, false).is_empty());
    let mut once_more = submission(vec![scored(1, "3NT", 8, 50)]);
    assert!(as_in_force(Some(&club), &mut once_more, false).is_empty());
    // A club never corrected publishing its file again is told nothing.
    let mut same = submission(first.clone());
    assert!(as_in_force(Some(&holding(first.clone())), &mut same, false).is_empty());
    // A table a correction marked not played, given again: taken back too. A table whose pair
    // number a correction put right (EW 2 was EW 3) is replaced, not taken out.
    let mut not_played = submission(vec![scored(3, "2H", 8, 110)]);
    not_played.withdrawn.push(key("A", 2, "1", "2"));
    club.apply(&Arc::new(not_played));
    let renumbered = AppliedResult {
        ew_pair: "3".into(),
        ..scored(1, "3NT", 7, 100)
    };
    club.apply(&Arc::new(submission(vec![renumbered])));
    let mut again = submission(first);
    assert_eq!(
        as_in_force(Some(&club), &mut again, false),
        [
            "takes back 1 correction, giving what the club's first upload gave: section A board 2 \
             NS 1 EW 2 is 4S= E, NS -420 again (a correction had taken it out); if the correction \
             stands, publish it again"
        ]
    );
}

#[test]
fn a_file_that_changes_most_results_it_replaces_is_told_it_may_be_another_session() {
    // Monday's session: boards 1-10, NS 1 against EW 2, each 3NT by East.
    let monday: Vec<AppliedResult> = (1..=10).map(|b| scored(b, "3NT", 9, -400)).collect();
    let club = holding(monday.clone());
    // Thursday's, other pairs under the same numbers: two results the same, six others (4S by
    // East made), and two boards where NS 1 met EW 3 (a line seating NS 1 again replaces
    // Monday's).
    let mut thursday = monday.clone();
    for (b, r) in thursday.iter_mut().enumerate().skip(2) {
        *r = scored(b as i32 + 1, "4S", 10, -420);
    }
    for r in &mut thursday[8..] {
        r.ew_pair = "3".into();
    }
    let told = "changes the results of 8 of the 10 lines in force it replaces, where a \
                correction changes a few: if the file is another session of the club (a second \
                heat of the event), it has taken the first session's place; each session is \
                published as a club of its own (docs/rules.md, \"A club's second session\")";
    let mut file = submission(thursday.clone());
    assert_eq!(as_in_force(Some(&club), &mut file, false), [told]);
    // Given whole, also the lines it seats pairs of elsewhere are named as taken out.
    let mut whole = submission(thursday.clone());
    let said = as_in_force(Some(&club), &mut whole, true);
    assert_eq!(said.len(), 2, "{said:?}");
    assert_eq!(said[1], told);
    // Monday's file again with two results put right: a correction, not told.
    let mut corrected = monday.clone();
    corrected[0] = scored(1, "3NT", 10, -430);
    corrected[1] = scored(2, "3NT", 8, 50);
    assert!(as_in_force(Some(&club), &mut submission(corrected), false).is_empty());
    // Seven lines, however changed, are too few to tell.
    let mut few = submission(thursday[..7].to_vec());
    assert!(as_in_force(Some(&club), &mut few, false).is_empty());
}
