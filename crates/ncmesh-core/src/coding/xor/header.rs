//! The coding header every XOR-scheme frame carries (COPE §4 and Fig. 6): the ids and
//! next hops of the natives XORed in the frame, reception reports, and asynchronous
//! acknowledgements. Field sizes follow COPE's header layout; they only set the frame
//! length (the simulator carries the fields as data).

use crate::coding::WireHeader;
use crate::engine::Time;
use crate::net::NodeId;
use smallvec::SmallVec;

/// COPE header sizes, bytes (COPE Fig. 6).
const COUNT_BYTES: u32 = 1;
const CODED_ENTRY_BYTES: u32 = 4 + 6; // packet id + MAC next hop
const NODE_BYTES: u32 = 6; // a MAC address (two-hop decoder)
const REPORT_ENTRY_BYTES: u32 = 4 + 4 + 1; // source IP + last packet + 8-bit map
const ACK_FIXED_BYTES: u32 = 2; // local packet sequence number
const ACK_ENTRY_BYTES: u32 = 6 + 2 + 1; // neighbour + last ack + 8-bit map
/// Fixed part of the header's block in packet captures (docs/pcap.md): five u16 counts,
/// a flag byte, a pad byte and a u64 time.
pub const BLOCK_FIXED_BYTES: usize = 20;
/// Packets one report or ack entry covers (last id + an 8-bit map of the ones before).
const IDS_PER_ENTRY: usize = 9;

/// The XOR family's header (COPE §4, Fig. 6): which natives a frame carries and for
/// whom, plus the reception reports and acks it piggybacks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct XorHeader {
    /// Next hop of each native in the frame, in the order of `Body::packets`.
    pub next_hops: SmallVec<[NodeId; 4]>,
    /// Two-hop code (BFLY): the node that decodes each native (the hop after the next
    /// one); empty for one-hop codes.
    pub decoders: SmallVec<[NodeId; 4]>,
    /// Natives in the frame only because the XOR the sender holds contains them (a
    /// forwarded two-hop code resent after one of its natives was acknowledged); the
    /// sender does not hold them as packets.
    pub padding: SmallVec<[u64; 2]>,
    /// Reception reports: (source node, uid) of packets the sender heard.
    pub reports: Vec<(NodeId, u64)>,
    /// Acknowledgements: (neighbour the ack is for, uid it decoded).
    pub acks: Vec<(NodeId, u64)>,
    /// Set when `reports` lists every packet the sender overheard up to this time (it
    /// stands for the report sequence numbers of a real header): a packet heard
    /// before it and not reported was not heard.
    pub reports_complete_at: Option<Time>,
}

impl XorHeader {
    /// More than one native XORed in the frame.
    pub fn is_coded(&self) -> bool {
        self.next_hops.len() > 1
    }

    /// A two-hop code (BFLY): the next hop forwards it undecoded.
    pub fn is_two_hop(&self) -> bool {
        !self.decoders.is_empty()
    }

    /// Header length on the air, bytes.
    pub fn bytes(&self) -> u32 {
        let coded = if self.is_coded() {
            self.next_hops.len() as u32 * CODED_ENTRY_BYTES
        } else {
            0
        };
        COUNT_BYTES
            + coded
            + self.decoders.len() as u32 * NODE_BYTES
            + COUNT_BYTES
            + entries(&self.reports) * REPORT_ENTRY_BYTES
            + COUNT_BYTES
            + ACK_FIXED_BYTES
            + entries(&self.acks) * ACK_ENTRY_BYTES
    }
}

impl WireHeader for XorHeader {
    fn bytes(&self) -> u32 {
        XorHeader::bytes(self)
    }

    /// 1 for a coded frame, 0 for a native one or a control frame.
    fn pcap_tag(&self) -> u64 {
        u64::from(self.is_coded())
    }

    fn pcap_len(&self) -> usize {
        block_len(self)
    }

    fn write_pcap(&self, out: &mut Vec<u8>) {
        write_block(self, out)
    }
}

/// Entries of each list in the XOR block (u16 counts on the wire).
fn xor_counts(h: &XorHeader) -> [usize; 5] {
    [
        h.next_hops.len(),
        h.decoders.len(),
        h.padding.len(),
        h.reports.len(),
        h.acks.len(),
    ]
    .map(|n| n.min(u16::MAX as usize))
}

/// Bytes of the XOR-coding block (flags bit 1; docs/pcap.md).
fn block_len(h: &XorHeader) -> usize {
    let [nh, dec, pad, rep, ack] = xor_counts(h);
    BLOCK_FIXED_BYTES + 4 * nh + 4 * dec + 8 * pad + 12 * rep + 12 * ack
}

fn write_block(h: &XorHeader, out: &mut Vec<u8>) {
    let [nh, dec, pad, rep, ack] = xor_counts(h);
    for n in [nh, dec, pad, rep, ack] {
        out.extend_from_slice(&(n as u16).to_be_bytes());
    }
    out.push(u8::from(h.reports_complete_at.is_some()));
    out.push(0);
    out.extend_from_slice(&h.reports_complete_at.unwrap_or(0).to_be_bytes());
    for &n in &h.next_hops[..nh] {
        out.extend_from_slice(&n.to_be_bytes());
    }
    for &n in &h.decoders[..dec] {
        out.extend_from_slice(&n.to_be_bytes());
    }
    for &u in &h.padding[..pad] {
        out.extend_from_slice(&u.to_be_bytes());
    }
    for &(n, u) in h.reports[..rep].iter().chain(&h.acks[..ack]) {
        out.extend_from_slice(&n.to_be_bytes());
        out.extend_from_slice(&u.to_be_bytes());
    }
}

/// Entries needed for (group, id) pairs: per group, one entry per 9 ids.
fn entries(items: &[(NodeId, u64)]) -> u32 {
    let mut groups: SmallVec<[(NodeId, usize); 8]> = SmallVec::new();
    for &(g, _) in items {
        match groups.iter_mut().find(|(k, _)| *k == g) {
            Some((_, n)) => *n += 1,
            None => groups.push((g, 1)),
        }
    }
    groups
        .iter()
        .map(|(_, n)| n.div_ceil(IDS_PER_ENTRY) as u32)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_size_follows_cope_layout() {
        let mut h = XorHeader::default();
        assert_eq!(h.bytes(), 1 + 1 + 1 + 2);
        h.next_hops.extend([1, 2, 3]);
        assert_eq!(h.bytes(), 5 + 30);
        h.reports = (0..10).map(|u| (4, u)).collect(); // 10 ids of one source: 2 entries
        h.acks = vec![(1, 5), (2, 6)];
        assert_eq!(h.bytes(), 5 + 30 + 18 + 18);
    }
}
