//! Hand records as the log carries them: PBN deal notation from a first seat,
//! `N:AK.QJ.T9.8765 ...`, a hand the file does not give written `-`. Two clubs played the same
//! board when every hand both give is the same.

/// The four hands of a deal from North, each as its 52-bit set of cards (`None` when not given).
type Hands = [Option<u64>; 4];

/// Reads a deal; an error says what is wrong.
fn parse(deal: &str) -> Result<Hands, String> {
    let deal = deal.trim();
    let (first, rest) = deal
        .split_once(':')
        .ok_or_else(|| format!("{deal:?} is not a deal: expected N:<hand> <hand> <hand> <hand>"))?;
    let start = match first.trim().to_ascii_uppercase().as_str() {
        "N" => 0,
        "E" => 1,
        "S" => 2,
        "W" => 3,
        other => {
            return Err(format!(
                "{other:?} is not a seat: a deal starts N:, E:, S: or W:"
            ));
        }
    };
    let hands: Vec<&str> = rest.split_whitespace().collect();
    if hands.len() != 4 {
        return Err(format!("a deal has four hands, not {}", hands.len()));
    }
    let mut out: Hands = [None; 4];
    let mut seen = 0u64;
    for (i, hand) in hands.iter().enumerate() {
        let Some(cards) = cards_of(hand)? else {
            continue;
        };
        if cards & seen != 0 {
            return Err("a card is dealt twice".into());
        }
        seen |= cards;
        out[(start + i) % 4] = Some(cards);
    }
    Ok(out)
}

/// One hand (`S.H.D.C`, ten as `T` or `10`) as a set of cards; `None` for `-`.
fn cards_of(hand: &str) -> Result<Option<u64>, String> {
    const RANKS: &str = "23456789TJQKA";
    if hand == "-" {
        return Ok(None);
    }
    let suits: Vec<&str> = hand.split('.').collect();
    if suits.len() != 4 {
        return Err(format!(
            "{hand:?} is not a hand: expected four suits S.H.D.C"
        ));
    }
    let mut cards = 0u64;
    for (suit, text) in suits.iter().enumerate() {
        let text = text.to_ascii_uppercase().replace("10", "T");
        for c in text.chars() {
            let rank = RANKS
                .find(c)
                .ok_or_else(|| format!("{c:?} is not a card in {hand:?}"))?;
            let bit = 1u64 << (suit * 13 + rank);
            if cards & bit != 0 {
                return Err(format!("a card appears twice in {hand:?}"));
            }
            cards |= bit;
        }
    }
    if cards.count_ones() > 13 {
        return Err(format!("{hand:?} has more than 13 cards"));
    }
    Ok(Some(cards))
}

/// Checks a deal's notation.
pub fn check(deal: &str) -> Result<(), String> {
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
