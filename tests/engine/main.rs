//! The retrograde engine's answers: Fang's algorithms on abstract graphs against a plain
//! implementation of the paper's pseudo-code and on Xiangqi materials against published
//! figures, the builder under the Asian rules against the in-memory solver (and `verify`
//! catching what it must), and distance-to-conversion and distance-to-mate values against naive
//! forward solvers.

#[path = "../common/mod.rs"]
mod common;

/// The naive rules (`tests/reference/mod.rs`), which [`dtc`] and [`dtm`] are built on.
#[path = "../reference/mod.rs"]
mod reference;

/// The naive distance-to-conversion solver.
#[path = "../reference/dtc.rs"]
mod dtc;

/// The naive distance-to-mate solver.
#[path = "../reference/dtm.rs"]
mod dtm;

/// A plain implementation of Fang's pseudo-code, for [`fang_graphs`].
mod fang_reference;

mod asian_rules;
mod dtc_reference;
mod dtm_builder;
mod dtm_reference;
mod dtm_verify;
mod fang_graphs;
mod fang_materials;
mod partial_bounds;
mod partial_dtm_bounds;
mod verify_at_once;
