//! ComboCoding (Chen et al., "Protocol design", Figs. 3-5): Pipeline coding of the DATA
//! and the ACK flow end to end (`coding::pipeline`, ACKs coded with the DATA flow's
//! redundancy) under DATA/ACK XOR at the relays (`coding::piggycode`, DATA and ACK told
//! apart by direction, DATA held up to the timer T). This module holds the family's table;
//! the composition is the `"combocoding"` row of the registry.

use crate::check::*;
use serde::{Deserialize, Serialize};

/// ComboCoding's own parameters (the intra-flow ones are `[scheme.pipeline]`'s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct ComboCfg {
    /// The inter-flow timer T: how long a relay holds a DATA-direction packet for an
    /// ACK-direction one to XOR with (Chen et al., "Protocol design": 4 ms); >= 0.
    pub timer_s: f64,
}

impl Default for ComboCfg {
    fn default() -> Self {
        ComboCfg { timer_s: 0.004 }
    }
}

impl ComboCfg {
    /// Checks every value; `at` is the table's path (`scheme.combocoding`).
    pub fn validate(&self, at: &str) -> R {
        non_negative(&format!("{at}.timer_s"), self.timer_s, "seconds")
    }
}
