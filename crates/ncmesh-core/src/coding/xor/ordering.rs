//! COPE's ordering agent (Katti et al. §3.5): asynchronous acknowledgements make a
//! coded native that was not decoded arrive after the packets behind it; TCP would
//! read the gap as congestion (three duplicate ACKs). At the destination, TCP data
//! segments of each flow are handed up in sequence order; a segment after a gap waits
//! until the gap fills or `timeout` passes. Each gap has its own deadline, from the
//! first segment beyond it: when one gap fills, the next keeps the time it opened (not
//! the filled one's), and giving up releases one gap at a time, up to the next gap.
//! The hold is a [`Wait`]: fixed, or per flow from how long its gaps took to fill.

use super::entry::{flow_key, FlowKey};
use super::timing::Wait;
use crate::coding::keyed::find_or_push;
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
    /// How long a gap is held open.
    hold: Wait,
}

impl FlowOrder {
    /// When the first gap opened: when the first segment beyond it arrived (every held
    /// segment is beyond the first gap).
    fn opened(&self) -> Option<Time> {
        self.held.iter().map(|h| h.arrived).min()
    }

    /// The first gap's deadline.
    fn deadline(&self) -> Option<Time> {
        self.opened().map(|t| t + self.hold.get())
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
    /// Each new flow's hold starts as a copy of this one.
    hold: Wait,
    flows: Vec<FlowOrder>,
}

/// (seq, end) of a TCP data segment.
fn span(p: &Packet) -> Option<(u64, u64)> {
    p.tcp()
        .filter(|h| h.len > 0)
        .map(|h| (h.seq, h.seq + h.len as u64))
}

impl Ordering {
    /// An agent whose gaps give up after `hold`.
    pub fn new(hold: Wait) -> Ordering {
        Ordering {
            hold,
            flows: Vec::new(),
        }
    }

    /// Does the agent order this packet (a TCP data segment)?
    pub fn applies(p: &Packet) -> bool {
        span(p).is_some()
    }

    /// A segment for this node arrived: segments now in order go to `out`. Returns the
    /// flow's first gap deadline if it has a gap (the caller keeps one timer at the
    /// earliest deadline; later ones come from `expire`).
    pub fn arrive(&mut self, now: Time, p: Packet, out: &mut Vec<Packet>) -> Option<Time> {
        let (seq, end) = span(&p).expect("TCP data segment");
        let key = flow_key(&p);
        let hold = &self.hold;
        let f = find_or_push(
            &mut self.flows,
            |f| f.key == key,
            || FlowOrder {
                key,
                next: 0,
                held: Vec::new(),
                hold: hold.clone(),
            },
        );
        if seq <= f.next {
            f.next = f.next.max(end);
            out.push(p);
            // A gap may have closed: hand up what follows in order.
            let (opened, before) = (f.opened(), f.held.len());
            f.release_in_order(out);
            if let Some(t) = opened.filter(|_| f.held.len() < before) {
                // The first gap filled in time: how long its repair took.
                f.hold.sample(now - t);
            }
            return f.deadline();
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
        f.deadline()
    }

    /// Gives up the gaps whose deadline passed, one at a time, each releasing its
    /// segments up to the next gap (in order, to `out`). Returns the next deadline still
    /// pending.
    pub fn expire(&mut self, now: Time, out: &mut Vec<Packet>) -> Option<Time> {
        for f in &mut self.flows {
            while f.deadline().is_some_and(|d| d <= now) {
                // The first gap is given up: TCP will see it as a loss. The next gap may
                // be a repair that takes longer: hold longer until one fills in time.
                f.hold.back_off();
                let first = span(&f.held[0].pkt).expect("TCP data").0;
                f.next = f.next.max(first);
                f.release_in_order(out);
            }
        }
        self.flows.iter().filter_map(|f| f.deadline()).min()
    }

    /// Segments held now.
    pub fn held(&self) -> usize {
        self.flows.iter().map(|f| f.held.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::xor::timing::Timing;
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

    fn fixed(t: Time) -> Wait {
        Wait::new(Timing::Fixed, t, 0)
    }

    fn seqs(v: &[Packet]) -> Vec<u64> {
        v.iter().map(|p| p.tcp().unwrap().seq).collect()
    }

    #[test]
    fn a_late_segment_fills_the_gap_and_releases_the_rest_in_order() {
        let mut o = Ordering::new(fixed(100));
        let mut out = Vec::new();
        assert_eq!(o.arrive(0, seg(0), &mut out), None);
        assert_eq!(o.arrive(1, seg(2000), &mut out), Some(101), "a gap opens");
        assert_eq!(o.arrive(2, seg(3000), &mut out), Some(101), "the same gap");
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
        let mut o = Ordering::new(fixed(100));
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
        let mut o = Ordering::new(fixed(100));
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
        let mut o = Ordering::new(fixed(100));
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

    #[test]
    fn an_adaptive_hold_follows_how_long_gaps_take_to_fill() {
        // Gaps that fill 30 units after they open: the hold shrinks from 1000 towards
        // 30 plus the spread, never below the floor of 20.
        let mut out = Vec::new();
        let mut o = Ordering::new(Wait::new(Timing::Adaptive, 1000, 20));
        let mut t = 0;
        let mut last = None;
        for k in 0..60u64 {
            let base = 3000 * k;
            o.arrive(t, seg(base), &mut out);
            let opened = o.arrive(t + 1, seg(base + 2000), &mut out).unwrap();
            last = Some(opened - (t + 1));
            o.arrive(t + 31, seg(base + 1000), &mut out);
            t += 1000;
        }
        assert_eq!(o.held(), 0);
        let hold = last.unwrap();
        assert!(hold < 1000, "the hold shrank: {hold}");
        assert!((30..=40).contains(&hold), "30 plus a small spread: {hold}");
        // A gap that never fills gives up after that shorter hold.
        o.arrive(t, seg(3000 * 60), &mut out);
        let d = o.arrive(t + 1, seg(3000 * 60 + 2000), &mut out).unwrap();
        assert_eq!(d, t + 1 + hold);
    }
}
