//! COPE's ordering agent (Katti et al. §3.5): asynchronous acknowledgements make a
//! coded native that was not decoded arrive after the packets behind it; TCP would
//! read the gap as congestion (three duplicate ACKs). At the destination, TCP data
//! segments of each flow are handed up in sequence order; a segment after a gap waits
//! until the gap fills or `timeout` passes (then everything held goes up in order and
//! TCP sees the loss).

use super::entry::{flow_key, FlowKey};
use crate::engine::Time;
use crate::net::Packet;

struct FlowOrder {
    key: FlowKey,
    /// Next byte expected in order (TCP's ISN is 0, assumptions.md).
    next: u64,
    /// Segments after a gap, by sequence number.
    held: Vec<Packet>,
    /// When the oldest gap gives up.
    deadline: Time,
}

/// COPE's ordering agent (Katti et al. §3.5) at a TCP destination: holds segments after a
/// gap until the gap fills or a timeout, so that coding's reordering does not look
/// like loss to TCP.
pub struct Ordering {
    timeout: Time,
    flows: Vec<FlowOrder>,
}

/// (seq, end) of a TCP data segment.
fn span(p: &Packet) -> Option<(u64, u64)> {
    p.tcp()
        .filter(|h| h.len > 0)
        .map(|h| (h.seq, h.seq + h.len as u64))
}

impl Ordering {
    /// An agent whose held segments give up after `timeout`.
    pub fn new(timeout: Time) -> Ordering {
        Ordering {
            timeout,
            flows: Vec::new(),
        }
    }

    /// Does the agent order this packet (a TCP data segment)?
    pub fn applies(p: &Packet) -> bool {
        span(p).is_some()
    }

    /// A segment for this node arrived: segments now in order go to `out`. Returns a
    /// deadline if a new gap opened (the caller arms a timer for it).
    pub fn arrive(&mut self, now: Time, p: Packet, out: &mut Vec<Packet>) -> Option<Time> {
        let (seq, end) = span(&p).expect("TCP data segment");
        let key = flow_key(&p);
        let i = match self.flows.iter().position(|f| f.key == key) {
            Some(i) => i,
            None => {
                self.flows.push(FlowOrder {
                    key,
                    next: 0,
                    held: Vec::new(),
                    deadline: 0,
                });
                self.flows.len() - 1
            }
        };
        let f = &mut self.flows[i];
        if seq <= f.next {
            f.next = f.next.max(end);
            out.push(p);
            // The gap may have closed: hand up what follows in order.
            while f.held.first().is_some_and(|h| span(h).unwrap().0 <= f.next) {
                let h = f.held.remove(0);
                f.next = f.next.max(span(&h).unwrap().1);
                out.push(h);
            }
            return None;
        }
        let at = f.held.partition_point(|h| span(h).unwrap().0 <= seq);
        f.held.insert(at, p);
        if f.held.len() == 1 {
            f.deadline = now + self.timeout;
            return Some(f.deadline);
        }
        None
    }

    /// Gives up the gaps whose deadline passed: their segments go to `out` in order.
    /// Returns the next deadline still pending.
    pub fn expire(&mut self, now: Time, out: &mut Vec<Packet>) -> Option<Time> {
        for f in &mut self.flows {
            if !f.held.is_empty() && f.deadline <= now {
                for h in f.held.drain(..) {
                    f.next = f.next.max(span(&h).unwrap().1);
                    out.push(h);
                }
            }
        }
        self.flows
            .iter()
            .filter(|f| !f.held.is_empty())
            .map(|f| f.deadline)
            .min()
    }

    /// Segments held now.
    pub fn held(&self) -> usize {
        self.flows.iter().map(|f| f.held.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::L4;
    use crate::transport::tcp::TcpHeader;

    fn seg(seq: u64) -> Packet {
        Packet {
            uid: seq + 1,
            flow: 0,
            src: 0,
            dst: 2,
            ttl: 64,
            ip_bytes: 1040,
            created: 0,
            l4: L4::Tcp(TcpHeader::data(seq, 1000)),
            payload: None,
        }
    }

    fn seqs(v: &[Packet]) -> Vec<u64> {
        v.iter().map(|p| p.tcp().unwrap().seq).collect()
    }

    #[test]
    fn a_late_segment_fills_the_gap_and_releases_the_rest_in_order() {
        let mut o = Ordering::new(100);
        let mut out = Vec::new();
        assert_eq!(o.arrive(0, seg(0), &mut out), None);
        assert_eq!(o.arrive(1, seg(2000), &mut out), Some(101), "a gap opens");
        assert_eq!(o.arrive(2, seg(3000), &mut out), None);
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!(o.held(), 2);
        o.arrive(50, seg(1000), &mut out);
        assert_eq!(seqs(&out), vec![0, 1000, 2000, 3000]);
        assert_eq!(o.held(), 0);
        // A retransmitted old segment goes up at once.
        out.clear();
        o.arrive(60, seg(1000), &mut out);
        assert_eq!(seqs(&out), vec![1000]);
    }

    #[test]
    fn a_gap_that_does_not_fill_gives_up_after_the_timeout() {
        let mut o = Ordering::new(100);
        let mut out = Vec::new();
        o.arrive(0, seg(0), &mut out);
        o.arrive(10, seg(2000), &mut out);
        o.arrive(20, seg(3000), &mut out);
        assert_eq!(o.expire(109, &mut out), Some(110));
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!(o.expire(110, &mut out), None);
        assert_eq!(seqs(&out), vec![0, 2000, 3000]);
        // The lost segment, retransmitted by TCP, then passes straight through.
        o.arrive(200, seg(1000), &mut out);
        assert_eq!(seqs(&out), vec![0, 2000, 3000, 1000]);
    }
}
