//! Traffic sources: bulk (always has data) and constant bit rate, over TCP or UDP.

use crate::engine::{secs, Time};
use crate::net::IP_HEADER_BYTES;
use crate::phy::timing::{PhyTiming, LLC_BYTES, MAC_DATA_OVERHEAD};
use crate::scenario::schema::{AppKind, FlowCfg, Transport};
use crate::wire::udp::UDP_HEADER_BYTES;

/// Bytes a UDP datagram's frame adds to its payload: UDP and IP headers, LLC/SNAP, the
/// MAC header and FCS.
pub const UDP_FRAME_OVERHEAD: u32 =
    UDP_HEADER_BYTES + IP_HEADER_BYTES + LLC_BYTES + MAC_DATA_OVERHEAD;

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
    /// The source a flow's `app`, `rate_kbps` and `packet_bytes` describe. Bulk data
    /// over UDP has no window to hold it back: it saturates the link, one datagram per
    /// frame airtime at the data rate of `timing` (headers included).
    pub fn from_cfg(f: &FlowCfg, timing: &PhyTiming) -> Source {
        match f.app {
            AppKind::Bulk if f.transport == Transport::Udp => Source::Cbr {
                interval: timing
                    .airtime(f.packet_bytes + UDP_FRAME_OVERHEAD, timing.data_rate_mbps),
                bytes: f.packet_bytes,
            },
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

/// Whether a delivered packet brought the `len` bytes of `flow`'s stream from `offset`
/// intact: all of them, each the one the source wrote. Without bytes it is intact
/// unless the run carries them (`carried`) and it has data.
pub fn payload_intact(
    flow: u32,
    offset: u64,
    len: u32,
    bytes: Option<&[u8]>,
    carried: bool,
) -> bool {
    match bytes {
        Some(b) => {
            b.len() == len as usize
                && b.iter()
                    .enumerate()
                    .all(|(i, &x)| x == payload_byte(flow, offset + i as u64))
        }
        None => !carried || len == 0,
    }
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

    fn cbr(transport: Transport) -> FlowCfg {
        FlowCfg {
            src: 0,
            dst: 1,
            transport,
            app: AppKind::Cbr,
            rate_kbps: Some(800.0),
            packet_bytes: 1000,
            start_s: 1.0,
            stop_s: None,
            route: None,
        }
    }

    fn timing() -> PhyTiming {
        PhyTiming::new(&crate::scenario::schema::MacCfg::default())
    }

    #[test]
    fn cbr_interval() {
        let f = cbr(Transport::Udp);
        assert_eq!(
            Source::from_cfg(&f, &timing()),
            Source::Cbr {
                interval: 10_000_000,
                bytes: 1000
            }
        );
    }

    #[test]
    fn bulk_over_udp_sends_one_datagram_per_frame_airtime() {
        let mut f = cbr(Transport::Udp);
        f.app = AppKind::Bulk;
        let t = timing();
        let frame = t.airtime(1000 + 64, t.data_rate_mbps);
        assert_eq!(UDP_FRAME_OVERHEAD, 64);
        assert_eq!(
            Source::from_cfg(&f, &t),
            Source::Cbr {
                interval: frame,
                bytes: 1000
            }
        );
        f.transport = Transport::Tcp;
        assert_eq!(Source::from_cfg(&f, &t), Source::Bulk);
    }

    #[test]
    fn a_payload_is_intact_only_whole_and_unchanged() {
        let good = payload(3, 100, 8);
        assert!(payload_intact(3, 100, 8, Some(&good), true));
        assert!(
            !payload_intact(3, 100, 8, Some(&good[..7]), true),
            "shortened"
        );
        assert!(!payload_intact(3, 101, 8, Some(&good), true), "other bytes");
        assert!(!payload_intact(3, 100, 8, None, true), "lost");
        assert!(payload_intact(3, 100, 8, None, false), "not carried");
        assert!(payload_intact(3, 100, 0, None, true), "a pure ACK");
    }

    #[test]
    fn payload_is_a_function_of_flow_and_offset() {
        assert_eq!(payload(1, 10, 4)[..], payload(1, 8, 6)[2..]);
        assert_ne!(payload(1, 0, 16), payload(2, 0, 16));
    }
}
