//! The attacks of the trust issue, on the embedded log and (with `SIMPAIRS_KAFKA`) on a broker:
//! a club signing for another with anything it can read from the log; a derived record injected
//! into the board-scores stream, unsigned or under a key the event does not declare; an upload
//! over the event's limits, at publish and past it; hand records of another session.

use crate::common;
use crate::common::logs;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use simpairs_events::types::{AppliedResult, Movement, OutputSealed, SubmissionApplied};
use simpairs_events::{Codec, Event, HashFunction, PrivateKey, Stream};
use simpairs_log::{Log, Produce};
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};
use simpairs_pipeline::project::Projection;

fn declared(log: &dyn Log, event: &str) -> Vec<String> {
    common::declared_session(log, event, "trust")
}

fn publish(log: &dyn Log, event: &str, club: &str, key: &PrivateKey, csv: &str) {
    common::publish_csv(log, event, club, key, csv)
}

/// The event declared, with NORTH's own file published: the clubs' CSVs.
fn declared_with_north(log: &dyn Log, event: &str) -> Vec<String> {
    let clubs = declared(log, event);
    publish(log, event, "NORTH", &common::key_of("NORTH"), &clubs[0]);
    clubs
}

/// A club's CSV as the records of a submission, not yet sealed.
fn records_of(event: &str, club: &str, csv: &str) -> Vec<Event> {
    let imported = simpairs_formats::import::read("club.csv", csv.as_bytes(), None).unwrap();
    simpairs_pipeline::publish::submission_events(event, club, &imported)
        .unwrap()
        .events
}

fn aggregate(log: &Arc<dyn Log>, event: &str) -> Aggregator {
    let mut aggregator =
        Aggregator::open(log.clone(), event, simpairs_sim::aggregator_key()).unwrap();
    let until_idle = AggregateOptions {
        until_idle: true,
        ..AggregateOptions::default()
    };
    aggregator
        .run(&until_idle, &AtomicBool::new(false), |_| {})
        .unwrap();
    aggregator
}

/// Every byte string of 32 bytes anyone can read in the event's declarations.
fn secrets_in_the_log(log: &dyn Log, event: &str) -> Vec<[u8; 32]> {
    let codec = Codec::new().unwrap();
    let stream = simpairs_pipeline::stream_name(event, Stream::Declarations);
    let end = log.end_offset(&stream, 0).unwrap();
    let mut found = Vec::new();
    simpairs_pipeline::read_range(log, &stream, 0, 0, end, |r| {
        if let Ok(Event::EventDeclared(d)) = codec.decode(&r.value) {
            for c in d.clubs {
                found.extend(<[u8; 32]>::try_from(c.public_key.as_slice()));
            }
            for k in d.aggregator_keys {
                found.extend(<[u8; 32]>::try_from(k.public_key.as_slice()));
            }
        }
        // And every 32-byte window of the raw record, whatever it holds.
        for w in r.value.windows(32) {
            found.extend(<[u8; 32]>::try_from(w));
        }
    })
    .unwrap();
    found
}

#[test]
fn no_club_can_sign_for_another_with_what_it_reads_in_the_log() {
    for (log, event) in logs("forge") {
        let clubs = declared_with_north(log.as_ref(), &event);
        let secrets = secrets_in_the_log(log.as_ref(), &event);
        assert!(secrets.len() > 100, "the declaration was read");
        let codec = Codec::new().unwrap();
        let events = records_of(&event, "SOUTH", &clubs[1]);
        // Signed with a key read from the log, posing as SOUTH's declared key or as the
        // organiser's, which may sign for any club.
        let posing = [
            common::key_of("SOUTH").public().id(),
            simpairs_sim::organiser_key().public().id(),
        ];
        for (i, secret) in secrets.iter().step_by(97).take(20).enumerate() {
            let key = PrivateKey::from_secret(*secret);
            let mut forged = simpairs_pipeline::publish::seal(
                &codec,
                &event,
                "SOUTH",
                &key,
                events.clone(),
                simpairs_pipeline::publish::SealInfo::default(),
            );
            if let Some(Event::SubmissionSealed(seal)) = forged.last_mut() {
                seal.key_id = posing[i % 2].clone();
            }
            simpairs_pipeline::publish::append_submission(log.as_ref(), &codec, &event, &forged)
                .unwrap();
        }
        let aggregator = aggregate(&log, &event);
        assert_eq!(
            aggregator.state().applied_count(),
            1,
            "only NORTH's own submission"
        );
        assert!(!aggregator.state().clubs().contains_key("SOUTH"));
    }
}

#[test]
fn the_organiser_signs_for_a_declared_club_and_for_no_other() {
    for (log, event) in logs("organiser") {
        let clubs = declared_with_north(log.as_ref(), &event);
        let organiser = simpairs_sim::organiser_key();
        // A club that sent its file to the organiser: published for it with the organiser's key.
        publish(log.as_ref(), &event, "SOUTH", &organiser, &clubs[1]);
        // A club the event does not declare: refused at publish, and set aside if sent anyway.
        let codec = Codec::new().unwrap();
        let refused = simpairs_pipeline::publish::withdraw_club(
            log.as_ref(),
            &event,
            "EAST",
            &organiser,
            "x",
        );
        assert!(refused.is_err());
        let stray = simpairs_pipeline::publish::seal(
            &codec,
            &event,
            "EAST",
            &organiser,
            records_of(&event, "EAST", &clubs[2].replace("WEST", "EAST")),
            simpairs_pipeline::publish::SealInfo::default(),
        );
        simpairs_pipeline::publish::append_submission(log.as_ref(), &codec, &event, &stray)
            .unwrap();
        let aggregator = aggregate(&log, &event);
        assert_eq!(aggregator.state().applied_count(), 2, "NORTH's and SOUTH's");
        assert!(aggregator.state().clubs().contains_key("SOUTH"));
        assert!(!aggregator.state().clubs().contains_key("EAST"));
    }
}

/// Seals `events` (records, then their seal) again: the digest under `function`, the seal saying
/// `claimed`, signed with `key`.
fn reseal(
    codec: &Codec,
    events: &mut [Event],
    function: HashFunction,
    claimed: HashFunction,
    key: &PrivateKey,
) {
    let (seal, records) = events.split_last_mut().unwrap();
    let datums: Vec<Vec<u8>> = records.iter().map(|e| codec.datum(e)).collect();
    let Event::SubmissionSealed(seal) = seal else {
        panic!("not sealed")
    };
    seal.digest =
        simpairs_events::submission_digest(function, datums.iter().map(Vec::as_slice)).to_vec();
    seal.hash_function = claimed;
    simpairs_events::sign_seal(key, seal);
}

/// A club whose program sealed with a SHA-256 digest (before BLAKE3) is applied beside one that
/// sealed with BLAKE3; a SHA-256 digest under a seal that says BLAKE3 is set aside as altered.
#[test]
fn submissions_sealed_with_sha256_still_apply() {
    for (log, event) in logs("sha256-seal") {
        let codec = Codec::new().unwrap();
        let clubs = declared_with_north(log.as_ref(), &event);
        let sha256 = HashFunction::Sha256;
        for (i, club, claimed) in [(1, "SOUTH", sha256), (2, "WEST", HashFunction::Blake3)] {
            let events = records_of(&event, club, &clubs[i]);
            let key = common::key_of(club);
            let mut sealed = simpairs_pipeline::publish::seal(
                &codec,
                &event,
                club,
                &key,
                events,
                simpairs_pipeline::publish::SealInfo::default(),
            );
            reseal(&codec, &mut sealed, sha256, claimed, &key);
            simpairs_pipeline::publish::append_submission(log.as_ref(), &codec, &event, &sealed)
                .unwrap();
        }
        let aggregator = aggregate(&log, &event);
        let state = aggregator.state();
        assert_eq!(
            state.applied_count(),
            2,
            "NORTH (BLAKE3) and SOUTH (SHA-256)"
        );
        assert!(state.clubs().contains_key("SOUTH"));
        assert!(
            !state.clubs().contains_key("WEST"),
            "the digest is not BLAKE3"
        );
    }
}

/// An applied submission nobody vouched for, for a board the event does not have.
fn injected() -> SubmissionApplied {
    let result = AppliedResult {
        section: "".into(),
        board: 99,
        ns_pair: "1".into(),
        ew_pair: "1".into(),
        movement: Movement::Mitchell,
        contract: None,
        declarer: None,
        tricks: None,
        ns_score: Some(2220),
        ew_score: None,
        adjusted: None,
        arrow_switch: false,
        group: None,
        lead: None,
    };
    SubmissionApplied {
        event_id: String::new(),
        club_id: "NORTH".into(),
        submission_id: "sINJECTED".into(),
        seal_offset: 0,
        results: vec![result],
        withdrawn: Vec::new(),
        pairs: Vec::new(),
    }
}

#[test]
fn derived_records_nobody_vouched_for_change_nothing() {
    for (log, event) in logs("inject") {
        let clubs = declared_with_north(log.as_ref(), &event);
        aggregate(&log, &event);
        let before = Projection::load(log.as_ref(), &event).unwrap();
        let codec = Codec::new().unwrap();
        let stream = simpairs_pipeline::stream_name(&event, Stream::BoardScores);
        let mut applied = injected();
        applied.event_id = event.clone();
        let message = codec.encode(&Event::SubmissionApplied(applied));
        // Unsigned, then under a seal of a key the event does not declare.
        // Each under a key of its own: on Kafka's compacted stream, records sharing a key would
        // leave only the last one for a reader to see.
        log.append(
            &stream,
            &[Produce::new(b"injected-1", &message, 0).to_partition(0)],
        )
        .unwrap();
        let datum = &message[simpairs_events::HEADER_LEN..];
        let mut seal = OutputSealed {
            event_id: event.clone(),
            stream: stream.clone(),
            partition: 0,
            hashes: simpairs_events::record_hash(simpairs_events::HASH_FUNCTION, datum).to_vec(),
            hash_function: simpairs_events::HASH_FUNCTION,
            sealed_at_ms: 0,
            key_id: simpairs_sim::aggregator_key().public().id(),
            signature: Vec::new(),
        };
        simpairs_events::sign_output(&PrivateKey::from_secret([0x66; 32]), &mut seal);
        seal.key_id = simpairs_sim::aggregator_key().public().id();
        let seal = codec.encode(&Event::OutputSealed(seal));
        log.append(
            &stream,
            &[
                Produce::new(b"injected-2", &message, 0).to_partition(0),
                Produce::new(b"forged-seal", &seal, 0).to_partition(0),
            ],
        )
        .unwrap();
        // A later club, aggregated as usual.
        publish(
            log.as_ref(),
            &event,
            "SOUTH",
            &common::key_of("SOUTH"),
            &clubs[1],
        );
        aggregate(&log, &event);
        let after = Projection::load(log.as_ref(), &event).unwrap();
        let (pairs_before, _) = before.leaderboard("combined", 0, 0);
        let (pairs_after, rows) = after.leaderboard("combined", 0, usize::MAX);
        assert!(pairs_after > pairs_before, "SOUTH's pairs are in");
        assert!(
            rows.iter()
                .all(|s| s.club_id == "NORTH" || s.club_id == "SOUTH")
        );
        assert_eq!(
            after.submissions(),
            2,
            "the injected submission is not one of them"
        );
        // The forged seal is set aside at once; the records it named wait, unshown, until seals
        // that do not list them pass, then are set aside too.
        assert!(
            after.rejected() >= 1,
            "the forged seal is counted: {}",
            after.rejected()
        );
        assert_eq!(after.rejected() + after.unverified(), 3);
    }
}

/// A club's session of one board and `tables` tables.
fn one_board(tables: usize) -> String {
    let mut csv = String::from("board,ns_pair,ew_pair,ns_score\n");
    for t in 1..=tables {
        csv.push_str(&format!(
            "1,{t},{t},{}\n",
            if t % 2 == 0 { 420 } else { -50 }
        ));
    }
    csv
}

#[test]
fn an_upload_over_the_limits_is_refused_and_cannot_stall_the_event() {
    for (log, event) in logs("oversize") {
        let clubs = declared(log.as_ref(), &event);
        let big = one_board(1_500);
        let refused = simpairs_pipeline::publish::publish_file(
            log.as_ref(),
            &event,
            "WEST",
            &common::key_of("WEST"),
            "big.csv",
            big.as_bytes(),
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            refused.contains("1500 results") && refused.contains("limit of 1000"),
            "{refused}"
        );
        // The same, signed and appended past the club's own check.
        let codec = Codec::new().unwrap();
        let events = records_of(&event, "WEST", &big);
        let sealed = simpairs_pipeline::publish::seal(
            &codec,
            &event,
            "WEST",
            &common::key_of("WEST"),
            events,
            simpairs_pipeline::publish::SealInfo::default(),
        );
        simpairs_pipeline::publish::append_submission(log.as_ref(), &codec, &event, &sealed)
            .unwrap();
        publish(
            log.as_ref(),
            &event,
            "NORTH",
            &common::key_of("NORTH"),
            &clubs[0],
        );
        let aggregator = aggregate(&log, &event);
        assert_eq!(
            aggregator.state().applied_count(),
            1,
            "the club after it applies"
        );
        let replayed = simpairs_pipeline::replay::replay(log.as_ref(), &event, None)
            .unwrap()
            .replayed;
        assert!(
            replayed
                .dead_letters
                .iter()
                .any(|(_, r)| r.contains("over the event's limit")),
            "{:?}",
            replayed.dead_letters
        );
    }
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../../tests/fixtures/realdata/native/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Two sessions with different deals, published as two clubs of one event: the second is set
/// aside, its boards named; with the organiser's hand records declared, a club whose deals are not
/// those is set aside and one whose deals are applies.
#[test]
fn a_club_that_played_other_deals_is_set_aside() {
    for (log, event) in logs("deals") {
        let lines = ["NEWTON", "WESTWOOD"]
            .iter()
            .map(|c| ClubLine {
                club_id: c.to_string(),
                name: c.to_string(),
                public_key: Some(common::key_of(c).public()),
            })
            .collect();
        declare(
            log.as_ref(),
            Declaration::matchpoints(&event, "deals", 36, lines, 1).with_keys(
                simpairs_sim::aggregator_key().public(),
                simpairs_sim::organiser_key().public(),
            ),
        )
        .unwrap();
        let newton = fixture("rchillyard-Bridge/newtonbridge_20160120_1.pbn");
        let westwood = fixture("rchillyard-Bridge/westwood_20190625_1.pbn");
        let publish = |club: &str, bytes: &[u8]| {
            simpairs_pipeline::publish::publish_file(
                log.as_ref(),
                &event,
                club,
                &common::key_of(club),
                "session.pbn",
                bytes,
                None,
            )
        };
        publish("NEWTON", &newton).unwrap();
        publish("WESTWOOD", &westwood).unwrap();
        let aggregator = aggregate(&log, &event);
        assert_eq!(
            aggregator.state().applied_count(),
            1,
            "the first club's deals are the event's"
        );
        let replayed = simpairs_pipeline::replay::replay(log.as_ref(), &event, None)
            .unwrap()
            .replayed;
        assert!(
            replayed.dead_letters.iter().any(|(_, r)| r
                .contains("are not the event's (club NEWTON's, the first club to apply them): it played other deals")
                && r.contains("board(s) 1,")),
            "{:?}",
            replayed.dead_letters
        );
    }
}

#[test]
fn the_organisers_hand_records_decide_which_deals_are_the_events() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let lines = ["NEWTON", "WESTWOOD"]
        .iter()
        .map(|c| ClubLine {
            club_id: c.to_string(),
            name: c.to_string(),
            public_key: Some(common::key_of(c).public()),
        })
        .collect();
    declare(
        log.as_ref(),
        Declaration::matchpoints("hands", "hands", 36, lines, 1).with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )
    .unwrap();
    let westwood = fixture("rchillyard-Bridge/westwood_20190625_1.pbn");
    let hands: Vec<(i32, String)> = simpairs_formats::pbn::read_deals("w.pbn", &westwood)
        .unwrap()
        .iter()
        .map(|d| (i32::from(d.board), d.to_pbn()))
        .collect();
    assert!(hands.len() >= 24);
    // Signed by someone else than the organiser: refused before anything is written.
    let amendment = simpairs_pipeline::declare::Amendment {
        hands: hands.clone(),
        ..Default::default()
    };
    assert!(
        simpairs_pipeline::declare::amend(
            log.as_ref(),
            "hands",
            &PrivateKey::from_secret([1; 32]),
            amendment.clone()
        )
        .is_err()
    );
    simpairs_pipeline::declare::amend(
        log.as_ref(),
        "hands",
        &simpairs_sim::organiser_key(),
        amendment,
    )
    .unwrap();
    let newton = fixture("rchillyard-Bridge/newtonbridge_20160120_1.pbn");
    // The club of the other session is refused at publish (the judge knows the hand records).
    let refused = simpairs_pipeline::publish::publish_file(
        log.as_ref(),
        "hands",
        "NEWTON",
        &common::key_of("NEWTON"),
        "n.pbn",
        &newton,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        refused
            .contains("are not the event's (the organiser's hand records): it played other deals"),
        "{refused}"
    );
    simpairs_pipeline::publish::publish_file(
        log.as_ref(),
        "hands",
        "WESTWOOD",
        &common::key_of("WESTWOOD"),
        "w.pbn",
        &westwood,
        None,
    )
    .unwrap();
    assert_eq!(aggregate(&log, "hands").state().applied_count(), 1);
}

/// An event declared by an earlier simpairs (shared HMAC keys in the declaration, readable by every
/// club) is refused by every role, saying why and what to do.
#[test]
fn an_event_declared_with_shared_keys_is_refused_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let v1 = std::fs::read(format!(
        "{}/../events/tests/golden/v1/EventDeclared.bin",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let event = "SIM-2026-11";
    for stream in Stream::ALL {
        log.create_stream(
            &simpairs_pipeline::stream_name(event, stream),
            &Default::default(),
        )
        .unwrap();
    }
    let declarations = simpairs_pipeline::stream_name(event, Stream::Declarations);
    log.append(&declarations, &[Produce::new(event.as_bytes(), &v1, 0)])
        .unwrap();
    let refusals = [
        Aggregator::open(log.clone(), event, simpairs_sim::aggregator_key())
            .err()
            .map(|e| e.to_string()),
        simpairs_pipeline::replay::replay(log.as_ref(), event, None)
            .err()
            .map(|e| e.to_string()),
        Projection::load(log.as_ref(), event)
            .err()
            .map(|e| e.to_string()),
    ];
    for refusal in refusals {
        let refusal = refusal.expect("refused");
        assert!(
            refusal.contains("shared HMAC keys") && refusal.contains("Declare the event again"),
            "{refusal}"
        );
    }
}
