//! TCP/NC's fields on the air. A combination carries, beside its coefficients (one per
//! packet of the coding window, 1 or 2 bytes each, counted by `Coeffs::bytes`), the
//! window's first packet and its length, and with adaptive redundancy the combination's
//! id for CoMP's Alg. 1. The destination's acknowledgement is a TCP ACK (its 20-byte
//! header names the first unseen packet) carrying, with adaptive redundancy, Alg. 1's
//! (s, t). Sizes: docs/assumptions.md ("TCP/NC").

use crate::coding::loss_estimate::Counts;
use crate::coding::WireHeader;
use crate::engine::Time;
use crate::net::{NodeId, Packet, IP_HEADER_BYTES, L4};
use crate::transport::tcp::TcpHeader;
use crate::wire::tcp::TCP_HEADER_BYTES;

/// Bytes of the window's first packet (a TCP byte sequence number, as Sundararajan et
/// al.'s header carries the window's base).
pub const WINDOW_START_BYTES: u32 = 4;
/// Bytes of the number of packets in the window.
pub const WINDOW_LEN_BYTES: u32 = 2;
/// Bytes of a combination's id (Alg. 1's p_i entries; only with adaptive redundancy).
pub const ID_BYTES: u32 = 4;
/// Bytes of a report (s, t): the last id received and the count, 4 bytes each.
pub const REPORT_BYTES: u32 = 8;

/// The TCP/NC header of a combination, beyond its span and coefficients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpNcHeader {
    /// The combination's id within its flow (ascending from 0).
    pub id: u64,
    /// The id is on the air (adaptive redundancy).
    pub with_id: bool,
}

impl WireHeader for TcpNcHeader {
    /// The window's first packet and length, and the id when carried (the coefficients
    /// are counted apart).
    fn bytes(&self) -> u32 {
        WINDOW_START_BYTES + WINDOW_LEN_BYTES + if self.with_id { ID_BYTES } else { 0 }
    }

    fn pcap_len(&self) -> usize {
        8
    }

    /// The id (u64; u64::MAX when not carried).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        let id = if self.with_id { self.id } else { u64::MAX };
        out.extend_from_slice(&id.to_be_bytes());
    }
}

/// The destination's acknowledgement of an arrival (the first unseen packet): a control message of the
/// flow layer, from the destination to the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpNcAck {
    /// The flow.
    pub flow: u32,
    /// The first packet the destination has not seen (index in the flow's coded stream).
    pub first_unseen: u64,
    /// The receive window to advertise, bytes.
    pub wnd: u32,
    /// Alg. 1's (s, t) for the source (adaptive redundancy).
    pub report: Option<Counts>,
}

impl TcpNcAck {
    /// The plain TCP ACK a source hands its TCP sender for this acknowledgement, which
    /// moved its window to byte `seq` (Sundararajan et al. §V-A): from the destination
    /// `from` to the source `to` at `now`.
    pub fn tcp_ack(&self, seq: u64, from: NodeId, to: NodeId, now: Time) -> Packet {
        let h = TcpHeader {
            ack: seq,
            wnd: self.wnd,
            ..TcpHeader::default()
        };
        Packet {
            uid: 0,
            flow: self.flow,
            src: from,
            dst: to,
            ttl: 64,
            ip_bytes: IP_HEADER_BYTES + TCP_HEADER_BYTES,
            created: now,
            l4: L4::Tcp(h),
            payload: None,
        }
    }
}

impl WireHeader for TcpNcAck {
    /// A TCP header (its acknowledgement number names the first unseen packet), and the
    /// report when carried.
    fn bytes(&self) -> u32 {
        TCP_HEADER_BYTES
            + if self.report.is_some() {
                REPORT_BYTES
            } else {
                0
            }
    }

    fn pcap_len(&self) -> usize {
        36
    }

    /// flow (u32), first unseen (u64), window (u32), a flag (1: report) and three pad
    /// bytes, s (u64), t (u64).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.flow.to_be_bytes());
        out.extend_from_slice(&self.first_unseen.to_be_bytes());
        out.extend_from_slice(&self.wnd.to_be_bytes());
        out.extend_from_slice(&[u8::from(self.report.is_some()), 0, 0, 0]);
        let c = self.report.unwrap_or_default();
        out.extend_from_slice(&c.last_id.to_be_bytes());
        out.extend_from_slice(&c.received.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_on_the_air_and_in_captures() {
        let h = TcpNcHeader {
            id: 3,
            with_id: true,
        };
        assert_eq!(h.bytes(), 10);
        assert_eq!(
            TcpNcHeader {
                with_id: false,
                ..h.clone()
            }
            .bytes(),
            6
        );
        let a = TcpNcAck {
            flow: 0,
            first_unseen: 9,
            wnd: 1000,
            report: Some(Counts {
                last_id: 4,
                received: 3,
            }),
        };
        assert_eq!(a.bytes(), 28);
        assert_eq!(
            TcpNcAck {
                report: None,
                ..a.clone()
            }
            .bytes(),
            20
        );
        let mut out = Vec::new();
        h.write_pcap(&mut out);
        assert_eq!(out.len(), h.pcap_len());
        out.clear();
        a.write_pcap(&mut out);
        assert_eq!(out.len(), a.pcap_len());
    }
}
