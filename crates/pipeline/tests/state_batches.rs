//! Records handled in batches (their submissions checked together, in parallel) give exactly what
//! handling them one at a time gives: the same effects, from the same records, in the same order,
//! and the same state. The fields the checks build for a club's only submission are the fields
//! built from the club's results in force.
//!
//! A state saved and taken up again at any record, from the submissions it had applied, has the
//! effects and ends in the state that reading on without a break gives.
//!
//! The records are shuffled, repeated and cut into batches at random, from submissions that apply,
//! correct, withdraw, are forged, altered in transit, invalid or enter a table twice.

use proptest::prelude::*;
use simpairs_events::types::{
    ClubEntry, EventDeclared, Factoring, Movement, ResultLine, ResultWithdrawn, ResultsRecorded,
    Scoring,
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
            _ => next += 1,
        }
    }
    simpairs_pipeline::publish::seal(codec, EVENT, club, key, records, None, Vec::new())
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
