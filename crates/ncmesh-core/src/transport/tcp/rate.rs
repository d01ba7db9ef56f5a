//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02, as Linux's
//! `net/ipv4/tcp_rate.c` implements it), for BBR ([`super::bbr`]).
//!
//! The connection counts the bytes delivered (`C.delivered`, cumulatively ACKed or
//! SACKed) and when the last delivery happened (`C.delivered_time`). Every
//! transmission records them as it leaves (`P.delivered`, `P.delivered_time`), with
//! `P.first_sent_time`, the send time of the packet most recently delivered then, and
//! whether the application left the sender idle (`P.is_app_limited`). When an ACK
//! delivers packets, the one sent last gives the sample (§3.3): the bytes delivered
//! since it left, over the longer of the send interval (`P.sent_time -
//! P.first_sent_time`) and the ACK interval (`C.delivered_time - P.delivered_time`).
//! A sample over less than the connection's minimum RTT is discarded (§3.3, as Linux:
//! such an interval comes from ACK compression and overestimates the rate).
//!
//! The sender also passes in what BBR reads beside the rate (Linux's `struct
//! rate_sample`): bytes in flight before and after the ACK, bytes it newly delivered,
//! bytes newly marked lost, the RTT of the newest delivered segment and the loss state.

use super::scoreboard::Scoreboard;
use crate::engine::{to_secs, Time};
use std::collections::VecDeque;

/// The sender's loss-recovery state as congestion control sees it (Linux's
/// `icsk_ca_state`: TCP_CA_Open, TCP_CA_Recovery, TCP_CA_Loss).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum CaState {
    /// No recovery.
    #[default]
    Open,
    /// Fast recovery or SACK recovery.
    Recovery,
    /// After a retransmission timeout, until what was outstanding then is acknowledged.
    Loss,
}

/// One transmission not yet cumulatively acknowledged: `[start, end)` and the
/// connection's delivery state when it left (the draft's per-packet `P.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sent {
    start: u64,
    end: u64,
    /// P.sent_time.
    sent_time: Time,
    /// P.delivered.
    delivered: u64,
    /// P.delivered_time.
    delivered_time: Time,
    /// P.first_sent_time.
    first_sent_time: Time,
    /// P.is_app_limited.
    app_limited: bool,
    /// Retransmitted (no RTT sample from it: Karn).
    retransmitted: bool,
    /// Delivered (cumulatively ACKed or SACKed) already.
    delivered_flag: bool,
}

/// One ACK's delivery-rate sample and the sender state BBR reads with it (Linux's
/// `struct rate_sample`). Bytes and nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RateSample {
    /// rs.delivered: bytes delivered over `interval`.
    pub delivered: u64,
    /// rs.interval: `None` when the ACK gives no valid sample.
    pub interval: Option<Time>,
    /// rs.prior_delivered: C.delivered when the sampled packet left.
    pub prior_delivered: u64,
    /// C.delivered after this ACK (Linux's tp->delivered).
    pub total_delivered: u64,
    /// rs.is_app_limited.
    pub is_app_limited: bool,
    /// Bytes this ACK newly delivered (cumulatively or by SACK).
    pub acked_sacked: u64,
    /// RTT of the most recently sent, never retransmitted segment this ACK delivered.
    pub rtt: Option<Time>,
    /// Bytes in flight before the ACK was processed.
    pub prior_in_flight: u64,
    /// Bytes in flight after it.
    pub in_flight: u64,
    /// Bytes newly marked lost while processing it.
    pub losses: u64,
    /// The sender's loss state after it.
    pub ca_state: CaState,
}

impl RateSample {
    /// The delivery rate, bytes per second, if the sample is valid.
    pub fn delivery_rate(&self) -> Option<f64> {
        let i = self.interval.filter(|&i| i > 0)?;
        Some(self.delivered as f64 / to_secs(i))
    }
}

/// The connection's delivery-rate state (the draft's `C.*`) and its transmissions.
#[derive(Debug, Clone, Default)]
pub struct RateSampler {
    /// C.delivered, bytes.
    delivered: u64,
    /// C.delivered_time.
    delivered_time: Time,
    /// C.first_sent_time.
    first_sent_time: Time,
    /// C.app_limited: the C.delivered value past which samples are no longer
    /// application-limited; 0 = not application-limited.
    app_limited: u64,
    /// The connection's minimum RTT so far (Linux's `tcp_min_rtt`).
    min_rtt: Option<Time>,
    sent: VecDeque<Sent>,
}

impl RateSampler {
    /// Nothing sent.
    pub fn new() -> Self {
        Self::default()
    }

    /// C.delivered: bytes delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// The smallest RTT sample so far.
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    /// Whether samples are marked application-limited now.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// §3.4: the sender has less to send than the window allows, with `in_flight`
    /// bytes in flight: samples until that much more is delivered are
    /// application-limited (C.app_limited = C.delivered + inflight, at least 1). BBR's
    /// PROBE_RTT uses the same marking to ignore its low samples (tcp_bbr.c).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// §3.2: `[start, end)` left at `now`; `idle`: nothing was outstanding before it.
    /// A retransmission restamps the recorded bytes it covers.
    pub fn on_sent(&mut self, now: Time, start: u64, end: u64, idle: bool, retransmission: bool) {
        if idle {
            // Nothing in flight: the send and ACK intervals start now.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let stamp = Sent {
            start,
            end,
            sent_time: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited != 0,
            retransmitted: retransmission,
            delivered_flag: false,
        };
        if !retransmission || self.sent.back().is_none_or(|s| s.end <= start) {
            self.sent.push_back(stamp);
            return;
        }
        self.split_at(start);
        self.split_at(end);
        for s in self.sent.iter_mut() {
            if s.start >= start && s.end <= end && !s.delivered_flag {
                *s = Sent {
                    start: s.start,
                    end: s.end,
                    retransmitted: true,
                    ..stamp
                };
            }
        }
    }

    /// Splits the record holding byte `at` (if any starts below it) into two.
    fn split_at(&mut self, at: u64) {
        let i = self.sent.partition_point(|s| s.end <= at);
        if let Some(&s) = self.sent.get(i) {
            if s.start < at {
                self.sent[i].end = at;
                self.sent.insert(i + 1, Sent { start: at, ..s });
            }
        }
    }

    /// §3.3: an ACK with cumulative `ack` and SACK state `sb` arrived at `now`. Returns
    /// the sample with `delivered`, `interval`, `prior_delivered`, `is_app_limited`,
    /// `acked_sacked` and `rtt` set; the caller fills in the rest.
    pub fn on_ack(&mut self, now: Time, ack: u64, sb: &Scoreboard) -> RateSample {
        let mut rs = RateSample::default();
        // The packet that gives the sample: the one with the highest P.delivered (the
        // most recently sent), ties to the later send.
        let mut best: Option<Sent> = None;
        let mut newest_rtt: Option<(Time, u64)> = None;
        for s in self.sent.iter_mut() {
            if s.start >= ack && sb.is_empty() {
                break;
            }
            if s.delivered_flag {
                continue;
            }
            let done = s.end <= ack || sb.sacked_end_at(s.start).is_some_and(|e| e >= s.end);
            if !done {
                continue;
            }
            s.delivered_flag = true;
            let len = s.end - s.start;
            self.delivered += len;
            rs.acked_sacked += len;
            if best.is_none_or(|b| (s.delivered, s.sent_time) >= (b.delivered, b.sent_time)) {
                best = Some(*s);
            }
            if !s.retransmitted && newest_rtt.is_none_or(|(t, e)| (s.sent_time, s.end) > (t, e)) {
                newest_rtt = Some((s.sent_time, s.end));
            }
        }
        while self.sent.front().is_some_and(|s| s.end <= ack) {
            self.sent.pop_front();
        }
        rs.total_delivered = self.delivered;
        if let Some((sent, _)) = newest_rtt {
            let rtt = now.saturating_sub(sent);
            rs.rtt = Some(rtt);
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        let Some(p) = best else {
            return rs;
        };
        self.delivered_time = now;
        // §3.3: the next send interval starts at the sampled packet's send time.
        self.first_sent_time = p.sent_time;
        // §3.4: the application-limited phase ends once its data is delivered.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        rs.prior_delivered = p.delivered;
        rs.is_app_limited = p.app_limited;
        rs.delivered = self.delivered - p.delivered;
        let send_elapsed = p.sent_time.saturating_sub(p.first_sent_time);
        let ack_elapsed = self.delivered_time.saturating_sub(p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        // An interval below the minimum RTT is ACK compression: no sample (Linux
        // tcp_rate_gen: "interval_us < tcp_min_rtt(tp)").
        rs.interval =
            (interval > 0 && self.min_rtt.is_none_or(|m| interval >= m)).then_some(interval);
        rs
    }

    /// After a retransmission timeout every outstanding transmission is to be resent;
    /// their records stay (a late delivery of an original still counts once).
    pub fn outstanding(&self) -> usize {
        self.sent.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MILLIS;
    use crate::wire::tcp::SackBlock;

    const MSS: u64 = 1000;

    fn send(r: &mut RateSampler, now: Time, i: u64, in_flight: u64) {
        r.on_sent(now, i * MSS, (i + 1) * MSS, in_flight == 0, false);
    }

    #[test]
    fn a_paced_flight_samples_the_sending_rate() {
        // Ten segments, one every 10 ms (100 kB/s), each ACKed 100 ms after it left;
        // every ACK releases the next segment (a flight of ten at 100 kB/s).
        let mut r = RateSampler::new();
        let sb = Scoreboard::new();
        for i in 0..10 {
            send(&mut r, i * 10 * MILLIS, i, i * MSS);
        }
        let mut samples = vec![];
        for i in 0..=10 {
            let now = (100 + i * 10) * MILLIS;
            samples.push(r.on_ack(now, (i + 1) * MSS, &sb));
            send(&mut r, now, 10 + i, 9 * MSS);
        }
        let first = samples[0];
        assert_eq!(first.acked_sacked, MSS);
        assert_eq!(first.rtt, Some(100 * MILLIS));
        // The first packet left with nothing delivered: one segment over the 100 ms
        // ACK interval (its send interval is 0).
        assert_eq!((first.delivered, first.interval), (MSS, Some(100 * MILLIS)));
        assert_eq!(first.delivery_rate(), Some(10_000.0));
        // The second: two segments since t = 0, over the 110 ms ACK interval.
        let s = samples[1];
        assert_eq!((s.delivered, s.interval), (2 * MSS, Some(110 * MILLIS)));
        // Packet 10 left at 100 ms with one segment delivered (at 100 ms) and the
        // send interval starting at packet 0's send (0 ms); at its ACK (200 ms) eleven
        // are: ten segments over 100 ms, both intervals.
        let s = samples[10];
        assert_eq!(s.prior_delivered, MSS);
        assert_eq!(s.delivered, 10 * MSS);
        assert_eq!(s.interval, Some(100 * MILLIS));
        assert_eq!(s.delivery_rate(), Some(100_000.0));
        assert_eq!(r.min_rtt(), Some(100 * MILLIS));
    }

    #[test]
    fn sacked_segments_count_as_delivered_once() {
        let mut r = RateSampler::new();
        for i in 0..4 {
            send(&mut r, 0, i, i * MSS);
        }
        let mut sb = Scoreboard::new();
        sb.update(0, 4 * MSS, &[SackBlock::new(MSS, 3 * MSS)]);
        let s = r.on_ack(100 * MILLIS, 0, &sb);
        assert_eq!(s.acked_sacked, 2 * MSS);
        assert_eq!(r.delivered(), 2 * MSS);
        sb.advance(4 * MSS);
        let s = r.on_ack(120 * MILLIS, 4 * MSS, &sb);
        assert_eq!(s.acked_sacked, 2 * MSS, "segments 0 and 3 only");
        assert_eq!(r.delivered(), 4 * MSS);
        assert_eq!(r.outstanding(), 0);
    }

    #[test]
    fn retransmissions_give_no_rtt_and_app_limited_marks_end_on_delivery() {
        let mut r = RateSampler::new();
        let sb = Scoreboard::new();
        send(&mut r, 0, 0, 0);
        r.on_sent(SECOND_HALF, 0, MSS, false, true);
        let s = r.on_ack(SECOND_HALF + 10 * MILLIS, MSS, &sb);
        assert_eq!(s.rtt, None, "Karn");
        assert_eq!(s.acked_sacked, MSS);
        // Application-limited until the data in flight now is delivered.
        send(&mut r, SECOND_HALF + 20 * MILLIS, 1, 0);
        r.mark_app_limited(MSS);
        send(&mut r, SECOND_HALF + 21 * MILLIS, 2, MSS);
        let s = r.on_ack(SECOND_HALF + 120 * MILLIS, 2 * MSS, &sb);
        assert!(!s.is_app_limited, "segment 1 left before the mark");
        assert!(r.is_app_limited(), "C.delivered 2 segments, mark at 2");
        let s = r.on_ack(SECOND_HALF + 121 * MILLIS, 3 * MSS, &sb);
        assert!(s.is_app_limited);
        assert!(!r.is_app_limited(), "delivered past the mark");
    }

    const SECOND_HALF: Time = 500 * MILLIS;
}
