//! Collects the results of a finished run.

use super::Sim;
use crate::coding::registry::counter_names;
use crate::engine::to_secs;
use crate::metrics::{Conservation, FlowResult, RunResult};

impl Sim {
    pub(super) fn result(&self, wall_time_s: f64) -> RunResult {
        let (m0, m1) = self.measure;
        let window_s = to_secs(m1.saturating_sub(m0)).max(1e-9);
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let ep = &f.ep;
                let end_bytes = f.bytes_at_measure_end.unwrap_or_else(|| ep.delivered());
                let stats = ep.sender().map(|t| t.stats().clone()).unwrap_or_default();
                FlowResult {
                    flow: i as u32,
                    src: ep.src(),
                    dst: ep.dst(),
                    transport: if ep.sender().is_some() { "tcp" } else { "udp" }.to_string(),
                    goodput_kbps: (end_bytes.saturating_sub(f.bytes_at_measure_start)) as f64 * 8.0
                        / window_s
                        / 1000.0,
                    rx_bytes: ep.delivered(),
                    tx_packets: ep.tx_packets(),
                    rtt_mean_ms: if stats.rtt_samples > 0 {
                        stats.rtt_sum_s / stats.rtt_samples as f64 * 1e3
                    } else {
                        0.0
                    },
                    rtt_samples: stats.rtt_samples,
                    retransmissions: stats.retransmissions,
                    fast_retransmits: stats.fast_retransmits,
                    timeouts: stats.timeouts,
                    payload_errors: ep.payload_errors(),
                    acks_sent: ep.receiver().map_or(0, |r| r.stats().acks_sent),
                    out_of_order_segments: ep
                        .receiver()
                        .map_or(0, |r| r.stats().out_of_order_segments),
                    delay_mean_ms: ep.delay().mean_ms(),
                    path: if self.aodv {
                        self.aodv_path(ep.src(), ep.dst())
                    } else {
                        self.routes
                            .path(ep.src(), ep.dst(), i as u32)
                            .unwrap_or_default()
                    },
                }
            })
            .collect();
        let mut c = Conservation {
            balanced: true,
            ..Conservation::default()
        };
        let names = counter_names();
        let mut counted = Vec::new();
        let nodes = self
            .nodes
            .iter()
            .map(|nd| {
                let held = (nd.scheme.occupancy().held
                    + nd.flow.as_ref().map_or(0, |c| c.held())
                    + nd.ctl.len()
                    + nd.aodv.as_ref().map_or(0, |a| a.buffered()))
                    as u64
                    + nd.mac
                        .in_service()
                        .map_or(0, |f| f.body.held_packets() as u64);
                let l = &nd.ledger;
                c.originated += l.originated;
                c.received_from_mac += l.received;
                c.delivered += l.delivered;
                c.handed_over += l.handed_over;
                c.dropped += l.dropped;
                c.held_at_end += held;
                if l.originated + l.received != l.delivered + l.handed_over + l.dropped + held {
                    c.balanced = false;
                }
                let mut s = nd.stats.clone();
                if let Some(a) = &nd.aodv {
                    let st = a.stats();
                    s.aodv_rreq_tx = st.rreq_tx;
                    s.aodv_rrep_tx = st.rrep_tx;
                    s.aodv_rerr_tx = st.rerr_tx;
                    s.aodv_hello_tx = st.hello_tx;
                    s.aodv_discoveries = st.discoveries;
                    s.aodv_discoveries_failed = st.discoveries_failed;
                    s.aodv_route_breaks = st.route_breaks;
                }
                s.x = nd.pos.0;
                s.y = nd.pos.1;
                s.airtime_busy =
                    to_secs(nd.radio.busy_time(self.end)) / to_secs(self.end).max(1e-9);
                s.coding = names.iter().map(|&n| (n, 0)).collect();
                counted.clear();
                nd.scheme.counters(&mut counted);
                if let Some(c) = &nd.flow {
                    c.counters(&mut counted);
                }
                for &(name, v) in &counted {
                    // A scheme outside the registry (a prototype installed with
                    // `Sim::with_coding`) adds its own columns at the end.
                    match s.coding.iter_mut().find(|(n, _)| *n == name) {
                        Some(c) => c.1 += v,
                        None => s.coding.push((name, v)),
                    }
                }
                s
            })
            .collect();
        RunResult {
            name: self.scenario.name.clone(),
            seed: self.scenario.simulation.seed,
            events: self.events(),
            sim_time_s: to_secs(self.now),
            wall_time_s,
            flows,
            nodes,
            flow_series: self.flow_series.clone(),
            node_series: self.node_series.clone(),
            conservation: c,
        }
    }
}
