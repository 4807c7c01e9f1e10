//! Derived records vouched for: an aggregator writes what it derives (applied submissions, board
//! scores, clubs' standings, dead letters) with an [`OutputSealed`] in the same append to each
//! partition, listing the hash (BLAKE3; SHA-256 in seals written before) of every record's datum and signed with the aggregator's declared
//! key. A reader accepts a derived record only once a seal that verifies lists it
//! ([`Verifier`]); anything else, a record some club or intruder appended, is set aside and
//! counted, and changes nothing.

use std::collections::{BTreeMap, HashMap};

use simpairs_events::types::{HashFunction, OutputSealed};
use simpairs_events::{Codec, Event, PrivateKey, PublicKey};
use simpairs_log::{Log, Produce};

use crate::{Result, now_ms};

/// Most hashes one seal lists: 512 KiB of hashes, under the 1 MB a Kafka broker accepts in one
/// message unless it is configured otherwise (the embedded log takes 64 MiB). A seal of 65,536
/// hashes (2 MiB) was refused by the broker as too large on an ingest of 1,000,000 results.
const HASHES_PER_SEAL: usize = 16_384;

/// Unverified records a reader keeps per partition, waiting for their seal, before it sets the
/// oldest aside: more than any one append of an aggregator holds.
const PENDING_LIMIT: usize = 1 << 20;

/// A record to append: (key, partition if chosen, message).
pub(crate) type Encoded = (Vec<u8>, Option<u32>, Vec<u8>);

/// Appends `encoded` to `stream` with, after each partition's records, the seals that vouch for
/// them, all in one append (the embedded log writes each partition's part at once).
pub(crate) fn append_sealed(
    log: &dyn Log,
    codec: &Codec,
    key: &PrivateKey,
    event_id: &str,
    stream: &str,
    encoded: &[Encoded],
) -> Result<()> {
    if encoded.is_empty() {
        return Ok(());
    }
    let partitions = log.partitions(stream)?;
    Sealed::new(codec, key, event_id, stream, partitions, encoded).append(log)
}

/// A batch of records with the seals that vouch for them, made before the batch is appended:
/// hashing and signing are the work of it, and the append only writes. Where the work runs on
/// low-priority threads, the append can then run at the normal priority: it holds the partition's
/// lock, which the projection's leaderboard waits for.
pub(crate) struct Sealed<'a> {
    stream: &'a str,
    encoded: &'a [Encoded],
    at: i64,
    /// Each record's partition, in the batch's order.
    partitions: Vec<u32>,
    /// Each seal's partition, message and key.
    seals: Vec<(u32, Vec<u8>, Vec<u8>)>,
}

impl<'a> Sealed<'a> {
    /// `encoded` sealed, to be appended to `stream` of `partitions` partitions.
    pub(crate) fn new(
        codec: &Codec,
        key: &PrivateKey,
        event_id: &str,
        stream: &'a str,
        partitions: u32,
        encoded: &'a [Encoded],
    ) -> Sealed<'a> {
        // Hashed in parallel: a batch's output is as large as its input.
        let record_hashes: Vec<[u8; simpairs_events::DIGEST_LEN]> = {
            use rayon::prelude::*;
            encoded
                .par_iter()
                .with_min_len(64)
                .map(|(_, _, message)| {
                    let datum = message
                        .get(simpairs_events::HEADER_LEN..)
                        .unwrap_or_default();
                    simpairs_events::record_hash(simpairs_events::HASH_FUNCTION, datum)
                })
                .collect()
        };
        let mut placed = Vec::with_capacity(encoded.len());
        let mut hashes: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
        for ((k, partition, _), hash) in encoded.iter().zip(&record_hashes) {
            let partition =
                partition.unwrap_or_else(|| simpairs_log::partition_for_key(k, partitions));
            hashes.entry(partition).or_default().extend_from_slice(hash);
            placed.push(partition);
        }
        let at = now_ms();
        // Each seal has a key of its own: on a compacted stream (Kafka's board scores) a key
        // shared by the seals would keep only the latest one, and the records earlier seals
        // vouched for would never be accepted again by a reader starting from the beginning.
        let seals = seals(codec, key, event_id, stream, &hashes, at)
            .into_iter()
            .map(|(p, message)| (p, seal_key(event_id, &message), message))
            .collect();
        Sealed {
            stream,
            encoded,
            at,
            partitions: placed,
            seals,
        }
    }

    /// Appends the records and the seals after them, in one append.
    pub(crate) fn append(&self, log: &dyn Log) -> Result<()> {
        if self.encoded.is_empty() {
            return Ok(());
        }
        let records = self.encoded.iter().zip(&self.partitions);
        let mut records: Vec<Produce<'_>> = records
            .map(|((k, _, v), &p)| Produce::new(k, v, self.at).to_partition(p))
            .collect();
        records.extend(
            self.seals
                .iter()
                .map(|(p, k, v)| Produce::new(k, v, self.at).to_partition(*p)),
        );
        log.append(self.stream, &records)?;
        Ok(())
    }
}

/// `<event>/seal/<hash of the seal's message, in hex>`: unique to the seal (its signature covers
/// its time and hashes).
fn seal_key(event_id: &str, message: &[u8]) -> Vec<u8> {
    let hash = simpairs_events::record_hash(simpairs_events::HASH_FUNCTION, message);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("{event_id}/seal/{hex}").into_bytes()
}

/// The signed seals of each partition's hashes, encoded: (partition, message).
fn seals(
    codec: &Codec,
    key: &PrivateKey,
    event_id: &str,
    stream: &str,
    hashes: &BTreeMap<u32, Vec<u8>>,
    at: i64,
) -> Vec<(u32, Vec<u8>)> {
    let hash_len = simpairs_events::DIGEST_LEN;
    let mut out = Vec::new();
    for (&partition, all) in hashes {
        for chunk in all.chunks(HASHES_PER_SEAL * hash_len) {
            let mut seal = OutputSealed {
                event_id: event_id.to_string(),
                stream: stream.to_string(),
                partition: partition as i32,
                hashes: chunk.to_vec(),
                hash_function: simpairs_events::HASH_FUNCTION,
                sealed_at_ms: at,
                key_id: String::new(),
                signature: Vec::new(),
            };
            simpairs_events::sign_output(key, &mut seal);
            out.push((partition, codec.encode(&Event::OutputSealed(seal))));
        }
    }
    out
}

/// What a reader does with a derived record.
#[derive(Debug)]
pub(crate) enum Verified {
    /// Records a seal vouched for, in the order they were written: apply them.
    Accept(Vec<Event>),
    /// Nothing yet: the record waits for its seal.
    Wait,
    /// Set aside, with the reason.
    SetAside(String),
}

/// A partition's records waiting for their seal, and the verified seals seen so far.
#[derive(Debug, Default)]
struct Waiting {
    records: Vec<Unsealed>,
    seals: u64,
}

/// A derived record no seal has listed yet. Its datum is kept, not only a hash: which function a
/// seal hashes with (SHA-256 or BLAKE3) is known only when the seal arrives, after the records,
/// and an event may hold seals of both (an aggregator upgraded during it).
#[derive(Debug)]
struct Unsealed {
    datum: Vec<u8>,
    /// The datum's hash under the function of the last seal that did not list it.
    hash: Option<(HashFunction, [u8; simpairs_events::DIGEST_LEN])>,
    /// Verified seals seen on the partition when it arrived.
    seen: u64,
    event: Event,
}

impl Unsealed {
    fn hash(&mut self, function: HashFunction) -> [u8; simpairs_events::DIGEST_LEN] {
        match self.hash {
            Some((f, hash)) if f == function => hash,
            _ => {
                let hash = simpairs_events::record_hash(function, &self.datum);
                self.hash = Some((function, hash));
                hash
            }
        }
    }
}

/// Verified seals after which a record no seal listed is set aside: an aggregator writes a
/// record and its seal in one append, so one seal later is enough on one log; a second leaves
/// room for another aggregator's records written in between on a partitioned log.
const SEALS_TO_WAIT: u64 = 2;

/// A reader's side: holds each partition's derived records until a seal of a declared aggregator
/// lists them.
#[derive(Debug, Default)]
pub(crate) struct Verifier {
    /// The aggregators' keys, by id.
    keys: HashMap<String, PublicKey>,
    /// Per (stream, partition): records waiting, in log order, and the verified seals seen there.
    pending: HashMap<(String, u32), Waiting>,
    /// Records set aside, unsigned or under a seal that does not verify.
    pub set_aside: usize,
}

impl Verifier {
    /// Records waiting for a seal (not shown; set aside once seals that do not list them pass).
    pub fn waiting(&self) -> usize {
        self.pending.values().map(|w| w.records.len()).sum()
    }

    /// Takes the keys of the roster as it is now.
    pub(crate) fn set_keys(&mut self, keys: HashMap<String, PublicKey>) {
        self.keys = keys;
    }

    /// Handles a derived record read at `partition` of `stream`: its message (for the hash of its
    /// datum) and the record.
    pub fn handle(
        &mut self,
        stream: &str,
        partition: u32,
        message: &[u8],
        event: Event,
    ) -> Verified {
        let place = (stream.to_string(), partition);
        if let Event::OutputSealed(seal) = event {
            return self.seal(place, &seal);
        }
        let datum = message
            .get(simpairs_events::HEADER_LEN..)
            .unwrap_or_default();
        let pending = self.pending.entry(place).or_default();
        let seen = pending.seals;
        pending.records.push(Unsealed {
            datum: datum.to_vec(),
            hash: None,
            seen,
            event,
        });
        if pending.records.len() > PENDING_LIMIT {
            pending.records.remove(0);
            self.set_aside += 1;
            return Verified::SetAside(format!(
                "a record of {stream} (partition {partition}) was never vouched for by a declared aggregator: set aside"
            ));
        }
        Verified::Wait
    }

    fn seal(&mut self, place: (String, u32), seal: &OutputSealed) -> Verified {
        let trusted = self.keys.get(&seal.key_id).is_some_and(|k| {
            simpairs_events::verify_output(k, seal)
                && seal.stream == place.0
                && u32::try_from(seal.partition) == Ok(place.1)
        });
        if !trusted {
            return Verified::SetAside(format!(
                "a seal of {} (partition {}) is not signed by a declared aggregator (key {:?}): the records it lists are not accepted on its word",
                place.0, place.1, seal.key_id
            ));
        }
        let listed: std::collections::HashSet<&[u8]> =
            seal.hashes.chunks(simpairs_events::DIGEST_LEN).collect();
        let pending = self.pending.entry(place).or_default();
        pending.seals += 1;
        let seals = pending.seals;
        let hashes: Vec<[u8; simpairs_events::DIGEST_LEN]> = {
            use rayon::prelude::*;
            pending
                .records
                .par_iter_mut()
                .with_min_len(64)
                .map(|r| r.hash(seal.hash_function))
                .collect()
        };
        let (accepted, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut pending.records)
            .into_iter()
            .zip(hashes)
            .partition(|(_, hash)| listed.contains(hash.as_slice()));
        let before = waiting.len();
        pending.records = waiting
            .into_iter()
            .map(|(r, _)| r)
            .filter(|r| r.seen + SEALS_TO_WAIT > seals)
            .collect();
        self.set_aside += before - pending.records.len();
        Verified::Accept(accepted.into_iter().map(|(r, _)| r.event).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simpairs_events::types::DeadLettered;

    const STREAM: &str = "E.board-scores";

    fn key() -> PrivateKey {
        PrivateKey::from_secret([5; 32])
    }

    fn verifier() -> Verifier {
        let mut verifier = Verifier::default();
        verifier.set_keys(HashMap::from([(key().public().id(), key().public())]));
        verifier
    }

    /// A derived record: its message (a header, then the datum) and the event.
    fn record(n: i64) -> (Vec<u8>, Event) {
        let event = Event::DeadLettered(DeadLettered {
            event_id: Some("E".into()),
            source_stream: "E.results".into(),
            source_partition: 0,
            source_offset: n,
            reason: format!("record {n}"),
            payload: vec![n as u8; 40],
            at_ms: 0,
        });
        (Codec::new().unwrap().encode(&event), event)
    }

    /// A seal of `function` listing `records`, signed with `key()`.
    fn seal_of(function: HashFunction, records: &[&(Vec<u8>, Event)]) -> Event {
        let hashes = records
            .iter()
            .flat_map(|(m, _)| {
                simpairs_events::record_hash(function, &m[simpairs_events::HEADER_LEN..])
            })
            .collect();
        let mut seal = OutputSealed {
            event_id: "E".into(),
            stream: STREAM.into(),
            partition: 0,
            hashes,
            hash_function: function,
            sealed_at_ms: 0,
            key_id: String::new(),
            signature: Vec::new(),
        };
        simpairs_events::sign_output(&key(), &mut seal);
        Event::OutputSealed(seal)
    }

    fn handle(verifier: &mut Verifier, (message, event): &(Vec<u8>, Event)) -> Verified {
        verifier.handle(STREAM, 0, message, event.clone())
    }

    fn accepted(verified: Verified) -> Vec<Event> {
        match verified {
            Verified::Accept(events) => events,
            other => panic!("not accepted: {other:?}"),
        }
    }

    /// An event whose aggregator was upgraded part-way: SHA-256 seals, then BLAKE3 ones, on one
    /// partition. Every record is accepted under the seal written with it.
    #[test]
    fn seals_of_either_hash_function_vouch_for_their_records() {
        let mut verifier = verifier();
        let records: Vec<_> = (0..4).map(record).collect();
        for (pair, function) in records
            .chunks(2)
            .zip([HashFunction::Sha256, HashFunction::Blake3])
        {
            for r in pair {
                assert!(matches!(handle(&mut verifier, r), Verified::Wait));
            }
            let seal = seal_of(function, &pair.iter().collect::<Vec<_>>());
            let got = accepted(handle(&mut verifier, &(Vec::new(), seal)));
            assert_eq!(got, vec![pair[0].1.clone(), pair[1].1.clone()]);
        }
        assert_eq!((verifier.waiting(), verifier.set_aside), (0, 0));
    }

    /// One append's records listed by two seals of different functions: each seal accepts the
    /// records it lists, whatever the other hashed them with.
    #[test]
    fn records_listed_by_a_later_seal_of_another_function_are_accepted() {
        let mut verifier = verifier();
        let records: Vec<_> = (0..3).map(record).collect();
        for r in &records {
            handle(&mut verifier, r);
        }
        let first = seal_of(HashFunction::Blake3, &[&records[0]]);
        assert_eq!(
            accepted(handle(&mut verifier, &(Vec::new(), first))),
            vec![records[0].1.clone()]
        );
        let second = seal_of(HashFunction::Sha256, &[&records[1], &records[2]]);
        assert_eq!(
            accepted(handle(&mut verifier, &(Vec::new(), second))),
            vec![records[1].1.clone(), records[2].1.clone()]
        );
        assert_eq!((verifier.waiting(), verifier.set_aside), (0, 0));
    }

    /// A seal that lists SHA-256 hashes but says BLAKE3 vouches for nothing: the records wait,
    /// then are set aside.
    #[test]
    fn hashes_of_another_function_than_the_seal_says_vouch_for_nothing() {
        let mut verifier = verifier();
        let r = record(7);
        handle(&mut verifier, &r);
        let Event::OutputSealed(mut seal) = seal_of(HashFunction::Sha256, &[&r]) else {
            unreachable!()
        };
        seal.hash_function = HashFunction::Blake3;
        simpairs_events::sign_output(&key(), &mut seal);
        let wrong = (Vec::new(), Event::OutputSealed(seal));
        assert!(accepted(handle(&mut verifier, &wrong)).is_empty());
        assert!(accepted(handle(&mut verifier, &wrong)).is_empty());
        assert_eq!((verifier.waiting(), verifier.set_aside), (0, 1));
    }
}
