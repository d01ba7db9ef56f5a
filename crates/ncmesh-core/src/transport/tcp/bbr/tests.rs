//! BBR against tcp_bbr.c's rules: rate samples fed by hand, then a sender over a
//! modelled bottleneck.

use super::*;
use crate::engine::{MILLIS, SECOND};

const MSS: u64 = 1000;
/// The modelled path: 1 MB/s (8 Mbit/s) and a 10 ms RTprop, BDP 10 segments.
const BW: f64 = 1e6;
const RTT: Time = 10 * MILLIS;

/// Feeds samples by hand, one ACK at a time, keeping C.delivered.
struct Feed {
    b: Bbr,
    w: Window,
    r: RateSampler,
    now: Time,
    delivered: u64,
}

impl Feed {
    fn new() -> Self {
        Feed {
            b: Bbr::new(BbrParams::default(), MSS, 10),
            w: Window::new(MSS, 10),
            r: RateSampler::new(),
            now: 0,
            delivered: 0,
        }
    }

    /// An ACK at `now` that delivers `acked` bytes; its sample measures `rate` over
    /// one RTT of `rtt` (a round trip's worth of delivery) with `in_flight` bytes in
    /// flight before and after.
    fn ack(&mut self, now: Time, rate: f64, rtt: Time, in_flight: u64, new_round: bool) {
        self.now = now;
        let acked = MSS;
        let prior = if new_round {
            self.delivered
        } else {
            self.delivered.saturating_sub(1)
        };
        self.delivered += acked;
        let interval = rtt;
        let delivered = (rate * to_secs(interval)) as u64;
        let rs = RateSample {
            delivered,
            interval: Some(interval),
            prior_delivered: prior,
            total_delivered: self.delivered,
            is_app_limited: false,
            acked_sacked: acked,
            rtt: Some(rtt),
            prior_in_flight: in_flight,
            in_flight,
            losses: 0,
            ca_state: CaState::Open,
        };
        self.b.on_rate_sample(&mut self.w, now, &rs, &mut self.r);
    }

    /// One round trip at `rate`: the first ACK of each call starts a round.
    fn round(&mut self, rate: f64, in_flight: u64) {
        let now = self.now + RTT;
        self.ack(now, rate, RTT, in_flight, true);
    }
}

#[test]
fn startup_exits_after_three_rounds_without_25_percent_growth() {
    let mut f = Feed::new();
    assert_eq!(f.b.mode(), BbrMode::Startup);
    assert_eq!(
        f.b.gains(),
        (2.885, 2.885),
        "2/ln2 for pacing and cwnd (tcp_bbr.c v1)"
    );
    // Growing by 30 % a round: still STARTUP.
    let mut rate = 100_000.0;
    for _ in 0..8 {
        f.round(rate, 100 * MSS);
        rate *= 1.3;
        assert_eq!(f.b.mode(), BbrMode::Startup);
    }
    // Growth of less than 25 % over the last bandwidth that grew by 25 % is not
    // enough: three such rounds fill the pipe.
    let full = rate / 1.3;
    for (k, r) in [1.2, 1.24, 1.1].into_iter().enumerate() {
        let k = k + 1;
        f.round(full * r, 100 * MSS);
        if k < 3 {
            assert_eq!(f.b.mode(), BbrMode::Startup, "round {k}");
            assert!(!f.b.full_bw_reached());
        }
    }
    assert!(f.b.full_bw_reached());
    assert_eq!(
        f.b.mode(),
        BbrMode::Drain,
        "inflight 100 segments is above one BDP"
    );
}

#[test]
fn a_growth_spurt_restarts_the_count() {
    let mut f = Feed::new();
    f.round(BW, 100 * MSS);
    f.round(BW, 100 * MSS);
    f.round(BW, 100 * MSS);
    f.round(1.3 * BW, 100 * MSS); // +30 %: count back to 0
    f.round(1.3 * BW, 100 * MSS);
    f.round(1.3 * BW, 100 * MSS);
    assert_eq!(f.b.mode(), BbrMode::Startup);
    f.round(1.3 * BW, 100 * MSS);
    assert_eq!(f.b.mode(), BbrMode::Drain);
}

/// Startup until the pipe is full at BW (4 rounds), inflight high.
fn in_drain() -> Feed {
    let mut f = Feed::new();
    for _ in 0..4 {
        f.round(BW, 100 * MSS);
    }
    assert_eq!(f.b.mode(), BbrMode::Drain);
    f
}

#[test]
fn drain_lasts_until_inflight_is_at_most_one_bdp() {
    let mut f = in_drain();
    let p = BbrParams::default();
    assert_eq!(f.b.gains(), (p.drain_gain, p.high_gain));
    // One BDP plus three send quanta (2 segments each above 1.2 Mbit/s), even:
    // 10 + 6 = 16 segments.
    let bdp_budget = f.b.inflight(BW, 1.0);
    assert_eq!(bdp_budget, 16 * MSS);
    f.ack(f.now + MILLIS, BW, RTT, bdp_budget + 1, false);
    assert_eq!(f.b.mode(), BbrMode::Drain);
    f.ack(f.now + MILLIS, BW, RTT, bdp_budget, false);
    assert_eq!(f.b.mode(), BbrMode::ProbeBw);
    assert_eq!(f.b.gains().1, 2.0, "cwnd gain 2 in PROBE_BW");
}

#[test]
fn probe_bw_cycles_through_the_eight_gains() {
    let mut f = in_drain();
    f.ack(f.now + MILLIS, BW, RTT, 0, false);
    assert_eq!(f.b.mode(), BbrMode::ProbeBw);
    // Never starts in the 0.75 phase (tcp_bbr.c bbr_reset_probe_bw_mode).
    assert_ne!(f.b.cycle_idx(), 1);
    let bdp = f.b.inflight(BW, 1.0);
    let mut seen = vec![];
    for _ in 0..16 {
        let i = f.b.cycle_idx();
        let gain = PACING_GAIN_CYCLE[i];
        assert_eq!(f.b.gains().0, gain);
        // Pacing rate = gain × BtlBw (less the 1 % margin), once the pipe is full.
        assert!(
            (f.b.pacing_rate() - gain * BW * 0.99).abs() < 1e-6,
            "{}",
            f.b.pacing_rate()
        );
        seen.push(gain);
        let t = f.now;
        match i {
            0 => {
                // 1.25: a full RTprop is not enough while inflight is below 1.25 BDP
                // (plus the quanta and the phase's 2 extra segments).
                let probe = f.b.inflight(BW, 1.25);
                assert_eq!(probe, (13 + 6 + 1 + 2) * MSS, "12.5 -> 13, +6, even, +2");
                f.ack(t + RTT + 1, BW, RTT, probe - 1, false);
                assert_eq!(f.b.cycle_idx(), 0);
                f.ack(t + RTT + 2, BW, RTT, probe, false);
            }
            1 => {
                // 0.75: ends before a full RTprop once inflight is down to one BDP.
                f.ack(t + MILLIS, BW, RTT, bdp + 1, false);
                assert_eq!(f.b.cycle_idx(), 1);
                f.ack(t + 2 * MILLIS, BW, RTT, bdp, false);
            }
            _ => {
                // 1.0: one RTprop.
                f.ack(t + RTT, BW, RTT, bdp, false);
                assert_eq!(f.b.cycle_idx(), i, "not before a full RTprop");
                f.ack(t + RTT + 1, BW, RTT, bdp, false);
            }
        }
        assert_eq!(f.b.cycle_idx(), (i + 1) % 8);
    }
    let start = seen.iter().position(|&g| g == 1.25).unwrap();
    assert_eq!(seen[start..start + 8], PACING_GAIN_CYCLE);
}

#[test]
fn cwnd_is_gain_times_bdp_plus_allowances() {
    let mut f = in_drain();
    f.ack(f.now + MILLIS, BW, RTT, 0, false);
    // Grow cwnd with many ACKs at a steady 1.0 phase: it stops at the target,
    // 2 × BDP + 3 quanta (+2 in the 1.25 phase) + the aggregation allowance.
    for k in 0..200 {
        f.ack(f.now + MILLIS / 10, BW, RTT, 10 * MSS, k % 10 == 0);
    }
    let target_no_aggr = f.b.quantization_budget(f.b.bdp(BW, 2.0));
    let aggr = f.b.ack_aggregation_cwnd();
    assert!(aggr <= (BW * 0.1) as u64, "at most 100 ms of BtlBw");
    assert_eq!(
        f.b.cwnd(),
        f.b.quantization_budget(f.b.bdp(BW, 2.0) + aggr),
        "{target_no_aggr} + {aggr}"
    );
    assert_eq!(f.w.cwnd, f.b.cwnd(), "the sender's window is BBR's");
}

#[test]
fn probe_rtt_after_10_s_without_a_new_min_rtt_holds_4_segments_for_200_ms() {
    let mut f = in_drain();
    f.ack(f.now + MILLIS, BW, RTT, 0, false);
    let t0 = f.now; // min_rtt_stamp: the last sample at RTT 10 ms
    let stamp = t0 - MILLIS;
    let _ = stamp;
    // Samples at 12 ms do not renew RTprop; for 10 s BBR stays in PROBE_BW.
    let mut t = t0;
    while t + 12 * MILLIS <= t0 + 10 * SECOND - 2 * MILLIS {
        t += 12 * MILLIS;
        f.ack(t, BW, 12 * MILLIS, 10 * MSS, true);
        assert_ne!(f.b.mode(), BbrMode::ProbeRtt, "t = {t}");
    }
    let before = f.b.cwnd();
    assert!(before > 4 * MSS);
    // The first ACK more than 10 s after the last RTprop sample: PROBE_RTT, 4 segments.
    f.ack(t0 + 10 * SECOND + MILLIS, BW, 12 * MILLIS, 10 * MSS, false);
    assert_eq!(f.b.mode(), BbrMode::ProbeRtt);
    assert_eq!(
        f.b.min_rtt(),
        Some(12 * MILLIS),
        "the expired filter takes the new sample"
    );
    assert_eq!(f.w.cwnd, 4 * MSS);
    assert_eq!(f.b.gains(), (1.0, 1.0));
    assert!(f.r.is_app_limited(), "PROBE_RTT's samples are app-limited");
    // Inflight drains to 4 segments: the 200 ms start.
    let drained = f.now + 5 * MILLIS;
    f.ack(drained, BW, 12 * MILLIS, 4 * MSS, false);
    assert_eq!(f.b.mode(), BbrMode::ProbeRtt);
    // A round passes, but 200 ms have not.
    f.ack(drained + 12 * MILLIS, BW, 12 * MILLIS, 4 * MSS, true);
    f.ack(drained + 200 * MILLIS, BW, 12 * MILLIS, 4 * MSS, false);
    assert_eq!(f.b.mode(), BbrMode::ProbeRtt);
    assert_eq!(f.w.cwnd, 4 * MSS);
    // After 200 ms: back to PROBE_BW with the window from before.
    f.ack(drained + 200 * MILLIS + 1, BW, 12 * MILLIS, 4 * MSS, false);
    assert_eq!(f.b.mode(), BbrMode::ProbeBw);
    assert!(f.w.cwnd >= before, "{} < {before}", f.w.cwnd);
}

#[test]
fn the_bandwidth_filter_keeps_the_max_over_10_rounds() {
    let mut f = in_drain();
    f.round(2.0 * BW, 10 * MSS);
    let r = f.b.rounds();
    // Nine... ten rounds of lower samples keep it.
    while f.b.rounds() < r + 10 {
        f.round(BW / 2.0, 10 * MSS);
        assert_eq!(f.b.max_bw(), 2.0 * BW, "round {}", f.b.rounds() - r);
    }
    // The eleventh round forgets it.
    f.round(BW / 2.0, 10 * MSS);
    assert!(f.b.max_bw() < 2.0 * BW);
}

#[test]
fn pacing_rate_is_gain_times_bw_and_only_rises_in_startup() {
    let mut f = Feed::new();
    // Before any sample: high_gain × IW / 1 ms.
    let init = 2.885 * 10.0 * MSS as f64 / 1e-3 * 0.99;
    assert!((f.b.pacing_rate() - init).abs() < 1e-3);
    // The smoothed RTT re-initialises it from a real RTT (bbr_init_pacing_rate_from_rtt).
    f.b.on_smoothed_rtt(100 * MILLIS);
    f.round(10_000.0, 10 * MSS);
    let from_rtt = 2.885 * 10.0 * MSS as f64 / 0.1 * 0.99;
    assert!(
        (f.b.pacing_rate() - from_rtt).abs() < 1e-3,
        "{}",
        f.b.pacing_rate()
    );
    // A bandwidth whose 2.885 × is higher takes over.
    f.round(500_000.0, 10 * MSS);
    assert!((f.b.pacing_rate() - 2.885 * 500_000.0 * 0.99).abs() < 1e-3);
}

#[test]
fn pacing_spaces_segments_at_the_pacing_rate() {
    let mut b = Bbr::new(BbrParams::default(), MSS, 10);
    // The initial window goes unpaced.
    for _ in 0..10 {
        b.on_send(0, MSS as u32);
        assert_eq!(b.pacing_release(), None);
    }
    b.on_send(0, MSS as u32);
    let gap = (MSS as f64 / b.pacing_rate() * 1e9) as Time;
    assert_eq!(b.pacing_release(), Some(gap));
    // A late send starts from now, not from the missed release.
    b.on_send(10 * gap, MSS as u32);
    assert_eq!(b.pacing_release(), Some(11 * gap));
}

#[test]
fn recovery_conserves_packets_then_restores_the_window() {
    let mut f = in_drain();
    f.ack(f.now + MILLIS, BW, RTT, 0, false);
    for k in 0..100 {
        f.ack(f.now + MILLIS / 10, BW, RTT, 10 * MSS, k % 10 == 0);
    }
    let before = f.b.cwnd();
    f.b.on_loss(&f.w, f.now);
    // First ACK of a recovery: cwnd = inflight + delivered.
    let rs = |in_flight, state, total| RateSample {
        delivered: MSS,
        interval: Some(RTT),
        prior_delivered: total - 1,
        total_delivered: total,
        acked_sacked: MSS,
        rtt: Some(RTT),
        prior_in_flight: in_flight,
        in_flight,
        ca_state: state,
        ..RateSample::default()
    };
    f.delivered += MSS;
    let s = rs(5 * MSS, CaState::Recovery, f.delivered);
    f.b.on_rate_sample(&mut f.w, f.now + 1, &s, &mut f.r);
    assert_eq!(f.w.cwnd, 6 * MSS);
    // Recovery ends: the window from before.
    f.delivered += MSS;
    let s = rs(5 * MSS, CaState::Open, f.delivered);
    f.b.on_rate_sample(&mut f.w, f.now + 2, &s, &mut f.r);
    assert!(f.w.cwnd >= before, "{} < {before}", f.w.cwnd);
}

// ------------------------------------------------------------ with the sender

use crate::scenario::schema::TcpVariant;
use crate::transport::tcp::{TcpConfig, TcpSender};
use crate::wire::tcp::TcpHeader;

/// A BBR sender over a bottleneck of `bw` bytes/s with propagation RTT `rtt` and a
/// FIFO of unlimited size, every segment ACKed (no delayed ACKs), for `dur`.
/// Returns the sender and the largest queue (segments) seen.
fn over_bottleneck(bw: f64, rtt: Time, dur: Time) -> (TcpSender, usize, Vec<(Time, BbrMode)>) {
    let cfg = TcpConfig {
        variant: TcpVariant::Bbr,
        sack: true,
        mss: MSS as u32,
        rcv_buffer: 10_000_000,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(&cfg);
    let service = (MSS as f64 / bw * 1e9) as Time;
    // ACK arrival times, in order.
    let mut acks: std::collections::VecDeque<(Time, u64)> = Default::default();
    let mut link_free: Time = 0;
    let mut now: Time = 0;
    let mut max_queue = 0;
    let mut modes = vec![];
    while now < dur {
        while let Some(h) = s.next_segment(now, u64::MAX) {
            let depart = link_free.max(now) + service;
            link_free = depart;
            acks.push_back((depart + rtt, h.seq + h.len as u64));
            max_queue = max_queue.max(((link_free - now) / service) as usize);
        }
        let next_ack = acks.front().map(|a| a.0).unwrap_or(Time::MAX);
        let next_pace = s
            .pacing_deadline()
            .filter(|&t| t > now)
            .unwrap_or(Time::MAX);
        now = next_ack.min(next_pace);
        while acks.front().is_some_and(|a| a.0 <= now) {
            let (_, ack) = acks.pop_front().unwrap();
            s.on_ack(
                now,
                &TcpHeader {
                    ack,
                    wnd: 10_000_000,
                    ..Default::default()
                },
            );
            if let Some(m) = s.bbr_mode() {
                if modes.last().is_none_or(|&(_, l)| l != m) {
                    modes.push((now, m));
                }
            }
        }
    }
    (s, max_queue, modes)
}

#[test]
fn over_a_bottleneck_bbr_finds_its_rate_and_rtt_and_keeps_the_queue_short() {
    let (s, max_queue, modes) = over_bottleneck(BW, 40 * MILLIS, 12 * SECOND);
    let b = s.bbr().unwrap();
    // BtlBw within 5 % of the link; RTprop the propagation RTT plus one service time.
    assert!((b.max_bw() / BW - 1.0).abs() < 0.05, "{}", b.max_bw());
    let rt = b.min_rtt().unwrap();
    assert!((40 * MILLIS..=42 * MILLIS).contains(&rt), "{rt}");
    // STARTUP, DRAIN, PROBE_BW; then PROBE_RTT about 10 s after RTprop was set, and
    // back to PROBE_BW.
    let names: Vec<BbrMode> = modes.iter().map(|m| m.1).collect();
    assert_eq!(
        names[..5],
        [
            BbrMode::Startup,
            BbrMode::Drain,
            BbrMode::ProbeBw,
            BbrMode::ProbeRtt,
            BbrMode::ProbeBw
        ],
        "{modes:?}"
    );
    let probe_rtt = modes[3].0;
    assert!(
        (10 * SECOND..11 * SECOND).contains(&probe_rtt),
        "{probe_rtt}"
    );
    assert!(modes[4].0 - probe_rtt >= 200 * MILLIS);
    // Throughput: the link was busy nearly all the time after startup.
    let goodput = s.stats().bytes_acked as f64 / 12.0;
    assert!(goodput > 0.9 * BW, "{goodput}");
    // Startup's queue (at most about 2 BDP = 80 segments... BBR's cwnd gain) and no more.
    assert!(max_queue < 100, "{max_queue}");
}

#[test]
fn the_same_run_gives_the_same_result() {
    let (a, qa, ma) = over_bottleneck(BW, 20 * MILLIS, 3 * SECOND);
    let (b, qb, mb) = over_bottleneck(BW, 20 * MILLIS, 3 * SECOND);
    assert_eq!(
        (a.stats().bytes_acked, qa, ma),
        (b.stats().bytes_acked, qb, mb)
    );
}
