//! A correction read in the terms of the club's results in force, where its file says less than
//! the first one did (docs/rules.md, "Corrections"):
//!
//! - A club's one section, named in one of its files and not in another: Scorer and some traveller
//!   CSVs call a club's only section `A`, Compscore's USEBIO, PBN and a CSV without a `section`
//!   column leave it unnamed. Read as written, a correction from the other kind of file would be a
//!   second section beside the first, and every pair would play twice. So a submission whose
//!   results are all in one section, sent by a club whose results in force are all in one
//!   section, is read in the section in force when one of the two names is empty. Two named
//!   sections (`A`, then `B`) stay apart: a club may publish its sections one at a time.
//! - A section's movement: a CSV without a `movement` column is a Mitchell, so a line corrected in
//!   such a file for a Howell section would be a Mitchell line in a Howell section, which no field
//!   can hold. A correction's lines take the movement of their section in force, unless they
//!   replace every line of it (the whole file again, its movement put right).
//! - A whole session (`club publish --whole-session`): the file is every line of the sections it
//!   holds, so the lines in force in those sections that it does not hold (a table that never
//!   happened, entered under a mistyped board) are taken out, as withdrawals of the submission.
//!   Its lines are read in their own movement. A file given line by line that looks like a whole
//!   session is told the lines it leaves in force, with the way to take them out.
//! - A pair's number, written with leading zeros in one file and without them in another (`01`
//!   by a scoring program, `1` typed into a spreadsheet, which drops them). Read as written, the
//!   correction's `1` would be a new pair beside `01`, and its line a second result of the table.
//!   So a correction's pair number that no pair in force of its section is written as, but that
//!   one pair in force is by its number, is read as that pair's.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use simpairs_events::types::{
    AppliedResult, Movement, ResultKey, SubmissionApplied, SubmissionSealed,
};
use simpairs_events::{Codec, Packer};

use crate::announce::Announced;
use crate::results::{ClubResults, Seat, seats, seats_of};

/// [`read_as_in_force`] of an accepted submission, announced or not, with its notes. An announced one
/// holds its results packed: they are read back only when the club has results in force (a
/// correction's few hundred), and announced again if the rules changed them. `applied` keeps what
/// the state applies besides the results (withdrawals and pairs).
pub(crate) fn name_accepted(
    in_force: Option<&ClubResults>,
    codec: &Codec,
    (applied, seal): (&mut SubmissionApplied, &SubmissionSealed),
    announced: Option<Announced>,
    packer: impl FnOnce() -> Option<Packer>,
) -> (Option<Announced>, Vec<String>) {
    let whole_session = seal.whole_session;
    let Some(in_force) = in_force.filter(|club| !club.is_empty()) else {
        // A withdrawal (a whole session of nothing) of a club with nothing in force.
        let nothing = whole_session && seal.count == 0;
        let note = "the club's results withdrawn: it had none in force".to_string();
        return (announced, nothing.then_some(note).into_iter().collect());
    };
    let Some(announced) = announced else {
        let read = read_as_in_force(in_force, applied, whole_session);
        return (None, read.notes());
    };
    let mut whole = crate::results::unpack(&announced.packed);
    let read = read_as_in_force(in_force, &mut whole, whole_session);
    let Some(mut packer) = packer().filter(|_| !read.changed.is_empty()) else {
        return (Some(announced), read.notes());
    };
    let seal_offset = announced.announcement.seal_offset;
    let again = crate::announce::announce(codec, &mut packer, &mut whole, seal_offset);
    *applied = whole;
    (Some(again), read.notes())
}

/// A table in force, as the rules above need it: section, board, NS and EW pair, movement.
type Held = (String, i32, String, String, Movement);

/// How a submission was read in the terms of the club's results in force.
struct Read {
    /// What the rules changed, in words.
    changed: Vec<String>,
    /// What the director is told besides, the submission unchanged.
    told: Vec<String>,
}

impl Read {
    fn notes(self) -> Vec<String> {
        self.changed.into_iter().chain(self.told).collect()
    }
}

/// Reads `applied` in the club's section and movements in force where the rules above ask it, and
/// takes out what a whole session does not hold: what it changed and what it leaves in force.
fn read_as_in_force(in_force: &ClubResults, applied: &mut SubmissionApplied, whole: bool) -> Read {
    let mut held: Vec<Held> = Vec::with_capacity(in_force.len());
    in_force.visit(|r| held.push(held_of(r)));
    let mut changed: Vec<String> = named_as_held(&held, applied).into_iter().collect();
    if whole {
        changed.extend(withdraw_not_held(&held, applied));
        let told = changes::told(in_force, applied).into_iter().collect();
        return Read { changed, told };
    }
    changed.extend(numbered_as_held(&held, applied));
    changed.extend(moved_as_held(&held, applied));
    let told = (left_in_force(&held, applied).into_iter())
        .chain(changes::told(in_force, applied))
        .collect();
    Read { changed, told }
}

/// A file given line by line that looks like the club's whole session (it leaves no more than a
/// quarter as many lines in force beside it as it gives): the lines in force in its sections that
/// it neither gives nor replaces, which stay, and how to take them out, in words. A few lines
/// typed to correct a board leave most of the session beside them, and are not told this.
fn left_in_force(held: &[Held], applied: &SubmissionApplied) -> Option<String> {
    let mut tables: HashSet<(&str, i32, &str, &str)> = HashSet::new();
    let mut seated: HashSet<(&str, i32, Seat)> = HashSet::new();
    for r in &applied.results {
        tables.insert((&r.section, r.board, &r.ns_pair, &r.ew_pair));
        seated.extend(seats(r).map(|s| (r.section.as_str(), r.board, s)));
    }
    for w in &applied.withdrawn {
        tables.insert((&w.section, w.board, &w.ns_pair, &w.ew_pair));
    }
    let sections: HashSet<&str> = applied.results.iter().map(|r| r.section.as_str()).collect();
    let left: Vec<ResultKey> = (held.iter())
        .filter(|h| sections.contains(h.0.as_str()))
        .filter(|h| !tables.contains(&(&h.0, h.1, &h.2, &h.3)))
        .filter(|h| {
            !seats_of(h.4, &h.2, &h.3)
                .iter()
                .any(|s| seated.contains(&(&h.0, h.1, *s)))
        })
        .map(key_of)
        .collect();
    if left.is_empty() || left.len() * 4 > applied.results.len() {
        return None;
    }
    let (count, it) = match left.len() {
        1 => (
            "1 line in force that this file does not hold stays".to_string(),
            "it",
        ),
        n => (
            format!("{n} lines in force that this file does not hold stay"),
            "them",
        ),
    };
    Some(format!(
        "{count} ({}): if the file is the club's whole session, publish it again with \
         --whole-session to take {it} out",
        named_lines(&left)
    ))
}

/// The whole-session rule: withdraws each line in force, in a section `applied` holds, whose table
/// it does not give (every line in force, when it holds nothing: the club withdrawn); what it
/// took out, in words.
fn withdraw_not_held(held: &[Held], applied: &mut SubmissionApplied) -> Option<String> {
    let sections = sections_of(applied);
    let everything = sections.is_empty();
    let table = |section: &str, board: i32, ns: &str, ew: &str| {
        (section.to_string(), board, ns.to_string(), ew.to_string())
    };
    let given: HashSet<_> = (applied.results.iter())
        .map(|r| table(&r.section, r.board, &r.ns_pair, &r.ew_pair))
        .chain(
            (applied.withdrawn.iter()).map(|w| table(&w.section, w.board, &w.ns_pair, &w.ew_pair)),
        )
        .collect();
    let gone: Vec<ResultKey> = held
        .iter()
        .filter(|h| everything || sections.contains(&h.0))
        .filter(|h| !given.contains(&table(&h.0, h.1, &h.2, &h.3)))
        .map(key_of)
        .collect();
    let words = gone_words(&gone, everything)?;
    applied.withdrawn.extend(gone);
    Some(words)
}

/// The lines a whole session took out, in words: the first few named.
fn gone_words(gone: &[ResultKey], everything: bool) -> Option<String> {
    if gone.is_empty() {
        return None;
    }
    let count = crate::words::counted(gone.len(), "line", "lines");
    let what = match everything {
        true => format!("the club's results withdrawn: {count} in force taken out"),
        false => {
            format!("the whole session: {count} in force that this file does not hold taken out")
        }
    };
    Some(format!("{what} ({})", named_lines(gone)))
}

/// The first five of `lines` by their tables, and how many more.
fn named_lines(lines: &[ResultKey]) -> String {
    const NAMED: usize = 5;
    let line = |k: &ResultKey| match k.section.as_str() {
        "" => format!("board {} NS {} EW {}", k.board, k.ns_pair, k.ew_pair),
        s => format!(
            "section {s} board {} NS {} EW {}",
            k.board, k.ns_pair, k.ew_pair
        ),
    };
    let mut named: Vec<String> = lines.iter().take(NAMED).map(line).collect();
    if lines.len() > NAMED {
        named.push(format!("and {} more", lines.len() - NAMED));
    }
    named.join(", ")
}

/// A section's name in words.
fn section_words(name: &str) -> String {
    match name {
        "" => "the unnamed section".to_string(),
        name => format!("section {name}"),
    }
}

fn key_of(h: &Held) -> ResultKey {
    ResultKey {
        section: h.0.as_str().into(),
        board: h.1,
        ns_pair: h.2.as_str().into(),
        ew_pair: h.3.as_str().into(),
    }
}

fn held_of(r: &AppliedResult) -> Held {
    let (section, ns, ew) = (
        r.section.to_string(),
        r.ns_pair.to_string(),
        r.ew_pair.to_string(),
    );
    (section, r.board, ns, ew, r.movement)
}

/// The section rule: what it renamed, if it did.
fn named_as_held(held: &[Held], applied: &mut SubmissionApplied) -> Option<String> {
    let given = only(sections_of(applied))?;
    let held = only(held.iter().map(|h| h.0.clone()).collect())?;
    if given == held || !(given.is_empty() || held.is_empty()) {
        return None;
    }
    for r in &mut applied.results {
        r.section = held.as_str().into();
    }
    for w in &mut applied.withdrawn {
        w.section = held.as_str().into();
    }
    for p in &mut applied.pairs {
        p.section = held.clone();
    }
    Some(format!(
        "read in {}, the club's section in force ({} in this file)",
        section_words(&held),
        section_words(&given)
    ))
}

/// The pair-number rule: each pair number it read as the pair in force of the same number, in
/// words.
fn numbered_as_held(held: &[Held], applied: &mut SubmissionApplied) -> Vec<String> {
    let mut written: BTreeMap<(&str, u64), BTreeSet<&str>> = BTreeMap::new();
    for h in held {
        for label in [&h.2, &h.3] {
            if let Some(number) = number_of(label) {
                written.entry((&h.0, number)).or_default().insert(label);
            }
        }
    }
    let mut read: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut as_held = |section: &str, label: &str| -> Option<String> {
        let in_force = written.get(&(section, number_of(label)?))?;
        // Two ways of writing one number in force (`1` and `01`): neither is chosen.
        let [in_force] = in_force.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        (*in_force != label).then(|| {
            read.insert((section.into(), label.into(), in_force.to_string()));
            in_force.to_string()
        })
    };
    for r in &mut applied.results {
        if let Some(ns) = as_held(&r.section, &r.ns_pair) {
            r.ns_pair = ns.as_str().into();
        }
        if let Some(ew) = as_held(&r.section, &r.ew_pair) {
            r.ew_pair = ew.as_str().into();
        }
    }
    for w in &mut applied.withdrawn {
        if let Some(ns) = as_held(&w.section, &w.ns_pair) {
            w.ns_pair = ns.as_str().into();
        }
        if let Some(ew) = as_held(&w.section, &w.ew_pair) {
            w.ew_pair = ew.as_str().into();
        }
    }
    for p in &mut applied.pairs {
        if let Some(label) = as_held(&p.section, &p.pair) {
            p.pair = label;
        }
    }
    read.into_iter()
        .map(|(section, given, held)| number_words(&section, &given, &held))
        .collect()
}

fn number_words(section: &str, given: &str, held: &str) -> String {
    let section = match section {
        "" => String::new(),
        s => format!("section {s} "),
    };
    format!("{section}pair {given} read as pair {held}, the club's pair in force")
}

/// A pair number's value, if the label is all digits (`01` and `1` are both 1).
fn number_of(label: &str) -> Option<u64> {
    let label = label.trim();
    if label.is_empty() || !label.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    label.parse().ok()
}

/// The movement rule: each section whose lines it read in another movement, in words.
fn moved_as_held(held: &[Held], applied: &mut SubmissionApplied) -> Vec<String> {
    let sections: BTreeSet<String> = (applied.results.iter())
        .map(|r| r.section.to_string())
        .collect();
    let mut moved = Vec::new();
    for section in sections {
        let in_section = || held.iter().filter(|h| h.0 == section);
        let Some(movement) = uniform(in_section().map(|h| h.4)) else {
            continue;
        };
        let lines = || {
            applied
                .results
                .iter()
                .filter(|r| r.section == section.as_str())
        };
        let tables: HashSet<(i32, &str, &str)> = lines()
            .map(|r| (r.board, r.ns_pair.as_str(), r.ew_pair.as_str()))
            .collect();
        let replaced_whole = in_section().all(|h| tables.contains(&(h.1, &h.2, &h.3)));
        if replaced_whole || lines().all(|r| r.movement == movement) {
            continue;
        }
        for r in applied
            .results
            .iter_mut()
            .filter(|r| r.section == section.as_str())
        {
            r.movement = movement;
        }
        // A Mitchell pair entered for a Howell section is that section's pair of its number.
        if movement == Movement::Howell {
            for p in applied.pairs.iter_mut().filter(|p| p.section == section) {
                p.direction = None;
            }
        }
        let (name, movement) = (section_words(&section), movement_name(movement));
        moved.push(format!(
            "{name}'s lines read as a {movement}, the section's movement in force"
        ));
    }
    moved
}

fn movement_name(movement: Movement) -> &'static str {
    match movement {
        Movement::Howell => "Howell",
        Movement::Mitchell => "Mitchell",
    }
}

/// Every section a submission names: its results', its withdrawals' and its pairs'.
fn sections_of(applied: &SubmissionApplied) -> BTreeSet<String> {
    let results = applied.results.iter().map(|r| r.section.as_str());
    let withdrawn = applied.withdrawn.iter().map(|w| w.section.as_str());
    let pairs = applied.pairs.iter().map(|p| p.section.as_str());
    results
        .chain(withdrawn)
        .chain(pairs)
        .map(str::to_string)
        .collect()
}

/// The item every one of `items` is, if there are any and they are all the same.
fn uniform<T: PartialEq>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.all(|x| x == first).then_some(first)
}

/// The one element of `set`, if it has exactly one.
fn only(set: BTreeSet<String>) -> Option<String> {
    (set.len() == 1).then(|| set.into_iter().next()).flatten()
}

mod changes;
#[cfg(test)]
mod tests;
