//! The columnar export: an event's whole history as tables an analyst opens in DuckDB, Polars or
//! a spreadsheet, one file per table in a directory:
//!
//! - `results`: every result in force, with its club, pairs, players' names and national ids,
//!   contract, declarer, lead, score, its distance from the board's par, and national and club
//!   figures: matchpoints, top and percentages (`national_ns_mp`, ...) in matchpoint scoring, IMPs
//!   and the Butler datum (`national_ns_imps`, `national_datum`, ...) in IMP scoring, the other
//!   kind's columns empty;
//! - `submissions`: every sealed submission (sealed when, applied / superseded / set aside, why)
//!   and `dead_letters`, records set aside on their own;
//! - `standings`: every pair's place and percentage after each generation scored;
//! - `boards`: each declared board's dealer, vulnerability and deal (as the event knows it), and
//!   for a whole deal its double-dummy tricks and par (`simpairs-dds`, the website's solver);
//! - `export.json`: what was exported, with which scoring, and notes on what the log did not say.
//!
//! Figures come from the engine `replay` uses, on the fields `replay` builds, so they are the
//! figures `replay --json` prints (held to it in `tests/export.rs`).

mod boards;
mod double_dummy;
mod fields;
mod results;
mod standings;
mod submissions;
pub mod table;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;
use simpairs_dds::DoubleDummy;
use simpairs_log::Log;
use simpairs_pipeline::history::Generation;

pub use table::{Format, Written};

use crate::timeline::Every;
use crate::variant::{Variant, describe};
use crate::{Error, Result};

/// What to export.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    pub format: Format,
    /// The scoring (the declared one unless changed).
    pub variant: Variant,
    /// Which generations' standings.
    pub every: Every,
}

/// Pair-rows of the standings table beyond which `Every::Rows` scores every n-th generation.
pub const STANDINGS_ROWS: usize = 20_000_000;

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            format: Format::Parquet,
            variant: Variant::default(),
            every: Every::Rows(STANDINGS_ROWS),
        }
    }
}

/// What an export wrote.
#[derive(Clone, Debug, Serialize)]
pub struct Exported {
    pub event: String,
    pub name: String,
    pub options: String,
    pub generations: usize,
    /// Generations whose standings are in the standings table.
    pub standings_generations: usize,
    /// When the organiser closed the event, in milliseconds since the Unix epoch: the results
    /// are final. Null while it is open (they are provisional).
    pub closed_ms: Option<i64>,
    pub tables: Vec<Written>,
    /// What the log did not say, and so is empty in the tables.
    pub notes: Vec<String>,
    pub manifest: PathBuf,
}

/// Shared by the tables: the event, its clubs' names, each applied submission's generation,
/// each board's double-dummy analysis.
pub(crate) struct Context<'a> {
    pub event: &'a str,
    clubs: HashMap<&'a str, &'a str>,
    generations: HashMap<(&'a str, &'a str), &'a Generation>,
    double_dummy: BTreeMap<i32, DoubleDummy>,
}

impl<'a> Context<'a> {
    pub fn club_name(&self, club: &'a str) -> &'a str {
        self.clubs.get(club).copied().unwrap_or(club)
    }

    pub(crate) fn generation_of(&self, club: &str, submission: &str) -> Option<&'a Generation> {
        self.generations.get(&(club, submission)).copied()
    }

    fn new(
        event: &'a str,
        declared: &'a simpairs_events::types::EventDeclared,
        index: &'a simpairs_pipeline::history::Index,
        double_dummy: BTreeMap<i32, DoubleDummy>,
    ) -> Context<'a> {
        Context {
            event,
            clubs: declared
                .clubs
                .iter()
                .map(|c| (c.club_id.as_str(), c.name.as_str()))
                .collect(),
            generations: index
                .generations()
                .iter()
                .map(|g| ((g.club.as_str(), g.submission.as_str()), g))
                .collect(),
            double_dummy,
        }
    }

    /// The board's double-dummy tricks and par, when its whole deal is known.
    pub(crate) fn double_dummy(&self, board: i32) -> Option<&DoubleDummy> {
        self.double_dummy.get(&board)
    }
}

/// Exports `event` of `log` to the directory `to` (created if needed).
pub fn export(
    log: &dyn Log,
    event: &str,
    index_dir: Option<&Path>,
    to: &Path,
    options: &ExportOptions,
) -> Result<Exported> {
    std::fs::create_dir_all(to).map_err(|e| Error::write(to, e))?;
    let indexed = crate::source::whole(log, event, index_dir)?;
    let index = &indexed.index;
    let moment = index
        .moment(log, None)?
        .ok_or_else(|| Error::NothingToExport {
            event: event.to_string(),
        })?;
    let declared = &moment.declared;
    let scoring = options
        .variant
        .options(simpairs_pipeline::wire::options_from_wire(declared)?);
    let deals = index.deals();
    let analysed = double_dummy::analyse(&declared.boards, deals);
    let cx = Context::new(event, declared, index, analysed.boards);
    let results = moment.results()?;
    let simpairs_pipeline::history::Results::Index(in_force) = &results else {
        return Err(Error::NotIndexed);
    };
    let mut tables = vec![results::write(to, options.format, &cx, in_force, &scoring)?];
    tables.push(boards::write(
        to,
        options.format,
        &cx,
        &declared.boards,
        deals,
    )?);
    let notes = notes(in_force, deals, analysed.notes);
    let listed = simpairs_pipeline::submissions::list(log, event, None)?;
    tables.extend(submissions::write(to, options.format, &cx, &listed)?);
    // Counted in the field: files without players' names enter no pairs in `pairs()`.
    let final_pairs = in_force.field().pairs().len().max(1);
    let (standings, generations, standings_generations) =
        standings_table(to, options, &cx, index, &scoring, final_pairs)?;
    tables.push(standings);
    let exported = Exported {
        event: event.to_string(),
        name: declared.name.clone(),
        options: describe(&scoring),
        generations,
        standings_generations,
        closed_ms: listed.closed_ms,
        tables,
        notes,
        manifest: to.join("export.json"),
    };
    write_manifest(&exported)?;
    Ok(exported)
}

/// The standings table, with how many generations the event has and how many of them it holds.
fn standings_table(
    to: &Path,
    options: &ExportOptions,
    cx: &Context<'_>,
    index: &simpairs_pipeline::history::Index,
    scoring: &simpairs_scoring::Options,
    final_pairs: usize,
) -> Result<(Written, usize, usize)> {
    let (standings, steps) = standings::write(
        to,
        options.format,
        cx,
        index,
        scoring,
        options.every,
        final_pairs,
    )?;
    let held = steps
        .len()
        .div_ceil(options.every.step(steps.len(), final_pairs));
    Ok((standings, steps.len(), held))
}

/// Writes `export.json`.
fn write_manifest(exported: &Exported) -> Result<()> {
    let json =
        serde_json::to_vec_pretty(exported).map_err(|e| Error::write(&exported.manifest, e))?;
    std::fs::write(&exported.manifest, json).map_err(|e| Error::write(&exported.manifest, e))
}

/// What the log did not say, for the manifest.
fn notes(
    in_force: &simpairs_pipeline::history::InForce,
    deals: &BTreeMap<i32, String>,
    double_dummy: Vec<String>,
) -> Vec<String> {
    let mut notes = Vec::new();
    if !in_force.results().any(|(_, r)| r.lead.is_some()) {
        notes.push("lead: no result in force carries the opening lead (the clubs' files did not give it, or they were published before leads were on the wire), so the column is empty".to_string());
    }
    if deals.is_empty() {
        notes.push("deals: no club's file and no hand record of the organiser gave a deal, so the boards table has none, nor double-dummy tricks or par, and the results have no distance from par".to_string());
    }
    notes.extend(double_dummy);
    notes
}
