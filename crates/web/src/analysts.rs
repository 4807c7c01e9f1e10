//! The analysts' figures on the website: how the field moved, what-if scorings side by side, a
//! player's season. Every figure is `simpairs_analysis`'s, computed over the log through the
//! replay index (the projection alone does not hold the history), so the site must be given the
//! log: [`crate::run`] does so; a site without it says these pages are not available.
//!
//! They take seconds on a national event, so they are bounded: one computation at a time, on a
//! blocking thread (never on the server's workers); a request waits at most [`Analysts::timeout`]
//! and is then told to try again, while the computation goes on and its result is kept. Results
//! are kept per generation of the event (a new club arriving makes them stale), a few of each
//! kind.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use simpairs_analysis::compare::Comparison;
use simpairs_analysis::movement::FieldHistory;
use simpairs_analysis::season::PlayerHistory;
use simpairs_log::Log;
use tokio::sync::Semaphore;

/// How many results of each kind are kept.
const KEPT: usize = 16;

/// Why a figure cannot be shown now.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    /// The site was not given the log (a site over a loaded projection).
    #[error("this site was not given the event's log, so its history cannot be read")]
    NoLog,
    /// Still being computed (or waiting for another computation): try again shortly.
    #[error("still being computed: try again in a few seconds")]
    Busy,
    /// The request cannot be answered as given (a player nobody knows; the message is the
    /// analysis crate's, written by us, never the client's text).
    #[error("{0}")]
    Usage(String),
    /// The log or the scoring failed.
    #[error("the history could not be read: {0}")]
    Failed(String),
}

impl From<simpairs_analysis::Error> for Unavailable {
    fn from(e: simpairs_analysis::Error) -> Self {
        if e.is_usage() {
            Unavailable::Usage(e.to_string())
        } else {
            Unavailable::Failed(e.to_string())
        }
    }
}

/// Results kept, newest last, each with the generation it was computed at.
struct Kept<V> {
    entries: VecDeque<(String, i64, Arc<V>)>,
}

impl<V> Default for Kept<V> {
    fn default() -> Self {
        Kept {
            entries: VecDeque::new(),
        }
    }
}

impl<V> Kept<V> {
    fn get(&self, key: &str, generation: i64) -> Option<Arc<V>> {
        self.entries
            .iter()
            .find(|(k, g, _)| k == key && *g == generation)
            .map(|(_, _, v)| v.clone())
    }

    /// The result kept for `key` at the latest generation, with that generation.
    fn newest(&self, key: &str) -> Option<(i64, Arc<V>)> {
        self.entries
            .iter()
            .filter(|(k, _, _)| k == key)
            .max_by_key(|(_, g, _)| *g)
            .map(|(_, g, v)| (*g, v.clone()))
    }

    fn put(&mut self, key: String, generation: i64, value: Arc<V>) {
        // Results of earlier generations are stale: they go first.
        self.entries
            .retain(|(k, g, _)| *g >= generation && *k != key);
        if self.entries.len() == KEPT {
            self.entries.pop_front();
        }
        self.entries.push_back((key, generation, value));
    }
}

#[derive(Default)]
struct Caches {
    movement: Mutex<Kept<FieldHistory>>,
    compare: Mutex<Kept<Comparison>>,
    season: Mutex<Kept<PlayerHistory>>,
    #[cfg(test)]
    numbers: Mutex<Kept<i64>>,
}

/// The log, the replay index's directory, the results kept and the bounds.
pub struct Analysts {
    log: Arc<dyn Log>,
    event: String,
    dir: PathBuf,
    /// The index's directory when none was given: kept for the site's life, so the index is
    /// built once per generation rather than each request replaying the log.
    _temporary: Option<tempfile::TempDir>,
    caches: Caches,
    /// One computation at a time: two would build the same index file at once, and the machine
    /// serving the site has other work.
    slots: Arc<Semaphore>,
    /// How long a request waits for its figures.
    pub timeout: Duration,
}

/// How long a request waits by default: under the server's 10 s for a handler.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(8);

impl Analysts {
    /// Analyses of `event` on `log`, the replay index in `dir` (a temporary directory if `None`).
    pub fn new(log: Arc<dyn Log>, event: &str, dir: Option<PathBuf>) -> std::io::Result<Analysts> {
        let (dir, temporary) = match dir {
            Some(dir) => (dir, None),
            None => {
                let t = tempfile::tempdir()?;
                (t.path().to_path_buf(), Some(t))
            }
        };
        Ok(Analysts {
            log,
            event: event.to_string(),
            dir,
            _temporary: temporary,
            caches: Caches::default(),
            slots: Arc::new(Semaphore::new(1)),
            timeout: TIMEOUT,
        })
    }

    /// The event analysed.
    pub fn event(&self) -> &str {
        &self.event
    }

    /// The field's history for `key` (the caller's description of `options`). While the history
    /// of an earlier generation is kept, it is given at once and this generation's is computed
    /// in the background ([`Analysts::get_or_earlier`]): it says which generation it runs to.
    pub async fn movement(
        self: &Arc<Self>,
        key: String,
        generation: i64,
        options: simpairs_analysis::movement::HistoryOptions,
    ) -> Result<Arc<FieldHistory>, Unavailable> {
        self.get_or_earlier(
            |c| &c.movement,
            key,
            generation,
            move |log, event, dir| {
                simpairs_analysis::movement::field_history(log, event, Some(dir), &options)
            },
        )
        .await
    }

    /// Two scorings side by side.
    pub async fn compare(
        self: &Arc<Self>,
        key: String,
        generation: i64,
        a: simpairs_analysis::variant::Side,
        b: simpairs_analysis::variant::Side,
    ) -> Result<Arc<Comparison>, Unavailable> {
        self.get(
            |c| &c.compare,
            key,
            generation,
            move |log, event, dir| {
                simpairs_analysis::compare::compare(log, event, Some(dir), &a, &b)
            },
        )
        .await
    }

    /// A player's season over every event of the log.
    pub async fn season(
        self: &Arc<Self>,
        national_id: String,
        generation: i64,
    ) -> Result<Arc<PlayerHistory>, Unavailable> {
        let key = national_id.clone();
        self.get(
            |c| &c.season,
            key,
            generation,
            move |log, _, dir| {
                simpairs_analysis::season::player_history(log, &national_id, Some(dir))
            },
        )
        .await
    }

    /// The result kept for `key` at `generation`, or computed on a blocking thread within the
    /// timeout. A computation that outlasts the timeout goes on, and its result is kept for the
    /// next request.
    async fn get<V, W>(
        self: &Arc<Self>,
        cache: fn(&Caches) -> &Mutex<Kept<V>>,
        key: String,
        generation: i64,
        work: W,
    ) -> Result<Arc<V>, Unavailable>
    where
        V: Send + Sync + 'static,
        W: Work<V>,
    {
        let kept = |a: &Analysts| lock(cache(&a.caches)).get(&key, generation);
        if let Some(v) = kept(self) {
            return Ok(v);
        }
        let started = Instant::now();
        let permit = tokio::time::timeout(self.timeout, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| Unavailable::Busy)?
            .map_err(|_| Unavailable::Busy)?;
        // Another request may have computed it while this one waited.
        if let Some(v) = kept(self) {
            return Ok(v);
        }
        let task = self.compute(cache, key, generation, work, permit);
        let left = self.timeout.saturating_sub(started.elapsed());
        match tokio::time::timeout(left, task).await {
            Err(_) => Err(Unavailable::Busy),
            Ok(Err(join)) => Err(Unavailable::Failed(format!(
                "the computation stopped: {join}"
            ))),
            Ok(Ok(result)) => result,
        }
    }

    /// [`Analysts::get`], except that while a result of an earlier generation is kept for `key`,
    /// it is given at once, and this generation's is computed in the background if no other
    /// computation is running. During a live national event a club arrives every few seconds
    /// and a history takes seconds to compute: waiting for the current generation's would leave
    /// the reader with "reload" after every arrival.
    async fn get_or_earlier<V, W>(
        self: &Arc<Self>,
        cache: fn(&Caches) -> &Mutex<Kept<V>>,
        key: String,
        generation: i64,
        work: W,
    ) -> Result<Arc<V>, Unavailable>
    where
        V: Send + Sync + 'static,
        W: Work<V>,
    {
        let newest = lock(cache(&self.caches)).newest(&key);
        match newest {
            Some((kept, value)) if kept < generation => {
                if let Ok(permit) = self.slots.clone().try_acquire_owned() {
                    // Its result is kept for the requests that follow.
                    drop(self.compute(cache, key, generation, work, permit));
                }
                Ok(value)
            }
            _ => self.get(cache, key, generation, work).await,
        }
    }

    /// Computes `work` on a blocking thread holding `permit`, and keeps its result.
    fn compute<V, W>(
        self: &Arc<Self>,
        cache: fn(&Caches) -> &Mutex<Kept<V>>,
        key: String,
        generation: i64,
        work: W,
        permit: tokio::sync::OwnedSemaphorePermit,
    ) -> tokio::task::JoinHandle<Result<Arc<V>, Unavailable>>
    where
        V: Send + Sync + 'static,
        W: Work<V>,
    {
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let value = work(this.log.as_ref(), &this.event, &this.dir).inspect_err(|e| {
                // A computation no request waits for any more would otherwise fail unseen.
                tracing::warn!(generation, "an analysis could not be computed: {e}");
            })?;
            let value = Arc::new(value);
            lock(cache(&this.caches)).put(key, generation, value.clone());
            Ok::<_, Unavailable>(value)
        })
    }
}

/// An analysis computed over the log (`simpairs_analysis`'s), given the log, the event and the
/// replay index's directory.
trait Work<V>: FnOnce(&dyn Log, &str, &Path) -> simpairs_analysis::Result<V> + Send + 'static {}

impl<V, F> Work<V> for F where
    F: FnOnce(&dyn Log, &str, &Path) -> simpairs_analysis::Result<V> + Send + 'static
{
}

/// A cache's lock (a computation that panicked leaves what it held usable).
fn lock<V>(cache: &Mutex<Kept<V>>) -> std::sync::MutexGuard<'_, Kept<V>> {
    cache.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_kept_per_generation_and_a_newer_generation_drops_the_older() {
        let mut kept = Kept::default();
        kept.put("a".into(), 1, Arc::new(1));
        kept.put("b".into(), 1, Arc::new(2));
        assert_eq!(kept.get("a", 1).as_deref(), Some(&1));
        assert_eq!(kept.get("a", 2), None);
        kept.put("a".into(), 2, Arc::new(3));
        assert_eq!(kept.get("b", 1), None, "stale results are let go");
        assert_eq!(kept.get("a", 2).as_deref(), Some(&3));
        for i in 0..(KEPT as i64 + 4) {
            kept.put(format!("k{i}"), 2, Arc::new(i));
        }
        assert_eq!(kept.entries.len(), KEPT);
    }

    /// A cache of numbers, filled by `work` (which counts its calls and takes `pause`).
    fn counting(
        calls: &Arc<std::sync::atomic::AtomicUsize>,
        value: i64,
        pause: Duration,
    ) -> impl FnOnce(&dyn Log, &str, &Path) -> simpairs_analysis::Result<i64> + Send + 'static {
        let calls = calls.clone();
        move |_, _, _| {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(pause);
            Ok(value)
        }
    }

    #[tokio::test]
    async fn an_earlier_generations_result_is_given_at_once_while_this_ones_is_computed() {
        let dir = tempfile::tempdir().unwrap();
        let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
        let analysts = Arc::new(Analysts::new(log, "e", None).unwrap());
        let cache: fn(&Caches) -> &Mutex<Kept<i64>> = |c| &c.numbers;
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = || calls.load(std::sync::atomic::Ordering::SeqCst);
        let get = |generation, value, pause| {
            analysts.get_or_earlier(
                cache,
                "k".into(),
                generation,
                counting(&calls, value, pause),
            )
        };
        // Nothing kept: the first request waits for its result.
        assert_eq!(*get(1, 10, Duration::ZERO).await.unwrap(), 10);
        // A later generation: generation 1's at once, generation 2's computed meanwhile, and
        // no second computation while it runs.
        let slow = Duration::from_millis(400);
        assert_eq!(*get(2, 20, slow).await.unwrap(), 10);
        assert_eq!(*get(3, 30, slow).await.unwrap(), 10);
        for _ in 0..100 {
            if lock(&analysts.caches.numbers).get("k", 2).is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(count(), 2, "one computation at a time");
        assert_eq!(
            *get(2, 99, Duration::ZERO).await.unwrap(),
            20,
            "kept once computed"
        );
        assert_eq!(count(), 2);
        // Another key has nothing earlier: it waits for its own.
        let other = analysts
            .get_or_earlier(
                cache,
                "other".into(),
                3,
                counting(&calls, 7, Duration::ZERO),
            )
            .await;
        assert_eq!(*other.unwrap(), 7);
    }
}
