//! # xqtb-core — probing Xiangqi endgame tablebases
//!
//! Everything an engine or tool needs to read xqtb's tables, without the builder's or the
//! server's dependencies: the rules, positions and their notations, the index of a material's
//! placements, the table files and [`Tablebase`], the probing API.
//!
//! - [`square`], [`piece`]: coordinates (UCCI: files a–i, ranks 0–9 from Red's side) and pieces;
//! - [`position`]: the board, legal move generation (palace, elephant eye and river, horse leg,
//!   cannon screens, pawns, flying general), check detection and retro (un-move) generation;
//! - [`chase`]: what a move attacks (check and chase, as the Asian rules define them);
//! - [`repetition`]: who loses when a position recurs in a game (perpetual check and chase);
//! - [`fen`], [`qstring`], [`notation`]: FEN (Pikafish / Fairy-Stockfish), the classic query
//!   system's position string, and WXF and Chinese move notation;
//! - [`material`]: material signatures such as `KRKAABB`;
//! - [`index`]: the dense, mirror-folded index of a material's placements;
//! - [`value`]: the (order, distance) values;
//! - [`table`]: the table files (written with checksums, opened in O(1), block-cached reads);
//! - [`tablebase`]: a directory of tables, probed by position.
//!
//! ```
//! use xqtb_core::{parse_position, perft, Color, Indexer, Position};
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
pub mod chase;
pub mod fen;
pub mod fsio;
mod geometry;
pub mod index;
pub mod material;
pub mod notation;
pub mod piece;
pub mod position;
pub mod qstring;
pub mod repetition;
pub mod square;
pub mod table;
pub mod tablebase;
pub mod value;

pub use fen::{from_codes, parse_fen, to_fen, ParseError, START_FEN};
pub use index::{IndexError, Indexer, INDEX_SCHEME_VERSION};
pub use material::{Material, MaterialError};
pub use piece::{ByColor, Color, Piece, Role};
pub use position::{perft, Move, MoveList, Position};
pub use qstring::{parse_position, parse_qstring, to_qstring, QueryPosition};
pub use square::Square;
pub use table::{TableError, TableFile};
pub use tablebase::{ProbeError, Tablebase};
pub use value::{Outcome, Value};
