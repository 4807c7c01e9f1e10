//! The replay index gives what `replay` gives, at every moment of a log: a real session split into
//! clubs, published in a shuffled order with duplicates, a correction, a forged seal and a record
//! that does not read; on one partition (every offset and every time) and on three (every time);
//! and on a log whose timestamps go back (where the index leaves times to the replay). A log that
//! grew has its index read on from where it ended: at every record, byte for byte the index built
//! afresh. A log that is not the one indexed has it built again; a damaged index is an error that
//! says what to do, or is built again when the log grew.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use simpairs_events::Stream;
use simpairs_events::types::{Factoring, Scoring};
use simpairs_log::{Log, Produce, StreamConfig};
use simpairs_pipeline::declare::{ClubLine, Declaration, declare};
use simpairs_pipeline::history::{Coverage, Index, Moment, index_path, replay_at, replay_at_then};
use simpairs_pipeline::replay::AsOf;
use simpairs_pipeline::stream_name;

pub(crate) const EVENT: &str = "history";
const CLUBS: [&str; 3] = ["NORTH", "SOUTH", "WEST"];

/// What `replay --json` prints of a moment's report (players and warnings included).
fn report(imported: &simpairs_formats::Imported) -> String {
    let scoring =
        simpairs_scoring::score(&imported.field, &simpairs_scoring::Options::default()).unwrap();
    let mut out = Vec::new();
    simpairs_formats::report::write_imported_json(&mut out, imported, &scoring).unwrap();
    String::from_utf8(out).unwrap()
}

fn json(field: &simpairs_scoring::Field) -> String {
    let scoring = simpairs_scoring::score(field, &simpairs_scoring::Options::default()).unwrap();
    let mut out = Vec::new();
    simpairs_formats::report::write_json(&mut out, &scoring).unwrap();
    String::from_utf8(out).unwrap()
}

/// A log holding the real session split into clubs, published with duplicates, a correction of
/// one club, a seal signed with the wrong key and a record that does not read.
fn event_log(partitions: u32) -> (tempfile::TempDir, Arc<dyn Log>) {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let (_, clubs) = common::split_session("cobalt/mp_pairs_mitchell_03.xml");
    declare(
        log.as_ref(),
        Declaration {
            scoring: Scoring::Matchpoints,
            factoring: Factoring::Neuberg,
            ..Declaration::matchpoints(
                EVENT,
                "history",
                21,
                CLUBS
                    .iter()
                    .map(|c| ClubLine {
                        club_id: c.to_string(),
                        name: c.to_string(),
                        public_key: Some(common::key_of(c).public()),
                    })
                    .collect(),
                partitions,
            )
            .with_keys(
                simpairs_sim::aggregator_key().public(),
                simpairs_sim::organiser_key().public(),
            )
        },
    )
    .unwrap();
    let publish = |club: usize, text: &str, key: &simpairs_events::PrivateKey| {
        // Records of different publishes get different times.
        std::thread::sleep(std::time::Duration::from_millis(3));
        simpairs_pipeline::publish::publish_file(
            log.as_ref(),
            EVENT,
            CLUBS[club],
            key,
            "club.csv",
            text.as_bytes(),
            None,
        )
    };
    // WEST's file names its players: a replay reports them. Its records are delivered twice.
    let clubs = [clubs[0].clone(), clubs[1].clone(), with_names(&clubs[2])];
    let west = common::sealed_csv(log.as_ref(), EVENT, 2, &clubs[2]);
    let codec = simpairs_events::Codec::new().unwrap();
    simpairs_pipeline::publish::append_submission(log.as_ref(), &codec, EVENT, &west).unwrap();
    publish(0, &clubs[0], &common::key_of(CLUBS[0])).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    simpairs_pipeline::publish::append_submission(log.as_ref(), &codec, EVENT, &west).unwrap();
    // Signed with another club's key: refused by publish, so appended by hand below.
    let forged = simpairs_pipeline::publish::publish_file(
        log.as_ref(),
        EVENT,
        CLUBS[1],
        &common::key_of("SOMEONE ELSE"),
        "club.csv",
        clubs[1].as_bytes(),
        None,
    );
    assert!(forged.is_err(), "publish refuses a seal it would set aside");
    let results = stream_name(EVENT, Stream::Results);
    std::thread::sleep(std::time::Duration::from_millis(3));
    log.append(
        &results,
        &[Produce::new(
            b"x",
            b"not a record",
            simpairs_pipeline::now_ms(),
        )],
    )
    .unwrap();
    publish(1, &clubs[1], &common::key_of(CLUBS[1])).unwrap();
    // Two corrections of NORTH, each changing its first result's score.
    let corrected = correct_first_score(&clubs[0]);
    publish(0, &corrected, &common::key_of(CLUBS[0])).unwrap();
    publish(
        0,
        &correct_first_score(&corrected),
        &common::key_of(CLUBS[0]),
    )
    .unwrap();
    (dir, log)
}

/// The club's CSV with each pair's players named (`ns_names`, `ew_names`).
fn with_names(csv: &str) -> String {
    let mut lines = csv.lines();
    let mut out = format!("{},ns_names,ew_names\n", lines.next().unwrap());
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let (ns, ew) = (cells[3], cells[4]);
        out += &format!("{line},North {ns} & South {ns},East {ew} & West {ew}\n");
    }
    out
}

/// The club's CSV with the NS score of its first row made 10 more: no longer the contract's
/// score, so the recorded score stands with a warning (which replay reports).
fn correct_first_score(csv: &str) -> String {
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    let mut cells: Vec<String> = lines[1].split(',').map(str::to_string).collect();
    let score: i32 = cells[8].parse().expect("a plain score in the first row");
    cells[8] = (score + 10).to_string();
    lines[1] = cells.join(",");
    lines.join("\n") + "\n"
}

/// Compares the index's moment with the replay's; returns whether the index answered.
fn same_at(log: &dyn Log, index_dir: &Path, as_of: Option<AsOf>) -> bool {
    let replayed = Moment::replayed(log, EVENT, as_of);
    let indexed = replay_at(log, EVENT, Some(index_dir), as_of);
    let (replayed, indexed) = match (replayed, indexed) {
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "at {as_of:?}");
            return false;
        }
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => panic!("at {as_of:?}: replay {:?}, index {:?}", a.err(), b.err()),
    };
    let at = format!("{as_of:?}");
    assert_same(&replayed, &indexed, &at);
    indexed.from_index()
}

/// Asserts that two moments hold the same event: what was read, applied and set aside, the fields
/// and reports of the whole event and of each club, and the results in force.
fn assert_same(replayed: &Moment, indexed: &Moment, at: &str) {
    assert_eq!(replayed.records, indexed.records, "records read {at}");
    assert_eq!(replayed.dead_letters, indexed.dead_letters, "{at}");
    assert_eq!(replayed.generation(), indexed.generation(), "{at}");
    assert_eq!(replayed.declared, indexed.declared, "{at}");
    assert_eq!(
        json(&replayed.field(None).unwrap()),
        json(&indexed.field(None).unwrap()),
        "{at}"
    );
    if indexed.generation() >= 4 {
        assert!(
            !replayed.imported(None).unwrap().warnings.is_empty(),
            "the corrections warn"
        );
    }
    if indexed.generation() >= 1 {
        let named = |m: &Moment| {
            let imported = m.imported(None).unwrap();
            imported.pairs.iter().any(|p| !p.players.is_empty())
        };
        assert!(named(replayed) && named(indexed), "WEST's players {at}");
    }
    for club in [None, Some("NORTH"), Some("WEST")] {
        match (replayed.imported(club), indexed.imported(club)) {
            (Ok(x), Ok(y)) => assert_eq!(report(&x), report(&y), "{club:?} {at}"),
            (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string(), "{club:?} {at}"),
            (x, y) => panic!("{club:?} {at}: {:?} / {:?}", x.err(), y.err()),
        }
    }
    let (a, b) = (replayed.results().unwrap(), indexed.results().unwrap());
    assert_eq!(a.clubs(), b.clubs(), "{at}");
    assert_eq!(a.pairs(), b.pairs(), "{at}");
    assert_eq!(a.result_count(), b.result_count(), "{at}");
    assert!(a.results().eq(b.results()), "results in force {at}");
    for club in CLUBS.iter().chain(["NOWHERE"].iter()) {
        match (replayed.field(Some(club)), indexed.field(Some(club))) {
            (Ok(x), Ok(y)) => assert_eq!(json(&x), json(&y), "club {club} {at}"),
            (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string(), "club {club} {at}"),
            (x, y) => panic!("club {club} {at}: {:?} / {:?}", x.err(), y.err()),
        }
    }
}

#[test]
fn a_moment_of_an_index_just_built_is_the_moment_of_its_file() {
    let (_dir, log) = event_log(1);
    let end = log
        .end_offset(&stream_name(EVENT, Stream::Results), 0)
        .unwrap();
    for as_of in [
        None,
        Some(AsOf::Offset(end / 2)),
        Some(AsOf::Offset(end - 1)),
    ] {
        let index_dir = tempfile::tempdir().unwrap();
        // The first replay builds the index and reads the moment from what it built; the second
        // opens the file.
        let built = replay_at(log.as_ref(), EVENT, Some(index_dir.path()), as_of).unwrap();
        let opened = replay_at(log.as_ref(), EVENT, Some(index_dir.path()), as_of).unwrap();
        assert!(built.from_index() && opened.from_index(), "{as_of:?}");
        assert_same(&built, &opened, &format!("{as_of:?}"));
    }
    let index_dir = tempfile::tempdir().unwrap();
    let built = Index::build(log.as_ref(), EVENT, index_dir.path()).unwrap();
    let opened = Index::open(index_dir.path(), EVENT).unwrap().unwrap();
    // Every range, as the timeline reads them a chunk at a time.
    let n = built.generations().len();
    for start in 0..n {
        for end in start..=n {
            assert_eq!(
                built.applied(start..end).unwrap(),
                opened.applied(start..end).unwrap(),
                "{start}..{end}"
            );
        }
    }
}

/// The first replay writes the index it built while the field is made from what the build holds:
/// afterwards the file is there, covers the log and gives the same moment; where the file cannot
/// be put in place (a directory has its name), the replay is answered all the same, and no
/// temporary file is left.
#[test]
fn an_index_written_while_the_field_is_made_is_there_afterwards_or_the_answer_stands() {
    let (_dir, log) = event_log(1);
    let replayed = Moment::replayed(log.as_ref(), EVENT, None).unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let (moment, imported) =
        replay_at_then(log.as_ref(), EVENT, Some(index_dir.path()), None, |m| {
            m.imported(None)
        })
        .unwrap();
    assert!(moment.from_index());
    assert_same(&replayed, &moment, "written while the field is made");
    assert_eq!(report(&imported), report(&replayed.imported(None).unwrap()));
    let opened = Index::open(index_dir.path(), EVENT)
        .unwrap()
        .expect("the index file");
    assert_eq!(opened.coverage(log.as_ref()).unwrap(), Coverage::Whole);
    let again = replay_at(log.as_ref(), EVENT, Some(index_dir.path()), None).unwrap();
    assert_same(&moment, &again, "the file written");

    let blocked = tempfile::tempdir().unwrap();
    std::fs::create_dir(index_path(blocked.path(), EVENT)).unwrap();
    let (moment, _) =
        replay_at_then(log.as_ref(), EVENT, Some(blocked.path()), None, |_| Ok(())).unwrap();
    assert!(moment.from_index());
    assert_same(&replayed, &moment, "the file not written");
    let left: Vec<_> = std::fs::read_dir(blocked.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left.len(),
        1,
        "only the directory in the index's way: {left:?}"
    );
}

/// Every record's timestamp, and the millisecond before it.
fn times(log: &dyn Log) -> BTreeSet<i64> {
    let results = stream_name(EVENT, Stream::Results);
    let mut times = BTreeSet::new();
    for p in 0..log.partitions(&results).unwrap() {
        let end = log.end_offset(&results, p).unwrap();
        simpairs_pipeline::read_range(log, &results, p, 0, end, |r| {
            times.insert(r.timestamp_ms);
            times.insert(r.timestamp_ms - 1);
        })
        .unwrap();
    }
    times
}

#[test]
fn on_one_partition_the_index_gives_replay_at_every_offset_and_every_time() {
    let (_dir, log) = event_log(1);
    let index_dir = tempfile::tempdir().unwrap();
    let end = log
        .end_offset(&stream_name(EVENT, Stream::Results), 0)
        .unwrap();
    let index = Index::build(log.as_ref(), EVENT, index_dir.path()).unwrap();
    // WEST, NORTH, SOUTH and two corrections of NORTH (WEST's copy changes nothing).
    assert_eq!(index.generations().len(), 5);
    assert_eq!(index.dead_letters().len(), 1, "{:?}", index.dead_letters());
    let mut answered = 0;
    for offset in 0..end + 2 {
        answered += usize::from(same_at(
            log.as_ref(),
            index_dir.path(),
            Some(AsOf::Offset(offset)),
        ));
    }
    // Every offset from the first seal on is answered by the index.
    let first_seal = index.generations()[0].offset;
    assert_eq!(answered as u64, end + 2 - first_seal);
    let mut timed = 0;
    for t in times(log.as_ref()) {
        timed += usize::from(same_at(log.as_ref(), index_dir.path(), Some(AsOf::Time(t))));
    }
    assert!(timed > 0);
    assert!(same_at(log.as_ref(), index_dir.path(), None));
}

#[test]
fn on_three_partitions_the_index_gives_the_whole_event_and_leaves_moments_to_replay() {
    let (_dir, log) = event_log(3);
    let index_dir = tempfile::tempdir().unwrap();
    let index = Index::build(log.as_ref(), EVENT, index_dir.path()).unwrap();
    assert_eq!(index.generations().len(), 5);
    let times = times(log.as_ref());

    for t in times {
        assert!(
            !same_at(log.as_ref(), index_dir.path(), Some(AsOf::Time(t))),
            "{t} replayed"
        );
    }
    assert!(same_at(log.as_ref(), index_dir.path(), None));
    // Offsets are per partition: replay refuses them, and so does the index.
    assert!(!same_at(
        log.as_ref(),
        index_dir.path(),
        Some(AsOf::Offset(3))
    ));
}

/// A copy of the event's log whose results have the given timestamps (by record, in order).
fn copy_with_times(
    log: &dyn Log,
    time: impl Fn(usize, i64) -> i64,
) -> (tempfile::TempDir, Arc<dyn Log>) {
    let dir = tempfile::tempdir().unwrap();
    let copy: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    for stream in [Stream::Declarations, Stream::Results] {
        let name = stream_name(EVENT, stream);
        let partitions = log.partitions(&name).unwrap();
        copy.create_stream(&name, &StreamConfig::with_partitions(partitions))
            .unwrap();
        let mut n = 0;
        for p in 0..partitions {
            let end = log.end_offset(&name, p).unwrap();
            let mut records = Vec::new();
            simpairs_pipeline::read_range(log, &name, p, 0, end, |r| records.push(r.clone()))
                .unwrap();
            for r in records {
                let at = if stream == Stream::Results {
                    time(n, r.timestamp_ms)
                } else {
                    r.timestamp_ms
                };
                n += 1;
                copy.append(&name, &[Produce::new(&r.key, &r.value, at).to_partition(p)])
                    .unwrap();
            }
        }
    }
    (dir, copy)
}

#[test]
fn where_timestamps_go_back_times_are_replayed_and_offsets_still_indexed() {
    let (_dir, log) = event_log(1);
    // Every other record a minute earlier.
    let (_copy_dir, copy) =
        copy_with_times(log.as_ref(), |n, t| if n % 2 == 1 { t - 60_000 } else { t });
    let index_dir = tempfile::tempdir().unwrap();
    Index::build(copy.as_ref(), EVENT, index_dir.path()).unwrap();
    for t in times(copy.as_ref()) {
        assert!(
            !same_at(copy.as_ref(), index_dir.path(), Some(AsOf::Time(t))),
            "time {t} left to replay"
        );
    }
    let end = copy
        .end_offset(&stream_name(EVENT, Stream::Results), 0)
        .unwrap();
    assert!(same_at(
        copy.as_ref(),
        index_dir.path(),
        Some(AsOf::Offset(end - 1))
    ));
}

/// The log grows: WEST publishes a correction of its first score.
fn correct_west(log: &dyn Log) {
    let (_, clubs) = common::split_session("cobalt/mp_pairs_mitchell_03.xml");
    simpairs_pipeline::publish::publish_file(
        log,
        EVENT,
        "WEST",
        &common::key_of("WEST"),
        "w.csv",
        correct_first_score(&clubs[2]).as_bytes(),
        None,
    )
    .unwrap();
}

/// Changes a byte of the index in `dir`, in its last applied submission's message.
fn damage(dir: &Path) {
    let path = simpairs_pipeline::history::index_path(dir, EVENT);
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 20] ^= 0x55;
    std::fs::write(&path, bytes).unwrap();
}

#[test]
fn a_log_that_grew_has_its_index_read_on_another_log_built_again_and_a_damaged_one_is_loud() {
    let (_dir, log) = event_log(1);
    let index_dir = tempfile::tempdir().unwrap();
    let results = stream_name(EVENT, Stream::Results);
    let built = Index::build(log.as_ref(), EVENT, index_dir.path()).unwrap();
    let before = built.generations().len();
    let last_seal = built.generations()[before - 1].offset;
    correct_west(log.as_ref());
    // A moment it covers is answered as it is; the whole event reads it on.
    assert!(same_at(
        log.as_ref(),
        index_dir.path(),
        Some(AsOf::Offset(last_seal))
    ));
    assert_eq!(
        Index::open(index_dir.path(), EVENT)
            .unwrap()
            .unwrap()
            .generations()
            .len(),
        before
    );
    assert!(same_at(log.as_ref(), index_dir.path(), None));
    assert_eq!(
        Index::open(index_dir.path(), EVENT)
            .unwrap()
            .unwrap()
            .generations()
            .len(),
        before + 1
    );
    // Another log under the same name (a copy with other times): built again.
    let (_copy_dir, copy) = copy_with_times(log.as_ref(), |_, t| t + 1);
    assert_eq!(
        Index::open(index_dir.path(), EVENT)
            .unwrap()
            .unwrap()
            .coverage(copy.as_ref())
            .unwrap(),
        simpairs_pipeline::history::Coverage::Other
    );
    assert!(same_at(copy.as_ref(), index_dir.path(), None));
    // A damaged index: reading it says so and what to do.
    damage(index_dir.path());
    let moment = replay_at(copy.as_ref(), EVENT, Some(index_dir.path()), None).unwrap();
    let error = moment.field(None).unwrap_err().to_string();
    assert!(
        error.contains("damaged") && error.contains("delete the file"),
        "{error}"
    );
    let _ = results;
}

/// The results records of the event's log, partition after partition: (partition, record).
fn results_records(log: &dyn Log) -> Vec<(u32, simpairs_log::Record)> {
    let results = stream_name(EVENT, Stream::Results);
    let mut records = Vec::new();
    for p in 0..log.partitions(&results).unwrap() {
        let end = log.end_offset(&results, p).unwrap();
        simpairs_pipeline::read_range(log, &results, p, 0, end, |r| records.push((p, r.clone())))
            .unwrap();
    }
    records
}

/// A log holding the event's declaration and none of its results yet.
fn declared_copy(log: &dyn Log) -> (tempfile::TempDir, Arc<dyn Log>) {
    let dir = tempfile::tempdir().unwrap();
    let copy: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    let declarations = stream_name(EVENT, Stream::Declarations);
    let results = stream_name(EVENT, Stream::Results);
    for name in [&declarations, &results] {
        copy.create_stream(
            name,
            &StreamConfig::with_partitions(log.partitions(name).unwrap()),
        )
        .unwrap();
    }
    simpairs_pipeline::read_range(
        log,
        &declarations,
        0,
        0,
        log.end_offset(&declarations, 0).unwrap(),
        |r| {
            copy.append(
                &declarations,
                &[Produce::new(&r.key, &r.value, r.timestamp_ms)],
            )
            .unwrap();
        },
    )
    .unwrap();
    (dir, copy)
}

/// The index file of the event in `dir`, byte for byte.
fn index_bytes(dir: &Path) -> Vec<u8> {
    std::fs::read(simpairs_pipeline::history::index_path(dir, EVENT)).unwrap()
}

/// The event's log on `partitions` partitions, grown record by record: its results records are
/// appended one at a time to a copy holding its declaration, and `each` is called after each with
/// the copy, how many were appended and how many there are. Returns how many there are.
pub(crate) fn grown_record_by_record(
    partitions: u32,
    mut each: impl FnMut(&dyn Log, usize, usize),
) -> usize {
    let (_dir, log) = event_log(partitions);
    let (_copy_dir, copy) = declared_copy(log.as_ref());
    let results = stream_name(EVENT, Stream::Results);
    let records = results_records(log.as_ref());
    for (n, (p, r)) in records.iter().enumerate() {
        copy.append(
            &results,
            &[Produce::new(&r.key, &r.value, r.timestamp_ms).to_partition(*p)],
        )
        .unwrap();
        each(copy.as_ref(), n + 1, records.len());
    }
    records.len()
}

#[test]
fn an_index_read_on_through_appended_records_is_the_index_built_afresh() {
    for partitions in [1, 3] {
        // One index read on at every record, opened from its file; one every seventh record,
        // held by this process since it was built or read on (it holds its submissions decoded).
        let (every, seventh) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut held: Option<Index> = None;
        let mut read_on = 0;
        let total = grown_record_by_record(partitions, |copy, appended, total| {
            let afresh = tempfile::tempdir().unwrap();
            Index::build(copy, EVENT, afresh.path()).unwrap();
            let fresh = Index::open(afresh.path(), EVENT).unwrap().unwrap();
            let mut indexes = Vec::new();
            if let Some(index) = Index::open(every.path(), EVENT).unwrap() {
                read_on += usize::from(index.read_on(copy, every.path()).unwrap().is_some());
            }
            indexes.push((
                every.path(),
                Index::up_to_date(copy, EVENT, every.path()).unwrap(),
            ));
            if appended % 7 == 0 || appended == total {
                let index = match held.take().map(|h| h.read_on(copy, seventh.path())) {
                    Some(Ok(Some(index))) => {
                        read_on += 1;
                        index
                    }
                    _ => Index::up_to_date(copy, EVENT, seventh.path()).unwrap(),
                };
                held = Some(index.clone());
                indexes.push((seventh.path(), index));
            }
            for (dir, index) in indexes {
                let at = format!("{partitions} partitions, {appended} records");
                assert_eq!(index_bytes(dir), index_bytes(afresh.path()), "{at}");
                let all = 0..fresh.generations().len();
                assert_eq!(index.generations(), fresh.generations(), "{at}");
                assert_eq!(
                    index.applied(all.clone()).unwrap(),
                    fresh.applied(all).unwrap(),
                    "{at}"
                );
            }
        });
        assert_eq!(
            Index::open(every.path(), EVENT)
                .unwrap()
                .unwrap()
                .generations()
                .len(),
            5
        );
        // On one partition every index was read on (after the first); on three, those whose
        // records were appended to the last partition.
        if partitions == 1 {
            assert_eq!(read_on, total - 1 + total.div_ceil(7) - 1);
        } else {
            assert!(read_on > 0);
        }
    }
}

#[test]
fn a_damaged_index_of_a_log_that_grew_is_built_again_instead_of_read_on() {
    let (_dir, log) = event_log(1);
    let index_dir = tempfile::tempdir().unwrap();
    Index::build(log.as_ref(), EVENT, index_dir.path()).unwrap();
    damage(index_dir.path());
    correct_west(log.as_ref());
    let opened = Index::open(index_dir.path(), EVENT).unwrap().unwrap();
    assert!(
        opened
            .read_on(log.as_ref(), index_dir.path())
            .unwrap()
            .is_none()
    );
    Index::up_to_date(log.as_ref(), EVENT, index_dir.path()).unwrap();
    let afresh = tempfile::tempdir().unwrap();
    Index::build(log.as_ref(), EVENT, afresh.path()).unwrap();
    assert_eq!(index_bytes(index_dir.path()), index_bytes(afresh.path()));
}

#[test]
fn a_moment_read_from_an_index_file_stays_readable_after_the_file_is_read_on_and_replaced() {
    // `compare` of a moment the index covers with the whole grown log, or the website's chart
    // while a `replay` reads the index on: the first moment's submissions are read from the file
    // it opened, not from the file that replaced it (whose sections lie elsewhere).
    let (_dir, log) = event_log(1);
    let index_dir = tempfile::tempdir().unwrap();
    let built = Index::build(log.as_ref(), EVENT, index_dir.path()).unwrap();
    let last_seal = built.generations().last().unwrap().offset;
    correct_west(log.as_ref());
    let covered = replay_at(
        log.as_ref(),
        EVENT,
        Some(index_dir.path()),
        Some(AsOf::Offset(last_seal)),
    )
    .unwrap();
    assert!(covered.from_index());
    let whole = replay_at(log.as_ref(), EVENT, Some(index_dir.path()), None).unwrap();
    assert_eq!(whole.generation(), covered.generation() + 1);
    let replayed = Moment::replayed(log.as_ref(), EVENT, Some(AsOf::Offset(last_seal))).unwrap();
    assert_same(
        &replayed,
        &covered,
        "the covered moment, after the index was replaced",
    );
}
