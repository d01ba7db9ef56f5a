//! The `[scheme.horizon]` table: Horizon (Radunović et al., MSR-TR-2008-54), CoMP's
//! multipath baseline (Gheorghiu et al., CoMP). Values the papers leave out are in
//! docs/assumptions.md ("Horizon").

use crate::check::*;
use crate::engine::{secs, Time};
use serde::{Deserialize, Serialize};

/// Horizon's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct HorizonCfg {
    /// Delayed reordering at the destination: a TCP segment that arrives while an
    /// earlier one is missing is held at most this long, then handed up in order with
    /// whatever arrived before it, seconds; 0: no reordering; in [0, 10].
    pub hold_s: f64,
    /// A neighbour's advertised backlog and cost count this long after the frame that
    /// carried them was heard; after that the neighbour counts as not heard from
    /// (backlog 0, cost 0: packets may go to it), seconds; in (0, 10].
    pub advert_timeout_s: f64,
    /// Congestion signal to TCP: at a flow's source, a new data segment that would take
    /// the flow's window seen on the wire (highest byte sent less highest byte
    /// acknowledged) beyond this many segments is dropped, so that TCP backs off; 0: no
    /// signal (only the drop-tail queue); in [0, 1000].
    pub window_threshold: u32,
}

impl Default for HorizonCfg {
    fn default() -> Self {
        HorizonCfg {
            hold_s: 0.1,
            advert_timeout_s: 0.1,
            window_threshold: 24,
        }
    }
}

/// The scheme's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HorizonParams {
    /// Reordering hold time (0: none).
    pub hold: Time,
    /// Lifetime of a neighbour's advertisement.
    pub advert_timeout: Time,
    /// Window threshold, segments (0: off).
    pub window_threshold: u32,
}

impl HorizonCfg {
    /// Checks every value; `at` is the table's path (`scheme.horizon`).
    pub fn validate(&self, at: &str) -> R {
        let f = |k: &str| format!("{at}.{k}");
        let s = "a number of seconds";
        within(&f("hold_s"), self.hold_s, s, "[0, 10]")?;
        within(&f("advert_timeout_s"), self.advert_timeout_s, s, "(0, 10]")?;
        let n = "a whole number of segments";
        within(
            &f("window_threshold"),
            self.window_threshold,
            n,
            "[0, 1000]",
        )
    }

    /// The parameters.
    pub fn params(&self) -> HorizonParams {
        HorizonParams {
            hold: secs(self.hold_s),
            advert_timeout: secs(self.advert_timeout_s).max(1),
            window_threshold: self.window_threshold,
        }
    }
}
