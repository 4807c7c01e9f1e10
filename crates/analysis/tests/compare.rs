//! `compare` on the real-data event: each side's figures are those `replay --json` prints for
//! its method and moment, and the pairs listed are exactly those whose place or percentage
//! differ between the two replays.

use crate::common;

use simpairs_analysis::compare::{Comparison, compare};
use simpairs_analysis::variant::Side;
use simpairs_pipeline::replay::AsOf;
use simpairs_scoring::{Factoring, Options, Scale};

/// Checks a comparison against the two replays it stands for.
fn check(c: &Comparison, a: &serde_json::Value, b: &serde_json::Value) {
    let (pa, pb) = (common::pairs_of(a), common::pairs_of(b));
    let keys: std::collections::BTreeSet<_> = pa.keys().chain(pb.keys()).collect();
    let mut expected_changed = std::collections::BTreeSet::new();
    for k in &keys {
        let differ = match (pa.get(*k), pb.get(*k)) {
            // In IMP scoring there is no percentage: the total tells.
            (Some(x), Some(y)) => {
                (x.0, x.1, x.2) != (y.0, y.1, y.2) || (x.2.is_none() && x.3 != y.3)
            }
            _ => true,
        };
        if differ {
            expected_changed.insert((*k).clone());
        }
    }
    let listed: std::collections::BTreeSet<_> = c
        .changed
        .iter()
        .map(|ch| {
            (
                ch.club.clone(),
                ch.section.clone(),
                ch.pair.clone(),
                ch.direction.clone(),
            )
        })
        .collect();
    assert_eq!(listed, expected_changed);
    assert_eq!(c.unchanged, keys.len() - expected_changed.len());
    for ch in &c.changed {
        let k = (
            ch.club.clone(),
            ch.section.clone(),
            ch.pair.clone(),
            ch.direction.clone(),
        );
        for (figures, replayed) in [(&ch.a, pa.get(&k)), (&ch.b, pb.get(&k))] {
            match (figures, replayed) {
                (Some(f), Some(r)) => {
                    assert_eq!(
                        (u64::from(f.place), f.tied, f.percent),
                        (r.0, r.1, r.2),
                        "{k:?}"
                    );
                    assert!(common::same_total(f, r.3), "{k:?}: {} / {}", f.total, r.3);
                }
                (None, None) => {}
                other => panic!("{k:?}: {other:?}"),
            }
        }
    }
    // Largest change first: the move in percentile of the combined list of every pair (the
    // same kind of list for every pair, whatever its movement or the field's size) never grows
    // down the list of pairs on both sides, and each is B's percentile less A's.
    let percentile = |place: u32, pairs: usize| {
        if pairs <= 1 {
            100.0
        } else {
            (pairs - place as usize) as f64 / (pairs - 1) as f64 * 100.0
        }
    };
    let mut moved = Vec::new();
    for ch in &c.changed {
        let Some(gained) = c.percentile_gained(ch) else {
            continue;
        };
        let (a, b) = (ch.a.as_ref().unwrap(), ch.b.as_ref().unwrap());
        let want =
            percentile(b.combined_place, c.b.pairs) - percentile(a.combined_place, c.a.pairs);
        assert!((gained - want).abs() <= 0.005 + 1e-9, "{gained} / {want}");
        assert_eq!(
            ch.places_gained(),
            Some(i64::from(a.place) - i64::from(b.place))
        );
        moved.push(gained.abs());
    }
    assert!(moved.windows(2).all(|w| w[0] >= w[1]), "{moved:?}");
    // Pairs on one side only last.
    let both = c
        .changed
        .iter()
        .filter(|ch| ch.a.is_some() && ch.b.is_some())
        .count();
    assert!(
        c.changed[both..]
            .iter()
            .all(|ch| ch.a.is_none() || ch.b.is_none())
    );
    let counts = c.counts();
    assert_eq!(counts.in_both, counts.changed + counts.unchanged);
    assert_eq!(counts.changed, both);
    assert_eq!(counts.in_both + counts.new_in_b, pb.len());
    assert_eq!(counts.in_both + counts.only_in_a, pa.len());
}

#[test]
fn neuberg_against_ratio_lists_the_pairs_replay_ranks_differently() {
    let (t, _) = common::realdata_event();
    let index = tempfile::tempdir().unwrap();
    let a = Side {
        variant: "factoring=neuberg".parse().unwrap(),
        as_of: None,
    };
    let b = Side {
        variant: "factoring=ratio".parse().unwrap(),
        as_of: None,
    };
    let c = compare(t.log.as_ref(), common::EVENT, Some(index.path()), &a, &b).unwrap();
    let neuberg = common::replay_json(t.log.as_ref(), common::EVENT, None, &Options::default());
    let ratio = common::replay_json(
        t.log.as_ref(),
        common::EVENT,
        None,
        &Options {
            factoring: Factoring::Ratio,
            ..Options::default()
        },
    );
    check(&c, &neuberg, &ratio);
    // Boards 22-27 were played in fewer clubs than the others: the two factorings differ.
    assert!(!c.changed.is_empty());
    assert!(
        c.changed.iter().all(|ch| !ch.players.is_empty()),
        "every pair of these files is named"
    );
    assert_eq!((c.a.generation, c.b.generation), (4, 4));
}

#[test]
fn two_moments_and_two_scales_side_by_side() {
    let (t, seals) = common::realdata_event();
    let index = tempfile::tempdir().unwrap();
    // After the second club, and at the end on the single scale.
    let a = Side {
        variant: Default::default(),
        as_of: Some(AsOf::Offset(seals[1])),
    };
    let b = Side {
        variant: "scale=single".parse().unwrap(),
        as_of: None,
    };
    let c = compare(t.log.as_ref(), common::EVENT, Some(index.path()), &a, &b).unwrap();
    let before = common::replay_json(
        t.log.as_ref(),
        common::EVENT,
        Some(AsOf::Offset(seals[1])),
        &Options::default(),
    );
    let after = common::replay_json(
        t.log.as_ref(),
        common::EVENT,
        None,
        &Options {
            scale: Scale::Single,
            ..Options::default()
        },
    );
    check(&c, &before, &after);
    // M02's pairs arrived in between: on side B only.
    assert!(
        c.changed
            .iter()
            .any(|ch| ch.club == "M02" && ch.a.is_none() && ch.b.is_some()),
        "{:?} {:?} {:?}",
        c.a,
        c.b,
        c.changed
            .iter()
            .map(|ch| (&ch.club, &ch.pair, ch.a.is_some(), ch.b.is_some()))
            .collect::<Vec<_>>()
    );
    assert_eq!((c.a.generation, c.b.generation), (2, 4));
}

#[test]
fn butler_and_cross_imps_compare_on_totals() {
    let (t, _) = common::realdata_event();
    let a = Side {
        variant: "scoring=butler".parse().unwrap(),
        as_of: None,
    };
    let b = Side {
        variant: "scoring=cross-imps".parse().unwrap(),
        as_of: None,
    };
    let c = compare(t.log.as_ref(), common::EVENT, None, &a, &b).unwrap();
    let butler = common::replay_json(
        t.log.as_ref(),
        common::EVENT,
        None,
        &Options {
            method: simpairs_scoring::Method::Butler,
            ..Options::default()
        },
    );
    let cross = common::replay_json(
        t.log.as_ref(),
        common::EVENT,
        None,
        &Options {
            method: simpairs_scoring::Method::CrossImps,
            ..Options::default()
        },
    );
    check(&c, &butler, &cross);
    assert!(
        c.changed.iter().all(
            |ch| ch.percent_change_hundredths.is_none() && ch.total_change_hundredths.is_some()
        )
    );
}

#[test]
fn a_moment_the_index_covers_beside_the_log_that_grew_since() {
    // The index is built, then a club corrects a score: side A is a moment the index covers,
    // side B the whole log, which reads the index on. Side A's submissions are still read from
    // the file it was answered from.
    let (t, seals) = common::realdata_event();
    let index = tempfile::tempdir().unwrap();
    let whole = Side {
        variant: Default::default(),
        as_of: None,
    };
    compare(
        t.log.as_ref(),
        common::EVENT,
        Some(index.path()),
        &whole,
        &whole,
    )
    .unwrap();
    common::publish(
        t.log.as_ref(),
        common::EVENT,
        "M03",
        "m03.csv",
        // Its earlier correction's table again, now with 11 tricks.
        common::CORRECTION
            .replace("3D,N,10,130", "3D,N,11,150")
            .as_bytes(),
    );
    let a = Side {
        variant: Default::default(),
        as_of: Some(AsOf::Offset(seals[1])),
    };
    let c = compare(
        t.log.as_ref(),
        common::EVENT,
        Some(index.path()),
        &a,
        &whole,
    )
    .unwrap();
    let before = common::replay_json(
        t.log.as_ref(),
        common::EVENT,
        Some(AsOf::Offset(seals[1])),
        &Options::default(),
    );
    let after = common::replay_json(t.log.as_ref(), common::EVENT, None, &Options::default());
    check(&c, &before, &after);
    assert_eq!((c.a.generation, c.b.generation), (2, 5));
}
