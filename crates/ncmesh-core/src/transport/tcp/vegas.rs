//! TCP Vegas (L. Brakmo, S. O'Malley, L. Peterson, "TCP Vegas: new techniques for
//! congestion detection and avoidance", SIGCOMM 1994), as ns-2's `Agent/TCP/Vegas`
//! (tcp-vegas.cc, the agent Sundararajan et al.'s TCP/NC and ns-2 studies such as
//! Gheorghiu et al.'s CoMP build on). There is no RFC; every rule below is the agent's.
//!
//! Once per round trip (the first ACK that covers the segment that was next to send
//! when the previous epoch ended) Vegas compares the rate it expects with the
//! window it has, `expect = window / baseRTT`, with the rate it got, `actual = sent in
//! the epoch / rtt`, and turns the difference into segments queued in the network:
//!
//! ```text
//! delta = round((expect - actual) * baseRTT)
//! ```
//!
//! where `rtt` is the mean of the epoch's per-ACK samples (the time since the epoch
//! began when there are none), `baseRTT` the smallest RTT seen, and the window the
//! agent's `t_seqno_ - last_ack_` (the segments outstanding plus one). Then:
//!
//! - slow start (cwnd < ssthresh): every other epoch, if delta > gamma, ssthresh = 2
//!   segments and cwnd -= cwnd/8 (at least 2 segments); otherwise one segment per ACK
//!   for the next epoch (stopping at ssthresh);
//! - congestion avoidance: delta > beta: cwnd -= 1 segment (at least 2); delta < alpha:
//!   1/cwnd segments per ACK for the next epoch; otherwise the window is held.
//!
//! An increment is applied only while cwnd exceeds that window by at most two segments
//! (the agent's "have we kept up with the window" check). Decreases apply at once.
//!
//! Losses: on the third duplicate ACK the window becomes 2 segments if it was at most 3,
//! and 3/4 otherwise (the agent's halving when the lost segment had been sent twice
//! cannot arise here: with the sender's `recover` rule a segment sent twice is never
//! the one three duplicates point at); recovery
//! is the sender's (NewReno or SACK; the agent's is Reno's), and on leaving it ssthresh
//! is 2 segments, so Vegas continues in congestion avoidance. A timeout halves ssthresh
//! (RFC 5681) and restarts from a window of 2 segments (the agent's `v_slowstart_`).
//! Not modelled: the agent's fine-grained timeout check on the first duplicate ACK and
//! on the two new ACKs after a retransmission, and its "cut once since the lost segment
//! was sent" test, which the sender's one recovery per window stands for
//! (docs/assumptions.md).

use super::congestion::{CongestionControl, Window};
use crate::engine::{to_secs, Time};

/// Vegas thresholds, segments (ns-2 defaults: alpha 1, beta 3, gamma 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VegasParams {
    /// Below this many queued segments, congestion avoidance grows the window.
    pub alpha: u32,
    /// Above this many, it shrinks the window by a segment.
    pub beta: u32,
    /// Above this many, slow start ends.
    pub gamma: u32,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams {
            alpha: 1,
            beta: 3,
            gamma: 1,
        }
    }
}

/// What the last epoch decided for the ACKs of the next one.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Growth {
    /// Hold the window.
    Hold,
    /// One segment per ACK (slow start).
    Segment,
    /// This many bytes per ACK (congestion avoidance: SMSS/cwnd segments).
    Bytes(u64),
}

/// TCP Vegas's window control (see the module docs).
#[derive(Debug, Clone)]
pub struct Vegas {
    p: VegasParams,
    smss: u64,
    /// Smallest RTT seen (`None` before the first).
    base_rtt: Option<Time>,
    /// The epoch ends with the first ACK at or past this byte.
    epoch_seq: u64,
    /// When the epoch began.
    epoch_start: Time,
    /// Per-ACK RTT samples of the epoch: sum and count.
    rtt_sum: Time,
    rtt_count: u32,
    /// Slow start acts every other epoch (the agent's `v_inc_flag_`, starting set).
    act_this_epoch: bool,
    growth: Growth,
    /// A cut decided on an ACK during loss recovery, applied if that ACK ends it
    /// (outside recovery cuts apply at once).
    pending_cut: Option<Cut>,
    /// The agent's window after the latest new ACK, `t_seqno_ - last_ack_` in bytes: the
    /// bytes outstanding plus one segment.
    window: u64,
}

/// A decrease decided at the end of an epoch.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cut {
    /// Slow start overshot: ssthresh = 2 segments, cwnd -= cwnd/8.
    EndSlowStart,
    /// Congestion avoidance: one segment less.
    OneSegment,
}

impl Vegas {
    /// Vegas with thresholds `p` and segment size `smss` bytes.
    pub fn new(p: VegasParams, smss: u64) -> Self {
        Vegas {
            p,
            smss: smss.max(1),
            base_rtt: None,
            epoch_seq: 0,
            epoch_start: 0,
            rtt_sum: 0,
            rtt_count: 0,
            act_this_epoch: true,
            growth: Growth::Hold,
            pending_cut: None,
            window: 0,
        }
    }

    /// The thresholds in force.
    pub fn params(&self) -> VegasParams {
        self.p
    }

    /// Smallest RTT seen so far.
    pub fn base_rtt(&self) -> Option<Time> {
        self.base_rtt
    }

    fn segments(&self, bytes: u64) -> f64 {
        bytes as f64 / self.smss as f64
    }

    /// The end of an epoch: the per-RTT decision (tcp-vegas.cc, "once per-rtt
    /// actions"), returning the cut it decides, if any. `w` is the window before this
    /// ACK's growth.
    fn end_epoch(&mut self, w: &Window, now: Time, snd_nxt: u64) -> Option<Cut> {
        let mut cut = None;
        let rtt = if self.rtt_count > 0 {
            self.rtt_sum / self.rtt_count as Time
        } else {
            now.saturating_sub(self.epoch_start)
        };
        self.rtt_sum = 0;
        self.rtt_count = 0;
        let sent = self.segments(snd_nxt.saturating_sub(self.epoch_seq));
        if rtt > 0 {
            // With one segment in the epoch the RTT is as good as a base measurement.
            if self.base_rtt.is_none_or(|b| rtt < b) || sent <= 1.0 {
                self.base_rtt = Some(rtt);
            }
            let base = to_secs(self.base_rtt.unwrap_or(rtt));
            let actual = sent / to_secs(rtt);
            let expect = self.segments(self.window) / base;
            // The agent rounds with int(x + 0.5), which truncates towards zero.
            let delta = ((expect - actual) * base + 0.5) as i64;
            if w.in_slow_start() {
                self.act_this_epoch = !self.act_this_epoch;
                self.growth = Growth::Hold;
                if self.act_this_epoch {
                    if delta > self.p.gamma as i64 {
                        cut = Some(Cut::EndSlowStart);
                    } else {
                        self.growth = Growth::Segment;
                    }
                }
            } else if delta > self.p.beta as i64 {
                cut = Some(Cut::OneSegment);
                self.growth = Growth::Hold;
            } else if delta < self.p.alpha as i64 {
                self.growth = Growth::Bytes((self.smss * self.smss / w.cwnd.max(1)).max(1));
            } else {
                self.growth = Growth::Hold;
            }
        }
        self.epoch_seq = snd_nxt;
        self.epoch_start = now;
        cut
    }

    fn apply(&self, cut: Cut, w: &mut Window) {
        let two = 2 * self.smss;
        match cut {
            Cut::EndSlowStart => {
                w.ssthresh = two;
                w.cwnd = (w.cwnd - w.cwnd / 8).max(two);
            }
            Cut::OneSegment => w.cwnd = w.cwnd.saturating_sub(self.smss).max(two),
        }
    }
}

impl CongestionControl for Vegas {
    fn on_cumulative_ack(
        &mut self,
        w: &mut Window,
        now: Time,
        ack: u64,
        snd_nxt: u64,
        in_recovery: bool,
    ) {
        self.pending_cut = None;
        self.window = snd_nxt.saturating_sub(ack) + self.smss;
        // The agent's `seqno >= v_begseq_`: the ACK covers the tagged segment.
        if ack <= self.epoch_seq {
            return;
        }
        match self.end_epoch(w, now, snd_nxt) {
            Some(cut) if in_recovery => self.pending_cut = Some(cut),
            Some(cut) => self.apply(cut, w),
            None => {}
        }
    }

    fn on_ack(&mut self, w: &mut Window, _now: Time, acked: u64) {
        let two = 2 * self.smss;
        if acked == 0 {
            return;
        }
        // Slow start's increment stops at ssthresh even within the epoch.
        if self.growth == Growth::Segment && !w.in_slow_start() {
            self.growth = Growth::Hold;
        }
        let inc = match self.growth {
            Growth::Hold => return,
            Growth::Segment => self.smss,
            Growth::Bytes(b) => b,
        };
        // Only while the sender keeps up with its window.
        if w.cwnd <= self.window + two {
            w.cwnd = w.cwnd.saturating_add(inc);
        }
    }

    fn wants_ack_rtt(&self) -> bool {
        true
    }

    fn on_ack_rtt(&mut self, _now: Time, rtt: Time) {
        if rtt == 0 {
            return;
        }
        self.rtt_sum += rtt;
        self.rtt_count += 1;
        if self.base_rtt.is_none_or(|b| rtt < b) {
            self.base_rtt = Some(rtt);
        }
    }

    fn ssthresh_after_dupacks(&self, w: &Window, _flight: u64) -> u64 {
        let win = w.cwnd / self.smss;
        if win <= 3 {
            2 * self.smss
        } else {
            (win - win / 4) * self.smss
        }
    }

    fn on_recovery_exit(&mut self, w: &mut Window) {
        // The agent: "vegas ssthresh is used only during slow-start".
        w.ssthresh = 2 * self.smss;
        if let Some(cut) = self.pending_cut.take() {
            self.apply(cut, w);
        }
    }

    fn loss_window(&self, _w: &Window) -> u64 {
        // VegasTcpAgent::timeout: cwnd_ = v_slowstart_ (2).
        2 * self.smss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MILLIS;

    const MSS: u64 = 1000;

    fn ca_window(segments: u64) -> Window {
        Window {
            cwnd: segments * MSS,
            ssthresh: 2 * MSS,
            smss: MSS,
        }
    }

    /// Vegas after a first epoch that measured a base RTT of 100 ms (two segments, the
    /// second one tagged).
    fn after_base_epoch(w: &mut Window) -> Vegas {
        let mut v = Vegas::new(VegasParams::default(), MSS);
        v.on_ack_rtt(0, 100 * MILLIS);
        v.on_cumulative_ack(w, 100 * MILLIS, MSS, 2 * MSS, false);
        v.on_ack(w, 100 * MILLIS, MSS);
        assert_eq!(v.base_rtt(), Some(100 * MILLIS));
        v
    }

    /// A congestion-avoidance epoch whose tagged segment is acknowledged after `rtt_ms`,
    /// with the agent's window (outstanding + 1) of `window` segments, all sent in the
    /// epoch; returns the window after that ACK.
    fn epoch(cwnd_segments: u64, rtt_ms: u64, window: u64) -> Window {
        let mut w = ca_window(cwnd_segments);
        let mut v = after_base_epoch(&mut w);
        let t = 100 * MILLIS + rtt_ms * MILLIS;
        v.on_ack_rtt(t, rtt_ms * MILLIS);
        v.on_cumulative_ack(&mut w, t, 3 * MSS, (2 + window) * MSS, false);
        v.on_ack(&mut w, t, MSS);
        w
    }

    #[test]
    fn the_epoch_decision_follows_the_segments_queued() {
        // Ten segments at the base RTT: nothing queued, delta 0 < alpha: grow by 1/cwnd
        // segments per ACK, as the window is kept up with.
        let mut v = Vegas::new(VegasParams::default(), MSS);
        let mut w = ca_window(10);
        v.on_ack_rtt(0, 100 * MILLIS);
        v.on_cumulative_ack(&mut w, 100 * MILLIS, MSS, 10 * MSS, false);
        v.on_ack(&mut w, 100 * MILLIS, MSS);
        assert_eq!(v.growth, Growth::Bytes(100));
        assert_eq!(w.cwnd, 10_100);
        // The epoch ends only when its tagged segment (the one at 10 000) is covered.
        v.on_cumulative_ack(&mut w, 150 * MILLIS, 10 * MSS, 12 * MSS, false);
        assert_eq!(v.epoch_seq, 10 * MSS);
        v.on_cumulative_ack(&mut w, 160 * MILLIS, 11 * MSS, 12 * MSS, false);
        assert_eq!(v.epoch_seq, 12 * MSS);

        // A window of 10 with rtt 150 ms over a 100 ms base: expect 100/s, actual
        // 66.7/s, delta = int(3.33 + 0.5) = 3, between alpha and beta: hold.
        assert_eq!(epoch(10, 150, 10).cwnd, 10 * MSS);
        // rtt 200 ms: delta 5 > beta: one segment less, at once.
        assert_eq!(epoch(10, 200, 10).cwnd, 9 * MSS);
        // rtt 105 ms: delta = int(0.48 + 0.5) = 0 < alpha: grow.
        assert_eq!(epoch(10, 105, 10).cwnd, 10_100);
        // ... but not when the window is more than two segments ahead of what is out.
        assert_eq!(epoch(13, 105, 10).cwnd, 13 * MSS);
    }

    #[test]
    fn slow_start_doubles_every_other_epoch_and_ends_on_gamma() {
        let mut v = Vegas::new(VegasParams::default(), MSS);
        let mut w = Window::new(MSS, 2);
        // Epoch 1 (the flag toggles off): hold.
        v.on_ack_rtt(0, 100 * MILLIS);
        v.on_cumulative_ack(&mut w, 100 * MILLIS, MSS, 2 * MSS, false);
        v.on_ack(&mut w, 100 * MILLIS, MSS);
        assert_eq!(w.cwnd, 2 * MSS);
        // Epoch 2 (flag on, no queue): one segment per ACK.
        v.on_ack_rtt(0, 100 * MILLIS);
        v.on_cumulative_ack(&mut w, 200 * MILLIS, 3 * MSS, 4 * MSS, false);
        v.on_ack(&mut w, 200 * MILLIS, MSS);
        assert_eq!(w.cwnd, 3 * MSS);
        v.on_cumulative_ack(&mut w, 210 * MILLIS, 4 * MSS, 5 * MSS, false);
        v.on_ack(&mut w, 210 * MILLIS, MSS);
        assert_eq!(w.cwnd, 4 * MSS);
        // Epoch 3 (flag off): hold, whatever the queue.
        v.on_ack_rtt(0, 400 * MILLIS);
        v.on_cumulative_ack(&mut w, 600 * MILLIS, 5 * MSS, 8 * MSS, false);
        v.on_ack(&mut w, 600 * MILLIS, MSS);
        assert_eq!(w.cwnd, 4 * MSS);
        // Epoch 4 (flag on), a window of 16 at 4x the base RTT: delta 12 > gamma.
        let mut w = Window {
            cwnd: 16 * MSS,
            ..w
        };
        v.on_ack_rtt(0, 400 * MILLIS);
        v.on_cumulative_ack(&mut w, 1000 * MILLIS, 9 * MSS, 24 * MSS, false);
        assert_eq!(w.ssthresh, 2 * MSS, "slow start ends");
        assert_eq!(w.cwnd, 14 * MSS, "cwnd - cwnd/8");
        v.on_ack(&mut w, 1000 * MILLIS, MSS);
        assert_eq!(w.cwnd, 14 * MSS);
    }

    #[test]
    fn a_fast_retransmit_takes_a_quarter_and_a_timeout_restarts_from_two() {
        let v = Vegas::new(VegasParams::default(), MSS);
        let w = ca_window(12);
        assert_eq!(v.ssthresh_after_dupacks(&w, 12 * MSS), 9 * MSS);
        assert_eq!(v.ssthresh_after_dupacks(&ca_window(3), 3 * MSS), 2 * MSS);
        assert_eq!(v.ssthresh_after_dupacks(&ca_window(4), 4 * MSS), 3 * MSS);
        // A timeout: RFC 5681's ssthresh, the agent's window of 2 segments.
        assert_eq!(v.ssthresh_after_loss(&w, 12 * MSS), 6 * MSS);
        assert_eq!(v.loss_window(&w), 2 * MSS);
    }

    #[test]
    fn a_cut_decided_in_recovery_applies_only_if_that_ack_ends_it() {
        let full = |w: &mut Window| {
            w.cwnd = 10 * MSS;
            w.ssthresh = 10 * MSS;
        };
        // rtt 200 ms with a window of 10: one segment less, once recovery has set the
        // window, and ssthresh 2 segments.
        let mut w = ca_window(14);
        let mut v = after_base_epoch(&mut w);
        v.on_ack_rtt(0, 200 * MILLIS);
        v.on_cumulative_ack(&mut w, 300 * MILLIS, 3 * MSS, 12 * MSS, true);
        assert_eq!(w.cwnd, 14 * MSS, "nothing during recovery");
        full(&mut w);
        v.on_recovery_exit(&mut w);
        assert_eq!((w.cwnd, w.ssthresh), (9 * MSS, 2 * MSS));
        // The same cut on a partial ACK is dropped by the next ACK.
        let mut w = ca_window(14);
        let mut v = after_base_epoch(&mut w);
        v.on_ack_rtt(0, 200 * MILLIS);
        v.on_cumulative_ack(&mut w, 300 * MILLIS, 3 * MSS, 12 * MSS, true);
        v.on_cumulative_ack(&mut w, 310 * MILLIS, 4 * MSS, 12 * MSS, true);
        full(&mut w);
        v.on_recovery_exit(&mut w);
        assert_eq!((w.cwnd, w.ssthresh), (10 * MSS, 2 * MSS));
    }
}
