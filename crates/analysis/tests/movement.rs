//! How the field moved, on the real-data event: after every generation, every pair's place and
//! percentage are those `replay --as-of <the generation's offset> --json` prints.

use crate::common;

use simpairs_analysis::movement::{HistoryOptions, Pairs, field_history};
use simpairs_analysis::timeline::Every;
use simpairs_pipeline::replay::AsOf;
use simpairs_scoring::Options;

#[test]
fn every_generation_ranks_every_pair_as_replay_does_at_that_moment() {
    let (t, seals) = common::realdata_event();
    let index = tempfile::tempdir().unwrap();
    let history = field_history(
        t.log.as_ref(),
        common::EVENT,
        Some(index.path()),
        &HistoryOptions::default(),
    )
    .unwrap();
    assert_eq!(history.generations.len(), 4);
    assert_eq!(history.scored, vec![1, 2, 3, 4]);
    let arrivals: Vec<(&str, bool)> = history
        .generations
        .iter()
        .map(|g| (g.club.as_str(), g.correction))
        .collect();
    assert_eq!(
        arrivals,
        vec![("M03", false), ("NZ", false), ("M02", false), ("M03", true)]
    );
    // The generation applied at each club's seal: the state replay shows as of that offset.
    let seals_applied = [seals[0], seals[1], seals[2], seals[3]];
    let mut points = 0;
    for (g, seal) in history.generations.iter().zip(seals_applied) {
        let replayed = common::pairs_of(&common::replay_json(
            t.log.as_ref(),
            common::EVENT,
            Some(AsOf::Offset(seal)),
            &Options::default(),
        ));
        let mut ranked_here = 0;
        for path in &history.pairs {
            let key = (
                path.club.clone(),
                path.section.clone(),
                path.pair.clone(),
                path.direction.clone(),
            );
            let point = path.points.iter().find(|p| p.generation == g.generation);
            match (point, replayed.get(&key)) {
                (Some(p), Some(r)) => {
                    assert_eq!(
                        (u64::from(p.place), p.tied, p.percent),
                        (r.0, r.1, r.2),
                        "{key:?} at {}",
                        g.generation
                    );
                    // A sum in floating point: its last bits follow the order of the rows.
                    assert!((p.total - r.3).abs() <= 1e-9 * r.3.abs(), "{key:?}");
                    ranked_here += 1;
                }
                (None, None) => {}
                other => panic!("{key:?} at generation {}: {other:?}", g.generation),
            }
        }
        assert_eq!(ranked_here, replayed.len());
        points += ranked_here;
    }
    assert_eq!(
        points,
        history.pairs.iter().map(|p| p.points.len()).sum::<usize>()
    );
    // The JSON the website serves.
    let json = serde_json::to_value(&history).unwrap();
    assert_eq!(json["scored"], serde_json::json!([1, 2, 3, 4]));
    assert_eq!(json["pairs"].as_array().unwrap().len(), history.pairs.len());
}

#[test]
fn top_pairs_every_second_generation() {
    let (t, _) = common::realdata_event();
    let options = HistoryOptions {
        every: Every::Step(2),
        pairs: Pairs::Top(5),
        ..HistoryOptions::default()
    };
    let history = field_history(t.log.as_ref(), common::EVENT, None, &options).unwrap();
    assert_eq!(history.scored, vec![2, 4]);
    assert_eq!(history.pairs.len(), 5);
    let end = common::pairs_of(&common::replay_json(
        t.log.as_ref(),
        common::EVENT,
        None,
        &Options::default(),
    ));
    let json = common::replay_json(t.log.as_ref(), common::EVENT, None, &Options::default());
    let mut best: Vec<(u64, (String, String, String, String))> = json["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["combined_rank"].as_u64().unwrap(),
                (
                    p["club"].as_str().unwrap().into(),
                    p["section"].as_str().unwrap().into(),
                    p["pair"].as_str().unwrap().into(),
                    p["direction"].as_str().unwrap().into(),
                ),
            )
        })
        .collect();
    best.sort();
    for path in &history.pairs {
        let key = (
            path.club.clone(),
            path.section.clone(),
            path.pair.clone(),
            path.direction.clone(),
        );
        assert!(
            best.iter().take(5).any(|(_, k)| *k == key),
            "{key:?} is not among the five best"
        );
        let last = path.points.last().unwrap();
        assert_eq!(last.generation, 4);
        assert_eq!(last.percent, end[&key].2);
    }
}

#[test]
fn the_top_pairs_and_one_more_in_one_walk() {
    let (t, _) = common::realdata_event();
    let top = HistoryOptions {
        pairs: Pairs::Top(3),
        ..HistoryOptions::default()
    };
    let top = field_history(t.log.as_ref(), common::EVENT, None, &top).unwrap();
    let all = field_history(
        t.log.as_ref(),
        common::EVENT,
        None,
        &HistoryOptions::default(),
    )
    .unwrap();
    // The pair last at the end, which the top three do not hold.
    let last = all
        .pairs
        .iter()
        .max_by_key(|p| p.points.last().unwrap().combined_place)
        .unwrap();
    let key = simpairs_pipeline::PairKey::from_text(
        last.club.clone(),
        last.section.clone(),
        last.pair.clone(),
        &last.direction,
    );
    let options = HistoryOptions {
        pairs: Pairs::TopAnd(3, vec![key]),
        ..HistoryOptions::default()
    };
    let both = field_history(t.log.as_ref(), common::EVENT, None, &options).unwrap();
    assert_eq!(both.pairs.len(), 4);
    let named = |p: &simpairs_analysis::movement::PairPath| {
        (
            p.club.clone(),
            p.section.clone(),
            p.pair.clone(),
            p.direction.clone(),
        )
    };
    for path in &both.pairs {
        let same = top
            .pairs
            .iter()
            .chain(std::iter::once(last))
            .find(|p| named(p) == named(path))
            .expect("one of the top three, or the pair asked for");
        assert_eq!(same.points, path.points);
    }
}
