//! The `[scheme.tcpnc]` table: TCP/NC (Sundararajan et al., INFOCOM 2009), with the
//! redundancy fixed or set online from CoMP's Alg. 1 (Gheorghiu et al. §III, "TCP-ARQ").
//! Values the papers leave out are in docs/assumptions.md ("TCP/NC").

use crate::check::*;
use crate::coding::loss_estimate::{compensating_rate, LossPrior};
use serde::{Deserialize, Serialize};

/// The finite field of the coefficients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum NcField {
    /// GF(2^8), one byte per coefficient (Sundararajan et al.'s implementation).
    Gf256,
    /// GF(2^16), two bytes per coefficient (CoMP, Gheorghiu et al. §II).
    Gf65536,
}

/// What the source does with combinations its node's interface queue has no room for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum FullQueue {
    /// Owes them (NUM keeps them) and sends them as the queue drains: CoMP's output
    /// buffer, whose combinations are never dropped by the source's own queue (Gheorghiu
    /// et al. §II-E; the paper ran TCP-ARQ in CoMP's framework, §III).
    Owe,
    /// Offers them to the queue, which drops what does not fit (a TCP/NC agent that
    /// sends into the interface queue, as the ns-2 agent).
    Drop,
}

/// TCP/NC's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct TcpNcCfg {
    /// Field of the coding coefficients: `"gf256"` (Sundararajan et al.) or `"gf65536"`
    /// (CoMP).
    pub field: NcField,
    /// Set the redundancy R online at the source from CoMP's Alg. 1, with the loss the
    /// destination reports on its acknowledgements (Gheorghiu et al., CoMP §III, "TCP-ARQ"); false: R
    /// stays `redundancy`.
    pub adaptive: bool,
    /// With `adaptive`, the path's loss before the first report: `"routing"` (1 − the
    /// product of the routing's delivery estimates of the routed path's links; R follows
    /// from it) or `"none"` (R is `redundancy` until the first report).
    pub prior: LossPrior,
    /// R, combinations sent per packet from TCP (fractions accumulate); with `adaptive`
    /// and `prior = "none"`, R until the first loss report; in [1, 10].
    pub redundancy: f64,
    /// Adaptive R's floor; in [1, 10], at most `max_redundancy`.
    pub min_redundancy: f64,
    /// Adaptive R's cap; in [1, 10].
    pub max_redundancy: f64,
    /// Adaptive R is `headroom` / (1 − estimated loss): above 1, the destination gains
    /// degrees of freedom faster than packets arrive, on average; in [1, 2].
    pub headroom: f64,
    /// Smoothing of the loss estimate: weight of each packet reported in the exponential
    /// average (1: each report's own loss, as Alg. 1); in (0, 1].
    pub loss_alpha: f64,
    /// When an acknowledgement's window leaves TCP no room to send (the destination holds
    /// packets seen but not decoded: they take receive buffer), the source sends R
    /// combinations of its window itself, as for a packet from TCP (not in the paper);
    /// false: only TCP's packets, retransmissions included, send combinations, as the
    /// paper.
    pub blocked_repair: bool,
    /// Combinations the node's interface queue has no room for: `"owe"` (kept owed, sent
    /// as the queue drains) or `"drop"` (offered anyway, the queue drops them).
    pub full_queue: FullQueue,
}

impl Default for TcpNcCfg {
    fn default() -> Self {
        TcpNcCfg {
            field: NcField::Gf256,
            adaptive: true,
            prior: LossPrior::Routing,
            redundancy: 1.25,
            min_redundancy: 1.0,
            max_redundancy: 5.0,
            headroom: 1.1,
            loss_alpha: 1.0 / 32.0,
            blocked_repair: false,
            full_queue: FullQueue::Owe,
        }
    }
}

/// TCP/NC's parameters: the table as given, and the receive window.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpNcParams {
    /// `[scheme.tcpnc]` (its fields read through `Deref`).
    pub cfg: TcpNcCfg,
    /// The window a destination advertises until its TCP receiver has acknowledged
    /// something (the scenario's `tcp.rcv_buffer_bytes`).
    pub rcv_window: u32,
}

impl std::ops::Deref for TcpNcParams {
    type Target = TcpNcCfg;
    fn deref(&self) -> &TcpNcCfg {
        &self.cfg
    }
}

impl TcpNcParams {
    /// How many combinations may go to a queue with `room` free slots.
    pub fn room(&self, room: usize) -> usize {
        match self.full_queue {
            FullQueue::Owe => room,
            FullQueue::Drop => usize::MAX,
        }
    }

    /// R for an estimated loss (the rule of docs/assumptions.md, "TCP/NC").
    pub fn redundancy_for(&self, loss: f64) -> f64 {
        let (min, max) = (self.min_redundancy, self.max_redundancy);
        compensating_rate(loss, self.headroom, min, max)
    }
}

impl TcpNcCfg {
    /// Checks every value; `at` is the table's path (`scheme.tcpnc`).
    pub fn validate(&self, at: &str) -> R {
        let f = |k: &str| format!("{at}.{k}");
        within(&f("redundancy"), self.redundancy, "a number", "[1, 10]")?;
        within(
            &f("min_redundancy"),
            self.min_redundancy,
            "a number",
            "[1, 10]",
        )?;
        within(
            &f("max_redundancy"),
            self.max_redundancy,
            "a number",
            "[1, 10]",
        )?;
        if self.min_redundancy > self.max_redundancy {
            let most = format!(
                "at most {} ({})",
                f("max_redundancy"),
                fnum(self.max_redundancy)
            );
            return Err(not_allowed(
                &f("min_redundancy"),
                fnum(self.min_redundancy),
                &most,
            ));
        }
        within(&f("headroom"), self.headroom, "a number", "[1, 2]")?;
        within(&f("loss_alpha"), self.loss_alpha, "a number", "(0, 1]")
    }

    /// The parameters; `rcv_window` is the scenario's TCP receive buffer.
    pub fn params(&self, rcv_window: u32) -> TcpNcParams {
        TcpNcParams {
            cfg: *self,
            rcv_window,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_redundancy_rule_follows_the_loss_within_its_bounds() {
        let p = TcpNcCfg::default().params(65_536);
        assert_eq!(p.redundancy_for(0.0), 1.1);
        assert!((p.redundancy_for(0.5) - 2.2).abs() < 1e-12);
        assert_eq!(p.redundancy_for(0.9), 5.0, "capped");
        assert_eq!(p.redundancy_for(1.0), 5.0);
        let floor = TcpNcCfg {
            headroom: 1.0,
            min_redundancy: 1.2,
            ..TcpNcCfg::default()
        }
        .params(65_536);
        assert_eq!(floor.redundancy_for(0.0), 1.2, "floored");
    }
}
