//! TCP/NC (Sundararajan, Shah, Médard, Mitzenmacher, Barros, INFOCOM 2009): a coding layer
//! between TCP and IP at the end hosts; CoMP's "TCP-ARQ" baseline (Gheorghiu et al.,
//! CoMP §III) when its redundancy is set online from CoMP's Alg. 1.
//!
//! - Source (§V-A): the coding buffer holds the packets from TCP the destination has not
//!   acknowledged as seen; per packet from TCP, NUM += R and ⌊NUM⌋ random linear
//!   combinations of the whole buffer go out (the fraction is kept); an acknowledgement
//!   removes the packets before the first unseen one and goes up as a TCP ACK.
//! - Destination (§IV-B, §V-B): progressive elimination (`rlnc::Decoder`); each
//!   innovative combination makes exactly one packet seen; every degree of freedom is
//!   acknowledged with the first unseen packet; decoded packets go up to TCP in order.
//! - Relays forward (no recoding: TCP-ARQ codes end to end).
//!
//! How TCP's own acknowledgements and retransmissions meet the layer (decided here, in
//! the paper's design; docs/assumptions.md "TCP/NC"):
//! - TCP's sender hears only the layer's ACKs: the destination's TCP receiver still
//!   acknowledges what it is handed (its window is copied into the layer's ACKs), but
//!   those ACKs stop at its coding layer, so the sender never sees two streams.
//! - Every arrival is acknowledged, as the paper does, so a non-innovative one repeats
//!   the last acknowledgement (that repeat is what tells a source whose acknowledgements
//!   of the last packets were lost that they arrived); the source passes up only
//!   acknowledgements that move its window: TCP sees no duplicate ACK, so NewReno's fast
//!   retransmit is never triggered by a combination that came late or twice. Losses the
//!   redundancy does not cover stall the ACKs until TCP's retransmission timer fires.
//! - The destination advertises TCP's window less the bytes seen but not yet decoded
//!   (acknowledged bytes the application cannot read yet hold receive buffer in TCP):
//!   this bounds how far a loss-based TCP, which never sees a loss here, runs ahead of
//!   decoding.
//! - A TCP retransmission is not buffered again (its bytes are there) but adds R to NUM
//!   like any packet (the paper's rule; the ns-2 agent does the same).
//! - R is fixed (`adaptive = false`) or, by default, set at the source from Alg. 1: the
//!   destination counts the combinations it receives (s, t) and piggybacks them on its
//!   ACKs; the source estimates the end-to-end loss L and sets R = headroom / (1 − L)
//!   within [min_redundancy, max_redundancy] (Gheorghiu et al., CoMP §III: the original gives no rule).

pub mod coder;
pub mod config;
pub mod header;
pub(crate) mod sink;
pub(crate) mod source;

pub use coder::TcpNcCoder;
pub use config::{NcField, TcpNcCfg, TcpNcParams};
pub use header::{TcpNcAck, TcpNcHeader};

/// Per-node counters of TCP/NC (result columns `tcpnc_*`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TcpNcCounters {
    /// Packets from TCP at a source (retransmissions included).
    pub tcp_packets: u64,
    /// Of those, TCP retransmissions (bytes already in the coding buffer).
    pub tcp_retransmissions: u64,
    /// Combinations a source sent.
    pub source_coded: u64,
    /// Of those, combinations sent because the destination's window blocked TCP
    /// (`blocked_repair`).
    pub repairs: u64,
    /// Combinations a relay forwarded.
    pub forwarded: u64,
    /// Innovative combinations received at a destination.
    pub innovative: u64,
    /// Non-innovative combinations received at a destination.
    pub not_innovative: u64,
    /// Combinations a destination could not use (spanning packets it had forgotten).
    pub stale: u64,
    /// Packets decoded and handed up to TCP.
    pub decoded: u64,
    /// Acknowledgements a destination sent (one per arrival, so one per degree of
    /// freedom and a repeat for each non-innovative arrival).
    pub acks_sent: u64,
    /// Acknowledgements a source passed up to TCP as ACKs.
    pub acks_up: u64,
    /// Acknowledgements a source absorbed (they did not move the window).
    pub acks_absorbed: u64,
    /// The TCP receiver's own ACKs stopped at the destination's coding layer.
    pub tcp_acks_suppressed: u64,
    /// Loss samples of Alg. 1 taken at a source.
    pub loss_updates: u64,
    /// The smoothed loss estimate at the end of the run, per mille (the highest of the
    /// node's flows).
    pub loss_permille: u64,
    /// R at the end of the run, thousandths (the highest of the node's flows).
    pub redundancy_milli: u64,
}

impl TcpNcCounters {
    /// The counters' names in results, in `values` order.
    pub const NAMES: [&'static str; 16] = [
        "tcpnc_tcp_packets",
        "tcpnc_tcp_retransmissions",
        "tcpnc_source_coded",
        "tcpnc_repairs",
        "tcpnc_forwarded",
        "tcpnc_innovative",
        "tcpnc_not_innovative",
        "tcpnc_stale",
        "tcpnc_decoded",
        "tcpnc_acks_sent",
        "tcpnc_acks_up",
        "tcpnc_acks_absorbed",
        "tcpnc_tcp_acks_suppressed",
        "tcpnc_loss_updates",
        "tcpnc_loss_permille",
        "tcpnc_redundancy_milli",
    ];

    /// The counters in `NAMES` order.
    pub fn values(&self) -> [u64; 16] {
        [
            self.tcp_packets,
            self.tcp_retransmissions,
            self.source_coded,
            self.repairs,
            self.forwarded,
            self.innovative,
            self.not_innovative,
            self.stale,
            self.decoded,
            self.acks_sent,
            self.acks_up,
            self.acks_absorbed,
            self.tcp_acks_suppressed,
            self.loss_updates,
            self.loss_permille,
            self.redundancy_milli,
        ]
    }
}
