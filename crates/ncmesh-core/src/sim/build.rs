//! Turns a scenario into a ready-to-run `Sim`: nodes, channel, routes, flows, and the
//! first events.

use super::events::Ev;
use super::{Air, Flow, Ledger, Node, Sim};
use crate::app::Source;
use crate::coding::ncaqm::{NcaqmParams, NcaqmQueue};
use crate::coding::passthrough::PassThrough;
use crate::coding::xor::fifo::FifoQueue;
use crate::coding::xor::{XorParams, XorScheme};
use crate::coding::CodingScheme;
use crate::engine::{secs, EventQueue, Rng, StreamPurpose};
use crate::mac::{MacParams, Station};
use crate::metrics::NodeResult;
use crate::net::routing::Edge;
use crate::net::Routes;
use crate::phy::loss::LossModel;
use crate::phy::radio::RxModel;
use crate::phy::{Channel, Radio};
use crate::scenario::schema::{NodeCfg, Reception, RouteMetric, SchemeName, Transport};
use crate::scenario::{validate, Scenario, ScenarioError};
use crate::transport::tcp::{TcpConfig, TcpReceiver, TcpSender};

/// Position of a node at time t_s: it starts at (x, y) at t = 0 and moves in straight
/// lines through its waypoints, staying at the last one.
pub(super) fn position_at(n: &NodeCfg, t_s: f64) -> (f64, f64) {
    let (mut t0, mut p0) = (0.0, (n.x, n.y));
    for w in &n.waypoints {
        if t_s <= w.t_s {
            let f = if w.t_s > t0 {
                (t_s - t0) / (w.t_s - t0)
            } else {
                1.0
            };
            return (p0.0 + f * (w.x - p0.0), p0.1 + f * (w.y - p0.1));
        }
        (t0, p0) = (w.t_s, (w.x, w.y));
    }
    p0
}

/// Usable links for routing: both directions must get frames through (data and MAC ACK).
pub(super) fn routing_graph(s: &Scenario, ch: &Channel, n: usize) -> Vec<Vec<Edge>> {
    let mut adj = vec![Vec::new(); n];
    for (a, out) in adj.iter_mut().enumerate() {
        for l in ch.links_from(a as u32) {
            let (pf, pr) = (
                ch.delivery_prob(a as u32, l.to),
                ch.delivery_prob(l.to, a as u32),
            );
            if pf < s.routing.min_delivery || pr < s.routing.min_delivery {
                continue;
            }
            let cost = match s.routing.metric {
                RouteMetric::Hops => 1.0,
                RouteMetric::Etx => 1.0 / (pf * pr),
            };
            out.push(Edge { to: l.to, cost });
        }
    }
    adj
}

pub(super) fn compute_routes(s: &Scenario, ch: &Channel) -> Routes {
    let n = s.nodes.len();
    let mut dests: Vec<u32> = s.flows.iter().flat_map(|f| [f.src, f.dst]).collect();
    dests.sort_unstable();
    dests.dedup();
    let mut r = Routes::new(routing_graph(s, ch, n), &dests, s.flows.len());
    for (i, f) in s.flows.iter().enumerate() {
        if let Some(p) = &f.route {
            r.set_explicit(i as u32, p.clone());
        }
        r.set_multipath(i as u32, f.src, f.dst, s.routing.disjoint_paths as usize);
    }
    r
}

fn make_scheme(s: &Scenario) -> Result<Box<dyn CodingScheme>, ScenarioError> {
    let k = &s.scheme;
    let xor = XorParams::from(k);
    Ok(match k.name {
        SchemeName::None => Box::new(PassThrough::new(s.mac.queue_packets as usize)),
        SchemeName::Cope | SchemeName::Bfly => {
            Box::new(XorScheme::new(xor, Box::new(FifoQueue::new()), 0))
        }
        SchemeName::Ncaqm => {
            let q = NcaqmQueue::new(&NcaqmParams {
                split_window: k.split_window as usize,
            });
            let tick = secs(k.recode_interval_s);
            Box::new(XorScheme::new(xor, Box::new(q), tick))
        }
    })
}

pub(super) fn build(s: &Scenario) -> Result<Sim, ScenarioError> {
    validate(s)?;
    let n = s.nodes.len();
    let seed = s.simulation.seed;
    let positions: Vec<(f64, f64)> = s.nodes.iter().map(|nd| position_at(nd, 0.0)).collect();
    let channel = Channel::new(&s.channel, &positions);
    let has_mobility = s.nodes.iter().any(|nd| !nd.waypoints.is_empty());

    // Explicit routes must follow radio links.
    for (i, f) in s.flows.iter().enumerate() {
        if let Some(p) = &f.route {
            for w in p.windows(2) {
                if channel.delivery_prob(w[0], w[1]) <= 0.0
                    || channel.delivery_prob(w[1], w[0]) <= 0.0
                {
                    return Err(ScenarioError::new(
                        format!("flows[{i}].route"),
                        format!(
                            "nodes {} and {} have no radio link in both directions",
                            w[0], w[1]
                        ),
                    ));
                }
            }
        }
    }
    let routes = compute_routes(s, &channel);
    if !has_mobility {
        for (i, f) in s.flows.iter().enumerate() {
            for (a, b) in [(f.src, f.dst), (f.dst, f.src)] {
                if routes.path(a, b, i as u32).is_none() {
                    return Err(ScenarioError::new(
                        format!("flows[{i}]"),
                        format!(
                            "no route from node {a} to node {b}: no chain of links usable in both directions \
                             (routing.min_delivery = {}) connects them",
                            s.routing.min_delivery
                        ),
                    ));
                }
            }
        }
    }

    let mac = MacParams::new(&s.mac);
    let nodes: Vec<Node> = (0..n)
        .map(|i| -> Result<Node, ScenarioError> {
            Ok(Node {
                radio: Radio::new(),
                mac: Station::new(
                    i as u32,
                    mac.clone(),
                    Rng::stream(seed, i as u64, StreamPurpose::Backoff),
                ),
                scheme: make_scheme(s)?,
                rng_channel: Rng::stream(seed, i as u64, StreamPurpose::Channel),
                rng_scheme: Rng::stream(seed, i as u64, StreamPurpose::Scheme),
                stats: NodeResult {
                    node: i as u32,
                    x: positions[i].0,
                    y: positions[i].1,
                    ..NodeResult::default()
                },
                ledger: Ledger::default(),
                pos: positions[i],
            })
        })
        .collect::<Result<_, _>>()?;

    let end = secs(s.simulation.duration_s);
    // TCP-AP splits RTTs with the link rate: the MAC's data rate unless given.
    let mut tcp = s.tcp.clone();
    tcp.ap_link_rate_mbps = tcp.ap_link_rate_mbps.or(Some(s.mac.data_rate_mbps));
    let tcp_cfg = TcpConfig::from_cfg(&tcp);
    let flows: Vec<Flow> = s
        .flows
        .iter()
        .map(|f| {
            let tcp = f.transport == Transport::Tcp;
            Flow {
                src: f.src,
                dst: f.dst,
                tcp,
                source: Source::from_cfg(f),
                start: secs(f.start_s),
                stop: f.stop_s.map_or(end, secs).min(end),
                tx: tcp.then(|| TcpSender::new(&tcp_cfg)),
                rx: tcp.then(|| TcpReceiver::new(&tcp_cfg)),
                app_bytes: 0,
                max_sent: 0,
                active: false,
                udp_seq: 0,
                udp_rx_bytes: 0,
                tx_packets: 0,
                rto_at: None,
                pace_at: None,
                delack_at: None,
                bytes_at_measure_start: 0,
                bytes_at_measure_end: None,
                bytes_at_last_sample: 0,
                payload_errors: 0,
            }
        })
        .collect();

    let mut queue = EventQueue::new();
    for (i, f) in flows.iter().enumerate() {
        queue.schedule(f.start, Ev::FlowStart { flow: i as u32 });
        if f.stop < end {
            queue.schedule(f.stop, Ev::FlowStop { flow: i as u32 });
        }
    }
    let series_interval = secs(s.simulation.series_interval_s);
    queue.schedule(series_interval, Ev::Sample);
    let m0 = secs(s.simulation.measure_start_s);
    let m1 = s.simulation.measure_end_s.map_or(end, secs);
    queue.schedule(m0, Ev::MeasureStart);
    queue.schedule(m1, Ev::MeasureEnd);
    if has_mobility {
        queue.schedule(secs(s.simulation.mobility_update_s), Ev::Mobility);
    }

    Ok(Sim {
        now: 0,
        end,
        queue,
        nodes,
        flows,
        channel,
        loss: LossModel::new(&s.loss),
        routes,
        mac,
        rx_model: match s.channel.reception {
            Reception::Ber => RxModel::Ber {
                noise_w: s.channel.noise_w,
                preamble_min_sinr: 10f64.powf(s.channel.preamble_detection_db / 10.0),
            },
            Reception::Capture => RxModel::Capture {
                noise_w: s.channel.noise_w,
                ratio: 10f64.powf(s.channel.capture_threshold_db / 10.0),
            },
        },
        air: Air::default(),
        scenario: s.clone(),
        queue_capacity: s.mac.queue_packets as usize,
        next_uid: 0,
        payloads: s.simulation.payload_bytes,
        series_interval,
        measure: (m0, m1),
        flow_series: Vec::new(),
        node_series: Vec::new(),
        out_pool: Vec::new(),
        trace: None,
    })
}

impl Sim {
    /// Moves the nodes with waypoints, refreshes neighbour sets and routes.
    pub(super) fn on_mobility(&mut self) {
        let t = crate::engine::to_secs(self.now);
        let positions: Vec<(f64, f64)> = self
            .scenario
            .nodes
            .iter()
            .map(|nd| position_at(nd, t))
            .collect();
        for (node, &p) in self.nodes.iter_mut().zip(&positions) {
            node.pos = p;
        }
        self.channel.rebuild(&positions);
        self.routes = compute_routes(&self.scenario, &self.channel);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::Waypoint;

    #[test]
    fn waypoint_interpolation() {
        let n = NodeCfg {
            x: 0.0,
            y: 0.0,
            waypoints: vec![
                Waypoint {
                    t_s: 10.0,
                    x: 0.0,
                    y: 0.0,
                },
                Waypoint {
                    t_s: 20.0,
                    x: 100.0,
                    y: 0.0,
                },
                Waypoint {
                    t_s: 30.0,
                    x: 100.0,
                    y: 50.0,
                },
            ],
        };
        assert_eq!(position_at(&n, 5.0), (0.0, 0.0));
        assert_eq!(position_at(&n, 15.0), (50.0, 0.0));
        assert_eq!(position_at(&n, 25.0), (100.0, 25.0));
        assert_eq!(position_at(&n, 99.0), (100.0, 50.0));
    }
}
