//! Turns a scenario into a ready-to-run `Sim`: nodes, channel, routes, flows, and the
//! first events.

use super::events::Ev;
use super::{Air, Flow, Ledger, Node, Sim};
use crate::app::Source;
use crate::coding::registry::{make_flow, make_scheme};
use crate::coding::PollAt;
use crate::engine::{secs, EventQueue, Rng, StreamPurpose, TimerSlot};
use crate::mac::{MacParams, Station};
use crate::metrics::NodeResult;
use crate::mobility::{any_moves, positions_at};
use crate::net::aodv::{Aodv, AodvParams};
use crate::net::Routes;
use crate::phy::loss::LossModel;
use crate::phy::radio::RxModel;
use crate::phy::{Channel, Radio};
use crate::scenario::schema::{Reception, RoutingProtocol, Transport};
use crate::scenario::{validate, Scenario, ScenarioError};
use crate::transport::endpoint::{Endpoint, EndpointCfg, EndpointOutput};
use crate::transport::tcp::TcpConfig;

pub(super) fn build(s: &Scenario) -> Result<Sim, ScenarioError> {
    validate(s)?;
    let n = s.nodes.len();
    let seed = s.simulation.seed;
    let positions = positions_at(&s.nodes, 0.0);
    let channel = Channel::new(&s.channel, &positions);
    let has_mobility = any_moves(&s.nodes);

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
    let routes = Routes::build(&s.routing, &s.flows, &channel, n);
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
    let aodv = s.routing.protocol == RoutingProtocol::Aodv;
    let mut nodes: Vec<Node> = (0..n)
        .map(|i| -> Result<Node, ScenarioError> {
            Ok(Node {
                radio: Radio::new(),
                mac: Station::new(
                    i as u32,
                    mac.clone(),
                    Rng::stream(seed, i as u64, StreamPurpose::Backoff),
                ),
                scheme: make_scheme(s)?,
                due: PollAt::Idle,
                poll_event: TimerSlot::default(),
                flow: make_flow(s)?,
                rng_flow: Rng::stream(seed, i as u64, StreamPurpose::FlowCoding),
                rng_channel: Rng::stream(seed, i as u64, StreamPurpose::Channel),
                rng_scheme: Rng::stream(seed, i as u64, StreamPurpose::Scheme),
                stats: NodeResult {
                    node: i as u32,
                    x: positions[i].0,
                    y: positions[i].1,
                    ..NodeResult::default()
                },
                ledger: Ledger::default(),
                turns: Default::default(),
                pos: positions[i],
                aodv: aodv
                    .then(|| Box::new(Aodv::new(i as u32, AodvParams::from_cfg(&s.routing.aodv)))),
                aodv_timer: TimerSlot::default(),
                ctl: Default::default(),
                rng_routing: Rng::stream(seed, i as u64, StreamPurpose::Routing),
            })
        })
        .collect::<Result<_, _>>()?;

    let end = secs(s.simulation.duration_s);
    // TCP-AP splits RTTs with the link rate: the MAC's data rate unless given.
    let mut tcp = s.tcp.clone();
    tcp.ap_link_rate_mbps = tcp.ap_link_rate_mbps.or(Some(s.mac.data_rate_mbps));
    let tcp_cfg = TcpConfig::from_cfg(&tcp);
    let series_interval = secs(s.simulation.series_interval_s);
    let m0 = secs(s.simulation.measure_start_s);
    let m1 = s.simulation.measure_end_s.map_or(end, secs);
    let mut queue = EventQueue::new();
    let mut flows = Vec::with_capacity(s.flows.len());
    for (i, f) in s.flows.iter().enumerate() {
        let mut ep = Endpoint::new(&EndpointCfg {
            flow: i as u32,
            src: f.src,
            dst: f.dst,
            source: Source::from_cfg(f, &mac.timing),
            tcp: (f.transport == Transport::Tcp).then(|| tcp_cfg.clone()),
            start: secs(f.start_s),
            stop: f.stop_s.map_or(end, secs).min(end),
            end,
            payloads: s.simulation.payload_bytes,
            measure: (m0, m1),
        });
        // Its first outputs: the start and stop of its application.
        while let Some(o) = ep.poll_output(0) {
            if let EndpointOutput::Schedule { at, timer } = o {
                queue.schedule(
                    at,
                    Ev::Flow {
                        flow: i as u32,
                        timer,
                    },
                );
            }
        }
        flows.push(Flow {
            ep,
            bytes_at_measure_start: 0,
            bytes_at_measure_end: None,
            bytes_at_last_sample: 0,
        });
    }
    queue.schedule(series_interval, Ev::Sample);
    queue.schedule(m0, Ev::MeasureStart);
    queue.schedule(m1, Ev::MeasureEnd);
    if has_mobility {
        queue.schedule(secs(s.simulation.mobility_update_s), Ev::Mobility);
    }
    // AODV's first deadlines (HELLOs, if on).
    for (i, nd) in nodes.iter_mut().enumerate() {
        if let Some(t) = nd.aodv.as_ref().and_then(|a| a.poll_timeout()) {
            if let Some(at) = nd.aodv_timer.arm(t, 0) {
                queue.schedule(at, Ev::Aodv { node: i as u32 });
            }
        }
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
        aodv,
        aodv_control_first: s.routing.aodv.control_first,
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
        series_interval,
        measure: (m0, m1),
        flow_series: Vec::new(),
        node_series: Vec::new(),
        out_pool: Vec::new(),
        trace: None,
    })
}
