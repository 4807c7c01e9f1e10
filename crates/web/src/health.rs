//! Whether the pages follow the event: still reading the log, caught up and following it, or
//! stopped by an error (a damaged stream, a log that cannot be read). A stopped projection is
//! never shown as an event with no results: every page and `/api/status` say what went wrong.
//!
//! [`WatchedLog`] wraps the log the projection reads: its first wait for new records means the
//! projection has read everything there was, and the time of the latest record read dates the
//! clubs it brought.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use simpairs_log::{Consumer, Log, Produce, Record, StreamConfig};

/// The projection's state as the pages tell it.
#[derive(Debug, Default)]
pub struct Health {
    caught_up: AtomicBool,
    latest_record_ms: AtomicI64,
    failed: Mutex<Option<String>>,
}

/// What a page says about the results' freshness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// Reading the log from its start: what is shown is not the whole event yet.
    Reading,
    /// Caught up and following new results.
    Live,
    /// Stopped by an error: what is shown is as of the error.
    Failed(String),
}

impl Health {
    pub fn state(&self) -> State {
        if let Some(e) = self
            .failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            return State::Failed(e);
        }
        if self.caught_up.load(Ordering::Acquire) {
            State::Live
        } else {
            State::Reading
        }
    }

    /// Records why the projection stopped.
    pub fn fail(&self, why: String) {
        *self.failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
    }

    /// The time of the latest record the projection read (ms since the epoch; 0 before any).
    pub(crate) fn latest_record_ms(&self) -> i64 {
        self.latest_record_ms.load(Ordering::Acquire)
    }

    /// Marks the projection as caught up (tests that load a projection whole use it).
    pub(crate) fn set_caught_up(&self) {
        self.caught_up.store(true, Ordering::Release);
    }
}

/// A log that tells [`Health`] what the projection reads.
pub(crate) struct WatchedLog {
    inner: Arc<dyn Log>,
    health: Arc<Health>,
    /// The stream whose records date the clubs' arrivals: the board scores, where the
    /// aggregator's `SubmissionApplied` are.
    dated: String,
}

impl WatchedLog {
    pub fn new(inner: Arc<dyn Log>, health: Arc<Health>, event_id: &str) -> WatchedLog {
        let dated = simpairs_pipeline::stream_name(event_id, simpairs_events::Stream::BoardScores);
        WatchedLog {
            inner,
            health,
            dated,
        }
    }
}

impl Log for WatchedLog {
    fn create_stream(&self, name: &str, config: &StreamConfig) -> simpairs_log::Result<()> {
        self.inner.create_stream(name, config)
    }

    fn partitions(&self, stream: &str) -> simpairs_log::Result<u32> {
        self.inner.partitions(stream)
    }

    fn append(
        &self,
        stream: &str,
        records: &[Produce<'_>],
    ) -> simpairs_log::Result<Vec<(u32, u64)>> {
        self.inner.append(stream, records)
    }

    fn append_derived(
        &self,
        stream: &str,
        records: &[Produce<'_>],
    ) -> simpairs_log::Result<Vec<(u32, u64)>> {
        self.inner.append_derived(stream, records)
    }

    fn read(
        &self,
        stream: &str,
        partition: u32,
        from: u64,
        max: usize,
    ) -> simpairs_log::Result<Vec<Record>> {
        let records = self.inner.read(stream, partition, from, max)?;
        if stream != self.dated {
            return Ok(records);
        }
        if let Some(latest) = records.iter().map(|r| r.timestamp_ms).max() {
            self.health
                .latest_record_ms
                .fetch_max(latest, Ordering::AcqRel);
        }
        Ok(records)
    }

    fn end_offset(&self, stream: &str, partition: u32) -> simpairs_log::Result<u64> {
        self.inner.end_offset(stream, partition)
    }

    fn consumer(&self, group: &str, streams: &[&str]) -> simpairs_log::Result<Box<dyn Consumer>> {
        self.inner.consumer(group, streams)
    }

    fn solo_consumer(
        &self,
        group: &str,
        streams: &[&str],
    ) -> simpairs_log::Result<Box<dyn Consumer>> {
        self.inner.solo_consumer(group, streams)
    }

    fn append_token(&self) -> u64 {
        self.inner.append_token()
    }

    fn wait_for_append(&self, token: u64, timeout: Duration) {
        // The projection waits only when a pass over every stream found nothing new.
        self.health.caught_up.store(true, Ordering::Release);
        self.inner.wait_for_append(token, timeout)
    }
}
