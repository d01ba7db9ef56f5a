//! The `[scheme.more]` table: MORE (Chachulski et al., SIGCOMM 2007) as Gheorghiu et
//! al.'s CoMP evaluation runs it. Values the papers leave out are in docs/assumptions.md
//! ("MORE").

use crate::check::*;
use crate::engine::{secs, Time};
use serde::{Deserialize, Serialize};

/// MORE's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct MoreCfg {
    /// Batch size K: native packets a source codes together; a batch also closes
    /// earlier when the source's TCP gives no new segment for `batch_wait_s`; in
    /// [1, 128].
    pub batch: u32,
    /// Forwarder pruning: a forwarder expected to make less than this share of a
    /// batch's transmissions is left out of the plan (Chachulski et al. §4.4); 0: keep
    /// every candidate; in [0, 1).
    pub prune_share: f64,
    /// A source closes a batch that is not full when its TCP gave no new segment for
    /// this long (TCP's window may be smaller than a batch), seconds; in (0, 10].
    pub batch_wait_s: f64,
    /// Smoothing weight per packet reported of the source's loss estimate of its own
    /// links (Gheorghiu et al., CoMP Alg. 1, which replaces MORE's probes); 1: each
    /// report alone; in (0, 1].
    pub loss_alpha: f64,
    /// Attempts per unicast frame of the node's FIFO (TCP's ACKs, batch
    /// acknowledgements): a frame the MAC failed to deliver is sent again at the head of
    /// the FIFO until this many attempts (MORE sends its acknowledgements reliably, by
    /// 802.11 retries, which CoMP's set-up turns off); 1: no resend; in [1, 16]. With
    /// `mac.retransmissions` on, each attempt is a whole MAC exchange with its retries.
    pub fifo_tries: u32,
}

impl Default for MoreCfg {
    fn default() -> Self {
        MoreCfg {
            batch: 32,
            prune_share: 0.1,
            batch_wait_s: 0.1,
            loss_alpha: 1.0 / 32.0,
            fifo_tries: 7,
        }
    }
}

/// The scheme's parameters: the table as given, and its values in the units a node uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoreParams {
    /// `[scheme.more]` (its other fields read through `Deref`).
    pub cfg: MoreCfg,
    /// K, packets.
    pub batch: usize,
    /// Idle time that closes a partial batch (`batch_wait_s`, at least a tick).
    pub batch_wait: Time,
}

impl std::ops::Deref for MoreParams {
    type Target = MoreCfg;
    fn deref(&self) -> &MoreCfg {
        &self.cfg
    }
}

impl MoreCfg {
    /// Checks every value; `at` is the table's path (`scheme.more`).
    pub fn validate(&self, at: &str) -> R {
        let f = |k: &str| format!("{at}.{k}");
        within(
            &f("batch"),
            self.batch,
            "a whole number of packets",
            "[1, 128]",
        )?;
        within(&f("prune_share"), self.prune_share, "a share", "[0, 1)")?;
        let s = "a number of seconds";
        within(&f("batch_wait_s"), self.batch_wait_s, s, "(0, 10]")?;
        within(&f("loss_alpha"), self.loss_alpha, "a weight", "(0, 1]")?;
        let n = "a whole number of attempts";
        within(&f("fifo_tries"), self.fifo_tries, n, "[1, 16]")
    }

    /// The parameters.
    /// The parameters.
    pub fn params(&self) -> MoreParams {
        MoreParams {
            cfg: *self,
            batch: self.batch as usize,
            batch_wait: secs(self.batch_wait_s).max(1),
        }
    }
}
