//! Golden bytes: one committed message per record type, `tests/golden/<Type>.bin`, written
//! once by encoding the fixed sample of `tests/common/mod.rs`. Each test checks both ways:
//! decoding the golden bytes gives the sample, and encoding the sample gives exactly the
//! golden bytes. A failure means the wire format changed; if that is intended (a new schema
//! version, see the crate docs), regenerate the current-version files with
//!
//! ```text
//! cargo test -p simpairs-events --test integration -- --ignored golden::regenerate
//! ```
//!
//! and commit them. Files of older schema versions (`tests/golden/v<N>/`) are written only
//! when missing and never overwritten: they stand for bytes already in logs.

use crate::common;

use std::fs;
use std::path::PathBuf;

use apache_avro::Schema;
use apache_avro::rabin::Rabin;
use apache_avro::writer::datum::GenericDatumWriter;
use serde::Serialize;
use simpairs_events::{Codec, Event, EventType, MARKER, Movement};

fn golden_path(event_type: EventType) -> PathBuf {
    common::golden_dir().join(format!("{}.bin", event_type.name()))
}

fn read_golden(path: &PathBuf) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run `cargo test -p simpairs-events --test integration -- --ignored golden::regenerate`",
            path.display()
        )
    })
}

fn check(event: &Event) {
    let codec = Codec::new().unwrap();
    let event_type = event.event_type();
    let path = golden_path(event_type);
    let golden = read_golden(&path);
    assert_eq!(
        codec.decode(&golden).as_ref(),
        Ok(event),
        "{}: the golden bytes no longer decode to the sample",
        path.display()
    );
    assert!(
        codec.encode(event) == golden,
        "{}: encoding the sample no longer gives the golden bytes\n  golden:  {}\n  encoded: {}",
        path.display(),
        hex::encode(&golden),
        hex::encode(codec.encode(event)),
    );
    let info = codec.writer_schema(&golden).unwrap();
    assert!(info.is_current());
    assert_eq!(info.event_type(), event_type);
}

macro_rules! golden_tests {
    ($($test:ident => $sample:ident),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                check(&Event::from(common::$sample()));
            }
        )*

        #[test]
        fn every_record_type_has_a_golden_test() {
            let tested = [$(Event::from(common::$sample()).event_type()),*];
            for event_type in EventType::ALL {
                assert!(tested.contains(&event_type), "no golden test for {event_type}");
            }
        }
    };
}

golden_tests! {
    golden_event_declared => event_declared,
    golden_event_amended => event_amended,
    golden_deal_recorded => deal_recorded,
    golden_line_drawn => line_drawn,
    golden_output_sealed => output_sealed,
    golden_result_recorded => result_recorded,
    golden_results_recorded => results_recorded,
    golden_result_withdrawn => result_withdrawn,
    golden_pair_entered => pair_entered,
    golden_submission_sealed => submission_sealed,
    golden_submission_applied => submission_applied,
    golden_board_scored => board_scored,
    golden_standings_computed => standings_computed,
    golden_leaderboard_published => leaderboard_published,
    golden_dead_lettered => dead_lettered,
}

/// `ResultRecorded` as version 1 of its schema had it (no `table`).
#[derive(Serialize)]
pub struct ResultRecordedV1 {
    event_id: String,
    club_id: String,
    submission_id: String,
    sequence: i32,
    section: String,
    board: i32,
    ns_pair: String,
    ew_pair: String,
    movement: Movement,
    contract: Option<String>,
    declarer: Option<String>,
    tricks: Option<i32>,
    ns_score: Option<i32>,
    ew_score: Option<i32>,
    adjusted: Option<simpairs_events::Adjusted>,
    arrow_switch: bool,
    group: Option<String>,
    lead: Option<String>,
}

/// What a program of the version-1 era wrote for `common::result_recorded_v1()`: apache-avro
/// with `schemas/v1/ResultRecorded.avsc`, independently of this crate's codec.
pub fn v1_message() -> Vec<u8> {
    let r = common::result_recorded_v1();
    assert_eq!(r.table, None, "version 1 has no table");
    let v1 = ResultRecordedV1 {
        event_id: r.event_id,
        club_id: r.club_id,
        submission_id: r.submission_id,
        sequence: r.sequence,
        section: r.section.into(),
        board: r.board,
        ns_pair: r.ns_pair.into(),
        ew_pair: r.ew_pair.into(),
        movement: r.movement,
        contract: r.contract.map(Into::into),
        declarer: r.declarer.map(Into::into),
        tricks: r.tricks,
        ns_score: r.ns_score,
        ew_score: r.ew_score,
        adjusted: r.adjusted,
        arrow_switch: r.arrow_switch,
        group: r.group.map(Into::into),
        lead: r.lead.map(Into::into),
    };
    let schema =
        Schema::parse_str(include_str!("../../../schemas/v1/ResultRecorded.avsc")).unwrap();
    let mut message = MARKER.to_vec();
    message.extend_from_slice(&schema.fingerprint::<Rabin>().bytes);
    let writer = GenericDatumWriter::builder(&schema).build().unwrap();
    writer.write_ser(&mut message, &v1).unwrap();
    message
}

pub fn v1_golden_path() -> PathBuf {
    common::golden_dir().join("v1/ResultRecorded.bin")
}

#[test]
fn golden_result_recorded_v1_is_what_a_v1_writer_writes() {
    assert_eq!(read_golden(&v1_golden_path()), v1_message());
}

/// Writes the golden files (see the module docs).
#[test]
#[ignore = "writes tests/golden/; run on purpose when the wire format changes"]
fn regenerate() {
    let codec = Codec::new().unwrap();
    fs::create_dir_all(common::golden_dir().join("v1")).unwrap();
    for event in common::samples() {
        let path = golden_path(event.event_type());
        fs::write(&path, codec.encode(&event)).unwrap();
        eprintln!("wrote {}", path.display());
    }
    let v1 = v1_golden_path();
    if v1.exists() {
        eprintln!("kept {} (old versions are frozen)", v1.display());
    } else {
        fs::write(&v1, v1_message()).unwrap();
        eprintln!("wrote {}", v1.display());
    }
}
