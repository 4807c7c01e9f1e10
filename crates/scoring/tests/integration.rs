//! Every integration test of the crate, one module a file, in one test binary: CI links one
//! executable for the crate instead of one for each file.

mod common;
mod conventions;
mod growing;
mod joined;
mod national_ties;
mod properties;
mod seeds;
