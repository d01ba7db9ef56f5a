//! The `[scheme.horizon]` table: Horizon (Radunović et al., MSR-TR-2008-54), CoMP's
//! multipath baseline (Gheorghiu et al., CoMP). Values the papers leave out are in
//! docs/assumptions.md ("Horizon").

use crate::check::toml_float;
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
        if !(0.0..=10.0).contains(&self.hold_s) {
            return Err(not_allowed(
                &f("hold_s"),
                fnum(self.hold_s),
                "a number of seconds in [0, 10]",
            ));
        }
        if !(self.advert_timeout_s > 0.0 && self.advert_timeout_s <= 10.0) {
            return Err(not_allowed(
                &f("advert_timeout_s"),
                fnum(self.advert_timeout_s),
                "a number of seconds in (0, 10]",
            ));
        }
        if self.window_threshold > 1000 {
            return Err(not_allowed(
                &f("window_threshold"),
                self.window_threshold,
                "a whole number of segments in [0, 1000]",
            ));
        }
        Ok(())
    }

    /// The parameters.
    pub fn params(&self) -> HorizonParams {
        HorizonParams {
            hold: secs(self.hold_s),
            advert_timeout: secs(self.advert_timeout_s).max(1),
            window_threshold: self.window_threshold,
        }
    }

    /// The table as TOML lines (`key = value`), for the canonical scenario text.
    pub fn emit(&self, kv: &mut dyn FnMut(&str, String)) {
        kv("hold_s", toml_float(self.hold_s));
        kv("advert_timeout_s", toml_float(self.advert_timeout_s));
        kv("window_threshold", self.window_threshold.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_one_line_naming_the_field() {
        let at = "scheme.horizon";
        assert!(HorizonCfg::default().validate(at).is_ok());
        let d = HorizonCfg::default;
        let e = HorizonCfg {
            hold_s: -1.0,
            ..d()
        }
        .validate(at)
        .unwrap_err();
        assert_eq!(e.field, "scheme.horizon.hold_s");
        assert_eq!(
            e.message,
            "-1.0 is not allowed: expected a number of seconds in [0, 10]"
        );
        let e = HorizonCfg {
            advert_timeout_s: 0.0,
            ..d()
        }
        .validate(at)
        .unwrap_err();
        assert_eq!(e.field, "scheme.horizon.advert_timeout_s");
        let e = HorizonCfg {
            window_threshold: 5000,
            ..d()
        }
        .validate(at)
        .unwrap_err();
        assert_eq!(e.field, "scheme.horizon.window_threshold");
        assert!(HorizonCfg {
            hold_s: f64::NAN,
            ..d()
        }
        .validate(at)
        .is_err());
    }
}
