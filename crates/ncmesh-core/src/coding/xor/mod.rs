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

crate::family_counters! {
    /// What a node's XOR layer counted over the run.
    pub struct XorCounters, prefix "" {
        /// Frames carrying one native packet.
        native_tx: "frames",
        /// Frames carrying an XOR of two or more natives.
        coded_tx: "frames",
        /// Natives carried in coded frames (coded_packets / coded_tx = packets per code).
        coded_packets: "packets",
        /// Natives this node was a next hop of but could not decode (each native once,
        /// however often its code came).
        decode_failures: "packets",
        /// Native transmissions while the queue held a packet for another next hop that
        /// could not join the code (the decodability rule or Encode Once stopped it).
        coding_missed: "frames",
        /// Natives sent again after no acknowledgement came.
        coding_retransmissions: "packets",
        /// Stand-alone frames sent only to carry reports and acknowledgements.
        control_tx: "frames",
        /// Natives of a forwarded two-hop code dropped instead of sent (again): their
        /// decoder is known to miss another member (it reported so, or its pool forgot it
        /// while the code waited here), so the XOR could not decode there.
        futile_drops: "packets",
    }
}
