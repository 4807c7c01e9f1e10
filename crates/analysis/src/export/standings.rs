//! The standings table: every pair's place and percentage after each generation scored (a club
//! arriving, a correction, or a club's results withdrawn), with the generation and when it
//! applied.

use std::path::Path;

use simpairs_pipeline::history::Index;
use simpairs_scoring::Options;

use super::Context;
use super::table::{Format, Kind, Table, Written};
use crate::Result;
use crate::figures::{Figures, names};
use crate::timeline::{Every, Step, walk};

const COLUMNS: &[(&str, Kind)] = &[
    ("event", Kind::Text),
    ("generation", Kind::Int),
    ("applied_at", Kind::Time),
    ("arriving_club", Kind::Text),
    ("correction", Kind::Flag),
    ("withdrawn", Kind::Flag),
    ("club", Kind::Text),
    ("section", Kind::Text),
    ("pair", Kind::Text),
    ("direction", Kind::Text),
    ("players", Kind::Text),
    ("place", Kind::Int),
    ("tied", Kind::Flag),
    ("combined_place", Kind::Int),
    ("boards", Kind::Int),
    ("total", Kind::Float),
    ("percent", Kind::Float),
];

/// Writes the standings at every `every`-th generation (and the last); returns the table and
/// every generation's step.
pub fn write(
    dir: &Path,
    format: Format,
    cx: &Context<'_>,
    index: &Index,
    options: &Options,
    every: Every,
    final_pairs: usize,
) -> Result<(Written, Vec<Step>)> {
    let mut table = Table::create(dir, "standings", format, COLUMNS)?;
    let (steps, _) = walk(
        index,
        options,
        every,
        final_pairs,
        |step, scoring, in_force, keys| {
            for (f, key) in scoring.standings().iter().map(Figures::of).zip(keys.keys()) {
                let players = names(in_force.pairs().get(key)).join(" & ");
                table
                    .text(Some(cx.event))
                    .int(Some(step.generation))
                    .time(Some(step.applied_at_ms))
                    .text(Some(&step.club))
                    .flag(Some(step.correction))
                    .flag(Some(step.withdrawn))
                    .text(Some(&key.club))
                    .text(Some(&key.section))
                    .text(Some(&key.pair))
                    .text(Some(key.direction))
                    .text((!players.is_empty()).then_some(players.as_str()))
                    .int(Some(i64::from(f.place)))
                    .flag(Some(f.tied))
                    .int(Some(i64::from(f.combined_place)))
                    .int(Some(i64::from(f.boards)))
                    .float(Some(f.total))
                    .float(f.percent);
                table.end_row()?;
            }
            Ok(())
        },
    )?;
    Ok((table.finish()?, steps))
}
