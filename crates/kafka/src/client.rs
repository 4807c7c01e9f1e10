//! librdkafka client settings for each role, the build's feature check, and a tiny `block_on`.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::Duration;

use rdkafka::ClientConfig;

use crate::Result;
use crate::config::{ENV_SASL_MECHANISM, ENV_SECURITY_PROTOCOL, KafkaConfig};
use crate::error::{backend, describe};

/// Settings this crate's guarantees rest on. They are applied after
/// [`KafkaConfig::properties`], so a property cannot change them.
pub const FIXED_PRODUCER_SETTINGS: [(&str, &str); 3] = [
    ("enable.idempotence", "true"),
    ("acks", "all"),
    ("partitioner", "murmur2_random"),
];

/// Settings of group consumers that cannot be overridden (offsets are stored only by
/// [`Consumer::commit`](simpairs_log::Consumer::commit)).
pub const FIXED_CONSUMER_SETTINGS: [(&str, &str); 3] = [
    ("enable.auto.commit", "false"),
    ("enable.auto.offset.store", "false"),
    ("enable.partition.eof", "true"),
];

/// The producer's `linger.ms` unless a property says otherwise: a few milliseconds let one
/// append's records travel in few requests. Measured through Tansu on a million results
/// (docs/benchmarks.md, 2026-11-27): 0, 5 and 20 ms publish and ingest alike, and lz4 compression
/// cost the broker more CPU for no gain, so the defaults stay.
const DEFAULT_LINGER_MS: &str = "5";

/// How long a group member may go silent before the group gives its partitions to the others.
const GROUP_SESSION_TIMEOUT_MS: &str = "10000";

/// How long a group consumer's fetch may wait at the broker for new records
/// (`fetch.wait.max.ms`, librdkafka's default is 500). Tansu 0.6 holds every fetch this long,
/// even when it has records, so this bounds both latency and throughput there.
const GROUP_FETCH_WAIT_MS: &str = "100";
/// The same for `read`, which mostly fetches records it knows exist.
const READER_FETCH_WAIT_MS: &str = "50";
/// How much `read`'s consumer fetches ahead of a scan (`queued.max.messages.kbytes`).
const READER_QUEUE_KBYTES: &str = "16384";

/// Longest pause between reconnection attempts to a broker (`reconnect.backoff.max.ms`).
/// librdkafka's default, 10 s, keeps a client away for up to 10 s after a broker restart; the
/// Java client's is 1 s.
const RECONNECT_BACKOFF_MAX_MS: &str = "2000";

/// Which client a configuration is for.
pub(crate) enum Role<'a> {
    /// The producer of appends; transactional when it has an id.
    Producer { transactional_id: Option<&'a str> },
    /// A consumer in a group.
    Group { group: &'a str },
    /// The group-less consumer of `read`.
    Reader,
    /// Admin requests and metadata.
    Admin,
}

/// The librdkafka configuration of a client in `role`.
pub(crate) fn client_config(config: &KafkaConfig, role: Role<'_>) -> Result<ClientConfig> {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", config.bootstrap_servers());
    c.set("client.id", &config.client_id);
    // A topic is made by `create_stream` only, never as a side effect of a metadata request.
    c.set("allow.auto.create.topics", "false");
    c.set("reconnect.backoff.max.ms", RECONNECT_BACKOFF_MAX_MS);
    if let Some(p) = config.security_protocol {
        c.set("security.protocol", p.as_str());
    }
    if let Some(m) = &config.sasl_mechanism {
        c.set("sasl.mechanism", m);
    }
    if let Some(u) = &config.sasl_username {
        c.set("sasl.username", u);
    }
    if let Some(p) = &config.sasl_password {
        c.set("sasl.password", p);
    }
    for (key, path) in [
        ("ssl.ca.location", &config.ssl_ca_location),
        ("ssl.certificate.location", &config.ssl_certificate_location),
        ("ssl.key.location", &config.ssl_key_location),
    ] {
        if let Some(path) = path {
            c.set(key, path.to_string_lossy());
        }
    }
    let ms = |d: Duration| d.as_millis().clamp(1, i32::MAX as u128).to_string();
    match role {
        Role::Producer { .. } => {
            c.set("linger.ms", DEFAULT_LINGER_MS);
        }
        Role::Group { .. } => {
            c.set("auto.offset.reset", "earliest");
            c.set("isolation.level", "read_committed");
            c.set("fetch.wait.max.ms", GROUP_FETCH_WAIT_MS);
            // A member that stopped is noticed in 10 s instead of librdkafka's 45 s: an aggregator
            // that dies hands its boards over quickly (a property may set another value).
            c.set("session.timeout.ms", GROUP_SESSION_TIMEOUT_MS);
        }
        Role::Reader => {
            c.set("isolation.level", "read_committed");
        }
        Role::Admin => {}
    }
    for (key, value) in &config.properties {
        c.set(key, value);
    }
    match role {
        Role::Producer { transactional_id } => {
            for (key, value) in FIXED_PRODUCER_SETTINGS {
                c.set(key, value);
            }
            c.set("message.timeout.ms", ms(config.message_timeout));
            if let Some(id) = transactional_id {
                c.set("transactional.id", id);
                // librdkafka requires message.timeout.ms <= transaction.timeout.ms.
                let txn = config.message_timeout.max(Duration::from_secs(60));
                c.set("transaction.timeout.ms", ms(txn));
            }
        }
        Role::Group { group } => {
            c.set("group.id", group);
            for (key, value) in FIXED_CONSUMER_SETTINGS {
                c.set(key, value);
            }
        }
        Role::Reader => {
            // librdkafka's `assign` needs a group id; the reader never joins the group (it does
            // not subscribe) and never commits, so the group stays empty.
            c.set("group.id", format!("{}-reader", config.client_id));
            for (key, value) in FIXED_CONSUMER_SETTINGS {
                c.set(key, value);
            }
            // A read names its offset; one outside the partition is an error, not a jump.
            c.set("auto.offset.reset", "error");
            c.set("fetch.wait.max.ms", READER_FETCH_WAIT_MS);
            c.set("queued.max.messages.kbytes", READER_QUEUE_KBYTES);
        }
        Role::Admin => {}
    }
    Ok(c)
}

/// Fails with words when the settings ask for something this build of librdkafka cannot do
/// (TLS or SCRAM without the `ssl` feature, Kerberos).
pub(crate) fn check_build_supports(config: &KafkaConfig) -> Result<()> {
    let features = builtin_features()?;
    let has = |f: &str| features.split(',').any(|x| x.trim() == f);
    let protocol = config.security_protocol.unwrap_or_default();
    if protocol.uses_tls() && !has("ssl") {
        return Err(backend(format!(
            "{ENV_SECURITY_PROTOCOL}={protocol} needs TLS, but this build has no TLS support: \
             rebuild with the `ssl` feature of simpairs-kafka (cargo build --features \
             simpairs-kafka/ssl; needs libssl-dev to build and libssl3 to run)"
        )));
    }
    if let Some(mechanism) = &config.sasl_mechanism {
        let upper = mechanism.to_ascii_uppercase();
        let needed = match upper.as_str() {
            "PLAIN" => "sasl_plain",
            "SCRAM-SHA-256" | "SCRAM-SHA-512" => "sasl_scram",
            "OAUTHBEARER" => "sasl_oauthbearer",
            "GSSAPI" => "sasl_gssapi",
            _ => {
                return Err(backend(format!(
                    "{ENV_SASL_MECHANISM}={mechanism:?} is not a SASL mechanism librdkafka knows: \
                     use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER"
                )));
            }
        };
        if !has(needed) {
            let how = match needed {
                "sasl_scram" | "sasl_oauthbearer" => {
                    "it needs OpenSSL: rebuild with the `ssl` feature of simpairs-kafka \
                     (needs libssl-dev)"
                }
                "sasl_gssapi" => {
                    "Kerberos (GSSAPI) is not supported by simpairs; use SCRAM or PLAIN over SASL_SSL"
                }
                _ => "rebuild librdkafka with it",
            };
            return Err(backend(format!(
                "SASL mechanism {upper} is not in this build of librdkafka (it has: {features}); {how}"
            )));
        }
    }
    Ok(())
}

/// librdkafka's `builtin.features` of this build, e.g. `gzip,snappy,sasl,regex,lz4,...`.
pub fn builtin_features() -> Result<String> {
    ClientConfig::new()
        .create_native_config()
        .and_then(|c| c.get("builtin.features"))
        .map_err(|e| {
            backend(format!(
                "could not read librdkafka's built-in features: {}",
                describe(&e)
            ))
        })
}

/// Runs a future to completion on this thread. rdkafka's admin futures are completed by
/// rdkafka's own thread, so no runtime is needed (and none is nested inside a caller's).
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        thread::park();
    }
}
