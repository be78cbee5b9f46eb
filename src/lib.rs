//! # xqtb — Xiangqi endgame tablebases
//!
//! Builds, verifies and serves Xiangqi (Chinese chess) endgame tablebases by retrograde analysis.
//!
//! - [`builder`]: the out-of-core builder (chunked working store, checkpoints, resume);
//! - [`table`]: final table files (write with checksums, O(1) open, block-cached probes);
//! - [`tablebase`], [`verify`], [`value`]: probing a directory of tables, Fang 5.4
//!   verification, and the (order, distance) values;
//!
//! on top of the pure rules core and position indexing:
//!
//! - [`square`], [`piece`]: coordinates (UCCI: files a–i, ranks 0–9 from Red's side) and pieces;
//! - [`position`]: the board, legal move generation (Asian rules move legality: palace, elephant
//!   eye and river, horse leg, cannon screens, pawns, flying general), check detection and retro
//!   (un-move) generation for retrograde analysis;
//! - [`fen`], [`qstring`]: FEN (Pikafish / Fairy-Stockfish) and the classic query system's
//!   position string;
//! - [`material`]: material signatures such as `KRKAABB`;
//! - [`index`]: the dense, mirror-folded index of a material's placements.
//!
//! ```
//! use xqtb::{parse_position, perft, Color, Indexer, Position};
//!
//! // Perft of the initial position (Chess Programming Wiki: 44, 1,920, 79,666).
//! assert_eq!(perft(&Position::startpos(), 3), 79_666);
//!
//! // The query system's example (a horse against a lone advisor), Red to move.
//! let pos = parse_position("4K44B49994n495k399").unwrap();
//! assert_eq!(pos.legal_moves().len(), 9);
//!
//! // Its table index, and back.
//! let ix = Indexer::new("KNKA".parse().unwrap()).unwrap();
//! let i = ix.encode(&pos).unwrap();
//! let back = ix.decode(i, Color::Red).unwrap();
//! assert!(back == pos || back == pos.mirror());
//! ```

#![warn(missing_docs)]
pub mod builder;
pub mod chase;
pub mod diskspace;
pub mod fang;
pub mod fen;
mod fsio;
mod geometry;
pub mod index;
pub mod lock;
pub mod material;
pub mod notation;
pub mod piece;
pub mod position;
pub mod qstring;
pub mod query;
pub mod server;
pub mod square;
pub mod table;
pub mod tablebase;
pub mod value;
pub mod verify;

pub use fen::{parse_fen, to_fen, ParseError, START_FEN};
pub use index::{Census, Decoder, IndexError, Indexer, Split, StepCache, INDEX_SCHEME_VERSION};
pub use material::{Material, MaterialError};
pub use piece::{ByColor, Color, Piece, Role};
pub use position::{perft, Move, MoveList, Position, Undo};
pub use qstring::{parse_position, parse_qstring, to_qstring, QueryPosition};
pub use square::Square;
pub use value::{Outcome, Value};
