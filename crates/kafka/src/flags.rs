//! The Kafka client settings as command-line flags, for the programs whose log can be a Kafka one
//! (`simpairs` commands with `--log`, `simpairs-bench --pipeline-log`).

use crate::{
    ENV_CLIENT_ID, ENV_SASL_MECHANISM, ENV_SASL_PASSWORD, ENV_SASL_USERNAME, ENV_SECURITY_PROTOCOL,
    ENV_SSL_CA, ENV_SSL_CERT, ENV_SSL_KEY, KafkaConfig, Result,
};

/// Kafka client settings as flags (each also read from its `SIMPAIRS_KAFKA_*` variable); they apply
/// to `--log kafka://...`. Flatten them into the arguments of a command that opens a log.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(next_help_heading = "Kafka (with --log kafka://host:port)")]
pub struct KafkaFlags {
    /// Security protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
    #[arg(long, env = "SIMPAIRS_KAFKA_SECURITY_PROTOCOL")]
    pub kafka_security_protocol: Option<String>,
    /// SASL mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER.
    #[arg(long, env = "SIMPAIRS_KAFKA_SASL_MECHANISM")]
    pub kafka_sasl_mechanism: Option<String>,
    /// SASL user name.
    #[arg(long, env = "SIMPAIRS_KAFKA_SASL_USERNAME")]
    pub kafka_sasl_username: Option<String>,
    /// SASL password (prefer the environment variable: flags show in process lists).
    #[arg(long, env = "SIMPAIRS_KAFKA_SASL_PASSWORD", hide_env_values = true)]
    pub kafka_sasl_password: Option<String>,
    /// CA certificates (PEM) to check the brokers with.
    #[arg(long, env = "SIMPAIRS_KAFKA_SSL_CA")]
    pub kafka_ssl_ca: Option<String>,
    /// Client certificate (PEM) for mutual TLS.
    #[arg(long, env = "SIMPAIRS_KAFKA_SSL_CERT")]
    pub kafka_ssl_cert: Option<String>,
    /// Client key (PEM) for mutual TLS.
    #[arg(long, env = "SIMPAIRS_KAFKA_SSL_KEY")]
    pub kafka_ssl_key: Option<String>,
    /// Client id the brokers see.
    #[arg(long, env = "SIMPAIRS_KAFKA_CLIENT_ID")]
    pub kafka_client_id: Option<String>,
}

impl KafkaFlags {
    /// The settings of a `kafka://host:port` location: these flags, then the environment for
    /// the variables that have no flag (see the crate page).
    pub fn config(&self, location: &str) -> Result<KafkaConfig> {
        KafkaConfig::from_location_and_vars(location, |name| {
            self.value(name).or_else(|| std::env::var(name).ok())
        })
    }

    /// The value given for one of the `SIMPAIRS_KAFKA_*` settings.
    fn value(&self, variable: &str) -> Option<String> {
        let value = match variable {
            ENV_SECURITY_PROTOCOL => &self.kafka_security_protocol,
            ENV_SASL_MECHANISM => &self.kafka_sasl_mechanism,
            ENV_SASL_USERNAME => &self.kafka_sasl_username,
            ENV_SASL_PASSWORD => &self.kafka_sasl_password,
            ENV_SSL_CA => &self.kafka_ssl_ca,
            ENV_SSL_CERT => &self.kafka_ssl_cert,
            ENV_SSL_KEY => &self.kafka_ssl_key,
            ENV_CLIENT_ID => &self.kafka_client_id,
            _ => return None,
        };
        value.clone()
    }
}
