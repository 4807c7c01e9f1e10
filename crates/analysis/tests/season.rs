//! A player's season: three real club sessions as three events of one log. Player 900001 played
//! in both Compscore sessions (pair 1 NS each time): the history lists both, with the partner the
//! files name, and the percentage and place the real file publishes (mitchell_03, whose official
//! figures simpairs agrees with line for line) or that `score` gives on the file (mitchell_02,
//! whose board 1 was edited by hand upstream).

use crate::common;

use simpairs_analysis::season::player_history;
use simpairs_scoring::Options;

/// The official figures of a pair in a fixture's `.pairs.csv`: (percent, place).
fn official(pairs_csv: &str, pair: &str, direction: &str) -> (f64, u32) {
    let text = std::fs::read_to_string(common::fixtures().join("csv").join(pairs_csv)).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        if cells[col("pair")] == pair && cells[col("direction")] == direction {
            return (
                cells[col("percent")].parse().unwrap(),
                cells[col("place")].parse().unwrap(),
            );
        }
    }
    panic!("{pairs_csv}: no pair {pair} {direction}");
}

#[test]
fn a_player_s_events_partners_percentages_and_places() {
    let t = common::empty_log();
    let log = t.log.as_ref();
    for (event, (club, file)) in ["SEASON-1", "SEASON-2", "SEASON-3"]
        .iter()
        .zip(common::CLUBS)
    {
        common::declare_event(log, event, &[club], 1..=27);
        common::publish(log, event, club, file, &common::native(file));
    }
    let index = tempfile::tempdir().unwrap();
    let history = player_history(log, "900001", Some(index.path())).unwrap();
    let events: Vec<&str> = history.events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(events, vec!["SEASON-1", "SEASON-3"]);
    assert_eq!(history.names, vec!["PLAYER 1".to_string()]);
    for e in &history.events {
        assert_eq!((e.pair.as_str(), e.direction.as_str()), ("1", "NS"));
        assert_eq!(e.partners.len(), 1);
        assert_eq!(
            (
                e.partners[0].name.as_str(),
                e.partners[0].national_id.as_deref()
            ),
            ("PLAYER 2", Some("900002"))
        );
        // One club: its field is the national field.
        assert_eq!(e.national, e.club_figures);
    }
    let m03 = history.events[0].national.as_ref().unwrap();
    assert_eq!(
        (m03.percent.unwrap(), m03.place),
        official("cobalt__mp_pairs_mitchell_03.pairs.csv", "1", "NS")
    );
    let scored = common::pairs_of(&common::score_json(
        "cobalt/mp_pairs_mitchell_02.xml",
        &Options::default(),
    ));
    let m02 = history.events[1].national.as_ref().unwrap();
    let r = &scored[&("".into(), "".into(), "1".into(), "NS".into())];
    assert_eq!(
        (u64::from(m02.place), m02.tied, m02.percent),
        (r.0, r.1, r.2)
    );
    // Someone nobody entered, and no id at all.
    assert!(
        player_history(log, "123456789", None)
            .unwrap()
            .events
            .is_empty()
    );
    assert!(
        player_history(log, " ", None)
            .unwrap_err()
            .to_string()
            .contains("national id")
    );
}

#[test]
fn in_a_national_event_the_club_and_national_figures_differ_and_each_is_replay_s() {
    let (t, _) = common::realdata_event();
    let history = player_history(t.log.as_ref(), "900001", None).unwrap();
    // Player 900001 is entered in both Compscore clubs of the event.
    let clubs: Vec<&str> = history.events.iter().map(|e| e.club.as_str()).collect();
    assert_eq!(clubs, vec!["M02", "M03"]);
    let national = common::pairs_of(&common::replay_json(
        t.log.as_ref(),
        common::EVENT,
        None,
        &Options::default(),
    ));
    for e in &history.events {
        let key = (
            e.club.clone(),
            e.section.clone(),
            e.pair.clone(),
            e.direction.clone(),
        );
        let f = e.national.as_ref().unwrap();
        assert_eq!(
            (u64::from(f.place), f.tied, f.percent),
            (national[&key].0, national[&key].1, national[&key].2)
        );
        assert_eq!(e.national_pairs, national.len());
    }
    // M02 is untouched by the correction: its own field is the file's.
    let m02 = history.events.iter().find(|e| e.club == "M02").unwrap();
    let own = common::pairs_of(&common::score_json(
        "cobalt/mp_pairs_mitchell_02.xml",
        &Options::default(),
    ));
    let f = m02.club_figures.as_ref().unwrap();
    let r = &own[&("".into(), "".into(), "1".into(), "NS".into())];
    assert_eq!((u64::from(f.place), f.percent), (r.0, r.2));
}
