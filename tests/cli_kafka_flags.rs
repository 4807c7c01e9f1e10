//! The Kafka client settings given as flags reach the Kafka backend: inconsistent ones are refused
//! before any connection, with the setting named (no broker is needed).

use std::process::Command;

fn simpairs(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_simpairs"))
        .args(args)
        // Only the flags speak: no setting from the environment of the test run.
        .env_remove("SIMPAIRS_KAFKA_SECURITY_PROTOCOL")
        .env_remove("SIMPAIRS_KAFKA_SASL_MECHANISM")
        .env_remove("SIMPAIRS_KAFKA_SASL_USERNAME")
        .env_remove("SIMPAIRS_KAFKA_SASL_PASSWORD")
        .output()
        .expect("simpairs runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sasl_flags_without_a_sasl_protocol_are_refused() {
    let (ok, stderr) = simpairs(&[
        "aggregate",
        "--log",
        "kafka://127.0.0.1:1",
        "--until-idle",
        "--key",
        "aggregator.key",
        "--kafka-sasl-username",
        "federation",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("SASL settings are given but the security protocol is PLAINTEXT"),
        "{stderr}"
    );
}

#[test]
fn a_sasl_protocol_flag_without_a_mechanism_is_refused() {
    let (ok, stderr) = simpairs(&[
        "replay",
        "--log",
        "kafka://127.0.0.1:1",
        "--json",
        "--kafka-security-protocol",
        "SASL_PLAINTEXT",
    ]);
    assert!(!ok);
    assert!(stderr.contains("no SASL mechanism is given"), "{stderr}");
}
