//! From the results in force to a scoring [`Field`]: each applied result passes the same checks as a
//! line of a file ([`simpairs_formats::row::FieldBuilder::push_typed`]).

use simpairs_events::types::AppliedResult;
use simpairs_formats::row::{FieldBuilder, TypedRow};
use simpairs_scoring::{Field, LegalScores};

use crate::results::ClubResults;

/// A typed row from an applied result, without copying it. A percentage outside 0..=100 is kept
/// out of range so that the builder's check refuses it.
macro_rules! typed_row_of {
    ($club:expr, $board:expr, $r:expr) => {{
        let r = $r;
        let percent = |p: i32| u8::try_from(p).unwrap_or(u8::MAX);
        simpairs_formats::row::TypedRow {
            board: u16::try_from($board).unwrap_or(0),
            club: $club,
            section: &r.section,
            ns_pair: &r.ns_pair,
            ew_pair: &r.ew_pair,
            contract: r.contract.as_deref().unwrap_or(""),
            declarer: r.declarer.as_deref().unwrap_or(""),
            tricks: r.tricks.map(i64::from),
            ns_score: r.ns_score,
            ew_score: r.ew_score,
            adjusted: r
                .adjusted
                .map(|a| (percent(a.ns_percent), percent(a.ew_percent))),
            arrow_switch: r.arrow_switch,
            group: r.group.as_deref().unwrap_or(""),
            movement: match r.movement {
                simpairs_events::types::Movement::Howell => simpairs_scoring::Movement::Howell,
                simpairs_events::types::Movement::Mitchell => simpairs_scoring::Movement::Mitchell,
            },
        }
    }};
}

/// An applied result as a typed row for the field builder (no numbers printed and parsed back).
pub fn typed_row<'a>(club: &'a str, r: &'a AppliedResult) -> TypedRow<'a> {
    typed_row_of!(club, r.board, r)
}

/// Builds a field from results of clubs (in the order given). Results were checked when their
/// submission was applied, so a result that fails here is skipped with a warning rather than stopping
/// the pipeline.
pub fn build_field<'a>(results: impl IntoIterator<Item = (&'a str, &'a AppliedResult)>) -> Field {
    let mut field = ClubsField::default();
    field.extend(results);
    field.into_field()
}

/// The parts of the field [`build_field`] builds from `clubs`' results, in order: runs of clubs
/// built in parallel, each club added to its run's part by `add`. [`Field::concat`] joins them.
pub fn build_parts<T: Send>(
    clubs: Vec<T>,
    add: impl Fn(&mut ClubsField, T) + Sync + Send,
) -> Vec<Field> {
    use rayon::prelude::*;
    clubs
        .into_par_iter()
        .fold(ClubsField::default, |mut part, club| {
            add(&mut part, club);
            part
        })
        .map(ClubsField::into_field)
        .collect()
}

/// [`build_parts`] of each club's results in force, clubs in the map's order.
pub fn clubs_parts(clubs: &std::collections::BTreeMap<String, ClubResults>) -> Vec<Field> {
    build_parts(clubs.iter().collect(), |part, (club, results)| {
        part.add(club, results)
    })
}

/// [`build_field`] of one club's results in force, without keeping packed ones decoded
/// ([`ClubResults::visit`]).
pub fn club_field(club: &str, results: &ClubResults) -> Field {
    let mut builder = FieldBuilder::new(LegalScores::shared());
    let mut i = 0;
    results.visit(|result| {
        push(&mut builder, i, club, result);
        i += 1;
    });
    builder.field
}

/// A field built from several clubs' results in force, club after club: the field
/// [`build_field`] builds from them in that order. (A national field read in parallel is built in
/// a few such parts and joined, not in one part a club: each part's builder keeps what it scored
/// of a contract for the clubs after, and the join has a few parts to join, not thousands.)
pub struct ClubsField {
    builder: FieldBuilder<'static>,
}

impl Default for ClubsField {
    fn default() -> Self {
        ClubsField {
            builder: FieldBuilder::new(LegalScores::shared()),
        }
    }
}

impl ClubsField {
    /// Adds a club's results in force, after the clubs added before.
    pub fn add(&mut self, club: &str, results: &ClubResults) {
        self.extend(results.iter().map(|r| (club, r)));
    }

    /// Adds a club's field as the checks of its only submission in force built it: the same rows,
    /// in the same order and with the same names, as [`ClubsField::add`] of its results in force.
    /// (Without line numbers: a `ClubsField`'s builder's are never read.)
    pub fn append(&mut self, field: &Field) {
        self.builder.field.append(field);
    }

    /// Adds results of clubs (in the order given), after those added before.
    pub fn extend<'a>(&mut self, results: impl IntoIterator<Item = (&'a str, &'a AppliedResult)>) {
        for (i, (club, result)) in results.into_iter().enumerate() {
            push(&mut self.builder, i, club, result);
        }
    }

    pub fn into_field(self) -> Field {
        self.builder.field
    }
}

/// Adds the `i`th result to the field being built, or says why it cannot.
fn push(builder: &mut FieldBuilder, i: usize, club: &str, result: &AppliedResult) {
    if let Err(p) = builder.push_typed(&typed_row(club, result), i as u64) {
        tracing::warn!(
            club,
            board = result.board,
            field = p.field,
            "an applied result failed its checks: {}",
            p.message
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(board: i32, ns: &str, ew: &str, contract: &str, tricks: i32) -> AppliedResult {
        AppliedResult {
            contract: Some(contract.into()),
            declarer: Some("N".into()),
            tricks: Some(tricks),
            ..crate::test_result::table(board, ns, ew)
        }
    }

    /// The field's results as `score --json` prints them.
    fn json(field: &Field) -> String {
        let scoring =
            simpairs_scoring::score(field, &simpairs_scoring::Options::default()).unwrap();
        let mut out = Vec::new();
        simpairs_formats::report::write_json(&mut out, &scoring).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Each row in the field's order: its board, outcome and pairs by name.
    fn rows(field: &Field) -> Vec<String> {
        let name = |id: simpairs_scoring::PairId| {
            let pair = &field.pairs()[id as usize];
            format!("{} {:?}", field.club_name(pair.club), pair.label)
        };
        (0..field.len())
            .map(|row| {
                let r = field.result(row);
                format!("{} {:?} {} {}", r.board, r.outcome, name(r.ns), name(r.ew))
            })
            .collect()
    }

    #[test]
    fn runs_of_clubs_built_apart_and_joined_are_the_field_built_club_after_club() {
        let clubs: Vec<(String, Vec<AppliedResult>)> = (0..5)
            .map(|c| {
                let results = (1..=3)
                    .flat_map(|board| {
                        [
                            result(board, "1", "2", "4S", 9 + (board + c) % 3),
                            result(board, "2", "3", "3NT", 8 + c % 2),
                            result(board, "3", "1", "4SX", 9),
                        ]
                    })
                    .collect();
                (format!("C{c}"), results)
            })
            .collect();
        let all = clubs
            .iter()
            .flat_map(|(club, results)| results.iter().map(move |r| (club.as_str(), r)));
        let whole = build_field(all);
        let mut runs = vec![ClubsField::default(), ClubsField::default()];
        for (i, (club, results)) in clubs.iter().enumerate() {
            runs[usize::from(i >= 2)].extend(results.iter().map(|r| (club.as_str(), r)));
        }
        let joined = Field::concat(runs.into_iter().map(ClubsField::into_field).collect());
        assert_eq!(whole.len(), 45);
        assert_eq!(rows(&joined), rows(&whole));
        assert_eq!(json(&joined), json(&whole));
    }
}
