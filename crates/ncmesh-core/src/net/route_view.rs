//! What one node knows of its routes, as a coding scheme may ask it: the static tables
//! (`routing.protocol = "static"`) or, under AODV, this node's own route table.
//!
//! Under AODV a node knows only its active routes: one next hop per destination with the
//! route's hop count (RFC 3561 §2, "route table entry"), and no link metric. So a scheme
//! asking from its own node gets that route; questions about other nodes' routes, several
//! paths or link estimates have no AODV answer, and the schemes that need them are refused
//! at validation (`coding::registry::needs_static_routes`).

use super::aodv::Aodv;
use super::routing::{NextHop, NextHops, PathCost, Routes};
use super::NodeId;
use crate::engine::Time;

/// One node's routes, read only.
#[derive(Clone, Copy)]
pub enum RouteView<'a> {
    /// The static tables (shortest paths, explicit routes, reinforced paths).
    Static {
        /// The network's tables.
        routes: &'a Routes,
        /// The node asking.
        node: NodeId,
    },
    /// The node's AODV state at `now`.
    Aodv {
        /// Its AODV instance.
        aodv: &'a Aodv,
        /// The node asking.
        node: NodeId,
        /// The current time (a route past its lifetime is not active).
        now: Time,
    },
}

impl<'a> RouteView<'a> {
    /// The view of `node`: its AODV table when it runs AODV, else the static tables.
    pub fn of(routes: &'a Routes, aodv: Option<&'a Aodv>, node: NodeId, now: Time) -> Self {
        match aodv {
            Some(aodv) => RouteView::Aodv { aodv, node, now },
            None => RouteView::Static { routes, node },
        }
    }

    /// The active AODV route to `dst`: its next hop and hop count. To itself: none.
    fn aodv_route(aodv: &Aodv, node: NodeId, now: Time, dst: NodeId) -> Option<(NodeId, u8)> {
        (dst != node).then(|| aodv.active_route(now, dst)).flatten()
    }

    /// Next hop from this node for a packet of `flow` towards `dst`.
    pub fn next_hop(&self, dst: NodeId, flow: u32) -> Option<NodeId> {
        match *self {
            RouteView::Static { routes, node } => routes.next_hop(node, dst, flow),
            RouteView::Aodv { aodv, node, now } => {
                Self::aodv_route(aodv, node, now, dst).map(|r| r.0)
            }
        }
    }

    /// Every candidate next hop from this node for a packet of `flow` towards `dst`,
    /// cheapest first, with its cost in the routing metric (under AODV: the one active
    /// route, its hop count).
    pub fn next_hops(&self, dst: NodeId, flow: u32) -> NextHops {
        match *self {
            RouteView::Static { routes, node } => routes.next_hops(node, dst, flow),
            RouteView::Aodv { aodv, node, now } => Self::aodv_route(aodv, node, now, dst)
                .map(|(h, hops)| NextHop {
                    node: h,
                    cost: f64::from(hops),
                })
                .into_iter()
                .collect(),
        }
    }

    /// The next hops this node spreads packets of `flow` towards `dst` over
    /// ([`Routes::next_hops_taken`]; under AODV the one active route).
    pub fn next_hops_taken(&self, dst: NodeId, flow: u32) -> NextHops {
        match *self {
            RouteView::Static { routes, node } => routes.next_hops_taken(node, dst, flow),
            RouteView::Aodv { .. } => self.next_hops(dst, flow),
        }
    }

    /// Distance from this node to `dst` (None: no route). Under AODV, the active route's
    /// hop count; AODV measures no link quality, so its ETX is the hop count (every link
    /// counted as one transmission).
    pub fn cost(&self, dst: NodeId) -> Option<PathCost> {
        match *self {
            RouteView::Static { routes, node } => routes.cost(node, dst),
            RouteView::Aodv { node, .. } if node == dst => Some(PathCost { hops: 0, etx: 0.0 }),
            RouteView::Aodv { aodv, node, now } => {
                Self::aodv_route(aodv, node, now, dst).map(|(_, hops)| PathCost {
                    hops: u32::from(hops),
                    etx: f64::from(hops),
                })
            }
        }
    }

    /// The routing's estimate of the delivery probability of a data frame from this node
    /// to `b` (None: no estimate; AODV keeps none).
    pub fn link_delivery(&self, b: NodeId) -> Option<f64> {
        match *self {
            RouteView::Static { routes, node } => routes.link_delivery(node, b),
            RouteView::Aodv { .. } => None,
        }
    }

    /// The routing's estimate of the probability that a packet of `flow` from this node
    /// gets through every hop of its path to `dst` (None: no path, or, under AODV, no
    /// estimate: the node knows neither the path beyond its next hop nor any link's loss).
    pub fn path_delivery(&self, dst: NodeId, flow: u32) -> Option<f64> {
        match *self {
            RouteView::Static { routes, node } => routes.path_delivery(node, dst, flow),
            RouteView::Aodv { .. } => None,
        }
    }
}
