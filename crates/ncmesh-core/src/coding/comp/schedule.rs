//! CoMP's scheduling (Gheorghiu et al. §II-D, Alg. 2): which flow sends at a transmission
//! opportunity, and to which downstream neighbour, under the back-pressure condition.

use super::Comp;
use crate::engine::Time;

/// What to do at a transmission opportunity (Alg. 2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Choice {
    /// Flow `f` sends its first combination to its neighbour `c`.
    Send { f: usize, c: usize },
    /// Combinations queued, none may go before this time (an advertisement runs out).
    Hold(Time),
    /// Nothing queued.
    Idle,
}

impl Comp {
    /// Alg. 2: of the flows with a neighbour satisfying the back-pressure condition (own
    /// queue longer than its advertised one), the one with the most packets queued, to
    /// its neighbour with the smallest advertised queue (ties in turn). `now` None: every
    /// advertisement counts (what `poll_at` sees).
    pub(super) fn choose(&self, now: Option<Time>) -> Choice {
        let mut send: Option<(usize, usize, usize)> = None;
        let mut hold = Time::MAX;
        for (fi, f) in self.flows.iter().enumerate() {
            let own = f.owed();
            if own == 0 || send.is_some_and(|s| own <= s.2) {
                continue;
            }
            let best = f.cands.best(now, |_, a| {
                let q = a.map_or(0, |a| a.backlog);
                ((q as usize) < own).then_some(q)
            });
            match best {
                Some(c) => send = Some((fi, c, own)),
                None => {
                    if let Some(t) = f.cands.expiry(now) {
                        hold = hold.min(t);
                    }
                }
            }
        }
        match send {
            Some((f, c, _)) => Choice::Send { f, c },
            None if hold < Time::MAX => Choice::Hold(hold),
            None => Choice::Idle,
        }
    }
}
