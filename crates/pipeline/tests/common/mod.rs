//! The end-to-end scenario on real data, for every log backend: a real session is split into "clubs",
//! published in a shuffled order with duplicates, aggregated; the replayed national result equals
//! `simpairs score` on the whole file byte for byte, each club's own result equals scoring that club
//! alone, and the aggregator's standings agree with the engine.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::sync::Arc;

use simpairs_log::{Consumer, Log, Produce, Record, StreamConfig};
use std::sync::atomic::AtomicBool;

use simpairs_events::types::{Factoring, Scoring};
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};
use simpairs_scoring::{Options, Outcome};

/// The clubs of the real session, in the order `split_session` gives their CSVs.
pub const CLUBS: [&str; 3] = ["NORTH", "SOUTH", "WEST"];

fn fixture(path: &str) -> Vec<u8> {
    let full = format!(
        "{}/../../tests/fixtures/realdata/native/{path}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The real session as traveller CSV rows, each given to a club by its NS pair number.
pub fn split_session(file: &str) -> (String, Vec<String>) {
    let imported = simpairs_formats::import::read(file, &fixture(file), None).unwrap();
    let field = &imported.field;
    let header = "board,club,section,ns_pair,ew_pair,contract,declarer,tricks,ns_score,ew_score,adjusted,movement\n";
    let mut national = String::from(header);
    let mut clubs = vec![String::from(header); CLUBS.len()];
    for row in 0..field.len() {
        let r = field.result(row);
        let (ns, ew) = (&field.pairs()[r.ns as usize], &field.pairs()[r.ew as usize]);
        let club = match &ns.label {
            simpairs_scoring::PairLabel::Number(n) => *n as usize % CLUBS.len(),
            simpairs_scoring::PairLabel::Text(t) => t.len() % CLUBS.len(),
        };
        let d = imported.details(row);
        let contract = d.and_then(|d| d.contract.clone()).unwrap_or_default();
        let declarer = d
            .and_then(|d| d.declarer)
            .map(|s| s.letter().to_string())
            .unwrap_or_default();
        let tricks = d
            .and_then(|d| d.tricks)
            .map(|t| t.to_string())
            .unwrap_or_default();
        let (ns_score, ew_score, adjusted) = match r.outcome {
            Outcome::Played(s) => (s.to_string(), String::new(), String::new()),
            Outcome::Split { ns, ew } => (ns.to_string(), ew.to_string(), String::new()),
            Outcome::Adjusted {
                ns_percent,
                ew_percent,
            } => (
                String::new(),
                String::new(),
                format!("{ns_percent}/{ew_percent}"),
            ),
        };
        // A contract and its score both given must agree; keep the contract only when it does.
        let (contract, declarer, tricks) = if adjusted.is_empty() {
            (contract, declarer, tricks)
        } else {
            Default::default()
        };
        let movement = if ns.direction.is_some() {
            "mitchell"
        } else {
            "howell"
        };
        let line = format!(
            "{},{},{},{},{},{contract},{declarer},{tricks},{ns_score},{ew_score},{adjusted},{movement}\n",
            r.board,
            CLUBS[club],
            field.section_name(ns.section),
            ns.label,
            ew.label
        );
        national.push_str(&line);
        clubs[club].push_str(&line);
    }
    (national, clubs)
}

fn json(field: &simpairs_scoring::Field, options: &Options) -> Vec<u8> {
    let scoring = simpairs_scoring::score(field, options).unwrap();
    let mut out = Vec::new();
    simpairs_formats::report::write_json(&mut out, &scoring).unwrap();
    out
}

pub use simpairs_sim::club_key as key_of;

/// A real session's three clubs, declared as `event` (keys of the simulated roles, 30 boards, one
/// partition): the clubs' traveller CSVs.
pub fn declared_session(log: &dyn simpairs_log::Log, event: &str, name: &str) -> Vec<String> {
    let (_, clubs) = split_session("cobalt/mp_pairs_mitchell_03.xml");
    let lines = CLUBS
        .iter()
        .map(|c| ClubLine {
            club_id: c.to_string(),
            name: c.to_string(),
            public_key: Some(key_of(c).public()),
        })
        .collect();
    declare(
        log,
        Declaration::matchpoints(event, name, 30, lines, 1).with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )
    .unwrap();
    clubs
}

/// Publishes one club's CSV as `club.csv`, signed with `key`.
pub fn publish_csv(
    log: &dyn simpairs_log::Log,
    event: &str,
    club: &str,
    key: &simpairs_events::PrivateKey,
    csv: &str,
) {
    simpairs_pipeline::publish::publish_file(
        log,
        event,
        club,
        key,
        "club.csv",
        csv.as_bytes(),
        None,
    )
    .unwrap();
}

/// Club `CLUBS[i]`'s `csv`, sealed with its key as `club publish` seals it, not yet appended.
pub fn sealed_csv(
    log: &dyn simpairs_log::Log,
    event: &str,
    i: usize,
    csv: &str,
) -> Vec<simpairs_events::Event> {
    let codec = simpairs_events::Codec::new().unwrap();
    let name = format!("{}.csv", CLUBS[i]);
    let file = simpairs_pipeline::publish::ClubFile {
        name: &name,
        bytes: csv.as_bytes(),
        format: None,
        whole_session: false,
    };
    simpairs_pipeline::publish::seal_file(&codec, log, event, CLUBS[i], &key_of(CLUBS[i]), &file)
        .unwrap()
        .events
}

/// Declares `event` for a real session (`national`, its whole CSV): its boards, Neuberg
/// matchpoints, the three clubs and the simulated roles' keys.
pub fn declare_real_event(
    log: &dyn simpairs_log::Log,
    event: &str,
    partitions: u32,
    national: &str,
) {
    let national_field = simpairs_formats::csv::read("national.csv", national.as_bytes())
        .unwrap()
        .field;
    let boards: Vec<i32> = national_field
        .rows_by_board()
        .boards
        .iter()
        .map(|&b| i32::from(b))
        .collect();
    declare(
        log,
        Declaration {
            event_id: event.into(),
            name: "real data".into(),
            boards,
            scoring: Scoring::Matchpoints,
            factoring: Factoring::Neuberg,
            clubs: CLUBS
                .iter()
                .map(|c| ClubLine {
                    club_id: c.to_string(),
                    name: c.to_string(),
                    public_key: Some(key_of(c).public()),
                })
                .collect(),
            ..Declaration::matchpoints(event, "real data", 1, Vec::new(), partitions)
        }
        .with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )
    .unwrap();
}

/// Publishes the clubs (shuffled, with duplicates) to `log`, aggregates, and checks the replay against
/// `simpairs score` on the whole session and on each club.
pub fn run_pipeline(
    log: Arc<dyn simpairs_log::Log>,
    event: &str,
    partitions: u32,
    national: &str,
    clubs: &[String],
) {
    declare_real_event(log.as_ref(), event, partitions, national);
    let national_field = simpairs_formats::csv::read("national.csv", national.as_bytes())
        .unwrap()
        .field;
    // Shuffled order, with duplicates (the same records delivered twice): WEST, NORTH, WEST
    // again, SOUTH, NORTH again.
    let codec = simpairs_events::Codec::new().unwrap();
    let sealed: Vec<Vec<simpairs_events::Event>> = (0..CLUBS.len())
        .map(|i| sealed_csv(log.as_ref(), event, i, &clubs[i]))
        .collect();
    for i in [2, 0, 2, 1, 0] {
        simpairs_pipeline::publish::append_submission(log.as_ref(), &codec, event, &sealed[i])
            .unwrap();
    }
    let mut aggregator =
        Aggregator::open(log.clone(), event, simpairs_sim::aggregator_key()).unwrap();
    let options = AggregateOptions {
        until_idle: true,
        ..AggregateOptions::default()
    };
    aggregator
        .run(&options, &AtomicBool::new(false), |_| {})
        .unwrap();
    assert_eq!(
        aggregator.state().applied_count(),
        3,
        "duplicates apply once"
    );

    let simpairs_pipeline::replay::Replay { state, replayed } =
        simpairs_pipeline::replay::replay(log.as_ref(), event, None).unwrap();
    assert!(
        replayed.dead_letters.is_empty(),
        "{:?}",
        replayed.dead_letters
    );
    let options = Options::default();
    let replayed_national = json(
        &simpairs_pipeline::replay::field_of(&state, None).unwrap(),
        &options,
    );
    let scored_national = json(&national_field, &options);
    assert!(
        replayed_national == scored_national,
        "the replayed national result differs from score on the whole file"
    );
    for (i, club) in CLUBS.iter().enumerate() {
        let own = simpairs_formats::csv::read("club.csv", clubs[i].as_bytes())
            .unwrap()
            .field;
        let replayed = json(
            &simpairs_pipeline::replay::field_of(&state, Some(club)).unwrap(),
            &options,
        );
        assert!(
            replayed == json(&own, &options),
            "club {club}'s own result differs from scoring it alone"
        );
    }

    // The national standings a projection of the aggregator's output ranks agree with the engine
    // on the whole file.
    let projection = simpairs_pipeline::project::Projection::load(log.as_ref(), event).unwrap();
    let last = projection
        .national
        .expect("national standings were ranked")
        .to_event(event);
    let scoring = simpairs_scoring::score(&national_field, &options).unwrap();
    let mut expected = String::new();
    for id in simpairs_scoring::standings::display_order(&scoring) {
        let s = &scoring.standings()[id as usize];
        let p = &national_field.pairs()[id as usize];
        let _ = writeln!(
            expected,
            "{} {} {} {} {}",
            national_field.club_name(p.club),
            p.label,
            s.rank,
            s.total_hundredths,
            s.percent_hundredths.unwrap_or(-1)
        );
    }
    let mut got = String::new();
    for s in &last.standings {
        let _ = writeln!(
            got,
            "{} {} {} {} {}",
            s.club_id,
            s.pair,
            s.rank,
            s.total_hundredths,
            s.percent_hundredths.unwrap_or(-1)
        );
    }
    assert_eq!(got, expected);
}

/// The broker's address from `SIMPAIRS_KAFKA`; without it, `None` with a note (a failure under CI).
pub fn kafka_location() -> Option<String> {
    match std::env::var("SIMPAIRS_KAFKA") {
        Ok(location) => Some(location),
        Err(_) if std::env::var_os("CI").is_some() => panic!(
            "SIMPAIRS_KAFKA is not set: start the broker with scripts/broker start and export its address"
        ),
        Err(_) => {
            eprintln!(
                "skipped: no broker (start one with `export SIMPAIRS_KAFKA=$(scripts/broker start)`)"
            );
            None
        }
    }
}

/// The embedded log, and a broker's too when `SIMPAIRS_KAFKA` names one, each with an event id
/// of its own (from `prefix`).
pub fn logs(prefix: &str) -> Vec<(Arc<dyn simpairs_log::Log>, String)> {
    let dir = Box::leak(Box::new(tempfile::tempdir().unwrap()));
    let mut logs: Vec<(Arc<dyn simpairs_log::Log>, String)> = vec![(
        Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap()),
        prefix.to_string(),
    )];
    if let Some(location) = kafka_location() {
        let event = format!("{prefix}-{}-{}", std::process::id(), fastrand::u32(..));
        logs.push((
            Arc::new(simpairs_kafka::KafkaLog::open(&location).expect("the broker answers")),
            event,
        ));
    }
    logs
}

/// What an [`Intercepted`] log does with an append: `None` passes it on; otherwise the answer
/// given instead.
pub type Hook = Box<
    dyn Fn(&str, &[Produce<'_>]) -> Option<simpairs_log::Result<Vec<(u32, u64)>>> + Send + Sync,
>;

/// A log whose appends a test intercepts (a full disk, records held back); everything else goes
/// to `inner`.
pub struct Intercepted {
    pub inner: Arc<dyn Log>,
    pub hook: Hook,
}

/// A log whose appends to `stream` fail as on a full disk: all of them, or only those that hold
/// an event of type `holding`.
pub fn full_disk(
    inner: Arc<dyn Log>,
    stream: String,
    holding: Option<simpairs_events::EventType>,
) -> Intercepted {
    let hook: Hook = Box::new(move |to, records| {
        let refused = to == stream && holding.is_none_or(|wanted| holds(records, wanted));
        refused.then(|| {
            Err(simpairs_log::Error::Io {
                action: "write to the segment file",
                path: to.into(),
                source: std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    "no space left on device",
                ),
            })
        })
    });
    Intercepted { inner, hook }
}

/// Whether any of `records` is an event of type `wanted`.
fn holds(records: &[Produce<'_>], wanted: simpairs_events::EventType) -> bool {
    let codec = simpairs_events::Codec::new().unwrap();
    records.iter().any(|r| {
        codec
            .decode(r.value)
            .is_ok_and(|e| e.event_type() == wanted)
    })
}

impl Log for Intercepted {
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
        match (self.hook)(stream, records) {
            Some(answer) => answer,
            None => self.inner.append(stream, records),
        }
    }
    fn append_derived(
        &self,
        stream: &str,
        records: &[Produce<'_>],
    ) -> simpairs_log::Result<Vec<(u32, u64)>> {
        match (self.hook)(stream, records) {
            Some(answer) => answer,
            None => self.inner.append_derived(stream, records),
        }
    }
    fn read(
        &self,
        stream: &str,
        partition: u32,
        from: u64,
        max: usize,
    ) -> simpairs_log::Result<Vec<Record>> {
        self.inner.read(stream, partition, from, max)
    }
    fn end_offset(&self, stream: &str, partition: u32) -> simpairs_log::Result<u64> {
        self.inner.end_offset(stream, partition)
    }
    fn consumer(&self, group: &str, streams: &[&str]) -> simpairs_log::Result<Box<dyn Consumer>> {
        self.inner.consumer(group, streams)
    }
}
