//! What this build of librdkafka can do, and the messages when settings ask for more.

use simpairs_kafka::{KafkaConfig, KafkaLog, SecurityProtocol, builtin_features};

fn has(feature: &str) -> bool {
    builtin_features()
        .unwrap()
        .split(',')
        .any(|f| f.trim() == feature)
}

fn config(protocol: SecurityProtocol, mechanism: Option<&str>) -> KafkaConfig {
    let mut c = KafkaConfig::new(["127.0.0.1:1"]);
    c.security_protocol = Some(protocol);
    c.sasl_mechanism = mechanism.map(str::to_string);
    if mechanism.is_some() {
        c.sasl_username = Some("club".to_string());
        c.sasl_password = Some("secret".to_string());
    }
    c
}

#[test]
fn tls_works_only_with_the_ssl_feature_and_says_so() {
    eprintln!(
        "librdkafka built-in features: {}",
        builtin_features().unwrap()
    );
    assert_eq!(
        has("ssl"),
        cfg!(feature = "ssl"),
        "the `ssl` feature decides TLS"
    );
    for (protocol, mechanism) in [
        (SecurityProtocol::Ssl, None),
        (SecurityProtocol::SaslSsl, Some("PLAIN")),
        (SecurityProtocol::SaslPlaintext, Some("SCRAM-SHA-512")),
        (SecurityProtocol::SaslPlaintext, Some("OAUTHBEARER")),
    ] {
        let result = KafkaLog::connect(config(protocol, mechanism));
        if cfg!(feature = "ssl") {
            result.unwrap_or_else(|e| panic!("{protocol} {mechanism:?}: {e}"));
        } else {
            let text = result.unwrap_err().to_string();
            assert!(text.starts_with("kafka: "), "{text}");
            assert!(
                text.contains("`ssl` feature"),
                "{protocol} {mechanism:?}: {text}"
            );
        }
    }
}

#[test]
fn plain_sasl_and_plaintext_work_in_every_build() {
    KafkaLog::connect(KafkaConfig::new(["127.0.0.1:1"])).unwrap();
    KafkaLog::connect(config(SecurityProtocol::SaslPlaintext, Some("PLAIN"))).unwrap();
    let e = KafkaLog::connect(config(SecurityProtocol::SaslPlaintext, Some("GSSAPI")))
        .unwrap_err()
        .to_string();
    assert!(e.contains("Kerberos"), "{e}");
    let e = KafkaLog::connect(config(SecurityProtocol::SaslPlaintext, Some("MD5")))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a SASL mechanism"), "{e}");
}

#[test]
fn an_unreachable_cluster_is_an_error_with_words_not_a_hang() {
    use std::time::{Duration, Instant};

    use simpairs_log::Log;

    let mut c = KafkaConfig::new(["127.0.0.1:1"]);
    c.request_timeout = Duration::from_secs(1);
    let log = KafkaLog::connect(c).unwrap();
    let started = Instant::now();
    let e = log.partitions("anything").unwrap_err().to_string();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        e.starts_with("kafka: could not read the metadata of topic \"anything\""),
        "{e}"
    );
    assert!(e.contains("127.0.0.1:1"), "names the brokers: {e}");
}
