//! The `[scheme.xor]` table: parameters of the XOR-coding family (COPE, Encode Once,
//! BFLY; NCAQM's queue runs inside it too). Values the papers leave out are in
//! docs/assumptions.md ("Inter-flow XOR coding").

use super::timing::Timing;
use super::XorParams;
use crate::check::*;
use crate::engine::secs;
use serde::{Deserialize, Serialize};

/// The XOR-coding family's parameters (COPE, Encode Once, BFLY; NCAQM runs inside it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct XorCfg {
    /// Encode Once (Xu et al. §IV-A): a native is coded at most once, then
    /// retransmitted alone.
    pub encode_once: bool,
    /// How long overheard and sent packets stay in the packet pool (COPE §3.1); > 0.
    pub pool_time_s: f64,
    /// Code only if every next hop decodes with at least this probability (COPE's G,
    /// §3.3); in [0, 1].
    pub threshold: f64,
    /// Without a report, guess that a neighbour holds a packet with the delivery
    /// probability from the packet's previous hop (COPE §3.4).
    pub guess: bool,
    /// Longest wait of acks before a broadcast control frame carries them; > 0.
    pub control_delay_s: f64,
    /// Longest wait of reception reports alone before a control frame carries them; >
    /// 0.
    pub report_interval_s: f64,
    /// An unacknowledged native of a coded frame goes back to the head of the queue
    /// after this long (`"adaptive"`: at most this long, and this long until the first
    /// ack is measured); > 0.
    pub ack_timeout_s: f64,
    /// The ack timeout per neighbour: SRTT + 4 RTTVAR of its measured ack latency
    /// (RFC 6298's estimator) within [`timer_floor_s`, `ack_timeout_s`], or fixed.
    pub ack_timer: Timing,
    /// COPE's ordering agent: at its destination a TCP segment after a gap waits at
    /// most this long for the gap to fill (0: no agent); >= 0.
    pub ordering_timeout_s: f64,
    /// The ordering agent's hold per flow: SRTT + 4 RTTVAR of how long its gaps took
    /// to fill, within [`timer_floor_s`, `ordering_timeout_s`], or fixed.
    pub ordering_hold: Timing,
    /// Floor of the adaptive ack timeout and ordering hold; > 0, and at most the
    /// ceiling of each adaptive one (`ack_timeout_s`, `ordering_timeout_s`).
    pub timer_floor_s: f64,
    /// Retransmissions of such a native before it is dropped; 0-100.
    pub max_retransmissions: u32,
    /// At most this many natives per code (0: only one per next hop); 0 or >= 2.
    pub max_code: u32,
    /// Also make two-hop codes: natives for one next hop whose following hops differ
    /// and can each decode; the next hop forwards the XOR undecoded (always on for
    /// `"bfly"`; with `"ncaqm"` it gives NCAQM over two-hop coding, Seferoglu &
    /// Markopoulou Fig. 9).
    pub two_hop: bool,
}

impl Default for XorCfg {
    fn default() -> Self {
        XorCfg {
            encode_once: false,
            pool_time_s: 0.5,
            threshold: 0.8,
            guess: true,
            control_delay_s: 0.01,
            report_interval_s: 0.1,
            ack_timeout_s: 0.2,
            ack_timer: Timing::Adaptive,
            ordering_timeout_s: 0.25,
            ordering_hold: Timing::Adaptive,
            timer_floor_s: 0.01,
            max_retransmissions: 3,
            max_code: 0,
            two_hop: false,
        }
    }
}

impl XorCfg {
    /// Checks every value; `at` is the table's path (`scheme.xor`).
    pub fn validate(&self, at: &str) -> R {
        let f = |k: &str| format!("{at}.{k}");
        positive(&f("pool_time_s"), self.pool_time_s, "seconds")?;
        probability(&f("threshold"), self.threshold)?;
        positive(&f("control_delay_s"), self.control_delay_s, "seconds")?;
        positive(&f("report_interval_s"), self.report_interval_s, "seconds")?;
        positive(&f("ack_timeout_s"), self.ack_timeout_s, "seconds")?;
        positive(&f("timer_floor_s"), self.timer_floor_s, "seconds")?;
        // The floor must fit under each adaptive wait's ceiling.
        let ceilings = [
            ("ack_timeout_s", self.ack_timeout_s, self.ack_timer),
            (
                "ordering_timeout_s",
                self.ordering_timeout_s,
                self.ordering_hold,
            ),
        ];
        for (name, ceiling, timing) in ceilings {
            let adaptive = timing == Timing::Adaptive && ceiling > 0.0;
            if adaptive && self.timer_floor_s > ceiling {
                return Err(not_allowed(
                    &f("timer_floor_s"),
                    toml_float(self.timer_floor_s),
                    &format!(
                        "at most {name} ({}) while that wait is adaptive",
                        toml_float(ceiling)
                    ),
                ));
            }
        }
        non_negative(
            &f("ordering_timeout_s"),
            self.ordering_timeout_s,
            "seconds; 0 = no ordering agent",
        )?;
        let retx = self.max_retransmissions;
        within(&f("max_retransmissions"), retx, "an integer", "[0, 100]")?;
        if self.max_code == 1 {
            let allowed = "0 (no limit) or an integer >= 2";
            return Err(not_allowed(&f("max_code"), self.max_code, allowed));
        }
        Ok(())
    }

    /// The layer's parameters; `two_hop` forces two-hop codes (BFLY).
    pub fn params(&self, two_hop: bool) -> XorParams {
        XorParams {
            pool_time: secs(self.pool_time_s),
            threshold: self.threshold,
            guess: self.guess,
            control_delay: secs(self.control_delay_s),
            report_interval: secs(self.report_interval_s),
            ack_timeout: secs(self.ack_timeout_s),
            ack_timing: self.ack_timer,
            timer_floor: secs(self.timer_floor_s),
            ordering_timing: self.ordering_hold,
            max_retransmissions: self.max_retransmissions.min(255) as u8,
            max_code: self.max_code as usize,
            encode_once: self.encode_once,
            ordering_timeout: secs(self.ordering_timeout_s),
            two_hop: self.two_hop || two_hop,
            ..XorParams::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timer_floor_must_not_exceed_the_ack_timeout() {
        let bad = XorCfg {
            timer_floor_s: 0.3,
            ..XorCfg::default()
        };
        let e = bad.validate("scheme.xor").unwrap_err().to_string();
        assert!(
            e.contains("scheme.xor.timer_floor_s")
                && e.contains("0.3")
                && e.contains("ack_timeout_s"),
            "{e}"
        );
        assert!(!e.contains('\n'));
        assert!(XorCfg::default().validate("scheme.xor").is_ok());
        // Fixed timers have no floor to respect; the ordering hold's ceiling counts too.
        let fixed = XorCfg {
            ack_timeout_s: 0.005,
            ack_timer: Timing::Fixed,
            ..XorCfg::default()
        };
        assert!(fixed.validate("scheme.xor").is_ok());
        let hold = XorCfg {
            ordering_timeout_s: 0.005,
            ..XorCfg::default()
        };
        let e = hold.validate("scheme.xor").unwrap_err().to_string();
        assert!(e.contains("ordering_timeout_s (0.005)"), "{e}");
        let no_agent = XorCfg {
            ordering_timeout_s: 0.0,
            ..XorCfg::default()
        };
        assert!(no_agent.validate("scheme.xor").is_ok());
    }
}
