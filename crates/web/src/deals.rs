//! The hand records of the boards and their double-dummy analysis: the tricks each declarer
//! makes in each strain and the par score, computed once per deal with DDS (Bo Haglund's
//! double-dummy solver, through the `dds-bridge` crate) and kept.
//!
//! A deal arrives as PBN `[Deal]` text (`N:AKQ.JT9.876.5432 ...`, hands clockwise from the seat
//! named first), as the event's state keeps it (the organiser's hand records, else the first
//! club's deal); [`crate::Site::refresh_deals`] reads them. A deal with a hand missing is shown
//! without analysis.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use contract_bridge::Strain as DdStrain;
use contract_bridge::deal::FullDeal;
use contract_bridge::seat::Seat as DdSeat;
use simpairs_scoring::{Seat, Vulnerability};

/// Seats in the order of [`Analysis::hands`] and the tricks table: N, E, S, W.
pub const SEATS: [Seat; 4] = [Seat::North, Seat::East, Seat::South, Seat::West];

/// Strains in the order of the tricks table: NT, S, H, D, C (as hand records print them).
pub const STRAINS: [&str; 5] = ["NT", "S", "H", "D", "C"];

/// A deal that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum DealError {
    #[error("board {board}: the deal {what}")]
    Unreadable { board: i32, what: &'static str },
}

/// The par of a deal: the score to NS and the contracts that reach it (`4S N`, `5DX-1 E`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Par {
    pub ns_score: i32,
    pub contracts: Vec<String>,
}

/// One board's hand record and analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    pub board: i32,
    /// The deal as the log gave it (PBN).
    pub pbn: String,
    pub dealer: Seat,
    pub vulnerability: Vulnerability,
    /// Each seat's cards (N, E, S, W) by suit (spades, hearts, diamonds, clubs), highest first,
    /// `T` for the ten; `None` for a hand the record does not give.
    pub hands: [Option<[String; 4]>; 4],
    /// Tricks declarer takes, by strain ([`STRAINS`]) and declarer ([`SEATS`]); `None` unless
    /// the deal is whole.
    pub tricks: Option<[[u8; 4]; 5]>,
    pub par: Option<Par>,
}

/// Reads a PBN deal's hands into N, E, S, W order.
fn read_hands(board: i32, pbn: &str) -> Result<[Option<[String; 4]>; 4], DealError> {
    let bad = |what| DealError::Unreadable { board, what };
    let pbn = pbn.trim();
    let (first, rest) = pbn.split_once(':').ok_or(bad("has no first seat (`N:`)"))?;
    let start = match first.trim().to_ascii_uppercase().as_str() {
        "N" => 0,
        "E" => 1,
        "S" => 2,
        "W" => 3,
        _ => return Err(bad("names no seat N, E, S or W first")),
    };
    let mut hands: [Option<[String; 4]>; 4] = Default::default();
    let given: Vec<&str> = rest.split_whitespace().collect();
    if given.len() != 4 {
        return Err(bad("does not give four hands"));
    }
    for (i, hand) in given.iter().enumerate() {
        if *hand == "-" {
            continue;
        }
        let suits: Vec<String> = hand.split('.').map(|s| s.to_ascii_uppercase()).collect();
        let valid = suits.len() == 4
            && suits
                .iter()
                .all(|s| s.chars().all(|c| "AKQJT98765432".contains(c)));
        if !valid {
            return Err(bad("has a hand that is not four suits of cards"));
        }
        hands[(start + i) % 4] = Some([
            suits[0].clone(),
            suits[1].clone(),
            suits[2].clone(),
            suits[3].clone(),
        ]);
    }
    Ok(hands)
}

fn dd_seat(s: Seat) -> DdSeat {
    match s {
        Seat::North => DdSeat::North,
        Seat::East => DdSeat::East,
        Seat::South => DdSeat::South,
        Seat::West => DdSeat::West,
    }
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

fn strain_letter(s: DdStrain) -> &'static str {
    match s {
        DdStrain::Notrump => "NT",
        DdStrain::Spades => "S",
        DdStrain::Hearts => "H",
        DdStrain::Diamonds => "D",
        DdStrain::Clubs => "C",
    }
}

const DD_STRAINS: [DdStrain; 5] = [
    DdStrain::Notrump,
    DdStrain::Spades,
    DdStrain::Hearts,
    DdStrain::Diamonds,
    DdStrain::Clubs,
];

fn par_contract(p: &dds_bridge::ParContract) -> String {
    let level = p.contract.bid.level.get();
    let doubled = match p.contract.penalty {
        contract_bridge::contract::Penalty::Undoubled => "",
        contract_bridge::contract::Penalty::Doubled => "X",
        contract_bridge::contract::Penalty::Redoubled => "XX",
    };
    let result = match p.overtricks {
        0 => "=".to_string(),
        n if n > 0 => format!("+{n}"),
        n => n.to_string(),
    };
    let strain = strain_letter(p.contract.bid.strain);
    format!("{level}{strain}{doubled}{result} {}", p.declarer.letter())
}

/// The tricks table and par of a whole deal. DDS takes a fraction of a second for a deal; call
/// it off the async workers.
fn solve(
    solver: &mut dds_bridge::Solver,
    deal: FullDeal,
    dealer: Seat,
    vulnerability: Vulnerability,
) -> ([[u8; 4]; 5], Par) {
    let table = solver.solve_deal(deal);
    let tricks =
        DD_STRAINS.map(|strain| SEATS.map(|seat| u8::from(table[strain].get(dd_seat(seat)))));
    // The par of the side that bids first, the dealer's, as hand records print it. (Not
    // `calculate_par`: dds-bridge 0.21 hands DDS's `DealerParBin` the dealer and the
    // vulnerability in each other's places; the published hand records in the tests show it.)
    let [ns_first, ew_first] = dds_bridge::calculate_pars(table, dd_vulnerability(vulnerability));
    let (par, ns_score) = match dealer {
        Seat::North | Seat::South => (&ns_first, ns_first.score),
        Seat::East | Seat::West => (&ew_first, -ew_first.score),
    };
    (
        tricks,
        Par {
            ns_score,
            contracts: par.contracts.iter().map(par_contract).collect(),
        },
    )
}

/// Reads and analyses one board's deal. The dealer and vulnerability are the board number's
/// standard ones unless given.
pub fn analyse(
    board: i32,
    pbn: &str,
    dealer: Option<Seat>,
    vulnerability: Option<Vulnerability>,
) -> Result<Analysis, DealError> {
    analyse_with(
        &mut dds_bridge::Solver::default(),
        board,
        pbn,
        dealer,
        vulnerability,
    )
}

/// [`analyse`] with a solver of the caller's (its memory is set up once for many deals).
fn analyse_with(
    solver: &mut dds_bridge::Solver,
    board: i32,
    pbn: &str,
    dealer: Option<Seat>,
    vulnerability: Option<Vulnerability>,
) -> Result<Analysis, DealError> {
    let number = u32::try_from(board).unwrap_or(1);
    let dealer = dealer.unwrap_or_else(|| simpairs_scoring::contract::dealer_of_board(number));
    let vulnerability = vulnerability.unwrap_or_else(|| Vulnerability::of_board(number));
    let hands = read_hands(board, pbn)?;
    // Only a whole, valid deal (every card once) is analysed.
    let whole = FullDeal::from_str(pbn.trim()).ok();
    let (tricks, par) = match whole {
        Some(deal) => {
            let (t, p) = solve(solver, deal, dealer, vulnerability);
            (Some(t), Some(p))
        }
        None => (None, None),
    };
    Ok(Analysis {
        board,
        pbn: pbn.to_string(),
        dealer,
        vulnerability,
        hands,
        tricks,
        par,
    })
}

/// The analyses of an event's boards, each computed once.
#[derive(Debug, Default)]
pub struct Deals {
    boards: Mutex<HashMap<i32, Arc<Analysis>>>,
}

impl Deals {
    pub fn get(&self, board: i32) -> Option<Arc<Analysis>> {
        self.boards
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&board)
            .cloned()
    }

    pub fn contains(&self, board: i32) -> bool {
        self.boards
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(&board)
    }

    pub fn insert(&self, analysis: Analysis) {
        self.boards
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(analysis.board, Arc::new(analysis));
    }
}

impl Deals {
    /// Analyses each deal of `deals` (board to PBN) not analysed yet or changed since (the
    /// organiser's hand records replace a club's). A deal that cannot be read is left out, with
    /// a warning: the board page then says the hand record is not published.
    pub fn update(&self, deals: &std::collections::BTreeMap<i32, String>) {
        let mut solver: Option<dds_bridge::Solver> = None;
        for (&board, pbn) in deals {
            if self.get(board).is_some_and(|a| a.pbn == *pbn) {
                continue;
            }
            let solver = solver.get_or_insert_with(dds_bridge::Solver::default);
            match analyse_with(solver, board, pbn, None, None) {
                Ok(a) => self.insert(a),
                Err(e) => tracing::warn!("{e}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_are_read_from_any_first_seat() {
        let h = read_hands(1, "E:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. -").unwrap();
        assert_eq!(h[1].as_ref().unwrap()[0], "AKQJT98765432");
        assert_eq!(h[2].as_ref().unwrap()[1], "AKQJT98765432");
        assert!(h[0].is_none());
        assert!(read_hands(1, "X:...").is_err());
        assert!(read_hands(1, "N:AK.QJ").is_err());
        assert!(read_hands(1, "N:<script> - - -").is_err());
    }

    #[test]
    fn a_deal_with_a_hand_missing_is_shown_without_analysis() {
        let a = analyse(3, "N:AKQJT98765432... - - -", None, None).unwrap();
        assert!(a.tricks.is_none() && a.par.is_none());
        assert_eq!(a.dealer, Seat::South);
    }
}
