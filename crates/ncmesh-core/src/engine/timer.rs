//! One timer idiom for the state machines the simulator drives: a state machine keeps a
//! deadline (an RTO, a delayed ACK, a pacing gap, a held packet's due time) and the
//! simulator keeps at most one pending event per timer, at the earliest deadline asked
//! for. A deadline that moves later needs no new event: the pending one fires, the state
//! machine sees its deadline has not come, and arms the slot again.

use super::Time;

/// The pending event of one timer, if any.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimerSlot {
    pending: Option<Time>,
}

impl TimerSlot {
    /// Asks for an event at `deadline` (at `now` if it has passed): the time to schedule
    /// one at, or `None` when the pending event comes no later.
    pub fn arm(&mut self, deadline: Time, now: Time) -> Option<Time> {
        if self.pending.is_none_or(|a| deadline < a) {
            self.pending = Some(deadline);
            Some(deadline.max(now))
        } else {
            None
        }
    }

    /// The event scheduled for `now` fired: if it was the pending one, none is pending.
    pub fn fire(&mut self, now: Time) {
        if self.pending.is_some_and(|a| a <= now) {
            self.pending = None;
        }
    }

    /// When the pending event fires, if one is pending.
    pub fn pending(&self) -> Option<Time> {
        self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_event_at_the_earliest_deadline() {
        let mut t = TimerSlot::default();
        assert_eq!(t.arm(50, 10), Some(50));
        // Later deadlines wait for the pending event; earlier ones get their own.
        assert_eq!(t.arm(70, 10), None);
        assert_eq!(t.arm(30, 10), Some(30));
        assert_eq!(t.pending(), Some(30));
    }

    #[test]
    fn a_fired_event_frees_the_slot_and_a_stale_one_does_not() {
        let mut t = TimerSlot::default();
        t.arm(30, 0);
        t.arm(20, 0);
        // The event at 20 fires first and frees the slot ...
        t.fire(20);
        assert_eq!(t.pending(), None);
        assert_eq!(t.arm(40, 20), Some(40));
        // ... the superseded one at 30 does not touch the pending event at 40.
        t.fire(30);
        assert_eq!(t.pending(), Some(40));
    }

    #[test]
    fn a_passed_deadline_fires_now() {
        let mut t = TimerSlot::default();
        assert_eq!(t.arm(5, 9), Some(9));
        t.fire(9);
        assert_eq!(t.pending(), None);
    }
}
