//! What an XOR-coding output queue holds: native packets waiting for their next hop,
//! alone or (NCAQM, which codes at enqueue) XORed together in one queue slot.

use crate::engine::Time;
use crate::net::{NodeId, Packet};
use smallvec::SmallVec;

/// A flow as coding sees it: one direction of a transport flow (TCP data and the ACKs
/// going back are two flows), keyed by (flow id, source node).
pub type FlowKey = u64;

pub fn flow_key(p: &Packet) -> FlowKey {
    ((p.flow as u64) << 32) | p.src as u64
}

/// Small (ACK-sized) and large packets are coded preferably within their class
/// (COPE §3.3: codes of similar-length packets waste less airtime on padding).
pub const SMALL_PACKET_BYTES: u32 = 100;

/// A native packet held by this node until its next hop has it.
#[derive(Debug, Clone, PartialEq)]
pub struct Native {
    pub pkt: Packet,
    pub next_hop: NodeId,
    /// The node this packet came from (this node, if it originated it).
    pub prev_hop: NodeId,
    /// Transmissions of this packet by this node so far (coded or native).
    pub sends: u8,
    /// Sent inside a coded frame at least once (Encode Once never codes it again).
    pub was_coded: bool,
    /// When it entered this node's queue.
    pub enqueued: Time,
}

impl Native {
    pub fn flow(&self) -> FlowKey {
        flow_key(&self.pkt)
    }
    pub fn is_small(&self) -> bool {
        self.pkt.ip_bytes < SMALL_PACKET_BYTES
    }
}

/// One slot of an output queue: one native packet, or several XORed together, each for
/// a different next hop and from a different flow.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub items: SmallVec<[Native; 2]>,
}

impl Entry {
    pub fn native(n: Native) -> Entry {
        let mut items = SmallVec::new();
        items.push(n);
        Entry { items }
    }
    pub fn is_coded(&self) -> bool {
        self.items.len() > 1
    }
    pub fn has_flow(&self, f: FlowKey) -> bool {
        self.items.iter().any(|n| n.flow() == f)
    }
    pub fn has_next_hop(&self, h: NodeId) -> bool {
        self.items.iter().any(|n| n.next_hop == h)
    }
}

/// What the coding node believes about its neighbours: the probability that neighbour
/// `nb` already holds `p` (COPE §3.4: reception reports, else a guess from the delivery
/// probability of the link from the packet's previous hop).
pub trait Knowledge {
    fn prob_has(&self, nb: NodeId, p: &Native) -> f64;
}

/// Can every next hop of `members` decode their XOR with probability >= `threshold`?
/// Next hop of member i must hold every other member (COPE §3.3, threshold G).
pub fn decodable<K: Knowledge + ?Sized>(members: &[&Native], k: &K, threshold: f64) -> bool {
    for (i, m) in members.iter().enumerate() {
        let mut p = 1.0;
        for (j, o) in members.iter().enumerate() {
            if i != j {
                p *= k.prob_has(m.next_hop, o);
                if p < threshold {
                    return false;
                }
            }
        }
    }
    true
}

/// May `n` join the code `members`: a new next hop, a new flow, and every next hop
/// (old and new) still decodes with probability >= threshold.
pub fn can_join<K: Knowledge + ?Sized>(
    members: &[&Native],
    n: &Native,
    k: &K,
    threshold: f64,
) -> bool {
    if members
        .iter()
        .any(|m| m.next_hop == n.next_hop || m.flow() == n.flow())
    {
        return false;
    }
    let mut all: SmallVec<[&Native; 8]> = members.iter().copied().collect();
    all.push(n);
    decodable(&all, k, threshold)
}
