//! Reading tables: the probing API (`Tablebase`), table format 4 and its worked example in
//! `formats/table.md`, the query library, and `xqtb probe -` in batches.

#[path = "../common/mod.rs"]
mod common;

mod probe_batch;
mod python;
mod query;
mod rulings;
mod table_doc;
mod table_format;
mod tablebase;
