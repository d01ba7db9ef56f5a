//! Counters and results.

pub mod result;

pub use result::*;
