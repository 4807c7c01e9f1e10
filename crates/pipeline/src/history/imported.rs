//! A moment's field as `replay` reports it: with the pairs' players and the warnings of each
//! club's latest submission in force, as [`crate::replay::as_imported`] gives them from the
//! state, here from the index's generations (held to it in `tests/history.rs`).

use std::collections::BTreeMap;

use simpairs_events::types::{Player, SealWarning};
use simpairs_formats::{Imported, Location, Problem};
use simpairs_scoring::Field;

use super::Generation;
use crate::PairKey;

/// The field with its pairs' players and the warnings of `latest` (each club's latest
/// generation in force, by club).
pub(super) fn imported(
    field: Field,
    players: &BTreeMap<PairKey, Vec<Player>>,
    latest: &BTreeMap<&str, &Generation>,
) -> Imported {
    let pairs = crate::replay::pair_infos(&field, players);
    let clubs: std::collections::BTreeSet<&str> = field.clubs().collect();
    let warnings = latest
        .iter()
        .filter(|(club, _)| clubs.contains(*club))
        .flat_map(|(_, g)| {
            let file = g.source.clone().unwrap_or_default();
            g.warnings.iter().map(move |w| problem(&file, w))
        })
        .collect();
    let mut out = Imported::bare(
        simpairs_formats::Format::Csv,
        field,
        simpairs_formats::csv::Lines::default(),
        0,
    );
    if pairs.iter().any(|p| !p.players.is_empty()) {
        out.pairs = pairs;
    }
    out.warnings = warnings;
    out
}

fn problem(file: &str, w: &SealWarning) -> Problem {
    Problem {
        at: Location {
            file: file.to_string(),
            line: u64::try_from(w.line).unwrap_or(0),
            field: (!w.field.is_empty()).then(|| w.field.clone()),
        },
        message: w.message.clone(),
    }
}
