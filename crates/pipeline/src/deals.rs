//! Hand records as the log carries them: PBN deal notation from a first seat,
//! `N:AK.QJ.T9.8765 ...`, a hand the file does not give written `-`. Two clubs played the same
//! board when every hand both give is the same.

/// The four hands of a deal from North, each as its 52-bit set of cards (`None` when not given).
type Hands = [Option<u64>; 4];

/// What is wrong with a deal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DealError {
    #[error("{deal:?} is not a deal: expected N:<hand> <hand> <hand> <hand>")]
    NotADeal { deal: String },
    #[error("{seat:?} is not a seat: a deal starts N:, E:, S: or W:")]
    NotASeat { seat: String },
    #[error("a deal has four hands, not {hands}")]
    Hands { hands: usize },
    #[error("a card is dealt twice")]
    DealtTwice,
    #[error("{hand:?} is not a hand: expected four suits S.H.D.C")]
    NotAHand { hand: String },
    #[error("{card:?} is not a card in {hand:?}")]
    NotACard { card: char, hand: String },
    #[error("a card appears twice in {hand:?}")]
    CardTwice { hand: String },
    #[error("{hand:?} has more than 13 cards")]
    TooManyCards { hand: String },
}

/// Reads a deal; an error says what is wrong.
fn parse(deal: &str) -> Result<Hands, DealError> {
    let deal = deal.trim();
    let (first, rest) = deal.split_once(':').ok_or_else(|| DealError::NotADeal {
        deal: deal.to_string(),
    })?;
    let start = match first.trim().to_ascii_uppercase().as_str() {
        "N" => 0,
        "E" => 1,
        "S" => 2,
        "W" => 3,
        other => {
            return Err(DealError::NotASeat {
                seat: other.to_string(),
            });
        }
    };
    let hands: Vec<&str> = rest.split_whitespace().collect();
    if hands.len() != 4 {
        return Err(DealError::Hands { hands: hands.len() });
    }
    let mut out: Hands = [None; 4];
    let mut seen = 0u64;
    for (i, hand) in hands.iter().enumerate() {
        let Some(cards) = cards_of(hand)? else {
            continue;
        };
        if cards & seen != 0 {
            return Err(DealError::DealtTwice);
        }
        seen |= cards;
        out[(start + i) % 4] = Some(cards);
    }
    Ok(out)
}

/// One hand (`S.H.D.C`, ten as `T` or `10`) as a set of cards; `None` for `-`.
fn cards_of(hand: &str) -> Result<Option<u64>, DealError> {
    const RANKS: &str = "23456789TJQKA";
    if hand == "-" {
        return Ok(None);
    }
    let suits: Vec<&str> = hand.split('.').collect();
    if suits.len() != 4 {
        return Err(DealError::NotAHand {
            hand: hand.to_string(),
        });
    }
    let mut cards = 0u64;
    for (suit, text) in suits.iter().enumerate() {
        let text = text.to_ascii_uppercase().replace("10", "T");
        for c in text.chars() {
            let rank = RANKS.find(c).ok_or_else(|| DealError::NotACard {
                card: c,
                hand: hand.to_string(),
            })?;
            let bit = 1u64 << (suit * 13 + rank);
            if cards & bit != 0 {
                return Err(DealError::CardTwice {
                    hand: hand.to_string(),
                });
            }
            cards |= bit;
        }
    }
    if cards.count_ones() > 13 {
        return Err(DealError::TooManyCards {
            hand: hand.to_string(),
        });
    }
    Ok(Some(cards))
}

/// Checks a deal's notation.
pub fn check(deal: &str) -> Result<(), DealError> {
    parse(deal).map(|_| ())
}

/// Whether two deals agree on every hand both give (an unreadable deal agrees with nothing).
pub(crate) fn same_deal(a: &str, b: &str) -> bool {
    match (parse(a), parse(b)) {
        (Ok(a), Ok(b)) => a
            .iter()
            .zip(&b)
            .all(|(x, y)| x.is_none() || y.is_none() || x == y),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEAL: &str = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765";

    #[test]
    fn deals_are_compared_hand_by_hand_from_north() {
        assert!(same_deal(DEAL, DEAL));
        // The same deal written from East.
        let from_east = "E:T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765 AKQJ.T98.765.432";
        assert!(same_deal(DEAL, from_east));
        // A hand not given agrees with any.
        assert!(same_deal(DEAL, "N:AKQJ.T98.765.432 - - -"));
        // Two cards swapped between North and East: another deal.
        let other = "N:AKQT.T98.765.432 J98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765";
        assert!(check(other).is_ok());
        assert!(!same_deal(DEAL, other));
        assert!(
            check("N:AKQJ.T98.765.432 AKQJ.T98.765.432 - -").is_err(),
            "dealt twice"
        );
        assert!(check("X:- - - -").is_err());
        assert!(!same_deal(DEAL, "nonsense"));
    }
}
