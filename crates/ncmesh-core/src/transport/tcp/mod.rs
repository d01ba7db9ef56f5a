//! TCP as plain state machines: no I/O and no clock. The simulator passes the
//! current time (`now`, nanoseconds) into every call and asks for deadlines
//! ([`TcpSender::timer_deadline`], [`TcpSender::pacing_deadline`],
//! [`TcpReceiver::delack_deadline`]) to schedule timers.
//!
//! The model: byte sequence numbers from 0 as `u64` (no wrap), the connection exists
//! from creation (no handshake, no FIN), data segments carry at most one MSS, the
//! receiving application reads in-order data immediately. Loss recovery is NewReno
//! (RFC 6582) or, with `sack`, SACK-based (RFC 2018, RFC 6675); the RTO follows
//! RFC 6298; window growth (RFC 5681) sits behind [`CongestionControl`] so other
//! variants replace it: TCP-FeW ([`few`]), TCP-AP and network-coding-aware TCP
//! ([`ap`], rate pacing), TCP Vegas ([`vegas`]), CUBIC ([`cubic`], RFC 9438), BBR v1
//! ([`bbr`], paced).
//!
//! One concept per file (the header is `wire::tcp`): [`config`], [`rtt`] (RFC 6298),
//! [`congestion`] (the variant seam and RFC 5681 growth), [`few`], [`ap`], [`vegas`],
//! [`cubic`], [`bbr`] (BBR v1, with [`rate`], delivery-rate estimation, and
//! [`max_filter`], its windowed maximum),
//! [`scoreboard`] (SACK scoreboard, RFC 6675 helpers), [`prr`] (RFC 6937), [`rack`]
//! and [`tlp`] (RFC 8985), [`sender`], [`receiver`].

pub mod ap;
pub mod bbr;
pub mod config;
pub mod congestion;
pub mod cubic;
pub mod few;
pub mod hystart;
pub mod max_filter;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod tlp;
pub mod vegas;

#[cfg(test)]
mod harness;

pub use crate::wire::tcp::{SackBlock, TcpHeader, MAX_SACK_BLOCKS, TCP_HEADER_BYTES};
pub use ap::{Ap, ApParams};
pub use bbr::{Bbr, BbrMode, BbrParams};
pub use config::{TcpConfig, DEFAULT_PATH_HOPS};
pub use congestion::{CcAlgorithm, CongestionControl, Reno, Window};
pub use cubic::{Cubic, CubicParams};
pub use few::Few;
pub use prr::Prr;
pub use rack::Rack;
pub use rate::{CaState, RateSample, RateSampler};
pub use receiver::{TcpReceiver, TcpReceiverStats};
pub use rtt::RttEstimator;
pub use scoreboard::Scoreboard;
pub use sender::{RecoveryState, TcpSender, TcpSenderStats};
pub use tlp::Tlp;
pub use vegas::{Vegas, VegasParams};
