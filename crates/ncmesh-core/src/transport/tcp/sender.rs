//! The sending half of a connection: windowing, loss detection and recovery,
//! retransmission timer.
//!
//! Rules, by source:
//! - RFC 5681: slow start / congestion avoidance (delegated to [`CongestionControl`]),
//!   fast retransmit on the DupThresh-th duplicate ACK, ssthresh after a loss, loss
//!   window after a timeout.
//! - RFC 6582 (NewReno, `sack = false`): `recover`, partial ACKs retransmit the first
//!   unacknowledged segment and deflate cwnd; the full ACK sets
//!   cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) (section 3.2 step 3, option 1).
//!   The retransmit timer is reset on the first partial ACK only (the "Impatient"
//!   variant of section 4).
//! - RFC 6675 (`sack = true`): scoreboard, DupAcks counting SACK-bearing ACKs, entry
//!   on DupThresh duplicates or IsLost(HighACK + 1), pipe-limited transmission with
//!   NextSeg rules (1)-(4) including the rescue retransmission.
//! - RFC 6298: RTO computation and backoff (in [`RttEstimator`]); one segment is
//!   timed at a time and timing is abandoned whenever anything is retransmitted
//!   (Karn); timer start/restart/stop per section 5. A variant may turn the backoff
//!   off ([`CongestionControl::rto_backoff`], TCP-AP).
//! - RFC 6937 (`prr`): during either recovery, cwnd = pipe + sndcnt on every ACK
//!   ([`Prr`], PRR-SSRB), and cwnd = ssthresh when recovery ends. Without SACK, pipe
//!   and DeliveredData are estimated from duplicate ACKs (one SMSS each).
//! - RFC 8985 (`rack`, with SACK): [`Rack`] marks segments lost by time and those
//!   marks replace the DupThresh rule: recovery (RFC 6675's) begins when RACK marks a
//!   segment lost, NextSeg rule (1) retransmits what it marked, pipe counts what is
//!   neither delivered nor marked, and rules (3) and (4), which resend data not deemed
//!   lost, are left to RACK's timer and the tail loss probe ([`Tlp`]). The
//!   reordering timer, the probe timer and the RTO share one timer
//!   ([`TcpSender::timer_deadline`], RFC 8985 §8).
//! - BBR ([`CongestionControl::wants_rate_samples`]): a [`RateSampler`]
//!   (draft-cheng-iccrg-delivery-rate-estimation) sees every transmission and every
//!   ACK; after the sender has handled an ACK, the variant sets cwnd from the
//!   sample (Linux's `cong_control`), overriding the recovery rules above.
//! - Paced variants ([`CongestionControl::pacing_release`]): no segment leaves before
//!   the release time, except the fast retransmission and the first retransmission
//!   after a timeout, which go at once (as in TCP-AP's ns-2 agent). Variants that ask
//!   for it get an RTT sample with every new cumulative ACK, from a log of
//!   transmission times ([`CongestionControl::on_ack_rtt`]).
//!
//! Sequence variables: `snd_una` (oldest unacknowledged byte, HighACK + 1 in RFC 6675
//! terms), `snd_nxt` (next byte to send; below `snd_max` only while going back N
//! after a timeout) and `snd_max` (just past the highest byte ever sent, HighData + 1).
//! `recover` holds `snd_max` as of the last recovery entry or timeout; both NewReno's
//! `recover` and RFC 6675's RecoveryPoint are this value, with "the ACK covers it"
//! meaning `ack >= recover`.
//!
//! Driving it: after `on_ack`, `on_timer` or the application writing more data, call
//! `next_segment` until it returns `None`.

use super::bbr::{Bbr, BbrMode};
use super::config::TcpConfig;
use super::congestion::{CcAlgorithm, CongestionControl, Window};
use super::prr::Prr;
use super::rack::{carries_dsack, Rack};
use super::rate::{CaState, RateSampler};
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::tlp::{Tlp, TlpAck};
use crate::engine::{to_secs, Time};
use crate::wire::tcp::TcpHeader;
use std::collections::VecDeque;

/// A TCP sender's counters.
#[derive(Debug, Clone, Default)]
pub struct TcpSenderStats {
    /// Data segments handed to the network, retransmissions included.
    pub segments_sent: u64,
    /// Retransmitted segments (fast, partial-ACK, SACK-driven, timeout-driven).
    pub retransmissions: u64,
    /// Entries into fast recovery / SACK loss recovery.
    pub fast_retransmits: u64,
    /// Retransmission timer expiries.
    pub timeouts: u64,
    /// Sum of the RTT samples taken, seconds.
    pub rtt_sum_s: f64,
    /// RTT samples taken (Karn's rule: none from retransmitted segments).
    pub rtt_samples: u64,
    /// Bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Tail loss probes sent (RFC 8985 §7).
    pub tail_loss_probes: u64,
}

/// Which loss recovery, if any, is in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryState {
    /// Normal transmission (including go-back-N after a timeout).
    Open,
    /// RFC 6582 NewReno fast recovery.
    FastRecovery,
    /// RFC 6675 SACK-based loss recovery.
    SackRecovery,
}

/// A TCP sender (RFC 793/9293 sequence space, RFC 5681 congestion control, RFC 6298
/// RTO, NewReno RFC 6582 or SACK RFC 6675 loss recovery, optional pacing), with no
/// I/O: the simulator passes time and ACKs in and polls segments out.
#[derive(Debug, Clone)]
pub struct TcpSender {
    sack: bool,
    smss: u64,
    dupthresh: u32,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Peer's advertised window from the latest acceptable ACK.
    rwnd: u64,
    win: Window,
    cc: CcAlgorithm,
    rtt: RttEstimator,
    rto_deadline: Option<Time>,
    /// The segment being timed: (its first byte, when it was sent).
    timed: Option<(u64, Time)>,
    dupacks: u32,
    /// Limited Transmit (RFC 3042) is configured.
    limited_transmit: bool,
    /// Duplicate ACKs of the current run that count for Limited Transmit: with SACK,
    /// only those that SACK new data (RFC 3042 section 2), where `dupacks` also
    /// counts a SACK-less duplicate by RFC 5681's classic definition.
    lt_dupacks: u32,
    /// Bytes of new data Limited Transmit sent in the current run of duplicate ACKs
    /// (RFC 5681 section 3.2 step 2 leaves them out of FlightSize for ssthresh); 0
    /// outside such a run, and from the start of a recovery.
    limited_sent: u64,
    /// NewReno's Careful variant (RFC 6582 section 3.2 step 1).
    careful: bool,
    /// A timeout happened and the data outstanding then (up to `recover`) is not yet
    /// all acknowledged: further timeouts hit data the timer already retransmitted.
    rto_recovery: bool,
    recovery: RecoveryState,
    recover: u64,
    /// NewReno: a partial ACK has already restarted the timer in this recovery.
    partial_ack_seen: bool,
    /// The segment at snd_una must be retransmitted next, whatever the window says
    /// (fast retransmit, NewReno partial ACK, RFC 6675 step 4.3).
    rtx_head: bool,
    scoreboard: Scoreboard,
    /// RFC 6675 HighRxt, exclusive: just past the highest byte retransmitted in this recovery.
    high_rxt: u64,
    /// RFC 6675 RescueRxt, exclusive; `None` = undefined.
    rescue_rxt: Option<u64>,
    /// The next segment is a fast retransmission or the first retransmission after a
    /// timeout: it ignores pacing.
    pace_exempt: bool,
    /// For per-ACK RTT samples (the congestion control's,
    /// [`CongestionControl::wants_ack_rtt`], and `rtt_sampling = "every-ack"`): every
    /// transmission not yet cumulatively acknowledged, in sending order.
    tx_log: Option<VecDeque<Tx>>,
    /// `rtt_sampling = "every-ack"`: RTT samples from `tx_log` rather than `timed`.
    rtt_every_ack: bool,
    /// PRR (RFC 6937) is configured.
    prr_enabled: bool,
    /// PRR's state during a recovery, when configured.
    prr: Option<Prr>,
    /// NewReno under PRR: bytes the duplicate ACKs of this recovery say were
    /// delivered that the cumulative ACK has not yet covered.
    dup_delivered: u64,
    /// RACK and TLP (RFC 8985), when configured.
    rack: Option<Rack>,
    tlp: Option<Tlp>,
    /// Delivery-rate estimation, for variants that want rate samples (BBR).
    rate: Option<RateSampler>,
    /// Bytes RACK marked lost while handling the current ACK (rs.losses).
    newly_lost: u64,
    stats: TcpSenderStats,
}

/// One transmission of `[start, end)` at `at`, kept for per-ACK RTT samples.
#[derive(Debug, Clone, Copy)]
struct Tx {
    start: u64,
    end: u64,
    at: Time,
    /// It was a retransmission.
    rtx: bool,
    /// A later retransmission overlapped it (every-ack sampling only).
    resent: bool,
}

impl TcpSender {
    /// A sender with nothing sent, configured by `cfg` (variant, MSS, windows, RTO).
    pub fn new(cfg: &TcpConfig) -> Self {
        let smss = cfg.smss().max(1);
        let cc = CcAlgorithm::from_config(cfg);
        let tx_log = (cc.wants_ack_rtt() || cfg.rtt_every_ack).then(VecDeque::new);
        let rate = cc.wants_rate_samples().then(RateSampler::new);
        TcpSender {
            sack: cfg.sack,
            smss,
            dupthresh: cfg.dupack_threshold.max(1),
            limited_transmit: cfg.limited_transmit,
            lt_dupacks: 0,
            limited_sent: 0,
            careful: cfg.newreno_careful,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            // No handshake: assume the peer's buffer is the configured one until the
            // first ACK says otherwise.
            rwnd: cfg.rcv_buffer as u64,
            win: Window::new(smss, cfg.initial_cwnd_segments),
            cc,
            rtt: RttEstimator::new(cfg),
            rto_deadline: None,
            timed: None,
            dupacks: 0,
            rto_recovery: false,
            recovery: RecoveryState::Open,
            recover: 0,
            partial_ack_seen: false,
            rtx_head: false,
            scoreboard: Scoreboard::new(),
            high_rxt: 0,
            rescue_rxt: None,
            pace_exempt: false,
            tx_log,
            rtt_every_ack: cfg.rtt_every_ack,
            prr_enabled: cfg.prr,
            prr: None,
            dup_delivered: 0,
            rack: cfg.rack.then(Rack::new),
            tlp: cfg.rack.then(Tlp::new),
            rate,
            newly_lost: 0,
            stats: TcpSenderStats::default(),
        }
    }

    /// The connection's path has `hops` hops (TCP-AP's 4HPD estimate needs it; other
    /// variants ignore it). Until called, [`TcpConfig::hops`] or
    /// [`super::config::DEFAULT_PATH_HOPS`] applies. May be called again when the
    /// route changes; later RTT samples use the new count.
    pub fn set_path_hops(&mut self, hops: u32) {
        self.cc.set_path_hops(hops.max(1));
    }

    // ----------------------------------------------------------------- ACK input

    /// An ACK arrived.
    pub fn on_ack(&mut self, now: Time, h: &TcpHeader) {
        let ack = h.ack;
        // Stale ACKs (below snd_una) carry no news; ACKs of unsent data are bogus
        // (RFC 9293 section 3.10.7.4). Both are ignored.
        if ack < self.snd_una || ack > self.snd_max {
            return;
        }
        self.rwnd = h.wnd as u64;
        let (prior_una, prior_sacked) = (self.snd_una, self.scoreboard.sacked_bytes());
        let prior_in_flight = self.in_flight();
        self.newly_lost = 0;
        let mut newly_sacked = false;
        if self.sack {
            // RFC 6675 section 5: Update() the scoreboard with every ACK.
            self.scoreboard.advance(ack);
            newly_sacked = self.scoreboard.update(ack, self.snd_max, h.sack_blocks()) > 0;
        }
        let sample = self
            .rate
            .as_mut()
            .map(|r| r.on_ack(now, ack, &self.scoreboard));
        if let Some(rack) = self.rack.as_mut() {
            // RFC 8985 §6.2 steps 1-4.
            if carries_dsack(ack, h.sack_blocks()) {
                rack.on_dsack(self.snd_max);
            }
            rack.on_ack(now, ack, &self.scoreboard);
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack, newly_sacked);
        } else if self.snd_una < self.snd_max {
            // Duplicate ACK. RFC 5681 section 2 criteria, minus (e) "window unchanged":
            // this receiver's window shrinks with every out-of-order segment. With
            // SACK, RFC 6675 section 2 counts only ACKs that SACK new data (ACKs
            // without any SACK block fall back to the classic definition).
            let is_dup = if self.sack && h.nsack > 0 {
                newly_sacked
            } else {
                true
            };
            match self.recovery {
                // RFC 5681 section 3.2 step 4 / RFC 6582 section 3.2 step 2: each
                // further duplicate inflates cwnd by one segment.
                RecoveryState::FastRecovery => self.win.cwnd += self.smss,
                // RFC 6675 (B): pipe is recomputed from the scoreboard on demand.
                RecoveryState::SackRecovery => {}
                RecoveryState::Open if is_dup => self.count_dupack(now, !self.sack || newly_sacked),
                RecoveryState::Open => {}
            }
        }
        if self.rack.is_some() {
            self.rack_on_ack(now, h, ack > prior_una);
        }
        if self.prr.is_some() {
            self.prr_on_ack(prior_una, prior_sacked);
        }
        if let Some(mut rs) = sample {
            // Linux's cong_control: last, with the state the ACK left.
            rs.prior_in_flight = prior_in_flight;
            rs.in_flight = self.in_flight();
            rs.losses = self.newly_lost;
            rs.ca_state = self.ca_state();
            if let Some(sampler) = self.rate.as_mut() {
                self.cc.on_rate_sample(&mut self.win, now, &rs, sampler);
            }
        }
    }

    /// Bytes in flight as congestion control reads them (Linux's
    /// tcp_packets_in_flight): RFC 6675 pipe with SACK, else the outstanding bytes of
    /// the current transmission.
    fn in_flight(&self) -> u64 {
        if self.sack {
            self.pipe()
        } else {
            self.snd_nxt - self.snd_una
        }
    }

    /// The loss state as Linux's icsk_ca_state names it.
    fn ca_state(&self) -> CaState {
        if self.rto_recovery {
            CaState::Loss
        } else if self.recovery != RecoveryState::Open {
            CaState::Recovery
        } else {
            CaState::Open
        }
    }

    /// RACK-TLP's part of an ACK: the probe episode (RFC 8985 §7.4), loss detection
    /// (§6.2 step 5) and recovery entry, then the probe timer (§7.2).
    fn rack_on_ack(&mut self, now: Time, h: &TcpHeader, advanced: bool) {
        let tlp_ack = TlpAck {
            ack: h.ack,
            advanced,
            has_sack: h.nsack > 0,
            dsack: carries_dsack(h.ack, h.sack_blocks()),
        };
        if self.tlp.as_mut().is_some_and(|t| t.on_ack(tlp_ack)) {
            self.tlp_loss_response(now);
        }
        self.rack_detect_loss(now);
        self.update_pto(now, advanced);
    }

    /// RFC 8985 §6.2 step 5: marks what RACK deems lost (arming its reordering timer
    /// for what is not yet) and, outside any recovery, begins RFC 6675 recovery.
    fn rack_detect_loss(&mut self, now: Time) {
        let in_recovery = self.recovery != RecoveryState::Open || self.rto_recovery;
        let srtt = self.rtt.srtt().unwrap_or(Time::MAX);
        let Some(rack) = self.rack.as_mut() else {
            return;
        };
        let reo_wnd = rack.reo_wnd(in_recovery, self.dupthresh, srtt);
        let lost = rack.detect_loss(now, reo_wnd);
        self.newly_lost += lost;
        if lost > 0 && self.recovery == RecoveryState::Open && self.snd_una >= self.recover {
            self.enter_sack_recovery(now);
        }
    }

    /// RFC 8985 §7.4.2: the probe repaired a loss; congestion control reacts as to any
    /// loss (ssthresh by the variant's rule, cwnd = ssthresh), unless a recovery or
    /// timeout already did.
    fn tlp_loss_response(&mut self, now: Time) {
        if self.recovery != RecoveryState::Open || self.rto_recovery {
            return;
        }
        let flight = self.snd_max - self.snd_una;
        self.cc.on_loss(&self.win, now);
        self.win.ssthresh = self.cc.ssthresh_after_dupacks(&self.win, flight);
        self.win.cwnd = self.win.ssthresh;
    }

    /// RFC 8985 §7.2: the PTO runs (re-armed when `rearm`: new data sent or newly
    /// acknowledged) only in the open state, with data outstanding and nothing SACKed.
    fn update_pto(&mut self, now: Time, rearm: bool) {
        let open = self.recovery == RecoveryState::Open
            && !self.rto_recovery
            && self.scoreboard.is_empty()
            && self.snd_una < self.snd_max;
        let one_segment = self.snd_max - self.snd_una <= self.smss;
        let (srtt, rto) = (self.rtt.srtt(), self.rto_deadline);
        let Some(tlp) = self.tlp.as_mut() else {
            return;
        };
        if !open {
            tlp.disarm();
        } else if rearm {
            tlp.arm(now, srtt, one_segment, rto);
        }
    }

    /// RFC 6937 §3, on every ACK during recovery: cwnd = pipe + sndcnt. With SACK,
    /// DeliveredData = change in snd.una + change in SACKed bytes and pipe is RFC
    /// 6675's. Without SACK (RFC 6937 §3's estimate) a duplicate ACK delivered one
    /// SMSS and a cumulative ACK what it covers beyond the duplicates already counted;
    /// pipe is the outstanding data less those duplicates, and cwnd is kept in
    /// outstanding-data terms, as the NewReno window check reads it.
    fn prr_on_ack(&mut self, prior_una: u64, prior_sacked: u64) {
        let acked = self.snd_una - prior_una;
        let outstanding = self.snd_max - self.snd_una;
        let (delivered, pipe) = if self.sack {
            let delivered = (acked + self.scoreboard.sacked_bytes()).saturating_sub(prior_sacked);
            (delivered, self.pipe())
        } else {
            let delivered = if acked == 0 {
                self.dup_delivered += self.smss;
                self.smss
            } else {
                let d = acked.saturating_sub(self.dup_delivered);
                self.dup_delivered = self.dup_delivered.saturating_sub(acked);
                d
            };
            (delivered, outstanding.saturating_sub(self.dup_delivered))
        };
        let Some(prr) = self.prr.as_mut() else {
            return;
        };
        let cwnd = prr.window(delivered, pipe, self.smss);
        self.win.cwnd = if self.sack {
            cwnd
        } else {
            cwnd + (outstanding - pipe)
        };
    }

    fn on_new_ack(&mut self, now: Time, ack: u64, newly_sacked: bool) {
        let acked = ack - self.snd_una;
        self.stats.bytes_acked += acked;
        let in_recovery = self.recovery != RecoveryState::Open;
        self.cc
            .on_cumulative_ack(&mut self.win, now, ack, self.snd_nxt.max(ack), in_recovery);
        // RFC 6298 section 3 (Karn): `timed` is cleared on any retransmission, so a
        // sample here always comes from a segment sent exactly once.
        if let Some((seq, sent)) = self.timed {
            if ack > seq {
                self.timed = None;
                self.rtt_sample(now, now.saturating_sub(sent));
            }
        }
        if let Some(log) = self.tx_log.as_mut() {
            // ns-3 (TcpSocketBase::EstimateRtt, no timestamps): a sample whenever the ACK
            // covers the oldest segment outstanding and it was sent once.
            let oldest = log
                .iter()
                .find(|t| !t.rtx)
                .filter(|t| self.rtt_every_ack && !t.resent && ack >= t.end)
                .map(|t| t.at);
            // The most recently sent transmission this ACK covers stands in for the
            // segment whose timestamp the ACK would echo; none if it was a
            // retransmission (Karn: it may have been the original that arrived).
            let mut latest: Option<(Time, bool)> = None;
            log.retain(|t| {
                if t.end > ack {
                    return true;
                }
                if latest.is_none_or(|(at, _)| t.at >= at) {
                    latest = Some((t.at, t.rtx));
                }
                false
            });
            if let Some(at) = oldest {
                self.rtt_sample(now, now.saturating_sub(at));
            }
            if let Some((at, false)) = latest.filter(|_| self.cc.wants_ack_rtt()) {
                self.cc.on_ack_rtt(now, now.saturating_sub(at));
            }
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.high_rxt = self.high_rxt.max(ack);
        if ack >= self.recover && self.rto_recovery {
            self.rto_recovery = false;
            if let Some(rack) = self.rack.as_mut() {
                // RFC 8985 §6.2 step 4: leaving RTO recovery counts for reo_wnd_persist.
                rack.on_recovery_exit();
            }
        }
        let mut restart_timer = true;
        match self.recovery {
            RecoveryState::FastRecovery if ack >= self.recover => {
                // RFC 6582 section 3.2 step 3, full ACK, option (1): leave recovery
                // with cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS), no burst.
                let flight = self.snd_max - self.snd_una;
                self.win.cwnd = self.win.ssthresh.min(flight.max(self.smss) + self.smss);
                self.exit_recovery();
            }
            RecoveryState::FastRecovery => {
                // RFC 6582 section 3.2 step 3, partial ACK: retransmit the first
                // unacknowledged segment, deflate cwnd by the newly acknowledged
                // amount and add one SMSS back if at least one SMSS was acknowledged.
                // (cwnd is kept at or above one SMSS.)
                self.rtx_head = true;
                let mut cwnd = self.win.cwnd.saturating_sub(acked);
                if acked >= self.smss {
                    cwnd += self.smss;
                }
                self.win.cwnd = cwnd.max(self.smss);
                // Impatient variant (RFC 6582 sections 3.2 and 4): only the first
                // partial ACK restarts the retransmit timer.
                restart_timer = !self.partial_ack_seen;
                self.partial_ack_seen = true;
            }
            RecoveryState::SackRecovery if ack >= self.recover => {
                // RFC 6675 (A): a cumulative ACK covering RecoveryPoint ends recovery.
                // cwnd stays at the ssthresh set on entry; scoreboard data above
                // the ACK is kept.
                self.exit_recovery();
            }
            RecoveryState::SackRecovery => {
                // RFC 6675 (B): pipe is recomputed on demand; nothing to store.
            }
            RecoveryState::Open => {
                // RFC 5681 section 3.2: a new cumulative ACK ends a dupack run.
                self.end_dupack_run();
                let mut w = self.win;
                self.cc.on_ack(&mut w, now, acked);
                self.win = w;
                if self.sack && newly_sacked {
                    // RFC 6675 section 5 step (2): an ACK that SACKs new data counts
                    // as a duplicate even if it also advances the cumulative ACK.
                    self.count_dupack(now, true);
                }
            }
        }
        // RFC 6298 (5.2)/(5.3): stop the timer when everything is acknowledged,
        // otherwise restart it.
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
        } else if restart_timer {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    /// A duplicate ACK arrived outside recovery; `new_info` says it may let Limited
    /// Transmit send (without SACK any duplicate; with SACK one that SACKs new data).
    fn count_dupack(&mut self, now: Time, new_info: bool) {
        self.dupacks += 1;
        if new_info {
            self.lt_dupacks += 1;
        }
        // RFC 6582 section 3.2 step 1 (and RFC 6675 section 5.1 after a timeout): no
        // new recovery until the cumulative ACK covers `recover`, the end of what was
        // sent at the last fast retransmit or timeout. NewReno's Careful variant asks
        // for more than that (RFC 6582 section 3.2: ack_number - 1 > recover, i.e. an
        // ACK past `recover`, not equal to it: after a timeout, duplicates of exactly
        // `recover` come from the go-back-N resending data that had arrived); RFC
        // 2582's Less Careful variant, and SACK's RecoveryPoint, accept it. `recover` is
        // 0 only before any such event (RFC 6582: the ISS).
        let careful = self.careful && !self.sack && self.recover > 0;
        if self.snd_una < self.recover || (careful && self.snd_una == self.recover) {
            return;
        }
        if self.rack.is_some() {
            // RFC 8985 §6: RACK's marks, not the duplicate count, start recovery.
            return;
        }
        if self.sack {
            // RFC 6675 section 5 steps (2.a)/(2.b).
            if self.dupacks >= self.dupthresh
                || self
                    .scoreboard
                    .is_lost(self.snd_una, self.dupthresh, self.smss)
            {
                self.enter_sack_recovery(now);
            }
        } else if self.dupacks == self.dupthresh {
            self.enter_fast_recovery(now);
        }
    }

    /// RFC 5681 section 3.2 steps 2-3 with RFC 6582 section 3.2 step 1.
    fn enter_fast_recovery(&mut self, now: Time) {
        self.recover = self.snd_max;
        // RFC 5681 section 3.2 step 2: data sent by Limited Transmit is not counted.
        let flight = self.snd_max - self.snd_una - self.limited_sent;
        self.cc.on_loss(&self.win, now);
        self.win.ssthresh = self.cc.ssthresh_after_dupacks(&self.win, flight);
        // Artificial inflation by the segments that have left the network.
        self.win.cwnd = self.win.ssthresh + self.dupthresh as u64 * self.smss;
        self.recovery = RecoveryState::FastRecovery;
        self.partial_ack_seen = false;
        // The duplicates before this one delivered data too (this one is counted by
        // prr_on_ack).
        self.dup_delivered = (self.dupacks as u64 - 1) * self.smss;
        self.begin_recovery(now);
    }

    /// RFC 6675 section 5 step (4).
    fn enter_sack_recovery(&mut self, now: Time) {
        // (4.1) RecoveryPoint = HighData.
        self.recover = self.snd_max;
        // (4.2) ssthresh = cwnd = FlightSize / 2 (with RFC 5681's floor; the variant's
        // rule for a loss found by duplicate ACKs), less Limited Transmit's data.
        let flight = self.snd_max - self.snd_una - self.limited_sent;
        self.cc.on_loss(&self.win, now);
        self.win.ssthresh = self.cc.ssthresh_after_dupacks(&self.win, flight);
        self.win.cwnd = self.win.ssthresh;
        // (4.3) retransmit the first segment; HighRxt and RescueRxt point past it.
        let end = self.snd_una + self.head_len();
        self.high_rxt = end;
        self.rescue_rxt = Some(end);
        self.recovery = RecoveryState::SackRecovery;
        self.begin_recovery(now);
    }

    fn begin_recovery(&mut self, now: Time) {
        // ssthresh has been set without Limited Transmit's data; none is sent in
        // recovery.
        self.limited_sent = 0;
        if self.prr_enabled {
            // RFC 6937 §3: RecoverFS = snd.nxt - snd.una at the start of recovery.
            self.prr = Some(Prr::start(self.win.ssthresh, self.snd_max - self.snd_una));
        }
        self.stats.fast_retransmits += 1;
        self.rtx_head = true;
        self.pace_exempt = true;
        // Give the fast retransmission a full RTO, as BSD-derived stacks do.
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// Recovery ended with a cumulative ACK covering `recover`.
    fn exit_recovery(&mut self) {
        if self.prr.is_some() {
            // RFC 6937 §3: on exiting recovery, cwnd = ssthresh.
            self.win.cwnd = self.win.ssthresh;
        }
        self.leave_recovery();
        self.cc.on_recovery_exit(&mut self.win);
        if let Some(rack) = self.rack.as_mut() {
            // RFC 8985 §6.2 step 4: one more recovery for reo_wnd_persist.
            rack.on_recovery_exit();
        }
    }

    fn leave_recovery(&mut self) {
        self.prr = None;
        self.recovery = RecoveryState::Open;
        self.end_dupack_run();
        self.rtx_head = false;
        self.rescue_rxt = None;
    }

    fn end_dupack_run(&mut self) {
        self.dupacks = 0;
        self.lt_dupacks = 0;
        self.limited_sent = 0;
    }

    // ----------------------------------------------------------------- timer

    /// The sender's timer ([`Self::timer_deadline`]) fired: RACK's reordering timer
    /// (RFC 8985 §6.2), the tail loss probe's (§7.3) or the RTO, whichever is due
    /// first. Without RACK-TLP only the RTO runs.
    pub fn on_timer(&mut self, now: Time) {
        if self
            .rack
            .as_ref()
            .and_then(Rack::timer_deadline)
            .is_some_and(|t| t <= now)
        {
            self.rack_detect_loss(now);
            return;
        }
        if let Some(tlp) = self.tlp.as_mut() {
            if tlp.deadline().is_some_and(|t| t <= now) {
                tlp.on_pto();
                return;
            }
        }
        if self.rto_deadline.is_some_and(|t| t <= now) {
            self.on_rto(now);
        }
    }

    /// When [`Self::on_timer`] is due: the earliest of the RTO and, with RACK-TLP, the
    /// reordering and probe timers (RFC 8985 §8).
    pub fn timer_deadline(&self) -> Option<Time> {
        let rack = self.rack.as_ref().and_then(Rack::timer_deadline);
        let pto = self.tlp.as_ref().and_then(Tlp::deadline);
        [self.rto_deadline, rack, pto].into_iter().flatten().min()
    }

    /// The retransmission timer expired (RFC 6298 section 5.4-5.6).
    pub fn on_rto(&mut self, now: Time) {
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
            return;
        }
        self.stats.timeouts += 1;
        // RFC 5681 section 3.1: ssthresh = max(FlightSize / 2, 2 SMSS), but held
        // constant when the timed-out data was already retransmitted by the timer,
        // i.e. while still going back N after an earlier timeout.
        if !self.rto_recovery {
            let flight = self.snd_nxt - self.snd_una;
            self.cc.on_loss(&self.win, now);
            self.win.ssthresh = self.cc.ssthresh_after_loss(&self.win, flight);
        }
        self.cc.on_timeout();
        self.rto_recovery = true;
        // Loss window.
        self.win.cwnd = self.cc.loss_window(&self.win);
        // RFC 6298 (5.5): back off (unless the variant says not to).
        if self.cc.rto_backoff() {
            self.rtt.back_off();
        }
        // RFC 6582 section 3.2 step 4 / RFC 6675 section 5.1: remember HighData and
        // leave any recovery; no new recovery until it is acknowledged.
        self.recover = self.snd_max;
        self.leave_recovery();
        // RFC 2018 section 8 / RFC 6675 section 5.1: the receiver may have reneged,
        // so SACK information is discarded; later ACKs repopulate the scoreboard and
        // the go-back-N retransmission skips what they SACK.
        self.scoreboard.clear();
        let srtt = self.rtt.srtt().unwrap_or(Time::MAX);
        if let Some(rack) = self.rack.as_mut() {
            // RFC 8985 §6.3 and §7: the RTO marks losses and ends any probe episode.
            let reo_wnd = rack.reo_wnd(true, self.dupthresh, srtt);
            rack.on_rto(now, self.snd_una, reo_wnd);
        }
        if let Some(tlp) = self.tlp.as_mut() {
            tlp.on_rto();
        }
        self.high_rxt = self.snd_una;
        // RFC 6298 (5.4): retransmit from the oldest unacknowledged byte (go-back-N),
        // at once even for a paced variant.
        self.snd_nxt = self.snd_una;
        self.pace_exempt = true;
        // Karn: nothing sent so far can be timed any more.
        self.timed = None;
        // RFC 6298 (5.6): restart the timer with the backed-off RTO.
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    // ----------------------------------------------------------------- output

    /// The next data segment to send now, if any is allowed. `app_bytes` is how many
    /// bytes the application has written in total (`u64::MAX` for a bulk source).
    /// The returned header has `seq` and `len` set.
    pub fn next_segment(&mut self, now: Time, app_bytes: u64) -> Option<TcpHeader> {
        if !self.pace_exempt {
            if let Some(t) = self.cc.pacing_release() {
                if now < t {
                    return None;
                }
            }
        }
        if self.tlp.as_mut().is_some_and(Tlp::take_probe) {
            if let Some(h) = self.send_probe(now, app_bytes) {
                return Some(h);
            }
        }
        if self.rtx_head {
            self.rtx_head = false;
            if self.snd_una < self.snd_max {
                // With RACK, the first segment it marked lost.
                if let Some((seq, end)) =
                    self.rack.as_ref().and_then(|r| r.first_lost(self.snd_una))
                {
                    return Some(self.emit(now, seq, (end - seq).min(self.smss), true));
                }
                let len = self.head_len();
                return Some(self.emit(now, self.snd_una, len, true));
            }
        }
        if self.recovery == RecoveryState::SackRecovery {
            return self.next_sack_segment(now, app_bytes);
        }
        // Go-back-N after a timeout: resend [snd_nxt, snd_max), skipping SACKed data.
        if self.snd_nxt < self.snd_max {
            let mut seq = self.snd_nxt;
            while let Some(end) = self.scoreboard.sacked_end_at(seq) {
                seq = end;
            }
            if seq < self.snd_max {
                let limit = self
                    .scoreboard
                    .next_sacked_start(seq)
                    .unwrap_or(self.snd_max)
                    .min(self.snd_max);
                let len = (limit - seq).min(self.smss);
                if !self.window_allows(seq, len) {
                    return None;
                }
                self.snd_nxt = seq + len;
                return Some(self.emit(now, seq, len, true));
            }
            self.snd_nxt = self.snd_max;
        }
        let Some(len) = self.new_data_len(app_bytes) else {
            self.check_app_limited();
            return None;
        };
        if self.window_allows(self.snd_max, len) {
            return Some(self.send_new(now, len));
        }
        if self.limited_transmit_allows(len) {
            self.limited_sent += len;
            return Some(self.send_new(now, len));
        }
        None
    }

    /// RFC 3042 section 2 (RFC 5681 section 3.2 step 1): the first two duplicate
    /// ACKs of a run (below DupThresh, outside recovery, not while going back N after
    /// a timeout) each allow one segment of new data beyond cwnd: at most cwnd +
    /// 2 SMSS outstanding, within the receiver's window, cwnd itself unchanged. With
    /// SACK, only duplicates that SACK new data count (RFC 3042 section 2). RACK
    /// (RFC 8985) leaves loss detection to time, so not with it.
    fn limited_transmit_allows(&self, len: u64) -> bool {
        if !self.limited_transmit
            || self.rack.is_some()
            || self.recovery != RecoveryState::Open
            || self.rto_recovery
            || self.lt_dupacks == 0
            || self.dupacks >= self.dupthresh
        {
            return false;
        }
        let allowance = self.lt_dupacks.min(2) as u64 * self.smss;
        let after = self.snd_max + len - self.snd_una;
        after <= self.win.cwnd + allowance
            && after <= self.rwnd
            && self.limited_sent + len <= allowance
    }

    /// Delivery-rate estimation §3.4 (Linux tcp_rate_check_app_limited): the
    /// application has nothing to send while the window has room, so the samples of
    /// what is in flight now are application-limited.
    fn check_app_limited(&mut self) {
        let in_flight = self.in_flight();
        if in_flight < self.win.cwnd {
            if let Some(r) = self.rate.as_mut() {
                r.mark_app_limited(in_flight);
            }
        }
    }

    /// RFC 6675 section 5 step (C): while cwnd - pipe >= 1 SMSS, send what NextSeg()
    /// picks.
    fn next_sack_segment(&mut self, now: Time, app_bytes: u64) -> Option<TcpHeader> {
        let pipe = self.pipe();
        if self.win.cwnd < pipe + self.smss {
            return None;
        }
        let from = self.high_rxt.max(self.snd_una);
        let hole = self
            .scoreboard
            .first_hole_from(from, self.dupthresh, self.smss);
        // Rule (1): the first lost, not yet retransmitted, unSACKed byte below the
        // highest SACKed byte (with RACK: the first segment RACK marked lost).
        let lost = match &self.rack {
            Some(rack) => rack.first_lost(self.snd_una),
            None => hole.filter(|h| h.lost).map(|h| (h.start, h.end)),
        };
        if let Some((start, end)) = lost {
            let len = (end - start).min(self.smss);
            self.high_rxt = self.high_rxt.max(start + len);
            return Some(self.emit(now, start, len, true));
        }
        // Rule (2): new data, if the application has some and the receiver's window
        // allows it.
        if let Some(len) = self.new_data_len(app_bytes) {
            if self.snd_max + len <= self.snd_una + self.rwnd {
                return Some(self.send_new(now, len));
            }
        }
        if self.rack.is_some() {
            // RACK-TLP: data not marked lost is left to RACK's timer and the probe.
            return None;
        }
        // Rule (3): the first unSACKed byte past HighRxt below the highest SACKed
        // byte, even though it is not yet deemed lost.
        if let Some(h) = hole {
            let len = (h.end - h.start).min(self.smss);
            self.high_rxt = h.start + len;
            return Some(self.emit(now, h.start, len, true));
        }
        // Rule (4): one rescue retransmission per recovery, of up to one segment
        // ending at the highest unSACKed byte; HighRxt is left alone.
        if self.rescue_rxt.is_none_or(|r| self.snd_una > r) {
            if let Some((start, end)) = self.scoreboard.highest_hole(self.snd_una, self.snd_max) {
                let seq = start.max(end.saturating_sub(self.smss));
                self.rescue_rxt = Some(self.recover);
                return Some(self.emit(now, seq, end - seq, true));
            }
        }
        None
    }

    /// Length of the segment starting at snd_una: up to one SMSS, not crossing the
    /// first SACKed byte or snd_max.
    fn head_len(&self) -> u64 {
        let limit = self
            .scoreboard
            .next_sacked_start(self.snd_una)
            .unwrap_or(self.snd_max)
            .min(self.snd_max);
        (limit - self.snd_una).min(self.smss)
    }

    /// Length of the next new-data segment, if the application has written any
    /// unsent bytes.
    fn new_data_len(&self, app_bytes: u64) -> Option<u64> {
        let avail = app_bytes.saturating_sub(self.snd_max);
        (avail > 0).then(|| avail.min(self.smss))
    }

    /// RFC 5681 section 2/3: a segment `[seq, seq + len)` sent at `snd_nxt` may go if
    /// the bytes outstanding after it stay within min(cwnd, rwnd). With nothing
    /// outstanding one segment is always allowed, which stands in for a zero-window
    /// probe (there is no persist timer) and so can never deadlock.
    fn window_allows(&self, seq: u64, len: u64) -> bool {
        let outstanding = seq - self.snd_una;
        outstanding == 0 || outstanding + len <= self.win.cwnd.min(self.rwnd)
    }

    fn send_new(&mut self, now: Time, len: u64) -> TcpHeader {
        let seq = self.snd_max;
        self.snd_max += len;
        self.snd_nxt = self.snd_max;
        let h = self.emit(now, seq, len, false);
        if self.tlp.is_some() {
            self.update_pto(now, true);
        }
        h
    }

    /// RFC 8985 §7.3: the probe is a new segment if the application has one and the
    /// receiver's window allows it, else the highest-sequence segment sent (at most
    /// one SMSS); cwnd does not hold it back. TLP.end_seq is SND.NXT after it, and the
    /// RTO is restarted.
    fn send_probe(&mut self, now: Time, app_bytes: u64) -> Option<TcpHeader> {
        let fresh = self
            .new_data_len(app_bytes)
            .filter(|&len| self.snd_max + len <= self.snd_una + self.rwnd);
        let h = match fresh {
            Some(len) => {
                let seq = self.snd_max;
                self.snd_max += len;
                self.snd_nxt = self.snd_max;
                self.emit(now, seq, len, false)
            }
            None if self.snd_una < self.snd_max => {
                let len = (self.snd_max - self.snd_una).min(self.smss);
                self.emit(now, self.snd_max - len, len, true)
            }
            None => return None,
        };
        self.stats.tail_loss_probes += 1;
        if let Some(tlp) = self.tlp.as_mut() {
            tlp.on_probe_sent(self.snd_max, fresh.is_none());
        }
        self.rto_deadline = Some(now + self.rtt.rto());
        Some(h)
    }

    /// An RTT sample into the RTO estimator (RFC 6298 section 2) and the congestion
    /// control.
    fn rtt_sample(&mut self, now: Time, r: Time) {
        self.rtt.on_sample(r);
        self.cc.on_rtt_sample(now, r);
        self.cc.on_smoothed_rtt(self.rtt.srtt().unwrap_or(r));
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum_s += to_secs(r);
    }

    fn emit(&mut self, now: Time, seq: u64, len: u64, retransmission: bool) -> TcpHeader {
        debug_assert!(len > 0 && len <= self.smss);
        self.stats.segments_sent += 1;
        if retransmission {
            self.stats.retransmissions += 1;
            // Karn: a retransmission makes any timing in progress ambiguous.
            self.timed = None;
        } else if self.timed.is_none() && !self.rtt_every_ack {
            self.timed = Some((seq, now));
        }
        // RFC 6298 (5.1): start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.pace_exempt = false;
        if let Some(prr) = self.prr.as_mut() {
            prr.on_sent(len);
        }
        if let Some(rack) = self.rack.as_mut() {
            rack.on_sent(now, seq, seq + len, retransmission);
        }
        if let Some(log) = self.tx_log.as_mut() {
            if retransmission && self.rtt_every_ack {
                // ns-3 (UpdateRttHistory): the segments this retransmission overlaps give
                // no sample any more (Karn).
                for t in log
                    .iter_mut()
                    .filter(|t| t.end > seq && t.start < seq + len)
                {
                    t.resent = true;
                }
            }
            log.push_back(Tx {
                start: seq,
                end: seq + len,
                at: now,
                rtx: retransmission,
                resent: false,
            });
        }
        if let Some(r) = self.rate.as_mut() {
            // Nothing was outstanding before this segment (Linux: !tp->packets_out).
            let idle = !retransmission && seq == self.snd_una;
            r.on_sent(now, seq, seq + len, idle, retransmission);
        }
        self.cc.on_send(now, len as u32);
        TcpHeader::data(seq, len as u32)
    }

    // ----------------------------------------------------------------- queries

    /// When the retransmission timer fires; `None` when nothing is outstanding.
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }

    /// When a paced variant will next allow a segment; `None` without pacing (or
    /// before the first segment). May lie in the past: then pacing holds nothing back.
    pub fn pacing_deadline(&self) -> Option<Time> {
        self.cc.pacing_release()
    }

    /// A paced variant's current rate interval (the spacing the next segment would
    /// get); `None` without pacing.
    pub fn pacing_interval(&self) -> Option<Time> {
        self.cc.pacing_interval()
    }

    /// BBR's state, for a BBR sender.
    pub fn bbr(&self) -> Option<&Bbr> {
        match &self.cc {
            CcAlgorithm::Bbr(b) => Some(b),
            _ => None,
        }
    }

    /// BBR's mode, for a BBR sender.
    pub fn bbr_mode(&self) -> Option<BbrMode> {
        self.bbr().map(Bbr::mode)
    }

    /// Counters so far.
    pub fn stats(&self) -> &TcpSenderStats {
        &self.stats
    }

    /// Congestion window, bytes.
    pub fn cwnd_bytes(&self) -> u64 {
        self.win.cwnd
    }

    /// Slow-start threshold, bytes.
    pub fn ssthresh_bytes(&self) -> u64 {
        self.win.ssthresh
    }

    /// Oldest unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// Just past the highest byte ever sent.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }

    /// New data Limited Transmit sent beyond cwnd in the current run of duplicate ACKs
    /// (at most 2 SMSS; 0 outside such a run and from the start of a recovery).
    pub fn limited_transmit_bytes(&self) -> u64 {
        self.limited_sent
    }

    /// Bytes believed in flight: RFC 6675 pipe during SACK recovery, otherwise the
    /// outstanding bytes of the current transmission (snd_nxt - snd_una).
    pub fn flight_size(&self) -> u64 {
        if self.recovery == RecoveryState::SackRecovery {
            self.pipe()
        } else {
            self.snd_nxt - self.snd_una
        }
    }

    /// The current retransmission timeout (with backoff).
    pub fn rto(&self) -> Time {
        self.rtt.rto()
    }

    /// Smoothed RTT, once a sample was taken.
    pub fn srtt(&self) -> Option<Time> {
        self.rtt.srtt()
    }

    /// Which loss recovery is in progress.
    pub fn recovery_state(&self) -> RecoveryState {
        self.recovery
    }

    /// Fast recovery or SACK recovery is in progress.
    pub fn in_recovery(&self) -> bool {
        self.recovery != RecoveryState::Open
    }

    /// NewReno `recover` / RFC 6675 RecoveryPoint (exclusive: snd_max at the last
    /// recovery entry or timeout).
    pub fn recover(&self) -> u64 {
        self.recover
    }

    /// Peer's advertised window as last seen.
    pub fn peer_window(&self) -> u64 {
        self.rwnd
    }

    fn pipe(&self) -> u64 {
        if let Some(rack) = &self.rack {
            return rack.pipe();
        }
        self.scoreboard.pipe(
            self.snd_una,
            self.snd_max,
            self.high_rxt,
            self.dupthresh,
            self.smss,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MILLIS, SECOND};
    use crate::wire::tcp::SackBlock;

    const MSS: u64 = 1000;

    fn cfg(sack: bool) -> TcpConfig {
        TcpConfig {
            sack,
            mss: MSS as u32,
            initial_cwnd_segments: 10,
            min_rto: SECOND,
            initial_rto: SECOND,
            max_rto: 60 * SECOND,
            clock_granularity: MILLIS,
            rtt_every_ack: false,
            delayed_ack: false,
            rcv_buffer: 1_000_000,
            dupack_threshold: 3,
            ..TcpConfig::default()
        }
    }

    fn drain(s: &mut TcpSender, now: Time, app: u64) -> Vec<(u64, u32)> {
        std::iter::from_fn(|| s.next_segment(now, app))
            .map(|h| (h.seq, h.len))
            .collect()
    }

    fn ack(n: u64) -> TcpHeader {
        TcpHeader {
            ack: n,
            wnd: 1_000_000,
            ..Default::default()
        }
    }

    fn sack_ack(n: u64, blocks: &[(u64, u64)]) -> TcpHeader {
        let mut h = ack(n);
        for (i, &(a, b)) in blocks.iter().enumerate() {
            h.sack[i] = SackBlock::new(a, b);
        }
        h.nsack = blocks.len() as u8;
        h
    }

    fn segs(from: u64, n: u64) -> Vec<(u64, u32)> {
        (from..from + n).map(|i| (i * MSS, MSS as u32)).collect()
    }

    #[test]
    fn initial_window_and_slow_start_growth() {
        let mut s = TcpSender::new(&TcpConfig {
            initial_cwnd_segments: 2,
            ..cfg(false)
        });
        assert_eq!(s.cwnd_bytes(), 2 * MSS);
        assert_eq!(drain(&mut s, 0, u64::MAX), segs(0, 2));
        // Each ACK of one new segment adds one SMSS and releases two segments.
        s.on_ack(10, &ack(1000));
        assert_eq!(s.cwnd_bytes(), 3 * MSS);
        assert_eq!(drain(&mut s, 10, u64::MAX), segs(2, 2));
        s.on_ack(11, &ack(2000));
        assert_eq!(s.cwnd_bytes(), 4 * MSS);
        assert_eq!(drain(&mut s, 11, u64::MAX), segs(4, 2));
        // A (delayed) ACK for two segments adds only one SMSS (RFC 5681 eq. 2).
        s.on_ack(20, &ack(4000));
        assert_eq!(s.cwnd_bytes(), 5 * MSS);
        assert_eq!(drain(&mut s, 20, u64::MAX), segs(6, 3));
        assert_eq!(s.stats().segments_sent, 9);
        assert_eq!(s.stats().bytes_acked, 4000);
    }

    #[test]
    fn congestion_avoidance_growth_after_timeout() {
        let mut s = TcpSender::new(&cfg(false));
        assert_eq!(drain(&mut s, 0, u64::MAX).len(), 10);
        s.on_rto(SECOND);
        assert_eq!(s.ssthresh_bytes(), 5000);
        assert_eq!(s.cwnd_bytes(), MSS);
        let mut cw = vec![];
        for i in 1..=7 {
            s.on_ack(SECOND + i, &ack(i * MSS));
            cw.push(s.cwnd_bytes());
        }
        // Slow start up to ssthresh, then SMSS*SMSS/cwnd per ACK.
        assert_eq!(cw, vec![2000, 3000, 4000, 5000, 5200, 5392, 5577]);
    }

    #[test]
    fn fast_retransmit_after_exactly_dupthresh_dupacks() {
        for thresh in [3u32, 5] {
            let mut s = TcpSender::new(&TcpConfig {
                dupack_threshold: thresh,
                ..cfg(false)
            });
            drain(&mut s, 0, u64::MAX);
            s.on_ack(1, &ack(1000));
            assert_eq!(drain(&mut s, 1, u64::MAX), segs(10, 2));
            for _ in 1..thresh {
                s.on_ack(2, &ack(1000));
                assert_eq!(s.stats().fast_retransmits, 0);
                assert_eq!(
                    drain(&mut s, 2, u64::MAX),
                    vec![],
                    "window is full, no retransmission yet"
                );
            }
            s.on_ack(3, &ack(1000));
            assert_eq!(s.stats().fast_retransmits, 1);
            assert_eq!(s.recovery_state(), RecoveryState::FastRecovery);
            assert_eq!(s.recover(), 12_000);
            // ssthresh = FlightSize / 2; cwnd inflated by DupThresh segments.
            assert_eq!(s.ssthresh_bytes(), 5500);
            assert_eq!(s.cwnd_bytes(), 5500 + thresh as u64 * MSS);
            assert_eq!(drain(&mut s, 3, u64::MAX), vec![(1000, 1000)]);
            assert_eq!(s.stats().retransmissions, 1);
        }
    }

    #[test]
    fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_dupacks() {
        for (limited, sack) in [(false, false), (true, false), (true, true)] {
            let mut s = TcpSender::new(&TcpConfig {
                limited_transmit: limited,
                ..cfg(sack)
            });
            drain(&mut s, 0, u64::MAX); // [0, 10000), cwnd full
                                        // Segment 0 lost: each duplicate ACK (SACKing one more segment with SACK).
            let dup = |k: u64| {
                if sack {
                    sack_ack(0, &[(1000, 1000 + k * MSS)])
                } else {
                    ack(0)
                }
            };
            let mut sent = vec![];
            for k in 1..=2 {
                s.on_ack(k, &dup(k));
                sent.push(drain(&mut s, k, u64::MAX));
            }
            if limited {
                // RFC 3042: one new segment per duplicate, beyond cwnd, cwnd unchanged.
                assert_eq!(sent, vec![segs(10, 1), segs(11, 1)]);
            } else {
                assert_eq!(sent, vec![vec![], vec![]]);
            }
            assert_eq!(s.cwnd_bytes(), 10 * MSS);
            s.on_ack(3, &dup(3));
            assert_eq!(s.stats().fast_retransmits, 1);
            // RFC 5681 section 3.2 step 2: ssthresh from the 10 segments outstanding
            // before, not the 12 with Limited Transmit's two.
            assert_eq!(s.ssthresh_bytes(), 5000);
            assert_eq!(s.next_segment(3, u64::MAX).map(|h| h.seq), Some(0));
        }
    }

    #[test]
    fn limited_transmit_stays_within_its_limits() {
        let lt = |c: TcpConfig| {
            TcpSender::new(&TcpConfig {
                limited_transmit: true,
                ..c
            })
        };
        // DupThresh 5: only the first two duplicates send (RFC 3042), the third and
        // fourth wait for the fast retransmit.
        let mut s = lt(TcpConfig {
            dupack_threshold: 5,
            ..cfg(false)
        });
        drain(&mut s, 0, u64::MAX);
        let sent: Vec<_> = (1..=4)
            .map(|k| {
                s.on_ack(k, &ack(0));
                drain(&mut s, k, u64::MAX).len()
            })
            .collect();
        assert_eq!(sent, vec![1, 1, 0, 0]);
        // The receiver's window: a peer that advertises just the flight gets nothing.
        let mut s = lt(cfg(false));
        drain(&mut s, 0, u64::MAX);
        let full = TcpHeader {
            wnd: 10_000,
            ..ack(0)
        };
        s.on_ack(1, &full);
        assert_eq!(drain(&mut s, 1, u64::MAX), vec![]);
        // Going back N after a timeout: three segments outstanding time out, the ACK
        // of the first lets the timer resend the other two, and a duplicate of it
        // then sends no new data (cwnd + 1 SMSS would allow one).
        let mut s = lt(cfg(false));
        assert_eq!(drain(&mut s, 0, 3000), segs(0, 3));
        s.on_rto(SECOND);
        assert_eq!(drain(&mut s, SECOND, u64::MAX), segs(0, 1));
        s.on_ack(SECOND + 1, &ack(1000));
        assert_eq!(drain(&mut s, SECOND + 1, u64::MAX), segs(1, 2));
        s.on_ack(SECOND + 2, &ack(1000));
        assert_eq!(drain(&mut s, SECOND + 2, u64::MAX), vec![]);
        // With RACK, loss detection is by time: after an RTT sample (100 ms) the
        // first SACK of a gap sends nothing (Limited Transmit would send 12000).
        let mut s = lt(rack_cfg());
        drain(&mut s, 0, u64::MAX);
        s.on_ack(100 * MILLIS, &ack(1000));
        assert_eq!(drain(&mut s, 100 * MILLIS, u64::MAX), segs(10, 2));
        s.on_ack(101 * MILLIS, &sack_ack(1000, &[(2000, 3000)]));
        assert_eq!(drain(&mut s, 101 * MILLIS, u64::MAX), vec![]);
        // With SACK, a duplicate that SACKs nothing new counts toward DupThresh by
        // RFC 5681's definition but sends no new data (RFC 3042 section 2).
        let mut s = lt(cfg(true));
        drain(&mut s, 0, u64::MAX);
        s.on_ack(1, &ack(0));
        assert_eq!(drain(&mut s, 1, u64::MAX), vec![]);
        s.on_ack(2, &sack_ack(0, &[(1000, 2000)]));
        assert_eq!(drain(&mut s, 2, u64::MAX), segs(10, 1));
        s.on_ack(3, &sack_ack(0, &[(1000, 2000)]));
        assert_eq!(drain(&mut s, 3, u64::MAX), vec![]);
    }

    #[test]
    fn limited_transmit_allowance_starts_again_with_each_run_of_duplicates() {
        for sack in [false, true] {
            let mut s = TcpSender::new(&TcpConfig {
                limited_transmit: true,
                ..cfg(sack)
            });
            let dup = |una: u64, k: u64| {
                if sack {
                    sack_ack(una, &[(una + 1000, una + 1000 + k * MSS)])
                } else {
                    ack(una)
                }
            };
            drain(&mut s, 0, u64::MAX); // [0, 10000)
            for k in 1..=2 {
                s.on_ack(k, &dup(0, k));
            }
            assert_eq!(drain(&mut s, 2, u64::MAX), segs(10, 2));
            assert_eq!(s.limited_transmit_bytes(), 2 * MSS);
            // A new cumulative ACK ends the run (slow start: cwnd 11000, filled) ...
            s.on_ack(3, &ack(3000));
            assert_eq!(s.limited_transmit_bytes(), 0);
            assert_eq!(drain(&mut s, 3, u64::MAX), segs(12, 2));
            // ... and the first duplicate of the next run sends again.
            s.on_ack(4, &dup(3000, 1));
            assert_eq!(drain(&mut s, 4, u64::MAX), segs(14, 1), "sack={sack}");
            // Entering recovery takes Limited Transmit's data out of the count.
            for k in 2..=3 {
                s.on_ack(4 + k, &dup(3000, k));
            }
            assert!(s.in_recovery());
            assert_eq!(s.limited_transmit_bytes(), 0);
        }
    }

    #[test]
    fn careful_newreno_needs_an_ack_beyond_recover_for_a_new_fast_retransmit() {
        // After a recovery ends with the full ACK of `recover`, three duplicates of that
        // same ACK (from retransmissions of data that had arrived) start a second
        // recovery only under RFC 2582's Less Careful variant; an ACK past `recover`
        // and its duplicates start one under both (RFC 6582 section 3.2 step 1).
        for careful in [false, true] {
            let mut s = after_a_recovery_up_to_recover(careful, false);
            assert_eq!(s.recover(), 10_000);
            for _ in 0..3 {
                s.on_ack(3, &ack(10_000));
            }
            assert_eq!(
                s.stats().fast_retransmits,
                if careful { 1 } else { 2 },
                "careful {careful}"
            );
            if careful {
                s.on_ack(4, &ack(11_000));
                for _ in 0..3 {
                    s.on_ack(5, &ack(11_000));
                }
                assert_eq!(s.stats().fast_retransmits, 2);
                assert_eq!(s.next_segment(5, u64::MAX).map(|h| h.seq), Some(11_000));
            }
        }
    }

    #[test]
    fn careful_variant_leaves_sack_recovery_point_rule_alone() {
        // RFC 6675 section 5.1's RecoveryPoint: with SACK, duplicates of the ACK that
        // ended a recovery start the next one whether or not Careful is set.
        for careful in [false, true] {
            let mut s = after_a_recovery_up_to_recover(careful, true);
            for k in 1..=3 {
                s.on_ack(3, &sack_ack(10_000, &[(11_000, 11_000 + k * MSS)]));
            }
            assert_eq!(s.stats().fast_retransmits, 2, "careful {careful}");
        }
    }

    /// Ten segments at t = 0, segment 0 lost: three duplicates (SACKing 1, 2, 3 with
    /// SACK) start a recovery, whose retransmissions go out, and the full ACK of
    /// `recover` (10000) at t = 2 ends it; what that lets out is sent.
    fn after_a_recovery_up_to_recover(careful: bool, sack: bool) -> TcpSender {
        let mut s = TcpSender::new(&TcpConfig {
            newreno_careful: careful,
            ..cfg(sack)
        });
        drain(&mut s, 0, u64::MAX); // [0, 10000)
        for k in 1..=3 {
            if sack {
                s.on_ack(1, &sack_ack(0, &[(1000, 1000 + k * MSS)]));
            } else {
                s.on_ack(1, &ack(0));
            }
        }
        assert_eq!(s.stats().fast_retransmits, 1);
        drain(&mut s, 1, u64::MAX);
        s.on_ack(2, &ack(10_000)); // full ACK: recovery over
        assert!(!s.in_recovery());
        drain(&mut s, 2, u64::MAX);
        s
    }

    #[test]
    fn newreno_partial_and_full_ack() {
        let mut s = TcpSender::new(&cfg(false));
        drain(&mut s, 0, u64::MAX); // [0, 10000)
                                    // Segments 0 and 3 lost: dupacks for 1, 2, 4.. 9.
        for _ in 0..3 {
            s.on_ack(1, &ack(0));
        }
        assert_eq!(drain(&mut s, 1, u64::MAX), vec![(0, 1000)]);
        assert_eq!(s.cwnd_bytes(), 5000 + 3000);
        for _ in 0..5 {
            s.on_ack(2, &ack(0));
        }
        // cwnd 13000 > 10000 outstanding: three new segments.
        assert_eq!(s.cwnd_bytes(), 13_000);
        assert_eq!(drain(&mut s, 2, u64::MAX), segs(10, 3));
        let deadline = s.rto_deadline();
        // Partial ACK up to the second hole: retransmit it at once, deflate by the
        // 3000 acknowledged bytes and add one SMSS back; timer restarted (first one).
        s.on_ack(100, &ack(3000));
        assert!(s.in_recovery());
        assert_eq!(s.cwnd_bytes(), 13_000 - 3000 + 1000);
        assert_eq!(
            s.next_segment(100, u64::MAX).map(|h| (h.seq, h.len)),
            Some((3000, 1000))
        );
        assert_eq!(s.rto_deadline(), Some(100 + SECOND));
        assert_ne!(s.rto_deadline(), deadline);
        // A second partial ACK does not restart the timer (Impatient variant).
        s.on_ack(150, &ack(3500));
        assert_eq!(s.rto_deadline(), Some(100 + SECOND));
        assert_eq!(
            s.cwnd_bytes(),
            11_000 - 500,
            "less than one SMSS acked: nothing added back"
        );
        assert_eq!(
            drain(&mut s, 150, u64::MAX),
            vec![(3500, 1000), (13_000, 1000)]
        );
        // Full ACK (covers recover = 10000): cwnd = min(ssthresh, FlightSize + SMSS).
        s.on_ack(200, &ack(12_000));
        assert!(!s.in_recovery());
        assert_eq!(s.snd_max(), 14_000);
        assert_eq!(s.cwnd_bytes(), 3000, "min(5000, 2000 + 1000)");
        s.on_ack(210, &ack(14_000));
        assert_eq!(s.rto_deadline(), None, "everything acknowledged");
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.stats().retransmissions, 3);
    }

    #[test]
    fn no_fast_retransmit_for_dupacks_below_recover_after_timeout() {
        let mut s = TcpSender::new(&cfg(false));
        drain(&mut s, 0, u64::MAX);
        s.on_rto(SECOND);
        assert_eq!(s.recover(), 10_000);
        assert_eq!(drain(&mut s, SECOND, u64::MAX), vec![(0, 1000)]);
        // Duplicates caused by go-back-N do not start a fast retransmit.
        for _ in 0..5 {
            s.on_ack(SECOND + 1, &ack(0));
        }
        assert_eq!(s.stats().fast_retransmits, 0);
        assert!(!s.in_recovery());
    }

    #[test]
    fn rto_backoff_doubles_and_is_capped() {
        let mut s = TcpSender::new(&TcpConfig {
            max_rto: 5 * SECOND,
            ..cfg(false)
        });
        assert_eq!(s.rto_deadline(), None);
        drain(&mut s, 0, 1000);
        let mut t = s.rto_deadline().unwrap();
        assert_eq!(t, SECOND, "initial RTO");
        let mut gaps = vec![];
        for _ in 0..5 {
            s.on_rto(t);
            assert_eq!(drain(&mut s, t, 1000), vec![(0, 1000)]);
            let next = s.rto_deadline().unwrap();
            gaps.push((next - t) / SECOND);
            t = next;
        }
        assert_eq!(gaps, vec![2, 4, 5, 5, 5]);
        assert_eq!(s.stats().timeouts, 5);
        assert_eq!(s.stats().retransmissions, 5);
        assert_eq!(s.stats().segments_sent, 6);
    }

    #[test]
    fn timeout_collapses_window_and_goes_back_n() {
        let mut s = TcpSender::new(&cfg(false));
        drain(&mut s, 0, u64::MAX);
        s.on_ack(100 * MILLIS, &ack(2000));
        drain(&mut s, 100 * MILLIS, u64::MAX); // [2000, 13000) outstanding, cwnd 11000
        let t = s.rto_deadline().unwrap();
        s.on_rto(t);
        assert_eq!(s.ssthresh_bytes(), 5500, "FlightSize / 2");
        assert_eq!(s.cwnd_bytes(), MSS, "loss window");
        assert_eq!(drain(&mut s, t, u64::MAX), vec![(2000, 1000)]);
        s.on_ack(t + 1, &ack(3000));
        assert_eq!(
            drain(&mut s, t + 1, u64::MAX),
            vec![(3000, 1000), (4000, 1000)]
        );
        // A second timeout of the same data keeps ssthresh (RFC 5681 section 3.1).
        let t2 = s.rto_deadline().unwrap();
        s.on_rto(t2);
        assert_eq!(s.ssthresh_bytes(), 5500);
        assert_eq!(drain(&mut s, t2, u64::MAX), vec![(3000, 1000)]);
        // The original segments were only delayed: a big ACK moves snd_nxt past them.
        s.on_ack(t2 + 1, &ack(13_000));
        assert_eq!(drain(&mut s, t2 + 1, u64::MAX), segs(13, 2));
    }

    #[test]
    fn rto_timer_restarts_on_new_ack_and_stops_when_idle() {
        let mut s = TcpSender::new(&cfg(false));
        drain(&mut s, 0, 3000);
        assert_eq!(s.rto_deadline(), Some(SECOND));
        s.on_ack(300 * MILLIS, &ack(1000));
        // The sample (300 ms) gives RTO = max(1 s, 300 + 4 * 150 ms) = 1 s.
        assert_eq!(s.rto_deadline(), Some(300 * MILLIS + SECOND));
        s.on_ack(400 * MILLIS, &ack(1000));
        assert_eq!(
            s.rto_deadline(),
            Some(300 * MILLIS + SECOND),
            "duplicate ACK: no restart"
        );
        s.on_ack(500 * MILLIS, &ack(3000));
        assert_eq!(s.rto_deadline(), None);
        drain(&mut s, 600 * MILLIS, 4000);
        assert_eq!(
            s.rto_deadline(),
            Some(600 * MILLIS + SECOND),
            "restarted by new data"
        );
    }

    #[test]
    fn min_rto_is_honoured_and_large_rtts_raise_it() {
        let mut s = TcpSender::new(&cfg(false));
        drain(&mut s, 0, 1000);
        s.on_ack(10 * MILLIS, &ack(1000));
        assert_eq!(s.srtt(), Some(10 * MILLIS));
        assert_eq!(s.rto(), SECOND);
        let mut s = TcpSender::new(&TcpConfig {
            min_rto: 200 * MILLIS,
            ..cfg(false)
        });
        drain(&mut s, 0, 1000);
        s.on_ack(10 * MILLIS, &ack(1000));
        assert_eq!(s.rto(), 200 * MILLIS);
        drain(&mut s, SECOND, 2000);
        s.on_ack(SECOND + 800 * MILLIS, &ack(2000));
        assert!(s.rto() > 800 * MILLIS);
        assert_eq!(s.stats().rtt_samples, 2);
        assert!((s.stats().rtt_sum_s - 0.81).abs() < 1e-9);
    }

    #[test]
    fn karn_no_sample_from_retransmitted_data_and_backoff_kept() {
        let mut s = TcpSender::new(&cfg(false));
        drain(&mut s, 0, 1000);
        s.on_rto(SECOND);
        assert_eq!(drain(&mut s, SECOND, 1000), vec![(0, 1000)]);
        // The ACK is ambiguous (original or retransmission?): no sample, RTO stays
        // backed off.
        s.on_ack(SECOND + 50 * MILLIS, &ack(1000));
        assert_eq!(s.stats().rtt_samples, 0);
        assert_eq!(s.srtt(), None);
        assert_eq!(s.rto(), 2 * SECOND);
        // The next never-retransmitted segment gives a sample, which collapses the RTO.
        drain(&mut s, 2 * SECOND, 2000);
        s.on_ack(2 * SECOND + 50 * MILLIS, &ack(2000));
        assert_eq!(s.stats().rtt_samples, 1);
        assert_eq!(s.srtt(), Some(50 * MILLIS));
        assert_eq!(s.rto(), SECOND);
    }

    #[test]
    fn karn_timing_abandoned_when_anything_is_retransmitted() {
        let mut s = TcpSender::new(&cfg(false));
        drain(&mut s, 0, u64::MAX); // times segment 0
        for _ in 0..3 {
            s.on_ack(MILLIS, &ack(0));
        }
        drain(&mut s, MILLIS, u64::MAX); // fast retransmission of segment 0
        s.on_ack(100 * MILLIS, &ack(10_000));
        assert_eq!(s.stats().rtt_samples, 0);
    }

    #[test]
    fn every_ack_sampling_times_the_oldest_segment_each_ack_covers() {
        // ns-3 without timestamps: every ACK covering the oldest outstanding segment is a
        // sample timed from that segment; RFC 6298's timing takes one per window.
        let every = TcpConfig {
            rtt_every_ack: true,
            ..cfg(false)
        };
        for (c, want) in [(cfg(false), 1u64), (every.clone(), 5)] {
            let mut s = TcpSender::new(&c);
            // Ten segments at 0, 1, ..., 9 ms (sent one by one), ACKed two at a time
            // from 100 ms on, every 10 ms.
            for i in 0..10u64 {
                drain(&mut s, i * MILLIS, (i + 1) * 1000);
            }
            for k in 1..=5u64 {
                s.on_ack((90 + 10 * k) * MILLIS, &ack(2000 * k));
            }
            assert_eq!(s.stats().rtt_samples, want, "every_ack {}", c.rtt_every_ack);
            if c.rtt_every_ack {
                // Samples: 100 - 0, 110 - 2, 120 - 4, 130 - 6, 140 - 8 ms.
                let sum: f64 = [100.0, 108.0, 116.0, 124.0, 132.0].iter().sum::<f64>() / 1e3;
                assert!(
                    (s.stats().rtt_sum_s - sum).abs() < 1e-9,
                    "{}",
                    s.stats().rtt_sum_s
                );
            }
        }
        // Karn: an ACK covering a retransmitted segment gives no sample.
        let mut s = TcpSender::new(&every);
        drain(&mut s, 0, 1000);
        s.on_rto(SECOND);
        drain(&mut s, SECOND, 1000);
        s.on_ack(SECOND + 50 * MILLIS, &ack(1000));
        assert_eq!(s.stats().rtt_samples, 0);
        assert_eq!(s.rto(), 2 * SECOND);
    }

    #[test]
    fn receiver_window_limits_outstanding_data() {
        let mut s = TcpSender::new(&cfg(false));
        drain(&mut s, 0, 1000);
        s.on_ack(
            1,
            &TcpHeader {
                ack: 1000,
                wnd: 3000,
                ..Default::default()
            },
        );
        assert_eq!(drain(&mut s, 1, u64::MAX), segs(1, 3));
        // Window shrinks (out-of-order data at the receiver): no new data.
        s.on_ack(
            2,
            &TcpHeader {
                ack: 1000,
                wnd: 1000,
                ..Default::default()
            },
        );
        assert_eq!(drain(&mut s, 2, u64::MAX), vec![]);
        s.on_ack(
            3,
            &TcpHeader {
                ack: 4000,
                wnd: 2500,
                ..Default::default()
            },
        );
        assert_eq!(drain(&mut s, 3, u64::MAX), segs(4, 2));
        // Zero window with nothing outstanding still lets one segment probe.
        s.on_ack(
            4,
            &TcpHeader {
                ack: 6000,
                wnd: 0,
                ..Default::default()
            },
        );
        assert_eq!(drain(&mut s, 4, u64::MAX), segs(6, 1));
    }

    #[test]
    fn application_bytes_limit_new_data() {
        let mut s = TcpSender::new(&cfg(false));
        assert_eq!(drain(&mut s, 0, 0), vec![]);
        assert_eq!(s.rto_deadline(), None);
        assert_eq!(
            drain(&mut s, 0, 2500),
            vec![(0, 1000), (1000, 1000), (2000, 500)]
        );
        assert_eq!(drain(&mut s, 1, 2500), vec![]);
        assert_eq!(drain(&mut s, 2, 4000), vec![(2500, 1000), (3500, 500)]);
        assert_eq!(s.snd_max(), 4000);
    }

    #[test]
    fn stale_and_bogus_acks_are_ignored() {
        let mut s = TcpSender::new(&cfg(false));
        drain(&mut s, 0, 5000);
        s.on_ack(1, &ack(2000));
        let cwnd = s.cwnd_bytes();
        s.on_ack(2, &ack(1000));
        s.on_ack(3, &ack(9000));
        assert_eq!((s.snd_una(), s.cwnd_bytes()), (2000, cwnd));
    }

    #[test]
    fn sack_recovery_on_dupthresh_and_next_seg_order() {
        let mut s = TcpSender::new(&cfg(true));
        drain(&mut s, 0, u64::MAX); // [0, 10000)
                                    // Segments 0, 4 and 6 lost.
        s.on_ack(1, &sack_ack(0, &[(1000, 2000)]));
        s.on_ack(1, &sack_ack(0, &[(1000, 3000)]));
        assert!(!s.in_recovery());
        // A repeated ACK with no new SACK information is not a duplicate (RFC 6675).
        s.on_ack(1, &sack_ack(0, &[(1000, 3000)]));
        assert!(!s.in_recovery());
        s.on_ack(1, &sack_ack(0, &[(1000, 4000)]));
        assert_eq!(s.recovery_state(), RecoveryState::SackRecovery);
        assert_eq!((s.ssthresh_bytes(), s.cwnd_bytes()), (5000, 5000));
        // (4.3) the first segment goes at once.
        assert_eq!(drain(&mut s, 1, u64::MAX), vec![(0, 1000)]);
        // pipe: [0,1000) lost + retransmitted = 1000, [4000,10000) not lost = 6000.
        assert_eq!(s.flight_size(), 7000);
        s.on_ack(2, &sack_ack(0, &[(5000, 6000), (1000, 4000)]));
        s.on_ack(2, &sack_ack(0, &[(7000, 8000), (5000, 6000), (1000, 4000)]));
        s.on_ack(
            2,
            &sack_ack(0, &[(7000, 10_000), (5000, 6000), (1000, 4000)]),
        );
        // Holes 4 and 6 are now lost; pipe = 1000 (rtx of 0): rule (1) sends both
        // holes before any new data, then rule (2) new data up to cwnd.
        assert_eq!(s.flight_size(), 1000);
        assert_eq!(
            drain(&mut s, 2, u64::MAX),
            vec![(4000, 1000), (6000, 1000), (10_000, 1000), (11_000, 1000)]
        );
        assert_eq!(s.flight_size(), 5000);
        s.on_ack(3, &sack_ack(4000, &[(5000, 6000), (7000, 10_000)]));
        assert!(s.in_recovery());
        s.on_ack(3, &sack_ack(10_000, &[]));
        assert!(!s.in_recovery(), "RecoveryPoint covered");
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.stats().retransmissions, 3);
        assert_eq!(s.cwnd_bytes(), 5000);
    }

    #[test]
    fn sack_recovery_entered_early_when_is_lost() {
        // One ACK SACKing three segments above the hole: IsLost(HighACK + 1) holds
        // after a single duplicate (RFC 6675 step 2.b).
        let mut s = TcpSender::new(&cfg(true));
        drain(&mut s, 0, u64::MAX);
        s.on_ack(1, &sack_ack(0, &[(1000, 4000)]));
        assert!(s.in_recovery());
        assert_eq!(drain(&mut s, 1, u64::MAX)[0], (0, 1000));
    }

    #[test]
    fn sack_rescue_retransmission_once_per_recovery() {
        let mut s = TcpSender::new(&cfg(true));
        drain(&mut s, 0, 10_000); // application has no more data
                                  // Segments 0, 1 and 9 lost; 2..9 SACKed.
        s.on_ack(1, &sack_ack(0, &[(2000, 9000)]));
        assert!(s.in_recovery());
        assert_eq!(drain(&mut s, 1, 10_000), vec![(0, 1000), (1000, 1000)]);
        // Partial ACK past the first retransmission: with nothing lost below the
        // highest SACK and no new data, rule (4) resends the tail once.
        s.on_ack(2, &sack_ack(1000, &[(2000, 9000)]));
        assert_eq!(drain(&mut s, 2, 10_000), vec![]);
        s.on_ack(3, &sack_ack(9000, &[]));
        assert_eq!(drain(&mut s, 3, 10_000), vec![(9000, 1000)]);
        s.on_ack(4, &sack_ack(9000, &[]));
        assert_eq!(drain(&mut s, 4, 10_000), vec![]);
    }

    #[test]
    fn timeout_clears_scoreboard_and_go_back_n_skips_later_sacks() {
        let mut s = TcpSender::new(&cfg(true));
        drain(&mut s, 0, 5000);
        s.on_ack(1, &sack_ack(0, &[(2000, 3000)]));
        s.on_rto(SECOND);
        assert!(!s.in_recovery());
        assert_eq!(s.flight_size(), 0);
        assert_eq!(drain(&mut s, SECOND, 5000), vec![(0, 1000)]);
        // Old SACK info was dropped; a new ACK re-reports [2000, 5000).
        s.on_ack(SECOND + 1, &sack_ack(1000, &[(2000, 5000)]));
        assert_eq!(drain(&mut s, SECOND + 1, 5000), vec![(1000, 1000)]);
        s.on_ack(SECOND + 2, &sack_ack(5000, &[]));
        assert_eq!(s.rto_deadline(), None);
        assert_eq!(s.stats().fast_retransmits, 0);
    }

    #[test]
    fn prr_spreads_the_reduction_over_the_recovery_in_both_recoveries() {
        for sack in [false, true] {
            let mut s = TcpSender::new(&TcpConfig {
                initial_cwnd_segments: 20,
                prr: true,
                ..cfg(sack)
            });
            assert_eq!(drain(&mut s, 0, u64::MAX).len(), 20);
            // Segment 0 lost: 19 duplicate ACKs.
            let mut sent = vec![];
            for i in 1..20 {
                let h = if sack {
                    sack_ack(0, &[(1000, (i + 1) * MSS)])
                } else {
                    ack(0)
                };
                s.on_ack(1, &h);
                sent.push(drain(&mut s, 1, u64::MAX).len() as u64);
            }
            assert!(s.in_recovery(), "sack={sack}");
            assert_eq!(s.ssthresh_bytes(), 10 * MSS);
            assert_eq!(&sent[..2], &[0, 0], "before recovery the window is full");
            // RFC 6937 §3: from the third duplicate on, about one segment per two
            // delivered (the fast retransmission first), never a burst, until the
            // flight is down to ssthresh, then one for one.
            assert_eq!(sent[2], 1, "the fast retransmission, sack={sack}");
            assert_eq!(&sent[3..7], &[0, 0, 1, 0], "sack={sack}: {sent:?}");
            assert!(sent.iter().all(|&n| n <= 1), "sack={sack}: {sent:?}");
            assert!(
                (9..=10).contains(&sent[2..].iter().sum::<u64>()),
                "sack={sack}: {sent:?}"
            );
            if sack {
                assert_eq!(s.flight_size(), 10 * MSS, "pipe = ssthresh");
            }
            // RFC 6937 §3: leaving recovery, cwnd = ssthresh.
            s.on_ack(2, &ack(20 * MSS));
            assert!(!s.in_recovery());
            assert_eq!(s.cwnd_bytes(), 10 * MSS, "sack={sack}");
        }
    }

    fn rack_cfg() -> TcpConfig {
        TcpConfig {
            rack: true,
            ..cfg(true)
        }
    }

    /// Ten segments at t = 0; segment 0 arrives after segment 1 (reordering seen by
    /// RACK at 101 ms); then segments 3-5 are SACKed at 150 ms while segment 2 is
    /// missing.
    fn reordered_twice(c: &TcpConfig) -> TcpSender {
        let mut s = TcpSender::new(c);
        drain(&mut s, 0, u64::MAX);
        s.on_ack(100 * MILLIS, &sack_ack(0, &[(1000, 2000)]));
        s.on_ack(101 * MILLIS, &ack(2000));
        drain(&mut s, 101 * MILLIS, u64::MAX);
        s.on_ack(150 * MILLIS, &sack_ack(2000, &[(3000, 6000)]));
        s
    }

    #[test]
    fn rack_marks_lost_by_time_not_by_duplicate_count() {
        // Without RACK, three SACKed segments above the hole start recovery at once.
        let s = reordered_twice(&cfg(true));
        assert!(s.in_recovery());
        // With RACK, reordering was seen: reo_wnd = min_RTT / 4 = 25 ms, so segment 2
        // (sent at 0, RACK.rtt 150 ms) is lost only at 175 ms; the timer says so.
        let mut s = reordered_twice(&rack_cfg());
        assert!(!s.in_recovery(), "within the reordering window");
        assert_eq!(s.timer_deadline(), Some(175 * MILLIS));
        // A reordered segment arriving within the window is never retransmitted.
        let mut late = s.clone();
        late.on_ack(160 * MILLIS, &ack(6000));
        assert!(!drain(&mut late, 160 * MILLIS, u64::MAX).is_empty());
        assert_eq!(late.stats().retransmissions, 0);
        assert_eq!(late.stats().fast_retransmits, 0);
        // One that does not arrive is lost when the reordering timer fires.
        s.on_timer(175 * MILLIS - 1);
        assert!(!s.in_recovery());
        s.on_timer(175 * MILLIS);
        assert_eq!(s.recovery_state(), RecoveryState::SackRecovery);
        assert_eq!(drain(&mut s, 175 * MILLIS, u64::MAX)[0], (2000, 1000));
        assert_eq!(s.stats().fast_retransmits, 1);
    }

    #[test]
    fn rack_without_reordering_acts_on_dupthresh_sacked_at_once() {
        // §6.2 step 4: reo_wnd = 0 before any reordering once DupThresh are SACKed.
        let mut s = TcpSender::new(&rack_cfg());
        drain(&mut s, 0, u64::MAX);
        s.on_ack(100 * MILLIS, &sack_ack(0, &[(1000, 3000)]));
        assert!(!s.in_recovery());
        s.on_ack(100 * MILLIS, &sack_ack(0, &[(1000, 4000)]));
        assert!(s.in_recovery());
        assert_eq!(drain(&mut s, 100 * MILLIS, u64::MAX)[0], (0, 1000));
    }

    #[test]
    fn tail_loss_probe_fires_once_per_tail() {
        let mut s = TcpSender::new(&rack_cfg());
        drain(&mut s, 0, 3000);
        s.on_ack(100 * MILLIS, &ack(1000)); // SRTT 100 ms; segments 1 and 2 lost
                                            // RFC 8985 §7.2: PTO = 2 SRTT (two segments in flight), before the RTO.
        assert_eq!(s.timer_deadline(), Some(300 * MILLIS));
        s.on_timer(300 * MILLIS);
        // §7.3: no new data: the last segment is probed.
        assert_eq!(drain(&mut s, 300 * MILLIS, 3000), vec![(2000, 1000)]);
        assert_eq!(s.stats().tail_loss_probes, 1);
        // No second probe: the RTO, restarted by the probe, is next.
        let rto = 300 * MILLIS + s.rto();
        assert_eq!(s.timer_deadline(), Some(rto));
        s.on_timer(rto);
        assert_eq!(s.stats().timeouts, 1);
        assert_eq!(s.stats().tail_loss_probes, 1);
        // After the timeout, go-back-N; a new tail gets its own probe.
        assert_eq!(drain(&mut s, rto, 3000), vec![(1000, 1000)]);
    }

    #[test]
    fn tail_loss_probe_sack_starts_rack_recovery_instead_of_a_timeout() {
        let mut s = TcpSender::new(&rack_cfg());
        drain(&mut s, 0, 3000);
        s.on_ack(100 * MILLIS, &ack(1000));
        s.on_timer(300 * MILLIS);
        drain(&mut s, 300 * MILLIS, 3000);
        // The probe arrives and is SACKed: segment 1, sent long before, is lost by time.
        s.on_ack(400 * MILLIS, &sack_ack(1000, &[(2000, 3000)]));
        assert_eq!(s.recovery_state(), RecoveryState::SackRecovery);
        assert_eq!(drain(&mut s, 400 * MILLIS, 3000), vec![(1000, 1000)]);
        s.on_ack(500 * MILLIS, &ack(3000));
        assert!(!s.in_recovery());
        assert_eq!(s.stats().timeouts, 0);
        assert_eq!(s.timer_deadline(), None, "nothing outstanding");
    }

    // ------------------------------------------------------------- variants

    use crate::scenario::schema::TcpVariant;
    use crate::transport::tcp::ap::{Ap, ApParams};

    fn ap_cfg(variant: TcpVariant, initial_interval: Time) -> TcpConfig {
        TcpConfig {
            variant,
            ap: ApParams {
                initial_interval,
                ..ApParams::default()
            },
            ..cfg(false)
        }
    }

    #[test]
    fn ap_releases_one_segment_per_rate_interval() {
        let mut s = TcpSender::new(&ap_cfg(TcpVariant::Ap, 50 * MILLIS));
        assert_eq!(s.pacing_deadline(), None);
        assert_eq!(s.pacing_interval(), Some(50 * MILLIS));
        // A window of ten segments, but only one leaves now.
        assert_eq!(drain(&mut s, 0, u64::MAX), segs(0, 1));
        assert_eq!(s.pacing_deadline(), Some(50 * MILLIS));
        assert_eq!(drain(&mut s, 50 * MILLIS - 1, u64::MAX), vec![]);
        assert_eq!(drain(&mut s, 50 * MILLIS, u64::MAX), segs(1, 1));
        assert_eq!(s.pacing_deadline(), Some(100 * MILLIS));
        // A late timer releases one segment, and the next waits a full interval.
        assert_eq!(drain(&mut s, 130 * MILLIS, u64::MAX), segs(2, 1));
        assert_eq!(s.pacing_deadline(), Some(180 * MILLIS));
        // NC-aware TCP: lambda (0.2) times the interval.
        let mut s = TcpSender::new(&ap_cfg(TcpVariant::NcAware, 50 * MILLIS));
        assert_eq!(drain(&mut s, 0, u64::MAX), segs(0, 1));
        assert_eq!(s.pacing_deadline(), Some(10 * MILLIS));
        // The other variants do not pace.
        for v in [TcpVariant::Newreno, TcpVariant::Few] {
            let mut s = TcpSender::new(&ap_cfg(v, 50 * MILLIS));
            assert_eq!(drain(&mut s, 0, u64::MAX).len(), 10);
            assert_eq!((s.pacing_deadline(), s.pacing_interval()), (None, None));
        }
    }

    #[test]
    fn ap_rate_interval_follows_per_ack_rtt_samples() {
        let mut s = TcpSender::new(&ap_cfg(TcpVariant::Ap, MILLIS));
        for i in 0..6 {
            assert_eq!(drain(&mut s, i * MILLIS, u64::MAX), segs(i, 1));
        }
        // What the sender should feed TCP-AP: one sample per new ACK, from the most
        // recently sent segment the ACK covers.
        let mut model = Ap::new(
            ApParams {
                initial_interval: MILLIS,
                ..ApParams::default()
            },
            1.0,
            MSS,
            4,
        );
        s.on_ack(80 * MILLIS, &ack(1000)); // segment 0, sent at 0
        model.on_ack_rtt(0, 80 * MILLIS);
        assert_eq!(s.pacing_interval(), Some(model.rate_interval()));
        s.on_ack(131 * MILLIS, &ack(3000)); // delayed ACK: segment 2, sent at 2 ms
        model.on_ack_rtt(0, 129 * MILLIS);
        assert_eq!(s.pacing_interval(), Some(model.rate_interval()));
        s.on_ack(140 * MILLIS, &ack(3000)); // duplicate: no sample
        assert_eq!(s.pacing_interval(), Some(model.rate_interval()));
        s.on_ack(150 * MILLIS, &ack(4000)); // segment 3, sent at 3 ms
        model.on_ack_rtt(0, 147 * MILLIS);
        assert_eq!(s.pacing_interval(), Some(model.rate_interval()));
        assert!(model.cov_rtt() > 0.0);
        // Only the one timed segment fed the RFC 6298 estimator.
        assert_eq!(s.stats().rtt_samples, 1);
        // The hop count reaches the estimator.
        s.set_path_hops(8);
        model.set_path_hops(8);
        s.on_ack(200 * MILLIS, &ack(6000)); // segment 5, sent at 5 ms
        model.on_ack_rtt(0, 195 * MILLIS);
        assert_eq!(s.pacing_interval(), Some(model.rate_interval()));
    }

    #[test]
    fn ap_takes_no_sample_from_a_retransmission() {
        let mut s = TcpSender::new(&ap_cfg(TcpVariant::Ap, MILLIS));
        assert_eq!(drain(&mut s, 0, u64::MAX), segs(0, 1));
        s.on_rto(SECOND);
        assert_eq!(drain(&mut s, SECOND, u64::MAX), vec![(0, 1000)]);
        s.on_ack(SECOND + 80 * MILLIS, &ack(1000));
        assert_eq!(
            s.pacing_interval(),
            Some(MILLIS),
            "still the initial interval"
        );
        assert_eq!(drain(&mut s, SECOND + 80 * MILLIS, u64::MAX), segs(1, 1));
        s.on_ack(SECOND + 160 * MILLIS, &ack(2000));
        assert_ne!(s.pacing_interval(), Some(MILLIS));
    }

    #[test]
    fn paced_fast_retransmission_is_not_held_back() {
        for v in [TcpVariant::Ap, TcpVariant::NcAware] {
            let mut s = TcpSender::new(&ap_cfg(v, 5 * MILLIS));
            let mut t = 0;
            for i in 0..10 {
                assert_eq!(drain(&mut s, t, u64::MAX), segs(i, 1));
                t = s.pacing_deadline().unwrap();
            }
            // Segment 0 lost; the duplicates arrive before the next release.
            let now = t - 1;
            for _ in 0..2 {
                s.on_ack(now, &ack(0));
                assert_eq!(drain(&mut s, now, u64::MAX), vec![]);
            }
            s.on_ack(now, &ack(0));
            assert_eq!(s.recovery_state(), RecoveryState::FastRecovery);
            assert_eq!(drain(&mut s, now, u64::MAX), vec![(0, 1000)]);
            // Pacing resumes from the retransmission.
            assert_eq!(
                s.pacing_deadline(),
                Some(now + s.pacing_interval().unwrap())
            );
        }
    }

    #[test]
    fn every_variant_fast_retransmits_on_the_third_duplicate() {
        for v in [
            TcpVariant::Newreno,
            TcpVariant::Few,
            TcpVariant::Ap,
            TcpVariant::NcAware,
        ] {
            let mut s = TcpSender::new(&ap_cfg(v, MILLIS));
            for i in 0..10 {
                drain(&mut s, i * MILLIS, u64::MAX);
            }
            assert_eq!(s.snd_max(), 10_000, "{v:?}");
            for k in 1..=3 {
                s.on_ack(10 * MILLIS, &ack(0));
                assert_eq!(s.in_recovery(), k == 3, "{v:?} after {k} duplicates");
            }
            assert_eq!((s.ssthresh_bytes(), s.cwnd_bytes()), (5000, 8000), "{v:?}");
            assert_eq!(drain(&mut s, 10 * MILLIS, u64::MAX)[0], (0, 1000), "{v:?}");
            assert_eq!(s.stats().fast_retransmits, 1);
            // Partial and full ACKs as in NewReno.
            s.on_ack(20 * MILLIS, &ack(5000));
            assert!(s.in_recovery());
            s.on_ack(30 * MILLIS, &ack(10_000));
            assert!(!s.in_recovery());
            assert_eq!(
                s.cwnd_bytes(),
                2 * MSS,
                "min(ssthresh, 0 + SMSS + SMSS) {v:?}"
            );
        }
    }

    #[test]
    fn ap_timeout_retransmits_at_once_without_backoff() {
        let mut s = TcpSender::new(&ap_cfg(TcpVariant::Ap, 5 * SECOND));
        assert_eq!(drain(&mut s, 0, u64::MAX), segs(0, 1));
        assert_eq!(s.pacing_deadline(), Some(5 * SECOND));
        let mut t = s.rto_deadline().unwrap();
        for _ in 0..3 {
            s.on_rto(t);
            assert_eq!(s.rto(), SECOND, "no exponential backoff");
            // Retransmitted although the pacing release is later.
            assert_eq!(drain(&mut s, t, u64::MAX), vec![(0, 1000)]);
            assert_eq!(drain(&mut s, t, u64::MAX), vec![]);
            let next = s.rto_deadline().unwrap();
            assert_eq!(next - t, SECOND);
            t = next;
        }
        // NewReno still backs off.
        let mut s = TcpSender::new(&ap_cfg(TcpVariant::Newreno, 5 * SECOND));
        drain(&mut s, 0, 1000);
        s.on_rto(SECOND);
        assert_eq!(s.rto(), 2 * SECOND);
    }

    #[test]
    fn few_grows_alpha_segments_per_window_in_congestion_avoidance() {
        let mut s = TcpSender::new(&TcpConfig {
            variant: TcpVariant::Few,
            few_alpha: 0.1,
            ..cfg(false)
        });
        drain(&mut s, 0, u64::MAX);
        s.on_rto(SECOND);
        assert_eq!((s.ssthresh_bytes(), s.cwnd_bytes()), (5000, MSS));
        for i in 1..=4 {
            s.on_ack(SECOND + i, &ack(i * MSS));
        }
        assert_eq!(s.cwnd_bytes(), 5000, "slow start as RFC 5681");
        // Five ACKs (one window) in congestion avoidance: + 0.1 SMSS.
        for i in 5..10 {
            s.on_ack(SECOND + i, &ack(i * MSS));
        }
        assert!(
            (5099..=5100).contains(&s.cwnd_bytes()),
            "{}",
            s.cwnd_bytes()
        );
        // Fast retransmit and NewReno recovery are unchanged.
        drain(&mut s, 2 * SECOND, u64::MAX);
        s.on_ack(2 * SECOND, &ack(10_000));
        let max = s.snd_max();
        for _ in 0..3 {
            s.on_ack(2 * SECOND, &ack(10_000));
        }
        assert_eq!(s.recovery_state(), RecoveryState::FastRecovery);
        assert_eq!(s.recover(), max);
    }

    #[test]
    fn vegas_cuts_a_quarter_on_dupacks_and_leaves_recovery_in_avoidance() {
        for sack in [false, true] {
            let mut s = TcpSender::new(&TcpConfig {
                variant: TcpVariant::Vegas,
                ..cfg(sack)
            });
            drain(&mut s, 0, u64::MAX);
            // The first ACK ends Vegas's first epoch, which holds the window.
            s.on_ack(100 * MILLIS, &ack(1000));
            assert_eq!(s.cwnd_bytes(), 10 * MSS);
            drain(&mut s, 100 * MILLIS, u64::MAX);
            for i in 0..3 {
                let h = if sack {
                    sack_ack(1000, &[(2000, 3000 + i * MSS)])
                } else {
                    ack(1000)
                };
                s.on_ack(101 * MILLIS, &h);
            }
            assert!(s.in_recovery(), "sack={sack}");
            // The agent's rule, not RFC 5681's half: 10 - 10/4 = 8 segments.
            assert_eq!(s.ssthresh_bytes(), 8 * MSS, "sack={sack}");
            let end = s.snd_max();
            s.on_ack(200 * MILLIS, &ack(end));
            assert!(!s.in_recovery());
            // ssthresh 2 segments after recovery: Vegas goes on in avoidance.
            assert_eq!(s.ssthresh_bytes(), 2 * MSS, "sack={sack}");
            // A timeout restarts from 2 segments.
            drain(&mut s, 200 * MILLIS, u64::MAX);
            s.on_rto(2 * SECOND);
            assert_eq!(s.cwnd_bytes(), 2 * MSS, "sack={sack}");
        }
    }
}
