//! The programs' faces: the command line's output shapes and errors, the HTTP API of
//! `xqtb serve` and its examples in `formats/api.md`, and the query page in a real browser.

#[path = "../common/mod.rs"]
mod common;

/// Starting `xqtb serve` and plain HTTP requests.
mod support;
/// A small WebDriver client, for [`query_page`].
mod webdriver;

mod api_doc;
mod changed_tables;
mod cli;
mod dtm_page;
mod errors;
mod http_api;
mod partial_page;
mod query_page;
mod rules_page;
mod slow_clients;
