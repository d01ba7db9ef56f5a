//! ComboCoding's loss adaptation (Chen et al., "Loss adaptation algorithm", Eq. 3-5): a
//! node counts the combinations of each direction it receives in the current generation
//! (N) and writes the count into the packets it sends the other way; a node counts the
//! combinations it sends per generation (M) and, when its neighbour's count for a
//! generation is final (a report for a newer one arrives), takes the instantaneous loss
//! (M − N) / M, smooths it with an exponential moving average (α = 1/6) and sets its
//! redundancy to (K − 1) + 1 / (1 − P̄) (K = 1.4).
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
    /// The latest report: (generation, combinations the next hop received).
    last: Option<(u32, u32)>,
    /// Smoothed loss P̄.
    loss: f64,
}

/// Per-node loss estimates of the directions it sends, and counts of those it receives.
#[derive(Debug)]
pub(super) struct LossEstimator {
    alpha: f64,
    base: f64,
    out: Vec<(Dir, Outgoing)>,
    /// Per received direction: (current generation, combinations received in it).
    received: Vec<(Dir, (u32, u32))>,
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
        let i = match self.out.iter().position(|e| e.0 == d) {
            Some(i) => i,
            None => {
                self.out.push((d, Outgoing::default()));
                self.out.len() - 1
            }
        };
        &mut self.out[i].1
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
    /// this node sends to it).
    pub(super) fn received(&mut self, d: Dir, gen: u32, report: Option<(u32, u16)>, about: Dir) {
        let i = match self.received.iter().position(|e| e.0 == d) {
            Some(i) => i,
            None => {
                self.received.push((d, (gen, 0)));
                self.received.len() - 1
            }
        };
        let n = &mut self.received[i].1;
        if gen > n.0 {
            *n = (gen, 1);
        } else if gen == n.0 {
            n.1 += 1;
        }
        let Some((rg, rn)) = report else { return };
        let (alpha, rn) = (self.alpha, u32::from(rn));
        let o = self.outgoing(about);
        let mut updated = false;
        match o.last {
            Some((lg, ln)) if rg == lg => o.last = Some((lg, ln.max(rn))),
            Some((lg, _)) if rg < lg => {}
            prev => {
                // The report for the previous generation is final: Eq. 3, then Eq. 4.
                if let Some((lg, ln)) = prev {
                    if let Some(&(_, m)) = o.sent.iter().find(|e| e.0 == lg) {
                        if m > 0 {
                            let p0 = (f64::from(m) - f64::from(ln)).max(0.0) / f64::from(m);
                            o.loss += alpha * (p0 - o.loss);
                            updated = true;
                        }
                    }
                }
                o.last = Some((rg, rn));
            }
        }
        self.updates += u64::from(updated);
    }

    /// The count to report for direction `d` (received here): (generation, received).
    pub(super) fn report(&self, d: Dir) -> Option<(u32, u16)> {
        let (_, (g, n)) = self.received.iter().find(|e| e.0 == d)?;
        Some((*g, (*n).min(u32::from(u16::MAX)) as u16))
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
        // Generation 0: 20 sent, the next hop reports 15, 16 received (final: 16).
        for _ in 0..20 {
            e.sent(D, 0);
        }
        e.received(A, 0, Some((0, 15)), D);
        e.received(A, 1, Some((0, 16)), D);
        assert_eq!(
            e.updates, 0,
            "not final until a newer generation is reported"
        );
        e.received(A, 2, Some((1, 3)), D);
        assert_eq!(e.updates, 1);
        // P0 = (20 - 16) / 20 = 0.2; P̄ = 0 + (0.2 - 0) / 6.
        let p = 0.2 / 6.0;
        assert!((e.loss(D) - p).abs() < 1e-12);
        assert!((e.redundancy(D) - (0.4 + 1.0 / (1.0 - p))).abs() < 1e-12);
        // The ACK direction's receptions are what this node reports back.
        assert_eq!(e.report(A), Some((2, 1)));
    }

    #[test]
    fn a_steady_loss_is_reached_and_a_stale_report_ignored() {
        let mut e = LossEstimator::new(1.0 / 6.0, 1.4);
        for g in 0..60u32 {
            for _ in 0..20 {
                e.sent(D, g);
            }
            // 40% of each generation lost.
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
