//! Derived records vouched for: an aggregator writes what it derives (applied submissions, board
//! scores, clubs' standings, dead letters) with an [`OutputSealed`] in the same append to each
//! partition, listing the SHA-256 of every record's datum and signed with the aggregator's declared
//! key. A reader accepts a derived record only once a seal that verifies lists it
//! ([`Verifier`]); anything else, a record some club or intruder appended, is set aside and
//! counted, and changes nothing.

use std::collections::{BTreeMap, HashMap};

use simpairs_events::types::OutputSealed;
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
    // Hashed in parallel: a batch's output is as large as its input, and SHA-256 without the
    // processor's SHA instructions takes about 3 ns a byte.
    let record_hashes: Vec<[u8; simpairs_events::DIGEST_LEN]> = {
        use rayon::prelude::*;
        encoded
            .par_iter()
            .with_min_len(64)
            .map(|(_, _, message)| {
                let datum = message
                    .get(simpairs_events::HEADER_LEN..)
                    .unwrap_or_default();
                simpairs_events::record_hash(datum)
            })
            .collect()
    };
    let mut placed: Vec<(u32, &[u8], &[u8])> = Vec::with_capacity(encoded.len());
    let mut hashes: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    for ((k, partition, message), hash) in encoded.iter().zip(&record_hashes) {
        let partition = partition.unwrap_or_else(|| simpairs_log::partition_for_key(k, partitions));
        hashes.entry(partition).or_default().extend_from_slice(hash);
        placed.push((partition, k, message));
    }
    let at = now_ms();
    let seals = seals(codec, key, event_id, stream, &hashes, at);
    let mut records: Vec<Produce<'_>> = placed
        .iter()
        .map(|(p, k, v)| Produce::new(k, v, at).to_partition(*p))
        .collect();
    // Each seal has a key of its own: on a compacted stream (Kafka's board scores) a key shared by
    // the seals would keep only the latest one, and the records earlier seals vouched for would
    // never be accepted again by a reader starting from the beginning.
    let seal_keys: Vec<Vec<u8>> = seals.iter().map(|(_, v)| seal_key(event_id, v)).collect();
    records.extend(
        seals
            .iter()
            .zip(&seal_keys)
            .map(|((p, v), k)| Produce::new(k, v, at).to_partition(*p)),
    );
    log.append(stream, &records)?;
    Ok(())
}

/// `<event>/seal/<SHA-256 of the seal's message, in hex>`: unique to the seal (its signature covers
/// its time and hashes).
fn seal_key(event_id: &str, message: &[u8]) -> Vec<u8> {
    let hash = simpairs_events::record_hash(message);
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

/// A partition's records waiting for their seal: (hash, verified seals seen when it arrived,
/// record), and the verified seals seen so far.
#[derive(Debug, Default)]
struct Waiting {
    records: Vec<([u8; 32], u64, Event)>,
    seals: u64,
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
        pending
            .records
            .push((simpairs_events::record_hash(datum), seen, event));
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
        let (accepted, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut pending.records)
            .into_iter()
            .partition(|(hash, _, _)| listed.contains(hash.as_slice()));
        let before = waiting.len();
        pending.records = waiting
            .into_iter()
            .filter(|(_, seen, _)| seen + SEALS_TO_WAIT > seals)
            .collect();
        self.set_aside += before - pending.records.len();
        Verified::Accept(accepted.into_iter().map(|(_, _, e)| e).collect())
    }
}
