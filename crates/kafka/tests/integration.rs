//! Every integration test of the crate, one module a file, in one test binary: CI links one
//! executable for the crate instead of one for each file.

mod broker;
mod common;
mod features;
mod mock;
mod throughput;
