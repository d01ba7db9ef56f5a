//! The `[scheme.piggycode]` table: DATA/ACK XOR coding (PiggyCode) with the wait-time
//! insertion and wait-time configuration of Takimoto et al. Values the papers leave out
//! are in docs/assumptions.md ("DATA/ACK coding").

use crate::check::*;
use crate::engine::{secs, Time};
use serde::{Deserialize, Serialize};

/// DATA/ACK coding's parameters (PiggyCode; Takimoto et al.'s wait time; ComboCoding's
/// timer T is `wait_s = 0.004`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct PiggyCfg {
    /// Scheme `"waittime"`: how long a relay holds a DATA packet that found no ACK to
    /// code with (Takimoto et al. §III; ComboCoding's timer T is 0.004); >= 0, 0 = plain
    /// PiggyCode. Ignored when `configured` is true.
    pub wait_s: f64,
    /// Scheme `"waittime"`: choose the wait per packet from the path's hop count and the
    /// interface queue (Takimoto et al. §IV) instead of `wait_s`.
    pub configured: bool,
    /// Configured wait: paths longer than this many hops (sender to receiver) get no
    /// wait, i.e. plain PiggyCode; 1-64.
    pub configured_max_hops: u32,
    /// Configured wait: an interface queue holding at most this many packets counts as
    /// "nearly empty" (a low sending rate: short wait), longer as "filling" (long
    /// wait); >= 0.
    pub configured_queue_threshold: u32,
    /// Configured wait at a low rate (2 and 3 hops); >= 0.
    pub configured_short_wait_s: f64,
    /// Configured wait at a high rate on a 2-hop path; >= 0.
    pub configured_long_wait_2hop_s: f64,
    /// Configured wait at a high rate on paths of 3 hops or more (up to
    /// `configured_max_hops`); >= 0.
    pub configured_long_wait_3hop_s: f64,
    /// DATA packets the encoding queue holds; a full queue pushes its head on to the
    /// interface queue; 1-10000.
    pub encoding_queue: u32,
    /// How long an end host or relay keeps a copy of each TCP packet it sent (the
    /// decoding buffer); > 0.
    pub buffer_s: f64,
    /// Period at which coded packets waiting for their partner are checked; > 0.
    pub decode_poll_s: f64,
    /// A coded packet whose partner has not come after this long is a decode failure;
    /// > 0.
    pub decode_max_wait_s: f64,
    /// Where a coded packet is queued, and what an ACK searches: one reading of
    /// Takimoto et al., who say it two ways (docs/assumptions.md, "DATA/ACK coding").
    pub placement: Placement,
}

/// Where a coded DATA/ACK pair goes in the interface queue. Takimoto et al. put it "at
/// the head" (§II-A, §III-A) and, describing their ns-2 module (§III-B), pass it "to the
/// lower layer", the ACK searching only the encoding queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// As near the head as it can go without passing a queued DATA of its flow with a
    /// lower sequence number: the head, and the order of its flow's DATA kept.
    Ordered,
    /// At the very head, ahead of every queued packet, coded ones included: a stack of
    /// coded packets, the newest first (which can send a DATA before older queued DATA).
    Stack,
    /// §III-B's ns-2 module: the pair is passed to the lower layer and queued at the
    /// tail like any packet; with waits on, a DATA goes to the encoding queue without
    /// searching the interface queue, and an ACK searches the encoding queue only.
    LowerLayer,
    /// Where its DATA was in the interface queue (else the tail): no reordering at all
    /// (an ablation, in no paper).
    InPlace,
}

impl Default for PiggyCfg {
    fn default() -> Self {
        PiggyCfg {
            wait_s: 0.03,
            configured: false,
            configured_max_hops: 3,
            configured_queue_threshold: 1,
            configured_short_wait_s: 0.01,
            configured_long_wait_2hop_s: 0.03,
            configured_long_wait_3hop_s: 0.09,
            encoding_queue: 50,
            buffer_s: 1.0,
            decode_poll_s: 0.01,
            decode_max_wait_s: 0.5,
            placement: Placement::Ordered,
        }
    }
}

/// The wait rule in force at a relay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WaitRule {
    /// The same wait for every DATA packet (0: never wait).
    Fixed(Time),
    /// Takimoto et al. §IV: from the path's hop count and the interface queue.
    Configured {
        /// Paths longer than this get no wait.
        max_hops: u32,
        /// Queue length up to which the rate counts as low.
        queue_threshold: usize,
        /// Wait at a low rate.
        short: Time,
        /// Wait at a high rate, 2 hops.
        long_2hop: Time,
        /// Wait at a high rate, 3 hops or more.
        long_3hop: Time,
    },
}

impl WaitRule {
    /// The wait for a DATA packet on a path of `hops` hops, with `queued` packets in
    /// the interface queue (Takimoto et al. §IV-A).
    pub fn wait(&self, hops: u32, queued: usize) -> Time {
        match *self {
            WaitRule::Fixed(w) => w,
            WaitRule::Configured {
                max_hops,
                queue_threshold,
                short,
                long_2hop,
                long_3hop,
            } => {
                if hops > max_hops {
                    0
                } else if queued <= queue_threshold {
                    short
                } else if hops <= 2 {
                    long_2hop
                } else {
                    long_3hop
                }
            }
        }
    }
}

/// The layer's parameters, in engine units.
#[derive(Debug, Clone, PartialEq)]
pub struct PiggyParams {
    /// The wait rule at relays.
    pub wait: WaitRule,
    /// Encoding-queue capacity, packets.
    pub encoding_queue: usize,
    /// Decoding-buffer lifetime of a sent packet's copy.
    pub buffer: Time,
    /// Decoding-queue check period.
    pub decode_poll: Time,
    /// Longest stay in the decoding queue.
    pub decode_max_wait: Time,
    /// Where coded packets are queued.
    pub placement: Placement,
    /// ComboCoding: DATA and ACK by direction, each flow's DATA sender by flow index
    /// (None: PiggyCode, by the TCP header).
    pub data_sources: Option<std::sync::Arc<[crate::net::NodeId]>>,
}

impl PiggyCfg {
    /// Checks every value; `at` is the table's path (`scheme.piggycode`).
    pub fn validate(&self, at: &str) -> R {
        let f = |k: &str| format!("{at}.{k}");
        non_negative(&f("wait_s"), self.wait_s, "seconds; 0 = plain PiggyCode")?;
        let hops = self.configured_max_hops;
        within(&f("configured_max_hops"), hops, "an integer", "[1, 64]")?;
        for (k, v) in [
            ("configured_short_wait_s", self.configured_short_wait_s),
            (
                "configured_long_wait_2hop_s",
                self.configured_long_wait_2hop_s,
            ),
            (
                "configured_long_wait_3hop_s",
                self.configured_long_wait_3hop_s,
            ),
        ] {
            non_negative(&f(k), v, "seconds")?;
        }
        within(
            &f("encoding_queue"),
            self.encoding_queue,
            "an integer",
            "[1, 10000]",
        )?;
        positive(&f("buffer_s"), self.buffer_s, "seconds")?;
        positive(&f("decode_poll_s"), self.decode_poll_s, "seconds")?;
        positive(&f("decode_max_wait_s"), self.decode_max_wait_s, "seconds")
    }

    /// The parameters; `waits` false gives plain PiggyCode (no wait at all).
    pub fn params(&self, waits: bool) -> PiggyParams {
        let wait = if !waits {
            WaitRule::Fixed(0)
        } else if self.configured {
            WaitRule::Configured {
                max_hops: self.configured_max_hops,
                queue_threshold: self.configured_queue_threshold as usize,
                short: secs(self.configured_short_wait_s),
                long_2hop: secs(self.configured_long_wait_2hop_s),
                long_3hop: secs(self.configured_long_wait_3hop_s),
            }
        } else {
            WaitRule::Fixed(secs(self.wait_s))
        };
        PiggyParams {
            wait,
            encoding_queue: self.encoding_queue as usize,
            buffer: secs(self.buffer_s),
            decode_poll: secs(self.decode_poll_s),
            decode_max_wait: secs(self.decode_max_wait_s),
            placement: self.placement,
            data_sources: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MILLIS;

    fn configured() -> WaitRule {
        PiggyCfg {
            configured: true,
            ..PiggyCfg::default()
        }
        .params(true)
        .wait
    }

    #[test]
    fn configured_wait_follows_hops_and_queue() {
        let w = configured();
        // Nearly empty queue: the short wait at 2 and 3 hops.
        assert_eq!(w.wait(2, 0), 10 * MILLIS);
        assert_eq!(w.wait(3, 1), 10 * MILLIS);
        // Filling queue: 30 ms at 2 hops, 90 ms at 3.
        assert_eq!(w.wait(2, 2), 30 * MILLIS);
        assert_eq!(w.wait(3, 5), 90 * MILLIS);
        // Beyond the cut-off: plain PiggyCode.
        assert_eq!(w.wait(4, 0), 0);
        assert_eq!(w.wait(4, 10), 0);
    }

    #[test]
    fn plain_piggycode_never_waits() {
        let p = PiggyCfg::default().params(false);
        assert_eq!(p.wait, WaitRule::Fixed(0));
    }
}
