//! The codec's record path: fields handed to apache-avro by position instead of by name.
//!
//! apache-avro's schema-aware serializer writes a derived (named-field) struct by looking
//! every field name up in a hash map (and another map per field for out-of-order fields),
//! and its deserializer matches every field name back to the struct; for a
//! `ResultRecorded` that cost more than the encoding itself. Given a *tuple* whose length
//! equals the record's field count, apache-avro walks the record schema's fields in order
//! instead, still checking each value against its field's schema from the `.avsc` file (a
//! string where the schema says `int` is an error). The wrappers here present each record
//! as such a tuple; the derived serde impls of the types stay as they are (named fields,
//! used when an older schema version is resolved, and by JSON users).
//!
//! The field lists below must follow the order of the fields in the schema files. The
//! crate's tests check it for every record type: the positional and the named encodings of
//! the samples and of random `ResultRecorded`s must be byte-identical and decode to each
//! other, and the golden bytes pin both.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::types::{
    AppliedPair, AppliedResult, BoardScored, ClubEntry, DeadLettered, EventDeclared, Fraction,
    LeaderboardPublished, PairEntered, PairStanding, Player, ResultKey, ResultLine, ResultRecorded,
    ResultWithdrawn, ResultsRecorded, SpecialValue, StandingsComputed, SubmissionApplied,
    SubmissionSealed, TableEntry,
};

/// A record the codec reads and writes positionally.
pub(crate) trait Positional: Sized {
    /// Number of fields, which must equal the schema's (and be at least 2: apache-avro
    /// reads a 1-tuple as the bare value).
    const FIELDS: usize;
    /// Record name, for error messages.
    const NAME: &'static str;
    /// Serializes the fields, in schema order, into `tuple`.
    fn serialize_fields<T: SerializeTuple>(&self, tuple: &mut T) -> Result<(), T::Error>;
    /// Reads the fields, in schema order, from `seq`.
    fn deserialize_fields<'de, A: SeqAccess<'de>>(seq: &mut A) -> Result<Self, A::Error>;
}

/// Serializes a borrowed record as a tuple of its fields.
pub(crate) struct Write<'a, T>(pub(crate) &'a T);

impl<T: Positional> Serialize for Write<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple(T::FIELDS)?;
        self.0.serialize_fields(&mut tuple)?;
        tuple.end()
    }
}

/// Deserializes a record from a tuple of its fields.
pub(crate) struct Read<T>(pub(crate) T);

impl<'de, T: Positional> Deserialize<'de> for Read<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TupleVisitor<T>(PhantomData<T>);
        impl<'de, T: Positional> Visitor<'de> for TupleVisitor<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a {} record of {} fields", T::NAME, T::FIELDS)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
                T::deserialize_fields(&mut seq)
            }
        }
        deserializer
            .deserialize_tuple(T::FIELDS, TupleVisitor(PhantomData))
            .map(Read)
    }
}

/// Serializes an array of records, each positionally.
struct WriteSeq<'a, T>(&'a [T]);

impl<T: Positional> Serialize for WriteSeq<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(Write))
    }
}

/// Deserializes an array of records, each positionally.
struct ReadVec<T>(Vec<T>);

impl<'de, T: Positional> Deserialize<'de> for ReadVec<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeqVisitor<T>(PhantomData<T>);
        impl<'de, T: Positional> Visitor<'de> for SeqVisitor<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an array of {} records", T::NAME)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
                // The hint comes from the (untrusted) block count: cap what it reserves.
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
                while let Some(Read(item)) = seq.next_element::<Read<T>>()? {
                    items.push(item);
                }
                Ok(items)
            }
        }
        deserializer
            .deserialize_seq(SeqVisitor(PhantomData))
            .map(ReadVec)
    }
}

/// Serializes `Vec<u8>` as Avro `bytes`.
struct WriteBytes<'a>(&'a [u8]);

impl Serialize for WriteBytes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        apache_avro::serde::bytes::serialize(self.0, serializer)
    }
}

/// Deserializes Avro `bytes` into `Vec<u8>`.
struct ReadBytes(Vec<u8>);

impl<'de> Deserialize<'de> for ReadBytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        apache_avro::serde::bytes::deserialize(deserializer).map(ReadBytes)
    }
}

/// The next field of a positional record; a missing one is an error naming it.
fn next<'de, A: SeqAccess<'de>, F: DeserializeOwned>(
    seq: &mut A,
    record: &'static str,
    field: &'static str,
) -> Result<F, A::Error> {
    seq.next_element::<F>()?
        .ok_or_else(|| de::Error::custom(format_args!("{record} ends before field {field}")))
}

/// Writes one field by kind: `plain` (the field's own serde impl), `bytes` (`Vec<u8>` as
/// Avro bytes), `rec` (a nested positional record), `seq` (an array of them).
macro_rules! write_field {
    (plain, $tuple:ident, $value:expr) => {
        $tuple.serialize_element($value)
    };
    (bytes, $tuple:ident, $value:expr) => {
        $tuple.serialize_element(&WriteBytes($value))
    };
    (rec, $tuple:ident, $value:expr) => {
        $tuple.serialize_element(&Write($value))
    };
    (seq, $tuple:ident, $value:expr) => {
        $tuple.serialize_element(&WriteSeq($value))
    };
}

/// Reads one field by kind (see [`write_field!`]).
macro_rules! read_field {
    (plain, $seq:ident, $record:ident, $field:ident) => {
        next($seq, stringify!($record), stringify!($field))?
    };
    (bytes, $seq:ident, $record:ident, $field:ident) => {
        next::<_, ReadBytes>($seq, stringify!($record), stringify!($field))?.0
    };
    (rec, $seq:ident, $record:ident, $field:ident) => {
        next::<_, Read<_>>($seq, stringify!($record), stringify!($field))?.0
    };
    (seq, $seq:ident, $record:ident, $field:ident) => {
        next::<_, ReadVec<_>>($seq, stringify!($record), stringify!($field))?.0
    };
}

/// Implements [`Positional`] for a record from its fields in schema order, each with its
/// kind (see [`write_field!`]). The struct literal makes the compiler check that every
/// field is listed once; the tests check the order.
macro_rules! positional {
    ($record:ident { $($field:ident: $kind:ident),* $(,)? }) => {
        impl Positional for $record {
            const FIELDS: usize = [$(stringify!($field)),*].len();
            const NAME: &'static str = stringify!($record);
            fn serialize_fields<T: SerializeTuple>(&self, tuple: &mut T) -> Result<(), T::Error> {
                $(write_field!($kind, tuple, &self.$field)?;)*
                Ok(())
            }
            fn deserialize_fields<'de, A: SeqAccess<'de>>(seq: &mut A) -> Result<Self, A::Error> {
                Ok($record {
                    $($field: read_field!($kind, seq, $record, $field),)*
                })
            }
        }
        const _: () = assert!(<$record as Positional>::FIELDS >= 2, "1-field records cannot go by position");
    };
}

positional!(EventDeclared {
    event_id: plain,
    name: plain,
    boards: plain,
    scoring: plain,
    factoring: plain,
    clubs: seq,
    declared_at_ms: plain,
});

positional!(ClubEntry {
    club_id: plain,
    name: plain,
    key_id: plain,
    hmac_key: bytes,
});

positional!(ResultRecorded {
    event_id: plain,
    club_id: plain,
    submission_id: plain,
    sequence: plain,
    section: plain,
    board: plain,
    ns_pair: plain,
    ew_pair: plain,
    movement: plain,
    contract: plain,
    declarer: plain,
    tricks: plain,
    ns_score: plain,
    ew_score: plain,
    adjusted: plain,
    arrow_switch: plain,
    group: plain,
    lead: plain,
    table: plain,
});

positional!(ResultsRecorded {
    event_id: plain,
    club_id: plain,
    submission_id: plain,
    board: plain,
    first_sequence: plain,
    results: seq,
});

positional!(ResultLine {
    section: plain,
    ns_pair: plain,
    ew_pair: plain,
    movement: plain,
    contract: plain,
    declarer: plain,
    tricks: plain,
    ns_score: plain,
    ew_score: plain,
    adjusted: plain,
    arrow_switch: plain,
    group: plain,
    lead: plain,
    table: plain,
});

positional!(ResultWithdrawn {
    event_id: plain,
    club_id: plain,
    submission_id: plain,
    sequence: plain,
    section: plain,
    board: plain,
    ns_pair: plain,
    ew_pair: plain,
});

positional!(PairEntered {
    event_id: plain,
    club_id: plain,
    submission_id: plain,
    sequence: plain,
    section: plain,
    pair: plain,
    direction: plain,
    players: seq,
});

positional!(Player {
    name: plain,
    national_id: plain,
});

positional!(SubmissionSealed {
    event_id: plain,
    club_id: plain,
    submission_id: plain,
    count: plain,
    digest: bytes,
    key_id: plain,
    signature: bytes,
    sealed_at_ms: plain,
    source: plain,
});

positional!(SubmissionApplied {
    event_id: plain,
    club_id: plain,
    submission_id: plain,
    seal_offset: plain,
    results: seq,
    withdrawn: seq,
    pairs: seq,
});

positional!(AppliedResult {
    section: plain,
    board: plain,
    ns_pair: plain,
    ew_pair: plain,
    movement: plain,
    contract: plain,
    declarer: plain,
    tricks: plain,
    ns_score: plain,
    ew_score: plain,
    adjusted: plain,
    arrow_switch: plain,
    group: plain,
});

positional!(ResultKey {
    section: plain,
    board: plain,
    ns_pair: plain,
    ew_pair: plain,
});

positional!(AppliedPair {
    section: plain,
    pair: plain,
    direction: plain,
    players: seq,
});

positional!(Fraction {
    num: plain,
    den: plain,
});

positional!(BoardScored {
    event_id: plain,
    scope: plain,
    board: plain,
    generation: plain,
    results_count: plain,
    target: plain,
    top: rec,
    datum: plain,
    table: seq,
    specials: seq,
});

positional!(TableEntry {
    ns_score: plain,
    count: plain,
    ns_value: rec,
    ew_value: rec,
});

positional!(SpecialValue {
    club_id: plain,
    key: rec,
    ns_value: rec,
    ew_value: rec,
});

positional!(PairStanding {
    club_id: plain,
    section: plain,
    pair: plain,
    direction: plain,
    boards: plain,
    total: plain,
    max: plain,
    total_hundredths: plain,
    percent_hundredths: plain,
    rank: plain,
    tied: plain,
    combined_rank: plain,
    combined_tied: plain,
});

positional!(StandingsComputed {
    event_id: plain,
    scope: plain,
    generation: plain,
    scoring: plain,
    factoring: plain,
    standings: seq,
});

positional!(LeaderboardPublished {
    event_id: plain,
    generation: plain,
    published_at_ms: plain,
    clubs_applied: plain,
    results_applied: plain,
    top: seq,
});

positional!(DeadLettered {
    event_id: plain,
    source_stream: plain,
    source_partition: plain,
    source_offset: plain,
    reason: plain,
    payload: bytes,
    at_ms: plain,
});
