//! TCP Vegas (L. Brakmo, S. O'Malley, L. Peterson, "TCP Vegas: new techniques for
//! congestion detection and avoidance", SIGCOMM 1994), as ns-2's `Agent/TCP/Vegas`
//! (tcp-vegas.cc, the agent Sundararajan et al.'s TCP/NC and ns-2 studies such as
//! Gheorghiu et al.'s CoMP build on). There is no RFC; every rule below is the agent's.
//!
//! Once per round trip (the first new ACK at or past the sequence number that was next
//! to send when the previous epoch ended) Vegas compares the rate it expects with the
//! window it has, `expect = window / baseRTT`, with the rate it got, `actual = sent in
//! the epoch / rtt`, and turns the difference into segments queued in the network:
//!
//! ```text
//! delta = round((expect - actual) * baseRTT)
//! ```
//!
//! where `rtt` is the mean of the epoch's per-ACK samples (the time since the epoch
//! began when there are none) and `baseRTT` the smallest RTT seen. Then:
//!
//! - slow start (cwnd < ssthresh): every other epoch, if delta > gamma, ssthresh = 2
//!   segments and cwnd -= cwnd/8 (at least 2 segments); otherwise one segment per ACK
//!   for the next epoch (stopping at ssthresh);
//! - congestion avoidance: delta > beta: cwnd -= 1 segment (at least 2); delta < alpha:
//!   1/cwnd segments per ACK for the next epoch; otherwise the window is held.
//!
//! An increment is applied only while cwnd exceeds the flight by at most two segments
//! (the agent's "have we kept up with the window" check).
//!
//! Losses: on the third duplicate ACK the window becomes 2 segments if it was at most 3,
//! half if the lost segment had been retransmitted before, and 3/4 otherwise; recovery
//! is the sender's (NewReno or SACK; the agent's is Reno's), and on leaving it ssthresh
//! is 2 segments, so Vegas continues in congestion avoidance. A timeout is RFC 5681's
//! (the agent inherits TcpAgent's). Not modelled: the agent's fine-grained timeout check
//! on the first duplicate ACK and on the two new ACKs after a retransmission
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
    /// A window cut the epoch decided, applied by the next `on_ack` (lost if the ACK
    /// arrives in loss recovery, which sets the window itself).
    cut: Option<Cut>,
    /// The flight after the latest new ACK, bytes (the agent's t_seqno_ - last_ack_).
    flight: u64,
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
            cut: None,
            flight: 0,
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
    /// actions"). `w` is the window before this ACK's growth.
    fn end_epoch(&mut self, w: &Window, now: Time, ack: u64, snd_nxt: u64) {
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
            let expect = self.segments(snd_nxt.saturating_sub(ack)) / base;
            // The agent rounds with int(x + 0.5), which truncates towards zero.
            let delta = ((expect - actual) * base + 0.5) as i64;
            if w.in_slow_start() {
                self.act_this_epoch = !self.act_this_epoch;
                self.growth = Growth::Hold;
                if self.act_this_epoch {
                    if delta > self.p.gamma as i64 {
                        self.cut = Some(Cut::EndSlowStart);
                    } else {
                        self.growth = Growth::Segment;
                    }
                }
            } else if delta > self.p.beta as i64 {
                self.cut = Some(Cut::OneSegment);
                self.growth = Growth::Hold;
            } else if delta < self.p.alpha as i64 {
                self.growth = Growth::Bytes((self.smss * self.smss / w.cwnd.max(1)).max(1));
            } else {
                self.growth = Growth::Hold;
            }
        }
        self.epoch_seq = snd_nxt;
        self.epoch_start = now;
    }
}

impl CongestionControl for Vegas {
    fn on_cumulative_ack(&mut self, w: &Window, now: Time, ack: u64, snd_nxt: u64) {
        self.flight = snd_nxt.saturating_sub(ack);
        if ack >= self.epoch_seq {
            self.end_epoch(w, now, ack, snd_nxt);
        }
    }

    fn on_ack(&mut self, w: &mut Window, _now: Time, acked: u64) {
        let two = 2 * self.smss;
        match self.cut.take() {
            Some(Cut::EndSlowStart) => {
                w.ssthresh = two;
                w.cwnd = (w.cwnd - w.cwnd / 8).max(two);
            }
            Some(Cut::OneSegment) => w.cwnd = w.cwnd.saturating_sub(self.smss).max(two),
            None => {}
        }
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
        if w.cwnd <= self.flight + two {
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

    fn ssthresh_after_dupacks(&self, w: &Window, _flight: u64, head_retransmitted: bool) -> u64 {
        let two = 2 * self.smss;
        let win = w.cwnd / self.smss;
        if win <= 3 {
            two
        } else if head_retransmitted {
            (win / 2 * self.smss).max(two)
        } else {
            ((win - win / 4) * self.smss).max(two)
        }
    }

    fn on_recovery_exit(&mut self, w: &mut Window) {
        // The agent: "vegas ssthresh is used only during slow-start".
        w.ssthresh = 2 * self.smss;
        self.cut = None;
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

    /// A congestion-avoidance epoch of `flight` segments whose ACK comes back after
    /// `rtt_ms`, following a first epoch at a base RTT of 100 ms; returns the window
    /// after that ACK.
    fn epoch(cwnd_segments: u64, rtt_ms: u64, flight: u64) -> Window {
        let mut v = Vegas::new(VegasParams::default(), MSS);
        let mut w = ca_window(cwnd_segments);
        v.on_ack_rtt(0, 100 * MILLIS);
        v.on_cumulative_ack(&w, 100 * MILLIS, MSS, 2 * MSS);
        v.on_ack(&mut w, 100 * MILLIS, MSS);
        assert_eq!(v.base_rtt(), Some(100 * MILLIS));
        let t = 100 * MILLIS + rtt_ms * MILLIS;
        v.on_ack_rtt(t, rtt_ms * MILLIS);
        v.on_cumulative_ack(&w, t, 2 * MSS, (2 + flight) * MSS);
        v.on_ack(&mut w, t, MSS);
        w
    }

    #[test]
    fn the_epoch_decision_follows_the_segments_queued() {
        // A 10-segment flight at base RTT: nothing queued, delta 0 < alpha: grow.
        // The epoch ends at the first ACK past it; only a window the sender keeps up
        // with grows.
        let mut v = Vegas::new(VegasParams::default(), MSS);
        let mut w = ca_window(10);
        v.on_ack_rtt(0, 100 * MILLIS);
        v.on_cumulative_ack(&w, 100 * MILLIS, MSS, 10 * MSS);
        v.on_ack(&mut w, 100 * MILLIS, MSS);
        assert_eq!(v.growth, Growth::Bytes(100), "1/cwnd segments per ACK");
        assert_eq!(w.cwnd, 10_100);

        // rtt 150 ms over a 100 ms base with 10 in flight: expect 100/s, actual
        // 10/0.15 = 66.7/s, delta = round(3.33) = 3: between alpha and beta, hold.
        let w = epoch(10, 150, 10);
        assert_eq!(w.cwnd, 10 * MSS);
        // rtt 200 ms: delta = 5 > beta: one segment less.
        let w = epoch(10, 200, 10);
        assert_eq!(w.cwnd, 9 * MSS);
        // rtt 105 ms: delta = round(0.48) = 0 < alpha: grow by 1/cwnd per ACK.
        let w = epoch(10, 105, 10);
        assert!(w.cwnd > 10 * MSS, "{}", w.cwnd);
    }

    #[test]
    fn slow_start_doubles_every_other_epoch_and_ends_on_gamma() {
        let mut v = Vegas::new(VegasParams::default(), MSS);
        let mut w = Window::new(MSS, 2);
        // Epoch 1 (flag toggles off): hold.
        v.on_ack_rtt(0, 100 * MILLIS);
        v.on_cumulative_ack(&w, 100 * MILLIS, MSS, 2 * MSS);
        v.on_ack(&mut w, 100 * MILLIS, MSS);
        assert_eq!(w.cwnd, 2 * MSS);
        // Epoch 2 (flag on, no queue): one segment per ACK.
        v.on_ack_rtt(0, 100 * MILLIS);
        v.on_cumulative_ack(&w, 200 * MILLIS, 2 * MSS, 4 * MSS);
        v.on_ack(&mut w, 200 * MILLIS, MSS);
        assert_eq!(w.cwnd, 3 * MSS);
        v.on_cumulative_ack(&w, 210 * MILLIS, 3 * MSS, 5 * MSS);
        v.on_ack(&mut w, 210 * MILLIS, MSS);
        assert_eq!(w.cwnd, 4 * MSS);
        // Epoch 3 (flag off): hold, whatever the queue.
        v.on_ack_rtt(0, 400 * MILLIS);
        v.on_cumulative_ack(&w, 600 * MILLIS, 4 * MSS, 8 * MSS);
        v.on_ack(&mut w, 600 * MILLIS, MSS);
        assert_eq!(w.cwnd, 4 * MSS);
        // Epoch 4 (flag on) with 16 in flight at 4x the base RTT: delta > gamma.
        let mut w = Window {
            cwnd: 16 * MSS,
            ..w
        };
        v.on_ack_rtt(0, 400 * MILLIS);
        v.on_cumulative_ack(&w, 1000 * MILLIS, 8 * MSS, 24 * MSS);
        v.on_ack(&mut w, 1000 * MILLIS, MSS);
        assert_eq!(w.ssthresh, 2 * MSS, "slow start ends");
        assert_eq!(w.cwnd, 14 * MSS, "cwnd - cwnd/8");
    }

    #[test]
    fn a_fast_retransmit_takes_a_quarter_or_half_and_recovery_ends_in_avoidance() {
        let mut v = Vegas::new(VegasParams::default(), MSS);
        let w = ca_window(12);
        assert_eq!(v.ssthresh_after_dupacks(&w, 12 * MSS, false), 9 * MSS);
        assert_eq!(v.ssthresh_after_dupacks(&w, 12 * MSS, true), 6 * MSS);
        assert_eq!(
            v.ssthresh_after_dupacks(&ca_window(3), 3 * MSS, false),
            2 * MSS
        );
        let mut w = Window {
            cwnd: 9 * MSS,
            ssthresh: 9 * MSS,
            smss: MSS,
        };
        v.on_recovery_exit(&mut w);
        assert_eq!((w.cwnd, w.ssthresh), (9 * MSS, 2 * MSS));
        // A timeout is RFC 5681's.
        assert_eq!(v.ssthresh_after_loss(&w, 12 * MSS), 6 * MSS);
        assert_eq!(v.loss_window(&w), MSS);
    }
}
