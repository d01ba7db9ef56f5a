//! AODV's control messages (RFC 3561 §5) and their wire format, carried in UDP to port
//! 654 (§4). Nodes are numbered; on the wire node `n` is the IPv4 address 10.x.y.z with
//! x.y.z the low 24 bits of `n` (the capture convention of `sim::pcap`).

use super::packet::NodeId;
use crate::engine::{Time, MILLIS};

/// AODV's UDP port (RFC 3561 §4).
pub const AODV_PORT: u16 = 654;

/// RREQ message (RFC 3561 §5.1, type 1), 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rreq {
    /// J: join flag (multicast; never set here).
    pub join: bool,
    /// R: repair flag (multicast; never set here).
    pub repair: bool,
    /// G: gratuitous RREP flag (§6.6.3).
    pub gratuitous: bool,
    /// D: destination only flag (§6.5).
    pub dest_only: bool,
    /// U: unknown sequence number (§6.3).
    pub unknown_seqno: bool,
    /// Hops from the originator to the node handling the request.
    pub hop_count: u8,
    /// With the originator's address, identifies the request (§6.3).
    pub rreq_id: u32,
    /// Destination sought.
    pub dest: NodeId,
    /// Latest sequence number the originator knew for the destination.
    pub dest_seqno: u32,
    /// Originator.
    pub orig: NodeId,
    /// Originator's current sequence number.
    pub orig_seqno: u32,
}

/// RREP message (RFC 3561 §5.2, type 2), 20 bytes. A HELLO is an RREP with
/// dest = orig = the sender, hop count 0 and IP TTL 1 (§6.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rrep {
    /// R: repair flag (multicast; never set here).
    pub repair: bool,
    /// A: acknowledgment required (§5.4).
    pub ack_required: bool,
    /// Prefix size (§5.2); 0 here.
    pub prefix_size: u8,
    /// Hops from the node that issued the reply to the destination.
    pub hop_count: u8,
    /// Destination the route is for.
    pub dest: NodeId,
    /// Destination's sequence number for the route.
    pub dest_seqno: u32,
    /// Originator of the RREQ the reply answers.
    pub orig: NodeId,
    /// Route lifetime, milliseconds.
    pub lifetime_ms: u32,
}

impl Rrep {
    /// A unicast reply or a HELLO as this implementation sends them: no repair or
    /// acknowledgement flag, prefix size 0 (§5.2); `lifetime` in simulator time.
    pub fn new(dest: NodeId, dest_seqno: u32, orig: NodeId, hop_count: u8, lifetime: Time) -> Rrep {
        Rrep {
            repair: false,
            ack_required: false,
            prefix_size: 0,
            hop_count,
            dest,
            dest_seqno,
            orig,
            lifetime_ms: (lifetime / MILLIS) as u32,
        }
    }
}

/// RERR message (RFC 3561 §5.3, type 3): 4 bytes and 8 per unreachable destination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rerr {
    /// N: no delete flag (local repair under way, §6.12).
    pub no_delete: bool,
    /// Unreachable destinations and their (incremented) sequence numbers; 1-255.
    pub unreachable: Vec<(NodeId, u32)>,
}

/// An AODV control message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AodvMsg {
    /// Route request (type 1).
    Rreq(Rreq),
    /// Route reply or HELLO (type 2).
    Rrep(Rrep),
    /// Route error (type 3).
    Rerr(Rerr),
    /// RREP acknowledgment (type 4, §5.4), 2 bytes.
    RrepAck,
}

/// Why bytes did not decode as an AODV message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// Fewer bytes than the message type needs.
    Truncated,
    /// A type this implementation does not know.
    UnknownType(u8),
    /// An RERR with DestCount 0 (§5.3: at least 1).
    EmptyRerr,
}

/// IPv4 address of node `n` (10.x.y.z, x.y.z its low 24 bits).
pub fn ip_of(n: NodeId) -> u32 {
    0x0A00_0000 | (n & 0x00FF_FFFF)
}

/// Node of IPv4 address `a` (inverse of [`ip_of`]).
pub fn node_of(a: u32) -> NodeId {
    a & 0x00FF_FFFF
}

impl AodvMsg {
    /// Length of the message on the wire, bytes (UDP payload).
    pub fn bytes(&self) -> u32 {
        match self {
            AodvMsg::Rreq(_) => 24,
            AodvMsg::Rrep(_) => 20,
            AodvMsg::Rerr(e) => 4 + 8 * e.unreachable.len() as u32,
            AodvMsg::RrepAck => 2,
        }
    }

    /// Appends the message's wire format (RFC 3561 §5.1-5.4, network byte order).
    pub fn encode(&self, out: &mut Vec<u8>) {
        let flag = |b: bool, bit: u8| if b { 1u8 << bit } else { 0 };
        match self {
            AodvMsg::Rreq(r) => {
                out.push(1);
                out.push(
                    flag(r.join, 7)
                        | flag(r.repair, 6)
                        | flag(r.gratuitous, 5)
                        | flag(r.dest_only, 4)
                        | flag(r.unknown_seqno, 3),
                );
                out.push(0); // reserved
                out.push(r.hop_count);
                for w in [
                    r.rreq_id,
                    ip_of(r.dest),
                    r.dest_seqno,
                    ip_of(r.orig),
                    r.orig_seqno,
                ] {
                    out.extend_from_slice(&w.to_be_bytes());
                }
            }
            AodvMsg::Rrep(r) => {
                out.push(2);
                out.push(flag(r.repair, 7) | flag(r.ack_required, 6));
                out.push(r.prefix_size & 0x1F); // 7 reserved bits, 5-bit prefix size
                out.push(r.hop_count);
                for w in [ip_of(r.dest), r.dest_seqno, ip_of(r.orig), r.lifetime_ms] {
                    out.extend_from_slice(&w.to_be_bytes());
                }
            }
            AodvMsg::Rerr(e) => {
                out.push(3);
                out.push(flag(e.no_delete, 7));
                out.push(0);
                out.push(e.unreachable.len() as u8);
                for &(d, s) in &e.unreachable {
                    out.extend_from_slice(&ip_of(d).to_be_bytes());
                    out.extend_from_slice(&s.to_be_bytes());
                }
            }
            AodvMsg::RrepAck => out.extend_from_slice(&[4, 0]),
        }
    }

    /// Reads one message from `b`.
    pub fn decode(b: &[u8]) -> Result<AodvMsg, DecodeError> {
        let word = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let bit = |byte: u8, k: u8| byte & (1 << k) != 0;
        let ty = *b.first().ok_or(DecodeError::Truncated)?;
        let need = match ty {
            1 => 24,
            2 => 20,
            3 => 4,
            4 => 2,
            t => return Err(DecodeError::UnknownType(t)),
        };
        if b.len() < need {
            return Err(DecodeError::Truncated);
        }
        Ok(match ty {
            1 => AodvMsg::Rreq(Rreq {
                join: bit(b[1], 7),
                repair: bit(b[1], 6),
                gratuitous: bit(b[1], 5),
                dest_only: bit(b[1], 4),
                unknown_seqno: bit(b[1], 3),
                hop_count: b[3],
                rreq_id: word(4),
                dest: node_of(word(8)),
                dest_seqno: word(12),
                orig: node_of(word(16)),
                orig_seqno: word(20),
            }),
            2 => AodvMsg::Rrep(Rrep {
                repair: bit(b[1], 7),
                ack_required: bit(b[1], 6),
                prefix_size: b[2] & 0x1F,
                hop_count: b[3],
                dest: node_of(word(4)),
                dest_seqno: word(8),
                orig: node_of(word(12)),
                lifetime_ms: word(16),
            }),
            3 => {
                let n = b[3] as usize;
                if n == 0 {
                    return Err(DecodeError::EmptyRerr);
                }
                if b.len() < 4 + 8 * n {
                    return Err(DecodeError::Truncated);
                }
                AodvMsg::Rerr(Rerr {
                    no_delete: bit(b[1], 7),
                    unreachable: (0..n)
                        .map(|k| (node_of(word(4 + 8 * k)), word(8 + 8 * k)))
                        .collect(),
                })
            }
            _ => AodvMsg::RrepAck,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rreq_layout_matches_rfc_3561_5_1() {
        let m = AodvMsg::Rreq(Rreq {
            join: false,
            repair: false,
            gratuitous: true,
            dest_only: false,
            unknown_seqno: true,
            hop_count: 3,
            rreq_id: 0x0102_0304,
            dest: 7,
            dest_seqno: 9,
            orig: 0x01_0203,
            orig_seqno: 5,
        });
        let mut b = Vec::new();
        m.encode(&mut b);
        assert_eq!(b.len() as u32, m.bytes());
        assert_eq!(
            &b[..4],
            &[1, 0b0010_1000, 0, 3],
            "type, G and U flags, hops"
        );
        assert_eq!(&b[4..8], &[1, 2, 3, 4], "RREQ ID");
        assert_eq!(&b[8..12], &[10, 0, 0, 7], "destination IP address");
        assert_eq!(&b[16..20], &[10, 1, 2, 3], "originator IP address");
        assert_eq!(AodvMsg::decode(&b), Ok(m));
    }

    #[test]
    fn rrep_rerr_and_ack_round_trip() {
        let msgs = [
            AodvMsg::Rrep(Rrep {
                repair: false,
                ack_required: true,
                prefix_size: 0,
                hop_count: 2,
                dest: 4,
                dest_seqno: 11,
                orig: 0,
                lifetime_ms: 3000,
            }),
            AodvMsg::Rerr(Rerr {
                no_delete: true,
                unreachable: vec![(4, 12), (5, 3)],
            }),
            AodvMsg::RrepAck,
        ];
        for m in msgs {
            let mut b = Vec::new();
            m.encode(&mut b);
            assert_eq!(b.len() as u32, m.bytes(), "{m:?}");
            assert_eq!(AodvMsg::decode(&b), Ok(m));
        }
        let mut b = Vec::new();
        AodvMsg::Rrep(Rrep {
            repair: false,
            ack_required: false,
            prefix_size: 0,
            hop_count: 0,
            dest: 1,
            dest_seqno: 1,
            orig: 1,
            lifetime_ms: 2000,
        })
        .encode(&mut b);
        assert_eq!(&b[16..20], &2000u32.to_be_bytes(), "lifetime in ms");
    }

    #[test]
    fn bad_bytes_are_refused() {
        assert_eq!(AodvMsg::decode(&[]), Err(DecodeError::Truncated));
        assert_eq!(AodvMsg::decode(&[1, 0, 0]), Err(DecodeError::Truncated));
        assert_eq!(AodvMsg::decode(&[9, 0]), Err(DecodeError::UnknownType(9)));
        assert_eq!(AodvMsg::decode(&[3, 0, 0, 0]), Err(DecodeError::EmptyRerr));
        assert_eq!(
            AodvMsg::decode(&[3, 0, 0, 2, 10, 0, 0, 1, 0, 0, 0, 1]),
            Err(DecodeError::Truncated)
        );
    }
}
