//! Counters and results.

pub mod delay;
#[cfg(test)]
mod reference;
pub mod result;

pub use delay::StreamDelay;
pub use result::*;
