//! From the results in force to a scoring [`Field`]: each applied result becomes the text row a file
//! would have held and passes the same checks ([`simpairs_formats::row::FieldBuilder`]).

use simpairs_events::types::{AppliedResult, Movement};
use simpairs_formats::row::{FieldBuilder, TextRow};
use simpairs_scoring::{Field, LegalScores};

/// The text fields of one result, owned, for a [`TextRow`].
#[derive(Debug, Default)]
pub struct RowTexts {
    board: String,
    club: String,
    section: String,
    ns_pair: String,
    ew_pair: String,
    contract: String,
    declarer: String,
    tricks: String,
    ns_score: String,
    ew_score: String,
    adjusted: String,
    arrow_switch: &'static str,
    group: String,
    movement: &'static str,
}

impl RowTexts {
    /// The texts of a result of `club`.
    pub fn of(club: &str, r: &AppliedResult) -> RowTexts {
        let opt = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_default();
        RowTexts {
            board: r.board.to_string(),
            club: club.to_string(),
            section: r.section.clone(),
            ns_pair: r.ns_pair.clone(),
            ew_pair: r.ew_pair.clone(),
            contract: r.contract.clone().unwrap_or_default(),
            declarer: r.declarer.clone().unwrap_or_default(),
            tricks: opt(r.tricks),
            ns_score: opt(r.ns_score),
            ew_score: opt(r.ew_score),
            adjusted: r
                .adjusted
                .map(|a| format!("{}/{}", a.ns_percent, a.ew_percent))
                .unwrap_or_default(),
            arrow_switch: if r.arrow_switch { "true" } else { "" },
            group: r.group.clone().unwrap_or_default(),
            movement: match r.movement {
                Movement::Howell => "howell",
                Movement::Mitchell => "mitchell",
            },
        }
    }

    pub fn row(&self) -> TextRow<'_> {
        TextRow {
            board: &self.board,
            club: &self.club,
            section: &self.section,
            ns_pair: &self.ns_pair,
            ew_pair: &self.ew_pair,
            contract: &self.contract,
            declarer: &self.declarer,
            tricks: &self.tricks,
            ns_score: &self.ns_score,
            ew_score: &self.ew_score,
            adjusted: &self.adjusted,
            arrow_switch: self.arrow_switch,
            group: &self.group,
            movement: self.movement,
        }
    }
}

/// Builds a field from results of clubs (in the order given). Results were checked when their
/// submission was applied, so a result that fails here is skipped with a warning rather than stopping
/// the pipeline.
pub fn build_field<'a>(results: impl IntoIterator<Item = (&'a str, &'a AppliedResult)>) -> Field {
    let mut builder = FieldBuilder::new(LegalScores::shared());
    for (i, (club, result)) in results.into_iter().enumerate() {
        let texts = RowTexts::of(club, result);
        if let Err(p) = builder.push(&texts.row(), i as u64) {
            tracing::warn!(
                club,
                board = result.board,
                field = p.field,
                "an applied result failed its checks: {}",
                p.message
            );
        }
    }
    builder.field
}
