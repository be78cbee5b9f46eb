//! Building tables through the command line, and what a build must survive: the published
//! figures and `verify`, the same bytes whatever the threads, memory and mode, kills and
//! resumes, damaged checkpoints and tables, concurrent builds, odd arguments and a full disk.

#[path = "../common/mod.rs"]
mod common;

mod cli_builds;
mod concurrent;
mod crash_safety;
mod disk_full;
mod faults;
mod partial_builds;
mod provenance;
mod workflow;
