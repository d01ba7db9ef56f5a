//! End-to-end tests: a sender and a receiver joined by an in-memory path with a
//! fixed one-way delay, an optional bottleneck serialisation time and scripted
//! losses. Paced variants get their pacing timer. Everything is deterministic.

use super::*;
use crate::engine::{EventQueue, Time, MILLIS, SECOND};
use crate::scenario::schema::TcpVariant;
use std::collections::BTreeMap;

enum Ev {
    Data(TcpHeader),
    Ack(TcpHeader),
}

type DropFn = Box<dyn FnMut(&TcpHeader, u32) -> bool>;

struct Pipe {
    now: Time,
    snd: TcpSender,
    rcv: TcpReceiver,
    delay: Time,
    /// Serialisation time of one data segment at the sender's bottleneck (0: none).
    tx_time: Time,
    link_free: Time,
    q: EventQueue<Ev>,
    app_bytes: u64,
    /// Decides the loss of a data segment, given how many times its `seq` was sent before.
    drop_data: DropFn,
    /// (time, segment, dropped)
    sent: Vec<(Time, TcpHeader, bool)>,
    /// The sender's pacing deadline right after each entry of `sent`.
    released: Vec<Option<Time>>,
    tx_count: BTreeMap<u64, u32>,
    acks_received: u64,
    /// (time, entered?, snd_una, recover)
    recovery_log: Vec<(Time, bool, u64, u64)>,
    was_in_recovery: bool,
}

impl Pipe {
    fn new(cfg: &TcpConfig, delay: Time, tx_time: Time, app_bytes: u64) -> Self {
        Pipe {
            now: 0,
            snd: TcpSender::new(cfg),
            rcv: TcpReceiver::new(cfg),
            delay,
            tx_time,
            link_free: 0,
            q: EventQueue::new(),
            app_bytes,
            drop_data: Box::new(|_, _| false),
            sent: Vec::new(),
            released: Vec::new(),
            tx_count: BTreeMap::new(),
            acks_received: 0,
            recovery_log: Vec::new(),
            was_in_recovery: false,
        }
    }

    /// Loses the first transmission of the segments starting at these byte offsets.
    fn drop_first_tx(mut self, seqs: &[u64]) -> Self {
        let seqs = seqs.to_vec();
        self.drop_data = Box::new(move |h, n| n == 0 && seqs.contains(&h.seq));
        self
    }

    fn with_drop(mut self, f: impl FnMut(&TcpHeader, u32) -> bool + 'static) -> Self {
        self.drop_data = Box::new(f);
        self
    }

    fn done(&self) -> bool {
        self.app_bytes != u64::MAX
            && self.rcv.delivered_bytes() >= self.app_bytes
            && self.snd.snd_una() >= self.app_bytes
    }

    /// Runs until everything is delivered and acknowledged, or `until`.
    fn run(&mut self, until: Time) {
        self.pump();
        while !self.done() {
            let t = [
                self.q.peek_time(),
                self.snd.timer_deadline(),
                self.rcv.delack_deadline(),
                self.snd.pacing_deadline().filter(|&p| p > self.now),
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(t) = t.filter(|&t| t <= until) else {
                break;
            };
            assert!(t >= self.now, "time went backwards");
            self.now = t;
            if self.q.peek_time() == Some(t) {
                match self.q.pop_until(t).unwrap().1 {
                    Ev::Data(h) => {
                        if let Some(a) = self.rcv.on_segment(t, &h) {
                            self.q.schedule(t + self.delay, Ev::Ack(a));
                        }
                    }
                    Ev::Ack(a) => {
                        self.acks_received += 1;
                        self.snd.on_ack(t, &a);
                    }
                }
            } else if self.snd.timer_deadline() == Some(t) {
                self.snd.on_timer(t);
            } else if self.rcv.delack_deadline() == Some(t) {
                if let Some(a) = self.rcv.on_delack_timeout(t) {
                    self.q.schedule(t + self.delay, Ev::Ack(a));
                }
            }
            // Otherwise the pacing timer fired: `pump` below sends what it released.
            self.log_recovery();
            self.pump();
        }
    }

    fn log_recovery(&mut self) {
        let r = self.snd.in_recovery();
        if r != self.was_in_recovery {
            self.recovery_log
                .push((self.now, r, self.snd.snd_una(), self.snd.recover()));
            self.was_in_recovery = r;
        }
    }

    fn pump(&mut self) {
        for _ in 0..100_000 {
            let prev_max = self.snd.snd_max();
            let probes = self.snd.stats().tail_loss_probes;
            let Some(h) = self.snd.next_segment(self.now, self.app_bytes) else {
                return;
            };
            self.log_recovery();
            // A tail loss probe is exempt from cwnd (RFC 8985 §7.3).
            if h.seq >= prev_max && self.snd.stats().tail_loss_probes == probes {
                self.check_window_invariant(&h);
            }
            let n = self.tx_count.entry(h.seq).or_insert(0);
            let dropped = (self.drop_data)(&h, *n);
            *n += 1;
            self.sent.push((self.now, h, dropped));
            self.released.push(self.snd.pacing_deadline());
            if !dropped {
                let depart = self.now.max(self.link_free) + self.tx_time;
                self.link_free = depart;
                self.q.schedule(depart + self.delay, Ev::Data(h));
            }
        }
        panic!("sender never stopped sending");
    }

    /// New data never takes the sender beyond its windows: everything outstanding
    /// stays within the peer's window, and the flight (pipe during SACK recovery)
    /// within cwnd, plus at most 2 SMSS that Limited Transmit sent on the first two
    /// duplicate ACKs (RFC 3042). A lone segment with nothing outstanding is always
    /// allowed.
    fn check_window_invariant(&self, h: &TcpHeader) {
        let s = &self.snd;
        let len = h.len as u64;
        assert!(
            s.snd_max() - s.snd_una() <= s.peer_window().max(len),
            "beyond the receiver window"
        );
        let limited = s.limited_transmit_bytes();
        assert!(limited <= 2 * MSS, "Limited Transmit sent {limited} bytes");
        assert!(
            s.flight_size() <= s.cwnd_bytes().max(len) + limited,
            "flight {} > cwnd {}",
            s.flight_size(),
            s.cwnd_bytes()
        );
    }

    fn tx_of(&self, seq: u64) -> u32 {
        self.tx_count.get(&seq).copied().unwrap_or(0)
    }
}

const MSS: u64 = 1000;

fn cfg(sack: bool, delayed_ack: bool) -> TcpConfig {
    TcpConfig {
        sack,
        mss: MSS as u32,
        initial_cwnd_segments: 10,
        min_rto: SECOND,
        initial_rto: SECOND,
        max_rto: 60 * SECOND,
        clock_granularity: MILLIS,
        rtt_every_ack: false,
        delayed_ack,
        delayed_ack_count: 2,
        delayed_ack_timeout: 200 * MILLIS,
        rcv_buffer: 131_072,
        dupack_threshold: 3,
        ..TcpConfig::default()
    }
}

#[test]
fn lossless_transfer_delivers_everything_once() {
    for (sack, delack) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut p = Pipe::new(&cfg(sack, delack), 20 * MILLIS, 100_000, 500_000);
        p.run(60 * SECOND);
        assert!(p.done());
        let st = p.snd.stats();
        assert_eq!(
            (st.retransmissions, st.timeouts, st.fast_retransmits),
            (0, 0, 0)
        );
        assert_eq!(st.segments_sent, 500);
        assert_eq!(st.bytes_acked, 500_000);
        assert!(st.rtt_samples > 5);
        let mean_rtt = st.rtt_sum_s / st.rtt_samples as f64;
        assert!(mean_rtt >= 0.040, "{mean_rtt}");
        assert_eq!(p.snd.rto_deadline(), None);
        assert_eq!(p.rcv.delack_deadline(), None);
        if delack {
            // Roughly one ACK per two segments.
            assert!(p.acks_received <= 260, "{}", p.acks_received);
        } else {
            assert_eq!(p.acks_received, 500);
        }
    }
}

/// Losses of three segments of the same window, used by the NewReno and SACK tests.
const LOST: [u64; 3] = [30 * MSS, 33 * MSS, 37 * MSS];

fn recovery_episode(p: &Pipe) -> (Time, Time) {
    assert_eq!(
        p.recovery_log.len(),
        2,
        "exactly one recovery: {:?}",
        p.recovery_log
    );
    let (t0, entered, _, recover) = p.recovery_log[0];
    let (t1, left, una, _) = p.recovery_log[1];
    assert!(entered && !left);
    assert!(
        una >= recover,
        "recovery must end when `recover` is acknowledged"
    );
    (t0, t1)
}

#[test]
fn newreno_partial_acks_repair_three_losses_in_one_window() {
    let mut p = Pipe::new(&cfg(false, false), 50 * MILLIS, 100_000, 300_000).drop_first_tx(&LOST);
    p.run(60 * SECOND);
    assert!(p.done());
    let st = p.snd.stats().clone();
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.fast_retransmits, 1);
    assert_eq!(
        st.retransmissions, 3,
        "each hole retransmitted exactly once"
    );
    for s in LOST {
        assert_eq!(p.tx_of(s), 2);
    }
    let (t0, t1) = recovery_episode(&p);
    // One hole per round trip: three RTTs (100 ms base RTT) in recovery.
    assert!(t1 - t0 >= 300 * MILLIS, "{}", t1 - t0);
}

#[test]
fn sack_repairs_several_losses_within_one_recovery_faster_than_newreno() {
    let run = |sack: bool| {
        let mut p =
            Pipe::new(&cfg(sack, false), 50 * MILLIS, 100_000, 300_000).drop_first_tx(&LOST);
        p.run(60 * SECOND);
        assert!(p.done());
        p
    };
    let sack = run(true);
    let st = sack.snd.stats();
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.fast_retransmits, 1);
    assert_eq!(st.retransmissions, 3);
    for s in LOST {
        assert_eq!(sack.tx_of(s), 2);
    }
    // All three holes are retransmitted within one round trip of entering recovery.
    let (t0, t1) = recovery_episode(&sack);
    let rtx_times: Vec<Time> = sack
        .sent
        .iter()
        .filter(|(_, h, _)| LOST.contains(&h.seq))
        .map(|x| x.0)
        .skip(3)
        .collect();
    assert_eq!(rtx_times.len(), 3);
    assert!(
        rtx_times.iter().all(|&t| t < t0 + 100 * MILLIS),
        "{rtx_times:?} vs {t0}"
    );
    // Recovery takes about one round trip (100 ms base RTT plus queueing)...
    assert!(t1 - t0 < 150 * MILLIS, "{}", t1 - t0);
    // ...where NewReno needs one round trip per hole.
    let newreno = run(false);
    let (n0, n1) = recovery_episode(&newreno);
    assert_eq!(n0, t0);
    assert!(n1 - n0 >= 300 * MILLIS, "NewReno {}", n1 - n0);
    assert!(sack.now < newreno.now);
}

#[test]
fn lost_retransmission_is_repaired_by_timeout() {
    for sack in [false, true] {
        let mut p = Pipe::new(&cfg(sack, true), 20 * MILLIS, 100_000, 200_000)
            .with_drop(|h, n| h.seq == 40 * MSS && n < 2);
        p.run(60 * SECOND);
        assert!(p.done());
        let st = p.snd.stats();
        assert_eq!(st.timeouts, 1);
        assert_eq!(p.tx_of(40 * MSS), 3);
        assert_eq!(p.rcv.delivered_bytes(), 200_000);
    }
}

#[test]
fn repeated_timeouts_back_off_exponentially_up_to_max_rto() {
    // Every copy of segment 5 is lost until its sixth transmission: one fast
    // retransmission, then four timeouts.
    let c = TcpConfig {
        max_rto: 3 * SECOND,
        ..cfg(false, false)
    };
    let mut p = Pipe::new(&c, 20 * MILLIS, 0, 20_000).with_drop(|h, n| h.seq == 5 * MSS && n < 5);
    p.run(60 * SECOND);
    assert!(p.done());
    let times: Vec<Time> = p
        .sent
        .iter()
        .filter(|(_, h, _)| h.seq == 5 * MSS)
        .map(|x| x.0)
        .collect();
    let gaps: Vec<Time> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps.len(), 5);
    assert!(gaps[0] < 100 * MILLIS, "fast retransmit first: {gaps:?}");
    // The RTT sample (40 ms) gave RTO = min RTO = 1 s; then doubling, capped at 3 s.
    assert_eq!(gaps[1..], [SECOND, 2 * SECOND, 3 * SECOND, 3 * SECOND]);
    let st = p.snd.stats();
    assert_eq!(
        (st.fast_retransmits, st.timeouts, st.retransmissions),
        (1, 4, 5)
    );
}

#[test]
fn receiver_window_bounds_the_flight() {
    let c = TcpConfig {
        rcv_buffer: 4000,
        ..cfg(false, false)
    };
    let mut p = Pipe::new(&c, 50 * MILLIS, 0, 40_000);
    p.run(60 * SECOND);
    assert!(p.done());
    // Four segments per 100 ms round trip, however large cwnd grows.
    let first_rtt = p.sent.iter().filter(|(t, _, _)| *t < 100 * MILLIS).count();
    assert_eq!(first_rtt, 4);
    assert!(p.now >= 900 * MILLIS, "{}", p.now);
}

#[test]
fn application_limited_sender_sends_only_what_was_written() {
    let mut p = Pipe::new(&cfg(true, true), 10 * MILLIS, 0, 2500);
    p.run(60 * SECOND);
    assert!(p.done());
    let segs: Vec<(u64, u32)> = p.sent.iter().map(|(_, h, _)| (h.seq, h.len)).collect();
    assert_eq!(segs, vec![(0, 1000), (1000, 1000), (2000, 500)]);
    // The odd segment's ACK waited for the delayed-ACK timer.
    assert!(p.now >= 200 * MILLIS);
    p.app_bytes = 4000;
    p.run(60 * SECOND);
    assert!(p.done());
    assert_eq!(p.sent.len(), 5);
}

/// A small deterministic PRNG for loss patterns (no dependence on the engine's).
fn lcg(seed: u64) -> impl FnMut() -> f64 {
    let mut x = seed;
    move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// What a sender sent, segment by segment: (time, seq, len, dropped).
type SendLog = Vec<(Time, u64, u32, bool)>;

/// 1 MB over the 15 ms path losing 3 % of the data segments at random (the loss
/// pattern drawn from `seed`), run up to `horizon`; every byte must arrive (`what` names
/// the case in the failure). Returns when it ended, what was sent and the sender's
/// counters.
fn lossy_run(
    c: &TcpConfig,
    seed: u64,
    horizon: Time,
    what: &str,
) -> (Time, SendLog, TcpSenderStats) {
    let mut rnd = lcg(seed);
    let mut p = Pipe::new(c, 15 * MILLIS, 200_000, 1_000_000).with_drop(move |_, _| rnd() < 0.03);
    p.run(horizon);
    assert!(p.done(), "{what}: stuck at {}", p.rcv.delivered_bytes());
    let log = p
        .sent
        .iter()
        .map(|(t, h, d)| (*t, h.seq, h.len, *d))
        .collect();
    (p.now, log, p.snd.stats().clone())
}

#[test]
fn random_losses_complete_deterministically() {
    for sack in [false, true] {
        for delack in [false, true] {
            let what = format!("sack={sack} delack={delack}");
            let run = || lossy_run(&cfg(sack, delack), 42, 600 * SECOND, &what);
            let (t1, log1, st1) = run();
            let (t2, log2, st2) = run();
            assert_eq!(t1, t2);
            assert_eq!(log1, log2);
            assert!(st1.retransmissions > 0 && st1.fast_retransmits > 0);
            assert_eq!(st1.segments_sent, st2.segments_sent);
        }
    }
}

/// Limited Transmit (RFC 3042) and NewReno's Careful variant (RFC 6582) on a lossy path:
/// every byte arrives, the same run twice gives the same segments, and with Limited
/// Transmit more segments leave before recoveries start than without (it sends on the
/// first and second duplicates, where the plain sender waits).
#[test]
fn limited_transmit_and_careful_newreno_repair_random_losses() {
    for sack in [false, true] {
        let run = |limited: bool, careful: bool| {
            let c = TcpConfig {
                limited_transmit: limited,
                newreno_careful: careful,
                ..cfg(sack, true)
            };
            let what = format!("sack={sack} limited={limited} careful={careful}");
            let (_, log, stats) = lossy_run(&c, 7, 600 * SECOND, &what);
            (log, stats)
        };
        let (plain, _) = run(false, false);
        for (limited, careful) in [(true, false), (false, true), (true, true)] {
            let (a, st) = run(limited, careful);
            let (b, _) = run(limited, careful);
            assert_eq!(a, b, "deterministic");
            assert!(st.fast_retransmits > 0);
            if limited {
                assert_ne!(
                    a, plain,
                    "sack={sack}: Limited Transmit changes what is sent"
                );
            }
        }
    }
}

#[test]
fn sack_beats_newreno_under_heavy_burst_losses() {
    // Drop the first transmission of every 5th segment in [50, 90).
    let drop = |h: &TcpHeader, n: u32| {
        n == 0 && (50 * MSS..90 * MSS).contains(&h.seq) && (h.seq / MSS).is_multiple_of(5)
    };
    let mut nr = Pipe::new(&cfg(false, false), 30 * MILLIS, 100_000, 400_000).with_drop(drop);
    nr.run(600 * SECOND);
    let mut sk = Pipe::new(&cfg(true, false), 30 * MILLIS, 100_000, 400_000).with_drop(drop);
    sk.run(600 * SECOND);
    assert!(nr.done() && sk.done());
    assert_eq!(sk.snd.stats().timeouts, 0);
    assert_eq!(sk.snd.stats().retransmissions, 8);
    assert!(sk.now < nr.now, "SACK {} vs NewReno {}", sk.now, nr.now);
}

// ----------------------------------------------------------------- TCP variants

fn variant_cfg(variant: TcpVariant, sack: bool, delack: bool) -> TcpConfig {
    TcpConfig {
        variant,
        ..cfg(sack, delack)
    }
}

/// Most segments handed to the network at one instant.
fn max_burst(p: &Pipe) -> usize {
    p.sent
        .chunk_by(|a, b| a.0 == b.0)
        .map(|c| c.len())
        .max()
        .unwrap_or(0)
}

#[test]
fn ap_paces_where_newreno_bursts() {
    let run = |variant| {
        let mut p = Pipe::new(
            &variant_cfg(variant, false, false),
            20 * MILLIS,
            100_000,
            200_000,
        );
        p.run(600 * SECOND);
        assert!(p.done(), "{variant:?}");
        assert_eq!(p.snd.stats().retransmissions, 0);
        p
    };
    let nr = run(TcpVariant::Newreno);
    let ap = run(TcpVariant::Ap);
    let nc = run(TcpVariant::NcAware);
    // NewReno sends its initial window and every window increase back to back.
    assert!(max_burst(&nr) >= 10, "{}", max_burst(&nr));
    assert_eq!(nr.snd.pacing_deadline(), None);
    for p in [&ap, &nc] {
        assert_eq!(max_burst(p), 1);
        // No segment leaves before the release time set when the previous one left.
        for (i, w) in p.sent.windows(2).enumerate() {
            let release = p.released[i].expect("paced");
            assert!(w[1].0 >= release, "segment {i}: {} < {release}", w[1].0);
        }
    }
    // With a 4-hop path assumed and a 40 ms RTT, 4HPD = RTT / 2 + 8 ms: TCP-AP
    // spaces segments by about 28 ms, so the transfer takes longer than NewReno's...
    let gaps: Vec<Time> = ap.sent.windows(2).map(|w| w[1].0 - w[0].0).collect();
    let median = {
        let mut g = gaps.clone();
        g.sort();
        g[g.len() / 2]
    };
    assert!(
        (27 * MILLIS..=32 * MILLIS).contains(&median),
        "median gap {median}"
    );
    assert!(ap.now > nr.now);
    // ...and NC-aware TCP (lambda = 0.2) sends five times as fast as TCP-AP.
    assert!(nc.now < ap.now);
    let nc_gaps: Vec<Time> = nc.sent.windows(2).map(|w| w[1].0 - w[0].0).collect();
    let nc_mean = nc_gaps.iter().sum::<Time>() / nc_gaps.len() as Time;
    let ap_mean = gaps.iter().sum::<Time>() / gaps.len() as Time;
    assert!(nc_mean < ap_mean / 2, "{nc_mean} vs {ap_mean}");
}

#[test]
fn path_hops_change_ap_spacing() {
    // The same 40 ms RTT spread over 8 hops means shorter per-hop delays, so a
    // shorter 4HPD and closer spacing than on the default 4 hops.
    let run = |hops: Option<u32>| {
        let mut p = Pipe::new(
            &TcpConfig {
                hops,
                ..variant_cfg(TcpVariant::Ap, false, false)
            },
            20 * MILLIS,
            100_000,
            100_000,
        );
        if let Some(h) = hops {
            p.snd.set_path_hops(h);
        }
        p.run(600 * SECOND);
        assert!(p.done());
        p.now
    };
    let four = run(None);
    assert_eq!(run(Some(4)), four);
    assert!(run(Some(8)) < four);
}

#[test]
fn all_variants_repair_losses_deterministically() {
    for variant in [
        TcpVariant::Newreno,
        TcpVariant::Few,
        TcpVariant::Ap,
        TcpVariant::NcAware,
        TcpVariant::Vegas,
    ] {
        for sack in [false, true] {
            let run = || {
                let mut rnd = lcg(7);
                let mut p = Pipe::new(
                    &variant_cfg(variant, sack, true),
                    15 * MILLIS,
                    200_000,
                    400_000,
                )
                .with_drop(move |_, _| rnd() < 0.03);
                p.run(900 * SECOND);
                assert!(
                    p.done(),
                    "{variant:?} sack={sack}: stuck at {}",
                    p.rcv.delivered_bytes()
                );
                (
                    p.now,
                    p.sent
                        .iter()
                        .map(|(t, h, d)| (*t, h.seq, h.len, *d))
                        .collect::<Vec<_>>(),
                    p.snd.stats().clone(),
                )
            };
            let (t1, log1, st1) = run();
            let (t2, log2, _) = run();
            assert_eq!((t1, &log1), (t2, &log2), "{variant:?} sack={sack}");
            assert!(st1.fast_retransmits > 0, "{variant:?} sack={sack}");
            assert_eq!(st1.bytes_acked, 400_000);
        }
    }
}

#[test]
fn newreno_partial_acks_work_under_pacing() {
    // The three-losses-in-one-window case of NewReno, with TCP-AP: one recovery
    // episode, each hole retransmitted once, no timeout.
    let mut p = Pipe::new(
        &variant_cfg(TcpVariant::NcAware, false, false),
        50 * MILLIS,
        100_000,
        300_000,
    )
    .drop_first_tx(&LOST);
    p.run(600 * SECOND);
    assert!(p.done());
    let st = p.snd.stats();
    assert_eq!(
        (st.timeouts, st.fast_retransmits, st.retransmissions),
        (0, 1, 3)
    );
    recovery_episode(&p);
}

/// Segments ahead of each data segment sent after `from` at the bottleneck (waiting or
/// being sent) when it reaches it, replayed from the sending log.
fn bottleneck_backlog(p: &Pipe, tx_time: Time, from: Time) -> Vec<u64> {
    let mut free = 0;
    let mut out = Vec::new();
    for &(t, _, dropped) in &p.sent {
        if dropped {
            continue;
        }
        let depart = t.max(free) + tx_time;
        free = depart;
        if t >= from {
            out.push((depart - t).div_ceil(tx_time) - 1);
        }
    }
    out
}

#[test]
fn vegas_keeps_its_queue_between_alpha_and_beta_on_a_clean_path() {
    // A 100 segments/s bottleneck and 100 ms of propagation round trip: a pipe of
    // about 11 segments. Vegas (alpha 1, beta 3) settles with 1-3 segments queued at
    // the bottleneck and the link busy; NewReno fills the queue up to the receiver
    // window.
    let tx = 10 * MILLIS;
    let run = |variant| {
        let mut p = Pipe::new(
            &variant_cfg(variant, false, false),
            50 * MILLIS,
            tx,
            u64::MAX,
        );
        p.run(60 * SECOND);
        p
    };
    let vegas = run(TcpVariant::Vegas);
    let backlog = bottleneck_backlog(&vegas, tx, 20 * SECOND);
    let mean = backlog.iter().sum::<u64>() as f64 / backlog.len() as f64;
    let (lo, hi) = (backlog.iter().min().unwrap(), backlog.iter().max().unwrap());
    assert!((1.0..=3.0).contains(&mean), "mean queue {mean:.2} segments");
    assert!(*lo >= 1 && *hi <= 3, "queue ranged {lo}..{hi} segments");
    assert_eq!(vegas.snd.stats().retransmissions, 0);
    // The link stays busy: over 95 % of its 100 segments/s in the last 40 s.
    let sent = backlog.len() as f64 / 40.0;
    assert!(sent > 95.0, "{sent:.1} segments/s");
    let reno = run(TcpVariant::Newreno);
    let reno_max = *bottleneck_backlog(&reno, tx, 20 * SECOND)
        .iter()
        .max()
        .unwrap();
    assert!(reno_max > 50, "NewReno queue peaked at {reno_max}");
}

#[test]
fn cubic_prr_and_rack_repair_random_losses_deterministically() {
    for variant in [TcpVariant::Newreno, TcpVariant::Cubic, TcpVariant::Bbr] {
        for (prr, rack) in [(true, false), (false, true), (true, true)] {
            let c = TcpConfig {
                prr,
                rack,
                ..variant_cfg(variant, true, true)
            };
            let what = format!("{variant:?} prr={prr} rack={rack}");
            let run = || lossy_run(&c, 11, 900 * SECOND, &what);
            let (t1, log1, st1) = run();
            let (t2, log2, _) = run();
            assert_eq!(
                (t1, &log1),
                (t2, &log2),
                "{variant:?} prr={prr} rack={rack}"
            );
            assert_eq!(st1.bytes_acked, 1_000_000);
            assert!(
                st1.fast_retransmits > 0,
                "{variant:?} prr={prr} rack={rack}"
            );
        }
    }
}

#[test]
fn rack_probes_a_lost_tail_instead_of_waiting_for_the_rto() {
    // The last two segments of a transfer are lost once: with RACK-TLP the probe
    // repairs the tail in about two RTTs; without, the RTO (1 s) does.
    let drop = |h: &TcpHeader, n: u32| n == 0 && h.seq >= 48 * MSS;
    let mut plain = Pipe::new(&cfg(true, false), 15 * MILLIS, 0, 50 * MSS).with_drop(drop);
    plain.run(600 * SECOND);
    let c = TcpConfig {
        rack: true,
        ..cfg(true, false)
    };
    let mut rack = Pipe::new(&c, 15 * MILLIS, 0, 50 * MSS).with_drop(drop);
    rack.run(600 * SECOND);
    assert!(plain.done() && rack.done());
    assert_eq!(plain.snd.stats().timeouts, 1);
    assert_eq!(rack.snd.stats().timeouts, 0);
    assert_eq!(rack.snd.stats().tail_loss_probes, 1);
    assert!(
        rack.now + 500 * MILLIS < plain.now,
        "{} vs {}",
        rack.now,
        plain.now
    );
}
