//! Records handled in batches (their submissions checked together, in parallel) give exactly what
//! handling them one at a time gives: the same effects, from the same records, in the same order,
//! and the same state. The fields the checks build for a club's only submission are the fields
//! built from the club's results in force.
//!
//! A state saved and taken up again at any record, from the submissions it had applied, has the
//! effects and ends in the state that reading on without a break gives.
//!
//! The records are shuffled, repeated and cut into batches at random, from submissions that apply,
//! correct, withdraw, are forged, altered in transit, invalid or enter a table twice, and from
//! clubs that give deals, other deals, and withdraw the deals the others were held to.

use proptest::prelude::*;
use simpairs_events::types::{
    ClubEntry, DealRecorded, EventDeclared, Factoring, Movement, ResultLine, ResultWithdrawn,
    ResultsRecorded, Scoring,
};
use simpairs_events::{Codec, Event};
use simpairs_pipeline::state::{Batch, Effect, EventState};

const EVENT: &str = "batch-test";

fn key_of(club: &str) -> simpairs_events::PrivateKey {
    simpairs_sim::club_key(club)
}

fn declared() -> EventDeclared {
    EventDeclared {
        event_id: EVENT.into(),
        name: "test".into(),
        boards: (1..=3).collect(),
        scoring: Scoring::Matchpoints,
        factoring: Factoring::Neuberg,
        clubs: ["A", "B", "C"]
            .iter()
            .map(|c| {
                let key = key_of(c).public();
                ClubEntry {
                    club_id: c.to_string(),
                    name: format!("Club {c}"),
                    key_id: key.id(),
                    public_key: key.to_bytes().to_vec(),
                }
            })
            .collect(),
        declared_at_ms: 0,
        aggregator_keys: Vec::new(),
        organiser_key: None,
        limits: None,
        conventions: None,
    }
}

fn line(ns: &str, ew: &str, contract: &str, tricks: i32) -> ResultLine {
    ResultLine {
        section: "".into(),
        ns_pair: ns.into(),
        ew_pair: ew.into(),
        movement: Movement::Mitchell,
        contract: Some(contract.into()),
        declarer: Some("N".into()),
        tricks: Some(tricks),
        ns_score: None,
        ew_score: None,
        adjusted: None,
        arrow_switch: false,
        group: None,
        lead: None,
        table: None,
    }
}

/// A board's results of a club, as one batch record (numbered by `seal`).
fn board(club: &str, board: i32, lines: Vec<ResultLine>) -> Event {
    Event::ResultsRecorded(ResultsRecorded {
        event_id: EVENT.into(),
        club_id: club.into(),
        submission_id: String::new(),
        board,
        first_sequence: 0,
        results: lines,
    })
}

/// Numbers the records (batches take consecutive sequences) and seals them with `key`.
fn sealed(
    codec: &Codec,
    club: &str,
    key: &simpairs_events::PrivateKey,
    mut records: Vec<Event>,
) -> Vec<Event> {
    let mut next = 0;
    for e in &mut records {
        match e {
            Event::ResultsRecorded(b) => {
                b.first_sequence = next;
                next += b.results.len() as i32;
            }
            Event::ResultWithdrawn(w) => {
                w.sequence = next;
                next += 1;
            }
            Event::DealRecorded(d) => {
                d.sequence = next;
                next += 1;
            }
            _ => next += 1,
        }
    }
    simpairs_pipeline::publish::seal(
        codec,
        EVENT,
        club,
        key,
        records,
        simpairs_pipeline::publish::SealInfo::default(),
    )
}

/// A club's three boards; `tricks` varies the results so that a correction differs. Boards and
/// tables are not in table order (the order a club's results in force are kept in).
fn club_session(club: &str, tricks: i32) -> Vec<Event> {
    [3, 1, 2]
        .into_iter()
        .map(|b| {
            board(
                club,
                b,
                vec![
                    line("3", "3", "2H", 8),
                    line("1", "1", "3NT", tricks),
                    line("2", "2", "4S", 10),
                ],
            )
        })
        .collect()
}

/// A club's deal of `board`, North holding `north` (thirteen cards of spades and hearts).
fn dealt(club: &str, board: i32, north: &str) -> Event {
    Event::DealRecorded(DealRecorded {
        event_id: EVENT.into(),
        club_id: club.into(),
        submission_id: String::new(),
        sequence: 0,
        board,
        deal: format!("N:{north} - - -"),
    })
}

/// A club's session with its deals of boards 1 and 2 (`north` of board 1; board 2's is the same
/// for every club).
fn session_with_deals(club: &str, tricks: i32, north: &str) -> Vec<Event> {
    let mut events = club_session(club, tricks);
    events.push(dealt(club, 1, north));
    events.push(dealt(club, 2, "AKQJT98.AKQ.2.2"));
    events
}

/// [`session_with_deals`] sealed with the club's key.
fn sealed_with_deals(codec: &Codec, club: &str, tricks: i32, north: &str) -> Vec<Event> {
    sealed(
        codec,
        club,
        &key_of(club),
        session_with_deals(club, tricks, north),
    )
}

/// North's hand of board 1 in the event's deal, and in another session's.
const BOARD_1: &str = "AKQJT98765432...";
const OTHER_BOARD_1: &str = ".AKQJT98765432..";

/// Every club's results withdrawn: an empty whole session sealed with its key.
fn withdrawal(codec: &Codec, club: &str) -> Vec<Event> {
    let info = simpairs_pipeline::publish::SealInfo {
        whole_session: true,
        ..Default::default()
    };
    simpairs_pipeline::publish::seal(codec, EVENT, club, &key_of(club), Vec::new(), info)
}

/// A club's results of one board withdrawn (its three tables), sealed with its key.
fn board_withdrawn(codec: &Codec, club: &str, board: i32) -> Vec<Event> {
    let table = |pair: &str| {
        Event::ResultWithdrawn(ResultWithdrawn {
            event_id: EVENT.into(),
            club_id: club.into(),
            submission_id: String::new(),
            sequence: 0,
            section: Default::default(),
            board,
            ns_pair: pair.into(),
            ew_pair: pair.into(),
        })
    };
    let tables = ["1", "2", "3"].map(table).to_vec();
    sealed(codec, club, &key_of(club), tables)
}

/// Every message the tests draw from: submissions of every kind, each a list of messages.
fn submissions(codec: &Codec) -> Vec<Vec<Vec<u8>>> {
    let encode =
        |events: Vec<Event>| -> Vec<Vec<u8>> { events.iter().map(|e| codec.encode(e)).collect() };
    let mut all = vec![
        encode(sealed(codec, "A", &key_of("A"), club_session("A", 9))),
        // A's correction of one board, and a withdrawal.
        encode(sealed(
            codec,
            "A",
            &key_of("A"),
            vec![board("A", 2, vec![line("1", "1", "3NT", 11)])],
        )),
        encode(sealed(
            codec,
            "A",
            &key_of("A"),
            vec![Event::ResultWithdrawn(ResultWithdrawn {
                event_id: EVENT.into(),
                club_id: "A".into(),
                submission_id: String::new(),
                sequence: 0,
                section: Default::default(),
                board: 3,
                ns_pair: "3".into(),
                ew_pair: "3".into(),
            })],
        )),
        encode(sealed(codec, "B", &key_of("B"), club_session("B", 8))),
        // Forged: B's session signed with C's key.
        encode(sealed(codec, "B", &key_of("C"), club_session("B", 7))),
        // An invalid contract.
        encode(sealed(
            codec,
            "C",
            &key_of("C"),
            vec![board("C", 1, vec![line("1", "1", "8NT", 9)])],
        )),
        // A table entered twice.
        encode(sealed(
            codec,
            "C",
            &key_of("C"),
            vec![
                board("C", 1, vec![line("1", "1", "3NT", 9)]),
                board("C", 1, vec![line("1", "1", "3NT", 10)]),
            ],
        )),
        encode(sealed(codec, "C", &key_of("C"), club_session("C", 10))),
    ];
    // Altered in transit: C's session with a record changed after sealing.
    let mut altered = sealed(codec, "C", &key_of("C"), club_session("C", 6));
    if let Event::ResultsRecorded(b) = &mut altered[0] {
        b.results[0].tricks = Some(13);
    }
    all.push(encode(altered));
    all.push(vec![b"\xc3\x01damaged".to_vec()]);
    // Deals: A's of another session, B's and C's of the event's, and A withdrawn.
    for (club, north) in [("A", OTHER_BOARD_1), ("B", BOARD_1), ("C", BOARD_1)] {
        all.push(encode(sealed_with_deals(codec, club, 9, north)));
    }
    all.push(encode(withdrawal(codec, "A")));
    all.push(encode(board_withdrawn(codec, "A", 1)));
    all
}

fn fresh_state() -> EventState {
    let mut state = EventState::new();
    state.handle_declaration(declared());
    state
}

/// What a state holds, for comparison.
fn snapshot(state: &EventState) -> String {
    let results: Vec<_> = state.results().collect();
    let mut unsealed = state.unsealed();
    unsealed.sort();
    format!(
        "{results:?}\n{:?}\n{:?}\n{}\n{unsealed:?}",
        state.pairs(),
        state.clubs(),
        state.applied_count()
    )
}

/// A field's rows and pairs, for comparison.
fn rows(field: &simpairs_scoring::Field) -> String {
    let rows: Vec<_> = (0..field.len()).map(|r| field.result(r)).collect();
    format!("{rows:?}\n{:?}", field.pairs())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn batches_give_what_one_record_at_a_time_gives(
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 1..60),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let codec = Codec::new().unwrap();
        let pool: Vec<Vec<u8>> = submissions(&codec).into_iter().flatten().collect();
        // Records drawn with repeats, in any order.
        let messages: Vec<&[u8]> = picks.iter().map(|i| pool[i.index(pool.len())].as_slice()).collect();

        let mut one_by_one = fresh_state();
        let mut expected: Vec<(usize, Effect)> = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            let effects = one_by_one.handle(&codec, m, i as i64);
            expected.extend(effects.into_iter().map(|e| (i, e)));
        }

        let mut batched = fresh_state();
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(messages.len() + 1)).collect();
        cuts.push(messages.len());
        cuts.sort_unstable();
        let mut got: Vec<(usize, Effect)> = Vec::new();
        let mut start = 0;
        for end in cuts {
            let mut batch = Batch::new(&codec);
            for (i, m) in messages.iter().enumerate().take(end).skip(start) {
                let decoded = simpairs_pipeline::state::decode(&codec, m);
                batched.stage(&mut batch, decoded, i as i64, i - start);
            }
            let finished = batched.finish(batch);
            got.extend(finished.effects.into_iter().map(|(i, e)| (i + start, e)));
            for (club, field) in &finished.fields {
                let built = simpairs_pipeline::field::build_field(
                    batched.club_results(club).map(|r| (club.as_str(), r)),
                );
                prop_assert_eq!(rows(field), rows(&built), "club {}", club);
            }
            start = end.max(start);
        }
        prop_assert_eq!(got, expected);
        prop_assert_eq!(snapshot(&batched), snapshot(&one_by_one));
    }

    #[test]
    fn a_state_saved_and_taken_up_again_reads_on_as_if_it_had_not_stopped(
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 1..60),
        cut in any::<prop::sample::Index>(),
    ) {
        let codec = Codec::new().unwrap();
        let pool: Vec<Vec<u8>> = submissions(&codec).into_iter().flatten().collect();
        let messages: Vec<&[u8]> = picks.iter().map(|i| pool[i.index(pool.len())].as_slice()).collect();
        let cut = cut.index(messages.len() + 1);

        let mut whole = fresh_state();
        let mut expected: Vec<(usize, Effect)> = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            let effects = whole.handle(&codec, m, i as i64);
            expected.extend(effects.into_iter().map(|e| (i, e)).filter(|(i, _)| *i >= cut));
        }

        let mut before = fresh_state();
        let mut applied = Vec::new();
        for (i, m) in messages.iter().enumerate().take(cut) {
            applied.extend(before.handle(&codec, m, i as i64).into_iter().filter_map(|e| match e {
                Effect::Applied(a) => Some(a),
                Effect::DeadLetter { .. } => None,
            }));
        }
        // Kept as the index keeps it, as JSON.
        let text = serde_json::to_string(&before.saved()).unwrap();
        let saved: simpairs_pipeline::state::Saved = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&saved, &before.saved());
        let mut resumed = fresh_state();
        resumed.resume(&codec, &applied, saved).unwrap();
        let mut got: Vec<(usize, Effect)> = Vec::new();
        for (i, m) in messages.iter().enumerate().skip(cut) {
            got.extend(resumed.handle(&codec, m, i as i64).into_iter().map(|e| (i, e)));
        }
        prop_assert_eq!(got, expected);
        prop_assert_eq!(snapshot(&resumed), snapshot(&whole));
        prop_assert_eq!(resumed.saved(), whole.saved());
    }
}

/// Feeds encoded records one by one, returning the reasons of the records set aside and how many
/// submissions applied.
fn feed(state: &mut EventState, codec: &Codec, events: &[Event]) -> (Vec<String>, usize) {
    let (mut reasons, mut applied) = (Vec::new(), 0);
    for (offset, e) in events.iter().enumerate() {
        for effect in state.handle(codec, &codec.encode(e), offset as i64) {
            match effect {
                Effect::DeadLetter { reason } => reasons.push(reason),
                Effect::Applied(_) => applied += 1,
            }
        }
    }
    (reasons, applied)
}

/// Club A's session sealed, with `extra` records of the club's fed before the seal: a batch sent
/// on its own alongside the sealed ones (a damaged or repeated upload).
fn session_with(codec: &Codec, extra: Event) -> Vec<Event> {
    let mut events = sealed(codec, "A", &key_of("A"), club_session("A", 9));
    let seal = events.pop().expect("a seal");
    let Event::SubmissionSealed(s) = &seal else {
        panic!("the last record is the seal")
    };
    let mut extra = extra;
    if let Event::ResultsRecorded(b) = &mut extra {
        b.submission_id = s.submission_id.clone();
    }
    events.push(extra);
    events.push(seal);
    events
}

/// A batch of club A's at `first`, with `lines` results.
fn batch_at(first: i32, lines: Vec<ResultLine>) -> Event {
    let mut batch = board("A", 1, lines);
    if let Event::ResultsRecorded(b) = &mut batch {
        b.first_sequence = first;
    }
    batch
}

#[test]
fn a_batch_sent_twice_changes_nothing_and_the_submission_applies() {
    let codec = Codec::new().unwrap();
    let events = sealed(&codec, "A", &key_of("A"), club_session("A", 9));
    let again = events[1].clone();
    let (reasons, applied) = feed(&mut fresh_state(), &codec, &session_with(&codec, again));
    assert_eq!((reasons, applied), (Vec::<String>::new(), 1));
}

#[test]
fn a_batch_with_other_lines_at_a_sequence_already_held_is_set_aside_and_the_submission_applies() {
    let codec = Codec::new().unwrap();
    let other = batch_at(3, vec![line("9", "9", "1C", 7)]);
    let (reasons, applied) = feed(&mut fresh_state(), &codec, &session_with(&codec, other));
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].contains("club A sent two different records with sequence 3"),
        "{reasons:?}"
    );
    assert_eq!(applied, 1);
}

#[test]
fn a_batch_overlapping_another_s_sequences_is_set_aside_and_the_submission_applies() {
    let codec = Codec::new().unwrap();
    // The session's batches hold sequences 0-2, 3-5 and 6-8; the middle one comes last, after a
    // batch of sequences 4-6 that starts in its gap and runs into the third.
    let events = sealed(&codec, "A", &key_of("A"), club_session("A", 9));
    let Event::SubmissionSealed(seal) = &events[3] else {
        panic!("the session's seal follows its three batches")
    };
    let mut overlapping = batch_at(4, vec![line("1", "1", "3NT", 9); 3]);
    if let Event::ResultsRecorded(b) = &mut overlapping {
        b.submission_id = seal.submission_id.clone();
    }
    let order = [
        events[0].clone(),
        events[2].clone(),
        overlapping,
        events[1].clone(),
        events[3].clone(),
    ];
    let (reasons, applied) = feed(&mut fresh_state(), &codec, &order);
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].contains("club A's batch in submission")
            && reasons[0].contains("repeats sequence 6"),
        "{reasons:?}"
    );
    assert_eq!(applied, 1);
}

#[test]
fn a_batch_past_the_event_s_limits_is_set_aside_as_it_comes() {
    let codec = Codec::new().unwrap();
    // The default limits allow 20,000 results and 10,000 pairs: 30,000 sequences.
    let huge = batch_at(9, vec![line("1", "1", "3NT", 9); 30_000]);
    let (reasons, _) = feed(&mut fresh_state(), &codec, &session_with(&codec, huge));
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("holds more records than the event allows")),
        "{reasons:?}"
    );
}

/// Club A played another session's board 1 and applied first; B, who played the event's, is held
/// to A's deal. Once A's results are withdrawn its deal no longer holds: B's next file applies,
/// whether it is judged in the same batch as the withdrawal or after it.
#[test]
fn a_withdrawn_club_s_deals_no_longer_hold_in_the_same_batch_or_after() {
    let codec = Codec::new().unwrap();
    let a = sealed_with_deals(&codec, "A", 9, OTHER_BOARD_1);
    let b = sealed_with_deals(&codec, "B", 8, BOARD_1);
    let b_again = sealed_with_deals(&codec, "B", 7, BOARD_1);
    let b_again_len = b_again.len();
    let events: Vec<Event> = [a, b, withdrawal(&codec, "A"), b_again].concat();
    let (reasons, applied) = feed(&mut fresh_state(), &codec, &events);
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0]
            .contains("board(s) 1 are not the event's (club A's, the first club to apply them)"),
        "{reasons:?}"
    );
    // A, its withdrawal and B's second file.
    assert_eq!(applied, 3);

    // A and B in one batch; A's withdrawal and B's second file in the next, B's judged with the
    // deals of the batch's start (A's) and again with those known at its place.
    let mut batched = fresh_state();
    let mut dead = Vec::new();
    let cut = events.len() - 1 - b_again_len;
    for range in [0..cut, cut..events.len()] {
        let mut batch = Batch::new(&codec);
        for i in range.clone() {
            let decoded = simpairs_pipeline::state::decode(&codec, &codec.encode(&events[i]));
            batched.stage(&mut batch, decoded, i as i64, i - range.start);
        }
        let finished = batched.finish(batch);
        dead.extend(finished.effects.into_iter().filter_map(|(_, e)| match e {
            Effect::DeadLetter { reason } => Some(reason),
            Effect::Applied(_) => None,
        }));
    }
    assert_eq!(dead, reasons);
    let mut one_by_one = fresh_state();
    feed(&mut one_by_one, &codec, &events);
    assert_eq!(snapshot(&batched), snapshot(&one_by_one));
}

/// Club A played another session's board 1 and applied first. Once A withdraws its results of
/// board 1 (keeping the others), its deal of board 1 no longer holds: B, who played the event's,
/// applies; A still vouches for board 2, which it still plays.
#[test]
fn a_club_s_deal_of_a_board_it_withdrew_no_longer_holds() {
    let codec = Codec::new().unwrap();
    let a = sealed_with_deals(&codec, "A", 9, OTHER_BOARD_1);
    let b = sealed_with_deals(&codec, "B", 8, BOARD_1);
    // C gives another deal of board 2, which A still plays: held to A's.
    let mut c = session_with_deals("C", 10, BOARD_1);
    c.pop();
    c.push(dealt("C", 2, "AKQJT98.AKQ.3.2"));
    let c = sealed(&codec, "C", &key_of("C"), c);
    let mut state = fresh_state();
    let events = [a, board_withdrawn(&codec, "A", 1), b, c].concat();
    let (reasons, applied) = feed(&mut state, &codec, &events);
    assert_eq!(applied, 3, "{reasons:?}");
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].contains("board(s) 2 are not the event's (club A's"),
        "{reasons:?}"
    );
    let a_boards: Vec<i32> = state.club_results("A").map(|r| r.board).collect();
    assert!(
        !a_boards.contains(&1) && a_boards.contains(&2),
        "{a_boards:?}"
    );
}
