//! A TCP/NC source (Sundararajan et al. §V-A): the coding buffer holds every packet from
//! TCP that the destination has not acknowledged as seen; each packet from TCP adds R to
//! NUM and sends ⌊NUM⌋ random combinations of the whole buffer, keeping the fraction; an
//! acknowledgement drops the packets before the first unseen one and becomes a TCP ACK
//! for the sender above.
//!
//! A packet from TCP whose bytes the buffer already holds (a TCP retransmission) is not
//! added again, but still adds R to NUM, as in the paper's rule and the ns-2 agent: a
//! retransmission after a timeout is what sends new combinations when the destination
//! is short of degrees of freedom.

use super::header::{TcpNcHeader, ID_BYTES, WINDOW_LEN_BYTES, WINDOW_START_BYTES};
use crate::coding::loss_estimate::LossEstimate;
use crate::coding::rlnc::FieldCoeffs;
use crate::coding::rlnc::{combine_packets, random_coeffs};
use crate::coding::{CodedSymbol, Span};
use crate::engine::Rng;
use crate::net::{NodeId, Packet};
use std::collections::VecDeque;
use std::sync::Arc;

/// What one packet from TCP did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Pushed {
    /// Combinations sent.
    pub(crate) sent: u64,
    /// It was a retransmission (its bytes were in the buffer already, or acknowledged).
    pub(crate) retransmission: bool,
}

/// One flow's source state.
#[derive(Debug)]
pub(crate) struct Source<F: FieldCoeffs> {
    /// This node (the flow's source).
    pub(crate) node: NodeId,
    /// The flow's destination.
    pub(crate) dst: NodeId,
    /// Index of the buffer's first packet in the flow's coded stream.
    base: u64,
    /// The coding buffer (the coding window), oldest first.
    window: VecDeque<Packet>,
    /// The buffer as the combinations share it (rebuilt when it changes).
    shared: Option<Arc<[Packet]>>,
    /// TCP sequence number just past the newest packet buffered (None before the first).
    next_seq: Option<u64>,
    /// NUM: combinations owed, fractional.
    num: f64,
    /// The next combination's id.
    next_id: u64,
    /// The redundancy R now.
    pub(crate) redundancy: f64,
    /// Alg. 1 towards the destination (adaptive redundancy).
    pub(crate) estimate: Option<LossEstimate>,
    coeffs: Vec<F::Elem>,
    buf: Vec<u8>,
}

impl<F: FieldCoeffs> Source<F> {
    /// A source at `node` for a flow to `dst`, starting with redundancy `r`; `estimate`
    /// with adaptive redundancy.
    pub(crate) fn new(
        node: NodeId,
        dst: NodeId,
        r: f64,
        estimate: Option<LossEstimate>,
    ) -> Source<F> {
        Source {
            node,
            dst,
            base: 0,
            window: VecDeque::new(),
            shared: None,
            next_seq: None,
            num: 0.0,
            next_id: 0,
            redundancy: r,
            estimate,
            coeffs: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// Packets in the coding window.
    #[cfg(test)]
    pub(crate) fn window_len(&self) -> usize {
        self.window.len()
    }

    /// Index of the window's first packet.
    #[cfg(test)]
    pub(crate) fn base(&self) -> u64 {
        self.base
    }

    /// A data segment `p` from TCP into the coding buffer, unless its bytes are there
    /// already (a TCP retransmission: returns true).
    pub(crate) fn buffer(&mut self, p: Packet) -> bool {
        let h = p.tcp().copied().expect("a TCP segment");
        let retransmission = self.next_seq.is_some_and(|n| h.seq < n);
        // TCP resends with its original segment boundaries (one MSS per segment).
        debug_assert!(!retransmission || self.next_seq.is_some_and(|n| h.end_seq() <= n));
        if !retransmission {
            self.next_seq = Some(h.end_seq());
            self.window.push_back(p);
            self.shared = None;
        }
        retransmission
    }

    /// A data segment `p` from TCP: buffered if new; NUM += R and ⌊NUM⌋ combinations of
    /// the window go to `send`, at most `room` of them (the rest stay owed: `emit`).
    pub(crate) fn push(
        &mut self,
        p: Packet,
        room: usize,
        rng: &mut Rng,
        send: &mut impl FnMut(Packet),
    ) -> Pushed {
        let retransmission = self.buffer(p);
        self.num += self.redundancy;
        let sent = self.emit(room, rng, send);
        Pushed {
            sent,
            retransmission,
        }
    }

    /// Sends the whole combinations owed (⌊NUM⌋), at most `room`; returns how many went.
    /// Nothing to combine (every packet acknowledged): no debt is carried over.
    pub(crate) fn emit(
        &mut self,
        room: usize,
        rng: &mut Rng,
        send: &mut impl FnMut(Packet),
    ) -> u64 {
        let mut sent = 0;
        while self.num >= 1.0 && sent < room as u64 && !self.window.is_empty() {
            self.num -= 1.0;
            send(self.combination(rng).expect("a packet buffered"));
            sent += 1;
        }
        if self.window.is_empty() {
            self.num = self.num.fract();
        }
        sent
    }

    /// Whole combinations owed and not yet sent (waiting for room in the queue).
    pub(crate) fn owed(&self) -> u64 {
        if self.window.is_empty() {
            0
        } else {
            self.num.max(0.0) as u64
        }
    }

    /// The destination's advertised window `wnd` leaves TCP no room for another
    /// segment beyond the window's bytes: TCP will send nothing until the destination
    /// decodes, so the layer owes NUM += R combinations itself (called once per
    /// acknowledgement that moves the window; `emit` sends them). Returns whether it did.
    pub(crate) fn repair_if_blocked(&mut self, wnd: u32) -> bool {
        if !self.blocked(wnd) {
            return false;
        }
        self.num += self.redundancy;
        true
    }

    /// Does the destination's advertised window `wnd` leave TCP no room for another
    /// segment beyond the bytes in the buffer (packets not yet seen)? Then TCP sends
    /// nothing until the destination decodes.
    pub(crate) fn blocked(&self, wnd: u32) -> bool {
        let (bytes, largest) = self
            .window
            .iter()
            .filter_map(|p| p.tcp())
            .fold((0u64, 0u64), |(b, m), h| {
                (b + u64::from(h.len), m.max(u64::from(h.len)))
            });
        !self.window.is_empty() && bytes + largest > u64::from(wnd)
    }

    /// Is the coding buffer empty (every packet acknowledged as seen)?
    pub(crate) fn is_empty(&self) -> bool {
        self.window.is_empty()
    }

    /// A random combination of the whole window (None: the window is empty).
    pub(crate) fn combination(&mut self, rng: &mut Rng) -> Option<Packet> {
        if self.window.is_empty() {
            return None;
        }
        let natives = self
            .shared
            .get_or_insert_with(|| self.window.iter().cloned().collect())
            .clone();
        let m = natives.len();
        random_coeffs::<F>(rng, m, &mut self.coeffs);
        let payload = combine_packets::<F>(&self.coeffs, &natives, &mut self.buf);
        let with_id = self.estimate.is_some();
        let id = self.next_id;
        self.next_id += 1;
        let coeffs = F::wrap(&self.coeffs);
        let header_bytes = WINDOW_START_BYTES
            + WINDOW_LEN_BYTES
            + if with_id { ID_BYTES } else { 0 }
            + coeffs.bytes();
        let symbol = CodedSymbol {
            span: Span::Window {
                first: self.base,
                len: m.min(u16::MAX as usize) as u16,
            },
            coeffs,
            payload,
            natives,
            header: Some(Arc::new(TcpNcHeader { id, with_id })),
        };
        Some(symbol.into_packet(self.node, self.dst, header_bytes))
    }

    /// The destination has seen every packet before `first_unseen`: they leave the
    /// buffer. Returns the TCP acknowledgement number to pass up (None: the window does
    /// not move, an old or repeated acknowledgement).
    pub(crate) fn ack(&mut self, first_unseen: u64) -> Option<u64> {
        if first_unseen <= self.base {
            return None;
        }
        let n = ((first_unseen - self.base) as usize).min(self.window.len());
        if n == 0 {
            return None;
        }
        self.window.drain(..n);
        self.base += n as u64;
        self.shared = None;
        Some(match self.window.front() {
            Some(p) => p.tcp().expect("a TCP segment").seq,
            None => self.next_seq.expect("a packet was buffered"),
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::coding::rlnc::Gf256;
    use crate::engine::StreamPurpose;
    use crate::net::L4;
    use crate::transport::tcp::TcpHeader;

    pub(crate) fn segment(i: u64) -> Packet {
        Packet {
            uid: i + 1,
            flow: 0,
            src: 0,
            dst: 3,
            ttl: 32,
            ip_bytes: 1040,
            created: 0,
            l4: L4::Tcp(TcpHeader::data(i * 1000, 1000)),
            payload: None,
        }
    }

    fn window_of(p: &Packet) -> (u64, u16) {
        match &p.l4 {
            L4::Coded(s) => match s.span {
                Span::Window { first, len } => (first, len),
                _ => panic!("a window"),
            },
            _ => panic!("coded"),
        }
    }

    #[test]
    fn fractional_redundancy_accumulates_and_acks_slide_the_window() {
        let mut rng = Rng::stream(1, 0, StreamPurpose::FlowCoding);
        let mut s = Source::<Gf256>::new(0, 3, 1.5, None);
        let mut out = Vec::new();
        let sent: Vec<u64> = (0..4)
            .map(|i| {
                s.push(segment(i), usize::MAX, &mut rng, &mut |c| out.push(c))
                    .sent
            })
            .collect();
        assert_eq!(sent, vec![1, 2, 1, 2], "NUM += 1.5, keep the fraction");
        // Every combination spans the whole window from its first packet.
        assert_eq!(window_of(&out[0]), (0, 1));
        assert_eq!(window_of(&out[5]), (0, 4));
        assert_eq!(
            out[5].ip_bytes,
            1040 + 6 + 4,
            "window start, length, 4 coefficients"
        );
        // Seen up to packet 2: packets 0 and 1 leave, TCP hears of bytes up to 2000.
        assert_eq!(s.ack(2), Some(2000));
        assert_eq!((s.base(), s.window_len()), (2, 2));
        assert_eq!(s.ack(2), None, "a repeated acknowledgement does not move");
        assert_eq!(s.ack(1), None, "nor does an old one");
        // A retransmission of packet 2 is not buffered again but sends combinations.
        out.clear();
        let p = s.push(segment(2), usize::MAX, &mut rng, &mut |c| out.push(c));
        assert!(p.retransmission);
        assert_eq!(s.window_len(), 2);
        assert_eq!(window_of(&out[0]), (2, 2));
        assert_eq!(s.ack(4), Some(4000), "all seen: the next byte to send");
        assert_eq!(s.window_len(), 0);
    }
}
