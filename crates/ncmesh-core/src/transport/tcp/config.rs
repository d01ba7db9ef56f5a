//! TCP parameters in simulator units (bytes, nanoseconds).

use crate::engine::{secs, Time};
use crate::scenario::schema::{TcpCfg, TcpVariant};

/// Parameters shared by a connection's sender and receiver. Built from the scenario's
/// [`TcpCfg`] with [`TcpConfig::from_cfg`]; all times are nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpConfig {
    /// Window-growth rule (see [`super::congestion`]).
    pub variant: TcpVariant,
    /// SACK option and RFC 6675 loss recovery; otherwise NewReno (RFC 6582).
    pub sack: bool,
    /// Sender maximum segment size (SMSS), payload bytes.
    pub mss: u32,
    /// Initial window, segments (RFC 5681 section 3.1 IW).
    pub initial_cwnd_segments: u32,
    /// Lower bound on the RTO (RFC 6298 section 2.4).
    pub min_rto: Time,
    /// RTO before the first RTT sample (RFC 6298 section 2.1).
    pub initial_rto: Time,
    /// Upper bound on the RTO, also capping exponential backoff (RFC 6298 section 2.5).
    pub max_rto: Time,
    /// Clock granularity G (RFC 6298 section 2).
    pub clock_granularity: Time,
    /// Delay ACKs for in-order data (RFC 1122 section 4.2.3.2).
    pub delayed_ack: bool,
    /// With delayed ACKs, acknowledge once this many full-sized segments' worth of
    /// in-order data is unacknowledged.
    pub delayed_ack_count: u32,
    /// Longest an ACK is held back.
    pub delayed_ack_timeout: Time,
    /// Receive buffer, bytes; the advertised window is this minus buffered
    /// out-of-order data.
    pub rcv_buffer: u32,
    /// Duplicate ACKs that trigger fast retransmit (DupThresh, RFC 5681 section 3.2).
    pub dupack_threshold: u32,
}

impl TcpConfig {
    /// Converts scenario units (seconds) to simulator units. Degenerate values that
    /// validation should already have rejected are clamped to the smallest sane ones
    /// so the state machines never divide by zero or stall.
    pub fn from_cfg(c: &TcpCfg) -> Self {
        let min_rto = secs(c.min_rto_s);
        TcpConfig {
            variant: c.variant,
            sack: c.sack,
            mss: c.mss_bytes.max(1),
            initial_cwnd_segments: c.initial_cwnd_segments.max(1),
            min_rto,
            initial_rto: secs(c.initial_rto_s).max(1),
            max_rto: secs(c.max_rto_s).max(min_rto).max(1),
            clock_granularity: secs(c.clock_granularity_s),
            delayed_ack: c.delayed_ack,
            delayed_ack_count: c.delayed_ack_count.max(1),
            delayed_ack_timeout: secs(c.delayed_ack_timeout_s),
            rcv_buffer: c.rcv_buffer_bytes,
            dupack_threshold: c.dupack_threshold.max(1),
        }
    }

    /// SMSS as a 64-bit byte count.
    pub fn smss(&self) -> u64 {
        self.mss as u64
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig::from_cfg(&TcpCfg::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MILLIS, SECOND};

    #[test]
    fn converts_seconds_to_nanoseconds() {
        let c = TcpCfg {
            min_rto_s: 0.2,
            initial_rto_s: 3.0,
            max_rto_s: 64.0,
            clock_granularity_s: 0.01,
            delayed_ack_timeout_s: 0.1,
            ..TcpCfg::default()
        };
        let t = TcpConfig::from_cfg(&c);
        assert_eq!(t.min_rto, 200 * MILLIS);
        assert_eq!(t.initial_rto, 3 * SECOND);
        assert_eq!(t.max_rto, 64 * SECOND);
        assert_eq!(t.clock_granularity, 10 * MILLIS);
        assert_eq!(t.delayed_ack_timeout, 100 * MILLIS);
        assert_eq!(t.mss, c.mss_bytes);
        assert_eq!(t.rcv_buffer, c.rcv_buffer_bytes);
        assert_eq!(t.dupack_threshold, c.dupack_threshold);
        assert_eq!(t.sack, c.sack);
    }
}
