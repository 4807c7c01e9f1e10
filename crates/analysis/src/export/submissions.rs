//! The submissions table (every sealed submission: when, what became of it, why) and the table
//! of records set aside on their own, from the director's view
//! ([`simpairs_pipeline::submissions::list`]).

use std::path::Path;

use simpairs_pipeline::submissions::Submissions;

use super::Context;
use super::table::{Format, Kind, Table, Written};
use crate::Result;

const COLUMNS: &[(&str, Kind)] = &[
    ("event", Kind::Text),
    ("club", Kind::Text),
    ("club_name", Kind::Text),
    ("submission", Kind::Text),
    ("seal_offset", Kind::Int),
    ("sealed_at", Kind::Time),
    ("source", Kind::Text),
    ("records", Kind::Int),
    ("state", Kind::Text),
    ("superseded_by", Kind::Text),
    ("lines_in_force", Kind::Int),
    ("reason", Kind::Text),
    ("warnings", Kind::Text),
    ("notes", Kind::Text),
    ("by_organiser", Kind::Flag),
    ("generation", Kind::Int),
    ("applied_at", Kind::Time),
];

const DEAD_LETTER_COLUMNS: &[(&str, Kind)] = &[
    ("event", Kind::Text),
    ("offset", Kind::Int),
    ("reason", Kind::Text),
];

/// Writes both tables.
pub fn write(
    dir: &Path,
    format: Format,
    cx: &Context<'_>,
    s: &Submissions,
) -> Result<Vec<Written>> {
    let mut table = Table::create(dir, "submissions", format, COLUMNS)?;
    for v in &s.submissions {
        let generation = cx.generation_of(&v.club, &v.submission);
        let warnings = v.warnings.join("; ");
        let notes = v.notes.join("; ");
        table
            .text(Some(cx.event))
            .text(Some(&v.club))
            .text(Some(cx.club_name(&v.club)))
            .text(Some(&v.submission))
            .int(Some(v.offset))
            .time(Some(v.sealed_at_ms))
            .text(v.source.as_deref())
            .int(Some(v.records))
            .text(Some(v.state.words()))
            .text(v.superseded_by.as_deref())
            .int(v.lines_in_force.map(|n| n as i64))
            .text(v.reason.as_deref())
            .text((!warnings.is_empty()).then_some(warnings.as_str()))
            .text((!notes.is_empty()).then_some(notes.as_str()))
            .flag(Some(v.by_organiser))
            .int(generation.map(|g| g.generation))
            .time(generation.map(|g| g.applied_at_ms));
        table.end_row()?;
    }
    let mut dead = Table::create(dir, "dead_letters", format, DEAD_LETTER_COLUMNS)?;
    for d in &s.dead_letters {
        dead.text(Some(cx.event))
            .int(i64::try_from(d.offset).ok())
            .text(Some(&d.reason));
        dead.end_row()?;
    }
    Ok(vec![table.finish()?, dead.finish()?])
}
