//! ComboCoding (Chen et al., "Protocol design", Figs. 3-5): Pipeline coding of the DATA
//! and the ACK flow end to end (`coding::pipeline`, ACKs coded with the DATA flow's
//! redundancy) under DATA/ACK XOR at the relays (`coding::piggycode`, DATA and ACK told
//! apart by direction, DATA held up to the timer T). This module holds the family's table;
//! the composition is the `"combocoding"` row of the registry.
//!
//! The XOR half is the paper's network-layer buffer ("Improved inter-flow coding": it does
//! not rely on a MAC-layer buffer): a DATA waits up to T in a buffer of its own, an ACK
//! that arrives meanwhile is XORed with it, and the pair, like an unpaired packet, goes to
//! the tail of the interface queue, so no packet passes another. That is PiggyCode's
//! `lower-layer` placement; PiggyCode's own machinery (an ACK searching the interface
//! queue, the pair placed towards its head) stays as the `interface-queue` reading.

use crate::check::*;
use serde::{Deserialize, Serialize};

/// Where ComboCoding's relays pair DATA with ACKs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum XorBuffer {
    /// The paper's network-layer buffer: a DATA waits there up to T, an ACK searches
    /// only it, and every packet (a pair too) joins the interface queue at its tail.
    Network,
    /// PiggyCode's machinery below it: an ACK also searches the interface queue, and a
    /// pair goes where `scheme.piggycode.placement` puts it (towards the head).
    InterfaceQueue,
}

/// ComboCoding's own parameters (the intra-flow ones are `[scheme.pipeline]`'s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct ComboCfg {
    /// The inter-flow timer T: how long a relay holds a DATA-direction packet for an
    /// ACK-direction one to XOR with (Chen et al., "Protocol design": 4 ms); >= 0.
    pub timer_s: f64,
    /// Where relays pair DATA with ACKs: `"network"` (the paper's network-layer buffer,
    /// nothing overtakes; the default) or `"interface-queue"` (PiggyCode's machinery with
    /// `scheme.piggycode.placement`, an ablation).
    pub xor_buffer: XorBuffer,
}

impl Default for ComboCfg {
    fn default() -> Self {
        ComboCfg {
            timer_s: 0.004,
            xor_buffer: XorBuffer::Network,
        }
    }
}

impl ComboCfg {
    /// Checks every value; `at` is the table's path (`scheme.combocoding`).
    pub fn validate(&self, at: &str) -> R {
        non_negative(&format!("{at}.timer_s"), self.timer_s, "seconds")
    }
}
