//! Online loss estimation from piggybacked receive counts: Alg. 1 of Gheorghiu et al.,
//! CoMP (§II-B), shared by the schemes that set their redundancy from it
//! (TCP/NC as CoMP's "TCP-ARQ", and later MORE and CoMP themselves).
//!
//! A sender keeps, per downstream neighbour i, the ids of the packets it sent to i and
//! the count r_i that i last reported. A receiver keeps, per upstream neighbour l, the id
//! of the last packet received from l (s) and how many it received from l (t), counted
//! for every reception, innovative or not (§II-B), and piggybacks (s, t) on packets that
//! l hears. On a report (s, t) the sender takes
//!
//! - w_s = the ids sent to i that are ≤ s, w_r = t − r_i;
//! - loss_i = (w_s − w_r) / w_s, then r_i ← t and forgets the ids ≤ s;
//!
//! and the node's loss is the product of the losses of its downstream neighbours (a
//! packet is lost to the node only if every downstream neighbour misses it).
//!
//! The paper uses each report's loss as it is. Reports come after every few packets,
//! so one report's loss is a coarse sample (0, ½, 1, ...); `LossEstimate` also keeps an
//! exponential average per packet reported, weight α per packet (α = 1: the paper's
//! estimate, each report alone). The value is the caller's parameter
//! (docs/assumptions.md, "Loss estimation (CoMP Alg. 1)").
//!
//! Edge cases the paper leaves open, decided here: a report with no id ≤ s still sent
//! (nothing to compare: w_s = 0) gives no sample but takes its count; a report whose
//! count is below the last one (an older report overtaken by a newer one) is ignored
//! whole; w_r above w_s (a report counting packets whose ids the sender no longer keeps)
//! is clamped to w_s, a loss of 0.

use crate::coding::keyed::{find_or_push, value_or_default};
use crate::net::NodeId;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Ids kept per downstream neighbour while no report arrives (its reports lost, or the
/// neighbour gone): the oldest are forgotten beyond this.
pub const MAX_PENDING_IDS: usize = 1 << 14;

/// Packets to send per packet so that one gets through a loss: `surplus` / (1 − loss),
/// within [min, max] (max at a loss of 1): CoMP's rate per credit (§II-C) and TCP/NC's
/// R set online from Alg. 1 (Gheorghiu et al. §III), with their own surplus and bounds.
pub fn compensating_rate(loss: f64, surplus: f64, min: f64, max: f64) -> f64 {
    if loss >= 1.0 {
        return max;
    }
    (surplus / (1.0 - loss.max(0.0))).clamp(min, max)
}

/// Where a sender's loss towards a downstream neighbour starts before Alg. 1 has a
/// sample (the paper is silent: §II-B estimates only from reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum LossPrior {
    /// The routing's estimate of the link (1 − its delivery probability, what ETX is made
    /// of): a node knows its links before it sends on them, as the paper's routing did.
    Routing,
    /// No start: a neighbour without a sample is left out of the node loss (lossless),
    /// and TCP/NC's R is its configured `redundancy` until the first report.
    None,
}

/// One report's comparison (Alg. 1, lines 2-4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossSample {
    /// w_s: packets sent to the neighbour with id ≤ s.
    pub sent: u64,
    /// w_r: packets the neighbour received since its previous report (at most `sent`).
    pub received: u64,
    /// (w_s − w_r) / w_s.
    pub loss: f64,
}

/// The sender's state for one downstream neighbour.
#[derive(Debug, Clone, Default)]
struct Downstream {
    node: NodeId,
    /// p_i: ids sent, ascending.
    sent: VecDeque<u64>,
    /// The highest id ever recorded (a resend of an id is not a new packet).
    highest: Option<u64>,
    /// r_i: the count the neighbour last reported.
    reported: u64,
    /// The smoothed loss, once a sample came.
    smoothed: Option<f64>,
    /// Samples taken.
    samples: u64,
}

/// Alg. 1 at a sender: per downstream neighbour, the ids sent and the last count
/// reported, and the loss estimated from each report (smoothed, weight `alpha` per
/// packet reported).
#[derive(Debug, Clone)]
pub struct LossEstimate {
    alpha: f64,
    down: Vec<Downstream>,
}

impl LossEstimate {
    /// An estimator; `alpha` in (0, 1] is the smoothing weight per packet reported
    /// (1: each report's own loss, as the paper).
    pub fn new(alpha: f64) -> LossEstimate {
        debug_assert!(alpha > 0.0 && alpha <= 1.0);
        LossEstimate {
            alpha,
            down: Vec::new(),
        }
    }

    fn entry(&mut self, node: NodeId) -> &mut Downstream {
        find_or_push(
            &mut self.down,
            |d| d.node == node,
            || Downstream {
                node,
                ..Downstream::default()
            },
        )
    }

    /// This node sent packet `id` to downstream neighbour `to` (ids ascend per
    /// neighbour). An id at or below one recorded before is a resend of the same packet
    /// (an inter-flow coder's retransmission in a new frame) and is not counted again.
    pub fn sent(&mut self, to: NodeId, id: u64) {
        let d = self.entry(to);
        if d.highest.is_some_and(|h| id <= h) {
            return;
        }
        d.highest = Some(id);
        if d.sent.len() == MAX_PENDING_IDS {
            d.sent.pop_front();
        }
        d.sent.push_back(id);
    }

    /// Starts the loss towards `to` at `loss` if no sample or start has set it yet: the
    /// first reports then move it by their weight (`alpha` per packet) rather than
    /// replace it.
    pub fn start_from(&mut self, to: NodeId, loss: f64) {
        let d = self.entry(to);
        if d.smoothed.is_none() {
            d.smoothed = Some(loss.clamp(0.0, 1.0));
        }
    }

    /// Neighbour `from` reports (s, t): the id of the last packet it received from this
    /// node and how many it has received from it in all. Returns the sample it gives
    /// (None: an old or empty report, see the module documentation).
    pub fn report(&mut self, from: NodeId, s: u64, t: u64) -> Option<LossSample> {
        let alpha = self.alpha;
        let d = self.entry(from);
        if t < d.reported {
            return None;
        }
        let w_s = d.sent.iter().take_while(|&&id| id <= s).count();
        d.sent.drain(..w_s);
        let w_r = t - d.reported;
        d.reported = t;
        if w_s == 0 {
            return None;
        }
        let w_s = w_s as u64;
        let received = w_r.min(w_s);
        let loss = (w_s - received) as f64 / w_s as f64;
        // Per-packet EWMA: w_s packets at weight alpha each.
        let keep = (1.0 - alpha).powi(w_s.min(i32::MAX as u64) as i32);
        d.smoothed = Some(match d.smoothed {
            None => loss,
            Some(old) => keep * old + (1.0 - keep) * loss,
        });
        d.samples += 1;
        Some(LossSample {
            sent: w_s,
            received,
            loss,
        })
    }

    /// The smoothed loss towards `to` (None before its first sample).
    pub fn loss_to(&self, to: NodeId) -> Option<f64> {
        self.down.iter().find(|d| d.node == to)?.smoothed
    }

    /// The node's loss over its current downstream neighbours `downstream`: the product
    /// of the smoothed losses of those that have one (None before any sample; a former
    /// neighbour, after routes moved, no longer counts).
    pub fn node_loss(&self, downstream: impl IntoIterator<Item = NodeId>) -> Option<f64> {
        downstream
            .into_iter()
            .filter_map(|n| self.loss_to(n))
            .fold(None, |p, l| Some(p.unwrap_or(1.0) * l))
    }

    /// Samples taken, over all neighbours.
    pub fn samples(&self) -> u64 {
        self.down.iter().map(|d| d.samples).sum()
    }
}

/// The receiver's counts for one upstream neighbour: (s, t) of Alg. 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// s: the id of the last packet received from the neighbour.
    pub last_id: u64,
    /// t: packets received from it in all.
    pub received: u64,
}

/// Alg. 1 at a receiver: per upstream neighbour, the last id received and the count,
/// updated on every reception (innovative or not).
#[derive(Debug, Clone, Default)]
pub struct ReceiveCounts {
    up: Vec<(NodeId, Counts)>,
}

impl ReceiveCounts {
    /// Packet `id` received from upstream neighbour `from`.
    pub fn received(&mut self, from: NodeId, id: u64) {
        let c = value_or_default(&mut self.up, from);
        c.last_id = id;
        c.received += 1;
    }

    /// The counts to piggyback for `to` (None: nothing received from it yet).
    pub fn counts(&self, to: NodeId) -> Option<Counts> {
        self.up.iter().find(|e| e.0 == to).map(|e| e.1)
    }

    /// Every upstream neighbour's counts, as reports for it.
    pub fn reports(&self) -> impl Iterator<Item = Report> + '_ {
        self.up.iter().map(|&(to, counts)| Report { to, counts })
    }
}

/// Alg. 1's report on the air: a receiver's (s, t) for the node they are about (an
/// upstream neighbour in CoMP, a flow's source in MORE). One block for both families; the
/// node's address is as wide as the family's header names nodes (docs/assumptions.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// The node the counts are about.
    pub to: NodeId,
    /// (s, t).
    pub counts: Counts,
}

impl Report {
    /// Bytes of (s, t) on the air: 4 each.
    pub const COUNTS_BYTES: u32 = 8;
    /// Bytes of one report in a capture: the node (u32), s and t (u64 each).
    pub const PCAP_BYTES: usize = 20;

    /// Bytes of one report on the air whose node takes `address_bytes`.
    pub const fn bytes(address_bytes: u32) -> u32 {
        address_bytes + Self::COUNTS_BYTES
    }

    /// Writes the report's `PCAP_BYTES` into a capture.
    pub fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to.to_be_bytes());
        out.extend_from_slice(&self.counts.last_id.to_be_bytes());
        out.extend_from_slice(&self.counts.received.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn a_hand_made_sequence_of_reports_gives_the_expected_losses() {
        // The paper's estimate (alpha = 1): each report alone.
        let mut e = LossEstimate::new(1.0);
        for id in 1..=10 {
            e.sent(7, id);
        }
        // Ids 1-4 sent, 3 received: a quarter lost.
        let s = e.report(7, 4, 3).unwrap();
        assert_eq!((s.sent, s.received), (4, 3));
        assert!(close(s.loss, 0.25));
        // Ids 5-8 sent, 6 - 3 = 3 more received (r was set to 3).
        let s = e.report(7, 8, 6).unwrap();
        assert_eq!((s.sent, s.received), (4, 3));
        assert!(close(s.loss, 0.25));
        // Ids 9-10 sent, none received.
        let s = e.report(7, 10, 6).unwrap();
        assert!(close(s.loss, 1.0));
        assert!(
            close(e.loss_to(7).unwrap(), 1.0),
            "alpha 1: the last report"
        );
        assert_eq!(e.samples(), 3);
        // A receiver counting as Alg. 1's receiver side does gives these reports.
        let mut rx = ReceiveCounts::default();
        for id in [1, 2, 4] {
            rx.received(3, id);
        }
        assert_eq!(
            rx.counts(3),
            Some(Counts {
                last_id: 4,
                received: 3
            })
        );
        assert_eq!(rx.counts(9), None);
    }

    #[test]
    fn a_resent_id_is_not_a_new_packet() {
        // An inter-flow coder puts id 2 on the air twice: Alg. 1 counts it once.
        let mut e = LossEstimate::new(1.0);
        for id in [1, 2, 2, 3, 1] {
            e.sent(7, id);
        }
        let s = e.report(7, 3, 3).unwrap();
        assert_eq!((s.sent, s.received), (3, 3));
        assert!(close(s.loss, 0.0));
    }

    #[test]
    fn the_node_loss_is_the_product_over_downstream_neighbours() {
        let mut e = LossEstimate::new(1.0);
        assert_eq!(e.node_loss([1, 2]), None);
        for id in 1..=4 {
            e.sent(1, id);
            e.sent(2, id);
        }
        e.report(1, 4, 2); // 0.5
        assert!(
            close(e.node_loss([1, 2]).unwrap(), 0.5),
            "one neighbour so far"
        );
        e.report(2, 4, 3); // 0.25
        assert!(close(e.node_loss([1, 2]).unwrap(), 0.125));
        assert!(
            close(e.node_loss([2]).unwrap(), 0.25),
            "only the neighbours named"
        );
    }

    #[test]
    fn edge_cases_no_packet_sent_old_and_duplicate_reports_and_clamping() {
        let mut e = LossEstimate::new(1.0);
        // Nothing sent ≤ s: no sample, but the count is taken.
        assert_eq!(e.report(5, 10, 2), None);
        for id in 11..=14 {
            e.sent(5, id);
        }
        // 4 sent, 4 - 2 = 2 received.
        assert!(close(e.report(5, 14, 4).unwrap().loss, 0.5));
        // The same report again: its ids are gone, no sample.
        assert_eq!(e.report(5, 14, 4), None);
        // An older report (count below the last): ignored whole.
        e.sent(5, 15);
        assert_eq!(e.report(5, 12, 3), None);
        assert_eq!(e.report(5, 15, 5).unwrap().loss, 0.0, "id 15 still counted");
        // More received than sent ≤ s (ids forgotten): clamped to no loss.
        e.sent(5, 16);
        let s = e.report(5, 16, 9).unwrap();
        assert_eq!((s.sent, s.received, s.loss), (1, 1, 0.0));
    }

    #[test]
    fn an_unsampled_link_starts_from_its_prior_and_reports_move_it_by_their_weight() {
        let mut e = LossEstimate::new(0.5);
        assert_eq!(e.node_loss([4]), None, "no sample, no start");
        e.start_from(4, 0.3);
        assert_eq!(e.loss_to(4), Some(0.3));
        assert_eq!(e.node_loss([4, 5]), Some(0.3), "5 has neither");
        e.start_from(4, 0.9);
        assert_eq!(
            e.loss_to(4),
            Some(0.3),
            "a start does not replace an estimate"
        );
        // One packet sent and received: loss 0 with weight 0.5.
        e.sent(4, 0);
        e.report(4, 0, 1).unwrap();
        assert!(close(e.loss_to(4).unwrap(), 0.15));
        assert_eq!(e.samples(), 1, "the start is not a sample");
    }

    #[test]
    fn smoothing_weights_each_packet_reported() {
        let mut e = LossEstimate::new(0.5);
        for id in 1..=3 {
            e.sent(1, id);
        }
        e.report(1, 1, 0); // first sample: 1.0 as it is
        assert!(close(e.loss_to(1).unwrap(), 1.0));
        // Two packets, both received: two steps of weight 1/2 towards 0.
        e.report(1, 3, 2);
        assert!(close(e.loss_to(1).unwrap(), 0.25));
    }

    #[test]
    fn ids_kept_without_reports_are_bounded() {
        let mut e = LossEstimate::new(1.0);
        for id in 0..(MAX_PENDING_IDS as u64 + 10) {
            e.sent(1, id);
        }
        let s = e.report(1, u64::MAX, MAX_PENDING_IDS as u64).unwrap();
        assert_eq!(s.sent, MAX_PENDING_IDS as u64);
        assert_eq!(s.loss, 0.0);
    }
}
