//! Typed timers for a state machine driven by wake-ups (quinn-proto's `TimerTable`): a
//! scheme names its timers with a key type of its own, sets and cancels them, and pops the
//! one that is due when the simulator calls it back.

use super::SchemeCx;
use crate::engine::Time;

/// Something that can be asked for a wake-up call.
pub trait Wake {
    /// Asks for one call back at `at`.
    fn wake_at(&mut self, at: Time);
}

impl Wake for SchemeCx<'_> {
    fn wake_at(&mut self, at: Time) {
        SchemeCx::wake_at(self, at)
    }
}

/// Deadlines by key; each key is set at most once. Each `set` asks for one wake-up at its
/// deadline; at a wake-up the owner pops the earliest due timer (deadline, then the order
/// they were set). A cancelled or moved timer leaves a wake-up that finds nothing due.
#[derive(Debug, Clone)]
pub struct Timers<K> {
    entries: Vec<(Time, u64, K)>,
    seq: u64,
}

impl<K> Default for Timers<K> {
    fn default() -> Self {
        Timers {
            entries: Vec::new(),
            seq: 0,
        }
    }
}

impl<K: Copy + PartialEq> Timers<K> {
    /// Sets timer `key` to fire at `at` (replacing its deadline if it was set).
    pub fn set(&mut self, wake: &mut impl Wake, at: Time, key: K) {
        self.cancel(key);
        self.seq += 1;
        self.entries.push((at, self.seq, key));
        wake.wake_at(at);
    }

    /// Cancels timer `key`; true if it was set.
    pub fn cancel(&mut self, key: K) -> bool {
        match self.entries.iter().position(|e| e.2 == key) {
            Some(i) => {
                self.entries.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// Is timer `key` set?
    pub fn is_set(&self, key: K) -> bool {
        self.entries.iter().any(|e| e.2 == key)
    }

    /// The deadline of timer `key`, if set.
    pub fn deadline(&self, key: K) -> Option<Time> {
        self.entries.iter().find(|e| e.2 == key).map(|e| e.0)
    }

    /// Removes and returns the earliest timer due at `now`.
    pub fn pop_due(&mut self, now: Time) -> Option<K> {
        let i = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.0 <= now)
            .min_by_key(|(_, e)| (e.0, e.1))?
            .0;
        Some(self.entries.swap_remove(i).2)
    }

    /// Timers set.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No timer set?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Wakes(Vec<Time>);
    impl Wake for Wakes {
        fn wake_at(&mut self, at: Time) {
            self.0.push(at);
        }
    }

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum T {
        Ack,
        Retx(u32),
    }

    #[test]
    fn earliest_due_first_then_set_order() {
        let mut t = Timers::default();
        let mut w = Wakes::default();
        t.set(&mut w, 30, T::Retx(1));
        t.set(&mut w, 10, T::Ack);
        t.set(&mut w, 30, T::Retx(2));
        assert_eq!(w.0, vec![30, 10, 30], "one wake-up per set");
        assert_eq!(t.pop_due(5), None);
        assert_eq!(t.pop_due(10), Some(T::Ack));
        assert_eq!(t.pop_due(10), None);
        assert_eq!(t.pop_due(31), Some(T::Retx(1)));
        assert_eq!(t.pop_due(31), Some(T::Retx(2)));
        assert!(t.is_empty());
    }

    #[test]
    fn set_replaces_and_cancel_removes() {
        let mut t = Timers::default();
        let mut w = Wakes::default();
        t.set(&mut w, 50, T::Ack);
        t.set(&mut w, 20, T::Ack);
        assert_eq!(t.len(), 1);
        assert_eq!(t.deadline(T::Ack), Some(20));
        assert_eq!(t.pop_due(50), Some(T::Ack));
        assert_eq!(t.pop_due(50), None, "the wake-up at 50 finds nothing");
        t.set(&mut w, 70, T::Retx(3));
        assert!(t.is_set(T::Retx(3)));
        assert!(t.cancel(T::Retx(3)));
        assert!(!t.cancel(T::Retx(3)));
        assert_eq!(t.pop_due(100), None);
    }
}
