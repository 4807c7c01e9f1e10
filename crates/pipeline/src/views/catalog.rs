//! What the results website knows beyond the projection's own views, kept up to date as clubs
//! arrive: which clubs are in and when each arrived, the search index, where each pair stands in
//! the national lists, and how many tables each club played of each board (to page a national
//! traveller without reading every club).
//!
//! [`Catalog::refresh`] reads the projection (under its read lock) and does work only for the
//! clubs whose submissions changed since it last looked, and for a new national generation.

use std::collections::BTreeMap;

use simpairs_events::types::Player;

use crate::PairKey;
use crate::project::Projection;
use crate::views::national::NationalIndex;
use crate::views::search::SearchIndex;

/// A club's arrival, or a correction it sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub club: String,
    /// When it was seen (ms since the epoch): the time of the log record that brought it.
    pub at_ms: i64,
    /// A further submission of a club already in.
    pub correction: bool,
    /// A submission that withdrew the club's results (none left in force).
    pub withdrawn: bool,
}

/// One club as the catalog knows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClubInfo {
    /// Submissions applied.
    pub submissions: usize,
    /// When its first and latest submissions were seen (ms since the epoch).
    pub first_ms: i64,
    pub last_ms: i64,
    /// Pairs indexed.
    pub pairs: usize,
    /// Tables played of each board, by board.
    pub tables: BTreeMap<i32, u32>,
    /// Generation of the club's own standings when its pairs were indexed.
    standings_generation: Option<i64>,
}

impl ClubInfo {
    /// Whether the club's results were withdrawn: its submissions applied and left none in force
    /// (`simpairs club withdraw`).
    pub fn withdrawn(&self) -> bool {
        self.tables.is_empty()
    }
}

/// The catalog of an event.
#[derive(Debug, Default)]
pub struct Catalog {
    clubs: BTreeMap<String, ClubInfo>,
    /// Arrivals in the order seen.
    arrivals: Vec<Arrival>,
    search: SearchIndex,
    national: NationalIndex,
    /// Club names indexed (the declaration's), by count: re-read when the declaration changes.
    names_indexed: usize,
}

impl Catalog {
    /// Brings the catalog up to date with `p`; `at_ms` is the time of the latest record the
    /// projection read. Returns the arrivals seen now.
    pub fn refresh(&mut self, p: &Projection, at_ms: i64) -> Vec<Arrival> {
        if self.names_indexed != p.club_names.len() {
            for (club, name) in &p.club_names {
                self.search.set_club_name(club, name);
            }
            self.names_indexed = p.club_names.len();
        }
        let mut arrived = Vec::new();
        for (club, submissions) in p.submissions_by_club() {
            let standings = p.clubs.get(club).map(|s| s.generation);
            let info = self.clubs.entry(club.to_string()).or_default();
            if info.submissions == submissions && info.standings_generation == standings {
                continue;
            }
            info.standings_generation = standings;
            let pairs = club_pairs(p, club);
            info.pairs = pairs.len();
            info.tables = tables_by_board(p, club);
            self.search.set_club_pairs(club, pairs);
            if info.submissions != submissions {
                arrived.push(Arrival {
                    club: club.to_string(),
                    at_ms,
                    correction: info.submissions > 0,
                    withdrawn: info.withdrawn(),
                });
                if info.submissions == 0 {
                    info.first_ms = at_ms;
                }
                info.last_ms = at_ms;
                info.submissions = submissions;
            }
        }
        if let Some(national) = &p.national {
            self.national.refresh(national);
        }
        self.arrivals.extend(arrived.iter().cloned());
        arrived
    }

    /// The clubs with results in, by id.
    pub fn clubs(&self) -> &BTreeMap<String, ClubInfo> {
        &self.clubs
    }

    /// Arrivals and corrections in the order seen.
    pub fn arrivals(&self) -> &[Arrival] {
        &self.arrivals
    }

    pub fn search(&self) -> &SearchIndex {
        &self.search
    }

    pub fn national(&self) -> &NationalIndex {
        &self.national
    }
}

/// Every pair of a club: those its standings rank and those its submissions entered, with their
/// players where the club gave them.
fn club_pairs(p: &Projection, club: &str) -> Vec<(PairKey, Vec<Player>)> {
    let mut pairs: BTreeMap<PairKey, Vec<Player>> = BTreeMap::new();
    let from = PairKey::new(club, "", "", "");
    for (key, players) in p.players.range(from..) {
        if key.club != club {
            break;
        }
        pairs.insert(key.clone(), players.clone());
    }
    if let Some(s) = p.clubs.get(club) {
        for e in &s.standings {
            let key = PairKey::new(
                e.club_id.clone(),
                e.section.clone(),
                e.pair.clone(),
                crate::wire::direction_key(e.direction),
            );
            pairs.entry(key).or_default();
        }
    }
    pairs.into_iter().collect()
}

fn tables_by_board(p: &Projection, club: &str) -> BTreeMap<i32, u32> {
    let mut tables = BTreeMap::new();
    for (_, r) in p.club_results(club) {
        *tables.entry(r.board).or_insert(0) += 1;
    }
    tables
}
