//! Every integration test of the crate, one module a file, in one test binary: CI links one
//! executable for the crate instead of one for each file.

mod bad_files;
mod common;
mod conventions;
mod fixtures;
mod fuzz;
mod garbage;
mod generated;
mod realdata;
mod round_trip;
mod separators;
mod truncated;
