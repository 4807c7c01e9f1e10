//! Pages of the rankings: the national lists (combined, NS, EW, and any of them narrowed to one
//! club's pairs) and each club's own ranking (club top), every row with both players' names and
//! the pair's place in the other field beside it.

use simpairs_events::types::{PairStanding, Player};
use simpairs_scoring::PairId;

use crate::PairKey;
use crate::project::{NationalStandings, Projection};
use crate::views::{Catalog, Place, club_name, players_of};
use crate::wire::direction_key;

/// A national list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum List {
    Combined,
    Ns,
    Ew,
}

impl List {
    pub const ALL: [List; 3] = [List::Combined, List::Ns, List::Ew];

    /// `combined`, `ns` or `ew` (any case); anything else is not a list.
    pub fn parse(text: &str) -> Option<List> {
        match text.to_ascii_lowercase().as_str() {
            "combined" => Some(List::Combined),
            "ns" => Some(List::Ns),
            "ew" => Some(List::Ew),
            _ => None,
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            List::Combined => "combined",
            List::Ns => "ns",
            List::Ew => "ew",
        }
    }

    /// The list's name for people.
    pub fn title(self) -> &'static str {
        match self {
            List::Combined => "Combined",
            List::Ns => "North-South",
            List::Ew => "East-West",
        }
    }

    /// The list a pair of direction `d` (`NS`, `EW`, `""`) is ranked in besides combined.
    pub(crate) fn of_direction(d: &str) -> List {
        match d {
            "NS" => List::Ns,
            "EW" => List::Ew,
            _ => List::Combined,
        }
    }
}

/// One row of a ranking.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub place: Place,
    pub pair: PairKey,
    pub players: Vec<Player>,
    pub club_name: String,
    pub boards: i32,
    pub total_hundredths: i64,
    pub percent_hundredths: Option<i64>,
    /// In a national list, the pair's place in its club's own ranking; in a club's own ranking,
    /// its place in the national list of its direction.
    pub other: Option<Place>,
}

/// One page of a ranking.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Page {
    /// Pairs in the ranking.
    pub total: usize,
    /// Position of the first row.
    pub offset: usize,
    pub rows: Vec<Row>,
    /// The national generation shown.
    pub generation: i64,
}

fn pair_ref(s: &PairStanding) -> PairKey {
    PairKey::new(
        s.club_id.clone(),
        s.section.clone(),
        s.pair.clone(),
        direction_key(s.direction),
    )
}

/// A pair's place in its club's own ranking.
pub(crate) fn club_place(p: &Projection, pair: &PairKey) -> Option<Place> {
    let s = p.clubs.get(&pair.club)?;
    s.standings
        .iter()
        .find(|e| pair_ref(e) == *pair)
        .map(|e| Place {
            rank: e.rank,
            tied: e.tied,
        })
}

/// The ids of a national list, narrowed to one club's pairs if `club` is given.
fn ids<'a>(national: &'a NationalStandings, list: List, club: Option<&'a str>) -> Vec<PairId> {
    let all = national.list(list.key());
    match club {
        None => all.to_vec(),
        Some(club) => all
            .iter()
            .copied()
            .filter(|&id| national.pair_names(id).is_some_and(|n| n.club == club))
            .collect(),
    }
}

fn national_row(p: &Projection, national: &NationalStandings, id: PairId, list: List) -> Row {
    let e = national.entry(id);
    let pair = pair_ref(&e);
    let place = if list == List::Combined {
        Place {
            rank: e.combined_rank,
            tied: e.combined_tied,
        }
    } else {
        Place {
            rank: e.rank,
            tied: e.tied,
        }
    };
    Row {
        place,
        players: players_of(p, &pair),
        club_name: club_name(p, &pair.club),
        boards: e.boards,
        total_hundredths: e.total_hundredths,
        percent_hundredths: e.percent_hundredths,
        other: club_place(p, &pair),
        pair,
    }
}

/// Rows `offset..offset + limit` of a national list (one club's pairs if `club` is given).
pub fn national_page(
    p: &Projection,
    list: List,
    club: Option<&str>,
    offset: usize,
    limit: usize,
) -> Page {
    let Some(national) = &p.national else {
        return Page::default();
    };
    let ids = ids(national, list, club);
    let rows = ids
        .iter()
        .skip(offset)
        .take(limit)
        .map(|&id| national_row(p, national, id, list))
        .collect();
    Page {
        total: ids.len(),
        offset: offset.min(ids.len()),
        rows,
        generation: national.generation,
    }
}

/// Where a pair is in a national list (narrowed to a club if `club` is given).
pub fn national_position(
    p: &Projection,
    catalog: &Catalog,
    list: List,
    club: Option<&str>,
    pair: &PairKey,
) -> Option<usize> {
    let national = p.national.as_ref()?;
    let id = catalog
        .national()
        .id_of(national, pair)
        .or_else(|| national.id_of(pair))?;
    match club {
        None => catalog
            .national()
            .position(id, list.key())
            .or_else(|| national.list(list.key()).iter().position(|&x| x == id)),
        Some(club) => ids(national, list, Some(club))
            .iter()
            .position(|&x| x == id),
    }
}

/// A pair's national standing.
pub fn national_standing(
    p: &Projection,
    catalog: &Catalog,
    pair: &PairKey,
) -> Option<PairStanding> {
    let national = p.national.as_ref()?;
    let id = catalog
        .national()
        .id_of(national, pair)
        .or_else(|| national.id_of(pair))?;
    Some(national.entry(id))
}

/// A club's own ranking, one list per direction (`NS`, `EW`, or `""` for Howell pairs), each
/// row with the pair's national place in its direction's list.
pub fn club_ranking(
    p: &Projection,
    catalog: &Catalog,
    club: &str,
) -> Vec<(&'static str, Vec<Row>)> {
    let Some(s) = p.clubs.get(club) else {
        return Vec::new();
    };
    let mut lists: Vec<(&'static str, Vec<Row>)> = Vec::new();
    for e in &s.standings {
        let pair = pair_ref(e);
        let national = national_standing(p, catalog, &pair).map(|n| Place {
            rank: n.rank,
            tied: n.tied,
        });
        let row = Row {
            place: Place {
                rank: e.rank,
                tied: e.tied,
            },
            players: players_of(p, &pair),
            club_name: club_name(p, club),
            boards: e.boards,
            total_hundredths: e.total_hundredths,
            percent_hundredths: e.percent_hundredths,
            other: national,
            pair,
        };
        match lists.iter_mut().find(|(d, _)| *d == row.pair.direction) {
            Some((_, rows)) => rows.push(row),
            None => lists.push((row.pair.direction, vec![row])),
        }
    }
    for (_, rows) in &mut lists {
        rows.sort_by_key(|r| {
            (
                r.place.rank,
                r.pair.section.clone(),
                simpairs_scoring::PairLabel::new(&r.pair.pair),
            )
        });
    }
    lists.sort_by_key(|(d, _)| match *d {
        "NS" => 0,
        "EW" => 1,
        _ => 2,
    });
    lists
}
