//! Parameters of the XOR-coding schemes; defaults in docs/assumptions.md.

use super::timing::Timing;
use crate::engine::Time;

/// The XOR family's parameters, in engine units (from `[scheme.xor]`).
#[derive(Debug, Clone, PartialEq)]
pub struct XorParams {
    /// How long overheard and sent packets stay in the packet pool (COPE §3.1: 0.5 s).
    pub pool_time: Time,
    /// Code only if every next hop decodes with at least this probability (COPE §3.3, G).
    pub threshold: f64,
    /// Guess that a neighbour holds a packet with the delivery probability from the
    /// packet's previous hop when no report says so (COPE §3.4).
    pub guess: bool,
    /// Longest wait before reports and acks go out in a frame of their own when there
    /// is no data frame to carry them.
    pub control_delay: Time,
    /// Longest wait of reception reports alone before a control frame carries them.
    pub report_interval: Time,
    /// An unacknowledged native of a coded frame is retransmitted after this long
    /// (adaptive: at most this long, and this long before the first sample).
    pub ack_timeout: Time,
    /// Fixed ack timeout, or per neighbour from the measured ack latency.
    pub ack_timing: Timing,
    /// Floor of the adaptive ack timeout and ordering hold.
    pub timer_floor: Time,
    /// Retransmissions of a native after the first send (then it is dropped).
    pub max_retransmissions: u8,
    /// At most this many natives per code (0: one per next hop, no other limit).
    pub max_code: usize,
    /// COPE's ordering agent at the destination: how long a TCP segment after a gap
    /// waits for the gap to fill (0: no agent; adaptive: at most this long).
    pub ordering_timeout: Time,
    /// Fixed ordering hold, or per flow from the measured time gaps take to fill.
    pub ordering_timing: Timing,
    /// Encode Once (Xu et al. §IV-A).
    pub encode_once: bool,
    /// Two-hop codes (BFLY, Seferoglu & Markopoulou §VII): natives for one next hop whose following
    /// hops can each decode.
    pub two_hop: bool,
    /// Reports and acks carried per frame at most (the rest wait for the next frame).
    pub max_header_items: usize,
    /// Headers that carry each report and ack (repeats guard against lost headers).
    pub header_repeats: u8,
}

impl Default for XorParams {
    fn default() -> Self {
        XorParams {
            pool_time: 500_000_000,
            threshold: 0.8,
            guess: true,
            control_delay: 10_000_000,
            report_interval: 100_000_000,
            ack_timeout: 200_000_000,
            ack_timing: Timing::Adaptive,
            timer_floor: 10_000_000,
            max_retransmissions: 3,
            max_code: 0,
            ordering_timeout: 250_000_000,
            ordering_timing: Timing::Adaptive,
            encode_once: false,
            two_hop: false,
            max_header_items: 64,
            header_repeats: 3,
        }
    }
}
