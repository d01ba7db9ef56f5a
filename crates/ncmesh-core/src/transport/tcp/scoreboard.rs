//! The SACK scoreboard (RFC 6675 section 3) and the RFC 6675 section 4 routines that
//! read it: IsLost, SetPipe and the retransmission candidates of NextSeg.
//!
//! SACKed data is kept as sorted, disjoint, non-touching byte ranges above the
//! cumulative ACK. "Octet <= HighRxt" style comparisons of the RFC are written with
//! exclusive ends here: `high_rxt` is the sequence number just past the highest
//! retransmitted byte.

use crate::wire::tcp::SackBlock;

/// A gap in the SACKed data below the highest SACKed byte (a NextSeg candidate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hole {
    /// First byte of the hole.
    pub start: u64,
    /// First SACKed byte above the hole.
    pub end: u64,
    /// RFC 6675 IsLost() for the bytes of this hole (the same for every byte of it,
    /// since they all have the same SACKed data above them).
    pub lost: bool,
}

/// The sender's record of SACKed data above the cumulative ACK (RFC 6675 §2).
#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    /// Sorted, disjoint, non-adjacent.
    blocks: Vec<SackBlock>,
    sacked: u64,
}

impl Scoreboard {
    /// Nothing SACKed.
    pub fn new() -> Self {
        Scoreboard {
            blocks: Vec::with_capacity(8),
            sacked: 0,
        }
    }

    /// Forgets every SACKed block (after a timeout, RFC 6675 §5.1).
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.sacked = 0;
    }

    /// Nothing SACKed.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Bytes currently marked SACKed.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked
    }

    /// The SACKed ranges, ascending.
    pub fn blocks(&self) -> &[SackBlock] {
        &self.blocks
    }

    /// RFC 6675 Update(): marks the bytes of `sacks` that lie in `[high_ack,
    /// high_data)` as SACKed. Returns how many bytes were not SACKed before, so the
    /// caller can tell a duplicate ACK in the RFC 6675 section 2 sense (new SACK data).
    pub fn update(&mut self, high_ack: u64, high_data: u64, sacks: &[SackBlock]) -> u64 {
        let mut added = 0;
        for b in sacks {
            let s = b.start.max(high_ack);
            let e = b.end.min(high_data);
            if s < e {
                added += self.insert(s, e);
            }
        }
        added
    }

    fn insert(&mut self, s: u64, e: u64) -> u64 {
        // Blocks i..j overlap or touch [s, e].
        let i = self.blocks.partition_point(|b| b.end < s);
        let j = self.blocks.partition_point(|b| b.start <= e);
        if i == j {
            self.blocks.insert(i, SackBlock::new(s, e));
            self.sacked += e - s;
            return e - s;
        }
        let ns = s.min(self.blocks[i].start);
        let ne = e.max(self.blocks[j - 1].end);
        let old: u64 = self.blocks[i..j].iter().map(SackBlock::len).sum();
        self.blocks[i] = SackBlock::new(ns, ne);
        self.blocks.drain(i + 1..j);
        let added = (ne - ns) - old;
        self.sacked += added;
        added
    }

    /// Drops everything below the new cumulative ACK `ack`.
    pub fn advance(&mut self, ack: u64) {
        let k = self.blocks.partition_point(|b| b.end <= ack);
        if k > 0 {
            let gone: u64 = self.blocks[..k].iter().map(SackBlock::len).sum();
            self.sacked -= gone;
            self.blocks.drain(..k);
        }
        if let Some(first) = self.blocks.first_mut() {
            if first.start < ack {
                self.sacked -= ack - first.start;
                first.start = ack;
            }
        }
    }

    /// Is byte `seq` SACKed?
    pub fn is_sacked(&self, seq: u64) -> bool {
        self.sacked_end_at(seq).is_some()
    }

    /// End of the SACKed range containing `seq`, if `seq` is SACKed.
    pub fn sacked_end_at(&self, seq: u64) -> Option<u64> {
        let i = self.blocks.partition_point(|b| b.end <= seq);
        self.blocks.get(i).filter(|b| b.start <= seq).map(|b| b.end)
    }

    /// Start of the first SACKed range strictly above `seq`.
    pub fn next_sacked_start(&self, seq: u64) -> Option<u64> {
        let i = self.blocks.partition_point(|b| b.start <= seq);
        self.blocks.get(i).map(|b| b.start)
    }

    /// Sequence number just past the highest SACKed byte.
    pub fn highest_sacked(&self) -> Option<u64> {
        self.blocks.last().map(|b| b.end)
    }

    /// RFC 6675 IsLost(seq): lost once DupThresh discontiguous SACKed ranges, or more
    /// than (DupThresh - 1) * SMSS SACKed bytes, lie above it. Ranges are counted as
    /// the scoreboard holds them (merged), which is the conservative reading.
    pub fn is_lost(&self, seq: u64, dupthresh: u32, smss: u64) -> bool {
        let i = self.blocks.partition_point(|b| b.start <= seq);
        let above = &self.blocks[i..];
        let bytes: u64 = above.iter().map(SackBlock::len).sum();
        lost_by(above.len() as u64, bytes, dupthresh, smss)
    }

    /// RFC 6675 SetPipe(): bytes believed in the network. Every unSACKed byte in
    /// `[high_ack, high_data)` counts once unless IsLost() says it left the network,
    /// and once more if it was retransmitted in this recovery (below `high_rxt`).
    pub fn pipe(
        &self,
        high_ack: u64,
        high_data: u64,
        high_rxt: u64,
        dupthresh: u32,
        smss: u64,
    ) -> u64 {
        let hole = |a: u64, b: u64, lost: bool| -> u64 {
            let (a, b) = (a.max(high_ack), b.min(high_data));
            if a >= b {
                return 0;
            }
            let mut p = if lost { 0 } else { b - a };
            p += b.min(high_rxt).saturating_sub(a);
            p
        };
        let (mut pipe, mut count, mut bytes, mut hi) = (0, 0u64, 0u64, high_data);
        for b in self.blocks.iter().rev() {
            pipe += hole(b.end, hi, lost_by(count, bytes, dupthresh, smss));
            count += 1;
            bytes += b.len();
            hi = b.start;
        }
        pipe + hole(high_ack, hi, lost_by(count, bytes, dupthresh, smss))
    }

    /// The first hole at or above `from` that lies below the highest SACKed byte:
    /// the candidate of NextSeg rules (1) (if lost) and (3) (otherwise). Lower holes
    /// have more SACKed data above them, so if this one is not lost none above it is.
    pub fn first_hole_from(&self, from: u64, dupthresh: u32, smss: u64) -> Option<Hole> {
        let start = self.sacked_end_at(from).unwrap_or(from);
        let i = self.blocks.partition_point(|b| b.start <= start);
        let above = self.blocks.get(i..).filter(|a| !a.is_empty())?;
        let bytes: u64 = above.iter().map(SackBlock::len).sum();
        Some(Hole {
            start,
            end: above[0].start,
            lost: lost_by(above.len() as u64, bytes, dupthresh, smss),
        })
    }

    /// The unSACKed range in `[high_ack, high_data)` holding the highest unSACKed
    /// byte (the target of NextSeg rule (4), the rescue retransmission).
    pub fn highest_hole(&self, high_ack: u64, high_data: u64) -> Option<(u64, u64)> {
        let n = self.blocks.len();
        let (start, end) = match self.blocks.last() {
            None => (high_ack, high_data),
            Some(top) if top.end < high_data => (top.end, high_data),
            Some(top) => (
                if n >= 2 {
                    self.blocks[n - 2].end
                } else {
                    high_ack
                },
                top.start,
            ),
        };
        let start = start.max(high_ack);
        (start < end).then_some((start, end))
    }
}

fn lost_by(ranges: u64, bytes: u64, dupthresh: u32, smss: u64) -> bool {
    ranges >= dupthresh as u64 || bytes > (dupthresh as u64 - 1) * smss
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn sb(blocks: &[(u64, u64)], high_data: u64) -> Scoreboard {
        let mut s = Scoreboard::new();
        let v: Vec<SackBlock> = blocks.iter().map(|&(a, b)| SackBlock::new(a, b)).collect();
        s.update(0, high_data, &v);
        s
    }

    fn ranges(s: &Scoreboard) -> Vec<(u64, u64)> {
        s.blocks().iter().map(|b| (b.start, b.end)).collect()
    }

    #[test]
    fn update_merges_and_counts_new_bytes() {
        let mut s = Scoreboard::new();
        assert_eq!(s.update(0, 10_000, &[SackBlock::new(2000, 3000)]), 1000);
        assert_eq!(
            s.update(0, 10_000, &[SackBlock::new(2000, 3000)]),
            0,
            "nothing new"
        );
        assert_eq!(
            s.update(
                0,
                10_000,
                &[SackBlock::new(5000, 6000), SackBlock::new(3000, 4000)]
            ),
            2000
        );
        assert_eq!(ranges(&s), vec![(2000, 4000), (5000, 6000)]);
        // Bridging the gap merges everything; only the gap is new.
        assert_eq!(s.update(0, 10_000, &[SackBlock::new(1500, 5500)]), 1500);
        assert_eq!(ranges(&s), vec![(1500, 6000)]);
        assert_eq!(s.sacked_bytes(), 4500);
        // Clipped to [high_ack, high_data).
        assert_eq!(
            s.update(
                1000,
                7000,
                &[SackBlock::new(0, 1200), SackBlock::new(6500, 9000)]
            ),
            200 + 500
        );
        assert_eq!(ranges(&s), vec![(1000, 1200), (1500, 6000), (6500, 7000)]);
    }

    #[test]
    fn advance_trims_below_cumulative_ack() {
        let mut s = sb(&[(2000, 3000), (4000, 6000)], 10_000);
        s.advance(1000);
        assert_eq!(s.sacked_bytes(), 3000);
        s.advance(5000);
        assert_eq!(ranges(&s), vec![(5000, 6000)]);
        assert_eq!(s.sacked_bytes(), 1000);
        s.advance(6000);
        assert!(s.is_empty());
        assert_eq!(s.sacked_bytes(), 0);
    }

    #[test]
    fn lookups() {
        let s = sb(&[(2000, 3000), (4000, 6000)], 10_000);
        assert!(s.is_sacked(2000) && s.is_sacked(5999) && !s.is_sacked(3000) && !s.is_sacked(1999));
        assert_eq!(s.sacked_end_at(4500), Some(6000));
        assert_eq!(s.next_sacked_start(0), Some(2000));
        assert_eq!(s.next_sacked_start(3000), Some(4000));
        assert_eq!(s.next_sacked_start(6000), None);
        assert_eq!(s.highest_sacked(), Some(6000));
    }

    #[test]
    fn is_lost_by_bytes_or_by_ranges() {
        // Three contiguous SACKed segments above the hole: 3000 > 2 * SMSS bytes.
        let s = sb(&[(1000, 4000)], 10_000);
        assert!(s.is_lost(0, 3, MSS));
        // Two segments (2000 bytes) are not enough.
        let s = sb(&[(1000, 3000)], 10_000);
        assert!(!s.is_lost(0, 3, MSS));
        // Three separate small ranges are (DupThresh discontiguous SACKed sequences).
        let s = sb(&[(1000, 1100), (1200, 1300), (1400, 1500)], 10_000);
        assert!(s.is_lost(0, 3, MSS));
        assert!(!s.is_lost(1100, 3, MSS), "only two ranges above 1100");
    }

    #[test]
    fn pipe_follows_set_pipe() {
        // Holes [0,1000) and [4000,5000), SACKed [1000,4000) and [5000,6000),
        // unSACKed tail [6000,8000).
        let s = sb(&[(1000, 4000), (5000, 6000)], 8000);
        // Hole 0 is lost (3000 bytes SACKed above); hole 4000 is not; tail is not.
        assert_eq!(s.pipe(0, 8000, 0, 3, MSS), 1000 + 2000);
        // After retransmitting [0,1000) it counts once again.
        assert_eq!(s.pipe(0, 8000, 1000, 3, MSS), 1000 + 1000 + 2000);
        // A rule (3) retransmission of the non-lost hole counts twice.
        assert_eq!(s.pipe(0, 8000, 5000, 3, MSS), 1000 + 2 * 1000 + 2000);
        // Nothing SACKed: pipe is the whole flight.
        assert_eq!(Scoreboard::new().pipe(3000, 8000, 0, 3, MSS), 5000);
    }

    #[test]
    fn holes_for_next_seg() {
        let s = sb(&[(1000, 4000), (5000, 6000)], 8000);
        assert_eq!(
            s.first_hole_from(0, 3, MSS),
            Some(Hole {
                start: 0,
                end: 1000,
                lost: true
            })
        );
        // From inside a SACKed range: skip to its end.
        assert_eq!(
            s.first_hole_from(2000, 3, MSS),
            Some(Hole {
                start: 4000,
                end: 5000,
                lost: false
            })
        );
        // Nothing SACKed above 6000.
        assert_eq!(s.first_hole_from(6000, 3, MSS), None);
        assert_eq!(s.highest_hole(0, 8000), Some((6000, 8000)));
        let s = sb(&[(1000, 4000), (5000, 8000)], 8000);
        assert_eq!(s.highest_hole(0, 8000), Some((4000, 5000)));
        assert_eq!(Scoreboard::new().highest_hole(0, 8000), Some((0, 8000)));
        assert_eq!(Scoreboard::new().highest_hole(8000, 8000), None);
    }
}
