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
    let mut builder = FieldBuilder::new(LegalScores::shared());
    for (i, (club, result)) in results.into_iter().enumerate() {
        push(&mut builder, i, club, result);
    }
    builder.field
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
