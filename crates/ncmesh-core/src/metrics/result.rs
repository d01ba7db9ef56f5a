//! What a run returns: per flow, per node, time series and a conservation account.
//! Plain data (serde), turned into tables by the Python layer.

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunResult {
    pub name: String,
    pub seed: u64,
    /// Events executed by the engine.
    pub events: u64,
    pub sim_time_s: f64,
    /// Engine run time (building the network and running events), seconds.
    pub wall_time_s: f64,
    pub flows: Vec<FlowResult>,
    pub nodes: Vec<NodeResult>,
    pub flow_series: Vec<FlowSample>,
    pub node_series: Vec<NodeSample>,
    pub conservation: Conservation,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowResult {
    pub flow: u32,
    pub src: u32,
    pub dst: u32,
    pub transport: String,
    /// Application bytes delivered in order at the sink within the measurement window, kbit/s.
    pub goodput_kbps: f64,
    /// Application bytes delivered in order at the sink over the whole run.
    pub rx_bytes: u64,
    /// Packets the source handed to the network (data segments or datagrams, retransmissions included).
    pub tx_packets: u64,
    pub rtt_mean_ms: f64,
    pub rtt_samples: u64,
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Delivered packets whose payload bytes differ from what was sent (payload_bytes on).
    pub payload_errors: u64,
    /// Path used by the flow (forward direction), from routing.
    pub path: Vec<u32>,
}

/// What happened at one node. Serialized flat: the fixed fields, then the coding
/// counters by name (one column each in the result tables).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodeResult {
    pub node: u32,
    pub x: f64,
    pub y: f64,
    /// Frames put on the air (retries, ACKs, RTS/CTS included).
    pub mac_frames_sent: u64,
    pub mac_data_frames_sent: u64,
    pub mac_retries: u64,
    /// Frames decoded that were addressed to this node.
    pub mac_frames_received: u64,
    /// Data frames decoded that were addressed to another node (promiscuous receive).
    pub mac_frames_overheard: u64,
    /// Decodable frames lost to interference (or to a transmission of our own) at this node.
    pub collisions: u64,
    /// Frames lost to the channel's loss model (frame error rate, link table).
    pub channel_losses: u64,
    pub mac_duplicates: u64,
    pub drops_queue_full: u64,
    pub drops_retry_limit: u64,
    pub drops_ttl: u64,
    pub drops_no_route: u64,
    pub drops_scheme: u64,
    pub queue_max: u64,
    /// Busy airtime fraction seen by this node's carrier sense (own transmissions included).
    pub airtime_busy: f64,
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
        let mut st = s.serialize_struct("NodeResult", 18 + self.coding.len())?;
        st.serialize_field("node", &self.node)?;
        st.serialize_field("x", &self.x)?;
        st.serialize_field("y", &self.y)?;
        st.serialize_field("mac_frames_sent", &self.mac_frames_sent)?;
        st.serialize_field("mac_data_frames_sent", &self.mac_data_frames_sent)?;
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
        for (name, v) in &self.coding {
            st.serialize_field(name, v)?;
        }
        st.end()
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowSample {
    pub t_s: f64,
    pub flow: u32,
    /// Goodput over the interval ending at t_s, kbit/s.
    pub goodput_kbps: f64,
    pub cwnd_bytes: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NodeSample {
    pub t_s: f64,
    pub node: u32,
    pub queue_len: u64,
}

/// Every network-layer packet instance is accounted for: each node's arrivals (packets
/// originated there or received from the MAC as new) equal what it delivered locally,
/// handed to the next hop, dropped, or still holds at the end.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Conservation {
    pub originated: u64,
    pub received_from_mac: u64,
    pub delivered: u64,
    pub handed_over: u64,
    pub dropped: u64,
    pub held_at_end: u64,
    pub balanced: bool,
}
