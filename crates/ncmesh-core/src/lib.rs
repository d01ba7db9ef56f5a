//! ncmesh core: a deterministic discrete-event simulator of TCP over IEEE 802.11
//! multihop networks, with hooks for network-coding schemes.
//!
//! Layers, bottom up: [`engine`] (time, events, random streams), [`phy`] (rates,
//! propagation, reception), [`mac`] (802.11 DCF), [`coding`] (the scheme hook between
//! network and MAC), [`net`] (packets, routing, forwarding), [`transport`] (TCP, UDP),
//! [`app`] (traffic sources), [`mobility`] (node motion), [`metrics`], [`scenario`] (the
//! file format) and [`sim`] (wires the layers together and runs a scenario).

#![deny(missing_docs, unreachable_pub)]

pub mod app;
pub mod check;
pub mod coding;
pub mod engine;
#[cfg(test)]
mod generated_doc;
pub mod mac;
pub mod metrics;
pub mod mobility;
pub mod net;
pub mod phy;
pub mod scenario;
pub mod sim;
pub mod transport;
pub mod wire;

/// The build identity of this simulator: 16 hex digits hashing its sources, its
/// `Cargo.toml` and its dependencies' locked versions (build.rs). Equal ids give equal
/// results for equal scenarios; the sweep store records it with every run.
pub const BUILD_ID: &str = env!("NCMESH_CORE_BUILD");

/// docs/adding-a-scheme.md: its last example is compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/adding-a-scheme.md")]
pub struct AddingASchemeDoc;
