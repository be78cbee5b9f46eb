//! The retrograde engine's answers: Fang's algorithms on abstract graphs against a plain
//! implementation of the paper's pseudo-code and on Xiangqi materials against published
//! figures, the builder under the Asian rules against the in-memory solver (and `verify`
//! catching what it must), and distance-to-conversion values against a naive forward solver.

#[path = "../common/mod.rs"]
mod common;

/// The naive rules (`tests/reference/mod.rs`), which [`dtc`] is built on.
#[path = "../reference/mod.rs"]
mod reference;

/// The naive distance-to-conversion solver.
#[path = "../reference/dtc.rs"]
mod dtc;

/// A plain implementation of Fang's pseudo-code, for [`fang_graphs`].
mod fang_reference;

mod asian_rules;
mod dtc_reference;
mod fang_graphs;
mod fang_materials;
