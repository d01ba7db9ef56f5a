//! Mobility glue: at every update the moving nodes' positions, the channel's neighbour
//! sets and the routes are refreshed (an oracle re-routing; docs/assumptions.md).

use super::events::Ev;
use super::Sim;
use crate::engine::secs;
use crate::mobility::positions_at;
use crate::net::Routes;

impl Sim {
    /// Moves the nodes with waypoints, refreshes neighbour sets and routes.
    pub(super) fn on_mobility(&mut self) {
        let t = crate::engine::to_secs(self.now);
        let positions = positions_at(&self.scenario.nodes, t);
        for (node, &p) in self.nodes.iter_mut().zip(&positions) {
            node.pos = p;
        }
        self.channel.rebuild(&positions);
        self.routes = Routes::build(
            &self.scenario.routing,
            &self.scenario.flows,
            &self.channel,
            self.nodes.len(),
        );
        for f in 0..self.flows.len() as u32 {
            if self.flows[f as usize].tcp {
                self.tell_path_hops(f);
            }
        }
        let dt = secs(self.scenario.simulation.mobility_update_s);
        if self.now + dt <= self.end {
            self.queue.schedule(self.now + dt, Ev::Mobility);
        }
    }
}
