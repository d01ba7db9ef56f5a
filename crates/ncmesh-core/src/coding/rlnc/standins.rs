//! The stand-ins of a sliding window: packets `base`, `base + 1`, ... as their source sent
//! them, as far as a received combination has spanned (each combination carries the
//! stand-ins of its span, `wire::CodedSymbol::natives`). A sliding-window decoder keeps
//! them beside its rows: TCP/NC's destination hands them up as it decodes, CoMP's relays
//! give them to the combinations they make.

use crate::net::Packet;
use std::collections::VecDeque;

/// A window's stand-ins.
#[derive(Debug, Default)]
pub struct StandIns {
    base: u64,
    packets: VecDeque<Packet>,
}

impl StandIns {
    /// One past the last packet kept.
    pub fn end(&self) -> u64 {
        self.base + self.packets.len() as u64
    }

    /// Keeps the stand-ins of a span from `first` (`natives[i]` is packet `first + i`)
    /// beyond those kept. A span that starts past the end would leave a gap: nothing is
    /// kept, and `false` says so.
    pub fn extend(&mut self, first: u64, natives: &[Packet]) -> bool {
        let end = self.end();
        if first > end {
            return false;
        }
        let span_end = first + natives.len() as u64;
        for idx in end.max(first)..span_end {
            self.packets
                .push_back(natives[(idx - first) as usize].clone());
        }
        true
    }

    /// Takes the first packet's stand-in: the window moves on by one.
    pub fn pop_front(&mut self) -> Option<Packet> {
        let p = self.packets.pop_front()?;
        self.base += 1;
        Some(p)
    }

    /// Forgets the packets before `base`.
    pub fn slide_to(&mut self, base: u64) {
        if base <= self.base {
            return;
        }
        let gone = (base - self.base) as usize;
        self.packets.drain(..gone.min(self.packets.len()));
        self.base = base;
    }

    /// The stand-ins of packets `from .. from + len` (all kept).
    pub fn range(&self, from: u64, len: usize) -> impl Iterator<Item = &Packet> {
        let at = (from - self.base) as usize;
        self.packets.range(at..at + len)
    }

    /// Every stand-in kept, from the base.
    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.packets.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::L4;
    use crate::wire::TcpHeader;

    fn packet(i: u64) -> Packet {
        Packet {
            uid: i,
            flow: 0,
            src: 0,
            dst: 1,
            ttl: 8,
            ip_bytes: 60,
            created: 0,
            l4: L4::Tcp(TcpHeader::data(i * 10, 10)),
            payload: None,
        }
    }

    fn uids(s: &StandIns) -> Vec<u64> {
        s.iter().map(|p| p.uid).collect()
    }

    #[test]
    fn overlapping_spans_keep_each_packet_once_and_a_gap_keeps_nothing() {
        let mut s = StandIns::default();
        let all: Vec<Packet> = (0..8).map(packet).collect();
        assert!(s.extend(0, &all[0..3]));
        assert!(s.extend(1, &all[1..5]));
        assert_eq!(uids(&s), [0, 1, 2, 3, 4]);
        assert!(!s.extend(6, &all[6..8]), "packet 5 was never spanned");
        assert_eq!(s.end(), 5);
        assert_eq!(s.pop_front().map(|p| p.uid), Some(0));
        assert_eq!(s.range(2, 2).map(|p| p.uid).collect::<Vec<_>>(), [2, 3]);
    }

    #[test]
    fn sliding_forgets_the_packets_before_the_new_base_even_past_the_end() {
        let mut s = StandIns::default();
        let all: Vec<Packet> = (0..10).map(packet).collect();
        s.extend(0, &all[0..4]);
        s.slide_to(2);
        assert_eq!(uids(&s), [2, 3]);
        s.slide_to(1);
        assert_eq!(uids(&s), [2, 3], "never back");
        s.slide_to(7);
        assert_eq!((s.end(), uids(&s).len()), (7, 0));
        assert!(s.extend(7, &all[7..9]));
        assert_eq!(uids(&s), [7, 8]);
    }
}
