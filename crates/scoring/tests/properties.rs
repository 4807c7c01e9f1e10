//! Properties that hold for every field: check totals, complementary matchpoints, independence from
//! the order results arrive in, monotonicity, and exact ties in rankings.

use crate::common;

use common::*;
use proptest::prelude::*;
use simpairs_scoring::{Direction, Options, Value, score};

/// A board as a list of NS scores (multiples of 50 in a narrow range, so ties are common).
fn board_scores(max: usize) -> impl Strategy<Value = Vec<i32>> {
    prop::collection::vec((-4i32..=8).prop_map(|k| k * 50), 1..=max)
}

/// Several boards; board `b` gets `scores[b].len()` results between NS pairs 1.. and EW pairs 1..
fn field_of(boards: &[Vec<i32>]) -> simpairs_scoring::Field {
    mitchell(&described(boards))
}

/// The lines of [`field_of`]'s field, board by board.
fn described(boards: &[Vec<i32>]) -> Vec<(u16, Vec<Line>)> {
    boards
        .iter()
        .enumerate()
        .map(|(b, scores)| {
            let n = scores.len() as u32;
            let lines = scores
                .iter()
                .enumerate()
                .map(|(t, &s)| played(t as u32 + 1, (t as u32 + b as u32) % n + 1, s))
                .collect();
            (b as u16 + 1, lines)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// On the double scale a board with n comparable results hands out n(n-1) matchpoints in each
    /// direction (seed 002's "check total"), and NS + EW = top for every ordinary result.
    #[test]
    fn check_totals_and_complements(scores in board_scores(30)) {
        let field = field_of(std::slice::from_ref(&scores));
        let scoring = score(&field, &Options::default()).unwrap();
        let n = scores.len() as i64;
        let top = scoring.top(&scoring.boards()[0]);
        prop_assert_eq!(top, Value::from_integer(2 * (n - 1)));
        let (mut ns_total, mut ew_total) = (Value::from_integer(0), Value::from_integer(0));
        for row in 0..field.len() {
            let (ns, ew) = scoring.result_values(row);
            prop_assert_eq!(ns + ew, top, "row {}", row);
            ns_total += ns;
            ew_total += ew;
        }
        prop_assert_eq!(ns_total, Value::from_integer(n * (n - 1)));
        prop_assert_eq!(ew_total, Value::from_integer(n * (n - 1)));
    }

    /// A board played S times factored with Neuberg to N (the most times any board was played)
    /// hands out S(N-1): on average half the top 2(N-1).
    #[test]
    fn neuberg_keeps_the_average(long in board_scores(30), short in board_scores(30)) {
        prop_assume!(short.len() < long.len());
        let field = field_of(&[long.clone(), short.clone()]);
        let scoring = score(&field, &Options::default()).unwrap();
        let (n, s) = (long.len() as i64, short.len() as i64);
        let total: Value = (long.len()..field.len()).map(|r| scoring.result_values(r).0).sum();
        prop_assert_eq!(total, Value::from_integer(s * (n - 1)));
    }

    /// A better score never gets fewer matchpoints; a strictly better one gets strictly more.
    #[test]
    fn better_scores_never_get_less(scores in board_scores(30)) {
        let field = field_of(std::slice::from_ref(&scores));
        let scoring = score(&field, &Options::default()).unwrap();
        for a in 0..scores.len() {
            for b in 0..scores.len() {
                let (va, vb) = (scoring.result_values(a), scoring.result_values(b));
                if scores[a] > scores[b] {
                    prop_assert!(va.0 > vb.0, "NS {} vs {}", scores[a], scores[b]);
                    prop_assert!(va.1 < vb.1, "EW side of {} vs {}", scores[a], scores[b]);
                } else if scores[a] == scores[b] {
                    prop_assert_eq!(va, vb);
                }
            }
        }
    }

    /// Results and standings do not depend on the order results arrive in.
    #[test]
    fn order_of_arrival_does_not_matter(boards in prop::collection::vec(board_scores(12), 1..5), seed in any::<u64>()) {
        let field = field_of(&boards);
        let scoring = score(&field, &Options::default()).unwrap();
        // The same results in a shuffled order (Fisher-Yates with a simple seeded generator).
        let mut rows: Vec<usize> = (0..field.len()).collect();
        let mut state = seed | 1;
        for i in (1..rows.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            rows.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let shuffled = field.subset(&rows);
        let again = score(&shuffled, &Options::default()).unwrap();
        for (new_row, &old_row) in rows.iter().enumerate() {
            prop_assert_eq!(scoring.result_values(old_row), again.result_values(new_row));
        }
        for (id, pair) in field.pairs().iter().enumerate() {
            let club = shuffled.find_club(field.club_name(pair.club)).unwrap();
            let section = shuffled.sections().position(|s| s == field.section_name(pair.section)).unwrap() as u32;
            let other = shuffled
                .find_pair(&simpairs_scoring::Pair { club, section, ..pair.clone() })
                .unwrap();
            let (a, b) = (&scoring.standings()[id], &again.standings()[other as usize]);
            prop_assert_eq!((a.total_hundredths, a.rank, a.tied, a.combined_rank), (b.total_hundredths, b.rank, b.tied, b.combined_rank));
        }
    }

    /// Pairs share a place exactly when their factored totals are equal, whatever the arithmetic
    /// (whole numbers, fifths from an artificial score on a board everyone played, Neuberg's
    /// fractions, ratio factoring), and every total and percentage is rounded from the exact value.
    #[test]
    fn ties_are_exact(
        boards in prop::collection::vec(board_scores(9), 2..5),
        adjust in any::<bool>(),
        adjust_played in any::<bool>(),
        ratio in any::<bool>(),
    ) {
        let mut field = if adjust_played {
            // The first table of board 1 gets an artificial 60/40 instead of its score: board 1
            // keeps its count of results, and its values gain fifths of a matchpoint.
            let mut described = described(&boards);
            described[0].1[0] = adjusted(1, 1, 60, 40);
            mitchell(&described)
        } else {
            field_of(&boards)
        };
        if adjust {
            // An artificial score on a board played once brings Neuberg fractions in everywhere.
            let first = field.result(0);
            field
                .push(simpairs_scoring::TableResult {
                    board: 99,
                    ns: first.ns,
                    ew: first.ew,
                    outcome: simpairs_scoring::Outcome::Adjusted { ns_percent: 60, ew_percent: 40 },
                    arrow_switch: false,
                    group: None,
                })
                .unwrap();
        }
        let options = Options {
            factoring: if ratio { simpairs_scoring::Factoring::Ratio } else { simpairs_scoring::Factoring::Neuberg },
            ..Options::default()
        };
        let scoring = score(&field, &options).unwrap();
        let mut totals = vec![Value::from_integer(0); field.pairs().len()];
        let mut tops = vec![Value::from_integer(0); field.pairs().len()];
        for row in 0..field.len() {
            let r = field.result(row);
            let (ns, ew) = scoring.result_values(row);
            totals[r.ns as usize] += ns;
            totals[r.ew as usize] += ew;
            let board = scoring.board(r.board).unwrap();
            tops[r.ns as usize] += scoring.top(board);
            tops[r.ew as usize] += scoring.top(board);
        }
        let exact: Vec<Value> = totals
            .iter()
            .zip(scoring.standings())
            .map(|(t, s)| t / Value::from_integer(i64::from(s.boards)))
            .collect();
        let st = scoring.standings();
        // Hundredths rounded half away from zero, from the exact values.
        let hundredths = |v: Value| {
            let h = v * Value::from_integer(100);
            let (n, d) = (i128::from(*h.numer()), i128::from(*h.denom()));
            let q = (n.abs() * 2 + d) / (2 * d);
            (if n < 0 { -q } else { q }) as i64
        };
        for (p, s) in st.iter().enumerate() {
            prop_assert_eq!(s.total_hundredths, hundredths(totals[p]), "total of pair {}", p);
            // A pair whose boards were each played once has a top of zero: it is shown at 50%.
            let percent = if tops[p] == Value::from_integer(0) {
                5000
            } else {
                hundredths(totals[p] * Value::from_integer(100) / tops[p])
            };
            prop_assert_eq!(s.percent_hundredths, Some(percent), "percentage of pair {}", p);
        }
        for a in 0..st.len() {
            for b in 0..st.len() {
                let (pa, pb) = (&field.pairs()[a], &field.pairs()[b]);
                if pa.direction != pb.direction || pa.direction.is_none() {
                    continue;
                }
                prop_assert_eq!(st[a].rank == st[b].rank, exact[a] == exact[b], "pairs {} and {}", a, b);
                prop_assert_eq!(st[a].rank < st[b].rank, exact[a] > exact[b]);
            }
            if pa_is(&field, a, Direction::NS) {
                let better = (0..st.len()).filter(|&b| pa_is(&field, b, Direction::NS) && exact[b] > exact[a]).count();
                prop_assert_eq!(st[a].rank as usize, better + 1);
            }
        }
        // The first pairs of the combined list, ranked before the rest of the field, wherever the
        // cut falls among pairs sharing a place.
        let combined = simpairs_scoring::standings::lists(&scoring).combined;
        let mut counts = simpairs_scoring::BoardCounts::new();
        let summed = simpairs_scoring::score_growing_summed(&field, &mut counts, &options).unwrap();
        for k in 1..=combined.len() + 1 {
            let expected: Vec<_> = combined.iter().take(k).map(|&p| st[p as usize].clone()).collect();
            prop_assert_eq!(summed.top(k), expected, "the first {}", k);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// The combined list is every pair by combined place, and pairs sharing a place by list (NS,
    /// EW, Howell), then club, section and number; each list is the combined list's pairs of it.
    /// Some fields have a Howell club beside the Mitchell one, so that a place is shared across
    /// all three lists.
    #[test]
    fn pairs_sharing_a_place_are_listed_by_list_then_name(
        boards in prop::collection::vec(board_scores(60), 1..4),
        howell_pairs in prop::option::of((1u32..=4).prop_map(|n| 2 * n)),
    ) {
        let mut field = field_of(&boards);
        if let Some(pairs) = howell_pairs {
            field.append(&howell(pairs, &boards));
        }
        let scoring = score(&field, &Options::default()).unwrap();
        let lists = simpairs_scoring::standings::lists(&scoring);
        let names = field.name_order();
        let list_of = |p: u32| match field.pairs()[p as usize].direction {
            Some(Direction::NS) => 0,
            Some(Direction::EW) => 1,
            None => 2,
        };
        let mut expected: Vec<u32> = (0..field.pairs().len() as u32).collect();
        expected.sort_by(|&a, &b| {
            let st = scoring.standings();
            st[a as usize].combined_rank.cmp(&st[b as usize].combined_rank)
                .then(list_of(a).cmp(&list_of(b)))
                .then_with(|| field.compare_pairs(&names, a, b))
        });
        prop_assert_eq!(&lists.combined, &expected);
        let display: Vec<u32> = (0..3)
            .flat_map(|l| expected.iter().copied().filter(move |&p| list_of(p) == l))
            .collect();
        prop_assert_eq!(&lists.display, &display);
        prop_assert_eq!(lists.ns, expected.iter().filter(|&&p| list_of(p) == 0).count());
        prop_assert_eq!(lists.ew, expected.iter().filter(|&&p| list_of(p) == 1).count());
        prop_assert_eq!(simpairs_scoring::standings::display_order(&scoring), display);
    }
}

/// A Howell field of `pairs` pairs (even), none of them sitting one way: on each board every pair
/// plays once, board `b`'s tables taking the scores of `boards[b]` in turn.
fn howell(pairs: u32, boards: &[Vec<i32>]) -> simpairs_scoring::Field {
    use simpairs_scoring::{Outcome, Pair, PairLabel, TableResult};
    let mut field = simpairs_scoring::Field::new();
    let (club, section) = (field.club("H"), field.section("A"));
    let ids: Vec<_> = (1..=pairs)
        .map(|n| {
            field.pair(Pair {
                club,
                section,
                label: PairLabel::Number(n),
                direction: None,
            })
        })
        .collect();
    for (b, scores) in boards.iter().enumerate() {
        for t in 0..pairs / 2 {
            let at = |k: u32| ids[((2 * t + k + b as u32) % pairs) as usize];
            let outcome = Outcome::Played(scores[t as usize % scores.len()]);
            let result = TableResult {
                board: b as u16 + 1,
                ns: at(0),
                ew: at(1),
                outcome,
                arrow_switch: false,
                group: None,
            };
            field.push(result).unwrap();
        }
    }
    field
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A pair's place is one more than the pairs of its list (every pair, for a Howell pair) with
    /// a higher factored total, and its combined place the same among all pairs; a pair is tied
    /// exactly when another pair of its list shares its place, and tied in the combined list
    /// exactly when another pair shares its combined place.
    #[test]
    fn places_and_ties_follow_the_exact_totals(
        boards in prop::collection::vec(board_scores(6), 1..4),
        pairs in (1u32..=7).prop_map(|n| 2 * n),
        howell_field in any::<bool>(),
    ) {
        let field = if howell_field { howell(pairs, &boards) } else { field_of(&boards) };
        let scoring = score(&field, &Options::default()).unwrap();
        let st = scoring.standings();
        let mut totals = vec![Value::from_integer(0); st.len()];
        for row in 0..field.len() {
            let (r, (ns, ew)) = (field.result(row), scoring.result_values(row));
            totals[r.ns as usize] += ns;
            totals[r.ew as usize] += ew;
        }
        let factored: Vec<Value> = totals.iter().zip(st).map(|(t, s)| t / Value::from_integer(i64::from(s.boards))).collect();
        let list = |p: usize| field.pairs()[p].direction;
        let others = |a: usize| (0..st.len()).filter(move |&b| b != a);
        for (a, s) in st.iter().enumerate() {
            let of_list = |b: &usize| list(a).is_none() || list(*b) == list(a);
            let above = others(a).filter(|b| factored[*b] > factored[a]);
            prop_assert_eq!(s.combined_rank as usize, above.clone().count() + 1, "combined place of pair {}", a);
            prop_assert_eq!(s.rank as usize, above.filter(of_list).count() + 1, "place of pair {}", a);
            let tied = others(a).filter(of_list).any(|b| st[b].rank == s.rank);
            prop_assert_eq!(s.tied, tied, "pair {} tied", a);
            let combined_tied = others(a).any(|b| st[b].combined_rank == s.combined_rank);
            prop_assert_eq!(s.combined_tied, combined_tied, "pair {} tied in the combined list", a);
        }
    }
}

fn pa_is(field: &simpairs_scoring::Field, id: usize, d: Direction) -> bool {
    field.pairs()[id].direction == Some(d)
}
