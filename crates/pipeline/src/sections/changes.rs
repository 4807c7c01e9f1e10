//! What a submission did to the club's results in force that a director should hear of, though
//! the rules apply it as it is (docs/rules.md, "Corrections"): an old file published again takes
//! back a correction; a file that changes most of the results it replaces may be another session
//! of the club, published as if it corrected the first.

use std::collections::HashMap;

use simpairs_events::types::{AppliedResult, ResultKey, SubmissionApplied};

use super::named_lines;
use crate::results::{ClubResults, seats, table_of};

/// What the director is told of `applied` against the club's results `in_force`: the corrections
/// it takes back, else that it may be another session.
pub(super) fn told(in_force: &ClubResults, applied: &SubmissionApplied) -> Option<String> {
    taken_back(in_force, applied).or_else(|| another_session(in_force, applied))
}

/// A table of the club's first upload that a correction changed or took out, as `applied` gives
/// it again: the first upload's result, then the one in force and the correction's id (none
/// where the table was taken out).
type Undone = (ResultKey, AppliedResult, Option<(AppliedResult, String)>);

/// The lines `applied` gives with the result the club's first upload gave, where a later
/// submission changed it or took it out: an old file published again, which takes the corrections
/// back (docs/rules.md, "Corrections"), in words with what to do if they stand.
fn taken_back(in_force: &ClubResults, applied: &SubmissionApplied) -> Option<String> {
    type Since = (AppliedResult, Option<(AppliedResult, String)>);
    let mut corrected: HashMap<ResultKey, Since> = HashMap::new();
    in_force.visit_changed_since_first(|was, now| {
        let now = now.map(|(r, by)| (r.clone(), by.submission_id.to_string()));
        corrected.insert(key_of_result(was), (was.clone(), now));
    });
    if corrected.is_empty() {
        return None;
    }
    let undone: Vec<Undone> = (applied.results.iter())
        .filter_map(|r| {
            let key = key_of_result(r);
            let (was, now) = corrected.remove(&key)?;
            let differs = now.as_ref().is_none_or(|(now, _)| !same_result(r, now));
            (same_result(r, &was) && differs).then_some((key, was, now))
        })
        .collect();
    undone_words(&undone)
}

/// Whether two lines of a table give the same result (whatever informative details differ).
fn same_result(a: &AppliedResult, b: &AppliedResult) -> bool {
    (a.contract == b.contract && a.declarer == b.declarer && a.tricks == b.tricks)
        && (a.ns_score == b.ns_score && a.ew_score == b.ew_score && a.adjusted == b.adjusted)
        && (a.arrow_switch == b.arrow_switch && a.group == b.group)
}

/// The corrections taken back, in words: the first few named.
fn undone_words(undone: &[Undone]) -> Option<String> {
    const NAMED: usize = 5;
    if undone.is_empty() {
        return None;
    }
    let line = |(key, was, now): &Undone| {
        let since = match now {
            Some((now, by)) => format!(
                "submission {by} had corrected it to {}",
                crate::views::result::line_words(now)
            ),
            None => "a correction had taken it out".to_string(),
        };
        format!(
            "{} is {} again ({since})",
            named_lines(std::slice::from_ref(key)),
            crate::views::result::line_words(was),
        )
    };
    let mut named: Vec<String> = undone.iter().take(NAMED).map(line).collect();
    if undone.len() > NAMED {
        named.push(format!("and {} more", undone.len() - NAMED));
    }
    let count = crate::words::counted(undone.len(), "correction", "corrections");
    let stands = match undone.len() {
        1 => "if the correction stands, publish it again",
        _ => "if the corrections stand, publish them again",
    };
    Some(format!(
        "takes back {count}, giving what the club's first upload gave: {}; {stands}",
        named.join("; ")
    ))
}

fn key_of_result(r: &AppliedResult) -> ResultKey {
    ResultKey {
        section: r.section.clone(),
        board: r.board,
        ns_pair: r.ns_pair.clone(),
        ew_pair: r.ew_pair.clone(),
    }
}

/// The fewest lines in force a file replaces before [`another_session`] looks at what it changed.
const SESSION_LINES: usize = 8;

/// A file that replaces many lines in force and changes the results of more than half of them,
/// in words: a correction changes a few; another session of the club (a second heat of the event,
/// played by other pairs under the same numbers) changes nearly all, and in force it takes the
/// first session's place.
fn another_session(in_force: &ClubResults, applied: &SubmissionApplied) -> Option<String> {
    if applied.results.len() < SESSION_LINES {
        return None;
    }
    let mut boards: HashMap<(String, i32), Vec<AppliedResult>> = HashMap::new();
    in_force.visit(|r| {
        let lines = boards.entry((r.section.to_string(), r.board));
        lines.or_default().push(r.clone());
    });
    let (mut replaced, mut changed) = (0usize, 0usize);
    for r in &applied.results {
        let Some(lines) = boards.get_mut(&(r.section.to_string(), r.board)) else {
            continue;
        };
        let seated = seats(r);
        // A line replaces the line of its table and any other seating one of its pairs.
        lines.retain(|held| {
            let same_table = table_of(held) == table_of(r);
            let replaces = same_table || seats(held).iter().any(|s| seated.contains(s));
            if replaces {
                replaced += 1;
                changed += usize::from(!(same_table && same_result(held, r)));
            }
            !replaces
        });
    }
    (replaced >= SESSION_LINES && changed * 2 > replaced).then(|| {
        format!(
            "changes the results of {changed} of the {replaced} lines in force it replaces, where \
             a correction changes a few: if the file is another session of the club (a second \
             heat of the event), it has taken the first session's place; each session is \
             published as a club of its own (docs/rules.md, \"A club's second session\")"
        )
    })
}
