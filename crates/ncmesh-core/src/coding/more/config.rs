//! The `[scheme.more]` table: MORE (Chachulski et al., SIGCOMM 2007) as Gheorghiu et
//! al.'s CoMP evaluation runs it. Values the papers leave out are in docs/assumptions.md
//! ("MORE").

use crate::check::toml_float;
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
        if !(1..=128).contains(&self.batch) {
            return Err(not_allowed(
                &f("batch"),
                self.batch,
                "a whole number of packets in [1, 128]",
            ));
        }
        if !(self.prune_share >= 0.0 && self.prune_share < 1.0) {
            return Err(not_allowed(
                &f("prune_share"),
                fnum(self.prune_share),
                "a share in [0, 1)",
            ));
        }
        if !(self.batch_wait_s > 0.0 && self.batch_wait_s <= 10.0) {
            return Err(not_allowed(
                &f("batch_wait_s"),
                fnum(self.batch_wait_s),
                "a number of seconds in (0, 10]",
            ));
        }
        if !(self.loss_alpha > 0.0 && self.loss_alpha <= 1.0) {
            return Err(not_allowed(
                &f("loss_alpha"),
                fnum(self.loss_alpha),
                "a weight in (0, 1]",
            ));
        }
        if !(1..=16).contains(&self.fifo_tries) {
            return Err(not_allowed(
                &f("fifo_tries"),
                self.fifo_tries,
                "a whole number of attempts in [1, 16]",
            ));
        }
        Ok(())
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

    /// The table as TOML lines (`key = value`), for the canonical scenario text.
    pub fn emit(&self, kv: &mut dyn FnMut(&str, String)) {
        kv("batch", self.batch.to_string());
        kv("prune_share", toml_float(self.prune_share));
        kv("batch_wait_s", toml_float(self.batch_wait_s));
        kv("loss_alpha", toml_float(self.loss_alpha));
        kv("fifo_tries", self.fifo_tries.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_one_line_naming_the_field() {
        let at = "scheme.more";
        assert!(MoreCfg::default().validate(at).is_ok());
        let d = MoreCfg::default;
        let e = MoreCfg { batch: 0, ..d() }.validate(at).unwrap_err();
        assert_eq!(e.field, "scheme.more.batch");
        assert_eq!(
            e.message,
            "0 is not allowed: expected a whole number of packets in [1, 128]"
        );
        let e = MoreCfg { batch: 129, ..d() }.validate(at).unwrap_err();
        assert_eq!(e.field, "scheme.more.batch");
        let e = MoreCfg {
            prune_share: 1.0,
            ..d()
        }
        .validate(at)
        .unwrap_err();
        assert_eq!(e.field, "scheme.more.prune_share");
        assert_eq!(e.message, "1.0 is not allowed: expected a share in [0, 1)");
        let e = MoreCfg {
            batch_wait_s: 0.0,
            ..d()
        }
        .validate(at)
        .unwrap_err();
        assert_eq!(e.field, "scheme.more.batch_wait_s");
        assert_eq!(
            e.message,
            "0.0 is not allowed: expected a number of seconds in (0, 10]"
        );
        let e = MoreCfg {
            loss_alpha: f64::NAN,
            ..d()
        }
        .validate(at)
        .unwrap_err();
        assert_eq!(e.field, "scheme.more.loss_alpha");
        assert_eq!(e.message, "NaN is not allowed: expected a weight in (0, 1]");
        let e = MoreCfg {
            fifo_tries: 0,
            ..d()
        }
        .validate(at)
        .unwrap_err();
        assert_eq!(e.field, "scheme.more.fifo_tries");
        assert_eq!(
            e.message,
            "0 is not allowed: expected a whole number of attempts in [1, 16]"
        );
    }
}
