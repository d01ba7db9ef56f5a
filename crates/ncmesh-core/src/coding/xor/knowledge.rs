//! Learning neighbour state (COPE §3.4): what each neighbour reported, and a guess from
//! link delivery probabilities when no report arrived.

use super::entry::{Knowledge, Native};
use super::pool::{nb_key, ExpiringSet};
use super::XorParams;
use crate::coding::{link_delivery, SchemeCx};
use crate::engine::Time;
use crate::net::NodeId;
use crate::phy::loss::LossModel;
use crate::phy::Channel;

/// This node's view of its neighbours at one instant.
pub struct View<'a> {
    /// The instant of the view.
    pub now: Time,
    /// This node.
    pub me: NodeId,
    /// `nb_key(neighbour, uid)`: the neighbour reported (or sent) the packet.
    pub reported: &'a ExpiringSet,
    /// Link powers, for the delivery-probability guess.
    pub channel: &'a Channel,
    /// Loss rules, for the delivery-probability guess.
    pub loss: &'a LossModel,
    /// Guess from delivery probabilities when no report says so (`[scheme.xor] guess`).
    pub guess: bool,
    /// How long neighbours keep packets in their pools.
    pub pool_time: Time,
    /// Per neighbour: time up to which its reception reports were complete.
    pub horizon: &'a [(NodeId, Time)],
}

impl<'a> View<'a> {
    /// The view of the node of `cx` with parameters `p`, what its neighbours `reported`
    /// and their report `horizon`s, at `cx.now`.
    pub fn of(
        p: &XorParams,
        reported: &'a ExpiringSet,
        horizon: &'a [(NodeId, Time)],
        cx: &SchemeCx<'a>,
    ) -> View<'a> {
        View {
            now: cx.now,
            me: cx.node,
            reported,
            channel: cx.channel,
            loss: cx.loss,
            guess: p.guess,
            pool_time: p.pool_time,
            horizon,
        }
    }

    fn horizon(&self, nb: NodeId) -> Option<Time> {
        self.horizon.iter().find(|(n, _)| *n == nb).map(|&(_, t)| t)
    }

    /// Pools forget after pool_time: a packet that waited here that long is gone from
    /// every neighbour's pool (a tenth of the time is kept as a margin for the frame's
    /// own channel access and retries).
    fn forgotten(&self, n: &Native) -> bool {
        self.now.saturating_sub(n.enqueued) >= self.pool_time - self.pool_time / 10
    }

    /// `nb` sent us the packet, created it, or reported it.
    fn known_held(&self, nb: NodeId, n: &Native) -> bool {
        nb == n.prev_hop
            || nb == n.pkt.src
            || self.reported.contains(self.now, nb_key(nb, n.pkt.uid))
    }

    /// A complete report of `nb` sent after the packet went by, without it: not heard.
    /// (This node received the packet when the neighbour could have overheard it.)
    fn reported_without(&self, nb: NodeId, n: &Native) -> bool {
        self.horizon(nb).is_some_and(|t| t > n.enqueued)
    }
}

impl Knowledge for View<'_> {
    fn prob_has(&self, nb: NodeId, n: &Native) -> f64 {
        if self.forgotten(n) {
            return 0.0;
        }
        if self.known_held(nb, n) {
            return 1.0;
        }
        if n.prev_hop == self.me || self.reported_without(nb, n) {
            return 0.0;
        }
        if self.guess {
            // It may have overheard the packet's previous transmission.
            return link_delivery(self.channel, self.loss, n.prev_hop, nb, self.now);
        }
        0.0
    }

    fn knows_missing(&self, nb: NodeId, n: &Native) -> bool {
        // Without the margin `forgotten` keeps for a guess: `nb` overheard `n` before
        // it reached this node, so a wait here of a whole pool lifetime outlived it.
        !self.known_held(nb, n)
            && (self.now.saturating_sub(n.enqueued) >= self.pool_time
                || self.reported_without(nb, n))
    }
}
