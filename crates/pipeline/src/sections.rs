//! A club's one section, named in one of its files and not in another: Scorer and some traveller
//! CSVs call a club's only section `A`, Compscore's USEBIO, PBN and a CSV without a `section`
//! column leave it unnamed. Read as written, a correction from the other kind of file would be a
//! second section beside the first, and every pair would play twice. So a submission whose
//! results are all in one section, sent by a club whose results in force are all in one section,
//! is read in the section in force when one of the two names is empty (docs/rules.md,
//! "Corrections"). Two named sections (`A`, then `B`) stay apart: a club may publish its sections
//! one at a time.

use std::collections::BTreeSet;

use simpairs_events::types::SubmissionApplied;
use simpairs_events::{Codec, Packer};

use crate::announce::Announced;
use crate::results::ClubResults;

/// [`as_in_force`] of an accepted submission, announced or not. An announced one holds its
/// results packed: they are read back only when the club has results in force (a correction's
/// few hundred), and announced again if renamed. `applied` keeps what the state applies besides
/// the results (withdrawals and pairs).
pub(crate) fn name_accepted(
    in_force: Option<&ClubResults>,
    codec: &Codec,
    applied: &mut SubmissionApplied,
    announced: Option<Announced>,
    packer: impl FnOnce() -> Option<Packer>,
) -> Option<Announced> {
    let Some(in_force) = in_force else {
        return announced;
    };
    let Some(announced) = announced else {
        as_in_force(Some(in_force), applied);
        return None;
    };
    let mut whole = crate::results::unpack(&announced.packed);
    if !as_in_force(Some(in_force), &mut whole) {
        return Some(announced);
    }
    let Some(mut packer) = packer() else {
        return Some(announced);
    };
    let seal_offset = announced.announcement.seal_offset;
    let renamed = crate::announce::announce(codec, &mut packer, &mut whole, seal_offset);
    *applied = whole;
    Some(renamed)
}

/// Renames the section of `applied` to the club's section in force where the rule above asks it;
/// whether it did.
pub(crate) fn as_in_force(in_force: Option<&ClubResults>, applied: &mut SubmissionApplied) -> bool {
    let Some(in_force) = in_force else {
        return false;
    };
    let Some(given) = only(sections_of(applied)) else {
        return false;
    };
    let mut held = BTreeSet::new();
    in_force.visit(|r| {
        if !held.contains(r.section.as_str()) {
            held.insert(r.section.to_string());
        }
    });
    let Some(held) = only(held) else {
        return false;
    };
    if given == held || !(given.is_empty() || held.is_empty()) {
        return false;
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
    true
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

/// The one element of `set`, if it has exactly one.
fn only(set: BTreeSet<String>) -> Option<String> {
    (set.len() == 1).then(|| set.into_iter().next()).flatten()
}

#[cfg(test)]
mod tests;
