//! IEEE 802.11 DCF MAC as a protocol state machine with no I/O inside: a [`Station`]
//! takes the time and the state of the medium in ([`MacCx`]) and says what to transmit
//! and when to be called next ([`MacOutput`]); the simulator (`sim::mac_glue`) or a test
//! harness maps these to events.
//!
//! One concept per file, each rule with its clause of IEEE 802.11-2016:
//! - `contention`: DIFS/EIFS idle time, backoff countdown with freeze and resume,
//!   backoff only if the medium is busy when a frame arrives (10.3.2.3, 10.3.4.2,
//!   10.3.4.3);
//! - `recovery`: contention window and short/long retry counts, drop at the retry
//!   limit (10.3.3, 10.3.4.4);
//! - `exchange`: RTS/CTS/DATA/ACK and group addressed sequences, Duration values,
//!   response timeouts and their deferral while receiving (9.2.5, 9.3.1.2, 10.3.2.7,
//!   10.3.2.9, 10.3.5, 10.3.6);
//! - `recipient`: CTS and ACK responses, duplicate detection (10.3.2.7, 10.3.2.9,
//!   10.3.2.11);
//! - `nav`: virtual carrier sense and EIFS (10.3.2.4, 10.3.2.3.7);
//! - [`frame`]: the frames.
//!
//! Where the standard leaves a choice, ncmesh follows ns-3 (noted where it applies):
//! a frame arriving on an idle medium still waits DIFS from its arrival; the backoff
//! after a failed attempt counts from DIFS after the response timeout; the CW may be
//! kept after a drop (`cw_reset_after_drop = false`).

mod contention;
mod exchange;
pub mod frame;
mod io;
mod nav;
mod params;
mod recipient;
mod recovery;

#[cfg(test)]
mod harness;

pub use frame::{Frame, FrameKind, MacBody, OutFrame, RxHeader};
pub use io::{
    Addressed, Attempt, MacCount, MacCx, MacOutput, MacTimer, RxError, SifsResponse, TxOutcome,
};
pub use params::MacParams;

use crate::engine::{Rng, Time};
use crate::net::{NodeId, BROADCAST};
use contention::Contention;
use exchange::{Exchange, Outgoing, TimeoutAction};
use nav::Nav;
use recipient::DupCache;
use recovery::{Recovery, Verdict};

/// The DCF of one station (IEEE 802.11-2016 10.3), generic over the data frame's body.
///
/// Call order, with a [`MacCx`] built fresh for each call:
/// 1. An input: [`handle_frame_ready`](Self::handle_frame_ready) when the layer above
///    gets a frame to send, [`handle_medium_busy`](Self::handle_medium_busy) when carrier
///    sense turns busy, [`handle_rx_end`](Self::handle_rx_end) when a reception ends,
///    [`handle_tx_end`](Self::handle_tx_end) when our transmission ends,
///    [`handle_timeout`](Self::handle_timeout) when a scheduled [`MacTimer`] fires.
/// 2. [`poll_output`](Self::poll_output) until `None`, acting on each output in order:
///    `Schedule` a timer, `Transmit` the frame [`take_transmit`](Self::take_transmit)
///    gives, count, trace.
/// 3. `NeedFrame`, `Deliver` and `Done` (its frame from [`take_done`](Self::take_done))
///    involve the layer above and come last. Act on them (the layer above may call
///    `handle_frame_ready` meanwhile), then continue
///    with [`load`](Self::load) (after `NeedFrame`, if the layer above gave a frame) or
///    [`resume`](Self::resume) (after `Deliver`, `Done`), and poll again.
///
/// State is private; the outputs are the only effects. Outputs wait in a small reused
/// queue, the frames beside it, so a station allocates nothing per frame.
#[derive(Debug)]
pub struct Station<B> {
    me: NodeId,
    p: MacParams,
    /// Backoff draws (10.3.3).
    rng: Rng,
    contention: Contention,
    recovery: Recovery,
    exchange: Exchange<B>,
    dups: DupCache,
    nav: Nav,
    /// End of our own transmission in progress (or the last one).
    tx_until: Time,
    /// What `resume` continues with.
    resume: Resume,
    /// Outputs of the current input; those before `polled` were handed out.
    out: Vec<MacOutput>,
    polled: usize,
    /// The frame of the `Transmit` output (one per input at most), built when taken.
    to_send: Option<Outgoing>,
}

/// The rest of an input's handling, after the layer above acted on `Deliver`/`Done`.
#[derive(Debug, Default, Clone, Copy)]
struct Resume {
    /// Arm the access timer (after a frame's service ended).
    rearm: bool,
    /// The NAV the received frame sets (10.3.2.4).
    nav_end: Option<Time>,
    /// A reception ended: fail the attempt if its response timeout expired meanwhile.
    check_deferred: bool,
}

impl<B: MacBody> Station<B> {
    /// The station with address `me`; `rng` draws its backoffs.
    pub fn new(me: NodeId, p: MacParams, rng: Rng) -> Station<B> {
        Station {
            me,
            contention: Contention::new(),
            recovery: Recovery::new(&p),
            exchange: Exchange::new(),
            dups: DupCache::default(),
            nav: Nav::default(),
            tx_until: 0,
            resume: Resume::default(),
            out: Vec::with_capacity(8),
            polled: 0,
            to_send: None,
            rng,
            p,
        }
    }

    /// The frame in service (it still counts against the interface queue).
    pub fn in_service(&self) -> Option<&OutFrame<B>> {
        self.exchange.in_service()
    }

    /// The next thing to do, in order (see the call order above).
    pub fn poll_output(&mut self) -> Option<MacOutput> {
        let Some(&o) = self.out.get(self.polled) else {
            self.out.clear();
            self.polled = 0;
            return None;
        };
        self.polled += 1;
        if self.polled == self.out.len() {
            // All handed out: the layer above may call in again (NeedFrame, Deliver, Done).
            self.out.clear();
            self.polled = 0;
        } else {
            debug_assert!(
                !matches!(
                    o,
                    MacOutput::NeedFrame | MacOutput::Deliver(_) | MacOutput::Done(_)
                ),
                "a request to the layer above is the last output"
            );
        }
        Some(o)
    }

    /// Is the access timer armed? Carrier sense turning busy matters to the station only
    /// then (a caller may skip [`handle_medium_busy`](Self::handle_medium_busy) otherwise).
    pub fn contending(&self) -> bool {
        self.contention.armed()
    }

    /// The frame to put on the air, after [`MacOutput::Transmit`].
    pub fn take_transmit(&mut self) -> Frame<B> {
        let t = &self.p.timing;
        match self.to_send.take().expect("a frame to transmit") {
            Outgoing::Data { retry, airtime } => {
                self.exchange.data_frame(self.me, retry, airtime, t)
            }
            Outgoing::Rts { retry, duration } => {
                self.exchange.rts_frame(self.me, retry, duration, t)
            }
            Outgoing::Ack { to } => Frame::ack(self.me, to, t),
            Outgoing::Cts { to, duration } => Frame::cts(self.me, to, duration, t),
        }
    }

    /// The frame whose service ended, after [`MacOutput::Done`].
    pub fn take_done(&mut self) -> OutFrame<B> {
        self.exchange.take()
    }

    /// The layer above has a frame to send. A station with nothing in service and no
    /// backoff running draws a backoff only if the medium is busy (10.3.4.2).
    pub fn handle_frame_ready(&mut self, cx: MacCx) {
        if !self.exchange.idle() || self.contention.armed() {
            return;
        }
        if !self.exchange.has_frame() && !self.contention.running() {
            let busy = self.busy_until(cx) > cx.now || self.nav.is_set(cx.now) || cx.receiving;
            self.contention
                .request(cx.now, busy, &mut self.rng, self.recovery.cw());
        }
        self.rearm(cx);
    }

    /// Carrier sense turned busy: the backoff freezes (10.3.4.3).
    pub fn handle_medium_busy(&mut self, cx: MacCx) {
        if self.contention.armed() {
            self.contention.freeze(cx.now, self.p.timing.slot);
            self.rearm(cx);
        }
    }

    /// A timer scheduled earlier fires.
    pub fn handle_timeout(&mut self, cx: MacCx, timer: MacTimer) {
        match timer {
            MacTimer::Access => self.access(cx),
            MacTimer::ResponseTimeout(a) => match self.exchange.timeout(a, cx.receiving) {
                TimeoutAction::Ignore | TimeoutAction::Defer => {}
                TimeoutAction::Fail => {
                    // The backoff begins at the end of the timeout (10.3.4.3).
                    self.contention.timeout_expired(cx.now);
                    self.fail(cx);
                }
            },
            MacTimer::Sifs(r) => self.respond(cx, r),
        }
    }

    /// Our transmission ended; `response`: it was an ACK or CTS. A group addressed
    /// frame is done when sent (10.3.6).
    pub fn handle_tx_end(&mut self, cx: MacCx, response: bool) {
        if !response && self.exchange.broadcast_sent() {
            self.finish(TxOutcome::Delivered);
            return;
        }
        self.rearm(cx);
    }

    /// A reception ended: a frame received intact, or not.
    pub fn handle_rx_end(&mut self, cx: MacCx, rx: Result<RxHeader, RxError>) {
        match rx {
            Err(RxError::Aborted) => {}
            Err(RxError::Corrupted) => {
                self.nav.rx_failed(cx.now);
                self.handle_medium_busy(cx);
            }
            Ok(h) => {
                let nav_end = (h.rx != self.me && h.rx != BROADCAST).then(|| cx.now + h.duration);
                if self.rx_ok(cx, &h) {
                    self.resume = Resume {
                        nav_end,
                        check_deferred: true,
                        ..self.resume
                    };
                    return;
                }
                self.reserve(cx, nav_end);
            }
        }
        self.check_deferred(cx);
    }

    /// After `NeedFrame`: takes the frame the layer above gave into service and sends it.
    pub fn load(&mut self, cx: MacCx, frame: OutFrame<B>) {
        self.exchange.load(frame);
        self.recovery.new_frame();
        self.send(cx);
    }

    /// Has [`resume`](Self::resume) anything to do? (If not, a caller may skip building
    /// a context for it.)
    pub fn resume_pending(&self) -> bool {
        let r = &self.resume;
        r.rearm || r.nav_end.is_some() || (r.check_deferred && self.exchange.deferred_failure())
    }

    /// After `Deliver` or `Done`: finishes the input that produced it.
    pub fn resume(&mut self, cx: MacCx) {
        let r = std::mem::take(&mut self.resume);
        debug_assert!(
            !r.rearm || !self.exchange.has_frame(),
            "the frame done with was taken (take_done)"
        );
        if r.rearm {
            self.rearm(cx);
        }
        self.reserve(cx, r.nav_end);
        if r.check_deferred {
            self.check_deferred(cx);
        }
    }

    /// Carrier sense including our own transmission (10.3.2.1).
    fn busy_until(&self, cx: MacCx) -> Time {
        cx.cca_until.max(self.tx_until)
    }

    fn schedule(&mut self, at: Time, timer: MacTimer) {
        self.out.push(MacOutput::Schedule { at, timer });
    }

    /// Arms the access timer if the station has something to do (a frame in service or
    /// above, or a post-backoff to count, 10.3.4.3) and it is not armed.
    fn rearm(&mut self, cx: MacCx) {
        let wants = self.exchange.idle()
            && (self.exchange.has_frame() || self.contention.running() || cx.upper_has_frame);
        if self.contention.armed() || !wants {
            return;
        }
        let idle = self
            .contention
            .idle_start(self.busy_until(cx), &self.nav, &self.p.timing);
        if let Some(at) = self.contention.arm(cx.now, idle, self.p.timing.slot) {
            self.schedule(at, MacTimer::Access);
        }
    }

    fn access(&mut self, cx: MacCx) {
        let (due, again) = self.contention.access_due(cx.now);
        if let Some(at) = again {
            self.schedule(at, MacTimer::Access);
        }
        if !due {
            return;
        }
        let idle = self
            .contention
            .idle_start(self.busy_until(cx), &self.nav, &self.p.timing);
        if idle > cx.now {
            // Defensive: the medium has not been idle long enough; wait again.
            self.contention.disarm();
            self.rearm(cx);
            return;
        }
        self.contention.granted();
        if !self.exchange.idle() {
            return;
        }
        if self.exchange.has_frame() {
            self.send(cx);
        } else {
            self.out.push(MacOutput::NeedFrame);
        }
    }

    /// Sends the frame in service (or its RTS).
    fn send(&mut self, cx: MacCx) {
        let frame = self.exchange.first_frame(&self.p);
        self.transmit(cx, frame, false);
        if self.exchange.awaits_response() {
            self.start_timeout();
        }
    }

    fn transmit(&mut self, cx: MacCx, frame: Outgoing, response: bool) {
        self.tx_until = cx.now + frame.airtime(&self.p.timing);
        // Our own transmission makes the medium busy (10.3.2.1).
        self.handle_medium_busy(cx);
        debug_assert!(self.to_send.is_none(), "one transmission per input");
        self.to_send = Some(frame);
        self.out.push(MacOutput::Transmit { response });
    }

    /// CTSTimeout / AckTimeout from the end of our frame (10.3.2.7, 10.3.2.9).
    fn start_timeout(&mut self) {
        let attempt = self.exchange.start_timeout();
        let at = self.tx_until + self.p.timing.response_timeout();
        self.schedule(at, MacTimer::ResponseTimeout(attempt));
    }

    fn respond(&mut self, cx: MacCx, r: SifsResponse) {
        let t = &self.p.timing;
        match r {
            SifsResponse::Ack { to } => self.transmit(cx, Outgoing::Ack { to }, true),
            SifsResponse::Cts { to, duration_ns } => {
                let duration = duration_ns as Time;
                self.transmit(cx, Outgoing::Cts { to, duration }, true);
            }
            SifsResponse::DataAfterCts => {
                let long = self.recovery.long_retries();
                if let Some(data) = self.exchange.data_after_cts(t, long) {
                    self.transmit(cx, data, false);
                    self.start_timeout();
                }
            }
        }
    }

    /// A frame received intact. True if it went to the layer above (`resume` follows).
    fn rx_ok(&mut self, cx: MacCx, h: &RxHeader) -> bool {
        self.nav.rx_ok();
        let to_me = h.rx == self.me;
        if to_me || h.rx == BROADCAST {
            self.out.push(MacOutput::Count(MacCount::Received));
        }
        let sifs_later = cx.now + self.p.timing.sifs;
        match h.kind {
            FrameKind::Ack => {
                if to_me && self.exchange.ack_received() {
                    self.finish(TxOutcome::Delivered);
                    return true;
                }
            }
            FrameKind::Cts => {
                if to_me && self.exchange.cts_received() {
                    self.schedule(sifs_later, MacTimer::Sifs(SifsResponse::DataAfterCts));
                }
            }
            FrameKind::Rts => {
                if to_me {
                    if let Some(cts) = recipient::answer_rts(h, &self.nav, cx.now, &self.p.timing) {
                        self.schedule(sifs_later, MacTimer::Sifs(cts));
                    }
                }
            }
            FrameKind::Data => {
                let addressed = if to_me {
                    // ACK after SIFS whatever the medium and the NAV say (10.3.2.9), even
                    // for a duplicate.
                    self.schedule(sifs_later, MacTimer::Sifs(SifsResponse::Ack { to: h.tx }));
                    if self.dups.is_duplicate(h.tx, h.seq, h.retry) {
                        self.out.push(MacOutput::Count(MacCount::Duplicate));
                        return false;
                    }
                    Addressed::ToMe
                } else if h.rx == BROADCAST {
                    Addressed::Broadcast
                } else {
                    self.out.push(MacOutput::Count(MacCount::Overheard));
                    Addressed::Overheard
                };
                self.out.push(MacOutput::Deliver(addressed));
                return true;
            }
        }
        false
    }

    /// A frame addressed to another station sets the NAV (10.3.2.4).
    fn reserve(&mut self, cx: MacCx, nav_end: Option<Time>) {
        if let Some(end) = nav_end {
            if self.nav.reserve(end) {
                self.handle_medium_busy(cx);
            }
        }
    }

    /// A reception ended after the response timeout expired during it: if it was not
    /// the response, the attempt failed (10.3.2.7, 10.3.2.9).
    fn check_deferred(&mut self, cx: MacCx) {
        if self.exchange.deferred_failure() {
            self.fail(cx);
        }
    }

    /// The attempt got no response: retry with a doubled CW, or give the frame up at the
    /// retry limit (10.3.3, 10.3.4.4). A new backoff is drawn either way.
    fn fail(&mut self, cx: MacCx) {
        let (to, seq) = self.exchange.attempt_of();
        self.out.push(MacOutput::AttemptFailed { to, seq });
        let long = self.exchange.failed(&self.p);
        let verdict = self.recovery.failure(&self.p, long);
        self.contention.draw(&mut self.rng, self.recovery.cw());
        match verdict {
            Verdict::Drop => self.finish(TxOutcome::Failed),
            Verdict::Retry => self.rearm(cx),
        }
    }

    /// The frame's service ends. On success CW goes back to CWmin (10.3.3) and a
    /// backoff follows even with nothing else to send (post-backoff, 10.3.4.3); after a
    /// drop `fail` has drawn it already.
    fn finish(&mut self, outcome: TxOutcome) {
        if outcome == TxOutcome::Delivered {
            self.recovery.success(&self.p);
            self.contention.draw(&mut self.rng, self.recovery.cw());
        }
        // The frame stays in service until the caller takes it (`take_done`).
        self.out.push(MacOutput::Done(outcome));
        self.resume.rearm = true;
    }
}
