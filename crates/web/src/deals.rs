//! The hand records of the boards and their double-dummy analysis: the tricks each declarer
//! makes in each strain and the par score, computed once per deal by `simpairs-dds` (DDS, the
//! solver the analysts' export uses too) and kept.
//!
//! A deal arrives as PBN `[Deal]` text (`N:AKQ.JT9.876.5432 ...`, hands clockwise from the seat
//! named first), as the event's state keeps it (the organiser's hand records, else the first
//! club's deal); [`crate::Site::read_log`] reads them. A deal with a hand missing is shown
//! without analysis.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use simpairs_dds::{Board, DoubleDummy, Solver};
pub use simpairs_dds::{Par, SEATS, STRAINS};
use simpairs_scoring::{Seat, Vulnerability};

/// A deal that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum DealError {
    #[error("board {board}: the deal {what}")]
    Unreadable { board: i32, what: &'static str },
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

/// Reads and analyses one board's deal. The dealer and vulnerability are the board number's
/// standard ones unless given.
pub fn analyse(
    board: i32,
    pbn: &str,
    dealer: Option<Seat>,
    vulnerability: Option<Vulnerability>,
) -> Result<Analysis, DealError> {
    let mut solver = Solver::new();
    let (mut analysis, of) = read(board, pbn, dealer, vulnerability)?;
    analysis.set(of.map(|board| solver.analyse(&board)));
    Ok(analysis)
}

/// A board's hand record read, without its analysis yet, and the board to analyse.
fn read(
    board: i32,
    pbn: &str,
    dealer: Option<Seat>,
    vulnerability: Option<Vulnerability>,
) -> Result<(Analysis, Option<Board<'_>>), DealError> {
    let standard = Board::numbered(board, pbn);
    let to_solve = Board {
        dealer: dealer.unwrap_or(standard.dealer),
        vulnerability: vulnerability.unwrap_or(standard.vulnerability),
        ..standard
    };
    let hands = read_hands(board, pbn)?;
    // Only a whole deal (every card once) is analysed; the others are shown as they are.
    let whole = hands.iter().all(Option::is_some);
    let analysis = Analysis {
        board,
        pbn: pbn.to_string(),
        dealer: to_solve.dealer,
        vulnerability: to_solve.vulnerability,
        hands,
        tricks: None,
        par: None,
    };
    Ok((analysis, whole.then_some(to_solve)))
}

impl Analysis {
    /// Takes the solver's analysis; a deal it cannot analyse (a card twice) is shown without.
    fn set(&mut self, solved: Option<Result<DoubleDummy, simpairs_dds::Error>>) {
        match solved {
            Some(Ok(dd)) => {
                self.tricks = Some(dd.tricks);
                self.par = Some(dd.par);
            }
            Some(Err(e)) => tracing::warn!("board {}: no double-dummy analysis: {e}", self.board),
            None => {}
        }
    }
}

/// The analyses of an event's boards, each computed once.
#[derive(Debug, Default)]
pub struct Deals {
    boards: Mutex<HashMap<i32, Arc<Analysis>>>,
    /// Whose each deal is.
    given: Mutex<HashMap<i32, Given>>,
}

/// Whose a board's deal is: the organiser's hand record, or the deal of the club whose file
/// gave it (the first club still in force to apply one, where no hand record is declared).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Given {
    Organiser,
    Club(String),
}

impl Deals {
    pub fn get(&self, board: i32) -> Option<Arc<Analysis>> {
        self.boards
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&board)
            .cloned()
    }

    /// Whose the deal of `board` is, once read from the log.
    pub fn given(&self, board: i32) -> Option<Given> {
        (self.given.lock().unwrap_or_else(|e| e.into_inner()))
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
    /// Takes the deals the event knows now, and whose each is: analyses each not analysed yet or
    /// changed since (the organiser's hand records replace a club's), and forgets those no longer
    /// known (the club that gave them withdrawn).
    pub fn know(&self, known: &simpairs_pipeline::known_deals::KnownDeals) {
        use simpairs_pipeline::known_deals::Source;
        let deals = known.latest();
        let given: HashMap<i32, Given> = (deals.keys())
            .filter_map(|&board| match known.latest_source(board)? {
                Source::Organiser => Some((board, Given::Organiser)),
                Source::Club(club) => Some((board, Given::Club(club.to_string()))),
            })
            .collect();
        (self.boards.lock().unwrap_or_else(|e| e.into_inner()))
            .retain(|board, _| deals.contains_key(board));
        *self.given.lock().unwrap_or_else(|e| e.into_inner()) = given;
        self.update(deals);
    }

    /// Analyses each deal of `deals` (board to PBN) not analysed yet or changed since (the
    /// organiser's hand records replace a club's). A deal that cannot be read is left out, with
    /// a warning: the board page then says the hand record is not published.
    pub fn update(&self, deals: &std::collections::BTreeMap<i32, String>) {
        let mut pending = Vec::new();
        for (&board, pbn) in deals {
            if self.get(board).is_some_and(|a| a.pbn == *pbn) {
                continue;
            }
            match read(board, pbn, None, None) {
                Ok(r) => pending.push(r),
                Err(e) => tracing::warn!("{e}"),
            }
        }
        // The whole deals in one batch: one call over every core, not one solver per deal.
        let boards: Vec<Board<'_>> = pending.iter().filter_map(|(_, b)| *b).collect();
        let mut solved = Solver::new().analyse_all(&boards).into_iter();
        for (mut analysis, board) in pending {
            analysis.set(board.and_then(|_| solved.next()));
            self.insert(analysis);
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
