//! COPE's ordering agent (Katti et al. §3.5): asynchronous acknowledgements make a
//! coded native that was not decoded arrive after the packets behind it; TCP would
//! read the gap as congestion (three duplicate ACKs). At the destination, TCP data
//! segments of each flow are handed up in sequence order; a segment after a gap waits
//! until the gap fills or `timeout` passes. Each gap has its own deadline, from the
//! first segment beyond it: when one gap fills, the next keeps the time it opened (not
//! the filled one's), and giving up releases one gap at a time, up to the next gap.

use super::entry::{flow_key, FlowKey};
use crate::engine::Time;
use crate::net::Packet;

/// A segment held after a gap, and when it arrived.
struct Held {
    pkt: Packet,
    arrived: Time,
}

struct FlowOrder {
    key: FlowKey,
    /// Next byte expected in order (TCP's ISN is 0, assumptions.md).
    next: u64,
    /// Segments after a gap, by sequence number.
    held: Vec<Held>,
}

impl FlowOrder {
    /// The first gap's deadline: a gap opened when the first segment beyond it arrived,
    /// and every held segment is beyond the first gap.
    fn deadline(&self, timeout: Time) -> Option<Time> {
        self.held
            .iter()
            .map(|h| h.arrived)
            .min()
            .map(|t| t + timeout)
    }

    /// Hands up the held segments now in order (those up to the next gap).
    fn release_in_order(&mut self, out: &mut Vec<Packet>) {
        let n = self
            .held
            .iter()
            .scan(self.next, |next, h| {
                let (seq, end) = span(&h.pkt).expect("held segments are TCP data");
                (seq <= *next).then(|| *next = (*next).max(end))
            })
            .count();
        for h in self.held.drain(..n) {
            self.next = self.next.max(span(&h.pkt).expect("TCP data").1);
            out.push(h.pkt);
        }
    }
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
    /// An agent whose gaps give up after `timeout`.
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
    /// deadline if the flow had no gap before (the caller arms a timer for it; later
    /// deadlines come from `expire`).
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
                });
                self.flows.len() - 1
            }
        };
        let f = &mut self.flows[i];
        if seq <= f.next {
            f.next = f.next.max(end);
            out.push(p);
            // A gap may have closed: hand up what follows in order.
            f.release_in_order(out);
            return None;
        }
        let at = f
            .held
            .partition_point(|h| span(&h.pkt).expect("TCP data").0 <= seq);
        f.held.insert(
            at,
            Held {
                pkt: p,
                arrived: now,
            },
        );
        (f.held.len() == 1).then(|| now + self.timeout)
    }

    /// Gives up the gaps whose deadline passed, one at a time, each releasing its
    /// segments up to the next gap (in order, to `out`). Returns the next deadline still
    /// pending.
    pub fn expire(&mut self, now: Time, out: &mut Vec<Packet>) -> Option<Time> {
        let timeout = self.timeout;
        for f in &mut self.flows {
            while f.deadline(timeout).is_some_and(|d| d <= now) {
                // The first gap is given up: TCP will see it as a loss.
                let first = span(&f.held[0].pkt).expect("TCP data").0;
                f.next = f.next.max(first);
                f.release_in_order(out);
            }
        }
        self.flows.iter().filter_map(|f| f.deadline(timeout)).min()
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
    fn each_gap_keeps_its_own_deadline_and_gives_up_alone() {
        // Katti et al. §3.5, one gap after another: 1000 missing from t = 10, 4000 from
        // t = 60. When 1000 arrives the second gap keeps t = 60 + 100, not t = 110.
        let mut o = Ordering::new(100);
        let mut out = Vec::new();
        o.arrive(0, seg(0), &mut out);
        assert_eq!(o.arrive(10, seg(2000), &mut out), Some(110));
        o.arrive(20, seg(3000), &mut out);
        o.arrive(60, seg(5000), &mut out);
        o.arrive(70, seg(6000), &mut out);
        o.arrive(80, seg(1000), &mut out);
        assert_eq!(seqs(&out), vec![0, 1000, 2000, 3000]);
        assert_eq!(
            o.expire(110, &mut out),
            Some(160),
            "the second gap is younger"
        );
        assert_eq!(o.held(), 2);
        // Three gaps open at 200, 210 and 300; giving up the first releases only what
        // lies before the second.
        out.clear();
        let mut o = Ordering::new(100);
        o.arrive(0, seg(0), &mut out);
        o.arrive(200, seg(2000), &mut out);
        o.arrive(210, seg(4000), &mut out);
        o.arrive(300, seg(6000), &mut out);
        assert_eq!(o.expire(299, &mut out), Some(300));
        assert_eq!(o.expire(300, &mut out), Some(310));
        assert_eq!(seqs(&out), vec![0, 2000]);
        assert_eq!(o.expire(310, &mut out), Some(400));
        assert_eq!(seqs(&out), vec![0, 2000, 4000]);
        // The last gap fills in time: no loss for TCP there.
        o.arrive(350, seg(5000), &mut out);
        assert_eq!(seqs(&out), vec![0, 2000, 4000, 5000, 6000]);
        assert_eq!(o.expire(400, &mut out), None);
        assert_eq!(o.held(), 0);
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
