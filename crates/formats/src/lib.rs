//! # simpairs-formats
//!
//! Reads the result files clubs' scoring programs write and writes what federations read back. Readers
//! take bytes (no I/O here) and a file name for messages, and return a scoring [`simpairs_scoring::Field`]
//! with the source line of every result; a file with any problem is rejected whole, with every problem
//! named by file, line and field.
//!
//! ## Layout
//! - [`csv`]: the traveller CSV of SPEC section 4, read in parallel chunks.
//! - [`row`]: the checks every traveller line passes, whatever format it came from.
//! - [`error`]: problems with their locations.

pub mod csv;
pub mod error;
pub mod report;
pub mod row;

pub use error::{Error, Location, Problem, Result};
