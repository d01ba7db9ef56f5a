//! Coding glue: calls a node's coding scheme with its context and applies what the scheme
//! asked for (deliveries, drops, timers). The MAC glue reaches the scheme only through
//! the `coding_*` methods here.

use super::events::Ev;
use super::Sim;
use crate::coding::{CodingScheme, OutFrame, SchemeCx, TxOutcome};

impl Sim {
    /// Calls the scheme of node `n` with its context, then applies what it asked for.
    pub(super) fn with_scheme<R>(
        &mut self,
        n: u32,
        f: impl FnOnce(&mut dyn CodingScheme, &mut SchemeCx) -> R,
    ) -> R {
        let mut out = self.out_pool.pop().unwrap_or_default();
        let r = {
            let nd = &mut self.nodes[n as usize];
            let mut cx = SchemeCx {
                now: self.now,
                node: n,
                routes: &self.routes,
                channel: &self.channel,
                loss: &self.loss,
                rng: &mut nd.rng_scheme,
                // The frame the MAC holds counts against the interface queue, as in
                // ns-3's WifiMacQueue (it leaves the queue when acknowledged).
                queue_capacity: self
                    .queue_capacity
                    .saturating_sub(nd.mac.in_service().map_or(0, |f| f.body.held_packets())),
                out: &mut out,
            };
            f(&mut *nd.scheme, &mut cx)
        };
        {
            let nd = &mut self.nodes[n as usize];
            nd.ledger.handed_over += out.handed_over;
            out.handed_over = 0;
            nd.ledger.received += out.absorbed;
            out.absorbed = 0;
            for (_, why) in out.drops.drain(..) {
                super::net_glue::count_drop(&mut nd.stats, &mut nd.ledger, why);
            }
        }
        for (at, token) in out.timers.drain(..) {
            self.queue
                .schedule(at.max(self.now), Ev::SchemeTimer { node: n, token });
        }
        let mut delivered = std::mem::take(&mut out.deliver);
        let released = std::mem::take(&mut out.release);
        self.out_pool.push(out);
        for p in delivered.drain(..) {
            self.nodes[n as usize].ledger.received += 1;
            self.net_arrive(n, p);
        }
        for p in released {
            self.net_arrive(n, p);
        }
        // give the (now empty) buffer back so its capacity is reused
        if let Some(o) = self.out_pool.last_mut() {
            if o.deliver.capacity() < delivered.capacity() {
                o.deliver = delivered;
            }
        }
        r
    }

    pub(super) fn on_scheme_timer(&mut self, n: u32, token: u64) {
        self.with_scheme(n, |s, cx| s.on_timer(cx, token));
        self.mac_packet_ready(n);
    }

    /// Does the scheme of `n` have a frame to send now (the MAC contends only then)?
    pub(super) fn coding_wants_frame(&self, n: u32) -> bool {
        self.nodes[n as usize].scheme.has_frame()
    }

    /// The frame the scheme of `n` sends at this transmission opportunity.
    pub(super) fn coding_next_frame(&mut self, n: u32) -> Option<OutFrame> {
        self.with_scheme(n, |s, cx| s.next_frame(cx))
    }

    /// The data frame in air slot `slot` was received intact at `n`; `addressed`: `n`
    /// is its MAC receiver (or it was broadcast).
    pub(super) fn coding_rx(&mut self, n: u32, slot: u32, addressed: bool) {
        // Lent out for the call: scheme callbacks only schedule events, they never put
        // frames on the air synchronously, so the slot is not touched meanwhile.
        let frame = self.air.take(slot);
        self.with_scheme(n, |s, cx| s.on_frame(cx, &frame, addressed));
        self.air.restore(slot, frame);
    }

    /// The MAC of `n` is done with `frame`.
    pub(super) fn coding_tx_outcome(&mut self, n: u32, frame: OutFrame, outcome: TxOutcome) {
        self.with_scheme(n, |s, cx| s.on_tx_outcome(cx, frame, outcome));
    }
}
