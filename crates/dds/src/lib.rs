//! Double-dummy analysis of a deal: the tricks each declarer takes in each strain and the par
//! score and contracts, computed by DDS (Bo Haglund's double-dummy solver, through the
//! `dds-bridge` crate). The results website and the analysts' export both analyse deals here, so
//! a board's figures are the same wherever they are read.
//!
//! A deal is PBN `[Deal]` text (`N:AKQ.JT9.876.5432 ...`, hands clockwise from the seat named
//! first), as the event's state keeps it. Only a whole deal (four hands of 13 cards, every card
//! once) is analysed; anything else is an [`Error`], never a panic.
//!
//! ```no_run
//! use simpairs_dds::{Board, Solver};
//! let mut solver = Solver::new();
//! let boards = [Board::numbered(1, "N:A97653.94.AT5.A8 K.JT862.K987.754 Q42.AKQ73.62.KT3 JT8.5.QJ43.QJ962")];
//! for analysis in solver.analyse_all(&boards) {
//!     println!("{:?}", analysis.map(|a| a.par.ns_score));
//! }
//! ```

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::str::FromStr;

use contract_bridge::Strain as DdStrain;
use contract_bridge::contract::Penalty;
use contract_bridge::deal::FullDeal;
use contract_bridge::seat::Seat as DdSeat;
pub use simpairs_scoring::{Seat, Vulnerability};

/// Declarers in the order of the tricks table: N, E, S, W.
pub const SEATS: [Seat; 4] = [Seat::North, Seat::East, Seat::South, Seat::West];

/// Strains in the order of the tricks table: NT, S, H, D, C (as hand records print them).
pub const STRAINS: [&str; 5] = ["NT", "S", "H", "D", "C"];

const DD_STRAINS: [DdStrain; 5] = [
    DdStrain::Notrump,
    DdStrain::Spades,
    DdStrain::Hearts,
    DdStrain::Diamonds,
    DdStrain::Clubs,
];

/// Deals handed to DDS at once by [`Solver::analyse_all`]: enough to keep every core busy,
/// few enough that a batch that fails costs little to retry deal by deal.
const BATCH: usize = 32;

/// Why a deal has no analysis.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The hand record leaves a hand out (`-`): it can be shown, not analysed.
    #[error("a hand of the deal is not given")]
    HandMissing,
    /// Not a deal of four hands of 13 different cards.
    #[error("the deal cannot be read: {reason}")]
    Unreadable { reason: String },
    /// DDS refused a deal that read as whole (not expected: a bug in DDS or in its binding).
    #[error("the double-dummy solver failed: {reason}")]
    Solver { reason: String },
}

/// The par of a deal: the score to NS and the contracts that reach it (`4S= N`, `5DX-1 E`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Par {
    pub ns_score: i32,
    pub contracts: Vec<String>,
}

/// The double-dummy analysis of one deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DoubleDummy {
    /// Tricks declarer takes, by strain ([`STRAINS`]) and declarer ([`SEATS`]).
    pub tricks: [[u8; 4]; 5],
    pub par: Par,
}

impl DoubleDummy {
    /// The tricks `declarer` takes in the strain `STRAINS[strain]`.
    pub fn tricks_of(&self, strain: usize, declarer: Seat) -> Option<u8> {
        let seat = SEATS.iter().position(|s| *s == declarer)?;
        Some(self.tricks.get(strain)?[seat])
    }
}

/// A deal to analyse with the dealer and vulnerability its par depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Board<'a> {
    pub deal: &'a str,
    pub dealer: Seat,
    pub vulnerability: Vulnerability,
}

impl<'a> Board<'a> {
    /// A board with the dealer and vulnerability of its number in the standard cycle (a number
    /// below 1 is taken as board 1's, as the boards table shows it).
    pub fn numbered(number: i32, deal: &'a str) -> Board<'a> {
        let number = u32::try_from(number).unwrap_or(1).max(1);
        Board {
            deal,
            dealer: simpairs_scoring::contract::dealer_of_board(number),
            vulnerability: Vulnerability::of_board(number),
        }
    }
}

/// Reads a whole deal.
fn whole(pbn: &str) -> Result<FullDeal, Error> {
    let pbn = pbn.trim();
    let hands = pbn.split_once(':').map_or("", |(_, hands)| hands);
    if hands.split_whitespace().any(|h| h == "-") {
        return Err(Error::HandMissing);
    }
    FullDeal::from_str(pbn).map_err(|e| Error::Unreadable {
        reason: e.to_string(),
    })
}

/// Runs a call into DDS, turning its panic into an error. `dds-bridge` panics when DDS returns
/// an error status, which it should never do for a deal `FullDeal` accepted; a website or an
/// export must not fall over if it does.
fn guarded<T>(call: impl FnOnce() -> T) -> Result<T, Error> {
    catch_unwind(AssertUnwindSafe(call)).map_err(|panic| {
        let reason = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "DDS returned an error".to_string());
        Error::Solver { reason }
    })
}

fn dd_vulnerability(v: Vulnerability) -> dds_bridge::Vulnerability {
    let mut out = dds_bridge::Vulnerability::NONE;
    if v.ns {
        out |= dds_bridge::Vulnerability::NS;
    }
    if v.ew {
        out |= dds_bridge::Vulnerability::EW;
    }
    out
}

fn dd_seat(s: Seat) -> DdSeat {
    match s {
        Seat::North => DdSeat::North,
        Seat::East => DdSeat::East,
        Seat::South => DdSeat::South,
        Seat::West => DdSeat::West,
    }
}

fn par_contract(p: &dds_bridge::ParContract) -> String {
    let level = p.contract.bid.level.get();
    let strain = DD_STRAINS
        .iter()
        .position(|s| *s == p.contract.bid.strain)
        .map_or("?", |k| STRAINS[k]);
    let doubled = match p.contract.penalty {
        Penalty::Undoubled => "",
        Penalty::Doubled => "X",
        Penalty::Redoubled => "XX",
    };
    let result = match p.overtricks {
        0 => "=".to_string(),
        n if n > 0 => format!("+{n}"),
        n => n.to_string(),
    };
    format!("{level}{strain}{doubled}{result} {}", p.declarer.letter())
}

/// The tricks and par of a solved deal.
fn analysis(table: dds_bridge::TrickCountTable, board: &Board<'_>) -> Result<DoubleDummy, Error> {
    let tricks =
        DD_STRAINS.map(|strain| SEATS.map(|seat| u8::from(table[strain].get(dd_seat(seat)))));
    // The par of the side that bids first, the dealer's, as hand records print it. (Not
    // `calculate_par`: dds-bridge 0.21 hands DDS's `DealerParBin` the dealer and the
    // vulnerability in each other's places; the published hand records in the tests show it.)
    let vulnerability = dd_vulnerability(board.vulnerability);
    let [ns_first, ew_first] = guarded(|| dds_bridge::calculate_pars(table, vulnerability))?;
    let (par, ns_score) = match board.dealer {
        Seat::North | Seat::South => (&ns_first, ns_first.score),
        Seat::East | Seat::West => (&ew_first, -ew_first.score),
    };
    Ok(DoubleDummy {
        tricks,
        par: Par {
            ns_score,
            contracts: par.contracts.iter().map(par_contract).collect(),
        },
    })
}

/// The double-dummy solver: one DDS context, its memory set up once and kept for every deal
/// analysed one at a time, and DDS's own pool of workers for a batch.
#[derive(Default)]
pub struct Solver {
    /// Made on the first deal (DDS allocates its tables then); dropped after a failure, so a
    /// context in an unknown state is not used again.
    context: Option<dds_bridge::Solver>,
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("ready", &self.context.is_some())
            .finish()
    }
}

impl Solver {
    pub fn new() -> Solver {
        Solver::default()
    }

    /// Analyses one deal. DDS takes up to a fraction of a second: call it off async workers.
    pub fn analyse(&mut self, board: &Board<'_>) -> Result<DoubleDummy, Error> {
        let deal = whole(board.deal)?;
        let context = self.context.get_or_insert_with(dds_bridge::Solver::default);
        match guarded(|| context.solve_deal(deal)) {
            Ok(table) => analysis(table, board),
            Err(e) => {
                self.context = None;
                Err(e)
            }
        }
    }

    /// Analyses many deals, in order, [`BATCH`] at a time over every core. A deal that is not
    /// whole is its own error and does not hold the others back.
    pub fn analyse_all(&mut self, boards: &[Board<'_>]) -> Vec<Result<DoubleDummy, Error>> {
        let mut out: Vec<Option<Result<DoubleDummy, Error>>> = vec![None; boards.len()];
        let mut ready: Vec<(usize, FullDeal)> = Vec::new();
        for (i, board) in boards.iter().enumerate() {
            match whole(board.deal) {
                Ok(deal) => ready.push((i, deal)),
                Err(e) => out[i] = Some(Err(e)),
            }
        }
        for chunk in ready.chunks(BATCH) {
            let deals: Vec<FullDeal> = chunk.iter().map(|(_, d)| *d).collect();
            match guarded(|| dds_bridge::solve_deals(&deals)) {
                Ok(tables) if tables.len() == chunk.len() => {
                    for ((i, _), table) in chunk.iter().zip(tables) {
                        out[*i] = Some(analysis(table, &boards[*i]));
                    }
                }
                // The batch failed as a whole: deal by deal, only the deal at fault fails.
                _ => {
                    for (i, _) in chunk {
                        out[*i] = Some(self.analyse(&boards[*i]));
                    }
                }
            }
        }
        out.into_iter()
            .map(|r| {
                r.unwrap_or_else(|| {
                    Err(Error::Solver {
                        reason: "no result".into(),
                    })
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deal_that_is_not_whole_is_an_error_not_a_panic() {
        let mut solver = Solver::new();
        let bad = [
            "",
            "N:",
            "X:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432",
            "N:AKQJT98765432... - - -",
            "N:AK.QJ",
            "N:<script> - - -",
            "N:\u{e9}\u{e9}.\u{e9}.\u{e9}.\u{e9} a b c",
            // A card twice, a hand of 14 cards.
            "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT9876543A",
            "N:AKQJT98765432.A.. .KQJT98765432.. ..AKQJT98765432. ...AKQJT98765432",
        ];
        let boards: Vec<Board<'_>> = bad.iter().map(|d| Board::numbered(1, d)).collect();
        for (deal, result) in bad.iter().zip(solver.analyse_all(&boards)) {
            assert!(result.is_err(), "{deal:?}");
        }
        assert_eq!(solver.analyse(&boards[3]).unwrap_err(), Error::HandMissing);
    }

    #[test]
    fn numbered_boards_take_the_standard_dealer_and_vulnerability() {
        let b = Board::numbered(7, "");
        assert_eq!(
            (b.dealer, b.vulnerability.ns, b.vulnerability.ew),
            (Seat::South, true, true)
        );
        assert_eq!(Board::numbered(-3, "").dealer, Seat::North);
    }
}
