//! Traffic sources: bulk (always has data) and constant bit rate, over TCP or UDP.

use crate::engine::{secs, Time};
use crate::scenario::schema::{AppKind, FlowCfg};

/// How an application offers data to its transport.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Source {
    /// Unlimited data (FTP).
    Bulk,
    /// `bytes` every `interval`.
    Cbr {
        /// Time between writes.
        interval: Time,
        /// Bytes per write (`packet_bytes`).
        bytes: u32,
    },
}

impl Source {
    /// The source a flow's `app`, `rate_kbps` and `packet_bytes` describe.
    pub fn from_cfg(f: &FlowCfg) -> Source {
        match f.app {
            AppKind::Bulk => Source::Bulk,
            AppKind::Cbr => {
                let rate_bps = f.rate_kbps.unwrap_or(0.0) * 1000.0;
                let interval = secs(f.packet_bytes as f64 * 8.0 / rate_bps).max(1);
                Source::Cbr {
                    interval,
                    bytes: f.packet_bytes,
                }
            }
        }
    }
}

/// Deterministic payload byte `i` of a flow's byte stream: lets receivers check that
/// what they got (possibly decoded from coded frames) is exactly what was sent.
#[inline]
pub fn payload_byte(flow: u32, offset: u64) -> u8 {
    let x = offset.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (flow as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (x >> 56) as u8
}

/// `len` payload bytes of `flow` starting at stream offset `offset`.
pub fn payload(flow: u32, offset: u64, len: u32) -> Box<[u8]> {
    (0..len as u64)
        .map(|i| payload_byte(flow, offset + i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::Transport;

    #[test]
    fn cbr_interval() {
        let f = FlowCfg {
            src: 0,
            dst: 1,
            transport: Transport::Udp,
            app: AppKind::Cbr,
            rate_kbps: Some(800.0),
            packet_bytes: 1000,
            start_s: 1.0,
            stop_s: None,
            route: None,
        };
        assert_eq!(
            Source::from_cfg(&f),
            Source::Cbr {
                interval: 10_000_000,
                bytes: 1000
            }
        );
    }

    #[test]
    fn payload_is_a_function_of_flow_and_offset() {
        assert_eq!(payload(1, 10, 4)[..], payload(1, 8, 6)[2..]);
        assert_ne!(payload(1, 0, 16), payload(2, 0, 16));
    }
}
