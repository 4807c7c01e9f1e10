//! Every record type survives encode → decode, and messages have the documented layout.

use crate::common;

use proptest::prelude::*;
use simpairs_events::{
    Codec, Error, Event, EventType, HEADER_LEN, MARKER, ResultsRecorded, Stream, split_message,
};

#[test]
fn every_sample_round_trips() {
    let codec = Codec::new().unwrap();
    let samples = common::samples();
    assert_eq!(samples.len(), EventType::ALL.len());
    for (event, event_type) in samples.iter().zip(EventType::ALL) {
        assert_eq!(event.event_type(), event_type);
        let message = codec.encode(event);
        assert_eq!(codec.decode(&message).as_ref(), Ok(event), "{event_type}");
    }
}

#[test]
fn a_message_is_marker_fingerprint_datum() {
    let codec = Codec::new().unwrap();
    for event in common::samples() {
        let message = codec.encode(&event);
        let info = codec.current_schema(event.event_type());
        assert_eq!(message[..2], MARKER);
        assert_eq!(message[2..HEADER_LEN], info.fingerprint().to_le_bytes());
        assert_eq!(message[HEADER_LEN..], codec.datum(&event));
        let simpairs_events::Framed { fingerprint, datum } = split_message(&message).unwrap();
        assert_eq!(fingerprint, info.fingerprint());
        assert_eq!(datum, codec.datum(&event));
        let mut appended = b"prefix".to_vec();
        codec.encode_into(&event, &mut appended);
        assert_eq!(appended, [b"prefix".as_slice(), &message].concat());
    }
}

#[test]
fn a_submission_applied_outside_an_event_encodes_as_in_one() {
    let codec = Codec::new().unwrap();
    let applied = common::submission_applied();
    let message = codec.encode_submission_applied(&applied);
    assert_eq!(
        message,
        codec.encode(&Event::SubmissionApplied(applied.clone()))
    );
    assert_eq!(
        codec.decode(&message),
        Ok(Event::SubmissionApplied(applied))
    );
}

#[test]
fn encoding_is_deterministic() {
    let codec = Codec::new().unwrap();
    let other = Codec::new().unwrap();
    for event in common::samples() {
        assert_eq!(codec.encode(&event), other.encode(&event));
    }
}

#[test]
fn header_errors_say_what_is_wrong() {
    let codec = Codec::new().unwrap();
    assert_eq!(codec.decode(&[]), Err(Error::TooShort { len: 0 }));
    assert_eq!(
        codec.decode(&[0xC3, 0x01, 0, 0]),
        Err(Error::TooShort { len: 4 })
    );
    let err = codec.decode(&[0u8; 12]).unwrap_err();
    assert_eq!(err, Error::BadMarker { found: [0, 0] });
    assert_eq!(
        err.to_string(),
        "the message is not an event: it starts with bytes 00 00 where an event starts with C3 01"
    );
    let mut unknown = MARKER.to_vec();
    unknown.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(
        codec.decode(&unknown),
        Err(Error::UnknownSchema {
            fingerprint: 0x0807_0605_0403_0201
        })
    );
}

#[test]
fn trailing_and_missing_bytes_are_errors() {
    let codec = Codec::new().unwrap();
    for event in common::samples() {
        let message = codec.encode(&event);
        let mut longer = message.clone();
        longer.extend_from_slice(&[0, 0]);
        assert!(
            matches!(
                codec.decode(&longer),
                Err(Error::TrailingBytes { count: 2, .. })
            ),
            "{}",
            event.event_type()
        );
        for len in HEADER_LEN..message.len() {
            let err = codec.decode(&message[..len]).unwrap_err();
            assert!(
                matches!(err, Error::Malformed { .. }),
                "{} cut at {len}: {err:?}",
                event.event_type()
            );
        }
    }
}

#[test]
fn malformed_errors_name_the_record_and_version() {
    let codec = Codec::new().unwrap();
    let message = codec.encode(&common::result_recorded().into());
    let err = codec.decode(&message[..HEADER_LEN + 3]).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("the ResultRecorded record (schema version 2) is damaged or truncated"),
        "{text}"
    );
}

#[test]
fn events_know_their_stream() {
    let streams: Vec<Stream> = common::samples().iter().map(Event::stream).collect();
    use Stream::*;
    assert_eq!(
        streams,
        [
            Declarations,
            Declarations,
            Results,
            Results,
            Results,
            Results,
            Results,
            Results,
            Results,
            BoardScores,
            BoardScores,
            BoardScores,
            Leaderboard,
            Leaderboard,
            DeadLetter
        ]
    );
    let names: Vec<&str> = Stream::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        [
            "declarations",
            "results",
            "board-scores",
            "leaderboard",
            "dead-letter"
        ]
    );
}

#[test]
fn a_batch_stands_for_its_records() {
    let batch = common::results_recorded();
    assert_eq!(batch.sequences(), 30..33);
    let records: Vec<_> = batch.records().collect();
    assert_eq!(records.len(), 3);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.sequence, 30 + i as i32);
        assert_eq!(r.board, batch.board);
        assert_eq!(r.event_id, batch.event_id);
        assert_eq!(r.club_id, batch.club_id);
        assert_eq!(r.submission_id, batch.submission_id);
        assert_eq!(r.ns_pair, batch.results[i].ns_pair);
        assert_eq!(r.table, batch.results[i].table);
        assert_eq!(
            Event::ResultRecorded(r.clone()).partition_key(),
            Event::ResultsRecorded(batch.clone()).partition_key()
        );
    }
    assert_eq!(records[2].adjusted, batch.results[2].adjusted);
}

#[test]
fn codec_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Codec>();
    let codec = Codec::new().unwrap();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                for event in common::samples() {
                    assert_eq!(codec.decode(&codec.encode(&event)).unwrap(), event);
                }
            });
        }
    });
}

proptest! {
    #[test]
    fn random_results_round_trip(r in common::arb::result_recorded()) {
        let codec = Codec::new().unwrap();
        let event = Event::ResultRecorded(r);
        prop_assert_eq!(codec.decode(&codec.encode(&event)).unwrap(), event);
    }

    #[test]
    fn random_batches_round_trip(batch in common::arb::results_recorded()) {
        let codec = Codec::new().unwrap();
        let event = Event::ResultsRecorded(batch);
        prop_assert_eq!(codec.decode(&codec.encode(&event)).unwrap(), event);
    }

    #[test]
    fn empty_batches_round_trip(mut batch in common::arb::results_recorded()) {
        batch.results.clear();
        let codec = Codec::new().unwrap();
        let event = Event::ResultsRecorded(ResultsRecorded { ..batch });
        prop_assert_eq!(codec.decode(&codec.encode(&event)).unwrap(), event);
    }
}
