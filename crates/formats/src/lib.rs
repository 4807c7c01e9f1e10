//! # simpairs-formats
//!
//! Reads the result files clubs' scoring programs write and writes what federations read back. Readers
//! take bytes (no I/O here) and a file name for messages, and return a scoring [`simpairs_scoring::Field`]
//! with the source line of every result; a file with any problem is rejected whole, with every problem
//! named by file, line (or element path) and field.
//!
//! ## Layout
//! - [`import`]: the one entry point [`read`] (format detection, then the right reader) and what it
//!   returns, [`Imported`]: the field plus the event, players, deals, line details and official numbers.
//! - [`csv`]: the traveller CSV (docs/rules-input.md), read in parallel chunks.
//! - [`usebio`]: USEBIO 1.2/1.3 results XML (Compscore's flat layout and the `SESSION/SECTION` one).
//! - [`scorer`]: the session XML of NZ Bridge's club program Scorer.
//! - [`pbn`]: PBN 2.1 with `[ScoreTable]` travellers and `[TotalScoreTable]`.
//! - [`hillyard`]: the traveller-entry CSV of R. Hillyard's `Bridge` director program.
//! - [`row`]: the checks every traveller line passes, whatever format it came from.
//! - `model`: the types a file is read into ([`Imported`] and its parts), filled by the readers.
//! - `lines`: the source line of each result ([`csv::Lines`]).
//! - `method`: what a file's name for its scoring method (USEBIO event type, PBN `[Scoring]`) means.
//! - [`export`]: writers of USEBIO 1.2 and the traveller CSV, with simpairs' own values.
//! - [`report`]: what `simpairs score` prints (a table or JSON).
//! - [`check`]: `simpairs score --check`, simpairs' figures beside the file's official ones, with the
//!   conventions that explain each difference.
//! - [`error`]: problems with their locations.
//!
//! ## Example
//! ```
//! use simpairs_formats::{Format, read};
//! use simpairs_scoring::{Options, score};
//!
//! let text = "board,ns_pair,ew_pair,contract,declarer,tricks,lead\n\
//!             1,1,1,4S,N,10,HA\n1,2,2,4S,N,9,CK\n";
//! let imported = read("club.csv", text.as_bytes(), None).unwrap();
//! assert_eq!(imported.format, Format::Csv);
//! assert_eq!(imported.details(0).unwrap().lead.as_deref(), Some("HA"));
//!
//! let scoring = score(&imported.field, &Options::default()).unwrap();
//! assert_eq!(scoring.result_values(0), (2.into(), 0.into()));
//!
//! // The event re-scored, as USEBIO; reading it back gives the same results.
//! let mut xml = Vec::new();
//! simpairs_formats::export::write_usebio(&mut xml, &imported, &scoring).unwrap();
//! let again = read("club.xml", &xml, None).unwrap();
//! assert_eq!(again.format, Format::Usebio);
//! assert_eq!(again.field.len(), 2);
//! ```

mod build;
pub mod check;
pub mod csv;
mod csv_extras;
mod csv_fast;
mod csv_parts;
mod csv_row;
mod csv_separator;
pub mod error;
pub mod export;
pub mod hillyard;
pub mod import;
mod lines;
mod method;
mod model;
mod overlapped;
mod pair_json;
pub mod pbn;
pub mod report;
mod result_json;
pub mod row;
pub mod scorer;
pub mod table;
mod text;
pub mod usebio;
mod xml;

pub use error::{Error, Location, Problem, Result};
pub use import::{
    Deal, EventInfo, Format, Hand, Imported, LineDetails, NotPlayed, Official, OfficialLine,
    OfficialPair, PairInfo, Place, Player, SectionInfo, detect, read, read_ranged,
};
pub use text::{format_exact, parse_decimal};
