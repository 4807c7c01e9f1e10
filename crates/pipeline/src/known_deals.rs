//! The deal of each board as the event knows it at a seal's place in the results stream: the
//! organiser's hand records from the place they were declared at, else the deal of the first
//! club that applied one (docs/rules.md, "Hand records").
//!
//! Hand records hold from the offsets the results stream had reached when the organiser declared
//! them, not from the start: a club whose deals were the event's when it applied stays applied,
//! and a replay, the aggregator and an aggregator started again all judge each seal by the deals
//! known at its place.

use std::collections::BTreeMap;
use std::sync::Arc;

/// A seal's place in the results stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub partition: u32,
    pub offset: u64,
}

impl Place {
    /// The place of a seal at `offset` (as the state numbers records) of `partition`.
    pub fn of(partition: u32, offset: i64) -> Place {
        Place {
            partition,
            offset: u64::try_from(offset).unwrap_or(0),
        }
    }
}

/// The hand records one amendment declared, and where they hold from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandRecords {
    /// For each partition of the results stream, the first offset they hold at. Empty (and for
    /// a partition it does not name): every seal, as hand records declared before the offsets
    /// were recorded hold.
    pub from: Vec<u64>,
    /// Each board's deal, in PBN deal notation.
    pub deals: BTreeMap<i32, String>,
}

impl HandRecords {
    fn hold_at(&self, place: Place) -> bool {
        (self.from.get(place.partition as usize)).is_none_or(|&from| place.offset >= from)
    }
}

/// Where the deal a seal is checked against comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source<'a> {
    /// The organiser's hand records.
    Organiser,
    /// The first club to apply a deal of the board.
    Club(&'a str),
}

impl Source<'_> {
    /// Whose deals these are, in words.
    pub fn words(&self) -> String {
        match self {
            Source::Organiser => "the organiser's hand records".to_string(),
            Source::Club(club) => format!("club {club}'s, the first club to apply them"),
        }
    }
}

/// A board's deal as a club taught it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Learnt {
    pub deal: String,
    /// The club whose applied submission gave it first.
    pub club: String,
}

/// What the event knows of its deals: what clubs applied, and the hand records declared.
#[derive(Clone, Debug, Default)]
pub struct KnownDeals {
    /// Each board's deal as the first club to apply one gave it.
    learnt: BTreeMap<i32, Learnt>,
    /// The hand records, in the order declared.
    declared: Arc<[HandRecords]>,
    /// The deals after the last record: the latest hand records, else what was learnt.
    latest: BTreeMap<i32, String>,
}

impl KnownDeals {
    /// The deal of `board` that a seal at `place` is checked against, if any is known, and
    /// where it comes from.
    pub fn at(&self, board: i32, place: Place) -> Option<(&str, Source<'_>)> {
        let declared = (self.declared.iter().rev())
            .filter(|h| h.hold_at(place))
            .find_map(|h| h.deals.get(&board));
        match declared {
            Some(deal) => Some((deal, Source::Organiser)),
            None => (self.learnt.get(&board)).map(|l| (l.deal.as_str(), Source::Club(&l.club))),
        }
    }

    /// The deals after the last record read, for the views: the organiser's latest hand record of
    /// a board, else the first club's deal.
    pub fn latest(&self) -> &BTreeMap<i32, String> {
        &self.latest
    }

    /// The deals learnt from the clubs (what a saved state keeps).
    pub(crate) fn learnt(&self) -> &BTreeMap<i32, Learnt> {
        &self.learnt
    }

    /// The clubs whose deals the event learnt differ from `hands` (hand records about to be
    /// declared), with those boards: the clubs whose deals the seals before were held to.
    pub fn learnt_otherwise(&self, hands: &[(i32, String)]) -> BTreeMap<&str, Vec<i32>> {
        let mut clubs: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for (board, deal) in hands {
            if let Some(l) = self.learnt.get(board)
                && !crate::deals::same_deal(&l.deal, deal)
            {
                clubs.entry(l.club.as_str()).or_default().push(*board);
            }
        }
        clubs
    }

    /// Whether an applied submission's deals teach anything: a board no club gave before.
    pub(crate) fn teaches(&self, deals: &[(i32, String)]) -> bool {
        deals
            .iter()
            .any(|(board, _)| !self.learnt.contains_key(board))
    }

    /// Learns the deals of `club`'s applied submission where no club gave the board's before.
    pub(crate) fn learn(&mut self, deals: Vec<(i32, String)>, club: &str) {
        for (board, deal) in deals {
            (self.learnt.entry(board)).or_insert_with(|| Learnt {
                deal,
                club: club.to_string(),
            });
        }
        self.refresh();
    }

    /// Takes the learnt deals of a saved state.
    pub(crate) fn set_learnt(&mut self, learnt: BTreeMap<i32, Learnt>) {
        self.learnt = learnt;
        self.refresh();
    }

    /// Takes the hand records as the roster holds them now.
    pub(crate) fn declare(&mut self, hands: &[HandRecords]) {
        if *self.declared != *hands {
            self.declared = hands.into();
            self.refresh();
        }
    }

    fn refresh(&mut self) {
        let mut latest: BTreeMap<i32, String> = (self.learnt.iter())
            .map(|(board, l)| (*board, l.deal.clone()))
            .collect();
        for h in self.declared.iter() {
            latest.extend(h.deals.iter().map(|(b, d)| (*b, d.clone())));
        }
        self.latest = latest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(partition: u32, offset: u64) -> Place {
        Place { partition, offset }
    }

    fn records(from: &[u64], deals: &[(i32, &str)]) -> HandRecords {
        HandRecords {
            from: from.to_vec(),
            deals: deals.iter().map(|(b, d)| (*b, d.to_string())).collect(),
        }
    }

    #[test]
    fn hand_records_hold_from_their_place_and_what_was_learnt_before() {
        let mut known = KnownDeals::default();
        known.learn(vec![(1, "club".into()), (2, "club 2".into())], "A");
        // A second club's deal of board 1 teaches nothing: the first stands.
        assert!(!known.teaches(&[(1, "other".into())]));
        known.learn(vec![(1, "other".into())], "B");
        let a = |deal| Some((deal, Source::Club("A")));
        let organiser = |deal| Some((deal, Source::Organiser));
        known.declare(&[
            records(&[10, 20], &[(1, "first")]),
            records(&[15, 30], &[(1, "second")]),
        ]);
        assert_eq!(known.at(1, place(0, 9)), a("club"));
        assert_eq!(known.at(1, place(0, 10)), organiser("first"));
        assert_eq!(known.at(1, place(0, 15)), organiser("second"));
        assert_eq!(known.at(1, place(1, 25)), organiser("first"));
        assert_eq!(known.at(1, place(1, 30)), organiser("second"));
        // A partition the records do not name came later: they hold there.
        assert_eq!(known.at(1, place(2, 0)), organiser("second"));
        // A board they do not give is the club's, and one nobody gave is unknown.
        assert_eq!(known.at(2, place(0, 50)), a("club 2"));
        assert_eq!(known.at(3, place(0, 50)), None);
        let latest: Vec<(i32, &str)> = (known.latest().iter())
            .map(|(b, d)| (*b, d.as_str()))
            .collect();
        assert_eq!(latest, [(1, "second"), (2, "club 2")]);
    }

    #[test]
    fn the_clubs_whose_deals_differ_from_hand_records_are_named_with_their_boards() {
        let deal = |n: &str| format!("N:{n}.AKQ.T98.765 - - -");
        let mut known = KnownDeals::default();
        known.learn(vec![(1, deal("AKQJ")), (2, deal("T987"))], "A");
        known.learn(vec![(3, deal("2345"))], "B");
        let hands = [
            (1, deal("AKQJ")),
            (2, deal("5432")),
            (3, deal("6789")),
            (4, deal("A")),
        ];
        let differ: Vec<(&str, Vec<i32>)> = known.learnt_otherwise(&hands).into_iter().collect();
        assert_eq!(differ, [("A", vec![2]), ("B", vec![3])]);
    }

    #[test]
    fn hand_records_declared_before_their_place_was_recorded_hold_everywhere() {
        let mut known = KnownDeals::default();
        known.learn(vec![(1, "club".into())], "A");
        known.declare(&[records(&[], &[(1, "declared")])]);
        assert_eq!(
            known.at(1, place(0, 0)),
            Some(("declared", Source::Organiser))
        );
        assert_eq!(known.at(3, place(5, 0)), None);
        assert_eq!(known.learnt()[&1].deal, "club");
    }
}
