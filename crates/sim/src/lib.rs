//! # simpairs-sim
//!
//! A seeded simulation of a national simultaneous pairs event, for `simpairs demo`, benchmarks and
//! tests: clubs of different sizes (log-normal around 9 tables, like the peers' `gen.py`), Mitchell and
//! Howell movements, and for every board a realistic spread of results — the main contract made, with
//! overtricks or going down, an alternative contract, the opponents' part-score or sacrifice, and a thin
//! tail of everything else — plus a few artificial adjusted scores. Each club's results come out as a
//! traveller CSV (docs/rules-input.md), exactly what a club would upload. The same seed gives the same event.
//!
//! ## Layout
//! Everything is in this file: [`national_event`] builds a [`SimEvent`]; [`BoardPlan`] is one board's
//! distribution of results. [`names`] gives the players' names for the demo.
//!
//! ## Example
//! ```
//! let event = simpairs_sim::national_event(&simpairs_sim::Settings { seed: 7, clubs: 5, boards: 4, ..Default::default() });
//! assert_eq!(event.clubs.len(), 5);
//! assert!(event.clubs[0].csv.starts_with("board,club,section,ns_pair,ew_pair,contract,declarer,tricks"));
//! ```

pub mod names;

use std::fmt::Write as _;

use simpairs_scoring::contract::{Seat, Strain, Vulnerability, declarer_score};
use simpairs_scoring::{Contract, Doubling};

/// How big an event to simulate.
#[derive(Clone, Debug)]
pub struct Settings {
    pub seed: u64,
    pub clubs: usize,
    pub boards: u16,
    /// One result in this many is an artificial adjusted score (0: none).
    pub adjusted_one_in: u32,
    /// Share of clubs (in percent) playing a Howell movement; the rest play Mitchell.
    pub howell_percent: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: 2026,
            clubs: 300,
            boards: 27,
            adjusted_one_in: 1500,
            howell_percent: 20,
        }
    }
}

/// A simulated club and its results file.
#[derive(Clone, Debug)]
pub struct SimClub {
    pub id: String,
    pub name: String,
    pub tables: usize,
    pub howell: bool,
    /// The club's results as a traveller CSV.
    pub csv: String,
    pub results: usize,
}

/// A simulated event.
#[derive(Clone, Debug)]
pub struct SimEvent {
    pub boards: u16,
    pub clubs: Vec<SimClub>,
    /// A correction one club sends after its first upload: one traveller line re-entered with a
    /// different result (a traveller CSV with that single row).
    pub correction: (usize, String),
}

/// One board's distribution: (contract, declarer, tricks) outcomes with weights.
#[derive(Clone, Debug)]
pub struct BoardPlan {
    pub board: u16,
    outcomes: Vec<(Contract, Seat, u8, f64)>,
    total: f64,
}

const PLACES: [&str; 40] = [
    "Auckland",
    "Wellington",
    "Christchurch",
    "Hamilton",
    "Tauranga",
    "Dunedin",
    "Palmerston North",
    "Napier",
    "Nelson",
    "Rotorua",
    "New Plymouth",
    "Whangarei",
    "Invercargill",
    "Whanganui",
    "Gisborne",
    "Timaru",
    "Blenheim",
    "Masterton",
    "Taupo",
    "Levin",
    "Ashburton",
    "Oamaru",
    "Queenstown",
    "Kapiti",
    "Cambridge",
    "Te Awamutu",
    "Feilding",
    "Hastings",
    "Rangiora",
    "Thames",
    "Waihi",
    "Kerikeri",
    "Greymouth",
    "Motueka",
    "Dannevirke",
    "Matamata",
    "Pukekohe",
    "Howick",
    "Orewa",
    "Waiheke",
];

fn pick_strain(rng: &mut fastrand::Rng, allowed: &[Strain]) -> Strain {
    allowed[rng.usize(..allowed.len())]
}

/// A gamma(2, 0.5)-like positive weight: the sum of two exponentials.
fn weight(rng: &mut fastrand::Rng) -> f64 {
    let e = |rng: &mut fastrand::Rng| -(1.0 - rng.f64()).ln();
    0.5 * (e(rng) + e(rng))
}

/// Every strain, and the suits.
const ALL: [Strain; 5] = [
    Strain::Clubs,
    Strain::Diamonds,
    Strain::Hearts,
    Strain::Spades,
    Strain::NoTrump,
];
const SUITS: [Strain; 4] = [
    Strain::Clubs,
    Strain::Diamonds,
    Strain::Hearts,
    Strain::Spades,
];

/// A contract, result and weight of a board's distribution.
type Weighted = (Contract, Seat, u8, f64);

fn bid(level: u8, strain: Strain, doubling: Doubling) -> Contract {
    Contract::Bid {
        level,
        strain,
        doubling,
    }
}

/// The side that declares the board's main contract (a declarer and a defender of the other
/// side), and the contract: part-scores, games, slams and grand slams, most often games.
fn main_contract(rng: &mut fastrand::Rng) -> (Seat, Seat, u8, Strain) {
    let ns_declares = rng.bool();
    let (declarer, defender) = if ns_declares {
        (
            [Seat::North, Seat::South][rng.usize(..2)],
            [Seat::East, Seat::West][rng.usize(..2)],
        )
    } else {
        (
            [Seat::East, Seat::West][rng.usize(..2)],
            [Seat::North, Seat::South][rng.usize(..2)],
        )
    };
    let kind = rng.f64();
    let (level, strain) = if kind < 0.40 {
        (rng.u8(1..=3), pick_strain(rng, &ALL))
    } else if kind < 0.85 {
        [
            (3, Strain::NoTrump),
            (4, Strain::Hearts),
            (4, Strain::Spades),
            (5, Strain::Clubs),
            (5, Strain::Diamonds),
        ][rng.usize(..5)]
    } else if kind < 0.97 {
        (6, pick_strain(rng, &ALL))
    } else {
        (7, pick_strain(rng, &ALL))
    };
    (declarer, defender, level, strain)
}

/// The main contract made with overtricks or down, and another contract by the same declarer.
fn declarer_outcomes(
    rng: &mut fastrand::Rng,
    declarer: Seat,
    level: u8,
    strain: Strain,
) -> Vec<Weighted> {
    let mut outcomes = Vec::new();
    for (diff, w) in [(0i8, 4.0), (1, 3.0), (2, 0.8), (-1, 1.5), (-2, 0.4)] {
        let tricks = i16::from(level) + 6 + i16::from(diff);
        if (0..=13).contains(&tricks) {
            outcomes.push((
                bid(level, strain, Doubling::Undoubled),
                declarer,
                tricks as u8,
                w * weight(rng),
            ));
        }
    }
    let alt_level = (i16::from(level) + rng.i16(-1..=1)).clamp(1, 7) as u8;
    let alt_strain = loop {
        let s = pick_strain(rng, &ALL);
        if s != strain {
            break s;
        }
    };
    for (diff, w) in [(0i8, 1.0), (1, 0.6), (-1, 0.6)] {
        let tricks = i16::from(alt_level) + 6 + i16::from(diff);
        if (0..=13).contains(&tricks) {
            outcomes.push((
                bid(alt_level, alt_strain, Doubling::Undoubled),
                declarer,
                tricks as u8,
                w * weight(rng),
            ));
        }
    }
    outcomes
}

/// The other side's part-score: made, one down, or two down doubled.
fn add_defence(rng: &mut fastrand::Rng, defender: Seat, outcomes: &mut Vec<Weighted>) {
    let opp_level = rng.u8(2..=3);
    let opp_strain = pick_strain(rng, &SUITS);
    for (diff, doubling, w) in [
        (0i8, Doubling::Undoubled, 0.5),
        (-1, Doubling::Undoubled, 0.5),
        (-2, Doubling::Doubled, 0.3),
    ] {
        let tricks = (i16::from(opp_level) + 6 + i16::from(diff)) as u8;
        outcomes.push((
            bid(opp_level, opp_strain, doubling),
            defender,
            tricks,
            w * weight(rng),
        ));
    }
}

/// The tail: a sprinkling of other contracts and results, and the odd pass-out.
fn add_tail(rng: &mut fastrand::Rng, outcomes: &mut Vec<Weighted>) {
    let tail_mass = 0.02 + 0.06 * rng.f64();
    let main_mass: f64 = outcomes.iter().map(|o| o.3).sum();
    for o in outcomes.iter_mut() {
        o.3 *= (1.0 - tail_mass) / main_mass;
    }
    let tail = 24;
    for _ in 0..tail {
        let level = rng.u8(1..=7);
        let strain = pick_strain(rng, &ALL);
        let doubling =
            [Doubling::Undoubled, Doubling::Undoubled, Doubling::Doubled][rng.usize(..3)];
        let who = [Seat::North, Seat::East, Seat::South, Seat::West][rng.usize(..4)];
        let tricks = (i16::from(level) + 6 + rng.i16(-4..=2)).clamp(0, 13) as u8;
        outcomes.push((
            bid(level, strain, doubling),
            who,
            tricks,
            tail_mass / (tail + 1) as f64,
        ));
    }
    outcomes.push((
        Contract::PassedOut,
        Seat::North,
        0,
        tail_mass / (tail + 1) as f64,
    ));
}

impl BoardPlan {
    /// The distribution of one board: a "main" contract by one side and its variations.
    pub fn new(board: u16, rng: &mut fastrand::Rng) -> BoardPlan {
        let (declarer, defender, level, strain) = main_contract(rng);
        let mut outcomes = declarer_outcomes(rng, declarer, level, strain);
        add_defence(rng, defender, &mut outcomes);
        add_tail(rng, &mut outcomes);
        let total = outcomes.iter().map(|o| o.3).sum();
        BoardPlan {
            board,
            outcomes,
            total,
        }
    }

    /// Draws one table's result.
    pub fn draw(&self, rng: &mut fastrand::Rng) -> (Contract, Seat, u8) {
        let mut x = rng.f64() * self.total;
        for &(c, s, t, w) in &self.outcomes {
            if x < w {
                return (c, s, t);
            }
            x -= w;
        }
        let (c, s, t, _) = self.outcomes[self.outcomes.len() - 1];
        (c, s, t)
    }

    /// North-South's score of an outcome on this board.
    pub fn ns_score(&self, (contract, declarer, tricks): (Contract, Seat, u8)) -> i32 {
        let vul = Vulnerability::of_board(u32::from(self.board));
        let s = declarer_score(contract, tricks, vul.of(declarer.direction())).unwrap_or(0);
        if declarer.direction() == simpairs_scoring::Direction::NS {
            s
        } else {
            -s
        }
    }
}

/// Tables of one club: log-normal around 9, between 3 and 40.
fn club_tables(rng: &mut fastrand::Rng) -> usize {
    // Box-Muller normal.
    let (u1, u2) = (1.0 - rng.f64(), rng.f64());
    let normal = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    ((9f64.ln() + 0.6 * normal).exp().round() as usize).clamp(3, 40)
}

/// A fixed signing key made from a name: tests and benchmarks declare and publish with it. Never
/// for a real club (`event declare` and `club keygen` make keys at random).
fn fixed_key(name: &str, pad: u8) -> simpairs_events::PrivateKey {
    let mut secret = [pad; 32];
    for (s, b) in secret.iter_mut().zip(name.bytes()) {
        *s = b;
    }
    simpairs_events::PrivateKey::from_secret(secret)
}

/// A simulated club's fixed signing key, made from its id.
pub fn club_key(club: &str) -> simpairs_events::PrivateKey {
    fixed_key(club, b'#')
}

/// The fixed signing key of simulated events' aggregators.
pub fn aggregator_key() -> simpairs_events::PrivateKey {
    fixed_key("aggregator", b'@')
}

/// The fixed signing key of simulated events' organiser.
pub fn organiser_key() -> simpairs_events::PrivateKey {
    fixed_key("organiser", b'!')
}

/// Builds a simulated national event.
pub fn national_event(settings: &Settings) -> SimEvent {
    let mut plan_rng = fastrand::Rng::with_seed(settings.seed);
    let plans: Vec<BoardPlan> = (1..=settings.boards)
        .map(|b| BoardPlan::new(b, &mut plan_rng))
        .collect();
    let mut rng = fastrand::Rng::with_seed(settings.seed ^ 0x5eed_c1b5);
    let mut clubs = Vec::with_capacity(settings.clubs);
    for c in 0..settings.clubs {
        let tables = club_tables(&mut rng);
        let howell = rng.u32(0..100) < settings.howell_percent && tables <= 12;
        let id = format!("C{:04}", c + 1);
        let place = PLACES[c % PLACES.len()];
        let name = if c < PLACES.len() {
            format!("{place} Bridge Club")
        } else {
            format!("{place} Bridge Club {}", c / PLACES.len() + 1)
        };
        let mut csv = String::from(
            "board,club,section,ns_pair,ew_pair,contract,declarer,tricks,ns_score,adjusted,movement\n",
        );
        let mut results = 0;
        for plan in &plans {
            let b = plan.board;
            for table in 0..tables {
                let (ns, ew) = if howell {
                    // Pairs 1..2t in a circle, shifted each board: every pair plays every board once.
                    let n = 2 * tables;
                    let at = |k: usize| (k + b as usize) % n + 1;
                    (at(2 * table), at(2 * table + 1))
                } else {
                    // NS pairs stay; EW pair (table + board) mod t visits (the peers' gen.py layout).
                    (table + 1, (table + b as usize) % tables + 1)
                };
                let movement = if howell { "howell" } else { "mitchell" };
                if settings.adjusted_one_in > 0 && rng.u32(0..settings.adjusted_one_in) == 0 {
                    let adj = ["AVE", "AVE+", "AVE-", "60/40", "40/60"][rng.usize(..5)];
                    let _ = writeln!(csv, "{b},{id},A,{ns},{ew},,,,,{adj},{movement}");
                } else {
                    let outcome = plan.draw(&mut rng);
                    let (contract, declarer, tricks) = outcome;
                    match contract {
                        Contract::PassedOut => {
                            let _ = writeln!(csv, "{b},{id},A,{ns},{ew},PASS,,,,,{movement}");
                        }
                        _ => {
                            let _ = writeln!(
                                csv,
                                "{b},{id},A,{ns},{ew},{contract},{},{tricks},,,{movement}",
                                declarer.letter()
                            );
                        }
                    }
                }
                results += 1;
            }
        }
        clubs.push(SimClub {
            id,
            name,
            tables,
            howell,
            csv,
            results,
        });
    }
    // A correction: the first club re-enters its first table of board 1 with one more trick.
    let correction = clubs
        .first()
        .map(|club| {
            let row = club.csv.lines().nth(1).unwrap_or_default();
            let mut fields: Vec<String> = row.split(',').map(str::to_string).collect();
            if fields.len() > 7
                && let Ok(t) = fields[7].parse::<u8>()
            {
                fields[7] = (if t < 13 { t + 1 } else { t - 1 }).to_string();
            }
            let header = club.csv.lines().next().unwrap_or_default();
            (0, format!("{header}\n{}\n", fields.join(",")))
        })
        .unwrap_or((0, String::new()));
    SimEvent {
        boards: settings.boards,
        clubs,
        correction,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_event() {
        let s = Settings {
            seed: 11,
            clubs: 20,
            boards: 6,
            ..Default::default()
        };
        let (a, b) = (national_event(&s), national_event(&s));
        assert_eq!(
            a.clubs.iter().map(|c| &c.csv).collect::<Vec<_>>(),
            b.clubs.iter().map(|c| &c.csv).collect::<Vec<_>>()
        );
        let other = national_event(&Settings { seed: 12, ..s });
        assert_ne!(a.clubs[0].csv, other.clubs[0].csv);
    }

    #[test]
    fn results_are_realistic() {
        let mut rng = fastrand::Rng::with_seed(3);
        let plan = BoardPlan::new(4, &mut rng);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..10_000 {
            *counts
                .entry(plan.ns_score(plan.draw(&mut rng)))
                .or_insert(0u32) += 1;
        }
        let mut by_count: Vec<u32> = counts.values().copied().collect();
        by_count.sort_unstable_by(|a, b| b.cmp(a));
        let top_five: u32 = by_count.iter().take(5).sum();
        assert!(
            top_five > 6_000,
            "a few common scores carry most results: {by_count:?}"
        );
        assert!(counts.len() > 15, "and there is a tail");
    }
}
