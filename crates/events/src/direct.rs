//! Schema-specific codecs for the two records the pipeline handles by the million: the
//! results stream's [`ResultsRecorded`] (read) and the aggregator's [`SubmissionApplied`] (read
//! and write).
//!
//! A national event's 3,600,000 results pass through these twice each: the aggregator decodes
//! them from the clubs' batches and writes them again, all at once, in the submissions it
//! applies; the projection and `replay` read those back. Through apache-avro's serde path a
//! result cost about 1 µs of CPU to decode (a `Value`-free, positional path already; the rest is
//! serde's per-field dispatch and, before [`Text`], a heap allocation per string) and 0.15 µs to
//! encode; serde_avro_fast measured 0.3 µs. Walking the known field list directly costs about
//! 0.1 µs (`cargo bench -p simpairs-events --bench codec`).
//!
//! apache-avro stays the codec of record: it parses the schemas, computes their fingerprints,
//! resolves older versions and reads and writes every other record. These functions are used
//! only for the exact schema versions they were written for ([`RESULTS_RECORDED`],
//! [`SUBMISSION_APPLIED`]: the codec compares fingerprints when it is built, and falls back to
//! apache-avro for any other), and the crate's tests hold them to apache-avro: the same bytes
//! written, the same records read, and an error wherever apache-avro gives one, for random
//! records and for damaged and arbitrary bytes.
//!
//! The Avro binary encoding, as far as these records use it (Avro specification, "Binary
//! Encoding"): `int` and `long` are zig-zag varints; a `string` is its byte length then UTF-8
//! bytes; an `enum` is the symbol's index; a union is the branch's index then its value (every
//! union here is `["null", T]`: 0 is null); a `boolean` is one byte, 0 or 1; a record is its
//! fields in order; an `array` is blocks of items, each led by its count (a negative count is
//! followed by the block's size in bytes), ended by a count of 0.

use crate::types::{
    Adjusted, AppliedPair, AppliedResult, Direction, Movement, Player, ResultKey, ResultLine,
    ResultsRecorded, SubmissionApplied, Text,
};

/// Fingerprint (CRC-64-AVRO of the Parsing Canonical Form) of the `ResultsRecorded` schema that
/// [`read_results_recorded`] reads.
pub(crate) const RESULTS_RECORDED: u64 = 0xae6d_179e_3837_7241;

/// Fingerprint of the `SubmissionApplied` schema that [`read_submission_applied`] reads and
/// [`write_submission_applied`] writes.
pub(crate) const SUBMISSION_APPLIED: u64 = 0x8c34_6e9e_41e6_a841;

/// Why a datum does not decode, in words (it ends up in dead-letter reasons).
pub(crate) type Malformed = String;

/// A datum being read: the bytes not read yet.
struct Datum<'a> {
    rest: &'a [u8],
}

impl<'a> Datum<'a> {
    fn byte(&mut self, what: &str) -> Result<u8, Malformed> {
        let (&byte, rest) = self
            .rest
            .split_first()
            .ok_or_else(|| format!("{what}: the datum ends early"))?;
        self.rest = rest;
        Ok(byte)
    }

    /// A zig-zag varint of at most 10 bytes (bits beyond 64 are dropped, as apache-avro does).
    fn long(&mut self, what: &str) -> Result<i64, Malformed> {
        let mut zigzag = 0u64;
        for i in 0..10 {
            let byte = self.byte(what)?;
            zigzag |= u64::from(byte & 0x7F) << (i * 7);
            if byte & 0x80 == 0 {
                return Ok((zigzag >> 1) as i64 ^ -((zigzag & 1) as i64));
            }
        }
        Err(format!("{what}: a number runs over 10 bytes"))
    }

    fn int(&mut self, what: &str) -> Result<i32, Malformed> {
        let long = self.long(what)?;
        i32::try_from(long).map_err(|_| format!("{what}: {long} does not fit an int"))
    }

    fn bytes(&mut self, what: &str) -> Result<&'a [u8], Malformed> {
        let len = self.long(what)?;
        let len = usize::try_from(len)
            .ok()
            .filter(|&len| len <= self.rest.len())
            .ok_or_else(|| {
                format!(
                    "{what}: a length of {len} where {} bytes are left",
                    self.rest.len()
                )
            })?;
        let (bytes, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(bytes)
    }

    fn str(&mut self, what: &str) -> Result<&'a str, Malformed> {
        let bytes = self.bytes(what)?;
        std::str::from_utf8(bytes).map_err(|e| format!("{what}: not UTF-8 ({e})"))
    }

    fn string(&mut self, what: &str) -> Result<String, Malformed> {
        self.str(what).map(str::to_string)
    }

    fn text(&mut self, what: &str) -> Result<Text, Malformed> {
        self.str(what).map(Text::from)
    }

    fn boolean(&mut self, what: &str) -> Result<bool, Malformed> {
        match self.byte(what)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(format!("{what}: {other} is not a boolean")),
        }
    }

    /// An enum's symbol index, below `symbols`.
    fn symbol(&mut self, what: &str, symbols: usize) -> Result<usize, Malformed> {
        let index = self.int(what)?;
        usize::try_from(index)
            .ok()
            .filter(|&i| i < symbols)
            .ok_or_else(|| format!("{what}: no symbol {index}"))
    }

    /// A `["null", T]` union: `None` for branch 0, `read` for branch 1.
    fn optional<T>(
        &mut self,
        what: &str,
        read: impl FnOnce(&mut Self, &str) -> Result<T, Malformed>,
    ) -> Result<Option<T>, Malformed> {
        match self.int(what)? {
            0 => Ok(None),
            1 => read(self, what).map(Some),
            other => Err(format!("{what}: no union branch {other}")),
        }
    }

    /// An array: every item read with `read`, block after block.
    fn array<T>(
        &mut self,
        what: &str,
        mut read: impl FnMut(&mut Self) -> Result<T, Malformed>,
    ) -> Result<Vec<T>, Malformed> {
        let mut items = Vec::new();
        loop {
            let count = self.long(what)?;
            if count == 0 {
                return Ok(items);
            }
            if count < 0 {
                // The block's size in bytes follows a negative count; items are read anyway.
                self.long(what)?;
            }
            // Each item takes at least a byte: a count above what is left is damage, and must
            // not reserve memory.
            let count = count.unsigned_abs();
            if count > self.rest.len() as u64 {
                return Err(format!(
                    "{what}: a block of {count} items where {} bytes are left",
                    self.rest.len()
                ));
            }
            items.reserve(count as usize);
            for _ in 0..count {
                items.push(read(self)?);
            }
        }
    }

    fn movement(&mut self, what: &str) -> Result<Movement, Malformed> {
        Ok(match self.symbol(what, 2)? {
            0 => Movement::Mitchell,
            _ => Movement::Howell,
        })
    }

    fn adjusted(&mut self, what: &str) -> Result<Adjusted, Malformed> {
        Ok(Adjusted {
            ns_percent: self.int(what)?,
            ew_percent: self.int(what)?,
        })
    }

    fn end(self) -> Result<(), usize> {
        match self.rest.len() {
            0 => Ok(()),
            left => Err(left),
        }
    }
}

/// What went wrong reading a datum: damage described in words, or bytes left after the record.
#[derive(Debug)]
pub(crate) enum ReadError {
    Malformed(Malformed),
    TrailingBytes(usize),
}

/// Reads a whole datum with `read`.
fn read_datum<'a, T>(
    datum: &'a [u8],
    read: impl FnOnce(&mut Datum<'a>) -> Result<T, Malformed>,
) -> Result<T, ReadError> {
    let mut datum = Datum { rest: datum };
    let record = read(&mut datum).map_err(ReadError::Malformed)?;
    datum.end().map_err(ReadError::TrailingBytes)?;
    Ok(record)
}

/// Reads a `ResultsRecorded` datum written with the schema of [`RESULTS_RECORDED`].
pub(crate) fn read_results_recorded(datum: &[u8]) -> Result<ResultsRecorded, ReadError> {
    read_datum(datum, |d| {
        Ok(ResultsRecorded {
            event_id: d.string("event_id")?,
            club_id: d.string("club_id")?,
            submission_id: d.string("submission_id")?,
            board: d.int("board")?,
            first_sequence: d.int("first_sequence")?,
            results: d.array("results", |d| {
                Ok(ResultLine {
                    section: d.text("results.section")?,
                    ns_pair: d.text("results.ns_pair")?,
                    ew_pair: d.text("results.ew_pair")?,
                    movement: d.movement("results.movement")?,
                    contract: d.optional("results.contract", Datum::text)?,
                    declarer: d.optional("results.declarer", Datum::text)?,
                    tricks: d.optional("results.tricks", Datum::int)?,
                    ns_score: d.optional("results.ns_score", Datum::int)?,
                    ew_score: d.optional("results.ew_score", Datum::int)?,
                    adjusted: d.optional("results.adjusted", Datum::adjusted)?,
                    arrow_switch: d.boolean("results.arrow_switch")?,
                    group: d.optional("results.group", Datum::text)?,
                    lead: d.optional("results.lead", Datum::text)?,
                    table: d.optional("results.table", Datum::int)?,
                })
            })?,
        })
    })
}

/// Reads a `SubmissionApplied` datum written with the schema of [`SUBMISSION_APPLIED`].
pub(crate) fn read_submission_applied(datum: &[u8]) -> Result<SubmissionApplied, ReadError> {
    read_datum(datum, |d| {
        Ok(SubmissionApplied {
            event_id: d.string("event_id")?,
            club_id: d.string("club_id")?,
            submission_id: d.string("submission_id")?,
            seal_offset: d.long("seal_offset")?,
            results: d.array("results", |d| {
                Ok(AppliedResult {
                    section: d.text("results.section")?,
                    board: d.int("results.board")?,
                    ns_pair: d.text("results.ns_pair")?,
                    ew_pair: d.text("results.ew_pair")?,
                    movement: d.movement("results.movement")?,
                    contract: d.optional("results.contract", Datum::text)?,
                    declarer: d.optional("results.declarer", Datum::text)?,
                    tricks: d.optional("results.tricks", Datum::int)?,
                    ns_score: d.optional("results.ns_score", Datum::int)?,
                    ew_score: d.optional("results.ew_score", Datum::int)?,
                    adjusted: d.optional("results.adjusted", Datum::adjusted)?,
                    arrow_switch: d.boolean("results.arrow_switch")?,
                    group: d.optional("results.group", Datum::text)?,
                })
            })?,
            withdrawn: d.array("withdrawn", |d| {
                Ok(ResultKey {
                    section: d.text("withdrawn.section")?,
                    board: d.int("withdrawn.board")?,
                    ns_pair: d.text("withdrawn.ns_pair")?,
                    ew_pair: d.text("withdrawn.ew_pair")?,
                })
            })?,
            pairs: d.array("pairs", |d| {
                Ok(AppliedPair {
                    section: d.string("pairs.section")?,
                    pair: d.string("pairs.pair")?,
                    direction: d.optional("pairs.direction", |d, what| {
                        Ok(match d.symbol(what, 2)? {
                            0 => Direction::Ns,
                            _ => Direction::Ew,
                        })
                    })?,
                    players: d.array("pairs.players", |d| {
                        Ok(Player {
                            name: d.string("pairs.players.name")?,
                            national_id: d.optional("pairs.players.national_id", Datum::string)?,
                        })
                    })?,
                })
            })?,
        })
    })
}

/// Writes Avro's binary encoding into a buffer.
struct Out<'a>(&'a mut Vec<u8>);

impl Out<'_> {
    fn long(&mut self, value: i64) {
        let mut zigzag = ((value << 1) ^ (value >> 63)) as u64;
        while zigzag > 0x7F {
            self.0.push((zigzag as u8 & 0x7F) | 0x80);
            zigzag >>= 7;
        }
        self.0.push(zigzag as u8);
    }

    fn int(&mut self, value: i32) {
        self.long(i64::from(value));
    }

    fn str(&mut self, value: &str) {
        self.long(value.len() as i64);
        self.0.extend_from_slice(value.as_bytes());
    }

    fn boolean(&mut self, value: bool) {
        self.0.push(u8::from(value));
    }

    fn optional<T>(&mut self, value: Option<T>, write: impl FnOnce(&mut Self, T)) {
        match value {
            None => self.long(0),
            Some(v) => {
                self.long(1);
                write(self, v);
            }
        }
    }

    /// An array as apache-avro writes one: the items in one block, then the end (an empty array
    /// is the end alone).
    fn array<T>(&mut self, items: &[T], mut write: impl FnMut(&mut Self, &T)) {
        if !items.is_empty() {
            self.long(items.len() as i64);
            for item in items {
                write(self, item);
            }
        }
        self.long(0);
    }
}

/// Appends the datum of `applied`, written with the schema of [`SUBMISSION_APPLIED`], to `out`.
pub(crate) fn write_submission_applied(applied: &SubmissionApplied, out: &mut Vec<u8>) {
    let mut o = Out(out);
    o.str(&applied.event_id);
    o.str(&applied.club_id);
    o.str(&applied.submission_id);
    o.long(applied.seal_offset);
    o.array(&applied.results, |o, r| {
        o.str(&r.section);
        o.int(r.board);
        o.str(&r.ns_pair);
        o.str(&r.ew_pair);
        o.long(match r.movement {
            Movement::Mitchell => 0,
            Movement::Howell => 1,
        });
        o.optional(r.contract.as_deref(), Out::str);
        o.optional(r.declarer.as_deref(), Out::str);
        o.optional(r.tricks, Out::int);
        o.optional(r.ns_score, Out::int);
        o.optional(r.ew_score, Out::int);
        o.optional(r.adjusted, |o, a| {
            o.int(a.ns_percent);
            o.int(a.ew_percent);
        });
        o.boolean(r.arrow_switch);
        o.optional(r.group.as_deref(), Out::str);
    });
    o.array(&applied.withdrawn, |o, k| {
        o.str(&k.section);
        o.int(k.board);
        o.str(&k.ns_pair);
        o.str(&k.ew_pair);
    });
    o.array(&applied.pairs, |o, p| {
        o.str(&p.section);
        o.str(&p.pair);
        o.optional(p.direction, |o, d| {
            o.long(match d {
                Direction::Ns => 0,
                Direction::Ew => 1,
            })
        });
        o.array(&p.players, |o, player| {
            o.str(&player.name);
            o.optional(player.national_id.as_deref(), Out::str);
        });
    });
}

#[cfg(test)]
mod tests {
    //! The schema-specific codecs against apache-avro's, on the current schemas.

    use apache_avro::reader::datum::GenericDatumReader;
    use apache_avro::writer::datum::GenericDatumWriter;
    use proptest::prelude::*;

    use super::*;
    use crate::positional::{Positional, Read, Write};
    use crate::test_samples as common;
    use crate::{EventType, schemas::Registry};

    fn schema(event_type: EventType) -> &'static apache_avro::Schema {
        Registry::get().unwrap().current(event_type).schema()
    }

    /// What apache-avro reads from a datum: the record, or an error (bytes left over count as
    /// one, as they do for the codec).
    fn apache_read<T: Positional>(event_type: EventType, datum: &[u8]) -> Option<T> {
        let reader = GenericDatumReader::builder(schema(event_type))
            .build()
            .unwrap();
        let mut rest = datum;
        let record = reader.read_deser::<Read<T>>(&mut rest).ok()?.0;
        rest.is_empty().then_some(record)
    }

    fn apache_write<T: Positional>(event_type: EventType, record: &T) -> Vec<u8> {
        let writer = GenericDatumWriter::builder(schema(event_type))
            .build()
            .unwrap();
        let mut datum = Vec::new();
        writer.write_ser(&mut datum, &Write(record)).unwrap();
        datum
    }

    #[test]
    fn the_codecs_are_for_the_current_schemas() {
        // A schema changed: the codec now reads and writes it with apache-avro (correct, but
        // slower). Bring the field lists of this module in line with the schema, then the
        // fingerprint here.
        let registry = Registry::get().unwrap();
        assert_eq!(
            registry.current(EventType::ResultsRecorded).fingerprint(),
            RESULTS_RECORDED,
            "schemas/ResultsRecorded.avsc changed: update src/direct.rs"
        );
        assert_eq!(
            registry.current(EventType::SubmissionApplied).fingerprint(),
            SUBMISSION_APPLIED,
            "schemas/SubmissionApplied.avsc changed: update src/direct.rs"
        );
    }

    #[test]
    fn the_samples_read_and_write_as_apache_avro_does() {
        let batch = common::results_recorded();
        let datum = apache_write(EventType::ResultsRecorded, &batch);
        assert_eq!(read_results_recorded(&datum).unwrap(), batch);
        let applied = common::submission_applied();
        let datum = apache_write(EventType::SubmissionApplied, &applied);
        let mut written = Vec::new();
        write_submission_applied(&applied, &mut written);
        assert_eq!(written, datum);
        assert_eq!(read_submission_applied(&datum).unwrap(), applied);
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
            proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
            proptest::option::weighted(0.25, any::<prop::sample::Index>()),
            prop_oneof![3 => Just(Vec::new()), 1 => proptest::collection::vec(any::<u8>(), 1..3)],
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn results_recorded_reads_as_apache_avro_reads(batch in common::arb::results_recorded()) {
            let datum = apache_write(EventType::ResultsRecorded, &batch);
            prop_assert_eq!(read_results_recorded(&datum).unwrap(), batch);
        }

        #[test]
        fn submission_applied_writes_and_reads_as_apache_avro_does(
            applied in common::arb::submission_applied(),
        ) {
            let datum = apache_write(EventType::SubmissionApplied, &applied);
            let mut written = Vec::new();
            write_submission_applied(&applied, &mut written);
            prop_assert_eq!(&written, &datum);
            prop_assert_eq!(read_submission_applied(&datum).unwrap(), applied);
        }

        #[test]
        fn damaged_results_recorded_fail_where_apache_avro_fails(
            batch in common::arb::results_recorded(),
            (edits, cut, extra) in damage(),
        ) {
            let datum =
                damaged(apache_write(EventType::ResultsRecorded, &batch), &edits, cut, &extra);
            let apache = apache_read::<ResultsRecorded>(EventType::ResultsRecorded, &datum);
            prop_assert_eq!(read_results_recorded(&datum).ok(), apache);
        }

        #[test]
        fn damaged_submission_applied_fail_where_apache_avro_fails(
            applied in common::arb::submission_applied(),
            (edits, cut, extra) in damage(),
        ) {
            let datum =
                damaged(apache_write(EventType::SubmissionApplied, &applied), &edits, cut, &extra);
            let apache = apache_read::<SubmissionApplied>(EventType::SubmissionApplied, &datum);
            prop_assert_eq!(read_submission_applied(&datum).ok(), apache);
        }

        #[test]
        fn arbitrary_bytes_fail_where_apache_avro_fails(
            datum in proptest::collection::vec(any::<u8>(), 0..128),
        ) {
            let apache = apache_read::<ResultsRecorded>(EventType::ResultsRecorded, &datum);
            prop_assert_eq!(read_results_recorded(&datum).ok(), apache);
            let apache = apache_read::<SubmissionApplied>(EventType::SubmissionApplied, &datum);
            prop_assert_eq!(read_submission_applied(&datum).ok(), apache);
        }
    }
}
