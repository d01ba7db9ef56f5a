//! MORE (Chachulski, Jennings, Katti & Katabi, "Trading structure for randomness in
//! wireless opportunistic routing", SIGCOMM 2007), the batch-coding baseline of
//! Gheorghiu et al.'s CoMP evaluation: a source codes batches of K packets, forwarders
//! closer to the destination by ETX recode what they hear as their TX credits allow,
//! and the destination acknowledges a batch end to end once it decodes it.
//!
//! - `credits`: the forwarder list and TX credits (§4.4 and appendix).

pub mod credits;

pub use credits::{plan, ForwarderPlan};
