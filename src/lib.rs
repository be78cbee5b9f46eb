//! # xqtb — Xiangqi endgame tablebases
//!
//! Builds, verifies and serves Xiangqi (Chinese chess) endgame tablebases by retrograde
//! analysis. Probing alone needs only the crate `xqtb-core` (rules, index, table files,
//! [`Tablebase`]), re-exported here; this crate adds:
//!
//! - [`builder`]: the out-of-core builder (chunked working store, checkpoints, resume);
//! - [`verify`](mod@verify): every entry of a table checked against its children (Fang 5.4);
//! - [`retro`]: the retrograde engine both use (game graph, bitmaps, patterns, orders);
//! - [`fang`]: Fang's algorithms in memory over a generic game graph, the reference;
//! - [`query`]: a position's value with every move's, the principal line and table statistics,
//!   as the command line and the server show them;
//! - [`server`]: the query server and page.
//!
//! ```
//! use xqtb::{build, parse_fen, BuildOptions, Outcome, Silent, Tablebase};
//!
//! let dir = tempfile::tempdir()?;
//! build("KRK".parse()?, &BuildOptions::new(dir.path()), &Silent)?;
//! let tb = Tablebase::open(dir.path())?;
//! assert_eq!(tb.probe_wdl(&parse_fen("3k5/9/9/9/9/9/9/9/9/4K1R2 w")?)?, Outcome::Win);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
pub mod builder;
pub mod diskspace;
pub mod fang;
pub mod lock;
pub mod query;
pub mod retro;
pub mod server;
pub mod verify;

#[cfg(test)]
mod layers;

pub use xqtb_core::{
    chase, fen, index, material, notation, piece, position, qstring, repetition, square, table,
    tablebase, value,
};
pub use xqtb_core::{
    parse_fen, parse_position, parse_qstring, perft, to_fen, to_qstring, ByColor, Color,
    IndexError, Indexer, Material, MaterialError, Move, MoveList, Outcome, ParseError, Piece,
    Position, ProbeError, QueryPosition, Role, Square, TableError, TableFile, Tablebase, Value,
    INDEX_SCHEME_VERSION, START_FEN,
};

pub use builder::{build, BuildError, BuildOptions, TableReport};
pub use fang::Rules;
pub use retro::{Progress, Silent};
