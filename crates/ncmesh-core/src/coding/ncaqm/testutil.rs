//! Test helpers: hand-built natives and neighbour knowledge.

use crate::coding::xor::entry::{Entry, Knowledge, Native};
use crate::coding::xor::queue::QueueCx;
use crate::engine::Rng;
use crate::net::{NodeId, Packet, L4};
use crate::wire::udp::UdpHeader;

/// A 1000-byte UDP native of `flow` (originated at `src`), `uid` also its sequence.
pub(crate) fn nat(uid: u64, flow: u32, src: NodeId, next_hop: NodeId, prev_hop: NodeId) -> Native {
    let pkt = Packet {
        uid,
        flow,
        src,
        dst: next_hop,
        ttl: 64,
        ip_bytes: 1000,
        created: 0,
        l4: L4::Udp(UdpHeader { seq: uid, len: 972 }),
        payload: None,
    };
    Native::new(pkt, next_hop, prev_hop, 0)
}

// Flows at a relay with four neighbours: a (10 -> 20), b (20 -> 10), c (30 -> 40),
// d (40 -> 30); packet `u` of each.
pub(crate) fn a(u: u64) -> Native {
    nat(u, 1, 10, 20, 10)
}
pub(crate) fn b(u: u64) -> Native {
    nat(u, 2, 20, 10, 20)
}
pub(crate) fn c(u: u64) -> Native {
    nat(u, 3, 30, 40, 30)
}
pub(crate) fn d(u: u64) -> Native {
    nat(u, 4, 40, 30, 40)
}

/// An entry coding `items` together.
pub(crate) fn code(items: &[Native]) -> Entry {
    Entry {
        items: items.iter().cloned().collect(),
    }
}

/// Knowledge given by a function of (neighbour, native).
pub(crate) struct FnKnowledge<F: Fn(NodeId, &Native) -> f64>(pub F);

impl<F: Fn(NodeId, &Native) -> f64> Knowledge for FnKnowledge<F> {
    fn prob_has(&self, nb: NodeId, p: &Native) -> f64 {
        (self.0)(nb, p)
    }
}

/// A neighbour holds exactly the packets it sent us (the Alice-and-Bob / X view).
pub(crate) fn prev_hop_knows() -> FnKnowledge<impl Fn(NodeId, &Native) -> f64> {
    FnKnowledge(|nb: NodeId, p: &Native| if p.prev_hop == nb { 1.0 } else { 0.0 })
}

/// A queue context: threshold 0.8, no code-length limit, Encode Once off.
pub(crate) fn cx<'a>(rng: &'a mut Rng, k: &'a dyn Knowledge, capacity: usize) -> QueueCx<'a> {
    QueueCx {
        now: 0,
        rng,
        capacity,
        threshold: 0.8,
        max_code: 0,
        encode_once: false,
        two_hop: false,
        knowledge: k,
    }
}

pub(crate) fn rng(seed: u64) -> Rng {
    Rng::stream(seed, 0, crate::engine::StreamPurpose::Scheme)
}
