//! Helpers shared by the Kafka integration tests.
#![allow(dead_code)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use simpairs_kafka::{KafkaConfig, KafkaLog};

/// The message of a test that needs a broker and has none.
pub const NO_BROKER: &str = "SIMPAIRS_KAFKA is not set: start the broker with scripts/broker start";

/// The broker address from `SIMPAIRS_KAFKA`. Without it: under CI (`CI` set) the test fails
/// loudly; elsewhere it says so on stderr and the caller returns early.
pub fn broker() -> Option<String> {
    match std::env::var("SIMPAIRS_KAFKA") {
        Ok(location) if !location.trim().is_empty() => Some(location.trim().to_string()),
        _ => {
            if std::env::var_os("CI").is_some() {
                panic!(
                    "{NO_BROKER} (CI is set, so this test fails instead of passing over); \
                     then export SIMPAIRS_KAFKA=kafka://127.0.0.1:19092"
                );
            }
            eprintln!(
                "\n*** SKIPPED: {NO_BROKER}, then export SIMPAIRS_KAFKA=kafka://127.0.0.1:19092 ***\n"
            );
            None
        }
    }
}

/// A name no other test run uses: `<prefix>-<pid>-<nanoseconds>`.
pub fn unique(prefix: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{prefix}-{}-{nanos:x}", std::process::id())
}

/// A log on the broker of `SIMPAIRS_KAFKA` (settings from the environment too).
pub fn connect(location: &str) -> KafkaLog {
    let mut config = KafkaConfig::from_location_and_env(location).expect("broker settings");
    config.request_timeout = Duration::from_secs(10);
    KafkaLog::connect(config).expect("connect")
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Sends `tracing` output (librdkafka's log included) to the test's output when `RUST_LOG` is set.
pub fn trace() {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
    }
}
