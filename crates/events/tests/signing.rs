//! Submission digests and signatures.

use crate::common;

use simpairs_events::{
    AMENDMENT_DOMAIN, Codec, Event, HashFunction, PrivateKey, PublicKey, SEAL_DOMAIN,
    SEAL_DOMAIN_BLAKE3, SealWarning, SubmissionSealed, WHOLE_SESSION, amendment_bytes, key_id,
    output_seal_bytes, record_hash, seal_bytes, sign_output, sign_seal, split_message,
    submission_digest, verify_output, verify_seal,
};

fn unhex(text: &str) -> Vec<u8> {
    hex::decode(text).unwrap()
}

/// RFC 8032 section 7.1, test 1: the empty message.
#[test]
fn ed25519_rfc8032_test_1() {
    let secret: [u8; 32] =
        unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
            .try_into()
            .unwrap();
    let key = PrivateKey::from_secret(secret);
    assert_eq!(
        key.public().to_bytes().to_vec(),
        unhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    );
    let signature = key.sign(b"");
    assert_eq!(
        signature.to_vec(),
        unhex(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        )
    );
    assert!(key.public().verify(b"", &signature));
    assert!(!key.public().verify(b"x", &signature));
}

#[test]
fn public_keys_are_checked() {
    assert!(PublicKey::from_bytes(&[1; 31]).is_err());
    let key = PrivateKey::from_secret([3; 32]).public();
    assert_eq!(PublicKey::from_bytes(&key.to_bytes()), Ok(key));
    assert_eq!(key.id(), key_id(&key.to_bytes()));
    assert_eq!(key.id().len(), 13);
}

const SHA256: HashFunction = HashFunction::Sha256;
const BLAKE3: HashFunction = HashFunction::Blake3;

/// BLAKE3 of the bytes 3, 0, 0, 0, `abc`, by Python's `blake3` package.
const BLAKE3_PREFIXED_ABC: &str =
    "f01a5bd3cc2dcc07d73082ef55edc9a9d89a76a1bec1e5e1eb5bb44cdfb02016";
/// BLAKE3 of the reference test vectors' input of 1,025 bytes (`test_vectors.json`).
const BLAKE3_1025: &str = "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444";

#[test]
fn digest_is_the_hash_of_length_prefixed_datums() {
    // SHA-256 of the empty string.
    assert_eq!(
        submission_digest(SHA256, []).to_vec(),
        unhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    );
    // SHA-256("\x03\x00\x00\x00abc") — the 4-byte little-endian length, then the bytes.
    assert_eq!(
        submission_digest(SHA256, [b"abc".as_slice()]).to_vec(),
        unhex("3da9865b43fa2ec490f78da9db16acd5638704dbce5cc7b3df2e3c7a23addf19")
    );
    // BLAKE3 of the empty input (the reference test vectors).
    assert_eq!(
        submission_digest(BLAKE3, []).to_vec(),
        unhex("af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262")
    );
    // BLAKE3("\x03\x00\x00\x00abc"), from Python's `blake3` package.
    assert_eq!(
        submission_digest(BLAKE3, [b"abc".as_slice()]).to_vec(),
        unhex(BLAKE3_PREFIXED_ABC)
    );
}

/// FIPS 180-2, appendix B: one block and two blocks.
#[test]
fn record_hash_is_sha256_or_blake3() {
    assert_eq!(
        record_hash(SHA256, b"abc").to_vec(),
        unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    );
    assert_eq!(
        record_hash(
            SHA256,
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        )
        .to_vec(),
        unhex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    );
    // The reference test vectors: 1,025 bytes of 0, 1, ..., 250, 0, 1, ... (more than a chunk).
    let input: Vec<u8> = (0..1025).map(|i| (i % 251) as u8).collect();
    assert_eq!(record_hash(BLAKE3, &input).to_vec(), unhex(BLAKE3_1025));
    assert_eq!(
        record_hash(BLAKE3, b"abc").to_vec(),
        unhex("6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85")
    );
}

#[test]
fn digest_depends_on_order_and_boundaries() {
    for f in [SHA256, BLAKE3] {
        let a = submission_digest(f, [b"ab".as_slice(), b"c"]);
        assert_ne!(a, submission_digest(f, [b"a".as_slice(), b"bc"]));
        assert_ne!(a, submission_digest(f, [b"c".as_slice(), b"ab"]));
        assert_ne!(a, submission_digest(f, [b"abc".as_slice()]));
        assert_eq!(a, submission_digest(f, [b"ab".as_slice(), b"c"]));
    }
}

/// The digest gathers the datums into runs of 64 KiB before hashing them: whatever the datums'
/// sizes against those runs (many small ones crossing a run's end, one that fills a run exactly
/// with its length, one longer than a run, empty ones), it is the hash of all their prefixed
/// bytes in one piece.
#[test]
fn digest_is_the_hash_of_the_prefixed_bytes_in_one_piece_whatever_the_datums_sizes() {
    const RUN: usize = 64 * 1024;
    let shapes: [Vec<usize>; 6] = [
        vec![300; 500],
        vec![RUN - 4, 300, RUN - 4],
        vec![RUN - 3, 0, 1],
        vec![10, RUN, 10, 2 * RUN + 5, 0],
        vec![RUN - 10, 3, 3, 3, 3],
        vec![0; 7],
    ];
    for sizes in shapes {
        let datums: Vec<Vec<u8>> = sizes
            .iter()
            .enumerate()
            .map(|(k, &n)| (0..n).map(|i| (i * 31 + k * 7) as u8).collect())
            .collect();
        let mut whole = Vec::new();
        for d in &datums {
            whole.extend_from_slice(&(d.len() as u32).to_le_bytes());
            whole.extend_from_slice(d);
        }
        for f in [SHA256, BLAKE3] {
            let digest = submission_digest(f, datums.iter().map(Vec::as_slice));
            assert_eq!(digest, record_hash(f, &whole), "{f:?}, sizes {sizes:?}");
        }
    }
}

fn seal(count: i64, digest: [u8; 32], warnings: Vec<SealWarning>) -> SubmissionSealed {
    SubmissionSealed {
        event_id: common::EVENT_ID.into(),
        club_id: "bristol".into(),
        submission_id: "bristol-2026-11-17-1".into(),
        count,
        digest: digest.to_vec(),
        hash_function: SHA256,
        key_id: String::new(),
        signature: Vec::new(),
        sealed_at_ms: 1_795_400_000_123,
        source: None,
        warnings,
        whole_session: false,
    }
}

fn warning() -> SealWarning {
    SealWarning {
        line: 14,
        field: "ns_score".into(),
        message: "a changed score".into(),
    }
}

#[test]
fn seal_bytes_layout() {
    let digest = [7u8; 32];
    let bytes = seal_bytes(&seal(3, digest, vec![warning()]));
    let mut expected = SEAL_DOMAIN.to_vec();
    let prefixed = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b);
    };
    prefixed(&mut expected, common::EVENT_ID.as_bytes());
    prefixed(&mut expected, b"bristol");
    prefixed(&mut expected, b"bristol-2026-11-17-1");
    expected.extend_from_slice(&3i64.to_le_bytes());
    prefixed(&mut expected, &digest);
    expected.extend_from_slice(&1u32.to_le_bytes());
    expected.extend_from_slice(&14i64.to_le_bytes());
    prefixed(&mut expected, b"ns_score");
    prefixed(&mut expected, b"a changed score");
    assert_eq!(bytes, expected);
    assert_eq!(SEAL_DOMAIN, b"simpairs/SubmissionSealed/v2\0");
    // A BLAKE3 digest is signed under a domain of its own.
    let blake3 = SubmissionSealed {
        hash_function: BLAKE3,
        ..seal(3, digest, vec![warning()])
    };
    let mut expected_blake3 = SEAL_DOMAIN_BLAKE3.to_vec();
    expected_blake3.extend_from_slice(&expected[SEAL_DOMAIN.len()..]);
    assert_eq!(seal_bytes(&blake3), expected_blake3);
    assert_eq!(SEAL_DOMAIN_BLAKE3, b"simpairs/SubmissionSealed/v3/BLAKE3\0");
    // A whole session is marked at the end; a seal without the mark has the bytes it always had.
    let whole = SubmissionSealed {
        whole_session: true,
        ..blake3.clone()
    };
    let mut expected_whole = expected_blake3.clone();
    expected_whole.extend_from_slice(b"whole-session\0");
    assert_eq!(seal_bytes(&whole), expected_whole);
    assert_eq!(WHOLE_SESSION, b"whole-session\0");
    // Moving a byte from one field to the next changes what is signed.
    let mut a = seal(1, digest, Vec::new());
    let mut b = a.clone();
    (a.event_id, a.club_id) = ("ab".into(), "c".into());
    (b.event_id, b.club_id) = ("a".into(), "bc".into());
    assert_ne!(seal_bytes(&a), seal_bytes(&b));
}

/// A submission as a club node would publish it: records, then a signed seal.
fn publish(key: &PrivateKey) -> (Vec<Vec<u8>>, SubmissionSealed) {
    let codec = Codec::new().unwrap();
    let mut result = common::result_recorded();
    result.sequence = 1;
    let mut pair = common::pair_entered();
    pair.sequence = 0;
    let mut batch = common::results_recorded();
    batch.first_sequence = 2;
    let messages: Vec<Vec<u8>> = [
        Event::PairEntered(pair),
        Event::ResultRecorded(result),
        Event::ResultsRecorded(batch),
    ]
    .iter()
    .map(|e| codec.encode(e))
    .collect();
    let digest = submission_digest(
        BLAKE3,
        messages.iter().map(|m| split_message(m).unwrap().datum),
    );
    // 1 pair + 1 result + a batch of 3
    let mut sealed = SubmissionSealed {
        hash_function: BLAKE3,
        ..seal(5, digest, vec![warning()])
    };
    sign_seal(key, &mut sealed);
    (messages, sealed)
}

#[test]
fn a_sealed_submission_verifies_after_the_trip_through_the_wire() {
    let key = PrivateKey::from_secret([1; 32]);
    let (messages, seal) = publish(&key);
    let codec = Codec::new().unwrap();
    // The consumer's side: decode the seal, recompute the digest from the datums received.
    let Event::SubmissionSealed(received) = codec
        .decode(&codec.encode(&Event::SubmissionSealed(seal.clone())))
        .unwrap()
    else {
        panic!("not a seal")
    };
    assert!(verify_seal(&key.public(), &received));
    assert_eq!(received.key_id, key.public().id());
    let digest = submission_digest(
        received.hash_function,
        messages.iter().map(|m| split_message(m).unwrap().datum),
    );
    assert_eq!(digest.as_slice(), received.digest);
}

#[test]
fn forged_or_altered_seals_fail() {
    let key = PrivateKey::from_secret([1; 32]);
    let other = PrivateKey::from_secret([2; 32]).public();
    let (_, seal) = publish(&key);
    let public = key.public();
    assert!(verify_seal(&public, &seal));
    assert!(!verify_seal(&other, &seal), "another club's key");
    type Alter = fn(&mut SubmissionSealed);
    let altered: [(&str, Alter); 11] = [
        ("hash function changed", |s| s.hash_function = SHA256),
        ("flipped signature bit", |s| s.signature[31] ^= 1),
        ("truncated signature", |s| s.signature.truncate(16)),
        ("unsigned", |s| s.signature.clear()),
        ("count changed", |s| s.count += 1),
        ("digest changed", |s| s.digest[0] ^= 0x80),
        ("published for another club", |s| {
            s.club_id = "gwynedd".into()
        }),
        ("submission changed", |s| s.submission_id.push('x')),
        ("a warning dropped", |s| s.warnings.clear()),
        ("a warning changed", |s| s.warnings[0].line += 1),
        ("made a whole session", |s| s.whole_session = true),
    ];
    for (what, alter) in altered {
        let mut forged = seal.clone();
        alter(&mut forged);
        assert!(!verify_seal(&public, &forged), "{what}");
    }
    // Unsigned metadata may change without breaking the signature.
    let mut relabelled = seal.clone();
    relabelled.source = Some("re-sent.csv".into());
    relabelled.sealed_at_ms += 1;
    assert!(verify_seal(&public, &relabelled));
}

/// Pinned against an independent implementation (Python's `cryptography` package signing the
/// documented layout with the key whose secret is the bytes 0..32), so that any change to the
/// canonical seal bytes is noticed.
#[test]
fn seal_signature_vector() {
    let key = PrivateKey::from_secret((0u8..32).collect::<Vec<_>>().try_into().unwrap());
    assert_eq!(key.public().id(), "k56475aa75463");
    let mut sealed = seal(
        42,
        submission_digest(SHA256, [b"abc".as_slice()]),
        vec![warning()],
    );
    sealed.event_id = "SIM-2026-11".into();
    sign_seal(&key, &mut sealed);
    assert_eq!(
        hex::encode(&sealed.signature),
        "ce1e4b3dae578be10013723859c908f2ab1a6373140a74ab4d1229ebd1ecf19252366e4534c43103f722279f9887cf7429b94a2033132056b7413afd15d3870b"
    );
}

/// The same with a BLAKE3 digest: Python's `blake3` and `cryptography` packages signing the
/// documented layout under `simpairs/SubmissionSealed/v3/BLAKE3\0`.
#[test]
fn blake3_seal_signature_vector() {
    let key = PrivateKey::from_secret((0u8..32).collect::<Vec<_>>().try_into().unwrap());
    let mut sealed = SubmissionSealed {
        hash_function: BLAKE3,
        ..seal(
            42,
            submission_digest(BLAKE3, [b"abc".as_slice()]),
            vec![warning()],
        )
    };
    sealed.event_id = "SIM-2026-11".into();
    sign_seal(&key, &mut sealed);
    assert_eq!(
        hex::encode(&sealed.signature),
        "169a54aaa6120196c799fc246e46587f5bbc988586c1b933f6fba42f3f4d803aef8433fe00eeaaf7d42dc7b050ba1a6db145ac095ddacd4f47c101e8c4c80000"
    );
}

#[test]
fn output_seals_verify_with_the_aggregators_key_only() {
    let key = PrivateKey::from_secret([9; 32]);
    let mut sealed = common::output_sealed();
    sign_output(&key, &mut sealed);
    assert!(verify_output(&key.public(), &sealed));
    assert!(!verify_output(
        &PrivateKey::from_secret([8; 32]).public(),
        &sealed
    ));
    let mut moved = sealed.clone();
    moved.hashes[0] ^= 1;
    assert!(
        !verify_output(&key.public(), &moved),
        "a listed hash changed"
    );
    let mut moved = sealed.clone();
    moved.partition += 1;
    assert!(!verify_output(&key.public(), &moved), "another partition");
    let mut moved = sealed.clone();
    moved.hash_function = SHA256;
    assert!(
        !verify_output(&key.public(), &moved),
        "another hash function"
    );
    assert!(output_seal_bytes(&sealed).starts_with(b"simpairs/OutputSealed/v2/BLAKE3\0"));
    assert!(output_seal_bytes(&moved).starts_with(b"simpairs/OutputSealed/v1\0"));
}

/// An amendment written before `hands_from` (version 1) is signed over its datum with an empty
/// signature; read with version 3, the bytes its signature covers are those same bytes, so it
/// still verifies. With the field, the place is signed too; and so with `closed_from`.
#[test]
fn amendment_bytes_are_the_version_1_bytes_until_hand_records_say_where_they_hold_from() {
    let codec = Codec::new().unwrap();
    let golden = std::fs::read(common::golden_dir().join("v1/EventAmended.bin")).unwrap();
    let v1 = split_message(&golden).unwrap().datum;
    // The signature is the last field of version 1: 64 bytes, their length written 0x80 0x01.
    let signature = [&[0x80, 0x01][..], &[0x77; 64]].concat();
    assert!(v1.ends_with(&signature));
    let unsigned_v1 = [&v1[..v1.len() - signature.len()], &[0]].concat();
    assert_eq!(
        amendment_bytes(&codec, &common::event_amended_v1()),
        [AMENDMENT_DOMAIN, &unsigned_v1].concat()
    );
    // Version 2 with a place: the whole version 2 datum, the place included, so it cannot be
    // moved; read with version 3, an amendment that does not close the event signs those same
    // bytes.
    let golden = std::fs::read(common::golden_dir().join("v2/EventAmended.bin")).unwrap();
    let v2 = split_message(&golden).unwrap().datum;
    let (before, after) = v2.split_at(v2.len() - 5);
    let unsigned_v2 = [&before[..before.len() - signature.len()], &[0], after].concat();
    assert_eq!(after, [6, 80, 14, 0, 0]);
    let v2_bytes = amendment_bytes(&codec, &common::event_amended_v2());
    assert_eq!(v2_bytes, [AMENDMENT_DOMAIN, &unsigned_v2].concat());
    // Version 3 closing the event: the whole datum, where it closes from included.
    let amended = common::event_amended();
    let bytes = amendment_bytes(&codec, &amended);
    assert!(bytes.starts_with(&v2_bytes));
    assert!(bytes.ends_with(&[6, 82, 16, 2, 0]));
    let reopened_elsewhere = simpairs_events::types::EventAmended {
        closed_from: vec![41, 8, 2],
        ..amended.clone()
    };
    assert_ne!(amendment_bytes(&codec, &reopened_elsewhere), bytes);
    let moved = simpairs_events::types::EventAmended {
        hands_from: vec![41, 7, 0],
        ..amended.clone()
    };
    assert_ne!(amendment_bytes(&codec, &moved), bytes);
    // The signature is no part of what it signs.
    let resigned = simpairs_events::types::EventAmended {
        signature: vec![1; 64],
        ..amended
    };
    assert_eq!(amendment_bytes(&codec, &resigned), bytes);
}
