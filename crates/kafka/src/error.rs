//! Turning rdkafka's errors into [`simpairs_log::Error::Backend`] with words.

use rdkafka::error::{KafkaError, RDKafkaError, RDKafkaErrorCode};

use simpairs_log::Error;

/// The backend name in [`Error::Backend`].
pub const BACKEND: &str = "kafka";

/// A [`Error::Backend`] from this crate.
pub(crate) fn backend(message: impl Into<String>) -> Error {
    Error::Backend {
        backend: BACKEND,
        message: message.into(),
    }
}

/// `what` failed because of `err`: "`what`: `why`".
pub(crate) fn failed(what: impl std::fmt::Display, err: &KafkaError) -> Error {
    backend(format!("{what}: {}", describe(err)))
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
pub(crate) fn is_transient(code: RDKafkaErrorCode) -> bool {
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
