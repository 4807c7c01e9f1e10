//! Schema evolution: `ResultRecorded` is at version 2 (it added `table`, an optional field
//! with default null); bytes written with version 1 — the committed golden file
//! `tests/golden/v1/ResultRecorded.bin` — must still decode, through Avro schema resolution.

use crate::common;

use apache_avro::Schema;
use apache_avro::schema_compatibility::{Compatibility, SchemaCompatibility};
use simpairs_events::{Codec, Error, Event, EventType, HEADER_LEN, MARKER, split_message};

fn v1_golden() -> Vec<u8> {
    std::fs::read(common::golden_dir().join("v1/ResultRecorded.bin")).unwrap()
}

#[test]
fn result_recorded_is_at_version_2_and_version_1_is_registered() {
    let codec = Codec::new().unwrap();
    let current = codec.current_schema(EventType::ResultRecorded);
    assert_eq!(current.version(), 2);
    assert_eq!(current.path(), "schemas/ResultRecorded.avsc");
    let v1: Vec<_> = codec
        .schemas()
        .filter(|s| s.event_type() == EventType::ResultRecorded && !s.is_current())
        .collect();
    assert_eq!(v1.len(), 1);
    assert_eq!(v1[0].version(), 1);
    assert_eq!(v1[0].path(), "schemas/v1/ResultRecorded.avsc");
    assert_ne!(v1[0].fingerprint(), current.fingerprint());
}

#[test]
fn version_1_golden_bytes_decode_with_the_version_2_reader() {
    let codec = Codec::new().unwrap();
    let golden = v1_golden();
    let writer = codec.writer_schema(&golden).unwrap();
    assert_eq!(
        (writer.event_type(), writer.version(), writer.is_current()),
        (EventType::ResultRecorded, 1, false)
    );
    let decoded = codec.decode(&golden).unwrap();
    assert_eq!(decoded, Event::ResultRecorded(common::result_recorded_v1()));
    let Event::ResultRecorded(r) = decoded else {
        unreachable!()
    };
    assert_eq!(
        r.table, None,
        "a field added in version 2 takes its default"
    );
}

#[test]
fn re_encoding_a_version_1_record_writes_version_2() {
    // Version 2 only appends `table` (a union whose null branch is index 0): the v2 datum of
    // a record without a table is the v1 datum followed by one zero byte.
    let codec = Codec::new().unwrap();
    let golden = v1_golden();
    let event = codec.decode(&golden).unwrap();
    let message = codec.encode(&event);
    let simpairs_events::Framed { fingerprint, datum } = split_message(&message).unwrap();
    assert_eq!(
        fingerprint,
        codec
            .current_schema(EventType::ResultRecorded)
            .fingerprint()
    );
    let v1_datum = split_message(&golden).unwrap().datum;
    assert_eq!(datum, [v1_datum, &[0]].concat());
    assert_eq!(codec.decode(&message).unwrap(), event);
}

#[test]
fn every_old_version_is_fully_readable_by_the_current_one() {
    let codec = Codec::new().unwrap();
    for old in codec.schemas().filter(|s| !s.is_current()) {
        let current = codec.current_schema(old.event_type()).schema();
        assert_eq!(
            SchemaCompatibility::can_read(old.schema(), current),
            Ok(Compatibility::Full),
            "{}",
            old.path()
        );
    }
}

#[test]
fn a_version_from_the_future_is_refused_in_words() {
    // A v3 the program does not know: same record with one more field.
    let v3 = include_str!("../../../schemas/ResultRecorded.avsc")
        .replace(r#""version": 2,"#, r#""version": 3,"#)
        .replacen(
            r#"{"name": "event_id""#,
            r#"{"name": "round", "type": ["null", "int"], "default": null},
    {"name": "event_id""#,
            1,
        );
    let schema = Schema::parse_str(&v3).unwrap();
    let mut message = MARKER.to_vec();
    message.extend_from_slice(&schema.fingerprint::<apache_avro::rabin::Rabin>().bytes);
    message.push(0);
    let codec = Codec::new().unwrap();
    let err = codec.decode(&message).unwrap_err();
    assert!(matches!(err, Error::UnknownSchema { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("newer program"), "{text}");
    assert_eq!(message.len(), HEADER_LEN + 1);
}

/// The records whose schema went to version 2 when signatures became Ed25519 (declaration: public
/// keys, aggregators' and organiser's keys, limits, conventions; seal: warnings; applied
/// submission: leads): bytes written with version 1 still decode, new fields at their defaults.
#[test]
fn version_1_declarations_seals_and_applied_submissions_decode_with_version_2() {
    let codec = Codec::new().unwrap();
    let cases: [(EventType, Event); 3] = [
        (EventType::EventDeclared, common::event_declared_v1().into()),
        (
            EventType::SubmissionSealed,
            common::submission_sealed_v1().into(),
        ),
        (
            EventType::SubmissionApplied,
            common::submission_applied_v1().into(),
        ),
    ];
    for (event_type, expected) in cases {
        let path = common::golden_dir().join(format!("v1/{}.bin", event_type.name()));
        let golden = std::fs::read(&path).unwrap();
        let writer = codec.writer_schema(&golden).unwrap();
        assert_eq!(
            (writer.event_type(), writer.version(), writer.is_current()),
            (event_type, 1, false),
            "{}",
            path.display()
        );
        assert_eq!(
            codec.decode(&golden).unwrap(),
            expected,
            "{}",
            path.display()
        );
        assert!(codec.current_schema(event_type).version() >= 2);
    }
}

/// The seals whose schema gained `hash_function` when digests and output seals became BLAKE3:
/// bytes written before (an output seal of version 1, a submission seal of version 2) decode with
/// SHA-256 as their function, so their hashes are still checked with the function they were
/// made with.
#[test]
fn seals_written_before_blake3_decode_as_sha256() {
    let codec = Codec::new().unwrap();
    let cases: [(&str, u32, Event); 2] = [
        ("v1/OutputSealed.bin", 1, common::output_sealed_v1().into()),
        (
            "v2/SubmissionSealed.bin",
            2,
            common::submission_sealed_v2().into(),
        ),
    ];
    for (file, version, expected) in cases {
        let golden = std::fs::read(common::golden_dir().join(file)).unwrap();
        let writer = codec.writer_schema(&golden).unwrap();
        assert_eq!(
            (writer.version(), writer.is_current()),
            (version, false),
            "{file}"
        );
        assert_eq!(codec.decode(&golden).unwrap(), expected, "{file}");
        let current = codec.current_schema(expected.event_type());
        assert!(current.version() > version, "{file}");
    }
}

/// The seals written before a submission could be marked a whole session (version 3) decode as
/// line-by-line submissions: what they applied is applied again the same way.
#[test]
fn seals_written_before_whole_sessions_decode_as_line_by_line() {
    let codec = Codec::new().unwrap();
    let golden = std::fs::read(common::golden_dir().join("v3/SubmissionSealed.bin")).unwrap();
    let writer = codec.writer_schema(&golden).unwrap();
    assert_eq!((writer.version(), writer.is_current()), (3, false));
    let expected: Event = common::submission_sealed_v3().into();
    assert_eq!(codec.decode(&golden).unwrap(), expected);
    let current = codec.current_schema(EventType::SubmissionSealed);
    assert_eq!(current.version(), 4);
}

/// Amendments written before hand records said where they hold from (version 1) decode with no
/// place: their hand records hold for every seal, as every reader applied them then.
#[test]
fn amendments_written_before_hands_from_decode_with_hand_records_for_every_seal() {
    let codec = Codec::new().unwrap();
    let golden = std::fs::read(common::golden_dir().join("v1/EventAmended.bin")).unwrap();
    let writer = codec.writer_schema(&golden).unwrap();
    assert_eq!((writer.version(), writer.is_current()), (1, false));
    let expected: Event = common::event_amended_v1().into();
    assert_eq!(codec.decode(&golden).unwrap(), expected);
    assert_eq!(codec.current_schema(EventType::EventAmended).version(), 3);
}

/// Amendments written before an event could be closed (version 2) decode as amendments that do
/// not close it.
#[test]
fn amendments_written_before_closing_decode_as_not_closing_the_event() {
    let codec = Codec::new().unwrap();
    let golden = std::fs::read(common::golden_dir().join("v2/EventAmended.bin")).unwrap();
    let writer = codec.writer_schema(&golden).unwrap();
    assert_eq!((writer.version(), writer.is_current()), (2, false));
    let expected: Event = common::event_amended_v2().into();
    assert_eq!(codec.decode(&golden).unwrap(), expected);
}
