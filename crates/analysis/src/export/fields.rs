//! The fields of an export: each club's own field built from its results in force, remembering
//! which field row each result became (a result "not played" becomes none), and the national
//! field joined from them in club order: the field `replay` builds
//! ([`simpairs_pipeline::field::build_field`] over the results by club), with its rows known.

use rayon::prelude::*;
use simpairs_events::types::{AppliedResult, SubmissionApplied};
use simpairs_formats::row::FieldBuilder;
use simpairs_scoring::{Field, LegalScores};

/// One club's results in force (with the submission that brought each) and its field.
pub(crate) struct ClubPart<'a> {
    pub club: &'a str,
    pub results: Vec<(&'a AppliedResult, &'a SubmissionApplied)>,
    pub field: Field,
    /// The field row of each result, by the result's place in `results`.
    pub rows: Vec<Option<u32>>,
}

/// Builds a club's field as `build_field` does, noting each result's row.
pub(crate) fn club_part<'a>(
    club: &'a str,
    results: Vec<(&'a AppliedResult, &'a SubmissionApplied)>,
) -> ClubPart<'a> {
    let mut builder = FieldBuilder::new(LegalScores::shared());
    for (i, (r, _)) in results.iter().enumerate() {
        // Applied results passed these checks when their submission applied; one that fails
        // now has no row (as `build_field` skips it).
        let _ = builder.push_typed(&simpairs_pipeline::field::typed_row(club, r), i as u64);
    }
    let mut rows = vec![None; results.len()];
    for row in 0..builder.lines.len() {
        if let Some(slot) = rows.get_mut(builder.lines.line_of(row) as usize) {
            *slot = Some(row as u32);
        }
    }
    ClubPart {
        club,
        results,
        field: builder.field,
        rows,
    }
}

/// Every club's part, built in parallel, in club order.
pub(crate) fn club_parts<'a>(
    clubs: Vec<(&'a str, Vec<(&'a AppliedResult, &'a SubmissionApplied)>)>,
) -> Vec<ClubPart<'a>> {
    clubs
        .into_par_iter()
        .map(|(club, results)| club_part(club, results))
        .collect()
}

/// The national field (the parts joined in order) and where each part's rows start in it.
pub fn national(parts: &[ClubPart<'_>]) -> (Field, Vec<usize>) {
    let mut starts = Vec::with_capacity(parts.len());
    let mut at = 0;
    for p in parts {
        starts.push(at);
        at += p.field.len();
    }
    (
        Field::concat(parts.iter().map(|p| p.field.clone()).collect()),
        starts,
    )
}
