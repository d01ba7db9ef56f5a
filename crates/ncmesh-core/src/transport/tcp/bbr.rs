//! BBR v1 (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue
//! 2016; draft-cardwell-iccrg-bbr-congestion-control-00), as Linux's
//! `net/ipv4/tcp_bbr.c` (4.9 and later) and ns-3's `TcpBbr` implement it.
//!
//! BBR models the path by two numbers: the bottleneck bandwidth `BtlBw`, the maximum
//! delivery rate ([`super::rate`]) over the last `bw_rtts` = 10 round trips
//! ([`MaxFilter`]), and the round-trip propagation time `RTprop`, the minimum RTT over
//! the last `min_rtt_win` = 10 s. It paces at `pacing_gain × BtlBw` and caps the data
//! in flight at `cwnd_gain × BDP` plus allowances (BDP = BtlBw × RTprop). The gains
//! follow a state machine:
//!
//! - STARTUP: pacing and cwnd gain `high_gain` = 2/ln 2 ≈ 2.885 (doubles the rate
//!   every round trip); left when BtlBw grew by less than 25 % (`full_bw_thresh`) in 3
//!   rounds (`full_bw_cnt`), the pipe is full.
//! - DRAIN: pacing gain 1/high_gain until the data in flight is at most one BDP.
//! - PROBE_BW: cwnd gain 2, pacing gain cycling through 1.25, 0.75, 1, 1, 1, 1, 1, 1,
//!   one phase per RTprop (the 1.25 phase lasts until inflight reaches 1.25 BDP or a
//!   loss, the 0.75 phase ends early once inflight is at most one BDP).
//! - PROBE_RTT: when RTprop was not renewed for 10 s, cwnd is held at 4 segments
//!   (`cwnd_min_target`) for max(200 ms, one round trip) (`probe_rtt_mode`), then
//!   PROBE_BW (or STARTUP if the pipe was never full) resumes with the window before.
//!
//! Like Linux's `cong_control`, BBR sets cwnd and the pacing rate on every ACK, in any
//! loss state ([`CongestionControl::on_rate_sample`]): in the first round of a
//! recovery it conserves packets (cwnd = inflight + newly delivered), and at the end
//! of a recovery or timeout it restores the window from before. The sender's own
//! recovery window rules (NewReno inflation, RFC 6675's cwnd = ssthresh, PRR) are
//! overwritten by it on every ACK, as Linux skips them for a `cong_control` module.
//!
//! Left out (say so where it matters): the long-term bandwidth sampling that detects
//! token-bucket policers (`lt_bw`, Linux only; ns-3 lacks it too), the undo of
//! spurious recoveries, restart from idle (`idle_restart`, TCP_CA_EVENT_TX_START) and
//! the OS-jitter credit of Linux's pacing clock.

use super::congestion::{CongestionControl, Window};
use super::max_filter::MaxFilter;
use super::rate::{CaState, RateSample, RateSampler};
use crate::engine::{to_secs, Time, MILLIS, SECOND};

/// The pacing gains of PROBE_BW's eight phases (tcp_bbr.c `bbr_pacing_gain[]`).
pub const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// BBR's constants, named as in tcp_bbr.c (each cites its variable there).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BbrParams {
    /// `bbr_high_gain` = 2885/1000 (2/ln 2): STARTUP's pacing gain, and its cwnd
    /// gain (Linux v1 and ns-3 use high_gain for both; the later drafts use 2 for cwnd).
    pub high_gain: f64,
    /// `bbr_drain_gain` = 1000/2885: DRAIN's pacing gain.
    pub drain_gain: f64,
    /// `bbr_cwnd_gain` = 2: PROBE_BW's cwnd gain.
    pub cwnd_gain: f64,
    /// `bbr_bw_rtts` = CYCLE_LEN + 2 = 10: round trips of the bandwidth filter.
    pub bw_rtts: u64,
    /// `bbr_min_rtt_win_sec` = 10 s: window of the RTprop filter.
    pub min_rtt_win: Time,
    /// `bbr_probe_rtt_mode_ms` = 200 ms: least time in PROBE_RTT.
    pub probe_rtt_mode: Time,
    /// `bbr_cwnd_min_target` = 4 segments: cwnd floor, and cwnd in PROBE_RTT.
    pub cwnd_min_target: u64,
    /// `bbr_full_bw_thresh` = 1.25: growth of BtlBw per round that means "not full".
    pub full_bw_thresh: f64,
    /// `bbr_full_bw_cnt` = 3: rounds without that growth before the pipe is full.
    pub full_bw_cnt: u32,
    /// `bbr_pacing_margin_percent` = 1: pacing runs this share below gain × BtlBw.
    pub pacing_margin: f64,
    /// `bbr_extra_acked_gain` = 1 (BBR_UNIT): gain on the ACK-aggregation allowance.
    pub extra_acked_gain: f64,
    /// `bbr_extra_acked_win_rtts` = 5: round trips of the aggregation filter.
    pub extra_acked_win_rtts: u32,
    /// `bbr_extra_acked_max_us` = 100 ms: the aggregation allowance is at most
    /// BtlBw times this.
    pub extra_acked_max: Time,
    /// `bbr_ack_epoch_acked_reset_thresh` = 2^20 segments: an aggregation epoch that
    /// has delivered this many is restarted.
    pub ack_epoch_acked_reset_thresh: u64,
    /// `bbr_min_tso_rate` = 1.2 Mbit/s: below this pacing rate the send quantum
    /// (`bbr_min_tso_segs`) is 1 segment, above it 2.
    pub min_tso_rate_bps: f64,
    /// `TCP_INIT_CWND` = 10 segments: the BDP before any RTT sample, and cwnd grows
    /// freely until this much is delivered.
    pub init_cwnd: u64,
    /// `bbr_init_pacing_rate_from_rtt`: the RTT assumed before the first sample,
    /// `USEC_PER_MSEC` = 1 ms.
    pub init_rtt: Time,
    /// `tcp_update_skb_after_send`: the first `data_segs_out` = 10 segments of a
    /// connection are not paced (ns-3: `TcpSocketState::PaceInitialWindow` false).
    pub unpaced_segments: u64,
}

impl Default for BbrParams {
    fn default() -> Self {
        BbrParams {
            high_gain: 2885.0 / 1000.0,
            drain_gain: 1000.0 / 2885.0,
            cwnd_gain: 2.0,
            bw_rtts: 10,
            min_rtt_win: 10 * SECOND,
            probe_rtt_mode: 200 * MILLIS,
            cwnd_min_target: 4,
            full_bw_thresh: 1.25,
            full_bw_cnt: 3,
            pacing_margin: 0.01,
            extra_acked_gain: 1.0,
            extra_acked_win_rtts: 5,
            extra_acked_max: 100 * MILLIS,
            ack_epoch_acked_reset_thresh: 1 << 20,
            min_tso_rate_bps: 1.2e6,
            init_cwnd: 10,
            init_rtt: MILLIS,
            unpaced_segments: 10,
        }
    }
}

/// BBR's four modes (tcp_bbr.c `enum bbr_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BbrMode {
    /// Ramp up to fill the pipe.
    Startup,
    /// Drain the queue STARTUP built.
    Drain,
    /// Cruise at BtlBw, probing for more every eight phases.
    ProbeBw,
    /// Drain the queue to measure RTprop.
    ProbeRtt,
}

/// BBR's state for one connection (tcp_bbr.c `struct bbr`); bytes, bytes per second
/// and nanoseconds.
#[derive(Debug, Clone)]
pub struct Bbr {
    p: BbrParams,
    smss: u64,
    mode: BbrMode,
    /// tp->snd_cwnd, bytes: BBR's window; written to the sender's on every ACK.
    cwnd: u64,
    /// sk->sk_pacing_rate, bytes per second.
    pacing_rate: f64,
    /// The earliest time the next segment may leave (Linux's tcp_wstamp_ns).
    next_send: Option<Time>,
    /// Segments sent so far (tp->data_segs_out).
    segs_out: u64,
    /// BtlBw filter (bbr->bw), bytes per second per round.
    bw: MaxFilter,
    /// bbr->rtt_cnt: round trips counted.
    rtt_cnt: u64,
    /// bbr->next_rtt_delivered: C.delivered at which the next round starts.
    next_rtt_delivered: u64,
    /// bbr->round_start: this ACK started a round.
    round_start: bool,
    /// bbr->min_rtt_us and bbr->min_rtt_stamp: RTprop and when it was taken.
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    /// bbr->probe_rtt_done_stamp (`None` = 0) and bbr->probe_rtt_round_done.
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    /// bbr->packet_conservation: first round of a recovery.
    packet_conservation: bool,
    /// bbr->prior_cwnd: the window before a recovery or PROBE_RTT.
    prior_cwnd: u64,
    /// bbr->prev_ca_state.
    prev_ca_state: CaState,
    /// bbr->full_bw, bbr->full_bw_cnt, bbr->full_bw_reached.
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    /// bbr->cycle_idx and bbr->cycle_mstamp: PROBE_BW's phase and when it began.
    cycle_idx: usize,
    cycle_stamp: Time,
    /// bbr->pacing_gain and bbr->cwnd_gain.
    pacing_gain: f64,
    cwnd_gain: f64,
    /// bbr->has_seen_rtt: the pacing rate was initialised from a real RTT.
    has_seen_rtt: bool,
    /// The sender's smoothed RTT (tp->srtt_us), once known.
    srtt: Option<Time>,
    /// ACK aggregation (bbr->extra_acked[2], extra_acked_win_rtts,
    /// extra_acked_win_idx, ack_epoch_mstamp, ack_epoch_acked), bytes.
    extra_acked: [u64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    ack_epoch_stamp: Time,
    ack_epoch_acked: u64,
}

impl Bbr {
    /// A connection in STARTUP with an initial window of `iw_segments` (bbr_init).
    pub fn new(p: BbrParams, smss: u64, iw_segments: u32) -> Self {
        let smss = smss.max(1);
        let cwnd = smss * iw_segments.max(1) as u64;
        let mut b = Bbr {
            p,
            smss,
            mode: BbrMode::Startup,
            cwnd,
            pacing_rate: 0.0,
            next_send: None,
            segs_out: 0,
            bw: MaxFilter::new(p.bw_rtts),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prior_cwnd: 0,
            prev_ca_state: CaState::Open,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            has_seen_rtt: false,
            srtt: None,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            ack_epoch_stamp: 0,
            ack_epoch_acked: 0,
        };
        b.init_pacing_rate();
        b
    }

    /// The constants in force.
    pub fn params(&self) -> BbrParams {
        self.p
    }
    /// The current mode.
    pub fn mode(&self) -> BbrMode {
        self.mode
    }
    /// BtlBw, bytes per second (0 before a sample).
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }
    /// RTprop, once an RTT was sampled.
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }
    /// The pacing rate, bytes per second.
    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }
    /// The current pacing gain and cwnd gain.
    pub fn gains(&self) -> (f64, f64) {
        (self.pacing_gain, self.cwnd_gain)
    }
    /// PROBE_BW's phase (index into [`PACING_GAIN_CYCLE`]).
    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }
    /// Whether STARTUP found the pipe full.
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }
    /// Round trips counted.
    pub fn rounds(&self) -> u64 {
        self.rtt_cnt
    }
    /// BBR's window, bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// bbr_init_pacing_rate_from_rtt: high_gain × cwnd / RTT, with the smoothed RTT
    /// once there is one, else `init_rtt`.
    fn init_pacing_rate(&mut self) {
        let rtt = match self.srtt {
            Some(s) if s > 0 => {
                self.has_seen_rtt = true;
                s
            }
            _ => self.p.init_rtt,
        };
        let bw = self.cwnd as f64 / to_secs(rtt);
        self.pacing_rate = self.rate_with_margin(bw, self.p.high_gain);
    }

    /// bbr_rate_bytes_per_sec: gain × bw, less the pacing margin.
    fn rate_with_margin(&self, bw: f64, gain: f64) -> f64 {
        bw * gain * (1.0 - self.p.pacing_margin)
    }

    /// bbr_bdp: gain × BtlBw × RTprop, bytes (rounded up); `init_cwnd` segments
    /// before any RTT sample.
    fn bdp(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            None => self.p.init_cwnd * self.smss,
            Some(rtt) => (bw * to_secs(rtt) * gain).ceil() as u64,
        }
    }

    /// bbr_tso_segs_goal: the send quantum, segments: the pacing rate's bytes per
    /// 2^-10 s (sk_pacing_shift), at least 1 segment below `min_tso_rate` and 2
    /// above, at most 127.
    fn tso_segs_goal(&self) -> u64 {
        let min = if self.pacing_rate * 8.0 < self.p.min_tso_rate_bps {
            1
        } else {
            2
        };
        ((self.pacing_rate / 1024.0) as u64 / self.smss).clamp(min, 127)
    }

    /// bbr_quantization_budget: `cwnd` bytes plus three send quanta, rounded up to an
    /// even number of segments (fewer delayed ACKs), plus 2 segments in PROBE_BW's
    /// 1.25 phase so that it reaches above the BDP even for small BDPs.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut segs = cwnd.div_ceil(self.smss) + 3 * self.tso_segs_goal();
        segs = (segs + 1) & !1;
        if self.mode == BbrMode::ProbeBw && self.cycle_idx == 0 {
            segs += 2;
        }
        segs * self.smss
    }

    /// bbr_inflight: the data in flight a gain asks for.
    fn inflight(&self, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// bbr_save_cwnd: remember the window, unless a recovery or PROBE_RTT cut it.
    fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != BbrMode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    fn reset_startup_mode(&mut self) {
        self.mode = BbrMode::Startup;
    }

    /// bbr_reset_probe_bw_mode: PROBE_BW at a phase other than the 0.75 one. Linux
    /// picks the phase at random (cycle_idx = CYCLE_LEN - 1 - rand(7), then one step);
    /// here the round count modulo 7 stands in for the random draw, to stay
    /// deterministic (docs/assumptions.md).
    fn reset_probe_bw_mode(&mut self, now: Time) {
        self.mode = BbrMode::ProbeBw;
        let r = (self.rtt_cnt % 7) as usize;
        self.cycle_idx = PACING_GAIN_CYCLE.len() - 1 - r;
        self.advance_cycle_phase(now);
    }

    fn reset_mode(&mut self, now: Time) {
        if !self.full_bw_reached {
            self.reset_startup_mode();
        } else {
            self.reset_probe_bw_mode(now);
        }
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAIN_CYCLE.len();
        self.cycle_stamp = now;
    }

    /// bbr_update_bw: round counting and the BtlBw filter.
    fn update_bw(&mut self, rs: &RateSample, delivered: u64) {
        self.round_start = false;
        let Some(rate) = rs.delivery_rate() else {
            return;
        };
        // A round ends when a packet sent after the last round began is delivered.
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        // Application-limited samples count only if they raise the estimate.
        if !rs.is_app_limited || rate >= self.max_bw() {
            self.bw.update(self.rtt_cnt, rate);
        }
    }

    /// bbr_update_ack_aggregation: the largest excess of delivered data over what
    /// BtlBw predicts since an epoch began, kept per `extra_acked_win_rtts` rounds.
    fn update_ack_aggregation(&mut self, now: Time, rs: &RateSample) {
        if self.p.extra_acked_gain <= 0.0 || rs.acked_sacked == 0 || rs.interval.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= self.p.extra_acked_win_rtts {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch = to_secs(now.saturating_sub(self.ack_epoch_stamp));
        let mut expected = (self.max_bw() * epoch) as u64;
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + rs.acked_sacked
                >= self.p.ack_epoch_acked_reset_thresh * self.smss
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = now;
            expected = 0;
        }
        self.ack_epoch_acked += rs.acked_sacked;
        let extra = (self.ack_epoch_acked - expected).min(self.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    /// bbr_ack_aggregation_cwnd: the allowance for ACK aggregation, once the pipe
    /// was full.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if self.p.extra_acked_gain <= 0.0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr = (self.max_bw() * to_secs(self.p.extra_acked_max)) as u64;
        let extra = self.extra_acked[0].max(self.extra_acked[1]);
        ((self.p.extra_acked_gain * extra as f64) as u64).min(max_aggr)
    }

    /// bbr_is_next_cycle_phase / bbr_update_cycle_phase.
    fn update_cycle_phase(&mut self, now: Time, rs: &RateSample) {
        if self.mode != BbrMode::ProbeBw {
            return;
        }
        let full_length = self
            .min_rtt
            .is_some_and(|m| now.saturating_sub(self.cycle_stamp) > m);
        let gain = PACING_GAIN_CYCLE[self.cycle_idx];
        let bw = self.max_bw();
        let next = if gain == 1.0 {
            full_length
        } else if gain > 1.0 {
            // Probe until inflight reached gain × BDP (or a loss says it cannot).
            full_length && (rs.losses > 0 || rs.prior_in_flight >= self.inflight(bw, gain))
        } else {
            // Drain: done early once inflight is down to one BDP.
            full_length || rs.prior_in_flight <= self.inflight(bw, 1.0)
        };
        if next {
            self.advance_cycle_phase(now);
        }
    }

    /// bbr_check_full_bw_reached: 3 rounds without 25 % growth fill the pipe.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * self.p.full_bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.p.full_bw_cnt;
    }

    /// bbr_check_drain: STARTUP → DRAIN once full; DRAIN → PROBE_BW once inflight is
    /// at most one BDP.
    fn check_drain(&mut self, now: Time, in_flight: u64) {
        if self.mode == BbrMode::Startup && self.full_bw_reached {
            self.mode = BbrMode::Drain;
        }
        if self.mode == BbrMode::Drain && in_flight <= self.inflight(self.max_bw(), 1.0) {
            self.reset_probe_bw_mode(now);
        }
    }

    /// bbr_update_min_rtt: the RTprop filter and PROBE_RTT.
    fn update_min_rtt(&mut self, now: Time, rs: &RateSample, sampler: &mut RateSampler) {
        let expired = now > self.min_rtt_stamp + self.p.min_rtt_win;
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt <= m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if self.p.probe_rtt_mode > 0 && expired && self.mode != BbrMode::ProbeRtt {
            self.mode = BbrMode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
        }
        if self.mode != BbrMode::ProbeRtt {
            return;
        }
        // Ignore the low rate samples of this mode.
        sampler.mark_app_limited(rs.in_flight);
        match self.probe_rtt_done_stamp {
            None if rs.in_flight <= self.p.cwnd_min_target * self.smss => {
                // Hold the minimum for max(probe_rtt_mode, one round).
                self.probe_rtt_done_stamp = Some(now + self.p.probe_rtt_mode);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = rs.total_delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    // bbr_check_probe_rtt_done.
                    self.min_rtt_stamp = now;
                    self.cwnd = self.cwnd.max(self.prior_cwnd);
                    self.reset_mode(now);
                }
            }
        }
    }

    /// bbr_update_gains.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            BbrMode::Startup => (self.p.high_gain, self.p.high_gain),
            BbrMode::Drain => (self.p.drain_gain, self.p.high_gain),
            BbrMode::ProbeBw => (PACING_GAIN_CYCLE[self.cycle_idx], self.p.cwnd_gain),
            BbrMode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// bbr_set_pacing_rate: gain × BtlBw; before the pipe is full it only rises.
    fn set_pacing_rate(&mut self, bw: f64, gain: f64) {
        let rate = self.rate_with_margin(bw, gain);
        if !self.has_seen_rtt && self.srtt.is_some() {
            self.init_pacing_rate();
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// bbr_set_cwnd_to_recover_or_restore: deduct losses; packet conservation in a
    /// recovery's first round; the window from before when a recovery or timeout ends.
    /// Returns the window, and whether packet conservation decides it.
    fn recover_or_restore(&mut self, rs: &RateSample, delivered: u64) -> (u64, bool) {
        let mut cwnd = self.cwnd;
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(self.smss);
        }
        let (prev, state) = (self.prev_ca_state, rs.ca_state);
        if state == CaState::Recovery && prev != CaState::Recovery {
            // Start a round now; cut what the window held beyond the flight.
            self.packet_conservation = true;
            self.next_rtt_delivered = delivered;
            cwnd = rs.in_flight + rs.acked_sacked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(rs.in_flight + rs.acked_sacked), true);
        }
        (cwnd, false)
    }

    /// bbr_set_cwnd: toward gain × BDP plus allowances, growing by what was delivered.
    fn set_cwnd(&mut self, rs: &RateSample, delivered: u64, bw: f64, gain: f64) {
        if rs.acked_sacked > 0 {
            let (mut cwnd, conserving) = self.recover_or_restore(rs, delivered);
            if !conserving {
                let target =
                    self.quantization_budget(self.bdp(bw, gain) + self.ack_aggregation_cwnd());
                if self.full_bw_reached {
                    cwnd = (cwnd + rs.acked_sacked).min(target);
                } else if cwnd < target || delivered < self.p.init_cwnd * self.smss {
                    cwnd += rs.acked_sacked;
                }
                cwnd = cwnd.max(self.p.cwnd_min_target * self.smss);
            }
            self.cwnd = cwnd;
        }
        if self.mode == BbrMode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.p.cwnd_min_target * self.smss);
        }
    }
}

impl CongestionControl for Bbr {
    /// Not used: BBR sets the window from rate samples ([`Self::on_rate_sample`]).
    fn on_ack(&mut self, w: &mut Window, _now: Time, _acked: u64) {
        w.cwnd = self.cwnd;
    }

    /// bbr_ssthresh: remembers the window; the sender's ssthresh is unused by BBR
    /// (the window it returns keeps the sender's recovery arithmetic in range).
    fn ssthresh_after_loss(&self, w: &Window, _flight: u64) -> u64 {
        w.cwnd.max(2 * w.smss)
    }

    fn on_loss(&mut self, _w: &Window, _now: Time) {
        self.save_cwnd();
    }

    /// bbr_set_state(TCP_CA_Loss) with tcp_enter_loss's window of one segment: the
    /// round restarts, the STARTUP growth check starts over.
    fn on_timeout(&mut self) {
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0.0;
        self.round_start = true;
        self.cwnd = self.smss;
    }

    fn loss_window(&self, w: &Window) -> u64 {
        w.smss
    }

    fn on_send(&mut self, now: Time, bytes: u32) {
        // Linux's pacing clock (tcp_update_skb_after_send): the next departure is one
        // segment's time at the pacing rate after this one, not before now; the
        // first `unpaced_segments` go unpaced.
        self.segs_out += 1;
        if self.segs_out <= self.p.unpaced_segments || self.pacing_rate <= 0.0 {
            return;
        }
        let gap = (bytes as f64 / self.pacing_rate * SECOND as f64) as Time;
        self.next_send = Some(self.next_send.map_or(now, |t| t.max(now)) + gap);
    }

    fn on_smoothed_rtt(&mut self, srtt: Time) {
        self.srtt = Some(srtt);
    }

    fn pacing_release(&self) -> Option<Time> {
        self.next_send
    }

    fn pacing_interval(&self) -> Option<Time> {
        (self.pacing_rate > 0.0)
            .then(|| (self.smss as f64 / self.pacing_rate * SECOND as f64) as Time)
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    /// bbr_main: update the model and the state, then the pacing rate and cwnd.
    fn on_rate_sample(
        &mut self,
        w: &mut Window,
        now: Time,
        rs: &RateSample,
        sampler: &mut RateSampler,
    ) {
        let delivered = rs.total_delivered;
        self.update_bw(rs, delivered);
        self.update_ack_aggregation(now, rs);
        self.update_cycle_phase(now, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(now, rs.in_flight);
        self.update_min_rtt(now, rs, sampler);
        self.update_gains();
        let bw = self.max_bw();
        self.set_pacing_rate(bw, self.pacing_gain);
        self.set_cwnd(rs, delivered, bw, self.cwnd_gain);
        w.cwnd = self.cwnd;
    }
}

#[cfg(test)]
mod tests;
