//! Fields read in parts and joined ([`Field::concat`], as the CSV reader joins its chunks) name
//! their pairs as one field built row by row does: the same pairs under the same ids, found and
//! added to alike afterwards, whether a part's clubs are new to the join or seen in a part before.

use proptest::prelude::*;
use simpairs_scoring::{Direction, Field, Pair, PairLabel};

/// A pair as the test writes it: club, section, number and how it sits (NS, EW, Howell, or NS
/// with a text label instead of its number).
type Named = (u8, u8, u32, u8);

fn named() -> impl Strategy<Value = Named> {
    let number = prop_oneof![
        4 => 1u32..40,
        2 => 1_000_000u32..1_000_040,
        // Around the numbers a table holds (2^30) and far from the rest: a hash index's.
        1 => 1_073_741_800u32..1_073_741_850,
        1 => Just(u32::MAX),
    ];
    (0u8..6, 0u8..2, number, 0u8..4)
}

fn pair_of(field: &mut Field, (club, section, number, sits): Named) -> Pair {
    let club = field.club(&format!("club {club}"));
    let section = field.section(if section == 0 { "" } else { "B" });
    let (label, direction) = match sits {
        0 => (PairLabel::Number(number), Some(Direction::NS)),
        1 => (PairLabel::Number(number), Some(Direction::EW)),
        2 => (PairLabel::Number(number), None),
        _ => (
            PairLabel::Text(format!("T{}", number % 7).into()),
            Some(Direction::NS),
        ),
    };
    Pair {
        club,
        section,
        label,
        direction,
    }
}

/// Adds a row of the two pairs (a pair against itself is skipped).
fn add(field: &mut Field, board: u16, ns: Named, ew: Named) {
    let (ns, ew) = (pair_of(field, ns), pair_of(field, ew));
    let (ns, ew) = (field.pair(ns), field.pair(ew));
    if ns != ew {
        field.push_played(board, ns, ew, 50);
    }
}

/// Every pair of the field, in id order, and every row, in words.
fn shown(field: &Field) -> Vec<String> {
    let pairs = (0..field.pairs().len()).map(|id| field.describe_pair(id as u32));
    let rows = (0..field.len()).map(|row| format!("{:?}", field.result(row)));
    pairs.chain(rows).collect()
}

proptest! {
    #[test]
    fn a_field_joined_from_parts_is_the_field_built_row_by_row(
        parts in prop::collection::vec(prop::collection::vec((1u16..5, named(), named()), 0..30), 1..6),
        later in prop::collection::vec(named(), 0..20),
    ) {
        let mut whole = Field::new();
        let mut fields = Vec::new();
        for rows in &parts {
            let mut part = Field::new();
            for &(board, ns, ew) in rows {
                add(&mut whole, board, ns, ew);
                add(&mut part, board, ns, ew);
            }
            fields.push(part);
        }
        let mut joined = Field::concat(fields);
        prop_assert_eq!(shown(&joined), shown(&whole));
        // Looked up and added to afterwards, the joined field answers as the whole one does.
        for named in later {
            let (a, b) = (pair_of(&mut joined, named), pair_of(&mut whole, named));
            prop_assert_eq!(joined.find_pair(&a), whole.find_pair(&b));
            prop_assert_eq!(joined.pair(a), whole.pair(b));
        }
        prop_assert_eq!(shown(&joined), shown(&whole));
    }
}
