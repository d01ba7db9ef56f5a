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
//! - Combinations are offered to the node's interface queue only as far as it has room;
//!   the rest stay owed in NUM and go with the next acknowledgement or packet from TCP
//!   (`full_queue = "owe"`, CoMP's output buffer at the source, §II-E). Offered to a full
//!   queue they would be dropped where neither Alg. 1 (which counts what goes on the
//!   air) nor TCP (which sees no loss below the layer) notices, and TCP would wait on
//!   its window for a timeout.
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
pub use config::{FullQueue, NcField, TcpNcCfg, TcpNcParams};
pub use header::{TcpNcAck, TcpNcHeader};

crate::family_counters! {
    /// Per-node counters of TCP/NC (result columns `tcpnc_*`).
    pub struct TcpNcCounters, prefix "tcpnc_" {
        /// Packets from TCP at a source (retransmissions included).
        tcp_packets: "packets",
        /// Of those, TCP retransmissions (bytes already in the coding buffer).
        tcp_retransmissions: "packets",
        /// Combinations a source sent.
        source_coded: "combinations",
        /// Of those, combinations sent because the destination's window blocked TCP
        /// (`blocked_repair`).
        repairs: "combinations",
        /// Times a source was left owing combinations for want of room in its queue
        /// (`full_queue = "owe"`: they go as the queue drains).
        held_back: "times",
        /// Combinations a relay forwarded.
        forwarded: "combinations",
        /// Innovative combinations received at a destination.
        innovative: "combinations",
        /// Non-innovative combinations received at a destination.
        not_innovative: "combinations",
        /// Combinations a destination could not use (spanning packets it had forgotten).
        stale: "combinations",
        /// Packets decoded and handed up to TCP.
        decoded: "packets",
        /// Acknowledgements a destination sent (one per arrival, so one per degree of
        /// freedom and a repeat for each non-innovative arrival).
        acks_sent: "acknowledgements",
        /// Acknowledgements a source passed up to TCP as ACKs.
        acks_up: "acknowledgements",
        /// Acknowledgements a source absorbed (they did not move the window).
        acks_absorbed: "acknowledgements",
        /// The TCP receiver's own ACKs stopped at the destination's coding layer.
        tcp_acks_suppressed: "packets",
        /// Loss samples of Alg. 1 taken at a source.
        loss_updates: "samples",
        /// The smoothed loss estimate at the end of the run, per mille (the highest of the
        /// node's flows).
        loss_permille: "per mille",
        /// R at the end of the run, thousandths (the highest of the node's flows).
        redundancy_milli: "thousandths",
    }
}
