//! An amendment's line in the results stream: the organiser appends the amendment, then a line in
//! each partition, and the amendment's revocations (and hand records) hold from the line. A seal
//! appended while the amendment was being made, before its line, is judged without it by the
//! aggregator, by an aggregator started again and by a replay alike; one after the line, with it.
//! A line that is not the organiser's is set aside; a line met again changes nothing.

use crate::common;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use simpairs_events::{Codec, Event, Stream};
use simpairs_log::{Log, Produce};
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::submissions::State;

/// A record held back: its key, value and partition.
type HeldRecord = (Vec<u8>, Vec<u8>, Option<u32>);

/// A log whose appends of lines to the results stream are held back until [`Held::release`]: the
/// moment between the amendment reaching the log and its lines.
struct Held {
    log: Arc<dyn Log>,
    event: String,
    lines: Arc<Mutex<Vec<HeldRecord>>>,
    /// The log to amend through.
    holding: common::Intercepted,
}

impl Held {
    fn new(log: &Arc<dyn Log>, event: &str) -> Held {
        let lines: Arc<Mutex<Vec<HeldRecord>>> = Arc::default();
        let kept = lines.clone();
        let hook: common::Hook = Box::new(move |_, records| {
            let codec = Codec::new().unwrap();
            let held = |r: &Produce<'_>| matches!(codec.decode(r.value), Ok(Event::LineDrawn(_)));
            if !records.iter().all(held) {
                return None;
            }
            let records = records
                .iter()
                .map(|r| (r.key.to_vec(), r.value.to_vec(), r.partition));
            kept.lock().unwrap().extend(records);
            Some(Ok(Vec::new()))
        });
        Held {
            log: log.clone(),
            event: event.to_string(),
            lines,
            holding: common::Intercepted {
                inner: log.clone(),
                hook,
            },
        }
    }

    fn release(&self) {
        let lines = std::mem::take(&mut *self.lines.lock().unwrap());
        let records: Vec<Produce<'_>> = (lines.iter())
            .map(|(key, value, partition)| Produce {
                key,
                value,
                timestamp_ms: 0,
                partition: *partition,
            })
            .collect();
        let stream = simpairs_pipeline::stream_name(&self.event, Stream::Results);
        self.log.append(&stream, &records).unwrap();
    }
}

const EVENT: &str = "lines";

fn aggregated(log: &Arc<dyn Log>, event: &str) -> Aggregator {
    let mut aggregator =
        Aggregator::open(log.clone(), event, simpairs_sim::aggregator_key()).unwrap();
    let until_idle = AggregateOptions {
        until_idle: true,
        ..AggregateOptions::default()
    };
    (aggregator.run(&until_idle, &AtomicBool::new(false), |_| {})).unwrap();
    aggregator
}

/// WEST's session signed with its own key and appended as is (as a club whose key was stolen
/// would), bypassing `club publish`'s refusal of a revoked key.
fn west_appends(log: &dyn Log, event: &str, csv: &str, source: &str) -> String {
    let codec = Codec::new().unwrap();
    let imported = simpairs_formats::import::read("west.csv", csv.as_bytes(), None).unwrap();
    let events = simpairs_pipeline::publish::submission_events(event, "WEST", &imported)
        .unwrap()
        .events;
    let info = simpairs_pipeline::publish::SealInfo {
        source: Some(source.to_string()),
        ..Default::default()
    };
    let key = common::key_of("WEST");
    let sealed = simpairs_pipeline::publish::seal(&codec, event, "WEST", &key, events, info);
    simpairs_pipeline::publish::append_submission(log, &codec, event, &sealed).unwrap();
    let Some(Event::SubmissionSealed(seal)) = sealed.last() else {
        panic!("sealed")
    };
    seal.submission_id.clone()
}

/// What became of each of WEST's submissions, by its file's name, as the director's listing says.
fn west_listed(log: &dyn Log, event: &str) -> Vec<(String, State)> {
    let listing = simpairs_pipeline::submissions::list(log, event, None).unwrap();
    (listing.submissions.into_iter())
        .filter(|s| s.club == "WEST")
        .map(|s| (s.source.unwrap_or_default(), s.state))
        .collect()
}

/// Why each record set aside on its own was, as the director's listing says.
fn set_aside(log: &dyn Log, event: &str) -> Vec<String> {
    let listing = simpairs_pipeline::submissions::list(log, event, None).unwrap();
    (listing.dead_letters.into_iter())
        .map(|d| d.reason)
        .collect()
}

fn line(amendment: i64, signature: Vec<u8>) -> Vec<u8> {
    let codec = Codec::new().unwrap();
    codec.encode(&Event::LineDrawn(simpairs_events::types::LineDrawn {
        event_id: EVENT.to_string(),
        amendment,
        signature,
    }))
}

/// On the embedded log, and on a broker's partitions when `SIMPAIRS_KAFKA` names one.
#[test]
fn a_revocation_holds_from_its_line_for_every_reader() {
    for (log, event) in common::logs("lines") {
        let event = event.as_str();
        let clubs = common::declared_session(log.as_ref(), event, "lines");
        let north = common::key_of("NORTH");
        common::publish_csv(log.as_ref(), event, "NORTH", &north, &clubs[0]);
        // The organiser revokes WEST's key; its line is not in the log yet.
        let held = Held::new(&log, event);
        let west = common::key_of("WEST").public().id();
        let amendment = simpairs_pipeline::declare::Amendment {
            revoked: vec![("WEST".to_string(), west)],
            ..Default::default()
        };
        let organiser = simpairs_sim::organiser_key();
        simpairs_pipeline::declare::amend(&held.holding, event, &organiser, amendment).unwrap();
        // A seal appended meanwhile, judged by an aggregator that has read the amendment: before
        // the line, it applies.
        west_appends(log.as_ref(), event, &clubs[2], "before the line");
        assert!(aggregated(&log, event).state().clubs().contains_key("WEST"));
        held.release();
        std::thread::sleep(Duration::from_millis(2));
        west_appends(log.as_ref(), event, &clubs[2], "after the line");
        // An aggregator started again (rebuilding its state from the log) and a replay agree:
        // the first applied, the second set aside as it came.
        let applied = aggregated(&log, event).state().applied_count();
        assert_eq!(applied, 2, "NORTH's and WEST's first");
        let expected = [("before the line".to_string(), State::Applied)];
        assert_eq!(west_listed(log.as_ref(), event), expected);
        let reasons = set_aside(log.as_ref(), event);
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        let revoked = "of club WEST is signed with key";
        let from = "which the organiser revoked from offset";
        let said = reasons[0].contains(revoked) && reasons[0].contains(from);
        assert!(said, "{reasons:?}");
    }
}

#[test]
fn a_line_that_is_not_the_organisers_is_set_aside_and_a_line_again_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let clubs = common::declared_session(log.as_ref(), EVENT, "lines");
    let held = Held::new(&log, EVENT);
    let west = common::key_of("WEST").public().id();
    let amendment = simpairs_pipeline::declare::Amendment {
        revoked: vec![("WEST".to_string(), west)],
        ..Default::default()
    };
    simpairs_pipeline::declare::amend(
        &held.holding,
        EVENT,
        &simpairs_sim::organiser_key(),
        amendment,
    )
    .unwrap();
    // A club draws the line itself, early, without the amendment's signature; and a line of an
    // amendment that was never made.
    let results = simpairs_pipeline::stream_name(EVENT, Stream::Results);
    let forged = [line(1, vec![9; 64]), line(7, vec![9; 64])];
    let records: Vec<Produce<'_>> = (forged.iter())
        .map(|value| Produce::new(EVENT.as_bytes(), value, 0).to_partition(0))
        .collect();
    log.append(&results, &records).unwrap();
    west_appends(log.as_ref(), EVENT, &clubs[2], "after the forged lines");
    held.release();
    held_again(&held, log.as_ref());
    let reasons = set_aside(log.as_ref(), EVENT);
    assert_eq!(
        reasons,
        [
            "a line of amendment 1 without the amendment's signature: not the organiser's, set aside",
            "a line of amendment 7, which draws no line in the results stream (or is not made): set aside",
        ]
    );
    assert_eq!(
        west_listed(log.as_ref(), EVENT),
        [("after the forged lines".to_string(), State::Applied)]
    );
    assert_eq!(aggregated(&log, EVENT).state().applied_count(), 1);
}

/// The organiser's lines appended a second time (a later amendment draws the earlier ones again).
fn held_again(held: &Held, log: &dyn Log) {
    let roster = simpairs_pipeline::roster::Roster::load(log, &Codec::new().unwrap(), EVENT)
        .unwrap()
        .unwrap()
        .0;
    let signature = roster.lines[&1].clone();
    let again = line(1, signature);
    let results = simpairs_pipeline::stream_name(EVENT, Stream::Results);
    let partitions = log.partitions(&results).unwrap();
    let records: Vec<Produce<'_>> = (0..partitions)
        .map(|p| Produce::new(EVENT.as_bytes(), &again, 0).to_partition(p))
        .collect();
    held.log.append(&results, &records).unwrap();
}

#[test]
fn a_line_the_log_refused_is_said_and_drawn_by_the_next_amendment() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let clubs = common::declared_session(log.as_ref(), EVENT, "lines");
    let organiser = simpairs_sim::organiser_key();
    let west = common::key_of("WEST").public().id();
    let revoke = simpairs_pipeline::declare::Amendment {
        revoked: vec![("WEST".to_string(), west)],
        ..Default::default()
    };
    // The disk full for lines, as the amendment is made.
    let results = simpairs_pipeline::stream_name(EVENT, Stream::Results);
    let lines = Some(simpairs_events::EventType::LineDrawn);
    let refusing = common::full_disk(log.clone(), results, lines);
    let err = simpairs_pipeline::declare::amend(&refusing, EVENT, &organiser, revoke)
        .unwrap_err()
        .to_string();
    let said = "amendment 1 is made, but its line could not be drawn in the results stream";
    let next = "the next amendment draws it";
    assert!(err.contains(said) && err.contains(next), "{err}");
    // The director's listing says the revocation holds nowhere yet.
    let held = |log: &dyn Log| {
        let listing = simpairs_pipeline::submissions::list(log, EVENT, None).unwrap();
        let amendments = listing.amendments;
        assert_eq!(amendments.len(), 1, "{amendments:?}");
        (amendments[0].not_drawn, amendments[0].from.clone())
    };
    let (not_drawn, from) = held(log.as_ref());
    assert!(
        not_drawn && from.starts_with("nowhere yet in partition"),
        "{from}"
    );
    west_appends(log.as_ref(), EVENT, &clubs[2], "before any line");
    // A key added for SOUTH: the next amendment, which draws amendment 1's line.
    let south = simpairs_events::PrivateKey::from_secret([42; 32]).public();
    let add = simpairs_pipeline::declare::Amendment {
        added_keys: vec![("SOUTH".to_string(), south)],
        ..Default::default()
    };
    simpairs_pipeline::declare::amend(log.as_ref(), EVENT, &organiser, add).unwrap();
    let (not_drawn, from) = held(log.as_ref());
    assert!(!not_drawn && from.starts_with("from offset"), "{from}");
    std::thread::sleep(Duration::from_millis(2));
    west_appends(log.as_ref(), EVENT, &clubs[2], "after the next amendment");
    assert_eq!(aggregated(&log, EVENT).state().applied_count(), 1);
    let expected = [("before any line".to_string(), State::Applied)];
    assert_eq!(west_listed(log.as_ref(), EVENT), expected);
}

/// The organiser closes the event: a seal appended while the amendment was being made, before
/// its line, applies; one after it is set aside, for every reader, the organiser's own too. A
/// club publishing is refused at once, the event cannot be closed twice, and the website's
/// projection knows it is closed. On the embedded log, and on a broker's partitions when
/// `SIMPAIRS_KAFKA` names one.
#[test]
fn closing_holds_from_its_line_for_every_reader() {
    for (log, event) in common::logs("closing") {
        let event = event.as_str();
        let clubs = common::declared_session(log.as_ref(), event, "closing");
        common::publish_csv(
            log.as_ref(),
            event,
            "NORTH",
            &common::key_of("NORTH"),
            &clubs[0],
        );
        let held = Held::new(&log, event);
        let close = simpairs_pipeline::declare::Amendment {
            close: true,
            ..Default::default()
        };
        let organiser = simpairs_sim::organiser_key();
        simpairs_pipeline::declare::amend(&held.holding, event, &organiser, close.clone()).unwrap();
        west_appends(log.as_ref(), event, &clubs[2], "before the line");
        assert!(aggregated(&log, event).state().clubs().contains_key("WEST"));
        held.release();
        std::thread::sleep(Duration::from_millis(2));
        west_appends(log.as_ref(), event, &clubs[2], "after the line");
        let withdrawn = simpairs_pipeline::publish::withdraw_club(
            log.as_ref(),
            event,
            "WEST",
            &organiser,
            "withdrawn after closing",
        );
        let refused = withdrawn.unwrap_err().to_string();
        let said = format!("event {event} was closed by the organiser at ");
        assert!(refused.contains(&said), "{refused}");
        assert!(refused.contains("its results are final"), "{refused}");
        // An aggregator started again and the director's listing (a replay) agree.
        assert_eq!(aggregated(&log, event).state().applied_count(), 2);
        let expected = [("before the line".to_string(), State::Applied)];
        assert_eq!(west_listed(log.as_ref(), event), expected);
        let reasons = set_aside(log.as_ref(), event);
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        let closed = "of club WEST was sealed after the organiser closed the event (amendment 1, from offset";
        assert!(reasons[0].contains(closed), "{reasons:?}");
        let again = simpairs_pipeline::declare::amend(log.as_ref(), event, &organiser, close);
        let again = again.unwrap_err().to_string();
        assert!(again.contains("cannot be closed again"), "{again}");
        let projection = simpairs_pipeline::project::Projection::load(log.as_ref(), event).unwrap();
        assert!(projection.closed_ms().is_some());
    }
}
