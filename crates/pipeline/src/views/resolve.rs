//! A pair from what a player knows: their club and pair number. Section and direction are found
//! from the club's pairs; when more than one pair fits (pair 3 North-South and pair 3 East-West),
//! the caller offers the choice.

use crate::PairKey;
use crate::project::Projection;
use crate::views::Catalog;

/// What a club and pair number name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// Exactly one pair.
    One(PairKey),
    /// Several pairs fit: a choice to offer.
    Several(Vec<PairKey>),
    /// The club has no such pair; its pairs, to choose from (empty if the club has none in).
    None(Vec<PairKey>),
}

/// The pairs of a club: those its own standings rank and those its submissions entered (and,
/// if it has neither yet, those of the national standings).
pub fn club_pairs(p: &Projection, club: &str) -> Vec<PairKey> {
    let mut pairs: std::collections::BTreeSet<PairKey> = std::collections::BTreeSet::new();
    if let Some(s) = p.clubs.get(club) {
        pairs.extend(s.standings.iter().map(|e| {
            PairKey::new(
                e.club_id.clone(),
                e.section.clone(),
                e.pair.clone(),
                crate::wire::direction_key(e.direction),
            )
        }));
    }
    let from = PairKey::new(club, "", "", "");
    pairs.extend(
        p.players
            .range(from..)
            .take_while(|(k, _)| k.club == club)
            .map(|(k, _)| k.clone()),
    );
    if pairs.is_empty()
        && let Some(n) = &p.national
    {
        pairs.extend(
            (0..n.len() as simpairs_scoring::PairId)
                .filter_map(|id| n.pair_names(id))
                .filter(|names| names.club == club)
                .map(|names| names.to_ref()),
        );
    }
    let mut pairs: Vec<PairKey> = pairs.into_iter().collect();
    pairs.sort_by(|a, b| {
        (
            &a.section,
            simpairs_scoring::PairLabel::new(&a.pair),
            a.direction,
        )
            .cmp(&(
                &b.section,
                simpairs_scoring::PairLabel::new(&b.pair),
                b.direction,
            ))
    });
    pairs
}

/// Whether the event has a club with this id (declared, or with results in force).
pub fn is_club(p: &Projection, club: &str) -> bool {
    p.club_names.contains_key(club) || p.club_result_count(club) > 0
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
    let fits: Vec<PairKey> = pairs
        .iter()
        .filter(|r| {
            (simpairs_scoring::PairLabel::new(&r.pair) == wanted || loose(&r.pair) == loose(number))
                && section.is_none_or(|s| s.eq_ignore_ascii_case(&r.section))
                && direction.is_none_or(|d| d.eq_ignore_ascii_case(r.direction))
        })
        .cloned()
        .collect();
    match fits.as_slice() {
        [] => Resolved::None(pairs),
        [one] => Resolved::One(one.clone()),
        _ => Resolved::Several(fits),
    }
}
