//! Threads for work that can wait for the live leaderboard, at the lowest priority.
//!
//! Where the aggregator, the projection and the website share a machine (one process in the demo,
//! a small federation's server), the national ranking then gets the cores first: the aggregator's
//! board scores and clubs' standings, and the website's replay for the director's listing, follow
//! when the cores are free. By the scheduler's weights nice 9 still gave such work a tenth of each
//! core the ranking ran on; nice 19 gives it about 1.5%. Alone on a machine the work runs as fast
//! as on normal threads: niceness only orders threads that compete, and a nice thread is never
//! starved.
//!
//! But a nice thread, once running, keeps its core for the rest of its time slice when a normal
//! thread wakes: the projection, woken by a club's applied submission, waited up to 5 ms for a core
//! behind the board scores being derived. Once an aggregator keeps up with what arrives
//! ([`Pace::Live`]) its pool is moved to Linux's `SCHED_IDLE` policy ([`give_way_at_once`]),
//! whose threads give the core up as soon as a normal thread wants it. A backlog is worked through
//! at nice 19 first: there the derived output is what the next batches wait for, and giving way at
//! every wake-up made catching up a few percent slower (docs/benchmarks.md, 2026-12-06). The move
//! is for good: a thread without privileges cannot leave `SCHED_IDLE`.

use thread_priority::ThreadPriority;

/// Whether a batch of work keeps up with what arrives or works through a backlog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// It keeps up: the live leaderboard must not wait behind it.
    Live,
    /// More is waiting: the work is what the next batches wait for.
    Backlog,
}

/// A pool of threads named `<name>-<i>` at the lowest priority (nice 19); `None` (with a warning)
/// when it cannot be made, and the caller then uses the shared threads. A thread whose priority
/// cannot be lowered keeps the normal one.
pub fn pool(name: &str) -> Option<rayon::ThreadPool> {
    let name = name.to_string();
    rayon::ThreadPoolBuilder::new()
        .thread_name(move |i| format!("{name}-{i}"))
        .start_handler(|_| lower_this_thread())
        .build()
        .map_err(|e| tracing::warn!("background work runs on the shared threads: {e}"))
        .ok()
}

/// Moves every thread of `pool` to `SCHED_IDLE` (Linux; elsewhere they stay at nice 19), for good.
/// Each thread moves itself when it is next free, and this waits for all of them: call it while
/// the pool has no work.
pub fn give_way_at_once(pool: &rayon::ThreadPool) {
    #[cfg(target_os = "linux")]
    pool.broadcast(|_| {
        use thread_priority::unix::{
            NormalThreadSchedulePolicy, ThreadSchedulePolicy, set_thread_priority_and_policy,
            thread_native_id, thread_schedule_policy,
        };
        let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
        // The crate sets the policy, then a nice value of 0, which a thread without privileges
        // may not take back from 19: the error then says nothing of the policy, which is what
        // counts (a `SCHED_IDLE` thread's nice value has no weight).
        let _ = set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, idle);
        if thread_schedule_policy().ok() != Some(idle) {
            tracing::debug!("a background thread stays at nice 19: SCHED_IDLE was refused");
        }
    });
    #[cfg(not(target_os = "linux"))]
    let _ = pool;
}

/// Runs `work` on `pool`'s threads (and its parallel parts there too), or here without one.
pub fn install<T: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

fn lower_this_thread() {
    use thread_priority::ThreadPriorityValue;
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use thread_priority::unix::{
        NormalThreadSchedulePolicy, ThreadSchedulePolicy, thread_schedule_policy,
    };

    const OTHER: ThreadSchedulePolicy =
        ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Other);
    const IDLE: ThreadSchedulePolicy =
        ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);

    /// Each thread's (policy, nice value) of `pool`.
    fn each_thread(pool: &rayon::ThreadPool) -> Vec<(ThreadSchedulePolicy, String)> {
        pool.broadcast(|_| {
            (
                thread_schedule_policy().expect("the policy"),
                own_niceness(),
            )
        })
    }

    #[test]
    fn a_pool_runs_at_nice_19_then_gives_way_at_once_for_good() {
        let pool = super::pool("test").expect("a pool");
        let at_first = each_thread(&pool);
        assert!(!at_first.is_empty());
        assert!(
            at_first.iter().all(|t| *t == (OTHER, "19".to_string())),
            "{at_first:?}"
        );
        super::give_way_at_once(&pool);
        let then = each_thread(&pool);
        assert_eq!(then.len(), at_first.len());
        assert!(then.iter().all(|(policy, _)| *policy == IDLE), "{then:?}");
        // The caller's own thread is left as it was.
        assert_eq!(thread_schedule_policy().expect("the policy"), OTHER);
    }

    /// The calling thread's nice value, as the kernel shows it (`/proc/thread-self/stat`, the
    /// 19th field; the second, the thread's name, is in parentheses and may hold spaces).
    fn own_niceness() -> String {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("the thread's stat");
        let after_name = &stat[stat.rfind(')').expect("the name's end") + 1..];
        after_name
            .split_whitespace()
            .nth(16)
            .expect("a nice value")
            .to_string()
    }
}
