//! COPE's recovery timers on the scale of the link they guard.
//!
//! Katti et al. §3.5 retransmit a coded native whose asynchronous ack does not come in
//! time, and hold reordered TCP segments at the destination until the gap fills. Both
//! waits are for one link's repair, not for TCP's round trip: a fixed 0.2 s timeout
//! (TCP's delayed-ACK scale) turns every undecoded native into a hole TCP reads as loss.
//! So each is estimated from what the node measures, with RFC 6298's estimator
//! (SRTT + 4 RTTVAR), between a floor and the fixed value (which is also the value
//! before the first sample and the `"fixed"` option):
//! - the ack timeout per neighbour, from the time between the MAC's end of a coded frame
//!   and the neighbour's ack of a native in it, late acks included (Karn's rule: natives
//!   sent once only);
//! - the ordering agent's hold per flow, from the time a gap took to fill (the
//!   upstream's ack timeout plus its resend: the hold follows the ack timer it waits on).
//!
//! A wait that runs out backs off (RFC 6298 §5.5: doubled, up to the fixed value) until
//! the next sample, so an estimate that fell below what it waits for can grow again.
//! Chosen values (floor) are in docs/assumptions.md.

use crate::coding::keyed::find_or_push;
use crate::engine::Time;
use crate::net::NodeId;
use crate::transport::tcp::RttEstimator;

/// How a recovery wait is set (`scheme.xor.ack_timer`, `scheme.xor.ordering_hold`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Timing {
    /// Always the configured value.
    Fixed,
    /// Estimated from samples, within [floor, configured value].
    Adaptive,
}

/// One recovery wait: fixed, or an RFC 6298 estimate of the samples fed to it.
#[derive(Debug, Clone)]
pub struct Wait {
    timing: Timing,
    fixed: Time,
    est: RttEstimator,
}

impl Wait {
    /// A wait of `fixed` (also the ceiling and the value before any sample), floored at
    /// `floor` when adaptive.
    pub fn new(timing: Timing, fixed: Time, floor: Time) -> Wait {
        Wait {
            timing,
            fixed,
            est: RttEstimator::with_bounds(fixed, floor.min(fixed), fixed, 0),
        }
    }

    /// How long to wait now.
    pub fn get(&self) -> Time {
        match self.timing {
            Timing::Fixed => self.fixed,
            Timing::Adaptive => self.est.rto(),
        }
    }

    /// One measured latency of what the wait is for.
    pub fn sample(&mut self, latency: Time) {
        self.est.on_sample(latency);
    }

    /// The wait ran out before what it waits for came.
    pub fn back_off(&mut self) {
        self.est.back_off();
    }
}

/// The ack timeouts of one node's coded natives, one per neighbour (next hop).
#[derive(Debug, Clone)]
pub struct AckTimers {
    template: Wait,
    /// Per neighbour: its timeout, and when it last backed off.
    per_neighbour: Vec<(NodeId, Wait, Time)>,
}

impl AckTimers {
    /// Timers that start at `fixed` (see [`Wait::new`]).
    pub fn new(timing: Timing, fixed: Time, floor: Time) -> AckTimers {
        AckTimers {
            template: Wait::new(timing, fixed, floor),
            per_neighbour: Vec::new(),
        }
    }

    /// The ack timeout for a native sent to `nb`.
    pub fn timeout(&self, nb: NodeId) -> Time {
        self.per_neighbour
            .iter()
            .find(|(n, ..)| *n == nb)
            .map_or(&self.template, |(_, w, _)| w)
            .get()
    }

    /// `nb` acked a native `latency` after its frame left the MAC.
    pub fn sample(&mut self, nb: NodeId, latency: Time) {
        self.of(nb).1.sample(latency);
    }

    /// A native sent to `nb` at `sent_at` was not acknowledged in time, at `now`. The
    /// timer backs off once per expiry (RFC 6298 §5.5): natives sent before the last
    /// back-off ran on the old timeout and do not double it again.
    pub fn back_off(&mut self, nb: NodeId, sent_at: Time, now: Time) {
        let (_, wait, last) = self.of(nb);
        if sent_at >= *last {
            wait.back_off();
            *last = now;
        }
    }

    fn of(&mut self, nb: NodeId) -> &mut (NodeId, Wait, Time) {
        let template = &self.template;
        find_or_push(
            &mut self.per_neighbour,
            |(n, ..)| *n == nb,
            || (nb, template.clone(), 0),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MILLIS, SECOND};

    #[test]
    fn the_ack_timeout_converges_to_a_links_ack_latency() {
        let mut t = AckTimers::new(Timing::Adaptive, 200 * MILLIS, 5 * MILLIS);
        assert_eq!(t.timeout(1), 200 * MILLIS, "the fixed value before samples");
        // Neighbour 1 acks after 8-12 ms (its acks wait up to 10 ms for a frame).
        for i in 0..200u64 {
            t.sample(1, (8 + (i % 5)) * MILLIS);
        }
        let rto = t.timeout(1);
        assert!(
            (10 * MILLIS..=18 * MILLIS).contains(&rto),
            "SRTT ~ 10 ms plus 4 RTTVAR ~ 1.2 ms each: {rto}"
        );
        // Another neighbour's timer is its own.
        assert_eq!(t.timeout(2), 200 * MILLIS);
        for _ in 0..100 {
            t.sample(2, 40 * MILLIS);
        }
        assert!((40 * MILLIS..=41 * MILLIS).contains(&t.timeout(2)));
        assert_eq!(t.timeout(1), rto);
    }

    #[test]
    fn the_floor_and_the_fixed_ceiling_bound_the_estimate() {
        let mut t = AckTimers::new(Timing::Adaptive, 200 * MILLIS, 20 * MILLIS);
        for _ in 0..50 {
            t.sample(1, MILLIS);
        }
        assert_eq!(t.timeout(1), 20 * MILLIS, "floor");
        for _ in 0..50 {
            t.sample(1, 900 * MILLIS);
        }
        assert_eq!(t.timeout(1), 200 * MILLIS, "ceiling");
    }

    #[test]
    fn a_timeout_backs_off_until_the_next_sample() {
        let mut t = AckTimers::new(Timing::Adaptive, 200 * MILLIS, 5 * MILLIS);
        for _ in 0..50 {
            t.sample(1, 10 * MILLIS);
        }
        let rto = t.timeout(1);
        t.back_off(1, 100 * MILLIS, 100 * MILLIS + rto);
        assert_eq!(t.timeout(1), 2 * rto);
        // Natives sent before that back-off expire too: no second doubling.
        t.back_off(1, 99 * MILLIS, 101 * MILLIS + rto);
        assert_eq!(t.timeout(1), 2 * rto);
        for k in 1..=10 {
            t.back_off(1, SECOND * k, SECOND * k + 1);
        }
        assert_eq!(t.timeout(1), 200 * MILLIS, "never above the fixed value");
        t.sample(1, 10 * MILLIS);
        assert!(t.timeout(1) < 2 * rto, "a sample ends the back-off");
    }

    #[test]
    fn fixed_timing_ignores_samples() {
        let mut t = AckTimers::new(Timing::Fixed, 200 * MILLIS, 20 * MILLIS);
        for _ in 0..50 {
            t.sample(1, 10 * MILLIS);
        }
        assert_eq!(t.timeout(1), 200 * MILLIS);
    }
}
