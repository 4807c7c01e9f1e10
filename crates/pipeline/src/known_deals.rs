//! The deal of each board as the event knows it at a seal's place in the results stream: the
//! organiser's hand records from the place they were declared at, else the deal of the first
//! club that applied one (docs/rules.md, "Hand records").
//!
//! Hand records hold from the offsets the results stream had reached when the organiser declared
//! them, not from the start: a club whose deals were the event's when it applied stays applied,
//! and a replay, the aggregator and an aggregator started again all judge each seal by the deals
//! known at its place.
//!
//! A club whose results are withdrawn no longer holds the deals it gave: the first club still in
//! force that applied the same deal of a board holds it, and where none did the board's deal is
//! unknown again until a club applies one. So a club that played the wrong boards and applied
//! first stops binding the others once the director withdraws it.

use std::collections::{BTreeMap, BTreeSet};
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
    /// The amendment that declared them.
    pub amendment: i64,
    /// Whether they hold from the amendment's line in each partition of the results stream
    /// (`from` is [`crate::roster::NOT_DRAWN`] until the line is met there).
    pub in_band: bool,
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
    /// The first club still in force whose applied submission gave it.
    pub club: String,
}

/// What the clubs taught of the deals (what a saved state keeps of them).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Learning {
    /// Each board's deal as the first club in force to apply one gave it.
    boards: BTreeMap<i32, Learnt>,
    /// The clubs whose applied submissions gave the learnt deal of a board: the boards, and
    /// the order the club first gave one in (who holds a board next when its club withdraws).
    givers: BTreeMap<String, Giver>,
    /// The order of the next club to give a deal.
    next: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Giver {
    order: u64,
    boards: BTreeSet<i32>,
}

impl Learning {
    /// Learns `club`'s applied deals: a board no club gave is taught, and a deal equal to the
    /// one learnt is vouched for. Returns whether a board was taught.
    fn learn(&mut self, deals: Vec<(i32, String)>, club: &str) -> bool {
        let mut taught = false;
        let mut given = Vec::new();
        for (board, deal) in deals {
            match self.boards.entry(board) {
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(Learnt {
                        deal,
                        club: club.to_string(),
                    });
                    taught = true;
                    given.push(board);
                }
                std::collections::btree_map::Entry::Occupied(e) => {
                    if crate::deals::same_deal(&e.get().deal, &deal) {
                        given.push(board);
                    }
                }
            }
        }
        if !given.is_empty() {
            let next = &mut self.next;
            let giver = self.givers.entry(club.to_string()).or_insert_with(|| {
                *next += 1;
                Giver {
                    order: *next - 1,
                    boards: BTreeSet::new(),
                }
            });
            giver.boards.extend(given);
        }
        taught
    }

    /// Forgets what `club` gave of the boards it no longer has a result in force on (`kept` are
    /// those it has): each board it held passes to the next club that gave the same deal, else is
    /// unknown. Returns whether a board's deal was forgotten.
    fn forget(&mut self, club: &str, kept: &BTreeSet<i32>) -> bool {
        let Some(giver) = self.givers.get_mut(club) else {
            return false;
        };
        let gone: Vec<i32> = giver.boards.difference(kept).copied().collect();
        giver.boards.retain(|b| kept.contains(b));
        if giver.boards.is_empty() {
            self.givers.remove(club);
        }
        let mut forgotten = false;
        for board in gone {
            forgotten |= self.pass_on(board, club);
        }
        forgotten
    }

    /// Passes `board`, if `club` held it, to the next club that gave the same deal, or forgets
    /// it. Returns whether it was forgotten.
    fn pass_on(&mut self, board: i32, club: &str) -> bool {
        let Some(learnt) = self.boards.get_mut(&board) else {
            return false;
        };
        if learnt.club != club {
            return false;
        }
        let next = (self.givers.iter())
            .filter(|(_, g)| g.boards.contains(&board))
            .min_by_key(|(_, g)| g.order);
        match next {
            Some((next, _)) => {
                learnt.club = next.clone();
                false
            }
            None => {
                self.boards.remove(&board);
                true
            }
        }
    }
}

/// What the event knows of its deals: what clubs applied, and the hand records declared.
#[derive(Clone, Debug, Default)]
pub struct KnownDeals {
    /// Each board's deal as the first club in force to apply one gave it.
    learnt: Learning,
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
            None => {
                (self.learnt.boards.get(&board)).map(|l| (l.deal.as_str(), Source::Club(&l.club)))
            }
        }
    }

    /// The deals after the last record read, for the views: the organiser's latest hand record of
    /// a board, else the first club's deal.
    pub fn latest(&self) -> &BTreeMap<i32, String> {
        &self.latest
    }

    /// Where the deal of `board` after the last record ([`KnownDeals::latest`]) comes from.
    pub fn latest_source(&self, board: i32) -> Option<Source<'_>> {
        if (self.declared.iter()).any(|h| h.deals.contains_key(&board)) {
            return Some(Source::Organiser);
        }
        (self.learnt.boards.get(&board)).map(|l| Source::Club(&l.club))
    }

    /// The deals learnt from the clubs (what a saved state keeps).
    pub(crate) fn learnt(&self) -> &Learning {
        &self.learnt
    }

    /// The clubs whose deals the event learnt differ from `hands` (hand records about to be
    /// declared), with those boards: the clubs whose deals the seals before were held to. Boards
    /// the organiser declared hand records of before are not the clubs' ([`Self::declared_otherwise`]).
    pub fn learnt_otherwise(&self, hands: &[(i32, String)]) -> BTreeMap<&str, Vec<i32>> {
        let mut clubs: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for (board, deal) in hands {
            if let Some(Source::Club(club)) = self.latest_source(*board)
                && !crate::deals::same_deal(&self.latest[board], deal)
            {
                clubs.entry(club).or_default().push(*board);
            }
        }
        clubs
    }

    /// The boards whose hand records the organiser declared before differ from `hands`: these
    /// replace them.
    pub fn declared_otherwise(&self, hands: &[(i32, String)]) -> Vec<i32> {
        (hands.iter())
            .filter(|(board, deal)| {
                self.latest_source(*board) == Some(Source::Organiser)
                    && !crate::deals::same_deal(&self.latest[board], deal)
            })
            .map(|(board, _)| *board)
            .collect()
    }

    /// Learns the deals of `club`'s applied submission: those of boards no club gave before, and
    /// which of the learnt ones it gave too.
    pub(crate) fn learn(&mut self, deals: Vec<(i32, String)>, club: &str) {
        if self.learnt.learn(deals, club) {
            self.refresh();
        }
    }

    /// Whether `club` gave a deal the event learnt.
    pub(crate) fn gave(&self, club: &str) -> bool {
        self.learnt.givers.contains_key(club)
    }

    /// Forgets the deals `club` gave of boards it no longer has a result in force on (`kept`
    /// are those it has): a club whose results of a board were all withdrawn no longer vouches
    /// for its deal.
    pub(crate) fn forget(&mut self, club: &str, kept: &BTreeSet<i32>) {
        if self.learnt.forget(club, kept) {
            self.refresh();
        }
    }

    /// Takes the learnt deals of a saved state.
    pub(crate) fn set_learnt(&mut self, learnt: Learning) {
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
        let mut latest: BTreeMap<i32, String> = (self.learnt.boards.iter())
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
            amendment: 1,
            in_band: false,
        }
    }

    #[test]
    fn hand_records_hold_from_their_place_and_what_was_learnt_before() {
        let mut known = KnownDeals::default();
        known.learn(vec![(1, "club".into()), (2, "club 2".into())], "A");
        // A second club's deal of board 1 teaches nothing: the first stands.
        known.learn(vec![(1, "other".into())], "B");
        assert!(!known.gave("B"));
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
        assert_eq!(known.learnt().boards[&1].deal, "club");
    }

    #[test]
    fn a_withdrawn_club_s_deals_pass_to_the_next_club_that_gave_them_or_are_forgotten() {
        let deal = |n: &str| format!("N:{n}.AKQ.T98.765 - - -");
        let at = |known: &KnownDeals, board| {
            (known.at(board, place(0, 0))).map(|(d, s)| (d.to_string(), format!("{s:?}")))
        };
        let mut known = KnownDeals::default();
        known.learn(vec![(1, deal("AKQJ")), (2, deal("T987"))], "A");
        // B plays board 1 as A did, and board 2 otherwise (applied under hand records, say).
        known.learn(vec![(1, deal("AKQJ")), (2, deal("5432"))], "B");
        known.learn(vec![(1, deal("AKQJ")), (3, deal("2345"))], "C");
        // C gave board 1 and taught board 3; giving again keeps its place in the order.
        known.learn(vec![(1, deal("AKQJ"))], "C");
        known.forget("A", &BTreeSet::new());
        assert_eq!(at(&known, 1), Some((deal("AKQJ"), r#"Club("B")"#.into())));
        // Nobody else gave A's deal of board 2: unknown, the next club to apply one sets it.
        assert_eq!(at(&known, 2), None);
        assert!(!known.latest().contains_key(&2));
        known.learn(vec![(2, deal("5432"))], "D");
        assert_eq!(at(&known, 2), Some((deal("5432"), r#"Club("D")"#.into())));
        known.forget("B", &BTreeSet::new());
        assert_eq!(at(&known, 1), Some((deal("AKQJ"), r#"Club("C")"#.into())));
        assert_eq!(known.latest_source(1), Some(Source::Club("C")));
        // A club that gave nothing learnt changes nothing, and a club back after its withdrawal
        // gives its deals again.
        known.forget("E", &BTreeSet::new());
        known.learn(vec![(1, deal("AKQJ"))], "A");
        known.forget("C", &BTreeSet::new());
        assert_eq!(at(&known, 1), Some((deal("AKQJ"), r#"Club("A")"#.into())));
        assert_eq!(at(&known, 3), None);
    }

    #[test]
    fn a_club_s_withdrawn_boards_pass_on_and_the_boards_it_still_plays_stay_its() {
        let deal = |n: &str| format!("N:{n}.AKQ.T98.765 - - -");
        fn holder(known: &KnownDeals, board: i32) -> Option<Source<'_>> {
            known.latest_source(board)
        }
        let mut known = KnownDeals::default();
        known.learn(vec![(1, deal("AKQJ")), (2, deal("T987"))], "A");
        known.learn(vec![(1, deal("AKQJ"))], "B");
        // A withdraws its results of board 1 and keeps board 2's.
        known.forget("A", &BTreeSet::from([2]));
        assert_eq!(holder(&known, 1), Some(Source::Club("B")));
        assert_eq!(holder(&known, 2), Some(Source::Club("A")));
        assert!(known.gave("A"));
        // Then board 2's: nobody else gave it, so it is unknown and A vouches for nothing.
        known.forget("A", &BTreeSet::new());
        assert_eq!(holder(&known, 2), None);
        assert!(!known.gave("A"));
        // B withdrawing a board it never gave changes nothing.
        known.forget("B", &BTreeSet::from([1]));
        assert_eq!(
            known.at(1, place(0, 0)).map(|(d, _)| d.to_string()),
            Some(deal("AKQJ"))
        );
    }

    #[test]
    fn hand_records_stay_when_the_club_whose_deals_differ_is_withdrawn() {
        let mut known = KnownDeals::default();
        known.learn(vec![(1, "club".into())], "A");
        known.declare(&[records(&[5], &[(1, "declared")])]);
        known.forget("A", &BTreeSet::new());
        assert_eq!(known.at(1, place(0, 4)), None);
        assert_eq!(
            known.at(1, place(0, 5)),
            Some(("declared", Source::Organiser))
        );
        assert_eq!(known.latest()[&1], "declared");
        assert_eq!(known.latest_source(1), Some(Source::Organiser));
        assert_eq!(known.latest_source(2), None);
    }
}
