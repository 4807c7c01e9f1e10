//! Every integration test of the crate, one module a file, in one test binary: CI links one
//! executable for the crate instead of one for each file.

mod analysts;
mod api;
mod browser;
mod common;
mod deals;
mod hardening;
mod in_browser;
mod pages;
mod reported;
