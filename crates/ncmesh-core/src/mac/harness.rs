//! Unit tests of the exchange rules: 2-4 [`Station`]s on an ideal medium (who hears
//! whom is chosen per test, 1 us propagation, a frame overlapping another at a receiver
//! is lost, scripted losses), driven through the station's API only, as
//! `transport/tcp/harness.rs` drives TCP. Everything is deterministic. 802.11b defaults:
//! slot 20 us, SIFS 10, DIFS 50, EIFS 364, data at 2 Mbit/s, control frames and
//! broadcasts at 1 Mbit/s with the long preamble (ACK/CTS 304 us, RTS 352 us).

use super::*;
use crate::engine::{EventQueue, StreamPurpose, MICROS, SECOND};
use crate::scenario::schema::MacCfg;

const US: Time = MICROS;
const D: Time = US; // propagation delay
const T0: Time = SECOND;
const DIFS: Time = 50 * US;
const SIFS: Time = 10 * US;
const SLOT: Time = 20 * US;
const ACK: Time = 304 * US;
const CTS: Time = 304 * US;
const RTS: Time = 352 * US;
/// 1036-byte MSDU: 1064-byte MPDU, 192 + 4256 us at 2 Mbit/s.
const BODY: u32 = 1036;
const DATA: Time = 4448 * US;
/// SIFS + slot + PLCP of the response (10.3.2.9).
const RESPONSE_TIMEOUT: Time = 222 * US;

#[derive(Debug, Clone, PartialEq)]
struct Body {
    id: u32,
}

impl MacBody for Body {
    fn msdu_bytes(&self) -> u32 {
        BODY
    }
}

enum Ev {
    Mac(usize, MacTimer),
    TxEnd(usize, bool),
    Arrival(usize, usize),
    RxEnd(usize, usize),
    Enqueue(usize, NodeId, u32),
}

/// What happened, at which station.
#[derive(Debug, Clone, PartialEq)]
enum What {
    Tx {
        kind: FrameKind,
        to: NodeId,
        seq: u16,
        retry: bool,
        duration: Time,
    },
    RxOk(FrameKind),
    RxBad,
    Deliver(u32, Addressed),
    Done(u32, TxOutcome),
    AttemptFailed,
    Count(MacCount),
}

#[derive(Debug, Clone)]
struct Rec {
    t: Time,
    st: usize,
    what: What,
}

struct Lock {
    frame: usize,
    corrupted: bool,
}

struct Node {
    mac: Station<Body>,
    queue: std::collections::VecDeque<OutFrame<Body>>,
    cca_until: Time,
    tx_until: Time,
    lock: Option<Lock>,
}

type LoseFn = Box<dyn FnMut(&Frame<Body>, usize) -> bool>;

struct Harness {
    now: Time,
    q: EventQueue<Ev>,
    nodes: Vec<Node>,
    /// hears[a][b]: b hears a's transmissions.
    hears: Vec<Vec<bool>>,
    frames: Vec<Frame<Body>>,
    /// Decides whether a frame is lost at a receiver (as a channel error).
    lose: LoseFn,
    log: Vec<Rec>,
}

impl Harness {
    /// `n` stations that all hear each other, with backoff streams of `seed`.
    fn new(n: usize, cfg: &MacCfg, seed: u64) -> Harness {
        let p = MacParams::new(cfg);
        let nodes = (0..n)
            .map(|i| Node {
                mac: Station::new(
                    i as NodeId,
                    p.clone(),
                    Rng::stream(seed, i as u64, StreamPurpose::Backoff),
                ),
                queue: Default::default(),
                cca_until: 0,
                tx_until: 0,
                lock: None,
            })
            .collect();
        Harness {
            now: 0,
            q: EventQueue::new(),
            nodes,
            hears: vec![vec![true; n]; n],
            frames: Vec::new(),
            lose: Box::new(|_, _| false),
            log: Vec::new(),
        }
    }

    /// A chain: each station hears only its neighbours.
    fn chain(mut self) -> Harness {
        let n = self.nodes.len();
        for a in 0..n {
            for b in 0..n {
                self.hears[a][b] = a.abs_diff(b) == 1;
            }
        }
        self
    }

    fn losing(mut self, f: impl FnMut(&Frame<Body>, usize) -> bool + 'static) -> Harness {
        self.lose = Box::new(f);
        self
    }

    /// Station `st` gets frame `id` for `to` from the layer above at `at`.
    fn send_at(&mut self, at: Time, st: usize, to: NodeId, id: u32) {
        self.q.schedule(at, Ev::Enqueue(st, to, id));
    }

    fn run_until(&mut self, until: Time) {
        while let Some((t, ev)) = self.q.pop_until(until) {
            self.now = t;
            match ev {
                Ev::Mac(s, timer) => self.input(s, None, |m, cx| m.handle_timeout(cx, timer)),
                Ev::TxEnd(s, response) => {
                    self.input(s, None, |m, cx| m.handle_tx_end(cx, response))
                }
                Ev::Arrival(s, f) => self.arrival(s, f),
                Ev::RxEnd(s, f) => self.rx_end(s, f),
                Ev::Enqueue(s, to, id) => {
                    self.nodes[s].queue.push_back(OutFrame {
                        mac_rx: to,
                        body: Body { id },
                    });
                    self.input(s, None, |m, cx| m.handle_frame_ready(cx));
                }
            }
        }
        self.now = until;
    }

    fn cx(&self, s: usize) -> MacCx {
        let nd = &self.nodes[s];
        MacCx {
            now: self.now,
            cca_until: nd.cca_until,
            receiving: nd.lock.is_some(),
            upper_has_frame: !nd.queue.is_empty(),
        }
    }

    fn record(&mut self, st: usize, what: What) {
        self.log.push(Rec {
            t: self.now,
            st,
            what,
        });
    }

    /// One input to station `s`, then its outputs in order (the simulator's glue does
    /// the same).
    fn input(&mut self, s: usize, rx: Option<usize>, f: impl FnOnce(&mut Station<Body>, MacCx)) {
        let cx = self.cx(s);
        f(&mut self.nodes[s].mac, cx);
        while let Some(o) = self.nodes[s].mac.poll_output() {
            match o {
                MacOutput::Schedule { at, timer } => self.q.schedule(at, Ev::Mac(s, timer)),
                MacOutput::Transmit { response } => {
                    let frame = self.nodes[s].mac.take_transmit();
                    self.transmit(s, frame, response);
                }
                MacOutput::NeedFrame => {
                    if let Some(f) = self.nodes[s].queue.pop_front() {
                        let cx = self.cx(s);
                        self.nodes[s].mac.load(cx, f);
                    }
                }
                MacOutput::Deliver(a) => {
                    let id = self.frames[rx.unwrap()].data.as_ref().unwrap().id;
                    self.record(s, What::Deliver(id, a));
                    let cx = self.cx(s);
                    self.nodes[s].mac.resume(cx);
                }
                MacOutput::Done(outcome) => {
                    let frame = self.nodes[s].mac.take_done();
                    self.record(s, What::Done(frame.body.id, outcome));
                    let cx = self.cx(s);
                    self.nodes[s].mac.resume(cx);
                }
                MacOutput::AttemptFailed { .. } => self.record(s, What::AttemptFailed),
                MacOutput::Count(c) => self.record(s, What::Count(c)),
            }
        }
    }

    fn transmit(&mut self, s: usize, frame: Frame<Body>, response: bool) {
        let end = self.now + frame.airtime;
        let nd = &mut self.nodes[s];
        nd.tx_until = end;
        nd.lock = None; // half duplex: a reception in progress is abandoned
        self.record(
            s,
            What::Tx {
                kind: frame.kind,
                to: frame.rx,
                seq: frame.seq,
                retry: frame.retry,
                duration: frame.nav,
            },
        );
        let id = self.frames.len();
        self.frames.push(frame);
        for r in 0..self.nodes.len() {
            if r != s && self.hears[s][r] {
                self.q.schedule(self.now + D, Ev::Arrival(r, id));
            }
        }
        self.q.schedule(end, Ev::TxEnd(s, response));
    }

    fn arrival(&mut self, s: usize, f: usize) {
        let end = self.now + self.frames[f].airtime;
        let now = self.now;
        let nd = &mut self.nodes[s];
        let overlaps = nd.cca_until > now;
        nd.cca_until = nd.cca_until.max(end);
        if let Some(l) = &mut nd.lock {
            l.corrupted = true; // two signals at once: the one being received is lost
        } else if nd.tx_until <= now {
            nd.lock = Some(Lock {
                frame: f,
                corrupted: overlaps,
            });
            self.q.schedule(end, Ev::RxEnd(s, f));
        }
        self.input(s, None, |m, cx| m.handle_medium_busy(cx));
    }

    fn rx_end(&mut self, s: usize, f: usize) {
        let rx = match self.nodes[s].lock.take_if(|l| l.frame == f) {
            None => Err(RxError::Aborted),
            Some(l) if l.corrupted || (self.lose)(&self.frames[f], s) => {
                self.record(s, What::RxBad);
                Err(RxError::Corrupted)
            }
            Some(_) => {
                self.record(s, What::RxOk(self.frames[f].kind));
                Ok(self.frames[f].header())
            }
        };
        self.input(s, Some(f), |m, cx| m.handle_rx_end(cx, rx));
    }

    /// Transmissions: (time, station, kind).
    fn txs(&self) -> Vec<(Time, usize, FrameKind)> {
        self.log
            .iter()
            .filter_map(|r| match r.what {
                What::Tx { kind, .. } => Some((r.t, r.st, kind)),
                _ => None,
            })
            .collect()
    }

    fn tx_records(&self, st: usize, of: FrameKind) -> Vec<&Rec> {
        self.log
            .iter()
            .filter(|r| r.st == st && matches!(r.what, What::Tx { kind, .. } if kind == of))
            .collect()
    }

    fn find(&self, st: usize, what: &What) -> Vec<Time> {
        self.log
            .iter()
            .filter(|r| r.st == st && r.what == *what)
            .map(|r| r.t)
            .collect()
    }

    fn backoff_slots(&self, st: usize) -> Time {
        self.nodes[st].mac.contention.slots() as Time
    }

    fn cw(&self, st: usize) -> u32 {
        self.nodes[st].mac.recovery.cw()
    }
}

#[test]
fn single_exchange_timing() {
    // An idle medium: no backoff (10.3.4.2), but DIFS from the request (ns-3), then
    // DATA, SIFS, ACK.
    let mut h = Harness::new(2, &MacCfg::default(), 1);
    h.send_at(T0, 0, 1, 7);
    h.run_until(T0 + 10_000 * US);
    assert_eq!(
        h.txs(),
        vec![
            (T0 + DIFS, 0, FrameKind::Data),
            (T0 + DIFS + DATA + D + SIFS, 1, FrameKind::Ack)
        ]
    );
    let data = &h.tx_records(0, FrameKind::Data)[0].what;
    let ack = &h.tx_records(1, FrameKind::Ack)[0].what;
    assert!(
        matches!(data, What::Tx { duration, retry: false, to: 1, .. } if *duration == SIFS + ACK),
        "DATA Duration = SIFS + ACK: {data:?}"
    );
    assert!(
        matches!(
            ack,
            What::Tx {
                duration: 0,
                to: 0,
                ..
            }
        ),
        "{ack:?}"
    );
    assert_eq!(
        h.find(1, &What::Deliver(7, Addressed::ToMe)),
        vec![T0 + DIFS + DATA + D]
    );
    let acked = T0 + DIFS + DATA + D + SIFS + ACK + D;
    assert_eq!(h.find(0, &What::Done(7, TxOutcome::Delivered)), vec![acked]);
    // A post-backoff follows the exchange (10.3.4.3): the next frame, queued at once,
    // waits DIFS and the slots drawn.
    let b = h.backoff_slots(0);
    h.send_at(acked, 0, 1, 8);
    h.run_until(T0 + 30_000 * US);
    let second = h.tx_records(0, FrameKind::Data)[1].t;
    assert_eq!(second, acked + DIFS + b * SLOT);
}

#[test]
fn backoff_freezes_during_another_transmission_and_resumes() {
    let mut h = Harness::new(3, &MacCfg::default(), 5);
    // 1 -> 2 at T0; 0 gets a frame while that DATA is on the air: it draws a backoff.
    h.send_at(T0, 1, 2, 1);
    h.send_at(T0 + 1000 * US, 0, 1, 2);
    h.run_until(T0 + 1000 * US);
    let b0 = h.backoff_slots(0);
    assert!(
        b0 >= 3,
        "this seed draws {b0}: the test needs 3 slots or more"
    );
    // 0 heard DATA and ACK: its slots count from DIFS after the ACK.
    let ack_end_at_0 = T0 + DIFS + DATA + D + SIFS + ACK + D;
    let anchor = ack_end_at_0 + DIFS;
    // 2 gets a frame at the anchor: idle medium, DATA after DIFS, 2.5 slots in. It
    // reaches 0 one propagation delay later: 2 whole slots counted, the rest frozen.
    h.send_at(anchor, 2, 1, 3);
    h.run_until(T0 + 30_000 * US);
    let txs = h.txs();
    assert_eq!(txs[2], (anchor + DIFS, 2, FrameKind::Data), "{txs:?}");
    let ack2_end_at_0 = anchor + DIFS + DATA + D + SIFS + ACK + D;
    let resumed = ack2_end_at_0 + DIFS + (b0 - 2) * SLOT;
    assert_eq!(h.tx_records(0, FrameKind::Data)[0].t, resumed);
    assert_eq!(h.find(0, &What::Done(2, TxOutcome::Delivered)).len(), 1);
    assert!(h.log.iter().all(|r| r.what != What::RxBad), "no collision");
}

#[test]
fn rts_cts_sequence_and_nav_at_a_hidden_station() {
    // 0 - 1 - 2: 2 hears only 1 (the CTS and the ACK), not 0's RTS and DATA.
    let cfg = MacCfg {
        rts_threshold_bytes: 0,
        ..MacCfg::default()
    };
    let mut h = Harness::new(3, &cfg, 1).chain();
    h.send_at(T0, 0, 1, 1);
    // 2 gets a frame just after the CTS: its NAV says the medium is reserved.
    h.send_at(T0 + 800 * US, 2, 1, 2);
    h.run_until(T0 + 800 * US);
    let b2 = h.backoff_slots(2);
    h.run_until(T0 + 30_000 * US);
    let rts = T0 + DIFS;
    let cts = rts + RTS + D + SIFS;
    let data = cts + CTS + D + SIFS;
    let ack = data + DATA + D + SIFS;
    let txs = h.txs();
    assert_eq!(
        &txs[..4],
        &[
            (rts, 0, FrameKind::Rts),
            (cts, 1, FrameKind::Cts),
            (data, 0, FrameKind::Data),
            (ack, 1, FrameKind::Ack)
        ]
    );
    // RTS Duration: CTS + DATA + ACK + 3 SIFS (9.3.1.2); CTS: that less SIFS + CTS.
    let rts_dur = 3 * SIFS + CTS + DATA + ACK;
    assert!(
        matches!(h.tx_records(0, FrameKind::Rts)[0].what, What::Tx { duration, .. } if duration == rts_dur)
    );
    let cts_dur = rts_dur - SIFS - CTS;
    assert!(
        matches!(h.tx_records(1, FrameKind::Cts)[0].what, What::Tx { duration, .. } if duration == cts_dur)
    );
    // 2's NAV runs to the CTS's end + its Duration; the ACK it hears ends just after.
    let nav_end = cts + CTS + D + cts_dur;
    let ack_end_at_2 = ack + ACK + D;
    assert!(ack_end_at_2 >= nav_end);
    let first_of_2 = txs.iter().find(|t| t.1 == 2).unwrap();
    assert_eq!(
        *first_of_2,
        (ack_end_at_2 + DIFS + b2 * SLOT, 2, FrameKind::Rts),
        "2 defers to the NAV, not to carrier sense (it cannot hear the DATA)"
    );
    assert!(h.log.iter().all(|r| r.what != What::RxBad), "no collision");
    assert_eq!(h.find(1, &What::Deliver(2, Addressed::ToMe)).len(), 1);
}

#[test]
fn rts_is_not_answered_while_the_nav_is_set() {
    // 0 - 1 - 2 - 3: 2's NAV is set by 1's CTS; 3 (who hears only 2) asks 2 meanwhile.
    let cfg = MacCfg {
        rts_threshold_bytes: 0,
        ..MacCfg::default()
    };
    let mut h = Harness::new(4, &cfg, 1).chain();
    h.send_at(T0, 0, 1, 1);
    h.send_at(T0 + 1000 * US, 3, 2, 2);
    h.run_until(T0 + 100_000 * US);
    let cts = T0 + DIFS + RTS + D + SIFS;
    let nav_end = cts + CTS + D + (2 * SIFS + DATA + ACK);
    let rts3 = h.tx_records(3, FrameKind::Rts);
    assert_eq!(
        rts3[0].t,
        T0 + 1000 * US + DIFS,
        "3's first RTS, during 2's NAV"
    );
    assert!(rts3.len() >= 2, "the first RTS went unanswered");
    assert_eq!(
        h.find(3, &What::AttemptFailed)[0],
        rts3[0].t + RTS + RESPONSE_TIMEOUT
    );
    let cts2 = h.tx_records(2, FrameKind::Cts);
    assert!(!cts2.is_empty(), "2 answers once its NAV is over");
    assert!(
        cts2.iter().all(|r| r.t >= nav_end),
        "a CTS from 2 before {nav_end}"
    );
    assert_eq!(h.find(2, &What::Deliver(2, Addressed::ToMe)).len(), 1);
}

#[test]
fn eifs_after_a_failed_reception() {
    // 2 hears only 0 and loses 0's DATA: no NAV from it, EIFS instead of DIFS.
    let lost = |f: &Frame<Body>, at| at == 2 && f.data.as_ref().is_some_and(|b| b.id == 1);
    let mut h = Harness::new(3, &MacCfg::default(), 1).losing(lost);
    h.hears[1][2] = false;
    h.hears[2][1] = false;
    h.send_at(T0, 0, 1, 1);
    let rx_end_at_2 = T0 + DIFS + DATA + D;
    // 2 gets a frame just after: idle medium, no backoff, but EIFS from the error.
    h.send_at(rx_end_at_2 + US, 2, 0, 2);
    h.run_until(T0 + 30_000 * US);
    assert_eq!(h.find(2, &What::RxBad), vec![rx_end_at_2]);
    let eifs = SIFS + ACK + DIFS;
    assert_eq!(h.tx_records(2, FrameKind::Data)[0].t, rx_end_at_2 + eifs);
    assert_eq!(h.find(2, &What::Done(2, TxOutcome::Delivered)).len(), 1);
}

#[test]
fn short_retry_limit_then_drop_with_cw_reset() {
    let lose_data = |f: &Frame<Body>, _: usize| f.kind == FrameKind::Data;
    let mut h = Harness::new(2, &MacCfg::default(), 1).losing(lose_data);
    h.send_at(T0, 0, 1, 1);
    // First attempt: timeout at the end of DATA + AckTimeout; the backoff counts from
    // DIFS after it (10.3.4.3, as ns-3).
    let timeout = T0 + DIFS + DATA + RESPONSE_TIMEOUT;
    h.run_until(timeout);
    assert_eq!(h.find(0, &What::AttemptFailed), vec![timeout]);
    assert_eq!(h.cw(0), 63);
    let b = h.backoff_slots(0);
    h.run_until(T0 + SECOND);
    let data = h.tx_records(0, FrameKind::Data);
    assert_eq!(data[1].t, timeout + DIFS + b * SLOT);
    assert_eq!(data.len(), 7, "dot11ShortRetryLimit = 7 attempts");
    for (i, r) in data.iter().enumerate() {
        assert!(
            matches!(r.what, What::Tx { seq: 0, retry, .. } if retry == (i > 0)),
            "{i}: {:?}",
            r.what
        );
    }
    assert_eq!(h.find(0, &What::AttemptFailed).len(), 7);
    assert_eq!(h.find(0, &What::Done(1, TxOutcome::Failed)).len(), 1);
    assert_eq!(h.cw(0), 31, "CW back to CWmin after the drop (10.3.3)");
    assert!(h.find(1, &What::Deliver(1, Addressed::ToMe)).is_empty());
    // ns-3 3.44 keeps the CW after a drop.
    let keep = MacCfg {
        cw_reset_after_drop: false,
        ..MacCfg::default()
    };
    let mut h = Harness::new(2, &keep, 1).losing(lose_data);
    h.send_at(T0, 0, 1, 1);
    h.run_until(T0 + SECOND);
    assert_eq!(h.find(0, &What::Done(1, TxOutcome::Failed)).len(), 1);
    assert_eq!(h.cw(0), 1023);
}

#[test]
fn long_retry_limit_after_rts_cts() {
    // RTS/CTS succeed, every DATA is lost: the long retry count runs out after 4.
    let cfg = MacCfg {
        rts_threshold_bytes: 0,
        ..MacCfg::default()
    };
    let mut h = Harness::new(2, &cfg, 1).losing(|f, _| f.kind == FrameKind::Data);
    h.send_at(T0, 0, 1, 1);
    h.run_until(T0 + SECOND);
    let rts = h.tx_records(0, FrameKind::Rts);
    let data = h.tx_records(0, FrameKind::Data);
    assert_eq!(data.len(), 4, "dot11LongRetryLimit = 4 attempts");
    assert_eq!(rts.len(), 4);
    assert_eq!(h.tx_records(1, FrameKind::Cts).len(), 4);
    for (i, r) in data.iter().enumerate() {
        assert!(matches!(r.what, What::Tx { retry, .. } if retry == (i > 0)));
    }
    assert!(matches!(rts[0].what, What::Tx { retry: false, .. }));
    assert!(matches!(rts[1].what, What::Tx { retry: true, .. }));
    assert_eq!(h.find(0, &What::Done(1, TxOutcome::Failed)).len(), 1);
    assert_eq!(h.cw(0), 31);
}

#[test]
fn duplicate_is_acknowledged_but_delivered_once() {
    // The first ACK is lost: 0 sends the frame again, Retry bit set, same sequence number.
    let mut first_ack = true;
    let mut h = Harness::new(2, &MacCfg::default(), 1).losing(move |f, _| {
        let lose = f.kind == FrameKind::Ack && first_ack;
        first_ack &= !lose;
        lose
    });
    h.send_at(T0, 0, 1, 1);
    h.run_until(T0 + SECOND);
    let data = h.tx_records(0, FrameKind::Data);
    assert_eq!(data.len(), 2);
    assert!(matches!(
        data[1].what,
        What::Tx {
            seq: 0,
            retry: true,
            ..
        }
    ));
    assert_eq!(
        h.tx_records(1, FrameKind::Ack).len(),
        2,
        "the duplicate is acknowledged"
    );
    assert_eq!(h.find(1, &What::Deliver(1, Addressed::ToMe)).len(), 1);
    assert_eq!(h.find(1, &What::Count(MacCount::Duplicate)).len(), 1);
    assert_eq!(h.find(0, &What::Done(1, TxOutcome::Delivered)).len(), 1);
    // A new frame from 0 has the next sequence number and is delivered.
    h.send_at(T0 + SECOND, 0, 1, 2);
    h.run_until(T0 + 2 * SECOND);
    let data = h.tx_records(0, FrameKind::Data);
    assert!(matches!(
        data[2].what,
        What::Tx {
            seq: 1,
            retry: false,
            ..
        }
    ));
    assert_eq!(h.find(1, &What::Deliver(2, Addressed::ToMe)).len(), 1);
}

#[test]
fn no_mac_retransmissions_when_off() {
    let cfg = MacCfg {
        retransmissions: false,
        ..MacCfg::default()
    };
    let mut h = Harness::new(2, &cfg, 1).losing(|f, _| f.kind == FrameKind::Data);
    h.send_at(T0, 0, 1, 1);
    h.run_until(T0 + SECOND);
    assert_eq!(h.tx_records(0, FrameKind::Data).len(), 1);
    assert_eq!(h.find(0, &What::Done(1, TxOutcome::Failed)).len(), 1);
    // With RTS/CTS: one RTS, no answer, dropped.
    let cfg = MacCfg {
        rts_threshold_bytes: 0,
        ..cfg
    };
    let mut h = Harness::new(2, &cfg, 1).losing(|f, _| f.kind == FrameKind::Rts);
    h.send_at(T0, 0, 1, 1);
    h.run_until(T0 + SECOND);
    assert_eq!(h.tx_records(0, FrameKind::Rts).len(), 1);
    assert!(h.tx_records(0, FrameKind::Data).is_empty());
    assert_eq!(h.find(0, &What::Done(1, TxOutcome::Failed)).len(), 1);
}

#[test]
fn broadcast_is_not_acknowledged_nor_repeated() {
    // Station 1 loses it; nobody answers, 0 is done when the frame ends (10.3.6).
    let mut h = Harness::new(3, &MacCfg::default(), 1).losing(|_, at| at == 1);
    h.send_at(T0, 0, crate::net::BROADCAST, 1);
    h.run_until(T0 + SECOND);
    let air = (192 + 1064 * 8) * US; // basic rate, 1 Mbit/s
    assert_eq!(h.txs(), vec![(T0 + DIFS, 0, FrameKind::Data)]);
    assert!(matches!(
        h.tx_records(0, FrameKind::Data)[0].what,
        What::Tx { duration: 0, .. }
    ));
    assert_eq!(
        h.find(0, &What::Done(1, TxOutcome::Delivered)),
        vec![T0 + DIFS + air]
    );
    assert_eq!(
        h.find(2, &What::Deliver(1, Addressed::Broadcast)),
        vec![T0 + DIFS + air + D]
    );
    assert!(h
        .find(1, &What::Deliver(1, Addressed::Broadcast))
        .is_empty());
}

#[test]
fn overheard_data_is_delivered_as_such_and_sets_the_nav() {
    let mut h = Harness::new(3, &MacCfg::default(), 1);
    h.send_at(T0, 0, 1, 1);
    let rx_end = T0 + DIFS + DATA + D;
    h.run_until(rx_end);
    assert_eq!(
        h.find(2, &What::Deliver(1, Addressed::Overheard)),
        vec![rx_end]
    );
    assert_eq!(h.nodes[2].mac.nav.until(), rx_end + SIFS + ACK);
    assert!(
        h.nodes[1].mac.nav.until() == 0,
        "the receiver's NAV is not set"
    );
}
