//! Mobility glue: at every update the moving nodes' positions and the channel's neighbour
//! sets are refreshed, and the routes too (an oracle re-routing; docs/assumptions.md)
//! unless `routing.follow_mobility` is off.

use super::events::Ev;
use super::Sim;
use crate::engine::secs;
use crate::mobility::positions_at;
use crate::net::Routes;

impl Sim {
    /// Moves the nodes with waypoints, refreshes neighbour sets and (unless kept) routes.
    pub(super) fn on_mobility(&mut self) {
        let t = crate::engine::to_secs(self.now);
        let positions = positions_at(&self.scenario.nodes, t);
        for (node, &p) in self.nodes.iter_mut().zip(&positions) {
            node.pos = p;
        }
        self.channel.rebuild(&positions);
        // AODV finds its own routes: the oracle's would only be recomputed for nothing.
        if !self.scenario.routing.follow_mobility || self.aodv {
            return self.next_mobility_update();
        }
        self.routes = Routes::build(
            &self.scenario.routing,
            &self.scenario.flows,
            &self.channel,
            self.nodes.len(),
        );
        for f in 0..self.flows.len() as u32 {
            self.tell_path_hops(f);
        }
        self.next_mobility_update();
    }

    /// The next position update, if the run lasts that long.
    fn next_mobility_update(&mut self) {
        let dt = secs(self.scenario.simulation.mobility_update_s);
        if self.now + dt <= self.end {
            self.queue.schedule(self.now + dt, Ev::Mobility);
        }
    }
}
