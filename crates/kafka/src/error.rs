//! Turning rdkafka's errors into [`simpairs_log::Error::Backend`] with words.

use rdkafka::error::{KafkaError, RDKafkaError, RDKafkaErrorCode};

use simpairs_log::{Error, Kind};

/// The backend name in [`Error::Backend`].
pub const BACKEND: &str = "kafka";

/// rdkafka's error, kept as the source of an [`Error::Backend`] of this crate. It shows as
/// [`describe`]'s words, which the message holds already; [`Cause::kafka_error`] gives the error
/// itself.
#[derive(Clone, Debug)]
pub struct Cause(KafkaError);

impl Cause {
    /// The error rdkafka returned.
    pub fn kafka_error(&self) -> &KafkaError {
        &self.0
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&describe(&self.0))
    }
}

impl std::error::Error for Cause {}

/// The rdkafka error behind a log error of this crate, if there is one.
pub fn cause(error: &Error) -> Option<&KafkaError> {
    match error {
        Error::Backend {
            source: Some(source),
            ..
        } => source.downcast_ref::<Cause>().map(Cause::kafka_error),
        _ => None,
    }
}

/// A [`Error::Backend`] from this crate that no rdkafka error explains: fatal (wrong
/// configuration, a refusal this crate saw in an answer).
pub(crate) fn backend(message: impl Into<String>) -> Error {
    backend_with(message, Kind::Fatal)
}

/// A [`Error::Backend`] from this crate of a `kind` this crate decided (a wait that ran out is
/// retriable).
pub(crate) fn backend_with(message: impl Into<String>, kind: Kind) -> Error {
    Error::Backend {
        backend: BACKEND,
        message: message.into(),
        kind,
        source: None,
    }
}

/// A [`Error::Backend`] caused by `err` (whose words `message` holds): retriable or fatal as
/// [`kind_of`] tells, with `err` as its source.
pub(crate) fn caused(message: impl Into<String>, err: &KafkaError) -> Error {
    Error::Backend {
        backend: BACKEND,
        message: message.into(),
        kind: kind_of(err),
        source: Some(Box::new(Cause(err.clone()))),
    }
}

/// `what` failed because of `err`: "`what`: `why`".
pub(crate) fn failed(what: impl std::fmt::Display, err: &KafkaError) -> Error {
    caused(format!("{what}: {}", describe(err)), err)
}

/// Whether trying again may succeed after `err`: librdkafka's own verdict on transaction
/// errors, its code otherwise ([`is_retriable_code`]); a client that cannot be made as
/// configured, or a consumer's fatal error, never.
pub fn kind_of(err: &KafkaError) -> Kind {
    let retriable = match err {
        KafkaError::Transaction(rd) => rd.is_retriable() && !rd.is_fatal(),
        KafkaError::ClientCreation(_)
        | KafkaError::ClientConfig(..)
        | KafkaError::MessageConsumptionFatal(_) => false,
        KafkaError::NoMessageReceived | KafkaError::PartitionEOF(_) => true,
        other => other.rdkafka_error_code().is_some_and(is_retriable_code),
    };
    if retriable {
        Kind::Retriable
    } else {
        Kind::Fatal
    }
}

/// Whether an error code may pass if the call is tried again: the cluster moving or slow
/// ([`is_transient`]), a full queue, too few replicas in sync for now, a request throttled.
/// Refusals (authorization, unknown topic, invalid configuration, too large a record) are not.
pub fn is_retriable_code(code: RDKafkaErrorCode) -> bool {
    use RDKafkaErrorCode as C;
    is_transient(code)
        || matches!(
            code,
            C::QueueFull
                | C::MessageTimedOut
                | C::NotEnoughReplicas
                | C::NotEnoughReplicasAfterAppend
                | C::KafkaStorageError
                | C::NotController
                | C::ThrottlingQuotaExceeded
                | C::ConcurrentTransactions
                | C::PreferredLeaderNotAvailable
                | C::EligibleLeadersNotAvailable
                | C::ListenerNotFound
        )
}

/// rdkafka's error in words, without its Rust variant names where it can be avoided.
pub(crate) fn describe(err: &KafkaError) -> String {
    match err {
        KafkaError::ClientCreation(s) | KafkaError::ClientConfig(_, s, _, _) => s.clone(),
        KafkaError::Transaction(e) => describe_rd(e),
        KafkaError::AdminOp(code)
        | KafkaError::ConsumerCommit(code)
        | KafkaError::ConsumerQueueClose(code)
        | KafkaError::Flush(code)
        | KafkaError::Global(code)
        | KafkaError::GroupListFetch(code)
        | KafkaError::MessageConsumption(code)
        | KafkaError::MessageConsumptionFatal(code)
        | KafkaError::MessageProduction(code)
        | KafkaError::MetadataFetch(code)
        | KafkaError::OffsetFetch(code)
        | KafkaError::Rebalance(code)
        | KafkaError::SetPartitionOffset(code)
        | KafkaError::StoreOffset(code)
        | KafkaError::MockCluster(code) => describe_code(*code),
        KafkaError::PartitionEOF(p) => format!("end of partition {p}"),
        KafkaError::NoMessageReceived => "no message received".to_string(),
        KafkaError::Seek(s) | KafkaError::PauseResume(s) | KafkaError::Subscription(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A librdkafka error code in words, e.g. "Local: Message timed out".
pub(crate) fn describe_code(code: RDKafkaErrorCode) -> String {
    // rdkafka displays codes as "MessageTimedOut (Local: Message timed out)": keep the words.
    let text = code.to_string();
    let words = text
        .split_once(" (")
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .unwrap_or(&text);
    if words.is_empty() {
        format!("{code:?}")
    } else {
        words.to_string()
    }
}

/// Whether an error is worth retrying: the cluster is moving (leaders, coordinators,
/// connections) rather than refusing.
pub fn is_transient(code: RDKafkaErrorCode) -> bool {
    use RDKafkaErrorCode as C;
    matches!(
        code,
        C::BrokerTransportFailure
            | C::AllBrokersDown
            | C::Resolve
            | C::OperationTimedOut
            | C::RequestTimedOut
            | C::NotLeaderForPartition
            | C::LeaderNotAvailable
            | C::NotCoordinator
            | C::CoordinatorNotAvailable
            | C::CoordinatorLoadInProgress
            | C::NetworkException
            | C::ReplicaNotAvailable
            | C::UnknownLeaderEpoch
            | C::FencedLeaderEpoch
            | C::OffsetNotAvailable
            | C::WaitingForCoordinator
            | C::TimedOutQueue
            | C::Retry
            | C::PartitionEOF
    )
}

/// A librdkafka error object (transactions) in words, marking fatal ones.
pub(crate) fn describe_rd(e: &RDKafkaError) -> String {
    let mut text = e.string();
    if text.is_empty() {
        text = describe_code(e.code());
    }
    if e.is_fatal() {
        text.push_str(" (fatal: the producer was replaced)");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cluster_moving_or_slow_is_retriable() {
        use RDKafkaErrorCode as C;
        for code in [
            C::QueueFull,
            C::RequestTimedOut,
            C::BrokerTransportFailure,
            C::NotEnoughReplicas,
            C::NotLeaderForPartition,
            C::MessageTimedOut,
        ] {
            assert!(is_retriable_code(code), "{code:?}");
            assert_eq!(
                kind_of(&KafkaError::MessageProduction(code)),
                Kind::Retriable
            );
        }
    }

    #[test]
    fn refusals_are_fatal() {
        use RDKafkaErrorCode as C;
        for code in [
            C::TopicAuthorizationFailed,
            C::ClusterAuthorizationFailed,
            C::UnknownTopicOrPartition,
            C::InvalidConfig,
            C::MessageSizeTooLarge,
            C::InvalidRequiredAcks,
        ] {
            assert!(!is_retriable_code(code), "{code:?}");
            assert_eq!(kind_of(&KafkaError::MetadataFetch(code)), Kind::Fatal);
        }
        let config = KafkaError::ClientCreation("bad bootstrap.servers".into());
        assert_eq!(kind_of(&config), Kind::Fatal);
        let consumer = KafkaError::MessageConsumptionFatal(C::BrokerTransportFailure);
        assert_eq!(kind_of(&consumer), Kind::Fatal);
    }

    #[test]
    fn errors_keep_their_cause_and_its_words() {
        let err = KafkaError::ConsumerCommit(RDKafkaErrorCode::RequestTimedOut);
        let e = failed("committing", &err);
        assert!(e.is_retriable());
        assert_eq!(
            e.to_string(),
            format!("kafka: committing: {}", describe(&err))
        );
        assert!(matches!(
            cause(&e),
            Some(KafkaError::ConsumerCommit(
                RDKafkaErrorCode::RequestTimedOut
            ))
        ));
        let source = std::error::Error::source(&e).expect("the cause");
        assert!(e.to_string().contains(&source.to_string()));
        assert_eq!(backend("the client id is empty").kind(), Kind::Fatal);
    }
}
