//! The state every page reads: the projection, the catalog kept beside it, the projection's
//! health, the double-dummy analyses of the boards, and the channel that tells open pages what
//! changed.

use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use serde::Serialize;
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::views::Catalog;
use tokio::sync::broadcast;

use crate::health::{Health, State};

/// What open pages hear when the results change.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Update {
    /// The national generation now shown.
    pub generation: i64,
    /// Clubs that arrived or sent a correction.
    pub clubs: Vec<ClubArrived>,
    /// The organiser closed the event: a page still saying the results are provisional reloads
    /// its parts, though no generation is new.
    pub closed: bool,
}

/// A club that arrived, as an open page announces it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ClubArrived {
    pub club: String,
    pub name: String,
    pub correction: bool,
    /// Its results were withdrawn.
    pub withdrawn: bool,
}

/// How many updates a slow page may fall behind before it is told to catch up by reloading its
/// parts (it then skips to the latest).
const UPDATES_KEPT: usize = 64;

/// The site's shared state; cheap to clone.
#[derive(Clone)]
pub struct Site {
    pub projection: Arc<RwLock<Projection>>,
    pub catalog: Arc<RwLock<Catalog>>,
    pub health: Arc<Health>,
    pub updates: broadcast::Sender<Update>,
    pub deals: Arc<crate::deals::Deals>,
    /// Arrivals not announced yet: they wait until the national ranking includes them.
    pending: Arc<Mutex<Pending>>,
    /// The director's listing of submissions, as last read from the log.
    director: Arc<Mutex<Option<Arc<Director>>>>,
    /// The replay the listing is read from, read on at each reading.
    follow: Arc<Mutex<Option<simpairs_pipeline::replay::Follow>>>,
    /// The server's connection counts.
    pub connections: Arc<crate::server::ServerStats>,
    /// The analysts' figures, over the log (set when the site is given it).
    analysts: Arc<std::sync::OnceLock<Arc<crate::analysts::Analysts>>>,
}

/// Every submission and dead letter of the event, read from the log by the judge
/// (`simpairs_pipeline::submissions`), with when it was read.
#[derive(Debug)]
pub struct Director {
    pub listing: simpairs_pipeline::submissions::Submissions,
    pub read_at_ms: i64,
    /// The projection's submissions and dead letters when it was read.
    pub seen: (usize, usize),
    /// It was read on from the reading before, not replayed from the log's first record.
    pub read_on: bool,
}

/// The least time between two readings of the log after one that replayed the results stream
/// from its first record (seconds of CPU on a national event).
const DIRECTOR_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// The least time between two readings after one that read on (milliseconds of CPU).
const DIRECTOR_READ_ON_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

#[derive(Default)]
struct Pending {
    clubs: Vec<ClubArrived>,
    announced_generation: i64,
    announced_closed: bool,
    /// The latest updates sent, oldest first: a page whose stream opens late hears what it missed.
    recent: std::collections::VecDeque<Update>,
}

impl Site {
    /// A site over a projection, with an empty catalog (see [`Site::refresh`]).
    pub fn new(projection: Arc<RwLock<Projection>>) -> Site {
        Site {
            projection,
            catalog: Arc::default(),
            health: Arc::default(),
            updates: broadcast::channel(UPDATES_KEPT).0,
            deals: Arc::default(),
            pending: Arc::default(),
            director: Arc::default(),
            follow: Arc::default(),
            connections: Arc::default(),
            analysts: Arc::default(),
        }
    }

    /// Gives the site the log's history (the analysts' pages); the first call wins.
    pub fn set_analysts(&self, analysts: crate::analysts::Analysts) {
        let _ = self.analysts.set(Arc::new(analysts));
    }

    /// The analysts' figures, if the site was given the log.
    pub fn analysts(&self) -> Option<Arc<crate::analysts::Analysts>> {
        self.analysts.get().cloned()
    }

    /// The director's listing as last read, if it was.
    pub fn director(&self) -> Option<Arc<Director>> {
        self.director
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Reads the log again, if the projection saw new submissions or dead letters since the
    /// last reading and that was at least [`DIRECTOR_READ_ON_EVERY`] ago when it read on, or
    /// [`DIRECTOR_EVERY`] when it replayed the log from its first record (or never): one replay of the
    /// results stream, its results kept packed and read on from one reading to the next
    /// ([`simpairs_pipeline::replay::Follow`]), gives the director's listing and the boards'
    /// deals (the organiser's hand records, else the first club's that applied; the projection
    /// does not keep them), and the deals not analysed yet are analysed.
    pub fn read_log(&self, log: &dyn simpairs_log::Log) -> simpairs_pipeline::Result<()> {
        let (event, seen) = {
            let p = self.projection();
            (p.event_id.clone(), (p.submissions(), p.dead_letters))
        };
        let now = simpairs_pipeline::now_ms();
        if let Some(last) = self.director() {
            let every = if last.read_on {
                DIRECTOR_READ_ON_EVERY
            } else {
                DIRECTOR_EVERY
            };
            let recent = now - last.read_at_ms < every.as_millis() as i64;
            if last.seen == seen || recent {
                return Ok(());
            }
        }
        let started = std::time::Instant::now();
        let mut follow = self.follow.lock().unwrap_or_else(|e| e.into_inner());
        let (replay, read_on) = match follow.as_mut() {
            Some(follow) => {
                let read_on = follow.read_on(log)?;
                (follow.replay(), read_on)
            }
            None => {
                let started = simpairs_pipeline::replay::Follow::start(log, &event, true)?;
                (follow.insert(started).replay(), false)
            }
        };
        tracing::debug!(elapsed = ?started.elapsed(), read_on, "director: the log read");
        self.deals.know(replay.state.known_deals());
        let read = Director {
            listing: simpairs_pipeline::submissions::from_replay(&event, replay),
            read_at_ms: now,
            seen,
            read_on,
        };
        *self.director.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(read));
        Ok(())
    }

    /// A site over a projection loaded whole (tests, reports): catalog built, marked caught up.
    pub fn loaded(projection: Projection) -> Site {
        let site = Site::new(Arc::new(RwLock::new(projection)));
        site.health.set_caught_up();
        site.refresh();
        site
    }

    pub fn projection(&self) -> RwLockReadGuard<'_, Projection> {
        self.projection.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn catalog(&self) -> RwLockReadGuard<'_, Catalog> {
        self.catalog.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Brings the catalog up to date with the projection and tells open pages what arrived, once
    /// the national ranking includes it (a page reloaded earlier would show the old places).
    /// While the projection is still reading the log, clubs it reads are not news: the pages are
    /// told of the new generation, but not of thousands of clubs "arriving" on a restart.
    pub fn refresh(&self) {
        let reading = self.health.state() == State::Reading;
        let at = self.health.latest_record_ms();
        let at = if at > 0 {
            at
        } else {
            simpairs_pipeline::now_ms()
        };
        let (arrived, generation, ranked, closed) = {
            let p = self.projection();
            let mut catalog = self.catalog.write().unwrap_or_else(|e| e.into_inner());
            let changed = catalog.refresh(&p, at);
            let arrived: Vec<ClubArrived> = changed
                .into_iter()
                .filter(|_| !reading)
                .map(|a| ClubArrived {
                    name: simpairs_pipeline::views::club_name(&p, &a.club),
                    club: a.club,
                    correction: a.correction,
                    withdrawn: a.withdrawn,
                })
                .collect();
            let ranked = p.generation() >= p.submissions() as i64;
            (arrived, p.generation(), ranked, p.closed_ms().is_some())
        };
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.clubs.extend(arrived);
        let news = !pending.clubs.is_empty()
            || pending.announced_generation != generation
            || pending.announced_closed != closed;
        if !ranked || !news {
            return;
        }
        pending.announced_generation = generation;
        pending.announced_closed = closed;
        let clubs = std::mem::take(&mut pending.clubs);
        let update = Update {
            generation,
            clubs,
            closed,
        };
        if pending.recent.len() == UPDATES_KEPT {
            pending.recent.pop_front();
        }
        pending.recent.push_back(update.clone());
        // Nobody listening is not an error.
        let _ = self.updates.send(update);
    }

    /// What a page showing generation `since` missed, as one update: the clubs that arrived since
    /// (all of them if the updates kept do not reach back that far) and the generation now.
    pub(crate) fn since(&self, since: i64) -> Update {
        // The projection's lock is let go before the updates' is taken, as `refresh` does.
        let closed = self.projection().closed_ms().is_some();
        let pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let clubs = pending
            .recent
            .iter()
            .filter(|u| u.generation > since)
            .flat_map(|u| u.clubs.iter().cloned())
            .collect();
        let generation = pending
            .recent
            .back()
            .map_or(since, |u| u.generation)
            .max(since);
        Update {
            generation,
            clubs,
            closed,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, RwLock};

    use simpairs_pipeline::project::Projection;

    use super::Site;

    /// A projection of one declared club's results (one submission applied).
    fn one_club() -> Projection {
        let (_dir, log) = crate::test_event::published("news");
        Projection::load(log.as_ref(), "news").unwrap()
    }

    #[test]
    fn clubs_read_while_catching_up_are_not_announced_as_arriving() {
        let reading = Site::new(Arc::new(RwLock::new(one_club())));
        reading.refresh();
        assert!(reading.since(0).clubs.is_empty(), "announced while reading");
        assert!(
            reading.since(0).generation > 0,
            "the generation is still told"
        );

        let live = Site::new(Arc::new(RwLock::new(one_club())));
        live.health.set_caught_up();
        live.refresh();
        assert_eq!(live.since(0).clubs.len(), 1, "a club arriving live is told");
    }

    /// A close makes no new generation: open pages are told of it all the same, and a page whose
    /// stream opens later hears it too.
    #[test]
    fn open_pages_are_told_when_the_organiser_closes_the_event() {
        let (_dir, log) = crate::test_event::published("shut");
        let site = Site::new(Arc::new(RwLock::new(
            Projection::load(log.as_ref(), "shut").unwrap(),
        )));
        site.health.set_caught_up();
        site.refresh();
        let generation = site.since(0).generation;
        assert!(!site.since(generation).closed);
        let mut updates = site.updates.subscribe();
        let close = simpairs_pipeline::declare::Amendment {
            close: true,
            ..Default::default()
        };
        let organiser = simpairs_sim::organiser_key();
        simpairs_pipeline::declare::amend(log.as_ref(), "shut", &organiser, close).unwrap();
        *site.projection.write().unwrap() = Projection::load(log.as_ref(), "shut").unwrap();
        site.refresh();
        let told = updates.try_recv().expect("an update for the close");
        assert_eq!((told.generation, told.closed), (generation, true));
        assert!(site.since(generation).closed);
        site.refresh();
        assert!(updates.try_recv().is_err(), "told once");
    }
}
