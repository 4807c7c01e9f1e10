//! `score_growing` keeps the boards' score counts of a field that grows a club at a time. Whatever
//! happens to the field (clubs appended, a clone grown apart, a score off the bridge grid, adjusted
//! scores), it must give exactly what `score` gives on the same field. So must `score_reusing`,
//! whatever field the memory it reuses was last used for.

use crate::common;

use simpairs_scoring::{
    BoardCounts, Field, Options, Outcome, Scoring, Spare, score_boards_growing, score_growing,
    score_growing_ranked, score_growing_summed, score_reusing,
};

const BOARDS: u16 = 27;
const TABLES: u32 = 15;
/// Clubs enough for a field of more than 16,384 results, the size from which the engine counts
/// scores in dense tables (and so from which it keeps counts).
const LARGE: u32 = 45;

/// One club's field: a Mitchell of `TABLES` tables, every board, scores from a seeded generator;
/// one table in eleven an artificial 60/40, and `odd_score` (if any) at the first table of board 1.
fn club(n: u32, odd_score: Option<i32>) -> Field {
    let mut field = Field::new();
    let mut seed = u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15) + 1;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as i32
    };
    common::add_mitchell_club(
        &mut field,
        &format!("C{n:03}"),
        TABLES,
        BOARDS,
        |t, board| {
            Some(match odd_score {
                Some(s) if t == 0 && board == 1 => Outcome::Played(s),
                _ if (t as i32 + i32::from(board) + n as i32) % 11 == 0 => Outcome::Adjusted {
                    ns_percent: 60,
                    ew_percent: 40,
                },
                _ => Outcome::Played((next() % 160 - 80) * 10),
            })
        },
    );
    field
}

/// Every board's table and special values, and every pair's standing.
fn assert_same(growing: &Scoring<'_>, whole: &Scoring<'_>, what: &str) {
    assert_eq!(
        growing.boards().len(),
        whole.boards().len(),
        "{what}: boards"
    );
    for (g, w) in growing.boards().iter().zip(whole.boards()) {
        assert_eq!(g.board, w.board, "{what}: board numbers");
        assert_eq!(g.results, w.results, "{what}: results on board {}", w.board);
        assert_eq!(
            growing.board_table(g),
            whole.board_table(w),
            "{what}: table of board {}",
            w.board
        );
        assert_eq!(
            growing.board_specials(g).collect::<Vec<_>>(),
            whole.board_specials(w).collect::<Vec<_>>(),
            "{what}: specials of board {}",
            w.board
        );
    }
    assert_eq!(growing.standings(), whole.standings(), "{what}: standings");
}

#[test]
fn a_field_grown_a_club_at_a_time_scores_as_the_whole_field() {
    let options = Options::default();
    let mut field = Field::new();
    let mut counts = BoardCounts::new();
    // The first scorings are of a small field (counted without the kept counts); from about the
    // 41st club on the field is large enough for them.
    for n in 0..LARGE + 5 {
        field.append(&club(n, None));
        let whole = simpairs_scoring::score(&field, &options).unwrap();
        let growing = score_growing(&field, &mut counts, &options).unwrap();
        assert_same(&growing, &whole, &format!("after club {n}"));
    }
    // Several clubs at once.
    for n in LARGE + 5..LARGE + 8 {
        field.append(&club(n, None));
    }
    let whole = simpairs_scoring::score(&field, &options).unwrap();
    assert_same(
        &score_growing(&field, &mut counts, &options).unwrap(),
        &whole,
        "three clubs at once",
    );
    let boards = score_boards_growing(&field, &mut counts, &options).unwrap();
    assert!(boards.standings().is_empty());
    for (g, w) in boards.boards().iter().zip(whole.boards()) {
        assert_eq!(boards.board_table(g), whole.board_table(w));
    }
}

#[test]
fn counts_kept_for_one_field_are_not_used_for_another() {
    let options = Options::default();
    let mut field = Field::new();
    for n in 0..LARGE {
        field.append(&club(n, None));
    }
    let mut counts = BoardCounts::new();
    score_growing(&field, &mut counts, &options).unwrap();
    // A clone grown apart from the original: same length, different rows.
    let mut other = field.clone();
    field.append(&club(100, None));
    other.append(&club(200, None));
    assert_eq!(field.len(), other.len());
    assert_same(
        &score_growing(&field, &mut counts, &options).unwrap(),
        &simpairs_scoring::score(&field, &options).unwrap(),
        "the original grown",
    );
    assert_same(
        &score_growing(&other, &mut counts, &options).unwrap(),
        &simpairs_scoring::score(&other, &options).unwrap(),
        "a clone grown apart",
    );
    // Back to the first field, then a field built anew from the same clubs.
    assert_same(
        &score_growing(&field, &mut counts, &options).unwrap(),
        &simpairs_scoring::score(&field, &options).unwrap(),
        "the original again",
    );
    let rebuilt = Field::concat(
        (0..=LARGE)
            .map(|n| club(if n == LARGE { 300 } else { n }, None))
            .collect(),
    );
    assert_same(
        &score_growing(&rebuilt, &mut counts, &options).unwrap(),
        &simpairs_scoring::score(&rebuilt, &options).unwrap(),
        "a field built anew",
    );
}

#[test]
fn a_score_off_the_bridge_grid_is_scored_as_the_whole_field() {
    let options = Options::default();
    let mut field = Field::new();
    let mut counts = BoardCounts::new();
    for n in 0..LARGE {
        field.append(&club(n, None));
    }
    score_growing(&field, &mut counts, &options).unwrap();
    // 425 is no bridge score: the engine's general positions take over, with or without counts.
    field.append(&club(LARGE, Some(425)));
    let whole = simpairs_scoring::score(&field, &options).unwrap();
    assert!(
        whole
            .board_table(whole.board(1).unwrap())
            .iter()
            .any(|line| line.ns_score == 425)
    );
    assert_same(
        &score_growing(&field, &mut counts, &options).unwrap(),
        &whole,
        "after a score off the grid",
    );
    field.append(&club(LARGE + 1, None));
    assert_same(
        &score_growing(&field, &mut counts, &options).unwrap(),
        &simpairs_scoring::score(&field, &options).unwrap(),
        "a club after the score off the grid",
    );
}

#[test]
fn a_scoring_in_the_memory_of_another_scores_as_a_fresh_one() {
    let options = Options::default();
    let large = Field::concat((0..LARGE).map(|n| club(n, None)).collect());
    let small = Field::concat((0..3).map(|n| club(n, None)).collect());
    // A club that played fewer boards: the others are factored (Neuberg), the float path.
    let mut uneven = Field::concat((0..LARGE).map(|n| club(n + 500, None)).collect());
    common::add_mitchell_club(&mut uneven, "SHORT", TABLES, BOARDS - 3, |_, board| {
        Some(Outcome::Played(i32::from(board) * 10))
    });
    let off_grid = club(7, Some(123));
    let mut spare = Spare::new();
    // Large, then smaller (the memory holds more than is written), then other paths, then large
    // again.
    for (field, what) in [
        (&large, "a large field"),
        (&small, "a smaller field after it"),
        (&uneven, "a factored field"),
        (&off_grid, "a score off the grid"),
        (&large, "the large field again"),
    ] {
        let reusing = score_reusing(field, &options, &mut spare).unwrap();
        let fresh = simpairs_scoring::score(field, &options).unwrap();
        assert_same(&reusing, &fresh, what);
        assert_eq!(
            simpairs_scoring::standings::lists(&reusing),
            simpairs_scoring::standings::lists(&fresh),
            "{what}: lists"
        );
        spare.keep(reusing);
    }
}

/// A club of `TABLES` tables that plays `boards` (a short club leaves some out, so that boards
/// are played different numbers of times: Neuberg and ratio factoring make fractions, which pass
/// two sums from each pair's kept results).
fn club_on(name: &str, n: u32, boards: std::ops::RangeInclusive<u16>) -> Field {
    let mut field = Field::new();
    common::add_mitchell_club(&mut field, name, TABLES, BOARDS, |t, board| {
        let score = (t as i32 * 7 + i32::from(board) * 3 + n as i32) % 17 * 10 - 80;
        boards.contains(&board).then(|| match (t as u32 + n) % 13 {
            0 => Outcome::Adjusted {
                ns_percent: 60,
                ew_percent: 40,
            },
            _ => Outcome::Played(score * 10),
        })
    });
    field
}

#[test]
fn a_field_with_fractions_grown_a_club_at_a_time_scores_as_the_whole_field() {
    for options in common::factored_options() {
        let factoring = options.factoring;
        let mut field = Field::new();
        let mut counts = BoardCounts::new();
        for n in 0..LARGE + 4 {
            let last = BOARDS - (n % 4) as u16;
            field.append(&club_on(&format!("C{n:03}"), n, 1..=last));
            if field.len() < 1 << 14 {
                continue;
            }
            let whole = simpairs_scoring::score(&field, &options).unwrap();
            assert!(
                whole.standings().iter().any(|s| s.total.fract() != 0.0),
                "the field has fractions"
            );
            let growing = score_growing(&field, &mut counts, &options).unwrap();
            assert_same(&growing, &whole, &format!("{factoring:?}, after club {n}"));
        }
        // A club's boards in two parts, scored in between: the second part's results belong to
        // pairs already scored, whose results then lie on both sides of another club's.
        field.append(&club_on("LATE", 1, 1..=10));
        field.append(&club_on("C900", 2, 1..=BOARDS));
        assert_same(
            &score_growing(&field, &mut counts, &options).unwrap(),
            &simpairs_scoring::score(&field, &options).unwrap(),
            &format!("{factoring:?}, a club's first boards"),
        );
        field.append(&club_on("LATE", 1, 11..=BOARDS));
        assert_same(
            &score_growing(&field, &mut counts, &options).unwrap(),
            &simpairs_scoring::score(&field, &options).unwrap(),
            &format!("{factoring:?}, a club's boards in two parts"),
        );
        field.append(&club_on("C901", 3, 1..=BOARDS - 2));
        assert_same(
            &score_growing(&field, &mut counts, &options).unwrap(),
            &simpairs_scoring::score(&field, &options).unwrap(),
            &format!("{factoring:?}, a club after them"),
        );
    }
}

/// The ranked pairs of `score_growing_ranked` give every pair the standing `score` gives, and the
/// same lists.
fn assert_ranked_same(field: &Field, counts: &mut BoardCounts, options: &Options, what: &str) {
    let whole = simpairs_scoring::score(field, options).unwrap();
    let (scoring, ranked) = score_growing_ranked(field, counts, options).unwrap();
    assert!(scoring.standings().is_empty(), "{what}: standings made");
    assert_eq!(ranked.len(), whole.standings().len(), "{what}: pairs");
    for (p, standing) in whole.standings().iter().enumerate() {
        assert_eq!(&ranked.standing(p as u32), standing, "{what}: pair {p}");
    }
    let lists = simpairs_scoring::standings::lists(&whole);
    assert_eq!(
        simpairs_scoring::standings::lists(&scoring),
        lists,
        "{what}: lists"
    );
    // The first pairs, listed before the field is ranked.
    let summed = score_growing_summed(field, counts, options).unwrap();
    for k in [1, 20, lists.combined.len()] {
        let expected: Vec<_> = (lists.combined.iter().take(k))
            .map(|&p| whole.standings()[p as usize].clone())
            .collect();
        assert_eq!(summed.top(k), expected, "{what}: the first {k}");
    }
}

#[test]
fn standings_made_when_asked_for_are_those_of_the_whole_field() {
    let mut all = common::factored_options().to_vec();
    all.push(Options {
        method: simpairs_scoring::Method::Butler,
        ..Options::default()
    });
    for options in all {
        let factoring = (options.method, options.factoring);
        let mut field = Field::new();
        let mut counts = BoardCounts::new();
        for n in 0..LARGE + 3 {
            let last = BOARDS - (n % 4) as u16;
            field.append(&club_on(&format!("C{n:03}"), n, 1..=last));
            if n % 5 == 0 || n >= LARGE {
                assert_ranked_same(
                    &field,
                    &mut counts,
                    &options,
                    &format!("{factoring:?}, after club {n}"),
                );
            }
        }
    }
}
