//! Threads for work that can wait for the live leaderboard: at the lowest scheduling priority of
//! the normal policy (nice 19 on Linux).
//!
//! Where the aggregator, the projection and the website share a machine (one process in the demo,
//! a small federation's server), the national ranking then gets the cores first: the aggregator's
//! board scores and clubs' standings, and the website's replay for the director's listing, follow
//! when the cores are free. By the scheduler's weights nice 9 still gave such work a tenth of each
//! core the ranking ran on; nice 19 gives it about 1.5%. Alone on a machine the work runs as fast
//! as on normal threads: niceness only orders threads that compete, and a nice thread is never
//! starved.

/// A pool of threads named `<name>-<i>` at the lowest priority; `None` (with a warning) when it
/// cannot be made, and the caller then uses the shared threads. A thread whose priority cannot be
/// lowered keeps the normal one.
pub fn pool(name: &str) -> Option<rayon::ThreadPool> {
    let name = name.to_string();
    rayon::ThreadPoolBuilder::new()
        .thread_name(move |i| format!("{name}-{i}"))
        .start_handler(|_| lower_this_thread())
        .build()
        .map_err(|e| tracing::warn!("background work runs on the shared threads: {e}"))
        .ok()
}

/// Runs `work` on `pool`'s threads (and its parallel parts there too), or here without one.
pub fn install<T: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

fn lower_this_thread() {
    use thread_priority::{ThreadPriority, ThreadPriorityValue};
    // 0 of 0-99 maps to nice 19 for the normal (non-real-time) policy.
    let lowered = ThreadPriorityValue::try_from(0u8)
        .map_err(|e| e.to_string())
        .and_then(|v| {
            thread_priority::set_current_thread_priority(ThreadPriority::Crossplatform(v))
                .map_err(|e| format!("{e:?}"))
        });
    if let Err(e) = lowered {
        tracing::debug!("background threads keep the normal priority: {e}");
    }
}
