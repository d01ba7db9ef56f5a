//! The simulator: builds the network of a scenario and runs it.
//!
//! `Sim` owns every node (radio, MAC station, coding scheme), the channel, the routes and
//! the flows, and dispatches events to the glue code of each layer (mac_glue,
//! net_glue). Protocol logic itself lives in the layer modules.

mod air;
mod aodv_glue;
mod build;
mod coding_glue;
mod events;
mod mac_glue;
mod mobility;
mod net_glue;
pub mod pcap;
mod report;
pub mod trace;

use crate::coding::{CodingScheme, FlowCoder, PollAt, SchemeOut};
use crate::engine::{EventQueue, Rng, Time, TimerSlot};
use crate::mac::{MacParams, Station};
use crate::metrics::{FlowSample, NodeResult, NodeSample, RunResult};
use crate::net::{NodeId, Routes};
use crate::phy::loss::LossModel;
use crate::phy::{Channel, Radio};
use crate::scenario::{Scenario, ScenarioError};
use crate::transport::endpoint::Endpoint;
use air::Air;
use events::Ev;

/// Packet accounting of one node (see metrics::Conservation).
#[derive(Debug, Default, Clone)]
struct Ledger {
    originated: u64,
    received: u64,
    delivered: u64,
    handed_over: u64,
    dropped: u64,
}

struct Node {
    radio: Radio,
    mac: Station<crate::coding::Body>,
    scheme: Box<dyn CodingScheme>,
    /// When the scheme next has a frame due, as it said after its last callback.
    due: PollAt,
    /// The pending `Ev::CodingPoll`, at the earliest due time asked for.
    poll_event: TimerSlot,
    /// The end-to-end (intra-flow) coder, if the scenario names one.
    flow: Option<Box<dyn FlowCoder>>,
    rng_flow: Rng,
    rng_channel: Rng,
    rng_scheme: Rng,
    stats: NodeResult,
    ledger: Ledger,
    pos: (f64, f64),
    /// Whose turn it is among a flow's next hops (`routing.spread = "round-robin"`).
    turns: crate::net::Turns,
    /// AODV (`routing.protocol = "aodv"`).
    aodv: Option<Box<crate::net::aodv::Aodv>>,
    /// The pending `Ev::Aodv`, at AODV's earliest deadline.
    aodv_timer: TimerSlot,
    /// AODV's messages waiting for the MAC, each with the scheme's packets that go
    /// before it (0 with `routing.aodv.control_first`: served before the scheme's queue).
    ctl: std::collections::VecDeque<(crate::coding::OutFrame, usize)>,
    rng_routing: Rng,
}

/// A flow: its endpoint, and what the run samples of it.
struct Flow {
    ep: Endpoint,
    bytes_at_measure_start: u64,
    bytes_at_measure_end: Option<u64>,
    bytes_at_last_sample: u64,
}

/// A built network with its event queue: the state of one run.
pub struct Sim {
    now: Time,
    end: Time,
    queue: EventQueue<Ev>,
    nodes: Vec<Node>,
    flows: Vec<Flow>,
    channel: Channel,
    loss: LossModel,
    routes: Routes,
    /// Routing is AODV's (`routing.protocol = "aodv"`), not `routes`.
    aodv: bool,
    /// AODV's messages go before the data queued at their node
    /// (`routing.aodv.control_first`), or behind it.
    aodv_control_first: bool,
    mac: MacParams,
    rx_model: crate::phy::radio::RxModel,
    air: Air,
    scenario: Scenario,
    queue_capacity: usize,
    next_uid: u64,
    series_interval: Time,
    measure: (Time, Time),
    flow_series: Vec<FlowSample>,
    node_series: Vec<NodeSample>,
    /// Spare effect buffers lent to the coding layers for one callback each, so that
    /// calling a scheme allocates nothing in steady state. Boxed so that lending one
    /// moves a pointer, not the buffers' headers.
    #[allow(clippy::vec_box)]
    out_pool: Vec<Box<SchemeOut>>,
    trace: Option<Vec<trace::TraceRecord>>,
}

/// Runs a scenario to completion.
pub fn run(s: &Scenario) -> Result<RunResult, ScenarioError> {
    let t0 = std::time::Instant::now();
    let mut sim = Sim::new(s)?;
    sim.run_to_end();
    let wall = t0.elapsed().as_secs_f64();
    Ok(sim.result(wall))
}

impl Sim {
    /// Builds the network of scenario `s` (channel, routes, nodes, flows), ready to run.
    pub fn new(s: &Scenario) -> Result<Sim, ScenarioError> {
        build::build(s)
    }

    /// Builds the network of `s` with coding layers made by `layers` (per node: the
    /// per-hop scheme and, optionally, an end-to-end coder) instead of the registry's,
    /// for prototypes and tests of new schemes. `scheme.name` and `scheme.intra` are
    /// ignored; the rest of the scenario applies.
    pub fn with_coding(
        s: &Scenario,
        mut layers: impl FnMut(NodeId) -> (Box<dyn CodingScheme>, Option<Box<dyn FlowCoder>>),
    ) -> Result<Sim, ScenarioError> {
        let mut sim = build::build(s)?;
        for (i, nd) in sim.nodes.iter_mut().enumerate() {
            (nd.scheme, nd.flow) = layers(i as NodeId);
            nd.due = nd.scheme.poll_at();
        }
        Ok(sim)
    }

    /// Runs the simulation to its end.
    pub fn run_to_end(&mut self) {
        while let Some((t, ev)) = self.queue.pop_until(self.end) {
            self.now = t;
            self.dispatch(ev);
        }
        self.now = self.end;
    }

    /// Events executed so far.
    pub fn events(&self) -> u64 {
        self.queue.popped()
    }

    /// Records every transmission and reception outcome from now on.
    pub fn enable_trace(&mut self) {
        self.trace.get_or_insert_with(Vec::new);
    }

    /// The records since [`enable_trace`](Self::enable_trace) (empty if tracing is off).
    pub fn trace(&self) -> &[trace::TraceRecord] {
        self.trace.as_deref().unwrap_or(&[])
    }

    /// The results so far (after `run_to_end`, the run's results).
    pub fn results(&self) -> RunResult {
        self.result(0.0)
    }

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Mac { node, timer } => self.on_mac_timer(node, timer),
            Ev::TxEnd { node, response } => self.on_tx_end(node, response),
            Ev::Arrival { slot, idx } => self.on_arrival(slot, idx),
            Ev::RxEnd { node, slot } => self.on_rx_end(node, slot),
            Ev::Flow { flow, timer } => self.on_flow_timer(flow, timer),
            Ev::SchemeWake { node } => self.on_scheme_wake(node),
            Ev::CodingPoll { node } => self.on_coding_poll(node),
            Ev::FlowWake { node } => self.on_flow_wake(node),
            Ev::Sample => self.on_sample(),
            Ev::MeasureStart => {
                for f in &mut self.flows {
                    f.bytes_at_measure_start = f.ep.delivered();
                }
            }
            Ev::MeasureEnd => {
                for f in &mut self.flows {
                    f.bytes_at_measure_end = Some(f.ep.delivered());
                }
            }
            Ev::Mobility => self.on_mobility(),
            Ev::Aodv { node } => self.on_aodv_timer(node),
        }
    }
}
