//! Every integration test of the crate, one module a file, in one test binary: CI links one
//! executable for the crate instead of one for each file.

mod common;
mod consumer;
mod fuzz_segments;
mod integrity;
mod missing_and_read_only;
mod processes;
mod proptest_round_trip;
mod recovery;
mod round_trip;
