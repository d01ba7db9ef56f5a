//! The `[scheme.ncaqm]` table: NCAQM's own settings (Seferoglu & Markopoulou, NCAQM,
//! §V-A; the values its text copy lost are in docs/assumptions.md).

use super::NcaqmParams;
use crate::check::*;
use crate::engine::{secs, Time};
use serde::{Deserialize, Serialize};

/// NCAQM's own parameters (its queue management; the XOR family's apply too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct NcaqmCfg {
    /// Period of the re-coding pass (Alg. 1); > 0.
    pub recode_interval_s: f64,
    /// Transmissions in the traffic-splitting window (§V-A2); >= 1.
    pub split_window: u32,
}

impl Default for NcaqmCfg {
    fn default() -> Self {
        NcaqmCfg {
            recode_interval_s: 0.01,
            split_window: 100,
        }
    }
}

impl NcaqmCfg {
    /// Checks every value; `at` is the table's path (`scheme.ncaqm`).
    pub fn validate(&self, at: &str) -> R {
        positive(
            &format!("{at}.recode_interval_s"),
            self.recode_interval_s,
            "seconds",
        )?;
        at_least(
            &format!("{at}.split_window"),
            self.split_window,
            1,
            "an integer >= 1",
        )
    }

    /// The queue's parameters and the period of its re-coding pass.
    pub fn params(&self) -> (NcaqmParams, Time) {
        (
            NcaqmParams {
                split_window: self.split_window as usize,
            },
            secs(self.recode_interval_s),
        )
    }
}
