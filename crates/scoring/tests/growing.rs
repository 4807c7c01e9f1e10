//! `score_growing` keeps the boards' score counts of a field that grows a club at a time. Whatever
//! happens to the field (clubs appended, a clone grown apart, a score off the bridge grid, adjusted
//! scores), it must give exactly what `score` gives on the same field. So must `score_reusing`,
//! whatever field the memory it reuses was last used for.

use crate::common;

use simpairs_scoring::{
    BoardCounts, Field, Options, Outcome, Scoring, Spare, score_boards_growing, score_growing,
    score_growing_ranked, score_growing_summed, score_growing_valued, score_reusing,
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

/// The standings and ranked pairs of a field whose first `k` pairs were listed first
/// (`Valued::top`) are those `score` gives; whether they were listed before pass two.
fn listed_first_as_whole(
    field: &Field,
    counts: &mut BoardCounts,
    options: &Options,
    k: usize,
    what: &str,
) -> bool {
    let whole = simpairs_scoring::score(field, options).unwrap();
    let combined = simpairs_scoring::standings::lists(&whole).combined;
    let expected: Vec<_> = (combined.iter().take(k))
        .map(|&p| whole.standings()[p as usize].clone())
        .collect();
    let valued = score_growing_valued(field, counts, options).unwrap();
    let (top, rest) = valued.top(k).unwrap();
    let before = rest.listed_before_pass_two();
    assert_eq!(
        top, expected,
        "{what}: the first {k} (before pass two: {before})"
    );
    let (_, ranked) = rest.rank().unwrap();
    for (p, standing) in whole.standings().iter().enumerate() {
        assert_eq!(&ranked.standing(p as u32), standing, "{what}: pair {p}");
    }
    before
}

/// A growing field's first pairs, listed before pass two from the last ranking (which pairs were
/// near its cut, and how far every value has moved since), are those of the whole field's
/// ranking, club after club; so after a club that moves the values far, and after a club whose
/// results come in two parts (its pairs' results then lie on both sides of another club's, and
/// the last ranking bounds nothing). Matchpoints must be listed before pass two after many clubs.
#[test]
fn the_first_pairs_listed_before_pass_two_are_those_of_the_whole_ranking() {
    let mut all = common::factored_options().to_vec();
    all.push(Options {
        method: simpairs_scoring::Method::Butler,
        ..Options::default()
    });
    for options in all {
        let how = (options.method, options.factoring);
        let mut field = Field::new();
        let mut counts = BoardCounts::new();
        let (mut scored, mut before) = (0, 0);
        for n in 0..LARGE + 12 {
            let last = BOARDS - (n % 4) as u16;
            field.append(&club_on(&format!("C{n:03}"), n, 1..=last));
            if field.len() < 1 << 14 {
                continue;
            }
            let k = [1, 5, 20][n as usize % 3];
            let what = format!("{how:?}, after club {n}");
            scored += 1;
            before += usize::from(listed_first_as_whole(
                &field,
                &mut counts,
                &options,
                k,
                &what,
            ));
        }
        // Butler's IMPs, and matchpoints when every board was played as often, are whole numbers
        // of a small unit: those fields are summed whole, the integer way.
        if options.method == simpairs_scoring::Method::Matchpoints {
            assert!(
                before * 3 > scored,
                "{how:?}: listed before pass two after {before} clubs of {scored}"
            );
        }
        // Every result of one club the same score, on one board only: that board's values move
        // far.
        field.append(&club_on("ODD", 7, 5..=5));
        listed_first_as_whole(
            &field,
            &mut counts,
            &options,
            20,
            &format!("{how:?}, odd club"),
        );
        field.append(&club_on("LATE", 1, 1..=10));
        listed_first_as_whole(&field, &mut counts, &options, 20, &format!("{how:?}, late"));
        field.append(&club_on("LATE", 1, 11..=BOARDS));
        let what = format!("{how:?}, a club's boards in two parts");
        let before = listed_first_as_whole(&field, &mut counts, &options, 20, &what);
        assert!(!before, "{what}: listed before pass two");
    }
}

/// The last ranking kept for one field bounds nothing for another: a field built anew from the
/// same clubs in another order (its pairs numbered otherwise), or a clone grown apart.
#[test]
fn the_last_ranking_of_one_field_is_not_used_for_another() {
    let options = Options::default();
    let clubs = |order: &mut dyn Iterator<Item = u32>| {
        Field::concat(
            order
                .map(|n| club_on(&format!("C{n:03}"), n, 1..=BOARDS - (n % 4) as u16))
                .collect(),
        )
    };
    let mut field = clubs(&mut (0..LARGE + 2));
    let mut counts = BoardCounts::new();
    // The first scoring of a field indexes its pairs' results; the second keeps its ranking.
    listed_first_as_whole(&field, &mut counts, &options, 20, "the first field");
    field.append(&club_on("C899", 899, 1..=BOARDS));
    listed_first_as_whole(&field, &mut counts, &options, 20, "a club more");
    let mut clone = field.clone();
    field.append(&club_on("C900", 900, 1..=BOARDS));
    let before = listed_first_as_whole(&field, &mut counts, &options, 20, "two clubs more");
    assert!(before, "two clubs more: not listed before pass two");
    // As many rows and pairs as the field last ranked: only its lineage tells them apart.
    clone.append(&club_on("C901", 901, 1..=BOARDS));
    let what = "a clone grown apart";
    assert!(
        !listed_first_as_whole(&clone, &mut counts, &options, 20, what),
        "{what}"
    );
    let rebuilt = clubs(&mut (0..LARGE + 3).rev());
    let what = "a field built anew";
    assert!(
        !listed_first_as_whole(&rebuilt, &mut counts, &options, 20, what),
        "{what}"
    );
}

/// A club of `tables` tables on three boards, half its scores the highest of a dozen (`high`) or
/// the lowest, the rest any of them. A club of the highest moves every East-West value up by
/// nearly twice as much as the North-South values of the highest score, and one of the lowest the
/// other way: the pairs of one direction overtake those of the other at the top.
fn leaning_club(n: u32, tables: u32, high: bool) -> Field {
    const SCORES: [i32; 12] = [-200, -150, -100, -50, 50, 110, 140, 170, 420, 450, 480, 510];
    let lean = if high { SCORES.len() - 1 } else { 0 };
    let mut seed = u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15) + 7;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize
    };
    let mut field = Field::new();
    common::add_mitchell_club(&mut field, &format!("L{n:03}"), tables, 3, |t, board| {
        // Some tables leave a board out, so that boards are played different numbers of times.
        let b = usize::from(board);
        (!(t + b * n as usize).is_multiple_of(b * 2 + 5)).then(|| {
            let r = next();
            Outcome::Played(
                SCORES[if r % 2 == 0 {
                    lean
                } else {
                    r / 2 % SCORES.len()
                }],
            )
        })
    });
    field
}

/// Clubs that each move the values far, with pairs tied and crowded at the cut: the first pairs
/// listed before pass two are still those of the whole ranking, wherever the cut falls.
#[test]
fn the_first_pairs_listed_before_pass_two_hold_when_each_club_moves_the_values_far() {
    for options in common::factored_options() {
        let mut field = Field::new();
        let mut counts = BoardCounts::new();
        let mut before = 0;
        for n in 0..40 {
            let tables = 200 + 37 * (n % 5);
            field.append(&leaning_club(n, tables, n % 2 == 0));
            if field.len() < 1 << 14 {
                continue;
            }
            let k = [1, 2, 3, 7, 20, 40][n as usize % 6];
            let what = format!("{:?}, after club {n}", options.factoring);
            before += usize::from(listed_first_as_whole(
                &field,
                &mut counts,
                &options,
                k,
                &what,
            ));
        }
        assert!(
            before > 0,
            "{:?}: never listed before pass two",
            options.factoring
        );
    }
}
