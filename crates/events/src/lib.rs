//! The events of simpairs and their wire format.
//!
//! simpairs is event-sourced: clubs publish results as events to a log, the aggregator
//! rescores boards from them, the projection builds leaderboards. This crate defines those
//! events as plain Rust data, encodes and decodes them as Avro with the schemas in
//! `schemas/*.avsc` (the single source of truth for the wire), signs submissions and says
//! how events are keyed for partitioning. It does no I/O.
//!
//! # Events and streams
//!
//! | stream | event | written by | partition key |
//! |---|---|---|---|
//! | `declarations` | [`EventDeclared`]: boards, scoring, limits, clubs' and aggregators' public keys | organiser | `event_id` |
//! | `declarations` | [`EventAmended`]: clubs and keys added, keys revoked, hand records; signed | organiser | `event_id` |
//! | `results` | [`ResultRecorded`]: one board at one table | club node | `event_id/board` |
//! | `results` | [`ResultsRecorded`]: several tables of one board, batched | club node | `event_id/board` |
//! | `results` | [`ResultWithdrawn`]: a result taken back | club node | `event_id/board` |
//! | `results` | [`PairEntered`]: a pair and its players | club node | `event_id/club_id` |
//! | `results` | [`DealRecorded`]: a board's hand record as the club's file has it | club node | `event_id/board` |
//! | `results` | [`SubmissionSealed`]: count, digest, signature | club node | `event_id/club_id` |
//! | `results` | [`LineDrawn`]: where an amendment's hand records and revocations hold from | organiser | each partition |
//! | `board-scores` | [`SubmissionApplied`]: what the aggregator accepted | aggregator | `event_id/club_id` |
//! | `board-scores` | [`BoardScored`]: one board over one field | aggregator | `scope/board` |
//! | `leaderboard` | [`StandingsComputed`]: every pair of one club's field | aggregator | `scope` |
//! | `leaderboard` | [`LeaderboardPublished`]: the compact public feed | projection | `event_id` |
//! | `dead-letter` | [`DeadLettered`]: input set aside, with the reason | aggregator | `event_id` |
//! | each derived stream | [`OutputSealed`]: hashes of the records an aggregator wrote, signed | aggregator | `event_id` |
//!
//! [`Event::stream`] and [`Event::partition_key`] give the last two columns; the key's
//! ordering rationale is on [`Event::partition_key`].
//!
//! A club's upload is a *submission*: records with sequences `0..count`, then a
//! [`SubmissionSealed`] whose digest covers them and whose Ed25519 signature with the
//! club's private key proves the club sent it ([`submission_digest`], [`sign_seal`],
//! [`verify_seal`]); the declaration holds only public keys. The aggregator applies a
//! submission only once it holds every sealed record and the signature verifies, so a
//! leaderboard never shows half a club. What the aggregator derives is vouched for the same
//! way by [`OutputSealed`] records signed with its declared key ([`sign_output`]).
//!
//! [`ResultsRecorded`] is the batched form of [`ResultRecorded`]: one message for several
//! results of one board from one submission (line `i` is sequence `first_sequence + i`;
//! [`ResultsRecorded::records`] expands it). It has the same partition key, so per-board
//! order is unchanged, and it saves the identity strings and the header per result: with
//! 12 tables a board, 33 bytes a result instead of 86, encoding a quarter faster and
//! decoding slightly faster (numbers in `benches/codec.rs`). Producers may use either form,
//! or both in one submission; consumers of the results stream must accept both.
//!
//! # Wire format
//!
//! Every message is an Avro *single-object encoding* (Avro specification, "Single object
//! encoding"):
//!
//! ```text
//!  byte 0    1    2 ........................ 9   10 ...................... end
//!     +----+----+-----------------------------+-----------------------------+
//!     | C3 | 01 | fingerprint, 8 bytes, LE    | datum: Avro binary encoding |
//!     +----+----+-----------------------------+-----------------------------+
//!       marker    CRC-64-AVRO (Rabin) of the     the record, written with
//!                 writer schema's Parsing        that schema
//!                 Canonical Form
//! ```
//!
//! The fingerprint names the exact schema the datum was written with; [`Codec`] keeps a
//! registry of every schema version it knows, keyed by fingerprint. A message is
//! self-describing without a schema-registry server, and the partition key travels beside
//! it (Kafka key, embedded-log key), not inside it.
//!
//! The codec parses each schema file once per process. It reads and writes the current
//! version of every record type with code that `build.rs` generated from that very file
//! (`wire.rs`): a reader, a skipper and a writer per record and enum that walk the fields in
//! schema order without serde (zig-zag varints, strings, unions, arrays in blocks), at a third
//! (decoding) to a seventh (encoding) of the CPU of apache-avro's serde path. The codec uses them only for the schema
//! they were generated from (it compares fingerprints when it is built); apache-avro reads
//! every older version, resolving it to the current schema, and is the reference the tests hold
//! the generated code to: the same bytes written, the same records read, an error wherever
//! apache-avro errs, on random records of every type and on damaged, cut, lengthened and
//! arbitrary bytes. The results' batches can also be skimmed ([`Codec::skim`]: header read,
//! lines checked, not built) and read straight into the results a submission applies
//! ([`Codec::applied_lines`]); those two readers are written by hand (`skim.rs`) on the
//! generated ones. The short text fields of a result are [`Text`]s, kept inline without a heap
//! allocation.
//!
//! # How schemas evolve
//!
//! Each record type has one current schema, `schemas/<Type>.avsc`, whose top-level record
//! carries `"version": N`. The Rust types, their codecs, [`Event`] and [`EventType`] are
//! generated from the current files by `build.rs`; nothing of a schema is kept by hand
//! anywhere else. What Avro does not say (the stream, the partition key, `Text` for a short
//! string, extra derives) is said by custom attributes in the file, listed in
//! `schemas/README.md`; they are not part of the canonical form, so they change no
//! fingerprint. To add a field (or make another change Avro schema resolution can read old
//! data with: add fields *with defaults*, an optional field being `["null", T]` with
//! `"default": null`; remove fields; widen `int` to `long`; add enum symbols):
//!
//! 1. copy the current file to `schemas/v<N>/<Type>.avsc` (it stays, unchanged, forever:
//!    logs hold messages written with it; being there registers it);
//! 2. edit `schemas/<Type>.avsc`: the field, with its `doc`, and `"version": N+1` (a named
//!    type defined in several files, such as `ResultKey`, is edited in each, and each of
//!    those record types gets a new version the same way);
//! 3. build: the compiler lists the struct literals (samples, other crates) that need the
//!    new field;
//! 4. regenerate the golden files (`tests/golden.rs` says how) and add one of the old version
//!    (`tests/golden/v<N>/<Type>.bin`, written independently of the codec) with a test that
//!    it decodes (`tests/evolution.rs`).
//!
//! To add a record type: write `schemas/<Type>.avsc` (namespace `simpairs`, `"version": 1`,
//! `"stream"`, `"key"`, docs, every named type it uses defined in it), then add its sample to
//! `tests/common/mod.rs` and a golden test to `tests/golden.rs`, and regenerate the golden
//! files. Its `Event` variant, `EventType`, stream, key, codec, registration and property
//! tests follow from the file.
//!
//! The codec always writes the current version. Reading, it looks the fingerprint up:
//! current-version data decodes straight into the struct, older data is resolved to the
//! current schema (new fields take their defaults). Building the registry checks that
//! every old version is fully readable by the current one. `ResultRecorded` is at
//! version 2 (it added `table`); its version 1 golden bytes are decoded in the tests.
//!
//! Named types (`Movement`, `Fraction`, `PairStanding`, ...) are defined inside every file
//! that uses them: each file is self-contained, so its canonical form — and fingerprint —
//! covers every type it uses. The copies must agree, custom attributes included (the build
//! and a test check).
//!
//! # Layout
//!
//! * [`types`]: the records, one struct per Avro record, generated (all re-exported at the
//!   root), with a few hand-written methods;
//! * [`Event`], [`EventType`], [`Stream`] (`event.rs`): the sum of the records, generated,
//!   with the streams and partition keys;
//! * [`Codec`], [`split_message`] (`codec.rs`): the wire format, with the generated codecs
//!   and their runtime in `wire.rs` and the results' own readers in `skim.rs`;
//!   [`SchemaInfo`] (`schemas.rs`): the schema registry;
//! * [`PrivateKey`], [`PublicKey`], [`submission_digest`], [`sign_seal`], [`verify_seal`],
//!   [`sign_output`], [`verify_output`] (`signing.rs`): signing;
//! * [`Error`]: what can go wrong decoding;
//! * `build.rs`, `build/`: the generator (`docs/decisions/wire-generated.md` says why and how).
//!
//! Tests: `tests/golden.rs` (committed golden bytes per record type; how to regenerate
//! them is in that file), `tests/evolution.rs` (version 1 bytes read by the version 2
//! reader), `tests/schemas.rs` (the files: docs, registry, shared types, fingerprints),
//! `tests/round_trip.rs`, `tests/decode_robustness.rs` (no input panics), `tests/signing.rs`;
//! `src/wire/tests.rs` (every generated codec against apache-avro).
//!
//! # Example
//!
//! ```
//! use simpairs_events::{Codec, Event, Movement, ResultRecorded};
//!
//! let codec = Codec::new()?;
//! let event = Event::ResultRecorded(ResultRecorded {
//!     event_id: "SIM-2026-11".into(),
//!     club_id: "bristol".into(),
//!     submission_id: "bristol-1".into(),
//!     sequence: 0,
//!     section: "A".into(),
//!     board: 7,
//!     ns_pair: "3".into(),
//!     ew_pair: "11".into(),
//!     movement: Movement::Mitchell,
//!     contract: Some("4S".into()),
//!     declarer: Some("N".into()),
//!     tricks: Some(11),
//!     ns_score: Some(650),
//!     ew_score: None,
//!     adjusted: None,
//!     arrow_switch: false,
//!     group: None,
//!     lead: Some("HK".into()),
//!     table: Some(3),
//! });
//! let message = codec.encode(&event);
//! assert_eq!(message[..2], [0xC3, 0x01]);
//! assert_eq!(codec.decode(&message)?, event);
//! assert_eq!(event.partition_key(), b"SIM-2026-11/7");
//! # Ok::<(), simpairs_events::Error>(())
//! ```

mod codec;
mod error;
mod event;
mod packed;
mod schemas;
mod signing;
mod skim;
pub mod types;
mod wire;

pub use codec::{Codec, Framed, HEADER_LEN, MARKER, Skimmed, split_message};
pub use error::{Error, Result};
pub use event::{Event, EventType, Stream};
pub use packed::{PackedApplied, Packer};
pub use schemas::{NAMESPACE, SchemaInfo};
pub use signing::{
    AMENDMENT_DOMAIN, DIGEST_LEN, HASH_FUNCTION, KeyError, OUTPUT_DOMAIN, OUTPUT_DOMAIN_BLAKE3,
    PrivateKey, PublicKey, SEAL_DOMAIN, SEAL_DOMAIN_BLAKE3, SIGNATURE_LEN, WHOLE_SESSION,
    amendment_bytes, key_id, output_seal_bytes, record_hash, seal_bytes, sign_output, sign_seal,
    submission_digest, verify_output, verify_seal,
};
pub use skim::ResultsHeader;
pub use types::*;

// The integration tests' samples, for the unit tests (which name the crate as they do).
#[cfg(test)]
extern crate self as simpairs_events;
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
mod test_samples;
