//! Every integration test of the crate, one module a file, in one test binary: CI links one
//! executable for the crate instead of one for each file.

mod common;
mod corrections;
mod embedded_e2e;
mod follow;
mod history;
mod kafka_e2e;
mod kafka_outage;
mod leaderboard;
mod lines;
mod one_judge;
mod output_then_commit;
mod real_files;
mod state;
mod state_batches;
mod trust;
