//! The `[scheme.comp]` table: CoMP (Gheorghiu, Lopez Toledo, Rodriguez, ICC 2010). Values
//! the paper leaves out are in docs/assumptions.md ("CoMP").

use crate::check::*;
use crate::coding::loss_estimate::{compensating_rate, LossPrior};
use crate::engine::{secs, Time};
use serde::{Deserialize, Serialize};

/// Where a node's link losses come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum LossSource {
    /// Estimated online from the (s, t) its downstream neighbours piggyback (CoMP Alg. 1).
    Estimated,
    /// The configured channel and loss rules (the link's delivery probability): CoMP
    /// Fig. 2's "optimal" redundancy, computed from the given loss.
    Configured,
}

/// How a node compensates the loss towards its downstream neighbours. §II-B names two
/// mechanisms in one sentence (a redundant combination when a loss is detected, and a
/// sending rate adjusted to the total estimated loss) and §II-C the loss credits; applied
/// together they compensate the same loss twice, and the surplus grows hop by hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Compensation {
    /// Each credit makes 1 / (1 − node loss) combinations (§II-B's rate; the abstract's
    /// "rate at which linear combinations are transmitted", Fig. 2's "optimal redundancy
    /// rate").
    Rate,
    /// Each credit makes one combination, and a report that shows packets missed creates
    /// one credit per packet missed (§II-B's redundant combination, §II-C's credits
    /// created by intermediate nodes on a detected loss).
    Credits,
    /// Both (the rule before issue 28: the loss is compensated twice).
    Both,
}

/// CoMP's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct CompCfg {
    /// Link losses: `"estimated"` (Alg. 1, the protocol) or `"configured"` (each link's
    /// delivery probability from the channel and `[[loss]]` rules: Fig. 2's optimal
    /// curve).
    pub loss: LossSource,
    /// A downstream neighbour's loss before Alg. 1's first sample: `"routing"` (the
    /// routing's estimate of the link) or `"none"` (left out of the node loss until
    /// sampled: lossless).
    pub prior: LossPrior,
    /// Smoothing of Alg. 1's estimate: weight of each packet reported in the exponential
    /// average (1: each report's own loss, as Alg. 1); in (0, 1].
    pub loss_alpha: f64,
    /// Cap of a node's sending rate, combinations per credit (1 / (1 − node loss));
    /// in [1, 10].
    pub max_redundancy: f64,
    /// The source's rate is `headroom` / (1 − node loss) (relays': 1 / (1 − node loss)):
    /// above 1, the destination gains degrees of freedom faster than the window grows, so
    /// its rank catches up and it decodes (without it, a deficit of one stalls decoding
    /// until TCP times out); in [1, 2].
    pub headroom: f64,
    /// How the loss is compensated: `"rate"` (1 / (1 − node loss) combinations per
    /// credit), `"credits"` (one per credit, and a credit per packet a report shows
    /// missed) or `"both"` (the loss compensated twice).
    pub compensation: Compensation,
    /// When an acknowledgement that moves the source's window leaves TCP no room to send
    /// (the destination holds packets seen but not decoded), the source takes it as a
    /// credit (TCP/NC's `blocked_repair`, which CoMP needs more: its degrees of freedom
    /// arrive with little surplus); false: only TCP's packets are credits.
    pub blocked_repair: bool,
    /// A downstream neighbour that overhears a combination addressed to another keeps it
    /// if innovative (Fig. 1's multipath reception; without the credit); false: a node
    /// uses only the combinations addressed to it.
    pub overhear: bool,
    /// A credited combination that is not innovative still makes the relay send (its
    /// buffer already spans it, typically from overhearing: the transmission the credit
    /// stands for is still owed downstream); false: Alg. 4 as printed, the credit goes
    /// with the dropped combination.
    pub keep_credit: bool,
    /// A relay whose whole coding buffer a passing acknowledgement shows seen by the
    /// destination empties it and drops its credits (the source drops those packets on
    /// the same acknowledgement); false: the buffer slides only with newer windows.
    pub flush_on_ack: bool,
    /// A downstream neighbour's advertised queue counts this long after the frame that
    /// carried it was heard; after that it counts as 0, seconds; in (0, 10].
    pub advert_timeout_s: f64,
}

impl Default for CompCfg {
    fn default() -> Self {
        CompCfg {
            loss: LossSource::Estimated,
            prior: LossPrior::Routing,
            loss_alpha: 1.0 / 32.0,
            max_redundancy: 5.0,
            headroom: 1.1,
            compensation: Compensation::Credits,
            blocked_repair: false,
            overhear: true,
            keep_credit: true,
            flush_on_ack: true,
            advert_timeout_s: 0.1,
        }
    }
}

/// The scheme's parameters: the table as given, and what a node derives from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompParams {
    /// `[scheme.comp]` (its fields read through `Deref`).
    pub cfg: CompCfg,
    /// Lifetime of a neighbour's advertised queue (`advert_timeout_s`, at least a tick).
    pub advert_timeout: Time,
    /// The window a destination advertises until its TCP receiver has acknowledged
    /// something (the scenario's `tcp.rcv_buffer_bytes`).
    pub rcv_window: u32,
}

impl std::ops::Deref for CompParams {
    type Target = CompCfg;
    fn deref(&self) -> &CompCfg {
        &self.cfg
    }
}

impl CompParams {
    /// Combinations per credit for a node loss (the probability that every downstream
    /// neighbour misses a packet): 1 / (1 − loss), times `headroom` at a `source`, within
    /// [1, max_redundancy].
    pub fn rate_for(&self, node_loss: f64, source: bool) -> f64 {
        let surplus = if source { self.headroom } else { 1.0 };
        // Under "credits" the loss credits alone compensate (§II-C).
        let loss = match self.compensation() {
            Compensation::Credits => 0.0,
            Compensation::Rate | Compensation::Both => node_loss,
        };
        compensating_rate(loss, surplus, 1.0, self.max_redundancy)
    }

    /// The compensation in force: with the configured loss (Fig. 2's optimal curve, "the
    /// optimal redundancy rate ... computed based on the given loss probability", §II-B)
    /// the rate compensates, and under `"credits"` the credits on detected losses stay
    /// (without them a combination lost to what the configured loss leaves out, such as
    /// collisions, is never replaced and the flow stalls: measured, docs/assumptions.md).
    pub fn compensation(&self) -> Compensation {
        match (self.loss, self.cfg.compensation) {
            (LossSource::Configured, Compensation::Credits) => Compensation::Both,
            (_, c) => c,
        }
    }

    /// Does a detected loss create credits (§II-C)?
    pub fn loss_credits(&self) -> bool {
        self.compensation() != Compensation::Rate
    }
}

impl CompCfg {
    /// Checks every value; `at` is the table's path (`scheme.comp`).
    pub fn validate(&self, at: &str) -> R {
        let f = |k: &str| format!("{at}.{k}");
        within(&f("loss_alpha"), self.loss_alpha, "a number", "(0, 1]")?;
        within(
            &f("max_redundancy"),
            self.max_redundancy,
            "a number",
            "[1, 10]",
        )?;
        within(&f("headroom"), self.headroom, "a number", "[1, 2]")?;
        let s = "a number of seconds";
        within(&f("advert_timeout_s"), self.advert_timeout_s, s, "(0, 10]")
    }

    /// The parameters, with the destination's initial window `rcv_window`.
    pub fn params(&self, rcv_window: u32) -> CompParams {
        CompParams {
            cfg: *self,
            advert_timeout: secs(self.advert_timeout_s).max(1),
            rcv_window,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_compensates_the_node_loss_within_its_cap() {
        let credits = CompCfg::default().params(64_000);
        assert!(credits.loss_credits());
        assert_eq!(
            credits.rate_for(0.5, false),
            1.0,
            "compensated once, by credits"
        );
        assert!(
            (credits.rate_for(0.5, true) - 1.1).abs() < 1e-12,
            "the headroom stays"
        );
        let configured = CompCfg {
            loss: LossSource::Configured,
            ..CompCfg::default()
        }
        .params(64_000);
        assert!(
            configured.loss_credits(),
            "Fig. 2's optimal rate, credits kept"
        );
        assert_eq!(configured.rate_for(0.5, false), 2.0);
        let p = CompCfg {
            compensation: Compensation::Rate,
            ..CompCfg::default()
        }
        .params(64_000);
        assert!(!p.loss_credits(), "compensated once, by the rate");
        assert_eq!(p.rate_for(0.0, false), 1.0);
        assert!((p.rate_for(0.2, false) - 1.25).abs() < 1e-12);
        assert!((p.rate_for(0.2, true) - 1.375).abs() < 1e-12, "1.1 / 0.8");
        assert_eq!(p.rate_for(0.9, false), 5.0);
        assert_eq!(p.rate_for(1.0, true), 5.0);
    }
}
