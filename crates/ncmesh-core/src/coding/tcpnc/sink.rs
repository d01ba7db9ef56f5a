//! A TCP/NC destination (Sundararajan et al. §IV-V): progressive elimination over the
//! coding window; every innovative combination makes exactly one more packet seen, and
//! the destination acknowledges it with the first packet not yet seen; decoded packets go
//! up to TCP in order, with the bytes the decoder recovered.
//!
//! The decoder forgets a packet only once it is handed up and no combination still to
//! come can span it: its base follows the first packet not handed up, but never passes
//! the newest window start received (combinations of an older window, overtaken on the
//! way, are then still usable).

use crate::coding::loss_estimate::{Counts, ReceiveCounts};
use crate::coding::rlnc::FieldCoeffs;
use crate::coding::rlnc::{Added, Decoder, StandIns};
use crate::coding::CodedSymbol;
use crate::net::{NodeId, Packet};

/// Decoder columns to start with (it grows with the window).
const INITIAL_WIDTH: usize = 64;

/// One flow's destination state.
#[derive(Debug)]
pub(crate) struct Sink<F: FieldCoeffs> {
    dec: Decoder<F>,
    /// The next packet to hand up.
    next_up: u64,
    /// Packets `next_up`, `next_up + 1`, ... as their source sent them, as far as a
    /// combination has spanned.
    natives: StandIns,
    /// The newest window start received.
    newest_start: u64,
    /// Alg. 1's receiver side: (s, t) per upstream node (the source, end to end).
    pub(crate) counts: ReceiveCounts,
    /// The window TCP's receiver last advertised.
    pub(crate) wnd: u32,
}

impl<F: FieldCoeffs> Sink<F> {
    /// A destination advertising `wnd` until its TCP says otherwise.
    pub(crate) fn new(wnd: u32) -> Sink<F> {
        Sink {
            dec: Decoder::new(0, INITIAL_WIDTH),
            next_up: 0,
            natives: StandIns::default(),
            newest_start: 0,
            counts: ReceiveCounts::default(),
            wnd,
        }
    }

    /// The first packet not seen: what the acknowledgements name.
    pub(crate) fn first_unseen(&self) -> u64 {
        self.dec.first_unseen()
    }

    /// Degrees of freedom held.
    #[cfg(test)]
    pub(crate) fn rank(&self) -> usize {
        self.dec.rank()
    }

    /// The window to advertise: what TCP's receiver advertises, less the bytes of the
    /// packets acknowledged as seen but not yet decoded and handed up. Like bytes a TCP
    /// receiver has acknowledged but its application has not read, they hold receive
    /// buffer: the sender cannot run further ahead of decoding than the buffer.
    pub(crate) fn window(&self) -> u32 {
        let backlog: u64 = self
            .natives
            .iter()
            .take(self.first_unseen().saturating_sub(self.next_up) as usize)
            .map(|p| p.tcp().map_or(0, |h| u64::from(h.len)))
            .sum();
        u64::from(self.wnd).saturating_sub(backlog) as u32
    }

    /// Counts to piggyback for the source `src`.
    pub(crate) fn report(&self, src: NodeId) -> Option<Counts> {
        self.counts.counts(src)
    }

    /// A combination `sym` over the window from `first`, with coefficients `coeffs`;
    /// decoded packets next in order go to `up`.
    pub(crate) fn receive(
        &mut self,
        sym: &CodedSymbol,
        first: u64,
        coeffs: &[F::Elem],
        up: &mut impl FnMut(Packet),
    ) -> Added {
        // Keep the stand-in of every packet newly spanned, unless the window starts
        // past every packet spanned so far: the source moved on an acknowledgement this
        // destination never sent. Not usable.
        if !self.natives.extend(first, &sym.natives) {
            return Added::Stale;
        }
        self.newest_start = self.newest_start.max(first);
        let added = self.dec.add(first, coeffs, sym.payload.as_deref());
        while self.dec.is_decoded(self.next_up) {
            let p = self
                .natives
                .pop_front()
                .expect("a decoded packet was spanned");
            // The decoder's bytes, never the stand-in's: a source that stopped coding
            // them cannot go unnoticed.
            let p = self.dec.native(self.next_up, p);
            up(p);
            self.next_up += 1;
        }
        self.dec.slide_to(self.next_up.min(self.newest_start));
        added
    }
}

#[cfg(test)]
mod tests {
    use super::super::source::Source;
    use super::*;
    use crate::coding::rlnc::{Gf256, Gf65536};
    use crate::coding::Span;
    use crate::engine::{Rng, StreamPurpose};
    use crate::net::L4;
    use crate::transport::tcp::TcpHeader;

    fn segment(i: u64) -> Packet {
        let len = 100 + (i % 7) as u32;
        Packet {
            uid: i + 1,
            flow: 0,
            src: 0,
            dst: 3,
            ttl: 32,
            ip_bytes: 40 + len,
            created: 0,
            l4: L4::Tcp(TcpHeader::data(i * 1000, len)),
            payload: Some((0..len).map(|b| (i as u32 * 37 + b * 11) as u8).collect()),
        }
    }

    fn parts<F: FieldCoeffs>(p: &Packet) -> (&CodedSymbol, u64, &[F::Elem]) {
        let L4::Coded(s) = &p.l4 else { panic!("coded") };
        let Span::Window { first, .. } = s.span else {
            panic!("window")
        };
        (s, first, F::view(&s.coeffs).expect("the field"))
    }

    /// Packets through a source at redundancy 1, with the combinations `lost` dropped on
    /// the way: each innovative combination sees exactly one new packet and the
    /// acknowledgement names the first unseen; the bytes come up intact and in order.
    fn seen_rule<F: FieldCoeffs>() {
        let mut rng = Rng::stream(7, 0, StreamPurpose::FlowCoding);
        let mut src = Source::<F>::new(0, 3, 1.0, None);
        let mut sink = Sink::<F>::new(65_536);
        let mut up = Vec::new();
        let lost = [2u64, 3, 7];
        let mut sent = Vec::new();
        for i in 0..12 {
            let mut out = Vec::new();
            src.push(segment(i), usize::MAX, &mut rng, &mut |c| out.push(c));
            sent.extend(out);
        }
        // Redundancy 1 over a growing window without acknowledgements: combination i
        // spans packets 0..=i.
        let mut seen = 0;
        for (i, c) in sent.iter().enumerate() {
            if lost.contains(&(i as u64)) {
                continue;
            }
            let (sym, first, coeffs) = parts::<F>(c);
            let before = sink.first_unseen();
            let rank = sink.rank();
            match sink.receive(sym, first, coeffs, &mut |p| up.push(p)) {
                Added::Innovative { seen: s } => {
                    assert_eq!(s, before, "the first unseen packet becomes seen");
                    assert_eq!(sink.first_unseen(), before + 1, "exactly one new");
                    assert_eq!(sink.rank(), rank + 1);
                    seen += 1;
                }
                other => panic!("combination {i}: {other:?}"),
            }
        }
        assert_eq!(seen, 12 - lost.len());
        assert_eq!(sink.first_unseen(), seen as u64);
        // Three packets short: nothing beyond the first loss decodes... until repair.
        assert!(up.len() < 3, "{} up", up.len());
        let mut out = Vec::new();
        src.redundancy = 3.0;
        src.push(segment(11), usize::MAX, &mut rng, &mut |c| out.push(c)); // a retransmission
        for c in &out {
            let (sym, first, coeffs) = parts::<F>(c);
            sink.receive(sym, first, coeffs, &mut |p| up.push(p));
        }
        assert_eq!(sink.first_unseen(), 12);
        let uids: Vec<u64> = up.iter().map(|p| p.uid).collect();
        assert_eq!(uids, (1..=12).collect::<Vec<_>>(), "all, in order");
        for (p, i) in up.iter().zip(0..) {
            assert_eq!(p.payload, segment(i).payload, "packet {i}'s bytes");
        }
        // A repeated combination is not innovative and sees nothing.
        let (sym, first, coeffs) = parts::<F>(&out[0]);
        assert_eq!(
            sink.receive(sym, first, coeffs, &mut |p| up.push(p)),
            Added::NotInnovative
        );
    }

    #[test]
    fn each_innovative_combination_sees_exactly_one_packet_and_the_ack_names_the_first_unseen() {
        seen_rule::<Gf256>();
        seen_rule::<Gf65536>();
    }

    #[test]
    fn the_window_slides_with_the_acknowledgements_and_decoding_follows() {
        let mut rng = Rng::stream(8, 0, StreamPurpose::FlowCoding);
        let mut src = Source::<Gf256>::new(0, 3, 1.0, None);
        let mut sink = Sink::<Gf256>::new(65_536);
        let mut up = Vec::new();
        for i in 0..200 {
            let mut out = Vec::new();
            src.push(segment(i), usize::MAX, &mut rng, &mut |c| out.push(c));
            for c in &out {
                let (sym, first, coeffs) = parts::<Gf256>(c);
                sink.receive(sym, first, coeffs, &mut |p| up.push(p));
            }
            // The acknowledgement reaches the source every other packet.
            if i % 2 == 1 {
                src.ack(sink.first_unseen());
            }
            assert!(src.window_len() <= 2);
        }
        assert_eq!(up.len(), 200);
        assert!(up
            .iter()
            .zip(0..)
            .all(|(p, i)| p.payload == segment(i).payload));
    }
}
