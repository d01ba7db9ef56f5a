//! Horizon's delayed reordering at a flow's destination (Radunović et al., MSR-TR-2008-54;
//! patent US 8,045,463 claim 15: packets spread over several paths arrive out of order, which TCP would read as
//! loss): a data segment that arrives while an earlier byte of its flow is missing waits,
//! at most the hold time; then it goes up with every segment before it, in order, and
//! the gap is given up on (TCP's own recovery repairs it).

use crate::coding::keyed::find_or_push;
use crate::engine::Time;
use crate::net::Packet;
use std::collections::BTreeMap;

/// One flow's reordering state at its destination.
#[derive(Debug)]
struct FlowBuf {
    flow: u32,
    /// The next byte expected in order.
    next: u64,
    /// Segments held, by sequence number: the packet and its deadline.
    held: BTreeMap<u64, (Packet, Time)>,
}

/// The destination's reordering buffers (one per flow; TCP data segments only).
#[derive(Debug, Default)]
pub struct Reorder {
    hold: Time,
    flows: Vec<FlowBuf>,
    /// Segments that had to wait.
    pub held_total: u64,
    /// Segments released because a hold time ran out (theirs or a later one's).
    pub expired: u64,
}

impl Reorder {
    /// Buffers holding segments at most `hold` (0: every segment goes up at once).
    pub fn new(hold: Time) -> Reorder {
        Reorder {
            hold,
            ..Reorder::default()
        }
    }

    fn buf(&mut self, flow: u32) -> &mut FlowBuf {
        find_or_push(
            &mut self.flows,
            |b| b.flow == flow,
            || FlowBuf {
                flow,
                next: 0,
                held: BTreeMap::new(),
            },
        )
    }

    /// A data segment `[seq, seq + len)` of `p.flow` arrives at `now`: the packets to
    /// hand up now go to `out`, in order (possibly none); returns, if `p` is held, its
    /// deadline.
    pub fn arrive(
        &mut self,
        p: Packet,
        seq: u64,
        len: u32,
        now: Time,
        out: &mut Vec<Packet>,
    ) -> Option<Time> {
        let hold = self.hold;
        let b = self.buf(p.flow);
        if hold == 0 || seq <= b.next {
            // In order, or old: TCP sorts it out.
            b.next = b.next.max(seq + len as u64);
            out.push(p);
            drain(b, out);
            return None;
        }
        if b.held.contains_key(&seq) {
            // A copy of a held segment (TCP resending after a timeout): up at once, but
            // the gap before it stays open; TCP discards whichever copy comes second.
            out.push(p);
            return None;
        }
        let deadline = now + hold;
        b.held.insert(seq, (p, deadline));
        self.held_total += 1;
        Some(deadline)
    }

    /// Hands up to `out`, in order, every segment whose deadline has passed at `now`,
    /// with every held segment before it and every one that then follows without a gap.
    pub fn expire(&mut self, now: Time, out: &mut Vec<Packet>) {
        for b in &mut self.flows {
            let Some(last) = b
                .held
                .iter()
                .filter(|(_, (_, d))| *d <= now)
                .map(|(&s, _)| s)
                .next_back()
            else {
                continue;
            };
            let before = out.len();
            while let Some(e) = b.held.first_entry() {
                if *e.key() > last {
                    break;
                }
                let (seq, (p, _)) = e.remove_entry();
                b.next = b.next.max(seq + seg_len(&p));
                out.push(p);
            }
            self.expired += (out.len() - before) as u64;
            drain(b, out);
        }
    }

    /// The earliest deadline of a held segment.
    pub fn next_deadline(&self) -> Option<Time> {
        self.flows
            .iter()
            .flat_map(|b| b.held.values().map(|(_, d)| *d))
            .min()
    }

    /// Segments held.
    pub fn held(&self) -> usize {
        self.flows.iter().map(|b| b.held.len()).sum()
    }
}

fn seg_len(p: &Packet) -> u64 {
    p.tcp().map_or(0, |h| h.len as u64)
}

/// Moves the held segments that now follow in order to `out`.
fn drain(b: &mut FlowBuf, out: &mut Vec<Packet>) {
    while let Some(e) = b.held.first_entry() {
        if *e.key() > b.next {
            break;
        }
        let (seq, (p, _)) = e.remove_entry();
        b.next = b.next.max(seq + seg_len(&p));
        out.push(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::L4;
    use crate::wire::tcp::TcpHeader;

    const MSS: u32 = 1000;

    fn seg(i: u64) -> Packet {
        Packet {
            uid: i,
            flow: 0,
            src: 0,
            dst: 4,
            ttl: 32,
            ip_bytes: MSS + 40,
            created: 0,
            l4: L4::Tcp(TcpHeader::data(i * MSS as u64, MSS)),
            payload: None,
        }
    }

    fn uids(v: &[Packet]) -> Vec<u64> {
        v.iter().map(|p| p.uid).collect()
    }

    fn arrive(r: &mut Reorder, i: u64, now: Time) -> (Vec<u64>, Option<Time>) {
        let mut out = Vec::new();
        let d = r.arrive(seg(i), i * MSS as u64, MSS, now, &mut out);
        (uids(&out), d)
    }

    fn expire(r: &mut Reorder, now: Time) -> Vec<u64> {
        let mut out = Vec::new();
        r.expire(now, &mut out);
        uids(&out)
    }

    #[test]
    fn segments_go_up_in_order_once_the_gap_fills() {
        let mut r = Reorder::new(100);
        assert_eq!(arrive(&mut r, 0, 0), (vec![0], None));
        assert_eq!(arrive(&mut r, 2, 1), (vec![], Some(101)));
        assert_eq!(arrive(&mut r, 3, 2), (vec![], Some(102)));
        assert_eq!(r.held(), 2);
        assert_eq!(r.next_deadline(), Some(101));
        // The missing one arrives: it and everything after it go up, in order.
        assert_eq!(arrive(&mut r, 1, 3), (vec![1, 2, 3], None));
        assert_eq!(r.held(), 0);
        assert!(expire(&mut r, 1000).is_empty());
        assert_eq!((r.held_total, r.expired), (2, 0));
        // An old copy goes straight up.
        assert_eq!(arrive(&mut r, 1, 4), (vec![1], None));
    }

    #[test]
    fn the_hold_time_gives_up_on_a_gap_and_releases_in_order() {
        let mut r = Reorder::new(100);
        arrive(&mut r, 0, 0);
        arrive(&mut r, 3, 10); // gap: 1, 2
        arrive(&mut r, 2, 20);
        arrive(&mut r, 5, 30); // gap: 4
        assert!(expire(&mut r, 109).is_empty(), "nothing due before 110");
        // At 110 segment 3's time is up: 2 and 3 go up in order (1 is given up on), 5
        // still waits behind the missing 4 until its own deadline.
        assert_eq!(expire(&mut r, 110), vec![2, 3]);
        assert_eq!(r.held(), 1);
        assert_eq!(r.next_deadline(), Some(130));
        // 4 arrives in order now: 4 and 5 go up.
        assert_eq!(arrive(&mut r, 4, 115), (vec![4, 5], None));
        // A late copy of 1 goes straight up (TCP drops it or fills its hole).
        assert_eq!(arrive(&mut r, 1, 120), (vec![1], None));
        assert_eq!((r.held_total, r.expired), (3, 2));
    }

    #[test]
    fn a_copy_of_a_held_segment_does_not_skip_the_gap() {
        let mut r = Reorder::new(100);
        arrive(&mut r, 0, 0);
        arrive(&mut r, 2, 1);
        arrive(&mut r, 3, 2);
        // TCP resends 3 (say after a timeout): the copy goes up alone; 1 is still
        // awaited and 2, 3 stay held.
        assert_eq!(arrive(&mut r, 3, 3), (vec![3], None));
        assert_eq!(r.held(), 2);
        assert_eq!(arrive(&mut r, 1, 4), (vec![1, 2, 3], None));
        assert_eq!(r.expired, 0);
    }

    #[test]
    fn no_hold_time_means_no_reordering() {
        let mut r = Reorder::new(0);
        assert_eq!(arrive(&mut r, 3, 0), (vec![3], None));
        assert_eq!(arrive(&mut r, 1, 0), (vec![1], None));
        assert_eq!(r.held(), 0);
    }
}
