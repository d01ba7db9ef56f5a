//! A flow direction's destination: progressive decoding (Chen et al. Eq. 2: a packet is
//! handed up as soon as the triangle gives it), in order; a packet that cannot be decoded
//! while a later one is ready is given up after `give_up` (Chen et al.: partial recovery of
//! a generation; the transport above repairs what was given up).

use super::generations::{Generation, Generations, Slot};
use crate::coding::rlnc::Added;
use crate::net::Packet;

/// Packet `pos` of a generation as decoded: the source's packet, with the decoder's bytes
/// when payloads are carried (never the stand-in's own).
fn decoded(g: &Generation, pos: usize) -> Packet {
    g.dec.native(pos as u64, g.natives[pos].clone())
}

/// What a combination did at the destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Received {
    /// Innovative (it may have decoded packets).
    Innovative,
    /// In the span of what the destination holds.
    NotInnovative,
    /// For a generation already delivered or given up.
    Late,
}

/// One flow direction's destination state.
#[derive(Debug, Default)]
pub(super) struct Sink {
    /// Hand packets up as soon as they decode, in any order: for a direction of pure
    /// TCP ACKs, which are cumulative (a later one says all an earlier one says), so
    /// holding one back for an undecoded earlier one only delays the sender.
    pub(super) unordered: bool,
    gens: Generations,
    /// The next packet to hand up: (generation, position).
    next: (u32, usize),
    evicted: Vec<Generation>,
}

impl Sink {
    /// A combination for this direction; decoded packets that are next in order go to
    /// `up` (with their decoded bytes when payloads are carried).
    pub(super) fn receive(
        &mut self,
        p: &Packet,
        k: usize,
        kept: usize,
        up: &mut impl FnMut(Packet),
    ) -> (Received, u64) {
        let (sym, id, c) = super::generation_of(p).expect("a Pipeline combination");
        if id < self.next.0 {
            return (Received::Late, 0);
        }
        let i = match self.gens.slot(sym, id, k, kept, &mut self.evicted) {
            Slot::At(i) => i,
            Slot::TooOld => return (Received::Late, 0),
        };
        let added = self.gens.add(i, c, sym.payload.as_deref(), &sym.natives);
        let mut given_up = 0;
        if !self.evicted.is_empty() && !self.unordered {
            // Generations pushed out before they were delivered: give up what is left.
            let oldest = self.gens.oldest().expect("one kept");
            if self.next.0 < oldest {
                given_up += self.skip_to((oldest, 0), k);
            }
        }
        self.evicted.clear();
        if self.unordered {
            let g = self.gens.get(i);
            for &pos in g.dec.newly_decoded() {
                up(decoded(g, pos as usize));
            }
        } else {
            self.deliver(k, up);
        }
        let r = match added {
            Added::Innovative { .. } => Received::Innovative,
            _ => Received::NotInnovative,
        };
        (r, given_up)
    }

    /// Has it received nothing yet?
    pub(super) fn is_new(&self) -> bool {
        self.gens.oldest().is_none() && self.next == (0, 0)
    }

    /// Hands up every decoded packet next in order, and moves past the end of a
    /// generation its source closed early (the next generation's header says where).
    fn deliver(&mut self, k: usize, up: &mut impl FnMut(Packet)) {
        loop {
            let (gen, pos) = self.next;
            let ended = self
                .gens
                .find(gen + 1)
                .is_some_and(|n| n.prev_len > 0 && pos >= n.prev_len);
            if ended {
                self.next = (gen + 1, 0);
                self.gens.drop_before(gen + 1);
                continue;
            }
            let Some(g) = self.gens.find(gen) else { return };
            if !g.dec.is_decoded(pos as u64) {
                return;
            }
            up(decoded(g, pos));
            self.advance(k);
        }
    }

    fn advance(&mut self, k: usize) {
        self.next.1 += 1;
        if self.next.1 == k {
            self.next = (self.next.0 + 1, 0);
            self.gens.drop_before(self.next.0);
        }
    }

    /// Moves the cursor to `to`, counting the packets passed over: every position of a
    /// generation up to its length, which the next generation's header gives (a source
    /// may close one early); without that header, k. A tail no received combination
    /// spanned counts too: its packets were sent, and are lost to the transport above.
    fn skip_to(&mut self, to: (u32, usize), k: usize) -> u64 {
        let mut n = 0;
        while self.next < to {
            let (g, pos) = self.next;
            let len = self
                .gens
                .find(g + 1)
                .map(|x| x.prev_len)
                .filter(|&l| l > 0)
                .unwrap_or(k);
            n += u64::from(pos < len);
            self.advance(k);
        }
        n
    }

    /// Is a decoded packet waiting behind an undecoded one?
    pub(super) fn blocked(&self) -> bool {
        !self.unordered && self.first_ready_after().is_some()
    }

    /// The first decoded packet after the cursor.
    fn first_ready_after(&self) -> Option<(u32, usize)> {
        for g in self.gens.iter().filter(|g| g.id >= self.next.0) {
            let from = if g.id == self.next.0 { self.next.1 } else { 0 };
            let w = g.natives.len();
            if let Some(pos) = (from..w).find(|&j| g.dec.is_decoded(j as u64)) {
                return Some((g.id, pos));
            }
        }
        None
    }

    /// The give-up time has passed: skip to the next decoded packet and hand up what
    /// follows in order. Returns the packets given up.
    pub(super) fn give_up(&mut self, k: usize, up: &mut impl FnMut(Packet)) -> u64 {
        let Some(to) = self.first_ready_after() else {
            return 0;
        };
        let n = self.skip_to(to, k);
        self.deliver(k, up);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::super::header::PipelineHeader;
    use super::super::source::coded_packet;
    use super::*;
    use crate::coding::rlnc::{combine, random_coeffs, Gf256};
    use crate::coding::Header;
    use crate::engine::{Rng, StreamPurpose};
    use crate::net::L4;
    use crate::wire::tcp::TcpHeader;
    use std::sync::Arc;

    const K: usize = 4;

    fn segment(i: u64, len: u32) -> Packet {
        Packet {
            uid: i,
            flow: 0,
            src: 0,
            dst: 3,
            ttl: 32,
            ip_bytes: 40 + len,
            created: 0,
            l4: L4::Tcp(TcpHeader::data(i * 1000, len)),
            payload: Some((0..len).map(|b| (i as u32 * 31 + b) as u8).collect()),
        }
    }

    fn header(prev_len: u16) -> Header {
        Arc::new(PipelineHeader {
            prev_len,
            feedback: None,
        })
    }

    /// The pipeline combination of generation `gen` over its first `m` packets.
    fn combo(rng: &mut Rng, gen: u32, natives: &Arc<[Packet]>, m: usize, h: &Header) -> Packet {
        let mut c = Vec::new();
        random_coeffs::<Gf256>(rng, m, &mut c);
        let views: Vec<&[u8]> = natives[..m]
            .iter()
            .map(|p| p.payload.as_deref().unwrap())
            .collect();
        let mut bytes = Vec::new();
        combine::<Gf256>(&c, &views, &mut bytes);
        coded_packet(0, gen, natives, &c, Some(bytes.into()), h)
    }

    fn generation(first: u64, n: usize) -> Arc<[Packet]> {
        (0..n as u64)
            .map(|i| segment(first + i, 100 + i as u32))
            .collect::<Vec<_>>()
            .into()
    }

    fn receive(s: &mut Sink, p: &Packet, got: &mut Vec<Packet>) -> (Received, u64) {
        s.receive(p, K, 4, &mut |n| got.push(n))
    }

    #[test]
    fn packets_go_up_in_order_with_their_bytes_even_when_combinations_cross() {
        let mut rng = Rng::stream(1, 0, StreamPurpose::FlowCoding);
        let g0 = generation(0, K);
        let h = header(0);
        let (c1, c2) = (
            combo(&mut rng, 0, &g0, 1, &h),
            combo(&mut rng, 0, &g0, 2, &h),
        );
        let mut s = Sink::default();
        let mut got = Vec::new();
        // c2 first: two unknowns, one equation, nothing goes up.
        assert_eq!(receive(&mut s, &c2, &mut got).0, Received::Innovative);
        assert!(got.is_empty());
        receive(&mut s, &c1, &mut got);
        let uids: Vec<u64> = got.iter().map(|p| p.uid).collect();
        assert_eq!(uids, vec![0, 1]);
        assert_eq!(got[1].payload, g0[1].payload, "the decoded bytes");
        assert_eq!(receive(&mut s, &c1, &mut got).0, Received::NotInnovative);
        assert!(!s.blocked());
    }

    #[test]
    fn an_undecodable_packet_is_given_up_when_a_later_one_waits() {
        let mut rng = Rng::stream(2, 0, StreamPurpose::FlowCoding);
        let (g0, g1) = (generation(0, K), generation(K as u64, K));
        let (h0, h1) = (header(0), header(K as u16));
        let mut s = Sink::default();
        let mut got = Vec::new();
        // Generation 0: c1, c2 arrive, c3 is lost, c4 arrives (rank 3 of 4 unknowns).
        for m in [1, 2, 4] {
            receive(&mut s, &combo(&mut rng, 0, &g0, m, &h0), &mut got);
        }
        assert_eq!(got.len(), 2);
        assert!(!s.blocked(), "nothing decoded behind the hole yet");
        // Generation 1 begins and decodes its first packet: the hole now holds it up.
        receive(&mut s, &combo(&mut rng, 1, &g1, 1, &h1), &mut got);
        assert_eq!(got.len(), 2);
        assert!(s.blocked());
        let given_up = s.give_up(K, &mut |n| got.push(n));
        assert_eq!(given_up, 2, "p2 and p3 of generation 0");
        let uids: Vec<u64> = got.iter().map(|p| p.uid).collect();
        assert_eq!(uids, vec![0, 1, 4]);
        // A late combination of generation 0 is late.
        assert_eq!(
            receive(&mut s, &combo(&mut rng, 0, &g0, 4, &h0), &mut got).0,
            Received::Late
        );
    }

    /// Packets 2 and 3 of generation 0 were in no combination that arrived (the tail's
    /// combinations were all lost): given up all the same, with the hole they leave.
    #[test]
    fn a_tail_no_combination_spanned_is_given_up_too() {
        let mut rng = Rng::stream(5, 0, StreamPurpose::FlowCoding);
        let (g0, g1) = (generation(0, K), generation(K as u64, K));
        let mut s = Sink::default();
        let mut got = Vec::new();
        for m in [1, 2] {
            receive(&mut s, &combo(&mut rng, 0, &g0, m, &header(0)), &mut got);
        }
        assert_eq!(got.len(), 2, "p0 and p1 decode");
        receive(
            &mut s,
            &combo(&mut rng, 1, &g1, 1, &header(K as u16)),
            &mut got,
        );
        assert!(s.blocked());
        assert_eq!(
            s.give_up(K, &mut |n| got.push(n)),
            2,
            "p2 and p3, never spanned"
        );
        // A whole generation lost in between counts its k packets.
        let g3 = generation(3 * K as u64, K);
        receive(
            &mut s,
            &combo(&mut rng, 3, &g3, 1, &header(K as u16)),
            &mut got,
        );
        assert_eq!(
            s.give_up(K, &mut |n| got.push(n)),
            (K - 1 + K) as u64,
            "p5-p7 and generation 2"
        );
    }

    #[test]
    fn a_generation_closed_early_ends_where_the_next_header_says() {
        let mut rng = Rng::stream(3, 0, StreamPurpose::FlowCoding);
        let (g0, g1) = (generation(0, 2), generation(2, K));
        let mut s = Sink::default();
        let mut got = Vec::new();
        for m in [1, 2] {
            receive(&mut s, &combo(&mut rng, 0, &g0, m, &header(0)), &mut got);
        }
        // The source closed generation 0 after 2 packets; generation 1 says so.
        receive(&mut s, &combo(&mut rng, 1, &g1, 1, &header(2)), &mut got);
        let uids: Vec<u64> = got.iter().map(|p| p.uid).collect();
        assert_eq!(
            uids,
            vec![0, 1, 2],
            "no wait for packets that never existed"
        );
        assert!(!s.blocked());
    }

    #[test]
    fn an_unordered_sink_hands_packets_up_as_they_decode() {
        let mut rng = Rng::stream(4, 0, StreamPurpose::FlowCoding);
        let (g0, g1) = (generation(0, K), generation(K as u64, K));
        let mut s = Sink {
            unordered: true,
            ..Sink::default()
        };
        let mut got = Vec::new();
        receive(&mut s, &combo(&mut rng, 0, &g0, 2, &header(0)), &mut got); // undecodable
        receive(
            &mut s,
            &combo(&mut rng, 1, &g1, 1, &header(K as u16)),
            &mut got,
        );
        let uids: Vec<u64> = got.iter().map(|p| p.uid).collect();
        assert_eq!(uids, vec![4]);
        assert!(!s.blocked());
    }
}
