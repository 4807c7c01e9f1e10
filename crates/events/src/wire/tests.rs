//! The generated codecs against apache-avro's, on the current schemas: for every record type,
//! the same bytes written, the same records read, and an error wherever apache-avro gives one,
//! on random records (`arb.rs`, generated from the schemas too) and on damaged, cut,
//! lengthened and arbitrary bytes. `ResultsRecorded`'s own readers (`skim.rs`) likewise.

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::writer::datum::GenericDatumWriter;
use proptest::prelude::*;

use super::*;
use crate::schemas::Registry;
use crate::skim;
use crate::skim::ResultsHeader;
use crate::test_samples as common;
use crate::types::{AppliedResult, ResultsRecorded};

/// Random values of every type of the schemas.
mod arb {
    use proptest::prelude::*;

    use crate::event::Event;

    /// Text: short and plain mostly, any Unicode sometimes.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => "[A-Za-z0-9 -]{0,12}",
            1 => any::<String>(),
        ]
    }

    include!(concat!(env!("OUT_DIR"), "/arb.rs"));
}

fn schema(event_type: EventType) -> &'static apache_avro::Schema {
    Registry::get().unwrap().current(event_type).schema()
}

fn apache_reader(event_type: EventType) -> GenericDatumReader<'static> {
    GenericDatumReader::builder(schema(event_type))
        .build()
        .unwrap()
}

/// What apache-avro reads from a datum: the event, or `None` for an error (bytes left over
/// count as one, as they do for the codec).
fn apache_read_with(
    reader: &GenericDatumReader<'_>,
    event_type: EventType,
    datum: &[u8],
) -> Option<Event> {
    let mut rest = datum;
    let event = read_named(reader, event_type, &mut rest).ok()?;
    rest.is_empty().then_some(event)
}

fn apache_read(event_type: EventType, datum: &[u8]) -> Option<Event> {
    apache_read_with(&apache_reader(event_type), event_type, datum)
}

/// What apache-avro writes for `event`.
fn apache_write(event: &Event) -> Vec<u8> {
    let writer = GenericDatumWriter::builder(schema(event.event_type()))
        .build()
        .unwrap();
    let mut datum = Vec::new();
    write_named(&writer, event, &mut datum).unwrap();
    datum
}

fn generated_write(event: &Event) -> Vec<u8> {
    let mut datum = Vec::new();
    write_event(event, &mut datum);
    datum
}

/// Events through `Debug`: a NaN reads back as NaN, which `==` does not match.
fn debug(event: &Option<Event>) -> String {
    format!("{event:?}")
}

/// The lines of a batch as the results a submission applies.
fn as_applied(batch: &ResultsRecorded) -> Vec<AppliedResult> {
    batch
        .results
        .iter()
        .map(|l| l.clone().into_applied(batch.board))
        .collect()
}

/// What [`skim::read_lines_as_applied`] reads, if it reads.
fn applied_lines(datum: &[u8]) -> Option<Vec<AppliedResult>> {
    let mut out = Vec::new();
    skim::read_lines_as_applied(datum, &mut out)
        .ok()
        .map(|()| out)
}

/// Checks that the generated codec of `event_type` reads `datum` as apache-avro does (`apache`),
/// and for `ResultsRecorded` its skim and applied lines too.
fn reads_as_apache_avro(
    event_type: EventType,
    datum: &[u8],
    apache: &Option<Event>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(debug(&read_event(event_type, datum).ok()), debug(apache));
    if event_type == EventType::ResultsRecorded {
        let batch = match apache {
            Some(Event::ResultsRecorded(batch)) => Some(batch),
            _ => None,
        };
        prop_assert_eq!(
            skim::skim_results_recorded(datum).ok(),
            batch.map(ResultsHeader::of)
        );
        prop_assert_eq!(applied_lines(datum), batch.map(as_applied));
    }
    Ok(())
}

/// `datum` damaged: bytes overwritten, then perhaps cut short, then perhaps lengthened.
fn damaged(
    mut datum: Vec<u8>,
    edits: &[(prop::sample::Index, u8)],
    cut: Option<prop::sample::Index>,
    extra: &[u8],
) -> Vec<u8> {
    if !datum.is_empty() {
        for (at, byte) in edits {
            let i = at.index(datum.len());
            datum[i] = *byte;
        }
    }
    if let Some(cut) = cut {
        datum.truncate(cut.index(datum.len() + 1));
    }
    datum.extend_from_slice(extra);
    datum
}

/// The byte values damage writes: mostly the ones the encoding gives meaning to (small
/// numbers: booleans, union branches, enum symbols, lengths; varint continuation bits).
fn damage_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        2 => any::<u8>(),
        2 => 0u8..6,
        1 => prop::sample::select(vec![0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF]),
    ]
}

/// Damage: one to three bytes overwritten; cut short one time in four; a byte or two
/// appended one time in four.
fn damage() -> impl Strategy<
    Value = (
        Vec<(prop::sample::Index, u8)>,
        Option<prop::sample::Index>,
        Vec<u8>,
    ),
> {
    (
        proptest::collection::vec((any::<prop::sample::Index>(), damage_byte()), 1..4),
        proptest::option::weighted(0.25, any::<prop::sample::Index>()),
        prop_oneof![3 => Just(Vec::new()), 1 => proptest::collection::vec(any::<u8>(), 1..3)],
    )
}

#[test]
fn the_codecs_are_generated_from_the_schemas_the_registry_reads() {
    let registry = Registry::get().unwrap();
    for (event_type, canonical_form) in CANONICAL_FORMS {
        let info = registry.current(event_type);
        assert_eq!(canonical_form, info.canonical_form(), "{}", info.path());
        assert_eq!(
            generated_fingerprint(event_type),
            info.fingerprint(),
            "{}",
            info.path()
        );
    }
    assert_eq!(CANONICAL_FORMS.len(), EventType::ALL.len());
}

#[test]
fn the_samples_write_and_read_as_apache_avro_does() {
    for event in common::samples() {
        let datum = apache_write(&event);
        assert_eq!(generated_write(&event), datum, "{}", event.event_type());
        assert_eq!(
            read_event(event.event_type(), &datum).ok(),
            Some(event.clone())
        );
        let apache = apache_read(event.event_type(), &datum);
        assert_eq!(apache.as_ref(), Some(&event));
        reads_as_apache_avro(event.event_type(), &datum, &apache).unwrap();
    }
}

/// The byte values [`every_one_byte_damage_of_the_samples_fails_where_apache_avro_fails`]
/// writes at every position.
const DAMAGE: [u8; 12] = [0, 1, 2, 3, 4, 5, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF];

#[test]
fn every_one_byte_damage_of_the_samples_fails_where_apache_avro_fails() {
    for event in common::samples() {
        let event_type = event.event_type();
        let reader = apache_reader(event_type);
        let datum = apache_write(&event);
        let mut damaged = Vec::new();
        for at in 0..=datum.len() {
            // Cut at `at`, and lengthened by one byte.
            damaged.clear();
            damaged.extend_from_slice(&datum[..at]);
            if at == datum.len() {
                damaged.push(0);
            }
            let apache = apache_read_with(&reader, event_type, &damaged);
            reads_as_apache_avro(event_type, &damaged, &apache).unwrap();
            // Each value of `DAMAGE` at `at`.
            for byte in DAMAGE.into_iter().filter(|_| at < datum.len()) {
                damaged.clear();
                damaged.extend_from_slice(&datum);
                damaged[at] = byte;
                let apache = apache_read_with(&reader, event_type, &damaged);
                reads_as_apache_avro(event_type, &damaged, &apache)
                    .unwrap_or_else(|e| panic!("{event_type}, byte {at} as {byte:#x}: {e}"));
            }
        }
    }
}

/// One-character texts are read and written without the UTF-8 check's call (`Datum::str`,
/// `Out::bytes`): every value of such a text's byte reads as apache-avro reads it (an ASCII
/// character, or an error), and writes the bytes apache-avro writes.
#[test]
fn every_byte_of_a_one_character_text_reads_and_writes_as_apache_avro_does() {
    let mut checked = 0;
    for event in common::samples() {
        let event_type = event.event_type();
        let reader = apache_reader(event_type);
        let datum = apache_write(&event);
        assert_eq!(generated_write(&event), datum, "{event_type}");
        // A length of 1 (zig-zag 2) before an ASCII byte: most likely a one-character text.
        let texts = (1..datum.len()).filter(|&at| datum[at - 1] == 2 && datum[at].is_ascii());
        for at in texts {
            let mut changed = datum.clone();
            for byte in 0..=u8::MAX {
                changed[at] = byte;
                let apache = apache_read_with(&reader, event_type, &changed);
                reads_as_apache_avro(event_type, &changed, &apache)
                    .unwrap_or_else(|e| panic!("{event_type}, byte {at} as {byte:#x}: {e}"));
                if let Some(read) = &apache {
                    let written = generated_write(read);
                    assert_eq!(
                        written,
                        apache_write(read),
                        "{event_type}, byte {at} as {byte:#x}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked > 256 * 10,
        "only {checked} bytes checked: the samples have few one-character texts"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn every_record_type_writes_and_reads_as_apache_avro_does(event in arb::event()) {
        let datum = apache_write(&event);
        prop_assert_eq!(&generated_write(&event), &datum, "{}", event.event_type());
        reads_as_apache_avro(event.event_type(), &datum, &Some(event))?;
    }

    #[test]
    fn damaged_data_fails_where_apache_avro_fails(
        event in arb::event(),
        (edits, cut, extra) in damage(),
    ) {
        let event_type = event.event_type();
        let datum = damaged(apache_write(&event), &edits, cut, &extra);
        let apache = apache_read(event_type, &datum);
        reads_as_apache_avro(event_type, &datum, &apache)?;
    }

    #[test]
    fn arbitrary_bytes_fail_where_apache_avro_fails(
        which in any::<prop::sample::Index>(),
        datum in proptest::collection::vec(any::<u8>(), 0..128),
    ) {
        let event_type = EventType::ALL[which.index(EventType::ALL.len())];
        let apache = apache_read(event_type, &datum);
        reads_as_apache_avro(event_type, &datum, &apache)?;
    }
}
