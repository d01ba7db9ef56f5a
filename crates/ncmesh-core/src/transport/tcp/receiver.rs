//! The receiving half of a connection: reassembly, cumulative and selective ACKs,
//! delayed ACKs and the advertised window.
//!
//! The application reads in-order data as soon as it arrives, so the only data held
//! in the receive buffer is out-of-order data; the advertised window is the buffer
//! size minus those bytes.

use super::config::TcpConfig;
use crate::engine::Time;
use crate::wire::tcp::{SackBlock, TcpHeader, MAX_SACK_BLOCKS};

/// Receiver-side counters.
#[derive(Debug, Clone, Default)]
pub struct TcpReceiverStats {
    /// Data segments received (any sequence range).
    pub segments_received: u64,
    /// Segments carrying no new byte (entirely duplicate data).
    pub duplicate_segments: u64,
    /// Segments that arrived above a hole.
    pub out_of_order_segments: u64,
    /// ACKs generated (immediate and delayed).
    pub acks_sent: u64,
}

/// A TCP receiver: reassembly, cumulative and SACK acknowledgements, delayed ACKs
/// (RFC 1122 4.2.3.2, RFC 5681 §4.2, RFC 2018).
#[derive(Debug, Clone)]
pub struct TcpReceiver {
    sack: bool,
    rcv_buffer: u64,
    delayed_ack: bool,
    /// Unacknowledged in-order bytes that force an ACK (delayed_ack_count * MSS).
    delack_bytes: u64,
    delack_timeout: Time,
    /// Next in-order byte expected (RCV.NXT).
    rcv_nxt: u64,
    /// Out-of-order data: sorted, disjoint, non-adjacent ranges above `rcv_nxt`.
    ooo: Vec<SackBlock>,
    ooo_bytes: u64,
    /// Ranges to report in SACK blocks, most recently changed first (RFC 2018 section 4).
    recent: [SackBlock; MAX_SACK_BLOCKS],
    nrecent: usize,
    /// In-order bytes received since the last ACK.
    unacked_bytes: u64,
    delack_deadline: Option<Time>,
    stats: TcpReceiverStats,
}

impl TcpReceiver {
    /// A receiver expecting byte 0, with `cfg`'s buffer, SACK and delayed-ACK settings.
    pub fn new(cfg: &TcpConfig) -> Self {
        TcpReceiver {
            sack: cfg.sack,
            rcv_buffer: cfg.rcv_buffer as u64,
            delayed_ack: cfg.delayed_ack,
            delack_bytes: cfg.delayed_ack_count.max(1) as u64 * cfg.smss(),
            delack_timeout: cfg.delayed_ack_timeout,
            rcv_nxt: 0,
            ooo: Vec::with_capacity(8),
            ooo_bytes: 0,
            recent: [SackBlock::default(); MAX_SACK_BLOCKS],
            nrecent: 0,
            unacked_bytes: 0,
            delack_deadline: None,
            stats: TcpReceiverStats::default(),
        }
    }

    /// A data segment arrived. Returns the ACK to send now, or `None` when the ACK is
    /// delayed (then [`Self::delack_deadline`] is set).
    pub fn on_segment(&mut self, now: Time, h: &TcpHeader) -> Option<TcpHeader> {
        if h.len == 0 {
            return None;
        }
        self.stats.segments_received += 1;
        // Only bytes that fit in the receive buffer are kept (RFC 9293 section
        // 3.10.7.4 acceptance test; the buffer spans [RCV.NXT, RCV.NXT + size)).
        let s = h.seq;
        let e = h.end_seq().min(self.rcv_nxt + self.rcv_buffer);
        if e <= self.rcv_nxt || s >= e {
            // Old duplicate (e.g. a go-back-N retransmission) or outside the buffer:
            // acknowledge at once so the sender learns the current state.
            self.stats.duplicate_segments += 1;
            return Some(self.make_ack());
        }
        if s > self.rcv_nxt {
            // RFC 5681 section 4.2 / RFC 1122 4.2.2.21: an out-of-order segment is
            // acknowledged immediately (a duplicate ACK, with SACK blocks).
            self.stats.out_of_order_segments += 1;
            let (added, block) = self.insert_ooo(s, e);
            if added == 0 {
                self.stats.duplicate_segments += 1;
            }
            self.note_recent(block);
            return Some(self.make_ack());
        }
        // In-order data (possibly overlapping what we already have).
        let filled_hole = !self.ooo.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt = e;
        self.absorb_ooo();
        self.unacked_bytes += e - before;
        if filled_hole {
            // RFC 5681 section 4.2: a segment that fills all or part of a gap is
            // acknowledged immediately.
            return Some(self.make_ack());
        }
        if !self.delayed_ack || self.unacked_bytes >= self.delack_bytes {
            // RFC 1122 4.2.3.2 / RFC 5681 4.2: ACK at least every second full-sized
            // segment (every `delayed_ack_count` segments' worth of bytes here).
            return Some(self.make_ack());
        }
        // Otherwise hold the ACK back, at most `delayed_ack_timeout` after the first
        // unacknowledged segment (RFC 1122 4.2.3.2 requires under 0.5 s).
        if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.delack_timeout);
        }
        None
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timeout(&mut self, _now: Time) -> Option<TcpHeader> {
        self.delack_deadline?;
        Some(self.make_ack())
    }

    /// When the delayed-ACK timer fires, if an ACK is being delayed.
    pub fn delack_deadline(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// In-order bytes handed to the application so far (RCV.NXT).
    pub fn delivered_bytes(&self) -> u64 {
        self.rcv_nxt
    }

    /// Out-of-order bytes held in the buffer.
    pub fn buffered_bytes(&self) -> u64 {
        self.ooo_bytes
    }

    /// The window this receiver advertises now.
    pub fn window(&self) -> u32 {
        self.rcv_buffer
            .saturating_sub(self.ooo_bytes)
            .min(u32::MAX as u64) as u32
    }

    /// Counters so far.
    pub fn stats(&self) -> &TcpReceiverStats {
        &self.stats
    }

    /// Builds an ACK for the current state and cancels any pending delayed ACK.
    fn make_ack(&mut self) -> TcpHeader {
        self.unacked_bytes = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        let mut h = TcpHeader {
            ack: self.rcv_nxt,
            wnd: self.window(),
            ..Default::default()
        };
        if self.sack {
            // RFC 2018 section 4: report the most recently changed ranges, first the
            // one holding the segment that triggered this ACK.
            h.sack[..self.nrecent].copy_from_slice(&self.recent[..self.nrecent]);
            h.nsack = self.nrecent as u8;
        }
        h
    }

    /// Stores `[s, e)` (above `rcv_nxt`) in the reassembly list. Returns the bytes
    /// that were new and the merged range now containing the segment.
    fn insert_ooo(&mut self, s: u64, e: u64) -> (u64, SackBlock) {
        let i = self.ooo.partition_point(|b| b.end < s);
        let j = self.ooo.partition_point(|b| b.start <= e);
        if i == j {
            let b = SackBlock::new(s, e);
            self.ooo.insert(i, b);
            self.ooo_bytes += e - s;
            return (e - s, b);
        }
        let ns = s.min(self.ooo[i].start);
        let ne = e.max(self.ooo[j - 1].end);
        let old: u64 = self.ooo[i..j].iter().map(SackBlock::len).sum();
        let b = SackBlock::new(ns, ne);
        self.ooo[i] = b;
        self.ooo.drain(i + 1..j);
        let added = (ne - ns) - old;
        self.ooo_bytes += added;
        (added, b)
    }

    /// Moves out-of-order ranges that became contiguous with `rcv_nxt` to the
    /// application, and forgets SACK ranges that are now cumulatively acknowledged.
    fn absorb_ooo(&mut self) {
        let k = self.ooo.partition_point(|b| b.start <= self.rcv_nxt);
        for b in &self.ooo[..k] {
            self.ooo_bytes -= b.len();
            self.rcv_nxt = self.rcv_nxt.max(b.end);
        }
        self.ooo.drain(..k);
        let rcv_nxt = self.rcv_nxt;
        self.retain_recent(|b| b.start > rcv_nxt);
    }

    /// RFC 2018 section 4: `block` (the range holding the newest segment) goes first;
    /// earlier-reported ranges follow in order, minus any it now covers.
    fn note_recent(&mut self, block: SackBlock) {
        self.retain_recent(|b| b.end < block.start || b.start > block.end);
        let n = (self.nrecent + 1).min(MAX_SACK_BLOCKS);
        self.recent.copy_within(0..n - 1, 1);
        self.recent[0] = block;
        self.nrecent = n;
    }

    fn retain_recent(&mut self, keep: impl Fn(&SackBlock) -> bool) {
        let mut w = 0;
        for r in 0..self.nrecent {
            if keep(&self.recent[r]) {
                self.recent[w] = self.recent[r];
                w += 1;
            }
        }
        self.nrecent = w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MILLIS;

    const MSS: u32 = 1000;

    fn cfg(sack: bool, delayed_ack: bool) -> TcpConfig {
        TcpConfig {
            sack,
            mss: MSS,
            delayed_ack,
            delayed_ack_count: 2,
            delayed_ack_timeout: 200 * MILLIS,
            rcv_buffer: 64_000,
            ..TcpConfig::default()
        }
    }

    fn seg(i: u64) -> TcpHeader {
        TcpHeader::data(i * MSS as u64, MSS)
    }

    fn blocks(h: &TcpHeader) -> Vec<(u64, u64)> {
        h.sack_blocks().iter().map(|b| (b.start, b.end)).collect()
    }

    #[test]
    fn delayed_ack_every_second_segment() {
        let mut r = TcpReceiver::new(&cfg(false, true));
        assert_eq!(r.on_segment(0, &seg(0)), None);
        assert_eq!(r.delack_deadline(), Some(200 * MILLIS));
        let a = r
            .on_segment(MILLIS, &seg(1))
            .expect("second segment is acknowledged");
        assert_eq!(
            (a.ack, a.wnd, a.nsack, a.seq, a.len),
            (2000, 64_000, 0, 0, 0)
        );
        assert_eq!(r.delack_deadline(), None);
        assert_eq!(r.on_segment(2 * MILLIS, &seg(2)), None);
        assert_eq!(r.on_segment(3 * MILLIS, &seg(3)).map(|a| a.ack), Some(4000));
        assert_eq!(r.delivered_bytes(), 4000);
        assert_eq!(r.stats().acks_sent, 2);
    }

    #[test]
    fn delayed_ack_timer_fires_for_a_lone_segment() {
        let mut r = TcpReceiver::new(&cfg(false, true));
        assert_eq!(r.on_segment(10 * MILLIS, &seg(0)), None);
        assert_eq!(r.delack_deadline(), Some(210 * MILLIS));
        // A small second segment does not reach two full segments' worth; the timer is
        // not restarted by it.
        assert_eq!(r.on_segment(20 * MILLIS, &TcpHeader::data(1000, 100)), None);
        assert_eq!(r.delack_deadline(), Some(210 * MILLIS));
        let a = r.on_delack_timeout(210 * MILLIS).expect("timer ACK");
        assert_eq!(a.ack, 1100);
        assert_eq!(r.delack_deadline(), None);
        assert_eq!(r.on_delack_timeout(300 * MILLIS), None, "nothing pending");
    }

    #[test]
    fn no_delay_when_disabled() {
        let mut r = TcpReceiver::new(&cfg(false, false));
        assert_eq!(r.on_segment(0, &seg(0)).map(|a| a.ack), Some(1000));
        assert_eq!(r.on_segment(0, &seg(1)).map(|a| a.ack), Some(2000));
        assert_eq!(r.delack_deadline(), None);
    }

    #[test]
    fn out_of_order_is_acknowledged_at_once_and_hole_fill_too() {
        let mut r = TcpReceiver::new(&cfg(false, true));
        assert_eq!(r.on_segment(0, &seg(0)), None);
        // Segment 1 lost; 2 arrives: immediate duplicate ACK, pending delayed ACK folded in.
        let a = r.on_segment(1, &seg(2)).expect("dup ACK");
        assert_eq!(a.ack, 1000);
        assert_eq!(a.wnd, 63_000, "out-of-order bytes shrink the window");
        assert_eq!(r.delack_deadline(), None);
        let a = r.on_segment(2, &seg(3)).expect("dup ACK");
        assert_eq!((a.ack, a.wnd), (1000, 62_000));
        // The retransmission fills the hole: immediate ACK for everything.
        let a = r.on_segment(3, &seg(1)).expect("hole filled");
        assert_eq!((a.ack, a.wnd), (4000, 64_000));
        assert_eq!(r.delivered_bytes(), 4000);
        assert_eq!(r.buffered_bytes(), 0);
    }

    #[test]
    fn old_duplicates_are_acknowledged_at_once() {
        let mut r = TcpReceiver::new(&cfg(false, true));
        r.on_segment(0, &seg(0));
        r.on_segment(0, &seg(1));
        let a = r.on_segment(1, &seg(0)).expect("duplicate");
        assert_eq!(a.ack, 2000);
        assert_eq!(r.stats().duplicate_segments, 1);
    }

    #[test]
    fn sack_blocks_most_recent_first() {
        let mut r = TcpReceiver::new(&cfg(true, false));
        r.on_segment(0, &seg(0));
        // Holes at 1, 3, 5, 7; data at 2, 4, 6, 8 arrives in that order.
        let a = r.on_segment(0, &seg(2)).unwrap();
        assert_eq!(blocks(&a), vec![(2000, 3000)]);
        let a = r.on_segment(0, &seg(4)).unwrap();
        assert_eq!(blocks(&a), vec![(4000, 5000), (2000, 3000)]);
        let a = r.on_segment(0, &seg(6)).unwrap();
        assert_eq!(blocks(&a), vec![(6000, 7000), (4000, 5000), (2000, 3000)]);
        let a = r.on_segment(0, &seg(8)).unwrap();
        assert_eq!(
            blocks(&a),
            vec![(8000, 9000), (6000, 7000), (4000, 5000)],
            "at most three, oldest dropped"
        );
        assert_eq!(a.wire_bytes(), 48);
        // Segment 3 joins [2,3) and [4,5): the merged range comes first.
        let a = r.on_segment(0, &seg(3)).unwrap();
        assert_eq!(blocks(&a), vec![(2000, 5000), (8000, 9000), (6000, 7000)]);
        // A duplicate inside an existing range moves that range to the front.
        let a = r.on_segment(0, &seg(6)).unwrap();
        assert_eq!(blocks(&a), vec![(6000, 7000), (2000, 5000), (8000, 9000)]);
        // Filling hole 1 acknowledges [1,5) cumulatively; that block disappears.
        let a = r.on_segment(0, &seg(1)).unwrap();
        assert_eq!(a.ack, 5000);
        assert_eq!(blocks(&a), vec![(6000, 7000), (8000, 9000)]);
        let a = r.on_segment(0, &seg(5)).unwrap();
        assert_eq!(a.ack, 7000);
        assert_eq!(blocks(&a), vec![(8000, 9000)]);
        let a = r.on_segment(0, &seg(7)).unwrap();
        assert_eq!((a.ack, a.nsack, a.wire_bytes()), (9000, 0, 20));
    }

    #[test]
    fn data_beyond_the_buffer_is_dropped() {
        let mut r = TcpReceiver::new(&TcpConfig {
            rcv_buffer: 4000,
            ..cfg(true, false)
        });
        let a = r.on_segment(0, &seg(3)).unwrap();
        assert_eq!((a.ack, a.wnd), (0, 3000));
        let a = r.on_segment(0, &seg(4)).unwrap();
        assert_eq!((a.ack, a.wnd), (0, 3000), "segment 4 does not fit");
        assert_eq!(blocks(&a), vec![(3000, 4000)]);
    }
}
