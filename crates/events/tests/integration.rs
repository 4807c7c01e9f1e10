//! Every integration test of the crate, one module a file, in one test binary: CI links one
//! executable for the crate instead of one for each file.

mod common;
mod decode_robustness;
mod evolution;
mod golden;
mod round_trip;
mod schemas;
mod signing;
