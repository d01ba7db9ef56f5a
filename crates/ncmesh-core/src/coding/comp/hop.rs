//! What a CoMP frame says hop by hop (Gheorghiu et al. Alg. 1 and Alg. 2 line 6): the
//! sender's queue for the flow and its (s, t) for each upstream neighbour, written on every
//! frame and read from every frame heard; a hand-over stands in for a queue not yet heard.

use super::header::CompHeader;
use super::Comp;
use crate::coding::SchemeCx;
use crate::engine::Time;
use crate::net::NodeId;
use smallvec::SmallVec;

impl Comp {
    /// The header of a frame carrying a packet of `flow` (`id`: a combination's).
    pub(super) fn header(&self, flow: u32, id: Option<u64>) -> CompHeader {
        let mut h = CompHeader {
            flow,
            id,
            queue: 0,
            reports: SmallVec::new(),
        };
        if let Some(f) = self.find(flow).map(|i| &self.flows[i]) {
            // Two bytes on the air (`header::FIXED_BYTES`).
            h.queue = f.owed().min(u16::MAX as usize) as u32;
            h.reports = f.counts.reports().collect();
        }
        h
    }

    /// What a frame's header tells this node: a downstream neighbour's queue, and
    /// Alg. 1 reports for this node.
    pub(super) fn read_header(&mut self, cx: &mut SchemeCx, tx: NodeId, h: &CompHeader) {
        let Some(fi) = self.find(h.flow) else { return };
        let until = cx.now + self.p.advert_timeout;
        self.flows[fi].cands.hear(tx, h.queue, 0.0, until);
        let Some(r) = h.reports.iter().find(|r| r.to == cx.node) else {
            return;
        };
        let f = &mut self.flows[fi];
        let Some(sample) = f.est.report(tx, r.counts.last_id, r.counts.received) else {
            return;
        };
        self.update_rate(cx, fi);
        let lost = sample.sent - sample.received;
        // Credits for missed packets (`compensation` "credits" or "both") in either loss
        // mode (the configured mode replaces only the rate's estimate), while there is
        // something to combine.
        if self.p.loss_credits() && lost > 0 && self.flows[fi].holds_any() {
            // §II-C: a credit per packet the neighbour missed.
            self.counters.loss_credits += lost;
            self.flows[fi].num += lost as f64;
        }
    }

    /// A packet of `flow` reached neighbour `nb`: until it advertises again, its queue
    /// is one more than it last said (none heard: 1, for the advertisement's lifetime).
    pub(super) fn handed(&mut self, nb: NodeId, flow: u32, now: Time) {
        let timeout = self.p.advert_timeout;
        let Some(fi) = self.find(flow) else { return };
        let f = &mut self.flows[fi];
        if nb != f.dst {
            f.cands.handed(nb, now, timeout);
        }
    }
}
