//! Counters and results.

pub mod delay;
pub mod result;

pub use delay::StreamDelay;
pub use result::*;
