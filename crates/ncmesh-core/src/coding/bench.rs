//! Test bench for schemes without the engine: a built topology and the state a scheme
//! callback sees; `call` runs one callback at a time and returns its effects.

use super::{SchemeCx, SchemeOut};
use crate::engine::{Rng, StreamPurpose, Time};
use crate::mobility::positions_at;
use crate::net::{NextHop, NodeId, RouteView, Routes};
use crate::phy::loss::LossModel;
use crate::phy::Channel;
use crate::scenario::{build, BuildOptions};

pub(crate) struct Bench {
    pub(crate) channel: Channel,
    pub(crate) routes: Routes,
    pub(crate) loss: LossModel,
    pub(crate) rng: Rng,
    pub(crate) capacity: usize,
}

/// A one-hop route to `node`, as the network layer hands it to `enqueue`.
pub(crate) fn hop(node: NodeId) -> [NextHop; 1] {
    [NextHop { node, cost: 1.0 }]
}

impl Bench {
    /// The scenario kind `kind` built with `opts`; no loss rules, queue of 50.
    pub(crate) fn new(kind: &str, opts: &BuildOptions) -> Bench {
        let s = build(kind, opts).unwrap();
        let channel = Channel::new(&s.channel, &positions_at(&s.nodes, 0.0));
        let routes = Routes::build(&s.routing, &s.flows, &channel, s.nodes.len());
        Bench {
            channel,
            routes,
            loss: LossModel::new(&[]),
            rng: Rng::stream(1, 0, StreamPurpose::Scheme),
            capacity: 50,
        }
    }

    /// A chain of `hops` hops (flow 0: node 0 -> node `hops`).
    pub(crate) fn chain(hops: u64) -> Bench {
        Bench::new("chain", &BuildOptions::new().with("hops", hops))
    }

    /// Runs `f` as node `node` at `now`; returns what it asked of the node.
    pub(crate) fn call(
        &mut self,
        node: NodeId,
        now: Time,
        f: impl FnOnce(&mut SchemeCx),
    ) -> SchemeOut {
        let mut out = SchemeOut::default();
        let mut cx = SchemeCx {
            now,
            node,
            route: RouteView::of(&self.routes, None, node, now),
            routes: &self.routes,
            channel: &self.channel,
            loss: &self.loss,
            rng: &mut self.rng,
            queue_capacity: self.capacity,
            out: &mut out,
        };
        f(&mut cx);
        out
    }
}
