//! Every integration test of the crate, one module a file, in one test binary: CI links one
//! executable for the crate instead of one for each file.

mod cli_analysis;
mod cli_director;
mod cli_kafka_flags;
mod cli_log;
mod cli_score;
mod cli_serve;
mod common;
mod deploy;
mod pipeline_kafka;
mod pipeline_kill;
mod sim_scores;
