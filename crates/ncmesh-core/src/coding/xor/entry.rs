//! What an XOR-coding output queue holds: native packets waiting for their next hop,
//! alone or (NCAQM, which codes at enqueue) XORed together in one queue slot.

use crate::engine::Time;
use crate::net::{NodeId, Packet};
use smallvec::SmallVec;

/// A flow as coding sees it: one direction of a transport flow (TCP data and the ACKs
/// going back are two flows), keyed by (flow id, source node).
pub type FlowKey = u64;

/// The coding flow of a packet.
pub fn flow_key(p: &Packet) -> FlowKey {
    ((p.flow as u64) << 32) | p.src as u64
}

/// Small (ACK-sized) and large packets are coded preferably within their class
/// (COPE §3.3: codes of similar-length packets waste less airtime on padding).
pub const SMALL_PACKET_BYTES: u32 = 100;

/// A native packet held by this node until its next hop has it.
#[derive(Debug, Clone, PartialEq)]
pub struct Native {
    /// The packet.
    pub pkt: Packet,
    /// The node it goes to next.
    pub next_hop: NodeId,
    /// The node this packet came from (this node, if it originated it).
    pub prev_hop: NodeId,
    /// Transmissions of this packet by this node so far (coded or native).
    pub sends: u8,
    /// Sent inside a coded frame at least once (Encode Once never codes it again).
    pub was_coded: bool,
    /// When it entered this node's queue.
    pub enqueued: Time,
    /// When its last coded frame left the MAC (its ack latency is measured from there).
    pub sent_at: Time,
    /// The hop after the next one (two-hop coding only; None at the last hop).
    pub then: Option<NodeId>,
    /// Non-zero: this node received the packet inside a two-hop code and holds only
    /// that XOR; it leaves with the other natives of the same group, never alone or
    /// with others (BFLY's second hop).
    pub bound: u64,
}

impl Native {
    /// Its coding flow.
    pub fn flow(&self) -> FlowKey {
        flow_key(&self.pkt)
    }
    /// Smaller than [`SMALL_PACKET_BYTES`] at the IP layer (an ACK, typically).
    pub fn is_small(&self) -> bool {
        self.pkt.ip_bytes < SMALL_PACKET_BYTES
    }

    /// A native that has just arrived (no sends yet, not bound).
    pub fn new(pkt: Packet, next_hop: NodeId, prev_hop: NodeId, now: Time) -> Native {
        Native {
            pkt,
            next_hop,
            prev_hop,
            sends: 0,
            was_coded: false,
            enqueued: now,
            sent_at: now,
            then: None,
            bound: 0,
        }
    }
}

/// A code whose natives all go to one next hop is a two-hop code (BFLY): the next hop
/// forwards it undecoded and the hops after it decode. Otherwise each next hop decodes.
pub fn is_two_hop(members: &[&Native]) -> bool {
    members.len() > 1 && members.iter().all(|m| m.next_hop == members[0].next_hop)
}

/// One slot of an output queue: one native packet, or several XORed together, each for
/// a different next hop and from a different flow.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The natives XORed in this slot (one: a native slot).
    pub items: SmallVec<[Native; 2]>,
}

impl Entry {
    /// A slot holding one native.
    pub fn native(n: Native) -> Entry {
        let mut items = SmallVec::new();
        items.push(n);
        Entry { items }
    }
    /// Holds more than one native.
    pub fn is_coded(&self) -> bool {
        self.items.len() > 1
    }
    /// Holds a native of flow `f`.
    pub fn has_flow(&self, f: FlowKey) -> bool {
        self.items.iter().any(|n| n.flow() == f)
    }
    /// Holds a native for next hop `h`.
    pub fn has_next_hop(&self, h: NodeId) -> bool {
        self.items.iter().any(|n| n.next_hop == h)
    }
}

/// What the coding node believes about its neighbours: the probability that neighbour
/// `nb` already holds `p` (COPE §3.4: reception reports, else a guess from the delivery
/// probability of the link from the packet's previous hop).
pub trait Knowledge {
    /// Probability that neighbour `nb` holds `p`.
    fn prob_has(&self, nb: NodeId, p: &Native) -> f64;
    /// Is it known, not guessed, that `nb` does not hold `p` (no report of it, and
    /// either `nb`'s reports were complete after `p` went by or its pool forgot `p`)?
    fn knows_missing(&self, _nb: NodeId, _p: &Native) -> bool {
        false
    }
}

/// Can every decoder of `members` decode their XOR with probability >= `threshold`?
/// The decoder of member i (its next hop, or for a two-hop code the hop after) must
/// hold every other member (COPE §3.3, threshold G; BFLY's butterfly condition).
pub fn decodable<K: Knowledge + ?Sized>(members: &[&Native], k: &K, threshold: f64) -> bool {
    let two_hop = is_two_hop(members);
    for (i, m) in members.iter().enumerate() {
        let decoder = if two_hop {
            match m.then {
                Some(d) => d,
                None => return false,
            }
        } else {
            m.next_hop
        };
        let mut p = 1.0;
        for (j, o) in members.iter().enumerate() {
            if i != j {
                p *= k.prob_has(decoder, o);
                if p < threshold {
                    return false;
                }
            }
        }
    }
    true
}

/// May `n` join the code `members`? A new flow; none of them bound to another code;
/// then either a one-hop code (every next hop different) or, with `two_hop`, a
/// two-hop code (one next hop, every hop after it different); and every decoder still
/// decodes with probability >= threshold.
pub fn can_join<K: Knowledge + ?Sized>(
    members: &[&Native],
    n: &Native,
    k: &K,
    threshold: f64,
    two_hop: bool,
) -> bool {
    if n.bound != 0 || members.iter().any(|m| m.bound != 0 || m.flow() == n.flow()) {
        return false;
    }
    let same_hop = members.iter().all(|m| m.next_hop == n.next_hop);
    if same_hop {
        // Only a two-hop code may send several natives to one next hop.
        let distinct_then = n.then.is_some_and(|t| {
            members
                .iter()
                .all(|m| m.then.is_some_and(|mt| mt != t && mt != m.next_hop))
                && t != n.next_hop
        });
        if !two_hop || !distinct_then {
            return false;
        }
    } else if members.iter().any(|m| m.next_hop == n.next_hop) || is_two_hop(members) {
        return false;
    }
    let mut all: SmallVec<[&Native; 8]> = members.iter().copied().collect();
    all.push(n);
    decodable(&all, k, threshold)
}
