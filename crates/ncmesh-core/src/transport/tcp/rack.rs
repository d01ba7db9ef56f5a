//! RACK (RFC 8985 §6): loss detection by time. A segment is lost once a segment sent
//! after it has been delivered (cumulatively ACKed or SACKed) and more than
//! RACK.rtt + RACK.reo_wnd has passed since it was sent; the duplicate-ACK count plays
//! no part. The reordering window is zero until reordering is seen (so a hole with
//! DupThresh segments SACKed above it is lost at once, as RFC 6675's rule would), then
//! min RTT / 4, grown by DSACK rounds (§6.2 step 4). A reordering timer fires when
//! the window of a not-yet-lost segment expires.
//!
//! [`Rack`] keeps every unacknowledged transmission (its bytes, when it last left and
//! whether it was retransmitted), reads SACK state from the sender's [`Scoreboard`],
//! and marks segments lost; the sender retransmits what it marks (RFC 6675's NextSeg
//! rule (1) with RACK's marks for IsLost) and counts pipe from it.

use super::scoreboard::Scoreboard;
use crate::engine::Time;
use crate::wire::tcp::SackBlock;
use std::collections::VecDeque;

/// One transmission not yet cumulatively acknowledged: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sent {
    start: u64,
    end: u64,
    /// Segment.xmit_ts: when it was last sent.
    xmit_ts: Time,
    /// Segment.retransmitted.
    retransmitted: bool,
    /// Segment.lost: marked lost and not retransmitted since.
    lost: bool,
    /// Delivered by a SACK.
    sacked: bool,
}

/// RFC 8985 §6.2 step 4: DSACK-free recoveries before the reordering window's
/// multiplier drops back to 1.
const REO_WND_PERSIST: u32 = 16;

/// RACK's state for one connection (RFC 8985 §5.2 names).
#[derive(Debug, Clone)]
pub struct Rack {
    segs: VecDeque<Sent>,
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent delivered segment.
    xmit_ts: Time,
    end_seq: u64,
    /// RACK.rtt: the RTT of that segment.
    rtt: Time,
    /// RACK.min_RTT (over the connection's life).
    min_rtt: Option<Time>,
    /// RACK.fack: the highest end of any delivered segment.
    fack: u64,
    /// RACK.reordering_seen.
    reordering_seen: bool,
    /// RACK.reo_wnd_mult, RACK.reo_wnd_persist, RACK.dsack_round.
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    dsack_round: Option<u64>,
    /// The reordering timer's deadline.
    timer: Option<Time>,
}

impl Default for Rack {
    fn default() -> Self {
        Self::new()
    }
}

impl Rack {
    /// Nothing sent (RFC 8985 §6.1 initialisation).
    pub fn new() -> Self {
        Rack {
            segs: VecDeque::new(),
            xmit_ts: 0,
            end_seq: 0,
            rtt: 0,
            min_rtt: None,
            fack: 0,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: REO_WND_PERSIST,
            dsack_round: None,
            timer: None,
        }
    }

    /// `[start, end)` left at `now` (§5.2 Segment.xmit_ts, Segment.retransmitted). A
    /// retransmission restamps every recorded byte it covers and clears their loss mark.
    pub fn on_sent(&mut self, now: Time, start: u64, end: u64, retransmission: bool) {
        if !retransmission {
            self.segs.push_back(Sent {
                start,
                end,
                xmit_ts: now,
                retransmitted: false,
                lost: false,
                sacked: false,
            });
            return;
        }
        self.split_at(start);
        self.split_at(end);
        for s in self.segs.iter_mut() {
            if s.start >= start && s.end <= end {
                s.xmit_ts = now;
                s.retransmitted = true;
                s.lost = false;
            }
        }
    }

    /// Splits the record holding byte `at` (if any starts below it) into two.
    fn split_at(&mut self, at: u64) {
        let i = self.segs.partition_point(|s| s.end <= at);
        if let Some(&s) = self.segs.get(i) {
            if s.start < at {
                self.segs[i].end = at;
                self.segs.insert(i + 1, Sent { start: at, ..s });
            }
        }
    }

    /// An ACK arrived (RFC 8985 §6.2 steps 1-3): every segment it newly delivers
    /// (below `ack`, or SACKed in `sb`) updates RACK.xmit_ts/end_seq/rtt and
    /// RACK.min_RTT and reveals reordering when it lies below RACK.fack. Segments below
    /// `ack` are forgotten.
    pub fn on_ack(&mut self, now: Time, ack: u64, sb: &Scoreboard) {
        // Step 4's first rule: a DSACK round ends when SND.UNA passes it.
        if self.dsack_round.is_some_and(|r| ack >= r) {
            self.dsack_round = None;
        }
        let mut delivered = vec![];
        for s in self.segs.iter_mut() {
            let sacked = s.end <= ack || sb.sacked_end_at(s.start).is_some_and(|e| e >= s.end);
            if sacked && !s.sacked {
                s.sacked = true;
                delivered.push(*s);
            }
        }
        // Step 2 takes them in ascending order of Segment.xmit_ts.
        delivered.sort_by_key(|s| (s.xmit_ts, s.end));
        for s in delivered {
            self.update(now, &s);
        }
        while self.segs.front().is_some_and(|s| s.end <= ack) {
            self.segs.pop_front();
        }
    }

    /// §6.2 step 2 (RACK_update) and step 3 (RACK_detect_reordering) for one newly
    /// delivered segment.
    fn update(&mut self, now: Time, s: &Sent) {
        let rtt = now.saturating_sub(s.xmit_ts);
        // Step 2: without timestamps, an RTT below min_RTT from a retransmitted
        // segment must be the original's ACK: ignore it.
        if s.retransmitted && self.min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        self.rtt = rtt;
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        if sent_after(s.xmit_ts, s.end, self.xmit_ts, self.end_seq) {
            self.xmit_ts = s.xmit_ts;
            self.end_seq = s.end;
        }
        // Step 3: delivered below the highest delivered sequence = reordering (a
        // retransmission delivered below it is repair, not reordering).
        if s.end < self.fack {
            if !s.retransmitted {
                self.reordering_seen = true;
            }
        } else {
            self.fack = s.end;
        }
    }

    /// §6.2 step 4: an ACK carried a DSACK (RFC 2883) with `snd_nxt` sent: the
    /// reordering window grows by one multiple of min_RTT/4 per round trip that sees
    /// one, and is kept for 16 recoveries.
    pub fn on_dsack(&mut self, snd_nxt: u64) {
        if self.dsack_round.is_none() {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// §6.2 step 4: fast or RTO recovery ended; after 16 without a DSACK the
    /// multiplier is reset.
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// §6.2 step 4, RACK.reo_wnd: 0 before any reordering while in recovery or once
    /// DupThresh segments are SACKed; otherwise min(reo_wnd_mult · min_RTT / 4, SRTT).
    pub fn reo_wnd(&self, in_recovery: bool, dupthresh: u32, srtt: Time) -> Time {
        if !self.reordering_seen && (in_recovery || self.segs_sacked() >= dupthresh as usize) {
            return 0;
        }
        let min_rtt = self.min_rtt.unwrap_or(0);
        (self.reo_wnd_mult as Time * min_rtt / 4).min(srtt)
    }

    /// RACK.segs_sacked: SACKed segments above the cumulative ACK.
    fn segs_sacked(&self) -> usize {
        self.segs.iter().filter(|s| s.sacked).count()
    }

    /// §6.2 step 5 (RACK_detect_loss) with `reo_wnd`: marks lost every undelivered
    /// segment sent before RACK.xmit_ts whose RACK.rtt + reo_wnd has elapsed, and
    /// arms the reordering timer for the earliest one that has not (§6.2
    /// RACK_detect_loss_and_arm_timer). Returns the bytes newly marked lost.
    pub fn detect_loss(&mut self, now: Time, reo_wnd: Time) -> u64 {
        let mut lost = 0;
        let mut wait: Option<Time> = None;
        for s in self.segs.iter_mut() {
            if s.sacked || s.lost || !sent_after(self.xmit_ts, self.end_seq, s.xmit_ts, s.end) {
                continue;
            }
            let due = s.xmit_ts + self.rtt + reo_wnd;
            if due <= now {
                s.lost = true;
                lost += s.end - s.start;
            } else {
                let remaining = due - now;
                wait = Some(wait.map_or(remaining, |w| w.max(remaining)));
            }
        }
        self.timer = wait.map(|w| now + w);
        lost
    }

    /// §6.3 (RACK_mark_losses_on_RTO): the head and every segment whose RACK.rtt +
    /// reo_wnd has passed are lost; SACK state is forgotten with the scoreboard's.
    pub fn on_rto(&mut self, now: Time, snd_una: u64, reo_wnd: Time) {
        for s in self.segs.iter_mut() {
            s.sacked = false;
            if s.start == snd_una || s.xmit_ts + self.rtt + reo_wnd <= now {
                s.lost = true;
            }
        }
        self.timer = None;
    }

    /// When the reordering timer fires, if armed.
    pub fn timer_deadline(&self) -> Option<Time> {
        self.timer
    }

    /// The first segment at or above `from` marked lost and not retransmitted since:
    /// NextSeg rule (1)'s candidate.
    pub fn first_lost(&self, from: u64) -> Option<(u64, u64)> {
        self.segs
            .iter()
            .find(|s| s.lost && s.end > from)
            .map(|s| (s.start.max(from), s.end))
    }

    /// Bytes in flight: sent, neither delivered nor marked lost (RFC 6675 SetPipe()
    /// with RACK's marks standing for IsLost(); a retransmission counts once).
    pub fn pipe(&self) -> u64 {
        self.segs
            .iter()
            .filter(|s| !s.sacked && !s.lost)
            .map(|s| s.end - s.start)
            .sum()
    }

    /// Whether reordering has been seen.
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }

    /// Is byte `seq` marked lost?
    pub fn is_lost(&self, seq: u64) -> bool {
        self.segs
            .iter()
            .any(|s| s.lost && s.start <= seq && seq < s.end)
    }
}

/// RFC 2883 §4: an ACK reports a duplicate segment (DSACK) when its first SACK block
/// lies below the cumulative ACK or within its second block. (ncmesh's receiver sends
/// none; the sender still reads them, for RACK's reordering window and TLP.)
pub fn carries_dsack(ack: u64, blocks: &[SackBlock]) -> bool {
    match blocks {
        [first, ..] if first.start < ack => true,
        [first, second, ..] => second.start <= first.start && first.end <= second.end,
        _ => false,
    }
}

/// §6.2 RACK_sent_after(t1, seq1, t2, seq2): sent later, or at the same time and higher.
fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MILLIS;

    const MSS: u64 = 1000;
    const SRTT: Time = 10_000 * MILLIS;

    /// Ten segments sent 1 ms apart from t = 0.
    fn ten() -> Rack {
        let mut r = Rack::new();
        for i in 0..10 {
            r.on_sent(i * MILLIS, i * MSS, (i + 1) * MSS, false);
        }
        r
    }

    fn sacked(blocks: &[(u64, u64)]) -> Scoreboard {
        let mut sb = Scoreboard::new();
        let b: Vec<_> = blocks.iter().map(|&(a, b)| SackBlock::new(a, b)).collect();
        sb.update(0, u64::MAX, &b);
        sb
    }

    #[test]
    fn lost_by_time_not_by_duplicate_count() {
        // Segment 0 missing, segment 1 SACKed at 100 ms (RTT 99 ms): one SACKed
        // segment, far from DupThresh, yet segment 0 is lost once RACK.rtt + reo_wnd
        // has passed since it was sent (fewer than DupThresh SACKed: reo_wnd =
        // min_RTT / 4).
        let mut r = ten();
        r.on_ack(100 * MILLIS, 0, &sacked(&[(MSS, 2 * MSS)]));
        let reo = r.reo_wnd(false, 3, 99 * MILLIS);
        assert_eq!(reo, 99 * MILLIS / 4, "§6.2: min_RTT / 4");
        assert_eq!(r.detect_loss(100 * MILLIS, reo), 0, "within the window");
        let due = 99 * MILLIS + reo; // xmit_ts 0 + RACK.rtt + reo_wnd
        assert_eq!(r.timer_deadline(), Some(due), "the reordering timer");
        assert_eq!(r.detect_loss(due, reo), MSS, "lost by time on the timer");
        assert!(r.is_lost(0) && !r.is_lost(MSS) && !r.is_lost(2 * MSS));
        assert_eq!(r.first_lost(0), Some((0, MSS)));
    }

    #[test]
    fn three_sacked_without_reordering_means_lost_at_once() {
        // §6.2 step 4: no reordering seen and DupThresh segments SACKed: reo_wnd = 0.
        let mut r = ten();
        r.on_ack(100 * MILLIS, 0, &sacked(&[(MSS, 4 * MSS)]));
        assert_eq!(r.reo_wnd(false, 3, 99 * MILLIS), 0);
        assert_eq!(r.detect_loss(100 * MILLIS, 0), MSS);
        assert_eq!(r.pipe(), 6 * MSS, "segments 4-9 in flight");
    }

    #[test]
    fn a_reordered_segment_within_the_window_is_not_lost_one_beyond_is() {
        let mut r = ten();
        // Segment 0 arrives after segment 1 (reordering): seen once delivered below fack.
        r.on_ack(100 * MILLIS, 0, &sacked(&[(MSS, 2 * MSS)]));
        r.on_ack(102 * MILLIS, 2 * MSS, &Scoreboard::new());
        assert!(r.reordering_seen());
        // Segments 3..6 SACKed, 2 missing: with reordering seen, reo_wnd = min_RTT / 4
        // even though three segments are SACKed.
        let sb = sacked(&[(3 * MSS, 6 * MSS)]);
        r.on_ack(105 * MILLIS, 2 * MSS, &sb);
        let min_rtt = 99 * MILLIS;
        let reo = r.reo_wnd(false, 3, 100 * MILLIS);
        assert_eq!(reo, min_rtt / 4);
        // Segment 2 (sent at 2 ms; RACK.rtt = 100 ms from segment 5) is due at
        // 126.75 ms.
        assert_eq!(
            r.detect_loss(110 * MILLIS, reo),
            0,
            "reordered, within reo_wnd"
        );
        // It arrives late, within the window: never marked.
        r.on_ack(115 * MILLIS, 6 * MSS, &Scoreboard::new());
        assert_eq!(r.detect_loss(115 * MILLIS, reo), 0);
        assert_eq!(r.first_lost(0), None);
        // Segment 6 missing while 7 is SACKed: beyond the window it is lost.
        r.on_ack(120 * MILLIS, 6 * MSS, &sacked(&[(7 * MSS, 8 * MSS)]));
        let reo = r.reo_wnd(false, 3, 100 * MILLIS);
        let due = 6 * MILLIS + (120 - 7) * MILLIS + reo;
        assert_eq!(r.detect_loss(due - 1, reo), 0);
        assert_eq!(r.detect_loss(due, reo), MSS);
        assert_eq!(r.first_lost(0), Some((6 * MSS, 7 * MSS)));
    }

    #[test]
    fn retransmission_clears_the_mark_and_can_be_lost_again() {
        let mut r = ten();
        r.on_ack(100 * MILLIS, 0, &sacked(&[(MSS, 4 * MSS)]));
        assert_eq!(r.detect_loss(100 * MILLIS, 0), MSS);
        r.on_sent(100 * MILLIS, 0, MSS, true);
        assert_eq!(r.first_lost(0), None);
        // A segment sent after the retransmission is delivered, the retransmission not:
        // RACK detects the lost retransmission by time too.
        r.on_sent(101 * MILLIS, 10 * MSS, 11 * MSS, false);
        r.on_ack(
            201 * MILLIS,
            0,
            &sacked(&[(MSS, 4 * MSS), (10 * MSS, 11 * MSS)]),
        );
        assert_eq!(r.detect_loss(201 * MILLIS, 0), 7 * MSS, "0 and 4..9");
        assert!(r.is_lost(0));
    }

    #[test]
    fn a_retransmission_covering_several_records_restamps_them() {
        let mut r = Rack::new();
        for i in 0..4 {
            r.on_sent(0, i * 500, (i + 1) * 500, false);
        }
        r.on_sent(10, 250, 1250, true);
        assert_eq!(r.segs.len(), 6);
        let stamped: Vec<_> = r.segs.iter().map(|s| (s.start, s.xmit_ts)).collect();
        assert_eq!(
            stamped,
            vec![
                (0, 0),
                (250, 10),
                (500, 10),
                (1000, 10),
                (1250, 0),
                (1500, 0)
            ]
        );
    }

    #[test]
    fn dsack_rounds_grow_the_window_and_sixteen_recoveries_reset_it() {
        let mut r = ten();
        r.on_ack(100 * MILLIS, 0, &sacked(&[(MSS, 2 * MSS)]));
        let base = r.reo_wnd(false, 3, SRTT);
        r.on_dsack(10 * MSS);
        r.on_dsack(10 * MSS); // same round: no further growth
        assert_eq!(r.reo_wnd(false, 3, SRTT), 2 * base);
        r.on_ack(109 * MILLIS, 10 * MSS, &Scoreboard::new()); // round over
        r.on_dsack(20 * MSS);
        assert_eq!(r.reo_wnd(false, 3, SRTT), 3 * base);
        // Capped at SRTT.
        assert_eq!(r.reo_wnd(false, 3, base), base);
        for _ in 0..15 {
            r.on_recovery_exit();
        }
        assert_eq!(r.reo_wnd(false, 3, SRTT), 3 * base);
        r.on_recovery_exit();
        assert_eq!(r.reo_wnd(false, 3, SRTT), base, "16 DSACK-free recoveries");
    }

    #[test]
    fn dsack_is_a_first_block_below_the_ack_or_inside_the_second() {
        let b = |a, e| SackBlock::new(a, e);
        assert!(carries_dsack(5000, &[b(3000, 4000)]));
        assert!(carries_dsack(1000, &[b(3000, 4000), b(2000, 6000)]));
        assert!(!carries_dsack(1000, &[b(3000, 4000), b(5000, 6000)]));
        assert!(!carries_dsack(1000, &[b(3000, 4000)]));
        assert!(!carries_dsack(1000, &[]));
    }

    #[test]
    fn rto_marks_the_head_and_the_expired_lost() {
        let mut r = ten();
        r.on_ack(100 * MILLIS, 2 * MSS, &Scoreboard::new());
        r.on_rto(102 * MILLIS, 2 * MSS, 0);
        // RACK.rtt = 99 ms (segment 1, sent at 1 ms): segments sent by 3 ms are due.
        assert!(r.is_lost(2 * MSS) && r.is_lost(3 * MSS));
        assert!(!r.is_lost(4 * MSS));
    }
}
