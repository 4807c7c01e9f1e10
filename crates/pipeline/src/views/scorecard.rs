//! A pair's scorecard as players read it: for every board the result (`4S+1 N`), the lead, the
//! score from the pair's side, the opponents by name, what it earned in the club's field and in
//! the national field (matchpoints and percentage), the running percentage, and the pair's place
//! in every ranking it is in, each named.

use simpairs_events::types::{AppliedResult, Fraction, Player};

use crate::PairKey;
use crate::project::Projection;
use crate::results::SinceFirst;
use crate::views::rankings::{List, club_place, national_standing};
use crate::views::result::{Correction, Marks, result_text, score_to};
use crate::views::{Catalog, Place, Value, club_name, players_of};

/// One board of a scorecard.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub board: i32,
    /// The side the pair sat: `NS` or `EW`.
    pub sat: &'static str,
    /// The result as a traveller writes it, when the line gives one.
    pub result: Option<String>,
    pub lead: Option<String>,
    /// The score to the pair's side.
    pub score: Option<i32>,
    pub marks: Marks,
    pub opponents: PairKey,
    pub opponent_players: Vec<Player>,
    pub national: Option<Value>,
    pub club: Option<Value>,
    /// The percentage over the boards so far, in hundredths.
    pub running_national: Option<i64>,
    pub running_club: Option<i64>,
    /// What the club's first upload gave for this board, when a later submission corrected it.
    pub correction: Option<Correction>,
}

/// A place in one ranking, with the ranking named.
#[derive(Clone, Debug, PartialEq)]
pub struct RankingPlace {
    /// Which ranking: `National, combined`, `National, North-South`, `Club, North-South` ...
    pub ranking: String,
    pub place: Place,
    /// Pairs in that ranking.
    pub of: usize,
    pub total_hundredths: i64,
    pub percent_hundredths: Option<i64>,
    /// Where to see it: the list (`combined`, `ns`, `ew`) for a national ranking, `None` for the
    /// club's own.
    pub national_list: Option<List>,
}

/// A pair's scorecard.
#[derive(Clone, Debug, PartialEq)]
pub struct Scorecard {
    pub pair: PairKey,
    pub club_name: String,
    pub players: Vec<Player>,
    pub places: Vec<RankingPlace>,
    pub lines: Vec<Line>,
    /// IMPs rather than matchpoints: values without percentages.
    pub imps: bool,
}

/// Whether the pair played the result, and at which side.
fn side(r: &AppliedResult, pair: &PairKey) -> Option<bool> {
    if r.section != *pair.section {
        return None;
    }
    let dir = |ns: bool| match r.movement {
        simpairs_events::types::Movement::Howell => "",
        simpairs_events::types::Movement::Mitchell if ns => "NS",
        simpairs_events::types::Movement::Mitchell => "EW",
    };
    if *r.ns_pair == *pair.pair && dir(true) == pair.direction {
        Some(true)
    } else if *r.ew_pair == *pair.pair && dir(false) == pair.direction {
        Some(false)
    } else {
        None
    }
}

fn value(p: &Projection, scope: &str, club: &str, r: &AppliedResult, ns: bool) -> Option<Value> {
    let (ns_v, ew_v) = p.result_values(scope, club, r)?;
    let top = p.board_scores.get(&(scope.to_string(), r.board))?.top;
    Some(Value {
        value: if ns { ns_v } else { ew_v },
        top,
    })
}

fn line(
    p: &Projection,
    pair: &PairKey,
    r: &AppliedResult,
    since: SinceFirst<'_>,
    ns: bool,
) -> Line {
    let club = pair.club.as_str();
    let opponents = PairKey::new(
        pair.club.clone(),
        pair.section.clone(),
        if ns {
            r.ew_pair.to_string()
        } else {
            r.ns_pair.to_string()
        },
        match (pair.direction, ns) {
            ("", _) => "",
            (_, true) => "EW",
            (_, false) => "NS",
        },
    );
    Line {
        board: r.board,
        sat: if ns { "NS" } else { "EW" },
        result: result_text(r),
        lead: crate::views::board::lead_of(r),
        score: score_to(r, ns),
        marks: Marks::of(r),
        opponent_players: players_of(p, &opponents),
        opponents,
        national: value(p, "", club, r, ns),
        club: value(p, club, club, r, ns),
        running_national: None,
        running_club: None,
        correction: Correction::of(since, ns),
    }
}

/// Fills each line's running percentages: the sum of values over the sum of tops so far.
fn running(lines: &mut [Line]) {
    let pct = |v: f64, t: f64| (t > 0.0).then(|| (v / t * 10_000.0).round() as i64);
    let (mut nv, mut nt, mut cv, mut ct) = (0.0, 0.0, 0.0, 0.0);
    for l in lines {
        if let Some(v) = l.national {
            nv += v.value_f64();
            nt += v.top_f64();
        }
        if let Some(v) = l.club {
            cv += v.value_f64();
            ct += v.top_f64();
        }
        l.running_national = pct(nv, nt);
        l.running_club = pct(cv, ct);
    }
}

fn direction_name(d: &str) -> &'static str {
    match d {
        "NS" => "North-South",
        "EW" => "East-West",
        _ => "all pairs",
    }
}

/// The pair's place in each ranking it is in: national combined, national in its direction, and
/// its club's own ranking.
fn places(p: &Projection, catalog: &Catalog, pair: &PairKey) -> Vec<RankingPlace> {
    let mut out = Vec::new();
    if let (Some(n), Some(national)) = (national_standing(p, catalog, pair), &p.national) {
        let mut lists = vec![(
            List::Combined,
            Place {
                rank: n.combined_rank,
                tied: n.combined_tied,
            },
        )];
        if !pair.direction.is_empty() {
            lists.push((
                List::of_direction(pair.direction),
                Place {
                    rank: n.rank,
                    tied: n.tied,
                },
            ));
        }
        for (list, place) in lists {
            out.push(RankingPlace {
                ranking: match list {
                    List::Combined => "National, combined".to_string(),
                    _ => format!("National, {}", list.title()),
                },
                place,
                of: national.list(list.key()).len(),
                total_hundredths: n.total_hundredths,
                percent_hundredths: n.percent_hundredths,
                national_list: Some(list),
            });
        }
    }
    if let (Some(place), Some(s)) = (club_place(p, pair), p.clubs.get(&pair.club)) {
        let own = s.standings.iter().find(|e| {
            e.section == pair.section
                && e.pair == pair.pair
                && crate::wire::direction_key(e.direction) == pair.direction
        });
        out.push(RankingPlace {
            ranking: format!("Club, {}", direction_name(pair.direction)),
            place,
            of: s
                .standings
                .iter()
                .filter(|e| crate::wire::direction_key(e.direction) == pair.direction)
                .count(),
            total_hundredths: own.map_or(0, |e| e.total_hundredths),
            percent_hundredths: own.and_then(|e| e.percent_hundredths),
            national_list: None,
        });
    }
    out
}

/// A pair's scorecard; `None` when none of its results is in force.
pub fn scorecard(p: &Projection, catalog: &Catalog, pair: &PairKey) -> Option<Scorecard> {
    let mut lines: Vec<Line> = p
        .club_results_since_first(&pair.club, |r| side(r, pair).is_some())
        .filter_map(|(r, since)| side(r, pair).map(|ns| line(p, pair, r, since, ns)))
        .collect();
    if lines.is_empty() {
        return None;
    }
    lines.sort_by_key(|l| l.board);
    running(&mut lines);
    Some(Scorecard {
        club_name: club_name(p, &pair.club),
        players: players_of(p, pair),
        places: places(p, catalog, pair),
        lines,
        imps: crate::views::is_imps(p),
        pair: pair.clone(),
    })
}

/// The sum of fractions as a number (a total shown, not ranked).
pub fn sum(values: impl Iterator<Item = Fraction>) -> f64 {
    values.map(crate::wire::fraction_to_f64).sum()
}
