//! The event state: submissions apply whole when their seal checks out; duplicates, forgeries and
//! damaged or invalid submissions change nothing but leave a dead letter with a reason.

use simpairs_events::types::{
    ClubEntry, EventDeclared, Factoring, Movement, ResultRecorded, ResultWithdrawn, Scoring,
};
use simpairs_events::{Codec, Event};
use simpairs_pipeline::state::{Effect, EventState};

const EVENT: &str = "sim-test";

fn declared() -> EventDeclared {
    EventDeclared {
        event_id: EVENT.into(),
        name: "test".into(),
        boards: (1..=4).collect(),
        scoring: Scoring::Matchpoints,
        factoring: Factoring::Neuberg,
        clubs: ["A", "B"]
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

fn key_of(club: &str) -> simpairs_events::PrivateKey {
    simpairs_sim::club_key(club)
}

fn result(
    club: &str,
    board: i32,
    ns: &str,
    ew: &str,
    contract: &str,
    declarer: &str,
    tricks: i32,
) -> Event {
    Event::ResultRecorded(ResultRecorded {
        event_id: EVENT.into(),
        club_id: club.into(),
        submission_id: String::new(),
        sequence: 0,
        section: Default::default(),
        board,
        ns_pair: ns.into(),
        ew_pair: ew.into(),
        movement: Movement::Mitchell,
        contract: Some(contract.into()),
        declarer: Some(declarer.into()),
        tricks: Some(tricks),
        ns_score: None,
        ew_score: None,
        adjusted: None,
        arrow_switch: false,
        group: None,
        lead: None,
        table: None,
    })
}

/// Numbers the records and seals them with `key`.
fn sealed(
    codec: &Codec,
    club: &str,
    key: &simpairs_events::PrivateKey,
    mut records: Vec<Event>,
) -> Vec<Event> {
    for (i, e) in records.iter_mut().enumerate() {
        match e {
            Event::ResultRecorded(r) => r.sequence = i as i32,
            Event::ResultWithdrawn(w) => w.sequence = i as i32,
            _ => {}
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

/// [`sealed`] by club A with its own key.
fn sealed_by_a(codec: &Codec, records: Vec<Event>) -> Vec<Event> {
    sealed(codec, "A", &key_of("A"), records)
}

struct Run {
    codec: Codec,
    state: EventState,
    offset: i64,
}

impl Run {
    fn new() -> Run {
        let mut state = EventState::new();
        state.handle_declaration(declared());
        Run {
            codec: Codec::new().unwrap(),
            state,
            offset: 0,
        }
    }

    fn feed(&mut self, events: &[Event]) -> Vec<Effect> {
        let mut effects = Vec::new();
        for e in events {
            let bytes = self.codec.encode(e);
            effects.extend(self.state.handle(&self.codec, &bytes, self.offset));
            self.offset += 1;
        }
        effects
    }

    fn feed_bytes(&mut self, bytes: &[u8]) -> Vec<Effect> {
        self.offset += 1;
        self.state.handle(&self.codec, bytes, self.offset)
    }
}

fn applied(effects: &[Effect]) -> usize {
    effects
        .iter()
        .filter(|e| matches!(e, Effect::Applied(_)))
        .count()
}

fn reasons(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::DeadLetter { reason } => Some(reason.clone()),
            _ => None,
        })
        .collect()
}

fn club_a(codec: &Codec) -> Vec<Event> {
    sealed(
        codec,
        "A",
        &key_of("A"),
        vec![
            result("A", 1, "1", "1", "3NT", "S", 9),
            result("A", 1, "2", "2", "4S", "N", 10),
        ],
    )
}

#[test]
fn nothing_applies_before_the_seal_and_all_of_it_after() {
    let mut run = Run::new();
    let events = club_a(&run.codec);
    let (records, seal) = events.split_at(events.len() - 1);
    assert!(run.feed(records).is_empty());
    assert!(run.state.result_count() == 0, "no half club");
    let effects = run.feed(seal);
    assert_eq!(applied(&effects), 1);
    assert_eq!(run.state.result_count(), 2);
    assert_eq!(run.state.applied_count(), 1);
}

#[test]
fn redelivered_records_and_seals_change_nothing() {
    let mut run = Run::new();
    let events = club_a(&run.codec);
    run.feed(&events);
    let before: Vec<_> = run
        .state
        .results()
        .map(|(c, v)| (c.to_string(), v.clone()))
        .collect();
    let again = run.feed(&events);
    assert!(again.is_empty(), "{again:?}");
    assert_eq!(run.state.applied_count(), 1);
    let after: Vec<_> = run
        .state
        .results()
        .map(|(c, v)| (c.to_string(), v.clone()))
        .collect();
    assert_eq!(before, after);
}

#[test]
fn a_forged_seal_is_set_aside_and_the_real_one_still_applies() {
    let mut run = Run::new();
    let real = club_a(&run.codec);
    let forged = sealed(
        &run.codec,
        "A",
        &key_of("B"),
        vec![
            result("A", 1, "1", "1", "3NT", "S", 9),
            result("A", 1, "2", "2", "4S", "N", 10),
        ],
    );
    let effects = run.feed(&forged);
    let r = reasons(&effects);
    assert_eq!(r.len(), 1, "{effects:?}");
    assert!(
        r[0].contains("signed with key") || r[0].contains("does not verify"),
        "{r:?}"
    );
    assert!(run.state.result_count() == 0);
    assert_eq!(applied(&run.feed(&real)), 1);
}

#[test]
fn a_seal_signed_with_the_right_key_id_but_wrong_key_fails_verification() {
    let mut run = Run::new();
    let mut events = club_a(&run.codec);
    if let Some(Event::SubmissionSealed(seal)) = events.last_mut() {
        seal.signature[0] ^= 1;
    }
    let r = reasons(&run.feed(&events));
    assert!(r.len() == 1 && r[0].contains("does not verify"), "{r:?}");
    assert!(run.state.result_count() == 0);
}

#[test]
fn a_seal_waits_for_records_that_arrive_after_it() {
    let mut run = Run::new();
    let events = club_a(&run.codec);
    let seal = events.last().unwrap().clone();
    assert!(run.feed(std::slice::from_ref(&seal)).is_empty());
    assert!(run.feed(&events[..1]).is_empty());
    assert_eq!(applied(&run.feed(&events[1..2])), 1);
}

#[test]
fn altered_records_fail_the_digest() {
    let mut run = Run::new();
    let mut events = club_a(&run.codec);
    if let Event::ResultRecorded(r) = &mut events[0] {
        r.tricks = Some(13);
    }
    let r = reasons(&run.feed(&events));
    assert!(r.len() == 1 && r[0].contains("digest"), "{r:?}");
}

#[test]
fn a_submission_altered_on_the_way_applies_when_published_again() {
    let mut run = Run::new();
    let genuine = club_a(&run.codec);
    let mut altered = genuine.clone();
    if let Event::ResultRecorded(r) = &mut altered[0] {
        r.tricks = Some(13);
    }
    let r = reasons(&run.feed(&altered));
    assert!(r.len() == 1 && r[0].contains("altered in transit"), "{r:?}");
    assert_eq!(run.state.result_count(), 0);
    // The club publishes the same file again: the same submission, its records as they were.
    let effects = run.feed(&genuine);
    assert_eq!(reasons(&effects), Vec::<String>::new());
    assert_eq!(applied(&effects), 1);
    assert!(run.state.result_count() > 0);
}

#[test]
fn a_refused_submission_sent_again_is_not_judged_twice() {
    let mut run = Run::new();
    let events = sealed(
        &run.codec,
        "A",
        &key_of("A"),
        vec![result("A", 2, "2", "2", "8NT", "N", 10)],
    );
    assert_eq!(reasons(&run.feed(&events)).len(), 1);
    assert_eq!(
        reasons(&run.feed(&events)),
        Vec::<String>::new(),
        "one dead letter, not two"
    );
}

#[test]
fn an_invalid_result_sets_the_whole_submission_aside() {
    let mut run = Run::new();
    let events = sealed_by_a(
        &run.codec,
        vec![
            result("A", 1, "1", "1", "3NT", "S", 9),
            result("A", 2, "2", "2", "8NT", "N", 10),
        ],
    );
    let r = reasons(&run.feed(&events));
    assert!(
        r.len() == 1 && r[0].contains("record 1") && r[0].contains("contract"),
        "{r:?}"
    );
    assert!(
        run.state.result_count() == 0,
        "atomic: the valid record is not applied either"
    );
}

#[test]
fn clubs_and_boards_outside_the_declaration_are_refused() {
    let mut run = Run::new();
    let r = reasons(&run.feed(&sealed(
        &run.codec,
        "Z",
        &key_of("Z"),
        vec![result("Z", 1, "1", "1", "3NT", "S", 9)],
    )));
    assert!(r.len() == 1 && r[0].contains("not part of event"), "{r:?}");
    let r = reasons(&run.feed(&sealed(
        &run.codec,
        "A",
        &key_of("A"),
        vec![result("A", 9, "1", "1", "3NT", "S", 9)],
    )));
    assert!(r.len() == 1 && r[0].contains("board 9"), "{r:?}");
    // Records that name another club belong to that club's submission, which A's seal cannot seal:
    // nothing applies, the seal waits, and both show as unsealed.
    let effects = run.feed(&sealed(
        &run.codec,
        "A",
        &key_of("A"),
        vec![result("B", 1, "1", "1", "3NT", "S", 9)],
    ));
    assert!(effects.is_empty(), "{effects:?}");
    assert!(run.state.result_count() == 0);
    let unsealed = run.state.unsealed();
    assert!(
        unsealed
            .iter()
            .any(|u| u.club == "B" && u.records == 1 && u.seal.is_none()),
        "{unsealed:?}"
    );
    assert!(
        unsealed
            .iter()
            .any(|u| u.club == "A" && u.records == 0 && u.seal.is_some()),
        "{unsealed:?}"
    );
}

#[test]
fn a_correction_supersedes_and_a_withdrawal_removes() {
    let mut run = Run::new();
    run.feed(&club_a(&run.codec));
    let correction = sealed(
        &run.codec,
        "A",
        &key_of("A"),
        vec![result("A", 1, "1", "1", "3NT", "S", 11)],
    );
    assert_eq!(applied(&run.feed(&correction)), 1);
    assert_eq!(run.state.result_count(), 2);
    let tricks: Vec<Option<i32>> = run.state.results().map(|(_, r)| r.tricks).collect();
    assert!(
        tricks.contains(&Some(11)) && !tricks.contains(&Some(9)),
        "{tricks:?}"
    );
    let withdrawal = sealed(
        &run.codec,
        "A",
        &key_of("A"),
        vec![Event::ResultWithdrawn(ResultWithdrawn {
            event_id: EVENT.into(),
            club_id: "A".into(),
            submission_id: String::new(),
            sequence: 0,
            section: Default::default(),
            board: 1,
            ns_pair: "2".into(),
            ew_pair: "2".into(),
        })],
    );
    assert_eq!(applied(&run.feed(&withdrawal)), 1);
    assert_eq!(run.state.result_count(), 1);
}

#[test]
fn malformed_bytes_become_a_dead_letter() {
    let mut run = Run::new();
    for bytes in [&b""[..], b"\xc3\x01garbage", b"not avro at all"] {
        let r = reasons(&run.feed_bytes(bytes));
        assert!(r.len() == 1 && r[0].contains("cannot read"), "{r:?}");
    }
    assert!(run.state.result_count() == 0);
}

#[test]
fn a_correction_completing_first_still_applies_after_the_submission_it_corrects() {
    // On a partitioned log the correction's one record can arrive before the original's last ones:
    // the seals' order decides.
    let mut run = Run::new();
    let original = club_a(&run.codec);
    let correction = sealed(
        &run.codec,
        "A",
        &key_of("A"),
        vec![result("A", 1, "1", "1", "3NT", "S", 11)],
    );
    let (original_records, original_seal) = original.split_at(original.len() - 1);
    assert!(run.feed(original_seal).is_empty(), "waits for its records");
    assert!(
        run.feed(&correction).is_empty(),
        "complete, but waits for the earlier submission"
    );
    let effects = run.feed(original_records);
    assert_eq!(
        applied(&effects),
        2,
        "both apply, in seal order: {effects:?}"
    );
    let tricks: Vec<Option<i32>> = run.state.results().map(|(_, r)| r.tricks).collect();
    assert!(
        tricks.contains(&Some(11)) && !tricks.contains(&Some(9)),
        "the correction stands: {tricks:?}"
    );
}

/// A club's declared key whose bytes are not a curve point: the event still loads (keys are read
/// when first used), that club's seals are set aside as not verifying, and other clubs apply.
#[test]
fn a_declared_key_that_is_no_key_refuses_only_its_club() {
    let not_a_key = (0..=255u8)
        .map(|b| [b; 32])
        .find(|bytes| simpairs_events::PublicKey::from_bytes(bytes).is_err())
        .expect("some 32 bytes are not a point of the curve");
    let mut declaration = declared();
    declaration.clubs[1].public_key = not_a_key.to_vec();
    let mut state = EventState::new();
    state.handle_declaration(declaration);
    let mut run = Run {
        codec: Codec::new().unwrap(),
        state,
        offset: 0,
    };
    let b = sealed(
        &run.codec,
        "B",
        &key_of("B"),
        vec![result("B", 1, "1", "1", "3NT", "S", 9)],
    );
    let r = reasons(&run.feed(&b));
    assert!(r.len() == 1 && r[0].contains("does not verify"), "{r:?}");
    let a = club_a(&run.codec);
    assert_eq!(applied(&run.feed(&a)), 1, "club A is not held up");
}

#[test]
fn what_applies_is_listed_in_table_order_whatever_order_the_club_gave() {
    let mut run = Run::new();
    // Pair "10" comes before pair "2" (texts), and board 1 before board 2.
    let events = sealed_by_a(
        &run.codec,
        vec![
            result("A", 2, "2", "2", "3NT", "S", 9),
            result("A", 1, "2", "2", "4S", "N", 10),
            result("A", 1, "10", "10", "4S", "N", 9),
            result("A", 2, "10", "10", "2H", "E", 8),
        ],
    );
    let effects = run.feed(&events);
    let Some(Effect::Applied(applied)) = effects.first() else {
        panic!("not applied: {effects:?}");
    };
    let tables: Vec<(i32, &str, Option<&str>)> = applied
        .results
        .iter()
        .map(|r| (r.board, r.ns_pair.as_str(), r.contract.as_deref()))
        .collect();
    assert_eq!(
        tables,
        vec![
            (1, "10", Some("4S")),
            (1, "2", Some("4S")),
            (2, "10", Some("2H")),
            (2, "2", Some("3NT")),
        ]
    );
    let in_force: Vec<i32> = run.state.club_results("A").map(|r| r.board).collect();
    assert_eq!(in_force, vec![1, 1, 2, 2]);
}
