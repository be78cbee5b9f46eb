//! # xqtb — Xiangqi endgame tablebases
//!
//! Builds, verifies and serves Xiangqi (Chinese chess) endgame tablebases by retrograde analysis.
//! This crate layer holds the pure rules core and position indexing:
//!
//! - [`square`], [`piece`]: coordinates (UCCI: files a–i, ranks 0–9 from Red's side) and pieces;
//! - [`position`]: the board, legal move generation (Asian rules move legality: palace, elephant
//!   eye and river, horse leg, cannon screens, pawns, flying general), check detection and retro
//!   (un-move) generation for retrograde analysis;
//! - [`fen`], [`qstring`]: FEN (Pikafish / Fairy-Stockfish) and the classic query system's
//!   position string;
//! - [`material`]: material signatures such as `KRKAABB`;
//! - [`index`]: the dense, mirror-folded index of a material's placements.

pub mod fen;
mod geometry;
pub mod index;
pub mod material;
pub mod piece;
pub mod position;
pub mod qstring;
pub mod square;

pub use fen::{parse_fen, to_fen, ParseError, START_FEN};
pub use index::{Census, IndexError, Indexer, INDEX_SCHEME_VERSION};
pub use material::{Material, MaterialError};
pub use piece::{Color, Piece, Role};
pub use position::{perft, Move, MoveList, Position, Undo};
pub use qstring::{parse_position, parse_qstring, to_qstring, QueryPosition};
pub use square::Square;
