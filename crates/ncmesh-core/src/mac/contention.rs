//! Channel access: when the medium has been idle long enough, and the backoff counter
//! with freeze and resume (IEEE 802.11-2016 10.3.2.3, 10.3.3, 10.3.4.2, 10.3.4.3).
//!
//! The backoff needs no per-slot events: while the medium is idle the counter runs
//! from an anchor time (the end of DIFS or EIFS); when the medium turns busy the
//! whole slots elapsed since the anchor are taken off and the rest is frozen
//! (10.3.4.3). One access event is outstanding at a time: re-arming to a later time
//! schedules nothing, the earlier event re-schedules itself when it fires, so no
//! stale events pile up in the queue.

use super::nav::Nav;
use crate::engine::{Rng, Time};
use crate::phy::PhyTiming;

#[derive(Debug)]
pub(super) struct Contention {
    /// Backoff slots still to count down.
    backoff: u32,
    /// A backoff (possibly a post-backoff with nothing queued) is in progress.
    running: bool,
    /// Access timer armed: slots count from `.0`, access at `.1`.
    armed: Option<(Time, Time)>,
    /// Earliest access event known to be scheduled (Time::MAX: none).
    access_event: Time,
    /// When the last response timeout expired: the backoff after a failed attempt
    /// begins at the end of the timeout (10.3.4.3), after DIFS as in ns-3's
    /// ChannelAccessManager.
    timeout_end: Time,
    /// When a frame last arrived to an idle station on an idle medium: as in ns-3, it
    /// still waits DIFS from then (no backoff is drawn, 10.3.4.2).
    access_request: Time,
}

impl Contention {
    pub(super) fn new() -> Contention {
        Contention {
            backoff: 0,
            running: false,
            armed: None,
            access_event: Time::MAX,
            timeout_end: 0,
            access_request: 0,
        }
    }

    /// Is a backoff (or post-backoff) in progress?
    pub(super) fn running(&self) -> bool {
        self.running
    }

    /// Is the access timer armed?
    pub(super) fn armed(&self) -> bool {
        self.armed.is_some()
    }

    /// When the medium will have been idle for DIFS, or EIFS after a failed reception
    /// (10.3.2.3.5, 10.3.2.3.7), given that carrier sense or our own transmission keep
    /// it busy until `busy_until` (10.3.2.1); the NAV and response timeouts count as
    /// busy (10.3.2.4, 10.3.4.3).
    pub(super) fn idle_start(&self, busy_until: Time, nav: &Nav, t: &PhyTiming) -> Time {
        let s = busy_until
            .max(nav.until())
            .max(self.timeout_end)
            .max(self.access_request)
            + t.difs;
        match nav.eifs_end(t.eifs) {
            Some(e) => s.max(e),
            None => s,
        }
    }

    /// A frame arrives to a station with nothing in service and no backoff running
    /// (10.3.4.2): if the medium is busy it draws a backoff; if idle none, but it waits
    /// DIFS from now (as ns-3 does).
    pub(super) fn request(&mut self, now: Time, busy: bool, rng: &mut Rng, cw: u32) {
        if busy {
            self.draw(rng, cw);
        } else {
            self.backoff = 0;
            self.access_request = now;
        }
    }

    /// Draws a new backoff in [0, CW] (10.3.3).
    pub(super) fn draw(&mut self, rng: &mut Rng, cw: u32) {
        self.backoff = rng.below_incl(cw);
        self.running = true;
    }

    /// The response timeout expired at `now`: the next backoff counts from then.
    pub(super) fn timeout_expired(&mut self, now: Time) {
        self.timeout_end = now;
    }

    /// The medium turns busy at `at`: whole slots counted since the anchor are taken
    /// off the backoff; the rest waits (10.3.4.3).
    pub(super) fn freeze(&mut self, at: Time, slot: Time) {
        if let Some((anchor, _)) = self.armed.take() {
            if at > anchor {
                let slots = ((at - anchor) / slot) as u32;
                self.backoff -= slots.min(self.backoff);
            }
        }
    }

    /// Arms the access timer: the backoff counts from `idle_start` (or now if later).
    /// Returns the time of an access event the caller must schedule, or None if an
    /// earlier one is pending already.
    pub(super) fn arm(&mut self, now: Time, idle_start: Time, slot: Time) -> Option<Time> {
        let anchor = idle_start.max(now);
        let at = anchor + self.backoff as Time * slot;
        self.armed = Some((anchor, at));
        self.schedule_if_earlier(at)
    }

    fn schedule_if_earlier(&mut self, at: Time) -> Option<Time> {
        (at < self.access_event).then(|| {
            self.access_event = at;
            at
        })
    }

    /// An access event fires at `now`. `.0`: the backoff is over, the station may
    /// transmit. `.1`: the event re-schedules itself for this time (the timer was
    /// re-armed later meanwhile).
    pub(super) fn access_due(&mut self, now: Time) -> (bool, Option<Time>) {
        if now >= self.access_event {
            self.access_event = Time::MAX;
        }
        match self.armed {
            None => (false, None),
            Some((_, at)) if at <= now => (true, None),
            Some((_, at)) => (false, self.schedule_if_earlier(at)),
        }
    }

    /// Disarms the access timer without counting (the medium was not idle long enough
    /// when it fired).
    pub(super) fn disarm(&mut self) {
        self.armed = None;
    }

    /// Access is granted: the backoff is over.
    pub(super) fn granted(&mut self) {
        self.armed = None;
        self.backoff = 0;
        self.running = false;
    }

    /// Backoff slots still to count (tests).
    #[cfg(test)]
    pub(super) fn slots(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MICROS;
    use crate::scenario::schema::MacCfg;

    #[test]
    fn freeze_subtracts_whole_elapsed_slots_and_resumes() {
        let t = PhyTiming::new(&MacCfg::default());
        let nav = Nav::default();
        let mut c = Contention::new();
        c.backoff = 10;
        // medium idle since 0: DIFS -> anchor at 50 us, access at 50 + 10*20 = 250 us
        let at = c.arm(0, c.idle_start(0, &nav, &t), t.slot);
        assert_eq!(at, Some(250 * MICROS));
        // busy at 125 us: 3 whole slots elapsed (50..110), 7 remain
        c.freeze(125 * MICROS, t.slot);
        assert_eq!(c.backoff, 7);
        assert!(!c.armed());
        // busy until 1000 us: resume at 1050 + 7*20; the access event at 250 us is
        // still pending: nothing new to schedule
        let idle = c.idle_start(1000 * MICROS, &nav, &t);
        assert_eq!(c.arm(130 * MICROS, idle, t.slot), None);
        assert_eq!(c.armed.unwrap().1, (1050 + 140) * MICROS);
        // when it fires it re-schedules itself for the new time
        assert_eq!(
            c.access_due(250 * MICROS),
            (false, Some((1050 + 140) * MICROS))
        );
        // busy again before DIFS elapsed: nothing counted
        c.freeze(1020 * MICROS, t.slot);
        assert_eq!(c.backoff, 7);
    }

    #[test]
    fn idle_start_waits_for_nav_timeout_request_and_eifs() {
        let t = PhyTiming::new(&MacCfg::default());
        let mut nav = Nav::default();
        let mut c = Contention::new();
        nav.rx_failed(1000 * MICROS);
        assert_eq!(c.idle_start(1000 * MICROS, &nav, &t), (1000 + 364) * MICROS);
        nav.reserve(2000 * MICROS);
        assert_eq!(c.idle_start(1000 * MICROS, &nav, &t), 2050 * MICROS);
        c.timeout_expired(3000 * MICROS);
        assert_eq!(c.idle_start(1000 * MICROS, &nav, &t), 3050 * MICROS);
        c.request(
            4000 * MICROS,
            false,
            &mut Rng::stream(1, 0, crate::engine::StreamPurpose::Backoff),
            31,
        );
        assert_eq!(c.idle_start(1000 * MICROS, &nav, &t), 4050 * MICROS);
        assert!(!c.running(), "idle medium: no backoff");
    }
}
