//! Inter-flow XOR coding (the COPE family): opportunistic listening, reception
//! reports, guessing, the coding decision, pseudo-broadcast with an XOR header,
//! asynchronous acknowledgements and retransmission (Katti et al., "XORs in the Air",
//! SIGCOMM 2006 / ToN 2008, §3-§4). The output queue is the seam between variants:
//! COPE keeps natives and codes at each transmission opportunity ([`fifo`]); NCAQM keeps
//! codes (`coding::ncaqm`). Encode Once (Xu et al. §IV-A) is a flag.

pub mod announce;
pub mod config;
pub mod entry;
pub mod fifo;
pub mod groups;
pub mod header;
pub mod knowledge;
pub mod ordering;
pub mod params;
pub mod payload;
pub mod pool;
pub mod queue;
mod scheme;
pub mod timing;

pub use config::XorCfg;
pub use params::XorParams;
pub use scheme::XorScheme;

/// What a node's XOR layer counted over the run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct XorCounters {
    /// Frames carrying one native packet.
    pub native_tx: u64,
    /// Frames carrying an XOR of two or more natives.
    pub coded_tx: u64,
    /// Natives carried in coded frames (coded_packets / coded_tx = packets per code).
    pub coded_packets: u64,
    /// Natives this node was a next hop of but could not decode (each native once,
    /// however often its code came).
    pub decode_failures: u64,
    /// Native transmissions while the queue held a packet for another next hop that
    /// could not join the code (the decodability rule or Encode Once stopped it).
    pub coding_missed: u64,
    /// Natives sent again after no acknowledgement came.
    pub retransmissions: u64,
    /// Stand-alone frames sent only to carry reports and acknowledgements.
    pub control_tx: u64,
    /// Natives of a forwarded two-hop code dropped instead of sent (again): their
    /// decoder is known to miss another member (it reported so, or its pool forgot it
    /// while the code waited here), so the XOR could not decode there.
    pub futile_drops: u64,
}

impl XorCounters {
    /// The counters' names in results (node table columns), in `values` order.
    pub const NAMES: [&'static str; 8] = [
        "native_tx",
        "coded_tx",
        "coded_packets",
        "decode_failures",
        "coding_missed",
        "coding_retransmissions",
        "control_tx",
        "futile_drops",
    ];

    /// The counters in `NAMES` order.
    pub fn values(&self) -> [u64; 8] {
        [
            self.native_tx,
            self.coded_tx,
            self.coded_packets,
            self.decode_failures,
            self.coding_missed,
            self.retransmissions,
            self.control_tx,
            self.futile_drops,
        ]
    }
}
