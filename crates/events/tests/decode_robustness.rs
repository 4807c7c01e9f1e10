//! No input makes the decoder panic: arbitrary bytes, known headers with arbitrary data, and
//! damaged versions of real messages all give a value or an error.

use crate::common;

use proptest::prelude::*;
use simpairs_events::{Codec, Error, HEADER_LEN};

fn codec() -> &'static Codec {
    static CODEC: std::sync::OnceLock<Codec> = std::sync::OnceLock::new();
    CODEC.get_or_init(|| Codec::new().unwrap())
}

/// The headers of every schema the codec knows.
fn headers() -> Vec<Vec<u8>> {
    codec()
        .schemas()
        .map(|s| {
            let mut header = vec![0xC3, 0x01];
            header.extend_from_slice(&s.fingerprint().to_le_bytes());
            header
        })
        .collect()
}

/// Every sample message, and the version-1 golden file.
fn messages() -> Vec<Vec<u8>> {
    let mut messages: Vec<Vec<u8>> = common::samples()
        .iter()
        .map(|e| codec().encode(e))
        .collect();
    messages.push(std::fs::read(common::golden_dir().join("v1/ResultRecorded.bin")).unwrap());
    messages
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = codec().decode(&bytes);
    }

    #[test]
    fn known_header_with_arbitrary_datum_never_panics(
        which in any::<prop::sample::Index>(),
        datum in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let headers = headers();
        let mut message = headers[which.index(headers.len())].clone();
        message.extend_from_slice(&datum);
        if let Err(e) = codec().decode(&message) {
            prop_assert!(
                matches!(e, Error::Malformed { .. } | Error::TrailingBytes { .. }),
                "{:?}", e
            );
            prop_assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn damaged_messages_never_panic(
        which in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let messages = messages();
        let mut message = messages[which.index(messages.len())].clone();
        // Damage the datum (a damaged header is an unknown schema, tested above).
        for (at, byte) in edits {
            let i = HEADER_LEN + at.index(message.len() - HEADER_LEN);
            message[i] = byte;
        }
        let _ = codec().decode(&message);
        let _ = codec().decode(&message[..cut.index(message.len() + 1)]);
    }
}

#[test]
fn huge_declared_lengths_are_errors() {
    // A string whose length prefix claims 2^62 bytes, and an array claiming 2^62 items.
    let codec = codec();
    let header = &headers()[0];
    for datum in [
        vec![0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
        vec![
            0x02, b'a', 0x02, b'b', 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F,
        ],
    ] {
        let message = [header.as_slice(), &datum].concat();
        assert!(matches!(
            codec.decode(&message),
            Err(Error::Malformed { .. })
        ));
    }
}
