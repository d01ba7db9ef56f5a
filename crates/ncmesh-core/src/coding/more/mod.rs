//! MORE (Chachulski, Jennings, Katti & Katabi, "Trading structure for randomness in
//! wireless opportunistic routing", SIGCOMM 2007), the batch-coding baseline of
//! Gheorghiu et al.'s CoMP evaluation: a source codes batches of K packets, forwarders
//! closer to the destination by ETX recode what they hear as their TX credits allow,
//! and the destination acknowledges a batch end to end once it decodes it.
//!
//! - `credits`: the forwarder list and TX credits (§4.4 and appendix);
//! - `config`: the `[scheme.more]` table;
//! - `header`: the fields on the air (the MORE header, the per-hop Alg. 1 block, the
//!   batch acknowledgement);
//! - `source`, `relay`, `sink`: a flow's three roles (§4.1-4.3);
//! - `scheme`: a node's layer (the roles, a FIFO for the rest, the ledger).
//!
//! As Gheorghiu et al. ran it: losses from CoMP's Alg. 1 instead of MORE's probes
//! (at the source, for its own links), frames broadcast without MAC retransmissions.
//! Choices: docs/assumptions.md ("MORE").

pub mod config;
pub mod credits;
pub mod header;
mod relay;
pub mod scheme;
mod sink;
mod source;

pub use config::{MoreCfg, MoreParams};
pub use credits::{plan, ForwarderPlan};
pub use header::{MoreAck, MoreHeader, MoreHop};
pub use scheme::{More, MoreCounters};
