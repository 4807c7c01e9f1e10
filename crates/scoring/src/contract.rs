//! Contracts and the duplicate score of a deal (Laws of Duplicate Bridge, Law 77).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{Direction, Error, Result};

/// A seat at the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Seat {
    North,
    East,
    South,
    West,
}

impl Seat {
    /// The partnership sitting in this seat.
    pub fn direction(self) -> Direction {
        match self {
            Seat::North | Seat::South => Direction::NS,
            Seat::East | Seat::West => Direction::EW,
        }
    }

    /// The one-letter name used on travellers: `N`, `E`, `S`, `W`.
    pub fn letter(self) -> char {
        match self {
            Seat::North => 'N',
            Seat::East => 'E',
            Seat::South => 'S',
            Seat::West => 'W',
        }
    }
}

impl FromStr for Seat {
    type Err = Error;

    /// Accepts `N`/`E`/`S`/`W` and the full names, in any case.
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        let is = |name: &str| t.eq_ignore_ascii_case(name);
        if is("N") || is("NORTH") {
            Ok(Seat::North)
        } else if is("E") || is("EAST") {
            Ok(Seat::East)
        } else if is("S") || is("SOUTH") {
            Ok(Seat::South)
        } else if is("W") || is("WEST") {
            Ok(Seat::West)
        } else {
            Err(Error::Invalid(format!(
                "unknown declarer {s:?}: expected N, E, S or W"
            )))
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// The denomination of a contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Strain {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
    NoTrump,
}

impl Strain {
    fn symbol(self) -> &'static str {
        match self {
            Strain::Clubs => "C",
            Strain::Diamonds => "D",
            Strain::Hearts => "H",
            Strain::Spades => "S",
            Strain::NoTrump => "NT",
        }
    }
}

/// Whether the final contract was doubled or redoubled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Doubling {
    Undoubled,
    Doubled,
    Redoubled,
}

impl Doubling {
    fn factor(self) -> i32 {
        match self {
            Doubling::Undoubled => 1,
            Doubling::Doubled => 2,
            Doubling::Redoubled => 4,
        }
    }
}

/// A final contract, or the board passed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Contract {
    PassedOut,
    Bid {
        level: u8,
        strain: Strain,
        doubling: Doubling,
    },
}

impl Contract {
    /// A bid contract; the level must be 1 to 7.
    pub fn bid(level: u8, strain: Strain, doubling: Doubling) -> Result<Self> {
        if !(1..=7).contains(&level) {
            return Err(Error::Invalid(format!(
                "impossible contract level {level}: a contract is 1 to 7"
            )));
        }
        Ok(Contract::Bid {
            level,
            strain,
            doubling,
        })
    }
}

impl FromStr for Contract {
    type Err = Error;

    /// Parses what scoring programs write: `3NT`, `3N`, `4HX`, `4Hx`, `6DXX`, `4 S`, `6S*`, `PASS`, `P`,
    /// `AP`, `Passed`. Case and inner spaces do not matter. Reads the bytes once, without allocating.
    fn from_str(text: &str) -> Result<Self> {
        // Letters and digits, upper-cased, spaces skipped; contracts are short.
        let mut compact = [0u8; 16];
        let mut len = 0;
        for b in text.bytes().filter(|b| !b.is_ascii_whitespace()) {
            if len == compact.len() {
                len = compact.len() + 1;
                break;
            }
            compact[len] = b.to_ascii_uppercase();
            len += 1;
        }
        let invalid = || {
            Error::Invalid(format!(
                "unknown contract {text:?}: expected a level 1-7, a strain C/D/H/S/NT and an optional X or XX, or PASS"
            ))
        };
        if len > compact.len() {
            return Err(invalid());
        }
        let c = &compact[..len];
        if matches!(
            c,
            b"PASS" | b"P" | b"AP" | b"PASSED" | b"PASSEDOUT" | b"ALLPASS" | b"PO"
        ) {
            return Ok(Contract::PassedOut);
        }
        let Some((&first, rest)) = c.split_first() else {
            return Err(invalid());
        };
        if !first.is_ascii_digit() {
            return Err(invalid());
        }
        let level = first - b'0';
        let (strain, rest) = if let Some(r) = rest.strip_prefix(b"NT") {
            (Strain::NoTrump, r)
        } else {
            let strain = match rest.first() {
                Some(b'C') => Strain::Clubs,
                Some(b'D') => Strain::Diamonds,
                Some(b'H') => Strain::Hearts,
                Some(b'S') => Strain::Spades,
                Some(b'N') => Strain::NoTrump,
                _ => return Err(invalid()),
            };
            (strain, &rest[1..])
        };
        let doubling = match rest {
            b"" => Doubling::Undoubled,
            b"X" | b"*" | b"D" => Doubling::Doubled,
            b"XX" | b"**" | b"R" | b"DD" => Doubling::Redoubled,
            _ => return Err(invalid()),
        };
        if !(1..=7).contains(&level) {
            return Err(Error::Invalid(format!(
                "impossible contract {text:?}: a contract is 1 to 7"
            )));
        }
        Contract::bid(level, strain, doubling)
    }
}

impl fmt::Display for Contract {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Contract::PassedOut => write!(f, "PASS"),
            Contract::Bid {
                level,
                strain,
                doubling,
            } => {
                let dbl = match doubling {
                    Doubling::Undoubled => "",
                    Doubling::Doubled => "X",
                    Doubling::Redoubled => "XX",
                };
                write!(f, "{level}{}{dbl}", strain.symbol())
            }
        }
    }
}

/// Which sides are vulnerable on a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Vulnerability {
    pub ns: bool,
    pub ew: bool,
}

impl Vulnerability {
    pub const NONE: Vulnerability = Vulnerability {
        ns: false,
        ew: false,
    };

    /// The standard vulnerability of a board number (the 16-board cycle printed on every board).
    pub fn of_board(board: u32) -> Vulnerability {
        // Board 1..16: None, NS, EW, Both, NS, EW, Both, None, EW, Both, None, NS, Both, None, NS, EW.
        const CYCLE: [(bool, bool); 16] = [
            (false, false),
            (true, false),
            (false, true),
            (true, true),
            (true, false),
            (false, true),
            (true, true),
            (false, false),
            (false, true),
            (true, true),
            (false, false),
            (true, false),
            (true, true),
            (false, false),
            (true, false),
            (false, true),
        ];
        let (ns, ew) = CYCLE[(board.max(1) as usize - 1) % 16];
        Vulnerability { ns, ew }
    }

    /// Whether the given side is vulnerable.
    pub fn of(self, direction: Direction) -> bool {
        match direction {
            Direction::NS => self.ns,
            Direction::EW => self.ew,
        }
    }

    /// The index 0..4 of this vulnerability (None, NS, EW, Both), for lookup tables.
    pub fn index(self) -> usize {
        usize::from(self.ns) | (usize::from(self.ew) << 1)
    }
}

impl fmt::Display for Vulnerability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match (self.ns, self.ew) {
            (false, false) => "None",
            (true, false) => "NS",
            (false, true) => "EW",
            (true, true) => "All",
        })
    }
}

/// The dealer of a board number (N, E, S, W in turn).
pub fn dealer_of_board(board: u32) -> Seat {
    match (board.max(1) - 1) % 4 {
        0 => Seat::North,
        1 => Seat::East,
        2 => Seat::South,
        _ => Seat::West,
    }
}

/// The duplicate score for the declaring side of `contract` making `tricks` tricks (0-13), Law 77.
///
/// Positive when the contract is made. The caller turns it into the North-South point of view.
pub fn declarer_score(contract: Contract, tricks: u8, vulnerable: bool) -> Result<i32> {
    if tricks > 13 {
        return Err(Error::Invalid(format!(
            "impossible number of tricks {tricks}: declarer takes 0 to 13"
        )));
    }
    let Contract::Bid {
        level,
        strain,
        doubling,
    } = contract
    else {
        return Ok(0);
    };
    let needed = i32::from(level) + 6;
    let taken = i32::from(tricks);
    let factor = doubling.factor();
    if taken >= needed {
        let level = i32::from(level);
        let trick_points = match strain {
            Strain::Clubs | Strain::Diamonds => 20 * level,
            Strain::Hearts | Strain::Spades => 30 * level,
            Strain::NoTrump => 40 + 30 * (level - 1),
        } * factor;
        let mut score = trick_points;
        score += if trick_points >= 100 {
            if vulnerable { 500 } else { 300 }
        } else {
            50
        };
        score += match level {
            6 => {
                if vulnerable {
                    750
                } else {
                    500
                }
            }
            7 => {
                if vulnerable {
                    1500
                } else {
                    1000
                }
            }
            _ => 0,
        };
        let overtricks = taken - needed;
        score += match doubling {
            Doubling::Undoubled => {
                // The "insult" is zero and overtricks score at trick value.
                overtricks
                    * match strain {
                        Strain::Clubs | Strain::Diamonds => 20,
                        _ => 30,
                    }
            }
            Doubling::Doubled | Doubling::Redoubled => {
                let insult = 50 * factor / 2;
                let per_trick = (if vulnerable { 200 } else { 100 }) * factor / 2;
                insult + overtricks * per_trick
            }
        };
        Ok(score)
    } else {
        let under = needed - taken;
        let penalty = match doubling {
            Doubling::Undoubled => under * if vulnerable { 100 } else { 50 },
            Doubling::Doubled | Doubling::Redoubled => {
                let doubled = if vulnerable {
                    200 + 300 * (under - 1)
                } else {
                    // 100, then 200 for the 2nd and 3rd, 300 from the 4th.
                    100 + 200 * (under - 1).min(2) + 300 * (under - 3).max(0)
                };
                doubled * factor / 2
            }
        };
        Ok(-penalty)
    }
}

/// The score from North-South's point of view of `contract` played by `declarer` taking `tricks`.
pub fn ns_score(
    contract: Contract,
    declarer: Seat,
    tricks: u8,
    vulnerability: Vulnerability,
) -> Result<i32> {
    let side = declarer.direction();
    let score = declarer_score(contract, tricks, vulnerability.of(side))?;
    Ok(match side {
        Direction::NS => score,
        Direction::EW => -score,
    })
}

/// Every score North-South can record on a board of the given vulnerability, sorted: the scores of every
/// contract, declarer and number of tricks, and 0 for a pass-out.
pub fn legal_ns_scores(vulnerability: Vulnerability) -> Vec<i32> {
    let mut scores = vec![0];
    for declarer in [Seat::North, Seat::East] {
        for level in 1..=7u8 {
            for strain in [
                Strain::Clubs,
                Strain::Diamonds,
                Strain::Hearts,
                Strain::Spades,
                Strain::NoTrump,
            ] {
                for doubling in [Doubling::Undoubled, Doubling::Doubled, Doubling::Redoubled] {
                    let contract = Contract::Bid {
                        level,
                        strain,
                        doubling,
                    };
                    for tricks in 0..=13 {
                        if let Ok(s) = ns_score(contract, declarer, tricks, vulnerability) {
                            scores.push(s);
                        }
                    }
                }
            }
        }
    }
    scores.sort_unstable();
    scores.dedup();
    scores
}

/// Answers "is this a score a table could record?" in constant time, for every vulnerability.
#[derive(Clone, Debug)]
pub struct LegalScores {
    /// For each vulnerability index, a bit per score from -`LIMIT` to +`LIMIT`: a bit per score
    /// rather than per multiple of 10 (8 KB in all) spares large files' readers a division and a
    /// remainder on every row.
    bits: [Vec<u64>; 4],
}

impl LegalScores {
    /// Larger than any bridge score (7NTXX vulnerable making 13 is 2980; 7NTXX vulnerable down 13 is 7600).
    const LIMIT: i32 = 8000;

    /// One table shared by the whole process (it takes a few thousand score computations to build).
    pub fn shared() -> &'static LegalScores {
        static SHARED: std::sync::LazyLock<LegalScores> =
            std::sync::LazyLock::new(LegalScores::new);
        &SHARED
    }

    pub fn new() -> Self {
        let mut bits: [Vec<u64>; 4] = Default::default();
        for (index, slot) in bits.iter_mut().enumerate() {
            let vulnerability = Vulnerability {
                ns: index & 1 == 1,
                ew: index & 2 == 2,
            };
            *slot = vec![0; (2 * Self::LIMIT) as usize / 64 + 1];
            for s in legal_ns_scores(vulnerability) {
                let i = (s + Self::LIMIT) as usize;
                slot[i / 64] |= 1 << (i % 64);
            }
        }
        LegalScores { bits }
    }

    /// Whether North-South can score `score` on a board of this vulnerability.
    #[inline]
    pub fn contains(&self, vulnerability: Vulnerability, score: i32) -> bool {
        // Below -LIMIT the sum wraps to a huge index, outside the table like one above +LIMIT.
        let i = score.wrapping_add(Self::LIMIT) as u32 as usize;
        self.bits[vulnerability.index()]
            .get(i / 64)
            .is_some_and(|word| word >> (i % 64) & 1 != 0)
    }
}

impl Default for LegalScores {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Contract {
        s.parse().unwrap()
    }

    fn vul(ns: bool, ew: bool) -> Vulnerability {
        Vulnerability { ns, ew }
    }

    /// Seed 001 (Esther Bridge, "Board Bridge Scores"): the worked scores of its examples.
    #[test]
    fn seed_001_board_bridge_scores() {
        // 1NT making 1 = 90, with an overtrick = 120, regardless of vulnerability.
        for v in [false, true] {
            assert_eq!(declarer_score(c("1NT"), 7, v).unwrap(), 90);
            assert_eq!(declarer_score(c("1NT"), 8, v).unwrap(), 120);
        }
        // 4H not vulnerable making 4 = 420, one overtrick = 450.
        assert_eq!(declarer_score(c("4H"), 10, false).unwrap(), 420);
        assert_eq!(declarer_score(c("4H"), 11, false).unwrap(), 450);
        // 4S vulnerable making 4 = 620, two overtricks = 680.
        assert_eq!(declarer_score(c("4S"), 10, true).unwrap(), 620);
        assert_eq!(declarer_score(c("4S"), 12, true).unwrap(), 680);
        // Setting opponents: NV undoubled -1 = +50; V undoubled -2 = +200; V doubled -1 = +200, -2 = +500.
        assert_eq!(declarer_score(c("4S"), 9, false).unwrap(), -50);
        assert_eq!(declarer_score(c("4S"), 8, true).unwrap(), -200);
        assert_eq!(declarer_score(c("4SX"), 9, true).unwrap(), -200);
        assert_eq!(declarer_score(c("4SX"), 8, true).unwrap(), -500);
        // Board #1 table: 4H NV making 6, 5, 4 and 3 tricks short: 480, 450, 420, -50.
        let board1: Vec<i32> = [12, 11, 10, 9]
            .iter()
            .map(|&t| declarer_score(c("4H"), t, false).unwrap())
            .collect();
        assert_eq!(board1, [480, 450, 420, -50]);
        // Board #2 (NS vulnerable): 4H+1 = 650, 4H= 620, and 6DX making 2 = -1100 for the declarer.
        assert_eq!(declarer_score(c("4H"), 11, true).unwrap(), 650);
        assert_eq!(declarer_score(c("4H"), 10, true).unwrap(), 620);
        assert_eq!(declarer_score(c("6DX"), 8, true).unwrap(), -1100);
        // Non-vulnerable doubled 4 down = 800, used in the seed's "500 beats 420" remark family.
        assert_eq!(declarer_score(c("4SX"), 6, false).unwrap(), -800);
    }

    /// Seed 002's board 4 (all vulnerable), every line of the 9-table traveller.
    #[test]
    fn seed_002_board_4_traveller_scores() {
        let all = vul(true, true);
        let lines = [
            ("3C", Seat::East, 10, -130),
            ("3NT", Seat::East, 11, -660),
            ("2NT", Seat::East, 8, -120),
            ("3NT", Seat::West, 7, 200),
            ("3NT", Seat::East, 9, -600),
            ("6C", Seat::East, 11, 100),
            ("5C", Seat::East, 10, 100),
            ("3S", Seat::North, 9, 140),
            ("3C", Seat::East, 11, -150),
        ];
        for (contract, declarer, tricks, expected) in lines {
            assert_eq!(
                ns_score(c(contract), declarer, tricks, all).unwrap(),
                expected,
                "{contract} by {declarer} taking {tricks}"
            );
        }
        assert_eq!(Vulnerability::of_board(4), all);
        assert_eq!(dealer_of_board(4), Seat::West);
    }

    /// Seed 003's board 10 (both vulnerable): 620, 630 (3NT+1), 1100 (a doubled penalty), -100.
    #[test]
    fn seed_003_board_10_scores() {
        let both = Vulnerability::of_board(10);
        assert_eq!(both, vul(true, true));
        assert_eq!(ns_score(c("4H"), Seat::South, 10, both).unwrap(), 620);
        assert_eq!(ns_score(c("3NT"), Seat::North, 10, both).unwrap(), 630);
        assert_eq!(ns_score(c("3NT"), Seat::North, 9, both).unwrap(), 600);
        assert_eq!(ns_score(c("4S"), Seat::South, 9, both).unwrap(), -100);
        assert!(LegalScores::new().contains(both, 1100));
    }

    /// Law 77 corner cases: the insult, redoubled overtricks, doubled part-scores reaching game, slams,
    /// the fourth-and-later non-vulnerable undertricks.
    #[test]
    fn law_77_corner_cases() {
        assert_eq!(declarer_score(c("1NTX"), 7, false).unwrap(), 180);
        assert_eq!(declarer_score(c("1NTXX"), 7, false).unwrap(), 560);
        assert_eq!(declarer_score(c("2HX"), 8, false).unwrap(), 470);
        // 80 trick points stay a part-score: 80 + 50 + 100 insult + 3 x 400.
        assert_eq!(
            declarer_score(c("1CXX"), 10, true).unwrap(),
            80 + 50 + 100 + 3 * 400
        );
        assert_eq!(declarer_score(c("6S"), 12, true).unwrap(), 1430);
        assert_eq!(declarer_score(c("7NT"), 13, true).unwrap(), 2220);
        assert_eq!(declarer_score(c("7NTXX"), 13, true).unwrap(), 2980);
        assert_eq!(declarer_score(c("7NTXX"), 0, true).unwrap(), -7600);
        assert_eq!(declarer_score(c("3NTX"), 5, false).unwrap(), -800);
        assert_eq!(declarer_score(c("3NTX"), 4, false).unwrap(), -1100);
        assert_eq!(declarer_score(c("3NTXX"), 4, false).unwrap(), -2200);
        assert_eq!(declarer_score(Contract::PassedOut, 0, true).unwrap(), 0);
    }

    #[test]
    fn contract_spellings() {
        assert_eq!(c("3nt"), c("3N"));
        assert_eq!(c("4 S"), c("4S"));
        assert_eq!(c("6Sx"), c("6SX"));
        assert_eq!(c("6S*"), c("6SX"));
        assert_eq!(c("3NTxx"), c("3NTXX"));
        assert_eq!(c("Pass"), Contract::PassedOut);
        assert_eq!(c("AP"), Contract::PassedOut);
        assert_eq!(c("4HX").to_string(), "4HX");
        for bad in ["8NT", "0S", "4", "4Z", "NT", "", "4SXXX", "44S"] {
            let err = bad.parse::<Contract>().unwrap_err().to_string();
            assert!(err.contains("contract"), "{bad}: {err}");
        }
        assert!(declarer_score(c("4S"), 14, false).is_err());
        assert!("Q".parse::<Seat>().is_err());
    }

    #[test]
    fn legal_scores_know_vulnerability() {
        let legal = LegalScores::new();
        assert!(legal.contains(Vulnerability::NONE, 420));
        assert!(!legal.contains(Vulnerability::NONE, 620));
        assert!(legal.contains(vul(true, false), 620));
        assert!(legal.contains(vul(true, false), -420));
        assert!(!legal.contains(vul(true, false), -620));
        assert!(!legal.contains(Vulnerability::NONE, 425));
        assert!(!legal.contains(Vulnerability::NONE, 12_000));
    }

    /// The table answers yes for exactly the scores `legal_ns_scores` lists, at every score near
    /// and beyond its ends (where an index could wrap) and at the extremes of `i32`.
    #[test]
    fn legal_scores_hold_exactly_the_listed_scores() {
        let legal = LegalScores::new();
        for index in 0..4 {
            let v = vul(index & 1 == 1, index & 2 == 2);
            let listed: std::collections::HashSet<i32> = legal_ns_scores(v).into_iter().collect();
            let edges = [i32::MIN, i32::MIN + 1, i32::MAX - 1, i32::MAX];
            for score in (-8_200..=8_200).chain(edges) {
                assert_eq!(
                    legal.contains(v, score),
                    listed.contains(&score),
                    "{v:?} {score}"
                );
            }
        }
    }
}
