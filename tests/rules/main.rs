//! The rules core (`xqtb-core`): move generation and legality, chase and check labels, the
//! position and move notations, perft, the index and retro moves, checked by hand, against
//! published figures, against the index's specification and against the naive reference in
//! `tests/reference/`, plus malformed input.

#[path = "../reference/mod.rs"]
mod reference;

mod chase_labels;
mod index;
mod index_spec;
mod malformed_input;
mod move_generation;
mod move_notation;
mod perft;
mod position_notation;
mod reference_rules;
mod repetition;
mod retro_moves;
