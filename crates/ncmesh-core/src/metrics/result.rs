//! What a run returns: per flow, per node, time series and a conservation account.
//! Plain data (serde), turned into tables by the Python layer.

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

/// The outcome of one run of one scenario with one seed.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunResult {
    /// The scenario's name.
    pub name: String,
    /// The seed the run used (`simulation.seed`).
    pub seed: u64,
    /// Events executed by the engine.
    pub events: u64,
    /// Simulated time reached when the run ended, seconds.
    pub sim_time_s: f64,
    /// Engine run time (building the network and running events), seconds.
    pub wall_time_s: f64,
    /// One entry per flow, in the scenario's flow order.
    pub flows: Vec<FlowResult>,
    /// One entry per node, by node id.
    pub nodes: Vec<NodeResult>,
    /// Per-flow samples taken every `simulation.series_interval_s`.
    pub flow_series: Vec<FlowSample>,
    /// Per-node queue-length samples, same interval as `flow_series`.
    pub node_series: Vec<NodeSample>,
    /// The packet account over all nodes (see [`Conservation`]).
    pub conservation: Conservation,
}

/// What one flow achieved.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowResult {
    /// Flow index, in scenario order.
    pub flow: u32,
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// `"tcp"` or `"udp"`.
    pub transport: String,
    /// Application bytes delivered in order at the sink within the measurement window, kbit/s.
    pub goodput_kbps: f64,
    /// Application bytes delivered in order at the sink over the whole run.
    pub rx_bytes: u64,
    /// Packets the source handed to the network (data segments or datagrams, retransmissions included).
    pub tx_packets: u64,
    /// Mean of the TCP sender's RTT samples, milliseconds (0 without samples or for UDP).
    pub rtt_mean_ms: f64,
    /// RTT samples the TCP sender took (Karn's rule: none from retransmitted segments).
    pub rtt_samples: u64,
    /// TCP segments sent again (fast retransmits and timeouts).
    pub retransmissions: u64,
    /// TCP fast retransmits (three duplicate ACKs, RFC 5681 §3.2).
    pub fast_retransmits: u64,
    /// TCP retransmission timeouts (RFC 6298).
    pub timeouts: u64,
    /// Delivered packets whose payload bytes differ from what was sent (payload_bytes on).
    pub payload_errors: u64,
    /// TCP: ACKs the receiver generated (immediate and delayed); 0 for UDP.
    pub acks_sent: u64,
    /// TCP: data segments that arrived above a hole at the receiver (loss or
    /// reordering on the way); 0 for UDP.
    pub out_of_order_segments: u64,
    /// TCP: mean application-to-application delay of the segments handed up in order
    /// within the measurement window, from the segment's first transmission (a bulk
    /// source's data counts as generated then) to in-order delivery, milliseconds; 0
    /// without any and for UDP (`metrics::delay`).
    pub delay_mean_ms: f64,
    /// Path used by the flow (forward direction), from routing.
    pub path: Vec<u32>,
}

/// What happened at one node. Serialized flat: the fixed fields, then the coding
/// counters by name (one column each in the result tables).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodeResult {
    /// Node id.
    pub node: u32,
    /// Position at the end of the run, metres.
    pub x: f64,
    /// Position at the end of the run, metres.
    pub y: f64,
    /// Frames put on the air (retries, ACKs, RTS/CTS included).
    pub mac_frames_sent: u64,
    /// Data frames put on the air, retries included.
    pub mac_data_frames_sent: u64,
    /// Bytes (MPDU: MAC header, body, FCS) of those data frames: what a flow costs the
    /// network, the denominator of Gheorghiu et al.'s (CoMP) efficiency.
    pub mac_data_bytes_sent: u64,
    /// Retransmissions of data frames (after a missing ACK or CTS).
    pub mac_retries: u64,
    /// Frames decoded that were addressed to this node.
    pub mac_frames_received: u64,
    /// Data frames decoded that were addressed to another node (promiscuous receive).
    pub mac_frames_overheard: u64,
    /// Decodable frames lost to interference (or to a transmission of our own) at this node.
    pub collisions: u64,
    /// Frames lost to the channel's loss model (frame error rate, link table).
    pub channel_losses: u64,
    /// Data frames received again (same sender and sequence number) and discarded by the duplicate filter.
    pub mac_duplicates: u64,
    /// Packets dropped because the interface queue was full.
    pub drops_queue_full: u64,
    /// Packets dropped after the MAC's retry limit.
    pub drops_retry_limit: u64,
    /// Packets dropped when their TTL ran out.
    pub drops_ttl: u64,
    /// Packets dropped for want of a route.
    pub drops_no_route: u64,
    /// Packets the coding scheme dropped by its own rule (e.g. NCAQM's drop policy).
    pub drops_scheme: u64,
    /// Largest interface-queue occupancy seen, packets.
    pub queue_max: u64,
    /// Busy airtime fraction seen by this node's carrier sense (own transmissions included).
    pub airtime_busy: f64,
    /// Packets dropped after waiting for a route that on-demand routing (AODV) did not
    /// find: discovery failed, the wait ran out or the full buffer pushed them out.
    pub drops_discovery: u64,
    /// AODV RREQs sent (originated and forwarded); 0 under static routing.
    pub aodv_rreq_tx: u64,
    /// AODV RREPs sent (generated and forwarded, HELLOs not included).
    pub aodv_rrep_tx: u64,
    /// AODV RERRs sent.
    pub aodv_rerr_tx: u64,
    /// AODV HELLOs sent.
    pub aodv_hello_tx: u64,
    /// AODV route discoveries this node started.
    pub aodv_discoveries: u64,
    /// Of those, the ones that found no route.
    pub aodv_discoveries_failed: u64,
    /// Link breaks (the MAC's retry limit on a unicast, or HELLOs missed) that
    /// invalidated AODV routes.
    pub aodv_route_breaks: u64,
    /// The coding layers' counters: every counter of every registered coding family
    /// (`coding::registry::counter_names`), 0 where this node's schemes do not count it.
    pub coding: Vec<(&'static str, u64)>,
}

impl NodeResult {
    /// The coding counter `name` (0 if no registered family has it).
    pub fn counter(&self, name: &str) -> u64 {
        self.coding
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |c| c.1)
    }
}

impl Serialize for NodeResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("NodeResult", 27 + self.coding.len())?;
        st.serialize_field("node", &self.node)?;
        st.serialize_field("x", &self.x)?;
        st.serialize_field("y", &self.y)?;
        st.serialize_field("mac_frames_sent", &self.mac_frames_sent)?;
        st.serialize_field("mac_data_frames_sent", &self.mac_data_frames_sent)?;
        st.serialize_field("mac_data_bytes_sent", &self.mac_data_bytes_sent)?;
        st.serialize_field("mac_retries", &self.mac_retries)?;
        st.serialize_field("mac_frames_received", &self.mac_frames_received)?;
        st.serialize_field("mac_frames_overheard", &self.mac_frames_overheard)?;
        st.serialize_field("collisions", &self.collisions)?;
        st.serialize_field("channel_losses", &self.channel_losses)?;
        st.serialize_field("mac_duplicates", &self.mac_duplicates)?;
        st.serialize_field("drops_queue_full", &self.drops_queue_full)?;
        st.serialize_field("drops_retry_limit", &self.drops_retry_limit)?;
        st.serialize_field("drops_ttl", &self.drops_ttl)?;
        st.serialize_field("drops_no_route", &self.drops_no_route)?;
        st.serialize_field("drops_scheme", &self.drops_scheme)?;
        st.serialize_field("queue_max", &self.queue_max)?;
        st.serialize_field("airtime_busy", &self.airtime_busy)?;
        st.serialize_field("drops_discovery", &self.drops_discovery)?;
        st.serialize_field("aodv_rreq_tx", &self.aodv_rreq_tx)?;
        st.serialize_field("aodv_rrep_tx", &self.aodv_rrep_tx)?;
        st.serialize_field("aodv_rerr_tx", &self.aodv_rerr_tx)?;
        st.serialize_field("aodv_hello_tx", &self.aodv_hello_tx)?;
        st.serialize_field("aodv_discoveries", &self.aodv_discoveries)?;
        st.serialize_field("aodv_discoveries_failed", &self.aodv_discoveries_failed)?;
        st.serialize_field("aodv_route_breaks", &self.aodv_route_breaks)?;
        for (name, v) in &self.coding {
            st.serialize_field(name, v)?;
        }
        st.end()
    }
}

/// One flow at one sample time.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowSample {
    /// Sample time, seconds.
    pub t_s: f64,
    /// Flow index.
    pub flow: u32,
    /// Goodput over the interval ending at t_s, kbit/s.
    pub goodput_kbps: f64,
    /// TCP congestion window at `t_s`, bytes (0 for UDP).
    pub cwnd_bytes: u64,
}

/// One node's interface queue at one sample time.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NodeSample {
    /// Sample time, seconds.
    pub t_s: f64,
    /// Node id.
    pub node: u32,
    /// Packets in the interface queue at `t_s`.
    pub queue_len: u64,
}

/// Every network-layer packet instance is accounted for: each node's arrivals (packets
/// originated there or received from the MAC as new) equal what it delivered locally,
/// handed to the next hop, dropped, or still holds at the end.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Conservation {
    /// Packets originated by transport or coding layers.
    pub originated: u64,
    /// Packets the network layer received from the MAC as new (duplicates excluded).
    pub received_from_mac: u64,
    /// Packets delivered to a local transport or coding layer.
    pub delivered: u64,
    /// Packets that reached the next hop (acknowledged at the MAC): they left the node.
    pub handed_over: u64,
    /// Packets dropped, for any reason.
    pub dropped: u64,
    /// Packets still queued, held by a coding layer, or in MAC service at the end.
    pub held_at_end: u64,
    /// True when every node's account balances.
    pub balanced: bool,
}
