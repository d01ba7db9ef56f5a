//! The DCF state of one node: contention window, backoff counter with freeze and
//! resume, NAV, EIFS, retry counters and duplicate detection (IEEE 802.11-2016 10.3).
//!
//! Backoff is kept without per-slot events: while the medium is idle the counter
//! runs from an anchor time; when the medium turns busy the elapsed whole slots are
//! subtracted and the rest is frozen (10.3.4.3).

use super::frame::{MacBody, OutFrame};
use crate::engine::{Rng, Time};
use crate::net::NodeId;
use crate::phy::PhyTiming;
use crate::scenario::schema::MacCfg;

#[derive(Debug, Clone)]
pub struct MacParams {
    pub timing: PhyTiming,
    pub rts_threshold: u32,
    /// Max transmission attempts for frames not protected by RTS/CTS, and for RTS.
    pub short_attempts: u32,
    /// Max transmission attempts for frames sent after RTS/CTS.
    pub long_attempts: u32,
    /// CW back to CWmin after a drop at the retry limit (802.11); ns-3 keeps it.
    pub cw_reset_after_drop: bool,
}

impl MacParams {
    pub fn new(cfg: &MacCfg) -> MacParams {
        let (s, l) = if cfg.retransmissions {
            (cfg.short_retry_limit, cfg.long_retry_limit)
        } else {
            (1, 1)
        };
        MacParams {
            timing: PhyTiming::new(cfg),
            rts_threshold: cfg.rts_threshold_bytes,
            short_attempts: s,
            long_attempts: l,
            cw_reset_after_drop: cfg.cw_reset_after_drop,
        }
    }
}

/// What the MAC is doing with its current frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxState {
    /// Nothing outstanding (contending or idle).
    Idle,
    /// Our RTS is out; waiting for the CTS.
    WaitCts,
    /// CTS received; the data frame goes out after SIFS.
    DataAfterCts,
    /// Our unicast data frame is out; waiting for the ACK.
    WaitAck,
    /// Our broadcast frame is on the air.
    Broadcasting,
}

/// The frame in service and its retry counters.
#[derive(Debug, Clone)]
pub struct Job<B> {
    pub frame: OutFrame<B>,
    pub seq: u16,
    pub short_retries: u32,
    pub long_retries: u32,
    /// Has this frame been sent at least once (the Retry bit of later copies)?
    pub sent_once: bool,
}

#[derive(Debug)]
pub struct Dcf<B> {
    pub cw: u32,
    /// Backoff slots still to count down.
    pub backoff: u32,
    /// A backoff (possibly a post-backoff with nothing queued) is in progress.
    pub backoff_running: bool,
    /// Access timer armed: slots count from `anchor`, access at `at`.
    pub armed: Option<(Time, Time)>,
    /// Earliest access event known to be scheduled (Time::MAX: none). Re-arming to a
    /// later time schedules nothing: the earlier event re-schedules itself when it
    /// fires, which keeps stale events out of the queue.
    pub access_event: Time,
    pub timeout_gen: u32,
    /// The response timeout expired while a frame was being received: decide when it ends.
    pub timeout_deferred: bool,
    pub nav_until: Time,
    /// When the last response timeout expired: like ns-3's ChannelAccessManager, the
    /// backoff after a failed attempt counts from DIFS after the timeout.
    pub timeout_end: Time,
    /// When a frame last arrived to an idle MAC on an idle medium: as in ns-3, it still
    /// waits DIFS from then (no backoff is drawn, 10.3.4.2).
    pub access_request: Time,
    /// End of the last reception that failed (EIFS applies), until a good one.
    pub rx_error_end: Option<Time>,
    pub state: TxState,
    pub job: Option<Job<B>>,
    next_seq: u16,
    /// Last (transmitter, sequence number) seen, for duplicate detection (10.3.2.11).
    dup_cache: Vec<(NodeId, u16)>,
}

impl<B: MacBody> Dcf<B> {
    pub fn new(p: &MacParams) -> Dcf<B> {
        Dcf {
            cw: p.timing.cw_min,
            backoff: 0,
            backoff_running: false,
            armed: None,
            access_event: Time::MAX,
            timeout_gen: 0,
            timeout_deferred: false,
            nav_until: 0,
            timeout_end: 0,
            access_request: 0,
            rx_error_end: None,
            state: TxState::Idle,
            job: None,
            next_seq: 0,
            dup_cache: Vec::new(),
        }
    }

    /// When the medium will have been idle for DIFS (or EIFS after a failed reception),
    /// given that carrier sense or our own transmission keep it busy until `busy_until`
    /// (802.11-2016 10.3.2.3; NAV and response timeouts count as busy).
    pub fn idle_start(&self, busy_until: Time, p: &MacParams) -> Time {
        let t = &p.timing;
        let mut s = busy_until
            .max(self.nav_until)
            .max(self.timeout_end)
            .max(self.access_request)
            + t.difs;
        if let Some(e) = self.rx_error_end {
            s = s.max(e + t.eifs);
        }
        s
    }

    /// The medium turns busy at `at`; `idle_start` is what it was before. Whole slots
    /// counted since the anchor are taken off the backoff; the rest waits.
    pub fn freeze(&mut self, at: Time, p: &MacParams) {
        if let Some((anchor, _)) = self.armed.take() {
            if at > anchor {
                let slots = ((at - anchor) / p.timing.slot) as u32;
                self.backoff -= slots.min(self.backoff);
            }
        }
    }

    /// Arms the access timer. Returns the time of an access event the caller must
    /// schedule, or None if an earlier one is pending already.
    pub fn arm(&mut self, now: Time, idle_start: Time, p: &MacParams) -> Option<Time> {
        let anchor = idle_start.max(now);
        let at = anchor + self.backoff as Time * p.timing.slot;
        self.armed = Some((anchor, at));
        self.schedule_if_earlier(at)
    }

    fn schedule_if_earlier(&mut self, at: Time) -> Option<Time> {
        (at < self.access_event).then(|| {
            self.access_event = at;
            at
        })
    }

    /// An access event fires at `now`. True: the backoff is over, the node may
    /// transmit. False: nothing to do now (the event may have re-scheduled itself:
    /// see the returned time in `reschedule`).
    pub fn access_due(&mut self, now: Time) -> (bool, Option<Time>) {
        if now >= self.access_event {
            self.access_event = Time::MAX;
        }
        match self.armed {
            None => (false, None),
            Some((_, at)) if at <= now => (true, None),
            Some((_, at)) => (false, self.schedule_if_earlier(at)),
        }
    }

    /// Draws a new backoff in [0, CW] (10.3.3).
    pub fn start_backoff(&mut self, rng: &mut Rng) {
        self.backoff = rng.below_incl(self.cw);
        self.backoff_running = true;
    }

    /// Successful exchange (or a broadcast sent): CW back to CWmin, post-backoff.
    pub fn on_success(&mut self, rng: &mut Rng, p: &MacParams) {
        self.cw = p.timing.cw_min;
        self.start_backoff(rng);
    }

    /// Failed attempt: doubles CW (up to CWmax) and counts a retry. Returns true when
    /// the frame must be dropped (attempts exhausted); then CW is reset (10.3.3) unless
    /// `cw_reset_after_drop` is off.
    pub fn on_failure(&mut self, rng: &mut Rng, p: &MacParams, long: bool) -> bool {
        let job = self
            .job
            .as_mut()
            .expect("failure without a frame in service");
        let (count, limit) = if long {
            job.long_retries += 1;
            (job.long_retries, p.long_attempts)
        } else {
            job.short_retries += 1;
            (job.short_retries, p.short_attempts)
        };
        let give_up = count >= limit;
        if give_up {
            if p.cw_reset_after_drop {
                self.cw = p.timing.cw_min;
            }
        } else {
            self.cw = (2 * (self.cw + 1) - 1).min(p.timing.cw_max);
        }
        self.start_backoff(rng);
        give_up
    }

    /// Takes a new frame into service.
    pub fn load(&mut self, frame: OutFrame<B>) {
        let seq = self.next_seq;
        self.next_seq = (self.next_seq + 1) & 0x0FFF;
        self.job = Some(Job {
            frame,
            seq,
            short_retries: 0,
            long_retries: 0,
            sent_once: false,
        });
    }

    /// Records (tx, seq) and tells whether it repeats the last frame from tx (a
    /// retransmission whose ACK was lost).
    pub fn is_duplicate(&mut self, tx: NodeId, seq: u16, retry: bool) -> bool {
        match self.dup_cache.iter_mut().find(|(n, _)| *n == tx) {
            Some(e) => {
                let dup = retry && e.1 == seq;
                e.1 = seq;
                dup
            }
            None => {
                self.dup_cache.push((tx, seq));
                false
            }
        }
    }

    /// Does the frame in service need RTS/CTS?
    pub fn needs_rts(&self, p: &MacParams) -> bool {
        self.job.as_ref().is_some_and(|j| {
            j.frame.mac_rx != crate::net::BROADCAST && j.frame.mpdu_bytes() > p.rts_threshold
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{StreamPurpose, MICROS};

    fn params() -> MacParams {
        MacParams::new(&MacCfg::default())
    }

    #[test]
    fn freeze_subtracts_whole_elapsed_slots_and_resumes() {
        let p = params();
        let mut d: Dcf<Bytes> = Dcf::new(&p);
        d.backoff = 10;
        // medium idle since 0: DIFS -> anchor at 50 us, access at 50 + 10*20 = 250 us
        let at = d.arm(0, d.idle_start(0, &p), &p);
        assert_eq!(at, Some(250 * MICROS));
        // busy at 125 us: 3 whole slots elapsed (50..110), 7 remain
        d.freeze(125 * MICROS, &p);
        assert_eq!(d.backoff, 7);
        assert!(d.armed.is_none());
        // busy until 1000 us: resume at 1050 + 7*20
        // an access event at 250 us is still pending: nothing new to schedule
        assert_eq!(
            d.arm(130 * MICROS, d.idle_start(1000 * MICROS, &p), &p),
            None
        );
        assert_eq!(d.armed.unwrap().1, (1050 + 140) * MICROS);
        // when it fires it re-schedules itself for the new time
        assert_eq!(
            d.access_due(250 * MICROS),
            (false, Some((1050 + 140) * MICROS))
        );
        // busy again before DIFS elapsed: nothing counted
        d.freeze(1020 * MICROS, &p);
        assert_eq!(d.backoff, 7);
    }

    #[test]
    fn eifs_after_failed_reception() {
        let p = params();
        let mut d: Dcf<Bytes> = Dcf::new(&p);
        d.rx_error_end = Some(1000 * MICROS);
        assert_eq!(d.idle_start(1000 * MICROS, &p), (1000 + 364) * MICROS);
        d.nav_until = 2000 * MICROS;
        assert_eq!(d.idle_start(1000 * MICROS, &p), 2050 * MICROS);
    }

    #[test]
    fn contention_window_doubles_and_resets() {
        let p = params();
        let mut d: Dcf<Bytes> = Dcf::new(&p);
        let mut rng = Rng::stream(1, 0, StreamPurpose::Backoff);
        d.load(OutFrame {
            mac_rx: 1,
            body: empty_body(),
        });
        let mut cws = vec![d.cw];
        for attempt in 1..7 {
            assert!(
                !d.on_failure(&mut rng, &p, false),
                "attempt {attempt} is not the last"
            );
            cws.push(d.cw);
            assert!(d.backoff <= d.cw);
        }
        assert_eq!(cws, vec![31, 63, 127, 255, 511, 1023, 1023]);
        assert!(
            d.on_failure(&mut rng, &p, false),
            "7th failed attempt drops the frame"
        );
        assert_eq!(d.cw, 31);
        // ns-3 3.44's behaviour: the CW stays where it was after the drop
        let keep = MacParams {
            cw_reset_after_drop: false,
            ..p.clone()
        };
        let mut d: Dcf<Bytes> = Dcf::new(&keep);
        d.load(OutFrame {
            mac_rx: 1,
            body: empty_body(),
        });
        for _ in 0..6 {
            d.on_failure(&mut rng, &keep, false);
        }
        assert!(d.on_failure(&mut rng, &keep, false));
        assert_eq!(d.cw, 1023);
    }

    #[derive(Debug, Clone)]
    struct Bytes(u32);
    impl MacBody for Bytes {
        fn msdu_bytes(&self) -> u32 {
            self.0
        }
    }

    fn empty_body() -> Bytes {
        Bytes(100)
    }

    #[test]
    fn duplicates_need_retry_bit_and_same_seq() {
        let p = params();
        let mut d: Dcf<Bytes> = Dcf::new(&p);
        assert!(!d.is_duplicate(3, 5, false));
        assert!(d.is_duplicate(3, 5, true));
        assert!(!d.is_duplicate(3, 6, true));
        assert!(!d.is_duplicate(4, 6, true), "other transmitter");
    }
}
