//! A pair from what a player knows: their club and pair number. Section and direction are found
//! from the club's pairs; when more than one pair fits (pair 3 North-South and pair 3 East-West),
//! the caller offers the choice.

use crate::project::{PairRef, Projection};
use crate::views::Catalog;

/// What a club and pair number name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// Exactly one pair.
    One(PairRef),
    /// Several pairs fit: a choice to offer.
    Several(Vec<PairRef>),
    /// The club has no such pair; its pairs, to choose from (empty if the club has none in).
    None(Vec<PairRef>),
}

/// The pairs of a club, as its own standings rank them (every pair with a result in force).
pub fn club_pairs(p: &Projection, club: &str) -> Vec<PairRef> {
    let mut pairs: Vec<PairRef> = p
        .clubs
        .get(club)
        .map(|s| {
            s.standings
                .iter()
                .map(|e| {
                    (
                        e.club_id.clone(),
                        e.section.clone(),
                        e.pair.clone(),
                        crate::state::direction_key(e.direction),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    pairs.sort_by(|a, b| {
        (&a.1, simpairs_scoring::PairLabel::new(&a.2), a.3).cmp(&(
            &b.1,
            simpairs_scoring::PairLabel::new(&b.2),
            b.3,
        ))
    });
    pairs
}

/// The pair `number` of `club`, in `section` and `direction` when they are given (`None`: any).
/// Numbers compare as pair numbers (`07` is `7`), directions in any case.
pub fn resolve(
    p: &Projection,
    _catalog: &Catalog,
    club: &str,
    section: Option<&str>,
    number: &str,
    direction: Option<&str>,
) -> Resolved {
    let pairs = club_pairs(p, club);
    let wanted = simpairs_scoring::PairLabel::new(number);
    let loose = |s: &str| simpairs_scoring::PairLabel::new(s.trim_start_matches('0'));
    let fits: Vec<PairRef> = pairs
        .iter()
        .filter(|r| {
            (simpairs_scoring::PairLabel::new(&r.2) == wanted || loose(&r.2) == loose(number))
                && section.is_none_or(|s| s.eq_ignore_ascii_case(&r.1))
                && direction.is_none_or(|d| d.eq_ignore_ascii_case(r.3))
        })
        .cloned()
        .collect();
    match fits.as_slice() {
        [] => Resolved::None(pairs),
        [one] => Resolved::One(one.clone()),
        _ => Resolved::Several(fits),
    }
}
