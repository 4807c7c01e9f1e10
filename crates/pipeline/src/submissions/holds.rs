//! Where the organiser's hand records, key revocations and closing hold from, for the director's
//! listing: each amendment's line as the replay met it in the results stream
//! (docs/decisions/trust.md, "Amendments signed by the organiser"). One whose line is not drawn
//! yet holds nowhere: the listing says so, and that the next amendment draws it.

use serde::Serialize;

use crate::known_deals::HandRecords;
use crate::roster::{NOT_DRAWN, Revoked, Roster};
use crate::words::counted;

/// What an amendment declared that holds from a place in the results stream, and that place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Held {
    pub amendment: i64,
    /// What it declared, in words.
    pub what: String,
    /// Where it holds from, in words.
    pub from: String,
    /// Whether its line is still to be drawn in a partition: it holds nowhere there.
    pub not_drawn: bool,
}

/// The hand records, the revoked keys and the closing of `roster`, by amendment.
pub(crate) fn holds(roster: &Roster) -> Vec<Held> {
    let hands = roster.hands.iter().map(|h| Held {
        amendment: h.amendment,
        what: format!(
            "the hand records of {}",
            counted(h.deals.len(), "board", "boards")
        ),
        from: hands_from(h),
        not_drawn: h.from.contains(&NOT_DRAWN),
    });
    let revoked = (roster.clubs.iter()).flat_map(|(club, c)| {
        c.revoked.iter().map(move |r| Held {
            amendment: r.amendment,
            what: format!("club {club}'s key {} revoked", r.key_id),
            from: revoked_from(r),
            not_drawn: r.from == NOT_DRAWN,
        })
    });
    let closed = roster.closed.iter().map(|c| Held {
        amendment: c.amendment,
        what: format!(
            "the event closed at {}: the results before are final, a seal after is set aside",
            crate::when::describe_time(c.at_ms)
        ),
        from: places(&c.from),
        not_drawn: c.from.contains(&NOT_DRAWN),
    });
    let mut held: Vec<Held> = hands.chain(revoked).chain(closed).collect();
    held.sort_by(|a, b| (a.amendment, &a.what).cmp(&(b.amendment, &b.what)));
    held
}

fn hands_from(h: &HandRecords) -> String {
    if h.from.is_empty() {
        return "for every seal (declared before simpairs recorded where hand records hold from)"
            .to_string();
    }
    places(&h.from)
}

/// From where in each partition, in words (a partition named when there are several).
fn places(from: &[u64]) -> String {
    let named = from.len() > 1;
    let places: Vec<String> = (from.iter().enumerate())
        .map(|(p, &from)| place(p as u32, from, named))
        .collect();
    places.join("; ")
}

fn revoked_from(r: &Revoked) -> String {
    place(r.partition, r.from, true)
}

/// From where in `partition` (named when `named`), in words.
fn place(partition: u32, from: u64, named: bool) -> String {
    let of = match named {
        true => format!("partition {partition} of the results stream"),
        false => "the results stream".to_string(),
    };
    match from {
        NOT_DRAWN => format!(
            "nowhere yet in {of}: its line is not drawn there (the next amendment draws it)"
        ),
        from => format!("from offset {from} of {of}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_not_drawn_is_said_to_hold_nowhere_yet() {
        assert_eq!(
            place(0, 152, false),
            "from offset 152 of the results stream"
        );
        assert_eq!(
            place(2, NOT_DRAWN, true),
            "nowhere yet in partition 2 of the results stream: its line is not drawn there (the next amendment draws it)"
        );
        let hands = HandRecords {
            from: vec![40, NOT_DRAWN],
            deals: [(1, "N:- - - -".to_string())].into_iter().collect(),
            amendment: 3,
            in_band: true,
        };
        assert_eq!(
            hands_from(&hands),
            "from offset 40 of partition 0 of the results stream; nowhere yet in partition 1 of the results stream: its line is not drawn there (the next amendment draws it)"
        );
        let every = HandRecords {
            from: Vec::new(),
            in_band: false,
            ..hands
        };
        assert!(hands_from(&every).starts_with("for every seal"));
    }
}
