//! Connection settings: [`KafkaConfig`], read from a `kafka://` location and the environment.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use crate::Result;
use crate::error::backend;

/// Environment variable: `PLAINTEXT` (default), `SSL`, `SASL_PLAINTEXT` or `SASL_SSL`.
pub const ENV_SECURITY_PROTOCOL: &str = "SIMPAIRS_KAFKA_SECURITY_PROTOCOL";
/// Environment variable: the SASL mechanism, `PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512` or `OAUTHBEARER`.
pub const ENV_SASL_MECHANISM: &str = "SIMPAIRS_KAFKA_SASL_MECHANISM";
/// Environment variable: the SASL user name.
pub const ENV_SASL_USERNAME: &str = "SIMPAIRS_KAFKA_SASL_USERNAME";
/// Environment variable: the SASL password (never printed).
pub const ENV_SASL_PASSWORD: &str = "SIMPAIRS_KAFKA_SASL_PASSWORD";
/// Environment variable: a PEM file of the certificate authorities to trust.
pub const ENV_SSL_CA: &str = "SIMPAIRS_KAFKA_SSL_CA";
/// Environment variable: this client's PEM certificate (mutual TLS).
pub const ENV_SSL_CERT: &str = "SIMPAIRS_KAFKA_SSL_CERT";
/// Environment variable: this client's PEM private key (mutual TLS).
pub const ENV_SSL_KEY: &str = "SIMPAIRS_KAFKA_SSL_KEY";
/// Environment variable: the client id the brokers see (default `simpairs`).
pub const ENV_CLIENT_ID: &str = "SIMPAIRS_KAFKA_CLIENT_ID";
/// Environment variable: extra librdkafka properties, `key=value` pairs separated by commas
/// (write `\,` for a comma inside a value).
pub const ENV_PROPERTIES: &str = "SIMPAIRS_KAFKA_PROPERTIES";
/// Environment variable: the replication factor of the topics `create_stream` makes (default 1).
pub const ENV_REPLICATION_FACTOR: &str = "SIMPAIRS_KAFKA_REPLICATION_FACTOR";
/// Environment variable: `auto` (default), `off` or `required`; see [`Transactions`].
pub const ENV_TRANSACTIONS: &str = "SIMPAIRS_KAFKA_TRANSACTIONS";
/// Environment variable: how long an append waits for the brokers to acknowledge, in
/// milliseconds (default 30000).
pub const ENV_MESSAGE_TIMEOUT_MS: &str = "SIMPAIRS_KAFKA_MESSAGE_TIMEOUT_MS";

/// Every environment variable [`KafkaConfig::from_location_and_env`] reads.
pub const ENV_VARS: [&str; 12] = [
    ENV_SECURITY_PROTOCOL,
    ENV_SASL_MECHANISM,
    ENV_SASL_USERNAME,
    ENV_SASL_PASSWORD,
    ENV_SSL_CA,
    ENV_SSL_CERT,
    ENV_SSL_KEY,
    ENV_CLIENT_ID,
    ENV_PROPERTIES,
    ENV_REPLICATION_FACTOR,
    ENV_TRANSACTIONS,
    ENV_MESSAGE_TIMEOUT_MS,
];

/// The port a broker address without one gets.
pub const DEFAULT_PORT: u16 = 9092;
/// The default client id.
pub const DEFAULT_CLIENT_ID: &str = "simpairs";
/// How long an append waits for the brokers by default (librdkafka `message.timeout.ms`).
pub const DEFAULT_MESSAGE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long an admin, metadata or offset request waits by default.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a consumer's poll may wait past its timeout for the group join and the first fetches.
pub const DEFAULT_CATCH_UP_TIMEOUT: Duration = Duration::from_secs(30);

/// How the brokers are reached (librdkafka `security.protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SecurityProtocol {
    /// No TLS, no authentication.
    #[default]
    Plaintext,
    /// TLS (needs the `ssl` feature).
    Ssl,
    /// SASL authentication without TLS.
    SaslPlaintext,
    /// SASL authentication over TLS (needs the `ssl` feature).
    SaslSsl,
}

impl SecurityProtocol {
    /// The name librdkafka and Kafka use: `PLAINTEXT`, `SSL`, `SASL_PLAINTEXT`, `SASL_SSL`.
    pub fn as_str(self) -> &'static str {
        match self {
            SecurityProtocol::Plaintext => "PLAINTEXT",
            SecurityProtocol::Ssl => "SSL",
            SecurityProtocol::SaslPlaintext => "SASL_PLAINTEXT",
            SecurityProtocol::SaslSsl => "SASL_SSL",
        }
    }

    /// Whether the connection is encrypted with TLS.
    pub(crate) fn uses_tls(self) -> bool {
        matches!(self, SecurityProtocol::Ssl | SecurityProtocol::SaslSsl)
    }

    /// Whether the client authenticates with SASL.
    pub(crate) fn uses_sasl(self) -> bool {
        matches!(
            self,
            SecurityProtocol::SaslPlaintext | SecurityProtocol::SaslSsl
        )
    }
}

impl fmt::Display for SecurityProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SecurityProtocol {
    type Err = simpairs_log::Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_uppercase().replace('-', "_").as_str() {
            "PLAINTEXT" => Ok(SecurityProtocol::Plaintext),
            "SSL" => Ok(SecurityProtocol::Ssl),
            "SASL_PLAINTEXT" => Ok(SecurityProtocol::SaslPlaintext),
            "SASL_SSL" => Ok(SecurityProtocol::SaslSsl),
            _ => Err(backend(format!(
                "unknown security protocol {s:?}: use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"
            ))),
        }
    }
}

/// Whether appends use Kafka transactions. See the crate page for what each mode guarantees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Transactions {
    /// Never: every append goes through the idempotent producer.
    Off,
    /// Use them when the brokers support them (probed once, at the first append); otherwise
    /// fall back to the idempotent producer with a log line saying so. Tansu 0.6 does not.
    #[default]
    Auto,
    /// Always: appends fail with an error saying so when the brokers do not support them.
    Required,
}

impl fmt::Display for Transactions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Transactions::Off => "off",
            Transactions::Auto => "auto",
            Transactions::Required => "required",
        })
    }
}

impl FromStr for Transactions {
    type Err = simpairs_log::Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "no" | "false" | "never" => Ok(Transactions::Off),
            "auto" => Ok(Transactions::Auto),
            "required" | "on" | "yes" | "true" | "always" => Ok(Transactions::Required),
            _ => Err(backend(format!(
                "{ENV_TRANSACTIONS}={s:?}: use auto, off or required"
            ))),
        }
    }
}

/// Everything needed to reach a Kafka cluster, and how this crate uses it.
///
/// Build it with [`KafkaConfig::new`] or from a `kafka://host:port[,host:port]` location and the
/// environment ([`KafkaConfig::from_location_and_env`]); then change fields as needed. `Debug`
/// never shows the password or any `*password*`/`*secret*` property.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KafkaConfig {
    /// Bootstrap brokers, each `host:port`.
    pub brokers: Vec<String>,
    /// The client id the brokers see (`client.id`).
    pub client_id: String,
    /// `security.protocol`; `None` is librdkafka's default, `PLAINTEXT`.
    pub security_protocol: Option<SecurityProtocol>,
    /// `sasl.mechanism`, e.g. `PLAIN` or `SCRAM-SHA-512`.
    pub sasl_mechanism: Option<String>,
    /// `sasl.username`.
    pub sasl_username: Option<String>,
    /// `sasl.password`.
    pub sasl_password: Option<String>,
    /// `ssl.ca.location`: PEM file of trusted certificate authorities.
    pub ssl_ca_location: Option<PathBuf>,
    /// `ssl.certificate.location`: this client's certificate.
    pub ssl_certificate_location: Option<PathBuf>,
    /// `ssl.key.location`: this client's private key.
    pub ssl_key_location: Option<PathBuf>,
    /// Extra librdkafka properties given to every client (producer, consumers, admin), applied
    /// after this crate's defaults and before the settings its guarantees rest on (see the crate
    /// page), which cannot be overridden.
    pub properties: Vec<(String, String)>,
    /// Replication factor of the topics [`create_stream`](simpairs_log::Log::create_stream) makes.
    pub replication_factor: i32,
    /// Whether appends use transactions.
    pub transactions: Transactions,
    /// The `transactional.id` of the transactional producer. `None`: a unique id per
    /// [`KafkaLog`](crate::KafkaLog) (atomic appends, no fencing of an older instance of the
    /// same process). Give a stable id per replica (e.g. a StatefulSet pod name) to fence zombies.
    pub transactional_id: Option<String>,
    /// How long an append waits for the brokers to acknowledge its records before failing
    /// (`message.timeout.ms`; retries happen within it).
    pub message_timeout: Duration,
    /// How long an admin, metadata, offset or commit request may take.
    pub request_timeout: Duration,
    /// How long a consumer's poll may wait beyond its own timeout while the group join or the
    /// first fetch of an assigned partition is still pending (see [`KafkaConsumer`](crate::KafkaConsumer)).
    pub catch_up_timeout: Duration,
}

impl KafkaConfig {
    /// Settings for these bootstrap brokers (`host:port`), with every default.
    pub fn new<I, S>(brokers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        KafkaConfig {
            brokers: brokers.into_iter().map(Into::into).collect(),
            client_id: DEFAULT_CLIENT_ID.to_string(),
            security_protocol: None,
            sasl_mechanism: None,
            sasl_username: None,
            sasl_password: None,
            ssl_ca_location: None,
            ssl_certificate_location: None,
            ssl_key_location: None,
            properties: Vec::new(),
            replication_factor: 1,
            transactions: Transactions::default(),
            transactional_id: None,
            message_timeout: DEFAULT_MESSAGE_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            catch_up_timeout: DEFAULT_CATCH_UP_TIMEOUT,
        }
    }

    /// Settings from a `kafka://host:port[,host:port]` location alone (no environment). A broker
    /// without a port gets 9092; a trailing `/` is ignored.
    pub fn from_location(location: &str) -> Result<Self> {
        Ok(KafkaConfig::new(parse_location(location)?))
    }

    /// Settings from a `kafka://` location and the `SIMPAIRS_KAFKA_*` environment variables
    /// ([`ENV_VARS`]; the crate page lists them).
    pub fn from_location_and_env(location: &str) -> Result<Self> {
        KafkaConfig::from_location_and_vars(location, |name| std::env::var(name).ok())
    }

    /// As [`KafkaConfig::from_location_and_env`], with the variables looked up through `var`
    /// (for tests and for callers that keep settings elsewhere). Empty values count as unset.
    pub fn from_location_and_vars(
        location: &str,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Self> {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let mut config = KafkaConfig::from_location(location)?;
        if let Some(v) = var(ENV_SECURITY_PROTOCOL) {
            config.security_protocol = Some(
                v.parse()
                    .map_err(|e| backend(format!("{ENV_SECURITY_PROTOCOL}: {}", message(e))))?,
            );
        }
        config.sasl_mechanism = var(ENV_SASL_MECHANISM).map(|v| v.trim().to_string());
        config.sasl_username = var(ENV_SASL_USERNAME);
        config.sasl_password = var(ENV_SASL_PASSWORD);
        config.ssl_ca_location = var(ENV_SSL_CA).map(PathBuf::from);
        config.ssl_certificate_location = var(ENV_SSL_CERT).map(PathBuf::from);
        config.ssl_key_location = var(ENV_SSL_KEY).map(PathBuf::from);
        if let Some(v) = var(ENV_CLIENT_ID) {
            config.client_id = v.trim().to_string();
        }
        if let Some(v) = var(ENV_PROPERTIES) {
            config.properties = parse_properties(&v)?;
        }
        if let Some(v) = var(ENV_REPLICATION_FACTOR) {
            config.replication_factor = v
                .trim()
                .parse::<i32>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| {
                    backend(format!(
                        "{ENV_REPLICATION_FACTOR}={v:?} must be a whole number of at least 1"
                    ))
                })?;
        }
        if let Some(v) = var(ENV_TRANSACTIONS) {
            config.transactions = v.parse()?;
        }
        if let Some(v) = var(ENV_MESSAGE_TIMEOUT_MS) {
            let ms = v
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| {
                    backend(format!(
                        "{ENV_MESSAGE_TIMEOUT_MS}={v:?} must be a number of milliseconds"
                    ))
                })?;
            config.message_timeout = Duration::from_millis(ms);
        }
        config.validate()?;
        Ok(config)
    }

    /// The brokers as librdkafka's `bootstrap.servers`.
    pub fn bootstrap_servers(&self) -> String {
        self.brokers.join(",")
    }

    /// The location these settings were read from: `kafka://host:port[,host:port]`.
    pub fn location(&self) -> String {
        format!("kafka://{}", self.bootstrap_servers())
    }

    /// Checks that the settings make sense together (the security settings match the protocol).
    /// Whether this build can do TLS or SCRAM is checked when connecting.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.brokers.is_empty() {
            return Err(backend(
                "no brokers given: use a location such as kafka://127.0.0.1:9092",
            ));
        }
        if self.client_id.is_empty() {
            return Err(backend("the client id is empty"));
        }
        if self.replication_factor < 1 {
            return Err(backend(format!(
                "replication factor {} must be at least 1",
                self.replication_factor
            )));
        }
        let protocol = self.security_protocol.unwrap_or_default();
        let sasl_given = self.sasl_mechanism.is_some()
            || self.sasl_username.is_some()
            || self.sasl_password.is_some();
        if sasl_given && !protocol.uses_sasl() {
            return Err(backend(format!(
                "SASL settings are given but the security protocol is {protocol}: set \
                 {ENV_SECURITY_PROTOCOL}=SASL_SSL (or SASL_PLAINTEXT)"
            )));
        }
        if protocol.uses_sasl() && self.sasl_mechanism.is_none() {
            return Err(backend(format!(
                "the security protocol is {protocol} but no SASL mechanism is given: set \
                 {ENV_SASL_MECHANISM} (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER)"
            )));
        }
        if let Some(mechanism) = &self.sasl_mechanism {
            let upper = mechanism.to_ascii_uppercase();
            if (upper == "PLAIN" || upper.starts_with("SCRAM-"))
                && (self.sasl_username.is_none() || self.sasl_password.is_none())
            {
                return Err(backend(format!(
                    "SASL {upper} needs a user name and a password: set {ENV_SASL_USERNAME} and {ENV_SASL_PASSWORD}"
                )));
            }
        }
        let tls_files = self.ssl_ca_location.is_some()
            || self.ssl_certificate_location.is_some()
            || self.ssl_key_location.is_some();
        if tls_files && !protocol.uses_tls() {
            return Err(backend(format!(
                "TLS files are given but the security protocol is {protocol}: set \
                 {ENV_SECURITY_PROTOCOL}=SSL (or SASL_SSL)"
            )));
        }
        if self.ssl_certificate_location.is_some() != self.ssl_key_location.is_some() {
            return Err(backend(format!(
                "a client certificate needs its key and the other way round: set both {ENV_SSL_CERT} and {ENV_SSL_KEY}"
            )));
        }
        Ok(())
    }
}

impl fmt::Debug for KafkaConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let properties: Vec<(&str, &str)> = self
            .properties
            .iter()
            .map(|(k, v)| (k.as_str(), if is_secret(k) { "<hidden>" } else { v }))
            .collect();
        f.debug_struct("KafkaConfig")
            .field("brokers", &self.brokers)
            .field("client_id", &self.client_id)
            .field("security_protocol", &self.security_protocol)
            .field("sasl_mechanism", &self.sasl_mechanism)
            .field("sasl_username", &self.sasl_username)
            .field(
                "sasl_password",
                &self.sasl_password.as_ref().map(|_| "<hidden>"),
            )
            .field("ssl_ca_location", &self.ssl_ca_location)
            .field("ssl_certificate_location", &self.ssl_certificate_location)
            .field("ssl_key_location", &self.ssl_key_location)
            .field("properties", &properties)
            .field("replication_factor", &self.replication_factor)
            .field("transactions", &self.transactions)
            .field("transactional_id", &self.transactional_id)
            .field("message_timeout", &self.message_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("catch_up_timeout", &self.catch_up_timeout)
            .finish()
    }
}

/// Whether a librdkafka property holds a secret that must never be printed.
pub(crate) fn is_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.contains("password") || key.contains("secret") || key == "sasl.oauthbearer.config"
}

fn message(e: simpairs_log::Error) -> String {
    match e {
        simpairs_log::Error::Backend { message, .. } => message,
        other => other.to_string(),
    }
}

/// The brokers of a `kafka://host:port[,host:port]` location.
fn parse_location(location: &str) -> Result<Vec<String>> {
    let rest = location.trim().strip_prefix("kafka://").ok_or_else(|| {
        backend(format!(
            "{location:?} is not a Kafka location: write kafka://host:port[,host:port]"
        ))
    })?;
    let rest = rest.trim_end_matches('/');
    if rest.contains(['/', '?', '#', '@']) {
        return Err(backend(format!(
            "{location:?}: a Kafka location is only brokers, as in kafka://host:port[,host:port]; \
             give credentials and other settings through the {ENV_PROPERTIES} and other SIMPAIRS_KAFKA_* variables"
        )));
    }
    let mut brokers = Vec::new();
    for broker in rest.split(',') {
        let broker = broker.trim();
        if broker.is_empty() {
            return Err(backend(format!(
                "{location:?}: an empty broker address; write kafka://host:port[,host:port]"
            )));
        }
        brokers.push(with_port(broker).ok_or_else(|| {
            backend(format!(
                "{location:?}: {broker:?} is not host:port (the port must be a number from 1 to 65535)"
            ))
        })?);
    }
    Ok(brokers)
}

/// `host:port`, adding the default port when there is none; `None` for a bad port.
fn with_port(broker: &str) -> Option<String> {
    // `[v6]:port`, `[v6]`, `host:port`, `host`.
    let (host, port) = if let Some(rest) = broker.strip_prefix('[') {
        let (v6, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (format!("[{v6}]"), port)
    } else {
        match broker.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (h.to_string(), Some(p)),
            Some(_) => return None, // a bare IPv6 address needs brackets
            None => (broker.to_string(), None),
        }
    };
    if host.is_empty() || host == "[]" {
        return None;
    }
    let port = match port {
        None => DEFAULT_PORT,
        Some(p) => p.parse::<u16>().ok().filter(|&p| p > 0)?,
    };
    Some(format!("{host}:{port}"))
}

/// `key=value` pairs separated by commas; `\,` is a comma inside a value, `\\` a backslash.
pub fn parse_properties(text: &str) -> Result<Vec<(String, String)>> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next @ (',' | '\\')) => current.push(next),
                Some(other) => {
                    current.push('\\');
                    current.push(other);
                }
                None => current.push('\\'),
            },
            ',' => items.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    items.push(current);
    let mut properties = Vec::new();
    for item in items {
        if item.trim().is_empty() {
            continue;
        }
        let (key, value) = item.split_once('=').ok_or_else(|| {
            let shown = if is_secret(&item) { "<hidden>" } else { &item };
            backend(format!(
                "{ENV_PROPERTIES}: {shown:?} is not key=value (separate properties with commas)"
            ))
        })?;
        let key = key.trim();
        if key.is_empty() {
            return Err(backend(format!(
                "{ENV_PROPERTIES}: a property has an empty name"
            )));
        }
        properties.push((key.to_string(), value.trim().to_string()));
    }
    Ok(properties)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn text(e: simpairs_log::Error) -> String {
        e.to_string()
    }

    #[test]
    fn locations() {
        let c = KafkaConfig::from_location("kafka://a:1,b:2/").unwrap();
        assert_eq!(c.brokers, ["a:1", "b:2"]);
        assert_eq!(c.location(), "kafka://a:1,b:2");
        assert_eq!(
            KafkaConfig::from_location("kafka://kafka").unwrap().brokers,
            ["kafka:9092"]
        );
        assert_eq!(
            KafkaConfig::from_location("kafka://[::1]:19092,[fe80::1]")
                .unwrap()
                .brokers,
            ["[::1]:19092", "[fe80::1]:9092"]
        );
        for bad in [
            "kafka://",
            "kafka://a:0",
            "kafka://a:x",
            "kafka://a:1,,b:2",
            "kafka://::1",
            "http://a:1",
            "/tmp/log",
            "kafka://user:pw@a:1",
            "kafka://a:1/topic",
        ] {
            let e = KafkaConfig::from_location(bad).unwrap_err();
            assert!(text(e).starts_with("kafka: "), "{bad}");
        }
    }

    #[test]
    fn environment() {
        let c = KafkaConfig::from_location_and_vars(
            "kafka://k:9093",
            vars(&[
                (ENV_SECURITY_PROTOCOL, "sasl_ssl"),
                (ENV_SASL_MECHANISM, "SCRAM-SHA-512"),
                (ENV_SASL_USERNAME, "club"),
                (ENV_SASL_PASSWORD, "s3cret"),
                (ENV_SSL_CA, "/etc/ca.pem"),
                (ENV_CLIENT_ID, "aggregator-1"),
                (
                    ENV_PROPERTIES,
                    "linger.ms=5, ssl.cipher.suites=A\\,B ,ssl.key.password=x",
                ),
                (ENV_REPLICATION_FACTOR, "3"),
                (ENV_TRANSACTIONS, "off"),
                (ENV_MESSAGE_TIMEOUT_MS, "1500"),
                (ENV_SSL_CERT, ""),
            ]),
        )
        .unwrap();
        assert_eq!(c.security_protocol, Some(SecurityProtocol::SaslSsl));
        assert_eq!(c.sasl_mechanism.as_deref(), Some("SCRAM-SHA-512"));
        assert_eq!(c.sasl_password.as_deref(), Some("s3cret"));
        assert_eq!(c.ssl_ca_location, Some(PathBuf::from("/etc/ca.pem")));
        assert_eq!(c.ssl_certificate_location, None, "empty counts as unset");
        assert_eq!(c.client_id, "aggregator-1");
        assert_eq!(
            c.properties,
            [
                ("linger.ms".to_string(), "5".to_string()),
                ("ssl.cipher.suites".to_string(), "A,B".to_string()),
                ("ssl.key.password".to_string(), "x".to_string())
            ]
        );
        assert_eq!(c.replication_factor, 3);
        assert_eq!(c.transactions, Transactions::Off);
        assert_eq!(c.message_timeout, Duration::from_millis(1500));
        let debug = format!("{c:?}");
        assert!(!debug.contains("s3cret"), "{debug}");
        assert!(!debug.contains("\"x\""), "{debug}");
    }

    #[test]
    fn inconsistent_security_settings_are_explained() {
        let cases: [(&[(&str, &str)], &str); 7] = [
            (&[(ENV_SASL_USERNAME, "u")], "SASL settings are given"),
            (
                &[(ENV_SECURITY_PROTOCOL, "SASL_PLAINTEXT")],
                "no SASL mechanism",
            ),
            (
                &[
                    (ENV_SECURITY_PROTOCOL, "SASL_PLAINTEXT"),
                    (ENV_SASL_MECHANISM, "PLAIN"),
                    (ENV_SASL_USERNAME, "club"),
                ],
                "needs a user name and a password",
            ),
            (&[(ENV_SSL_CA, "/ca.pem")], "TLS files are given"),
            (
                &[(ENV_SECURITY_PROTOCOL, "SSL"), (ENV_SSL_CERT, "/c.pem")],
                "needs its key",
            ),
            (
                &[(ENV_SECURITY_PROTOCOL, "TLS")],
                "unknown security protocol",
            ),
            (&[(ENV_PROPERTIES, "linger.ms")], "is not key=value"),
        ];
        for (pairs, expected) in cases {
            let e = KafkaConfig::from_location_and_vars("kafka://k", vars(pairs)).unwrap_err();
            assert!(text(e).contains(expected), "{pairs:?}");
        }
        let e = KafkaConfig::from_location_and_vars(
            "kafka://k",
            vars(&[(ENV_REPLICATION_FACTOR, "0")]),
        )
        .unwrap_err();
        assert!(text(e).contains(ENV_REPLICATION_FACTOR));
        let e = KafkaConfig::from_location_and_vars("kafka://k", vars(&[(ENV_TRANSACTIONS, "x")]))
            .unwrap_err();
        assert!(text(e).contains("auto, off or required"));
    }

    #[test]
    fn secret_properties_are_not_echoed_in_errors() {
        let e = parse_properties("sasl.password").unwrap_err();
        assert!(text(e).contains("<hidden>"));
    }
}
