//! ComboCoding's loss adaptation (Chen et al., "Loss adaptation algorithm", Eq. 3-5): a
//! node counts the combinations of each direction it receives per generation (N) and
//! writes into the packets it sends the other way the count of the last generation it
//! completed (complete when the next generation's first combination arrives); a node
//! counts the combinations it sends per generation (M) and, for each generation reported,
//! takes the instantaneous loss (M − N) / M, smooths it with an exponential moving average
//! (α = 1/6) and sets its redundancy to (K − 1) + 1 / (1 − P̄) (K = 1.4).
//!
//! The paper carries the count of the current generation. Read at the sender, that count
//! lags by the combinations still in flight when the reports stop (a count is sampled
//! only when a packet goes the other way): on Chen et al.'s 54 Mbit/s string without any
//! loss it estimated 17-34% (real: about 4%, queue overflows and retry drops), which raised
//! the redundancy for nothing. A completed generation's count has no such lag.
//!
//! The paper estimates the DATA direction only and gives the ACK flow the same
//! redundancy "due to symmetric links"; here each direction estimates its own outgoing
//! link from the reports carried the other way, which is the same on symmetric links and
//! gives the TCP receiver (which sends ACKs only) an estimate of its own.

use std::collections::VecDeque;

/// A flow direction: (flow, node that originates its packets).
pub(super) type Dir = (u32, u32);

/// The highest loss the estimate may reach (redundancy stays finite: 1/(1 − 0.9) = 10).
const MAX_LOSS: f64 = 0.9;

/// What this node sent of one direction, and what its next hop reported receiving.
#[derive(Debug, Default)]
struct Outgoing {
    /// (generation, combinations sent), newest last.
    sent: VecDeque<(u32, u32)>,
    /// The newest generation the next hop has reported.
    last: Option<u32>,
    /// Smoothed loss P̄.
    loss: f64,
}

/// Combinations received of one direction.
#[derive(Debug, Clone, Copy)]
struct Received {
    current: (u32, u32),
    done: Option<(u32, u32)>,
}

/// Per-node loss estimates of the directions it sends, and counts of those it receives.
#[derive(Debug)]
pub(super) struct LossEstimator {
    alpha: f64,
    base: f64,
    out: Vec<(Dir, Outgoing)>,
    /// Per received direction: (current generation, combinations received in it), and the
    /// same for the last completed generation (what is reported).
    received: Vec<(Dir, Received)>,
    /// EWMA updates made.
    pub(super) updates: u64,
}

impl LossEstimator {
    /// α of Eq. 4 and K of Eq. 5.
    pub(super) fn new(alpha: f64, base: f64) -> LossEstimator {
        LossEstimator {
            alpha,
            base,
            out: Vec::new(),
            received: Vec::new(),
            updates: 0,
        }
    }

    fn outgoing(&mut self, d: Dir) -> &mut Outgoing {
        super::entry(&mut self.out, d)
    }

    /// This node sends a combination of generation `gen` of direction `d` (M).
    pub(super) fn sent(&mut self, d: Dir, gen: u32) {
        let o = self.outgoing(d);
        match o.sent.back_mut() {
            Some(e) if e.0 == gen => e.1 += 1,
            Some(e) if e.0 > gen => {
                if let Some(e) = o.sent.iter_mut().find(|e| e.0 == gen) {
                    e.1 += 1;
                }
            }
            _ => {
                o.sent.push_back((gen, 1));
                if o.sent.len() > 16 {
                    o.sent.pop_front();
                }
            }
        }
    }

    /// This node received a combination of generation `gen` of direction `d` (N), whose
    /// sender reported `report` = (generation, received) for direction `about` (the one
    /// this node sends to it): Eq. 3 and 4 for each newly reported generation.
    pub(super) fn received(&mut self, d: Dir, gen: u32, report: Option<(u32, u16)>, about: Dir) {
        match self.received.iter_mut().find(|e| e.0 == d) {
            Some((_, r)) if gen > r.current.0 => {
                r.done = Some(r.current);
                r.current = (gen, 1);
            }
            Some((_, r)) if gen == r.current.0 => r.current.1 += 1,
            Some(_) => {}
            None => self.received.push((
                d,
                Received {
                    current: (gen, 1),
                    done: None,
                },
            )),
        }
        let Some((rg, rn)) = report else { return };
        let alpha = self.alpha;
        let o = self.outgoing(about);
        if o.last.is_some_and(|l| rg <= l) {
            return;
        }
        o.last = Some(rg);
        let Some(&(_, m)) = o.sent.iter().find(|e| e.0 == rg) else {
            return;
        };
        if m > 0 {
            let p0 = (f64::from(m) - f64::from(rn)).max(0.0) / f64::from(m);
            o.loss += alpha * (p0 - o.loss);
            self.updates += 1;
        }
    }

    /// The count to report for direction `d` (received here): the last completed
    /// generation and how many of its combinations arrived.
    pub(super) fn report(&self, d: Dir) -> Option<(u32, u16)> {
        let (_, r) = self.received.iter().find(|e| e.0 == d)?;
        let (g, n) = r.done?;
        Some((g, n.min(u32::from(u16::MAX)) as u16))
    }

    /// Eq. 5: the redundancy for direction `d` on this node's outgoing link.
    pub(super) fn redundancy(&self, d: Dir) -> f64 {
        (self.base - 1.0) + 1.0 / (1.0 - self.loss(d))
    }

    /// The smoothed loss P̄ of direction `d`'s outgoing link (0 before any report).
    pub(super) fn loss(&self, d: Dir) -> f64 {
        self.out
            .iter()
            .find(|e| e.0 == d)
            .map_or(0.0, |e| e.1.loss.min(MAX_LOSS))
    }

    /// The highest smoothed loss of any direction this node sends.
    pub(super) fn max_loss(&self) -> f64 {
        self.out
            .iter()
            .map(|e| e.1.loss.min(MAX_LOSS))
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: Dir = (0, 0); // DATA, sent by this node
    const A: Dir = (0, 3); // ACKs, received by this node

    #[test]
    fn the_estimate_follows_eq_3_to_5() {
        let mut e = LossEstimator::new(1.0 / 6.0, 1.4);
        assert!((e.redundancy(D) - 1.4).abs() < 1e-12, "R(0) = K");
        // Generation 0: 20 sent; the next hop reports 16 received once it completed it.
        for _ in 0..20 {
            e.sent(D, 0);
        }
        e.received(A, 0, None, D);
        assert_eq!(e.updates, 0);
        e.received(A, 1, Some((0, 16)), D);
        assert_eq!(e.updates, 1);
        e.received(A, 1, Some((0, 16)), D);
        assert_eq!(e.updates, 1, "a generation counts once");
        // P0 = (20 - 16) / 20 = 0.2; P̄ = 0 + (0.2 - 0) / 6.
        let p = 0.2 / 6.0;
        assert!((e.loss(D) - p).abs() < 1e-12);
        assert!((e.redundancy(D) - (0.4 + 1.0 / (1.0 - p))).abs() < 1e-12);
        // What this node reports of the ACK direction: its last completed generation.
        assert_eq!(e.report(A), Some((0, 1)));
        e.received(A, 2, None, D);
        assert_eq!(e.report(A), Some((1, 2)));
    }

    #[test]
    fn a_steady_loss_is_reached_and_a_stale_report_ignored() {
        let mut e = LossEstimator::new(1.0 / 6.0, 1.4);
        for g in 0..60u32 {
            for _ in 0..20 {
                e.sent(D, g);
            }
            // 40% of each generation lost; an older report arriving late changes nothing.
            e.received(A, g, Some((g, 12)), D);
            e.received(A, g, Some((g.saturating_sub(1), 2)), D);
        }
        assert!((e.loss(D) - 0.4).abs() < 0.01, "{}", e.loss(D));
        assert!((e.redundancy(D) - (0.4 + 1.0 / 0.6)).abs() < 0.05);
    }

    #[test]
    fn the_estimate_converges_to_a_random_link_loss() {
        use crate::engine::{Rng, StreamPurpose};
        // Generations of 20 combinations each lost with probability p; the next hop's
        // count is final once it reports the next generation.
        for p in [0.1, 0.3, 0.5] {
            let mut rng = Rng::stream(9, 0, StreamPurpose::FlowCoding);
            let mut e = LossEstimator::new(1.0 / 6.0, 1.4);
            let mut tail = Vec::new();
            for g in 0..400u32 {
                let mut n = 0u16;
                for _ in 0..20 {
                    e.sent(D, g);
                    n += u16::from(!rng.chance(p));
                }
                e.received(A, g, Some((g, n)), D);
                if g >= 100 {
                    tail.push(e.loss(D));
                }
            }
            let mean = tail.iter().sum::<f64>() / tail.len() as f64;
            assert!((mean - p).abs() < 0.01, "p = {p}: mean estimate {mean}");
            assert!(
                tail.iter().all(|&x| (x - p).abs() < 0.12),
                "p = {p}: an estimate strays"
            );
        }
    }
}
