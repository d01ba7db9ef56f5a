//! Coding glue: calls a node's coding scheme with its context and applies what the scheme
//! asked for (deliveries, drops, timers). The MAC glue reaches the scheme only through
//! the `coding_*` methods here.

use super::events::Ev;
use super::{Node, Sim};
use crate::coding::{
    Addressed, CodingScheme, ControlMsg, FlowCoder, FlowCx, FlowOut, Layer, OutFrame, PollAt, Rx,
    SchemeCx, SchemeOut, TxOutcome,
};
use crate::engine::Time;
use crate::net::{RouteView, Routes};
use crate::phy::channel::Channel;
use crate::phy::loss::LossModel;

/// The simulator's parts a scheme callback sees, borrowed apart from the nodes and the
/// air so that a received frame can be lent from its air slot.
struct SchemeWorld<'a> {
    now: Time,
    routes: &'a Routes,
    channel: &'a Channel,
    loss: &'a LossModel,
    queue_capacity: usize,
}

/// Calls the scheme of node `nd` (number `n`) with its context, effects into `out`;
/// then notes when the scheme next has a frame due (`Node::due`).
fn call_scheme<R>(
    w: SchemeWorld,
    nd: &mut Node,
    n: u32,
    out: &mut SchemeOut,
    f: impl FnOnce(&mut dyn CodingScheme, &mut SchemeCx) -> R,
) -> R {
    let mut cx = SchemeCx {
        now: w.now,
        node: n,
        route: RouteView::of(w.routes, nd.aodv.as_deref(), n, w.now),
        routes: w.routes,
        channel: w.channel,
        loss: w.loss,
        rng: &mut nd.rng_scheme,
        // The frame the MAC holds counts against the interface queue, as in
        // ns-3's WifiMacQueue (it leaves the queue when acknowledged).
        queue_capacity: w
            .queue_capacity
            .saturating_sub(nd.mac.in_service().map_or(0, |f| f.body.held_packets())),
        out,
    };
    let r = f(&mut *nd.scheme, &mut cx);
    nd.due = nd.scheme.poll_at();
    r
}

impl Sim {
    /// Calls the scheme of node `n` with its context, then applies what it asked for.
    pub(super) fn with_scheme<R>(
        &mut self,
        n: u32,
        f: impl FnOnce(&mut dyn CodingScheme, &mut SchemeCx) -> R,
    ) -> R {
        let mut out = self.out_pool.pop().unwrap_or_default();
        let w = SchemeWorld {
            now: self.now,
            routes: &self.routes,
            channel: &self.channel,
            loss: &self.loss,
            queue_capacity: self.queue_capacity,
        };
        let r = call_scheme(w, &mut self.nodes[n as usize], n, &mut out, f);
        self.apply_scheme_out(n, out);
        r
    }

    /// Applies what a scheme callback of `n` asked for (`out` goes back to the pool).
    fn apply_scheme_out(&mut self, n: u32, mut out: Box<SchemeOut>) {
        {
            let nd = &mut self.nodes[n as usize];
            nd.ledger.handed_over += out.handed_over;
            out.handed_over = 0;
            nd.ledger.received += out.absorbed;
            out.absorbed = 0;
            nd.ledger.delivered += out.consumed;
            out.consumed = 0;
            nd.ledger.originated += out.created;
            out.created = 0;
            if !out.drops.is_empty() {
                for (_, why) in out.drops.drain(..) {
                    super::net_glue::count_drop(&mut nd.stats, &mut nd.ledger, why);
                }
            }
        }
        if !out.wakes.is_empty() {
            for at in out.wakes.drain(..) {
                self.queue
                    .schedule(at.max(self.now), Ev::SchemeWake { node: n });
            }
        }
        if out.deliver.is_empty()
            && out.release.is_empty()
            && out.originate.is_empty()
            && out.up.is_empty()
        {
            self.out_pool.push(out);
        } else {
            let mut delivered = std::mem::take(&mut out.deliver);
            let mut released = std::mem::take(&mut out.release);
            let mut originated = std::mem::take(&mut out.originate);
            let mut made = std::mem::take(&mut out.up);
            self.out_pool.push(out);
            for p in delivered.drain(..) {
                self.nodes[n as usize].ledger.received += 1;
                self.net_arrive(n, p);
            }
            for p in released.drain(..) {
                self.net_arrive(n, p);
            }
            for p in originated.drain(..) {
                self.coding_originate(n, p);
            }
            for p in made.drain(..) {
                self.nodes[n as usize].ledger.originated += 1;
                self.net_route(n, p);
            }
            // give the (now empty) buffers back so their capacity is reused
            if let Some(o) = self.out_pool.last_mut() {
                o.deliver = delivered;
                o.release = released;
                o.originate = originated;
                o.up = made;
            }
        }
        self.coding_poll_later(n);
    }

    /// A scheme holding packets until a time (`PollAt::At`) gets the MAC's attention
    /// then: one pending poll event per node, at the earliest such time.
    fn coding_poll_later(&mut self, n: u32) {
        let nd = &mut self.nodes[n as usize];
        if let PollAt::At(t) = nd.due {
            if t > self.now {
                if let Some(at) = nd.poll_event.arm(t, self.now) {
                    self.queue.schedule(at, Ev::CodingPoll { node: n });
                }
            }
        }
    }

    /// A held packet of `n`'s scheme may be due: the MAC contends if so.
    pub(super) fn on_coding_poll(&mut self, n: u32) {
        let nd = &mut self.nodes[n as usize];
        nd.poll_event.fire(self.now);
        self.mac_packet_ready(n);
        self.coding_poll_later(n);
    }

    /// Calls the flow coder of node `n` (it has one) with its context, then applies what
    /// it asked for. Its packets do not pass through it again.
    pub(super) fn with_flow(&mut self, n: u32, f: impl FnOnce(&mut dyn FlowCoder, &mut FlowCx)) {
        let mut out = FlowOut::default();
        {
            let nd = &mut self.nodes[n as usize];
            // As the scheme's `queue_capacity`: the frame the MAC holds counts.
            let in_service = nd.mac.in_service().map_or(0, |f| f.body.held_packets());
            let room = self
                .queue_capacity
                .saturating_sub(in_service + nd.scheme.occupancy().queued);
            let mut cx = FlowCx {
                now: self.now,
                node: n,
                route: RouteView::of(&self.routes, nd.aodv.as_deref(), n, self.now),
                rng: &mut nd.rng_flow,
                room,
                out: &mut out,
            };
            f(&mut **nd.flow.as_mut().expect("a flow coder"), &mut cx);
            nd.ledger.delivered += out.consumed;
            for (_, why) in out.drops.drain(..) {
                super::net_glue::count_drop(&mut nd.stats, &mut nd.ledger, why);
            }
        }
        for at in out.wakes.drain(..) {
            self.queue
                .schedule(at.max(self.now), Ev::FlowWake { node: n });
        }
        for p in out.pass {
            self.net_route(n, p);
        }
        for p in out.send {
            self.coding_originate(n, p);
        }
        for p in out.up {
            self.nodes[n as usize].ledger.originated += 1;
            self.net_route(n, p);
        }
    }

    /// A wake-up the flow coder of `n` asked for.
    pub(super) fn on_flow_wake(&mut self, n: u32) {
        self.with_flow(n, |c, cx| c.handle_timeout(cx));
    }

    /// A coding layer's control message from `from`, delivered at `n`.
    pub(super) fn coding_control(&mut self, n: u32, from: u32, msg: &ControlMsg) {
        match msg.layer {
            Layer::Hop => {
                self.with_scheme(n, |s, cx| s.handle_control(cx, from, msg));
                self.coding_wake_mac(n);
            }
            Layer::Flow if self.nodes[n as usize].flow.is_some() => {
                self.with_flow(n, |c, cx| c.handle_control(cx, from, msg))
            }
            Layer::Flow => {}
        }
    }

    /// A wake-up the scheme of `n` asked for.
    pub(super) fn on_scheme_wake(&mut self, n: u32) {
        self.with_scheme(n, |s, cx| s.handle_timeout(cx));
        self.mac_packet_ready(n);
    }

    /// Does the scheme of `n` have a frame to send now (the MAC contends only then)?
    pub(super) fn coding_wants_frame(&self, n: u32) -> bool {
        // An AODV message waits, or the scheme is due.
        !self.nodes[n as usize].ctl.is_empty() || self.scheme_due(n)
    }

    /// Has the scheme of `n` asked to be polled by now?
    fn scheme_due(&self, n: u32) -> bool {
        match self.nodes[n as usize].due {
            PollAt::Now => true,
            PollAt::At(t) => t <= self.now,
            PollAt::Idle => false,
        }
    }

    /// The frame the scheme of `n` sends at this transmission opportunity, if one is due
    /// (a post-backoff may end while the scheme holds its packets).
    pub(super) fn coding_next_frame(&mut self, n: u32) -> Option<OutFrame> {
        if let Some(f) = self.aodv_next_frame(n, false) {
            return Some(f);
        }
        if self.scheme_due(n) {
            if let Some(f) = self.with_scheme(n, |s, cx| s.poll_transmit(cx)) {
                if !self.aodv_control_first {
                    self.aodv_data_sent(n, f.body.packets.len());
                }
                return Some(f);
            }
        }
        // Data counted ahead of an AODV message that is not ready to go (held, dropped,
        // coded away) does not hold it back.
        self.aodv_next_frame(n, true)
    }

    /// The data frame in air slot `slot` was received intact at `n`, addressed to it, to
    /// all or to another station (`addressed`, as the MAC told).
    pub(super) fn coding_rx(&mut self, n: u32, slot: u32, addressed: Addressed) {
        let frame = self.air.frame(slot);
        let Some(body) = &frame.data else { return };
        // A `network` loss rule: the MAC has acknowledged the frame, the network layer
        // drops its packets (counted with the node's channel losses).
        let nd = &mut self.nodes[n as usize];
        if self
            .loss
            .network_lost(frame.tx, n, self.now, &mut nd.rng_channel)
        {
            nd.stats.channel_losses += 1;
            return;
        }
        if self.aodv {
            if Self::is_aodv(body) {
                if addressed != Addressed::Overheard {
                    let (tx, p) = (frame.tx, body.packets[0].clone());
                    self.aodv_rx(n, tx, &p);
                }
                return;
            }
            self.aodv_heard(n, frame.tx);
        }
        let frame = self.air.frame(slot);
        let Some(body) = &frame.data else { return };
        let rx = Rx {
            tx: frame.tx,
            mac_rx: frame.rx,
            addressed,
            body,
        };
        // The frame stays in its air slot, lent to the scheme: the callback only
        // records effects, applied after it returns.
        let mut out = self.out_pool.pop().unwrap_or_default();
        let w = SchemeWorld {
            now: self.now,
            routes: &self.routes,
            channel: &self.channel,
            loss: &self.loss,
            queue_capacity: self.queue_capacity,
        };
        call_scheme(w, &mut self.nodes[n as usize], n, &mut out, |s, cx| {
            s.handle_rx(cx, rx)
        });
        self.apply_scheme_out(n, out);
        self.coding_wake_mac(n);
    }

    /// A reception or a control message may have given the scheme of `n` a frame to send
    /// (a credit, an advertisement that ends a hold) without a packet passing the network
    /// layer: the MAC contends if one is due.
    fn coding_wake_mac(&mut self, n: u32) {
        if self.coding_wants_frame(n) {
            self.mac_packet_ready(n);
        }
    }

    /// The MAC of `n` is done with `frame`.
    pub(super) fn coding_tx_outcome(&mut self, n: u32, frame: OutFrame, outcome: TxOutcome) {
        if self.aodv && Self::is_aodv(&frame.body) {
            return self.aodv_tx_outcome(n, frame, outcome);
        }
        // Under AODV, the MAC's retry limit on a unicast: the link to the next hop is broken.
        let broken =
            (self.aodv && outcome == TxOutcome::Failed && frame.mac_rx != crate::net::BROADCAST)
                .then(|| {
                    (
                        frame.mac_rx,
                        frame.body.packets.first().map(|p| (p.src, p.dst)),
                    )
                });
        self.with_scheme(n, |s, cx| s.handle_outcome(cx, frame, outcome));
        if let Some((next, ends)) = broken {
            self.aodv_link_failure(n, next, ends);
        }
        // The queue has room again: a flow coder holding packets back for it sends them.
        if self.nodes[n as usize]
            .flow
            .as_ref()
            .is_some_and(|f| f.wants_room())
        {
            self.with_flow(n, |c, cx| c.handle_room(cx));
        }
    }
}
