//! IP forwarding at one node: local delivery, TTL, route lookup.

use super::drop::DropReason;
use super::routing::{NextHops, Routes};
use crate::wire::{NodeId, Packet};

/// What the network layer of a node does with a packet.
#[derive(Debug, Clone, PartialEq)]
pub enum Forward {
    /// The packet is for this node: up to the transport.
    Deliver,
    /// Hand it to the coding layer with these candidate next hops (cheapest first; the
    /// simulator rotates them under `routing.spread = "round-robin"`).
    Send(NextHops),
    /// It leaves the network here.
    Drop(DropReason),
}

/// Decides the fate of `p` at node `at`: delivered if addressed to `at`; otherwise its
/// TTL is decremented unless `at` originated it (RFC 791 §3.2, RFC 1812 §5.3.1), and it
/// is dropped at zero; otherwise it goes to the candidate next hops, or is dropped when
/// there is none.
pub fn forward(p: &mut Packet, at: NodeId, routes: &Routes) -> Forward {
    if p.dst == at {
        return Forward::Deliver;
    }
    if p.src != at {
        p.ttl = p.ttl.saturating_sub(1);
        if p.ttl == 0 {
            return Forward::Drop(DropReason::Ttl);
        }
    }
    let hops = routes.next_hops(at, p.dst, p.flow);
    if hops.is_empty() {
        Forward::Drop(DropReason::NoRoute)
    } else {
        Forward::Send(hops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::graph::Edge;
    use crate::net::L4;
    use crate::wire::udp::UdpHeader;

    fn chain3() -> Routes {
        let e = |to| Edge {
            to,
            cost: 1.0,
            etx: 1.0,
            delivery: 1.0,
        };
        Routes::new(vec![vec![e(1)], vec![e(0), e(2)], vec![e(1)]], &[0, 2], 1)
    }

    fn packet(src: NodeId, dst: NodeId, ttl: u32) -> Packet {
        Packet {
            uid: 1,
            flow: 0,
            src,
            dst,
            ttl,
            ip_bytes: 100,
            created: 0,
            l4: L4::Udp(UdpHeader { seq: 0, len: 72 }),
            payload: None,
        }
    }

    #[test]
    fn delivers_forwards_and_drops() {
        let r = chain3();
        let mut p = packet(0, 2, 64);
        assert_eq!(forward(&mut p, 2, &r), Forward::Deliver);
        match forward(&mut p, 0, &r) {
            Forward::Send(h) => assert_eq!(h[0].node, 1),
            f => panic!("{f:?}"),
        }
        assert_eq!(p.ttl, 64, "the source does not decrement");
        let mut p = packet(0, 2, 2);
        assert!(matches!(forward(&mut p, 1, &r), Forward::Send(_)));
        assert_eq!(p.ttl, 1);
        let mut p = packet(0, 2, 1);
        assert_eq!(forward(&mut p, 1, &r), Forward::Drop(DropReason::Ttl));
        let mut p = packet(2, 1, 64);
        assert_eq!(
            forward(&mut p, 2, &r),
            Forward::Drop(DropReason::NoRoute),
            "no table towards node 1"
        );
    }
}
