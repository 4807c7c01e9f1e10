//! # simpairs-analysis
//!
//! What analysts do with an event's history, over the pipeline's public API: the whole history
//! as tables for DuckDB, Polars or a spreadsheet ([`export`]); the event scored two ways side by
//! side ([`compare`]); each pair's place and percentage as the clubs arrived ([`movement`]); a
//! player's events across a season ([`season`]). Every figure comes from the scoring engine on
//! the field `replay` builds, so it is the figure `replay --json` prints for the same moment and
//! method.
//!
//! The event is read through the replay index (`simpairs_pipeline::history`): every generation
//! kept on disk, so that any moment, or every moment in turn, is read rather than judged again.
//!
//! ## Layout
//! - [`variant`]: a way of scoring, as an analyst writes it (`factoring=ratio,scale=single`).
//! - [`figures`]: a pair's place and percentage in a scoring, keyed by its names.
//! - [`compare`]: two scorings side by side, the pairs that moved.
//! - [`timeline`]: the event generation by generation, the national field scored as it grew.
//! - [`movement`]: the standings' history, for charts.
//! - [`season`]: a player's events, partners, percentages and places.
//! - [`export`]: the Parquet (or CSV) tables.
//! - `source`: the replay index covering the whole log.
//!
//! ## Example
//! ```
//! use simpairs_analysis::variant::Variant;
//! use simpairs_scoring::{Factoring, Options};
//!
//! let what_if: Variant = "factoring=ratio,scale=single".parse().unwrap();
//! let options = what_if.options(Options::default());
//! assert_eq!(options.factoring, Factoring::Ratio);
//! assert_eq!(simpairs_analysis::variant::describe(&options),
//!            "scoring=mp,factoring=ratio,fouled=neuberg,scale=single");
//! ```

pub mod compare;
mod error;
pub mod export;
pub mod figures;
pub mod movement;
pub mod season;
mod source;
pub mod timeline;
pub mod variant;

pub use error::{Error, Result, VariantError};
