//! A club's correction, live: the aggregator takes the club's rows out of the national field and
//! puts its results in force back in, and every national board it publishes then is the board the
//! engine scores on the whole corrected session. (The aggregator keeps no club's field and holds
//! applied results packed, so a correction reads them back.)

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use simpairs_events::types::BoardScored;
use simpairs_log::Log;
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator, BatchReport};
use simpairs_pipeline::wire::value_to_wire;
use simpairs_scoring::Options;

const EVENT: &str = "corrected";

/// The session's CSV with the `n`th played line of `club` made an adjusted score (60/40): a
/// director's correction.
fn corrected(csv: &str, club: &str, n: usize) -> String {
    let mut seen = 0;
    let mut out = String::new();
    for line in csv.lines() {
        let fields: Vec<&str> = line.split(',').collect();
        let played = fields.get(1) == Some(&club) && !fields[8].is_empty();
        if played {
            seen += 1;
        }
        if played && seen == n {
            let mut changed = fields.clone();
            changed[5..11].copy_from_slice(&["", "", "", "", "", "60/40"]);
            out.push_str(&changed.join(","));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    assert!(seen >= n, "{club} has a {n}th played line");
    out
}

/// A board as the aggregator publishes it, in an order that does not depend on the field's rows.
fn board_summary(b: &BoardScored) -> String {
    let mut specials: Vec<String> = b
        .specials
        .iter()
        .map(|s| {
            format!(
                "{} {:?} {:?} {:?}",
                s.club_id, s.key, s.ns_value, s.ew_value
            )
        })
        .collect();
    specials.sort();
    let table: Vec<String> = b
        .table
        .iter()
        .map(|e| {
            format!(
                "{} x{} {:?} {:?}",
                e.ns_score, e.count, e.ns_value, e.ew_value
            )
        })
        .collect();
    format!(
        "board {} ({} results, top {:?})\n  {}\n  {}",
        b.board,
        b.results_count,
        b.top,
        table.join("\n  "),
        specials.join("\n  ")
    )
}

/// The same for the engine's scoring of the whole session.
fn engine_boards(national: &str) -> Vec<String> {
    let field = simpairs_formats::csv::read("national.csv", national.as_bytes())
        .unwrap()
        .field;
    let scoring = simpairs_scoring::score(&field, &Options::default()).unwrap();
    let field = scoring.field();
    scoring
        .boards()
        .iter()
        .map(|board| {
            let specials = scoring.board_specials(board).map(|(row, ns, ew)| {
                let r = field.result(row);
                let (p_ns, p_ew) = (&field.pairs()[r.ns as usize], &field.pairs()[r.ew as usize]);
                simpairs_events::types::SpecialValue {
                    club_id: field.club_name(p_ns.club).to_string(),
                    key: simpairs_events::types::ResultKey {
                        section: field.section_name(p_ns.section).into(),
                        board: i32::from(board.board),
                        ns_pair: p_ns.label.to_string().into(),
                        ew_pair: p_ew.label.to_string().into(),
                    },
                    ns_value: value_to_wire(ns),
                    ew_value: value_to_wire(ew),
                }
            });
            let table = scoring.board_table(board).into_iter().map(|l| {
                simpairs_events::types::TableEntry {
                    ns_score: l.ns_score,
                    count: l.count as i32,
                    ns_value: value_to_wire(l.ns_value),
                    ew_value: value_to_wire(l.ew_value),
                }
            });
            board_summary(&BoardScored {
                event_id: EVENT.into(),
                scope: Default::default(),
                board: i32::from(board.board),
                generation: 0,
                results_count: board.results as i32,
                target: scoring.target() as i32,
                top: value_to_wire(scoring.top(board)),
                datum: board.datum,
                table: table.collect(),
                specials: specials.collect(),
            })
        })
        .collect()
}

/// A live aggregator of `EVENT` on `log` (instance "main": a restart rebuilds its state from the
/// log up to its committed position): stops when the flag is set, and reports each batch.
fn live(
    log: &Arc<dyn Log>,
) -> (
    Arc<AtomicBool>,
    std::sync::mpsc::Receiver<BatchReport>,
    std::thread::JoinHandle<()>,
) {
    let stop = Arc::new(AtomicBool::new(false));
    let (reports, reported) = std::sync::mpsc::channel::<BatchReport>();
    let handle = {
        let (log, stop) = (log.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut aggregator =
                Aggregator::open(log, EVENT, simpairs_sim::aggregator_key()).unwrap();
            aggregator
                .run(&AggregateOptions::default(), &stop, |r| {
                    reports.send(r.clone()).unwrap()
                })
                .unwrap();
        })
    };
    (stop, reported, handle)
}

/// Waits for one submission to be reported applied.
fn applied(reported: &std::sync::mpsc::Receiver<BatchReport>, what: &str) {
    let report = reported
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{what} was never reported"));
    assert_eq!(report.submissions_applied, 1, "{what}");
}

/// Club `i` corrects its `n`th played line (see [`corrected`]) and the live aggregator applies it:
/// the session's CSV as corrected.
fn correct(
    log: &Arc<dyn Log>,
    reported: &std::sync::mpsc::Receiver<BatchReport>,
    national: &str,
    clubs: &mut [String],
    i: usize,
    n: usize,
) -> String {
    let club = common::CLUBS[i];
    clubs[i] = corrected(&clubs[i], club, n);
    common::publish_csv(log.as_ref(), EVENT, club, &common::key_of(club), &clubs[i]);
    applied(reported, &format!("{club}'s correction"));
    corrected(national, club, n)
}

/// The national boards the aggregator published last agree with the engine on `national`.
fn boards_agree(log: &dyn Log, national: &str) {
    let projection = simpairs_pipeline::project::Projection::load(log, EVENT).unwrap();
    let published: Vec<String> = projection
        .board_scores
        .iter()
        .filter(|((scope, _), _)| scope.is_empty())
        .map(|(_, b)| board_summary(b))
        .collect();
    let expected = engine_boards(national);
    assert_eq!(published.len(), expected.len());
    for (got, want) in published.iter().zip(&expected) {
        assert_eq!(got, want);
    }
}

#[test]
fn a_clubs_correction_reaches_the_national_boards_live_and_after_a_restart() {
    // 21 tables with artificial adjusted scores: specials in every club before the correction.
    let (national, mut clubs) = common::split_session("cobalt/mp_pairs_mitchell_02.xml");
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    common::declare_real_event(log.as_ref(), EVENT, 1, &national);
    let (stop, reported, handle) = live(&log);
    // SOUTH first, so that its rows are not the national field's last when it corrects.
    for i in [1, 0, 2] {
        let club = common::CLUBS[i];
        common::publish_csv(log.as_ref(), EVENT, club, &common::key_of(club), &clubs[i]);
        applied(&reported, club);
    }
    let national = correct(&log, &reported, &national, &mut clubs, 1, 3);
    stop.store(true, Ordering::Relaxed);
    handle.join().unwrap();
    boards_agree(log.as_ref(), &national);

    // Restarted, the aggregator reads its state and national field back from the log (packed,
    // club by club as they applied), and a correction of another club still lands right.
    let (stop, reported, handle) = live(&log);
    let national = correct(&log, &reported, &national, &mut clubs, 0, 2);
    stop.store(true, Ordering::Relaxed);
    handle.join().unwrap();
    boards_agree(log.as_ref(), &national);
}

/// The session's CSV with `change` made to the fields of each line of `club` (counted from 1).
fn club_lines(csv: &str, club: &str, mut change: impl FnMut(usize, &mut Vec<&str>)) -> String {
    let mut seen = 0;
    let lines = csv.lines().map(|line| {
        let mut fields: Vec<&str> = line.split(',').collect();
        if fields.get(1) == Some(&club) {
            seen += 1;
            change(seen, &mut fields);
        }
        fields.join(",") + "\n"
    });
    lines.collect()
}

/// SOUTH's session, published with its file as `first` makes it, then corrected by
/// `correction` (given whole: `whole_session`); the other clubs as they are. A live aggregator
/// applies everything.
fn published_then_corrected(
    national: &str,
    clubs: &[String],
    first: impl Fn(&str) -> String,
    (correction, whole_session): (&str, bool),
) -> (tempfile::TempDir, Arc<dyn Log>) {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    common::declare_real_event(log.as_ref(), EVENT, 1, national);
    let (stop, reported, handle) = live(&log);
    for (i, csv) in clubs.iter().enumerate() {
        let csv = if i == 1 { first(csv) } else { csv.clone() };
        let name = common::CLUBS[i];
        common::publish_csv(log.as_ref(), EVENT, name, &common::key_of(name), &csv);
        applied(&reported, name);
    }
    let south = common::CLUBS[1];
    let file = simpairs_pipeline::publish::ClubFile {
        name: "correction.csv",
        bytes: correction.as_bytes(),
        format: None,
        whole_session,
    };
    let key = common::key_of(south);
    simpairs_pipeline::publish::publish_club_file(log.as_ref(), EVENT, south, &key, &file).unwrap();
    applied(&reported, "the correction");
    stop.store(true, Ordering::Relaxed);
    handle.join().unwrap();
    (dir, log)
}

/// The projection and a replay of `log` hold `lines` results, none more.
fn holds(log: &dyn Log, lines: usize) -> simpairs_pipeline::replay::Replay {
    let projection = simpairs_pipeline::project::Projection::load(log, EVENT).unwrap();
    assert_eq!(projection.result_count(), lines);
    let replay = simpairs_pipeline::replay::replay(log, EVENT, None).unwrap();
    assert_eq!(replay.state.result_count(), lines);
    replay
}

#[test]
fn a_mistyped_pair_number_put_right_by_publishing_the_file_again_leaves_no_line_behind() {
    let (national, clubs) = common::split_session("cobalt/mp_pairs_mitchell_02.xml");
    let south = common::CLUBS[1];
    // The EW pair of SOUTH's fourth line mistyped as 99, a pair the section does not have; the
    // club puts the number right and publishes its whole file again.
    let mistyped = |csv: &str| {
        club_lines(csv, south, |n, f| {
            if n == 4 {
                f[4] = "99"
            }
        })
    };
    assert_ne!(mistyped(&clubs[1]), clubs[1], "SOUTH has a fourth line");
    let (_dir, log) = published_then_corrected(&national, &clubs, mistyped, (&clubs[1], false));
    // The national boards are the session's, as played.
    boards_agree(log.as_ref(), &national);
    holds(log.as_ref(), national.lines().count() - 1);
}

#[test]
fn a_correction_from_a_file_that_leaves_the_section_unnamed_corrects_the_named_one() {
    let (national, clubs) = common::split_session("cobalt/mp_pairs_mitchell_02.xml");
    // SOUTH's program calls its one section A (as Scorer does); the session's file leaves it
    // unnamed (as Compscore's USEBIO does), and so does SOUTH's correction of one line.
    let south = common::CLUBS[1];
    assert!(
        national
            .lines()
            .skip(1)
            .all(|l| l.split(',').nth(2) == Some(""))
    );
    let in_a = |csv: &str| club_lines(csv, south, |_, f| f[2] = "A");
    let correction = corrected(&clubs[1], south, 3);
    let (_dir, log) = published_then_corrected(&national, &clubs, in_a, (&correction, false));
    // The club's session, corrected, in its section A: no line twice, no pair twice.
    boards_agree(log.as_ref(), &in_a(&corrected(&national, south, 3)));
    let replay = holds(log.as_ref(), national.lines().count() - 1);
    let sections: std::collections::BTreeSet<String> = (replay.state.club_results(south))
        .map(|r| r.section.to_string())
        .collect();
    assert_eq!(sections, ["A".to_string()].into());
}

#[test]
fn a_whole_session_published_again_takes_out_a_table_that_never_happened() {
    let (national, clubs) = common::split_session("cobalt/mp_pairs_mitchell_02.xml");
    let south = common::CLUBS[1];
    // SOUTH's first file has a table that never happened: its fourth line again, with two pair
    // numbers the section does not have. The club publishes its whole session again.
    let phantom = |csv: &str| {
        let mut extra = String::new();
        let with_extra = club_lines(csv, south, |n, f| {
            if n == 4 {
                let mut copy = f.clone();
                (copy[3], copy[4]) = ("98", "99");
                extra = copy.join(",") + "\n";
            }
        });
        assert!(!extra.is_empty(), "SOUTH has a fourth line");
        with_extra + &extra
    };
    let lines = national.lines().count() - 1;
    // Line by line, the phantom table stays: nothing seats pair 98 or 99 again.
    let (_dir, log) = published_then_corrected(&national, &clubs, phantom, (&clubs[1], false));
    holds(log.as_ref(), lines + 1);
    // The director is told so, under the correction alone.
    let listed = simpairs_pipeline::submissions::list(log.as_ref(), EVENT, None).unwrap();
    let notes: Vec<(&str, &String)> = (listed.submissions.iter())
        .flat_map(|s| {
            s.notes
                .iter()
                .map(|n| (s.source.as_deref().unwrap_or(""), n))
        })
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, "correction.csv");
    assert!(
        notes[0]
            .1
            .starts_with("1 line in force that this file does not hold stays (board ")
            && notes[0]
                .1
                .contains(" NS 98 EW 99): if the file is the club's whole session"),
        "{notes:?}"
    );
    // Given whole, it goes: the national boards are the session's as played.
    let (_dir, log) = published_then_corrected(&national, &clubs, phantom, (&clubs[1], true));
    boards_agree(log.as_ref(), &national);
    holds(log.as_ref(), lines);
}

#[test]
fn a_club_withdrawn_by_the_organiser_leaves_the_national_boards_live() {
    let (national, clubs) = common::split_session("cobalt/mp_pairs_mitchell_02.xml");
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn Log> = Arc::new(simpairs_log::EmbeddedLog::open(dir.path()).unwrap());
    common::declare_real_event(log.as_ref(), EVENT, 1, &national);
    let (stop, reported, handle) = live(&log);
    for (i, csv) in clubs.iter().enumerate() {
        let name = common::CLUBS[i];
        common::publish_csv(log.as_ref(), EVENT, name, &common::key_of(name), csv);
        applied(&reported, name);
    }
    let south = common::CLUBS[1];
    let organiser = simpairs_sim::organiser_key();
    simpairs_pipeline::publish::withdraw_club(log.as_ref(), EVENT, south, &organiser, "late")
        .unwrap();
    applied(&reported, "the withdrawal");
    stop.store(true, Ordering::Relaxed);
    handle.join().unwrap();
    // The national boards are those of the other clubs' sessions, scored without SOUTH's.
    let without: String = national
        .lines()
        .filter(|l| l.split(',').nth(1) != Some(south))
        .map(|l| l.to_string() + "\n")
        .collect();
    assert!(without.lines().count() < national.lines().count());
    boards_agree(log.as_ref(), &without);
    let replay = holds(log.as_ref(), without.lines().count() - 1);
    assert_eq!(replay.state.club_results(south).count(), 0);
}
