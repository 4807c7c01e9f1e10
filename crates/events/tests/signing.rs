//! Submission digests and seal signatures.

mod common;

use simpairs_events::{
    Codec, Event, SEAL_DOMAIN, SubmissionSealed, hmac_sha256, seal_bytes, seal_signature,
    split_message, submission_digest, verify_seal,
};

fn unhex(text: &str) -> Vec<u8> {
    hex::decode(text).unwrap()
}

/// RFC 4231 section 4.2, test case 1.
#[test]
fn hmac_sha256_rfc4231_test_case_1() {
    let key = [0x0b; 20];
    assert_eq!(
        hmac_sha256(&key, b"Hi There").to_vec(),
        unhex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    );
}

/// RFC 4231 section 4.3, test case 2 (a key shorter than the output).
#[test]
fn hmac_sha256_rfc4231_test_case_2() {
    assert_eq!(
        hmac_sha256(b"Jefe", b"what do ya want for nothing?").to_vec(),
        unhex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    );
}

/// RFC 4231 section 4.7, test case 6 (a key longer than the block, hashed first).
#[test]
fn hmac_sha256_rfc4231_test_case_6() {
    assert_eq!(
        hmac_sha256(
            &[0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First"
        )
        .to_vec(),
        unhex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    );
}

#[test]
fn digest_is_sha256_of_length_prefixed_datums() {
    // SHA-256 of the empty string.
    assert_eq!(
        submission_digest([]).to_vec(),
        unhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    );
    // SHA-256("\x03\x00\x00\x00abc") — the 4-byte little-endian length, then the bytes.
    assert_eq!(
        submission_digest([b"abc".as_slice()]).to_vec(),
        unhex("3da9865b43fa2ec490f78da9db16acd5638704dbce5cc7b3df2e3c7a23addf19")
    );
}

#[test]
fn digest_depends_on_order_and_boundaries() {
    let a = submission_digest([b"ab".as_slice(), b"c"]);
    assert_ne!(a, submission_digest([b"a".as_slice(), b"bc"]));
    assert_ne!(a, submission_digest([b"c".as_slice(), b"ab"]));
    assert_ne!(a, submission_digest([b"abc".as_slice()]));
    assert_eq!(a, submission_digest([b"ab".as_slice(), b"c"]));
}

#[test]
fn seal_bytes_layout() {
    let digest = [7u8; 32];
    let bytes = seal_bytes("E", "club", "s1", 3, &digest);
    let mut expected = SEAL_DOMAIN.to_vec();
    expected.extend_from_slice(&[1, 0, 0, 0, b'E']);
    expected.extend_from_slice(&[4, 0, 0, 0, b'c', b'l', b'u', b'b']);
    expected.extend_from_slice(&[2, 0, 0, 0, b's', b'1']);
    expected.extend_from_slice(&3i64.to_le_bytes());
    expected.extend_from_slice(&[32, 0, 0, 0]);
    expected.extend_from_slice(&digest);
    assert_eq!(bytes, expected);
    assert_eq!(SEAL_DOMAIN, b"simpairs/SubmissionSealed/v1\0");
    // Moving a byte from one field to the next changes what is signed.
    assert_ne!(
        seal_bytes("ab", "c", "s", 1, &digest),
        seal_bytes("a", "bc", "s", 1, &digest)
    );
}

/// A submission as a club node would publish it: records, then a signed seal.
fn publish(key: &[u8]) -> (Vec<Vec<u8>>, SubmissionSealed) {
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
    let digest = submission_digest(messages.iter().map(|m| split_message(m).unwrap().1));
    let (event_id, club_id, submission_id) = (
        common::EVENT_ID.to_string(),
        "bristol".to_string(),
        "bristol-2026-11-17-1".to_string(),
    );
    let count = 5; // 1 pair + 1 result + a batch of 3
    let signature = seal_signature(key, &event_id, &club_id, &submission_id, count, &digest);
    let seal = SubmissionSealed {
        event_id,
        club_id,
        submission_id,
        count,
        digest: digest.to_vec(),
        key_id: "bristol-2026".into(),
        signature: signature.to_vec(),
        sealed_at_ms: 1_795_400_000_123,
        source: None,
    };
    (messages, seal)
}

#[test]
fn a_sealed_submission_verifies_after_the_trip_through_the_wire() {
    let key = common::event_declared().clubs[0].hmac_key.clone();
    let (messages, seal) = publish(&key);
    let codec = Codec::new().unwrap();
    // The consumer's side: decode the seal, recompute the digest from the datums received.
    let Event::SubmissionSealed(received) = codec
        .decode(&codec.encode(&Event::SubmissionSealed(seal.clone())))
        .unwrap()
    else {
        panic!("not a seal")
    };
    assert!(verify_seal(&key, &received));
    let digest = submission_digest(messages.iter().map(|m| split_message(m).unwrap().1));
    assert_eq!(digest.as_slice(), received.digest);
}

#[test]
fn forged_or_altered_seals_fail() {
    let key = common::event_declared().clubs[0].hmac_key.clone();
    let other_key = common::event_declared().clubs[1].hmac_key.clone();
    let (_, seal) = publish(&key);
    assert!(verify_seal(&key, &seal));
    assert!(!verify_seal(&other_key, &seal), "another club's key");
    assert!(!verify_seal(b"", &seal), "empty key");

    let mut forged = seal.clone();
    forged.signature[31] ^= 1;
    assert!(!verify_seal(&key, &forged), "flipped signature bit");

    let mut forged = seal.clone();
    forged.signature.truncate(16);
    assert!(!verify_seal(&key, &forged), "truncated signature");

    let mut forged = seal.clone();
    forged.signature.clear();
    assert!(!verify_seal(&key, &forged), "unsigned");

    let mut forged = seal.clone();
    forged.count += 1;
    assert!(!verify_seal(&key, &forged), "count changed");

    let mut forged = seal.clone();
    forged.digest[0] ^= 0x80;
    assert!(!verify_seal(&key, &forged), "digest changed");

    let mut forged = seal.clone();
    forged.club_id = "gwynedd".into();
    assert!(!verify_seal(&key, &forged), "published for another club");

    let mut forged = seal.clone();
    forged.submission_id.push('x');
    assert!(!verify_seal(&key, &forged), "submission changed");

    // Unsigned metadata may change without breaking the signature.
    let mut relabelled = seal.clone();
    relabelled.source = Some("re-sent.csv".into());
    relabelled.sealed_at_ms += 1;
    assert!(verify_seal(&key, &relabelled));
}

#[test]
fn seal_signature_vector() {
    // Computed independently (Python hashlib/hmac over the documented layout) and pinned, so
    // that any change to the canonical seal bytes is noticed.
    let signature = seal_signature(
        &(0u8..32).collect::<Vec<_>>(),
        "SIM-2026-11",
        "bristol",
        "bristol-2026-11-17-1",
        42,
        &submission_digest([b"abc".as_slice()]),
    );
    assert_eq!(
        hex::encode(signature),
        "bab2a3310fdc9d13cf053e183293bc24db760692cd22a75bf09f07b719c5e2f3"
    );
}
