//! ComboCoding's loss adaptation (Chen et al., "Loss adaptation algorithm", Eq. 3-5): a
//! node counts the combinations of each direction it receives per generation (N) and
//! writes into the packets it sends the other way the count of a generation it has
//! closed; a node counts the combinations it puts on the air per generation (M) and, for
//! each generation reported, takes the instantaneous loss (M − N) / M, smooths it with an
//! exponential moving average (α = 1/6) and sets its redundancy to (K − 1) + 1 / (1 − P̄)
//! (K = 1.4).
//!
//! Three readings of the paper's counts, each measured on its 54 Mbit/s string or on two
//! such paths without any loss:
//! - The paper carries the count of the current generation. Read at the sender, that count
//!   lags by the combinations still in flight when the reports stop (a count is sampled
//!   only when a packet goes the other way): it estimated 17-34% (real: about 4%), which
//!   raised the redundancy for nothing. Here a count is reported once it is closed.
//! - A count is closed `lag` generations later (`scheme.pipeline.report_lag`, 1: at the
//!   next generation's first combination). That is exact where nothing overtakes: a FIFO,
//!   or ComboCoding's network-layer XOR buffer (on two paths without loss the relays read
//!   0.1% and 0%). Under PiggyCode's interface-queue machinery coded pairs go towards the
//!   head of the queue, generations overtake each other and lag 1 read 8.5% and 54% there;
//!   about 5% of the combinations come two generations late and 0.2% three or more, so
//!   that reading wants a lag of 3.
//! - M counted when a combination is queued reads the node's own queue drops as link
//!   loss; the redundancy rises and the queue overflows more (the relays of two paths
//!   dropped 5,774 and 1,049 packets, and one read 77%). M counts what the node puts on
//!   the air (a MAC retry is the same combination); what the MAC then gives up on is
//!   link loss.
//!
//! The paper estimates the DATA direction only and gives the ACK flow the same
//! redundancy "due to symmetric links"; here each direction estimates its own outgoing
//! link from the reports carried the other way, which is the same on symmetric links and
//! gives the TCP receiver (which sends ACKs only) an estimate of its own.
//!
//! Eq. 3 is written for a single path. Over several paths (`routing.paths`), a node that
//! spreads a direction over several next hops hears a report from each: N is the sum of
//! their counts of a generation (each counts only what it received from this node), taken
//! when every current next hop has reported it, or, when one stays silent (its link
//! broken), once another has moved two generations on; the silent one counts as having
//! received nothing, unless it has already reported a later generation (then it only
//! skipped this one's count, and the generation is closed without a sample). The price: a
//! live next hop that sends nothing back while another completes two generations reads as
//! dead for them. A generation no next hop reported is never sampled. On a single path
//! this is the paper's rule unchanged.

use super::header::Report;
use smallvec::SmallVec;
use std::collections::VecDeque;

/// A flow direction: (flow, node that originates its packets).
pub(super) type Dir = (u32, u32);

/// The highest loss the estimate may reach (redundancy stays finite: 1/(1 − 0.9) = 10).
const MAX_LOSS: f64 = 0.9;
/// Generations a report may lag behind another next hop's before its absence counts as
/// nothing received.
const SILENT_AFTER: u32 = 2;
/// Generations after which an upstream neighbour no longer heard drops out of the reports.
const FORGET_AFTER: u32 = 4;
/// Generations of sent counts kept.
const KEPT: usize = 16;

/// One generation this node sent of a direction, and what its next hops reported of it.
#[derive(Debug)]
struct Sent {
    /// The generation.
    gen: u32,
    /// Combinations sent (M).
    m: u32,
    /// Sum of the counts reported so far (N).
    n: u32,
    /// The next hops that reported it, with the count each reported last.
    reporters: SmallVec<[(u32, u32); 2]>,
    /// Already taken into the average.
    done: bool,
}

impl Sent {
    /// The record of generation `gen` at its first combination.
    fn first(gen: u32) -> Sent {
        Sent {
            gen,
            m: 1,
            n: 0,
            reporters: SmallVec::new(),
            done: false,
        }
    }
}

/// What this node sent of one direction, and what its next hops reported receiving.
#[derive(Debug, Default)]
struct Outgoing {
    /// Newest last.
    sent: VecDeque<Sent>,
    /// Per next hop: the newest generation it has reported.
    last: SmallVec<[(u32, u32); 2]>,
    /// Smoothed loss P̄.
    loss: f64,
}

/// Combinations of one direction received from one upstream neighbour, per generation,
/// from the one last reported on (oldest first). At most `lag` + 2 entries (a push before
/// the drain), so up to the largest lag allowed (4) they stay inline.
#[derive(Debug, Default)]
struct Received {
    gens: SmallVec<[(u32, u32); 6]>,
}

impl Received {
    /// A combination of generation `gen` arrived; `lag` as in `LossEstimator::new`.
    fn add(&mut self, gen: u32, lag: u32) {
        let newest = self.gens.last().map_or(0, |e| e.0);
        if !self.gens.is_empty() && gen + lag <= newest {
            // Closed: reported as it stands (or too old to be reported at all).
            return;
        }
        if let Some(e) = self.gens.iter_mut().find(|e| e.0 == gen) {
            e.1 += 1;
        } else if self.gens.is_empty() || gen > newest {
            self.gens.push((gen, 1));
            // Keep the generation now reported and the newer ones still counting.
            if let Some(i) = self.gens.iter().rposition(|e| e.0 + lag <= gen) {
                self.gens.drain(..i);
            }
        } else {
            // A straggler of a generation still counting, the first of it from here.
            let at = self
                .gens
                .iter()
                .position(|e| e.0 > gen)
                .unwrap_or(self.gens.len());
            self.gens.insert(at, (gen, 1));
        }
    }

    /// What is reported: the newest generation `lag` or more behind the newest heard, and
    /// its count (the first entry, once there is one: `add` keeps nothing older); with
    /// `current`, the newest generation and its count so far (the paper's "current
    /// generation").
    fn reported(&self, lag: u32, current: bool) -> Option<(u32, u32)> {
        let newest = self.gens.last()?.0;
        if current {
            return self.gens.last().copied();
        }
        self.gens.first().copied().filter(|e| e.0 + lag <= newest)
    }
}

/// Per-node loss estimates of the directions it sends, and counts of those it receives.
#[derive(Debug)]
pub(super) struct LossEstimator {
    alpha: f64,
    base: f64,
    out: Vec<(Dir, Outgoing)>,
    /// Generations a count waits for stragglers before it is reported.
    lag: u32,
    /// Eq. 3 on every report, of the current generation's count so far
    /// (`Estimate::PerReport`), instead of once per closed count.
    per_report: bool,
    /// Per received direction and upstream neighbour: its counts per generation.
    received: Vec<((Dir, u32), Received)>,
    /// EWMA updates made.
    pub(super) updates: u64,
}

impl LossEstimator {
    /// α of Eq. 4 and K of Eq. 5; a count of a generation is closed and reported once a
    /// generation `lag` (≥ 1) newer has arrived from the same neighbour, and counts what
    /// arrived of it until then; with `per_report`, every packet carries the newest
    /// generation's count so far and every report is a sample of Eq. 3.
    pub(super) fn new(alpha: f64, base: f64, lag: u32, per_report: bool) -> LossEstimator {
        LossEstimator {
            alpha,
            base,
            lag,
            per_report,
            out: Vec::new(),
            received: Vec::new(),
            updates: 0,
        }
    }

    fn outgoing(&mut self, d: Dir) -> &mut Outgoing {
        super::entry(&mut self.out, d)
    }

    /// This node puts a combination of generation `gen` of direction `d` on the air (M).
    pub(super) fn sent(&mut self, d: Dir, gen: u32) {
        let o = self.outgoing(d);
        match o.sent.back_mut() {
            Some(e) if e.gen == gen => e.m += 1,
            Some(e) if e.gen > gen => match o.sent.iter().position(|e| e.gen >= gen) {
                Some(i) if o.sent[i].gen == gen => o.sent[i].m += 1,
                // The first of an older generation (the queue below reorders): in its
                // place, unless it is older than all kept.
                Some(i) if i > 0 || o.sent.len() < KEPT => o.sent.insert(i, Sent::first(gen)),
                _ => {}
            },
            _ => o.sent.push_back(Sent::first(gen)),
        }
        if o.sent.len() > KEPT {
            o.sent.pop_front();
        }
    }

    /// This node received a combination of generation `gen` of direction `d` from its
    /// neighbour `from` (N).
    pub(super) fn received(&mut self, d: Dir, from: u32, gen: u32) {
        let lag = self.lag;
        super::entry(&mut self.received, (d, from)).add(gen, lag);
    }

    /// Next hop `from` reported `r` on direction `about`, which this node sends to it;
    /// `next_hops` gives the next hops this node spreads `about` over now (asked only for a
    /// new report). Eq. 3 and 4 for each generation whose counts are complete.
    pub(super) fn reported(
        &mut self,
        about: Dir,
        from: u32,
        r: Report,
        next_hops: impl FnOnce() -> SmallVec<[u32; 2]>,
    ) {
        let (alpha, per_report) = (self.alpha, self.per_report);
        let o = super::entry(&mut self.out, about);
        match o.last.iter_mut().find(|e| e.0 == from) {
            // An older generation's report (overtaken), or a closed count again.
            Some(e) if r.gen < e.1 || (r.gen == e.1 && !per_report) => return,
            Some(e) => e.1 = r.gen,
            None => o.last.push((from, r.gen)),
        }
        let hops = next_hops();
        let mut updates = 0;
        if let Some(s) = o.sent.iter_mut().find(|s| s.gen == r.gen && !s.done) {
            let count = u32::from(r.count);
            match s.reporters.iter_mut().find(|e| e.0 == from) {
                // A closed count is final: its first report is taken.
                None => {
                    s.reporters.push((from, count));
                    s.n += count;
                }
                // A current count only grows: the newest replaces the one before (a
                // smaller one was overtaken by it).
                Some(e) if per_report && count >= e.1 => {
                    s.n = s.n - e.1 + count;
                    e.1 = count;
                }
                Some(_) if per_report => return,
                Some(_) => {}
            }
            if hops.iter().all(|h| s.reporters.iter().any(|e| e.0 == *h)) {
                updates += if per_report {
                    sample(&mut o.loss, alpha, s)
                } else {
                    average(&mut o.loss, alpha, s)
                };
            }
        }
        // A generation another next hop has passed by SILENT_AFTER: a next hop that never
        // reported as far counts as having received none of it (its link is gone); one that
        // reported a later generation only skipped this one's count (it sent nothing back
        // in time), and the generation is closed without a sample, as on a single path.
        for s in o.sent.iter_mut() {
            if s.done || s.reporters.is_empty() || s.gen + SILENT_AFTER > r.gen {
                continue;
            }
            let skipped = hops.iter().any(|h| {
                !s.reporters.iter().any(|e| e.0 == *h)
                    && o.last.iter().any(|e| e.0 == *h && e.1 >= s.gen)
            });
            if skipped {
                s.done = true;
            } else {
                updates += average(&mut o.loss, alpha, s);
            }
        }
        self.updates += updates;
    }

    /// The counts to report for direction `d` (received here): per upstream neighbour
    /// heard lately, the newest generation it has closed and how many of its combinations
    /// arrived from it; and whether they must name their neighbour (more than one
    /// upstream neighbour was ever heard).
    pub(super) fn report(&self, d: Dir) -> (SmallVec<[Report; 2]>, bool) {
        let (lag, current) = (self.lag, self.per_report);
        let mine = || self.received.iter().filter(|e| e.0 .0 == d);
        let newest = mine()
            .filter_map(|e| e.1.reported(lag, current))
            .map(|(g, _)| g)
            .max();
        let reports = mine()
            .filter_map(|((_, to), r)| {
                let (gen, n) = r.reported(lag, current)?;
                (gen + FORGET_AFTER >= newest?).then_some(Report {
                    to: *to,
                    gen,
                    count: n.min(u32::from(u16::MAX)) as u16,
                })
            })
            .collect();
        (reports, mine().count() > 1)
    }

    /// Eq. 5: the redundancy for direction `d` on this node's outgoing links.
    pub(super) fn redundancy(&self, d: Dir) -> f64 {
        (self.base - 1.0) + 1.0 / (1.0 - self.loss(d))
    }

    /// The smoothed loss P̄ of direction `d`'s outgoing links (0 before any report).
    pub(super) fn loss(&self, d: Dir) -> f64 {
        self.out
            .iter()
            .find(|e| e.0 == d)
            .map_or(0.0, |e| e.1.loss.min(MAX_LOSS))
    }

    /// The highest smoothed loss of any direction this node sends.
    pub(super) fn max_loss(&self) -> f64 {
        self.out
            .iter()
            .map(|e| e.1.loss.min(MAX_LOSS))
            .fold(0.0, f64::max)
    }
}

/// Eq. 3 and 4 for generation `s`: its instantaneous loss (M − N) / M into the average,
/// once (the generation is done). Returns the number of updates made (1: a record starts
/// at its first combination, so M ≥ 1).
fn average(loss: &mut f64, alpha: f64, s: &mut Sent) -> u64 {
    s.done = true;
    sample(loss, alpha, s)
}

/// Eq. 3 and 4 on the counts as they stand (M so far, the current N), the generation left
/// open for the next report.
fn sample(loss: &mut f64, alpha: f64, s: &Sent) -> u64 {
    let p0 = (f64::from(s.m) - f64::from(s.n)).max(0.0) / f64::from(s.m);
    *loss += alpha * (p0 - *loss);
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: Dir = (0, 0); // DATA, sent by this node
    const A: Dir = (0, 3); // ACKs, received by this node
    const NEXT: u32 = 1; // the next hop (single path)

    fn rep(gen: u32, count: u16) -> Option<Report> {
        Some(Report { to: 0, gen, count })
    }

    /// An ACK-direction combination of generation `gen` from `from`, with its report;
    /// this node's next hops for the DATA direction are `hops`.
    fn ack(e: &mut LossEstimator, from: u32, gen: u32, r: Option<Report>, hops: &[u32]) {
        e.received(A, from, gen);
        if let Some(r) = r {
            e.reported(D, from, r, || hops.iter().copied().collect());
        }
    }

    fn counts(v: (SmallVec<[Report; 2]>, bool)) -> Vec<(u32, u32, u16)> {
        v.0.iter().map(|r| (r.to, r.gen, r.count)).collect()
    }

    /// A node sends 20 combinations per generation to its next hop, which reports its
    /// count on a packet back after each one it receives; from generation 10 on, 2 of
    /// every 5 are lost. The estimate after each generation.
    fn step_in_loss(per_report: bool, lag: u32) -> Vec<f64> {
        let mut me = LossEstimator::new(1.0 / 6.0, 1.4, lag, per_report);
        let mut next = LossEstimator::new(1.0 / 6.0, 1.4, lag, per_report);
        let mut after = Vec::new();
        for gen in 0..20u32 {
            for i in 0..20u32 {
                me.sent(D, gen);
                if gen < 10 || i % 5 >= 2 {
                    next.received(D, 0, gen);
                }
                for r in next.report(D).0 {
                    me.reported(D, NEXT, r, || [NEXT].into_iter().collect());
                }
            }
            after.push(me.loss(D));
        }
        after
    }

    /// Eq. 3 on every report (`Estimate::PerReport`) follows a step in loss within a
    /// generation or two; on counts closed three generations late (the default) it has
    /// not begun to move two generations after the step.
    #[test]
    fn the_per_report_estimate_follows_a_step_in_loss_within_a_few_generations() {
        let fast = step_in_loss(true, 3);
        let closed = step_in_loss(false, 3);
        assert!(
            fast[9] < 0.01 && closed[9] < 0.01,
            "no loss, no estimate: {fast:?}"
        );
        assert!(
            fast[11] > 0.25,
            "two generations after the step: {:.3}",
            fast[11]
        );
        assert!(
            closed[11] < 0.01,
            "closed counts of generation 10 not back yet: {:.3}",
            closed[11]
        );
        // Ten generations on, the per-report estimate is at the loss; the closed one has
        // had six samples, α = 1/6 each: 0.4 (1 − (5/6)^6) = 0.27.
        assert!((fast[19] - 0.4).abs() < 0.1, "{:.3}", fast[19]);
        assert!((closed[19] - 0.27).abs() < 0.03, "{:.3}", closed[19]);
    }

    #[test]
    fn the_estimate_follows_eq_3_to_5() {
        let mut e = LossEstimator::new(1.0 / 6.0, 1.4, 1, false);
        assert!((e.redundancy(D) - 1.4).abs() < 1e-12, "R(0) = K");
        // Generation 0: 20 sent; the next hop reports 16 received once it closed it (lag 1).
        for _ in 0..20 {
            e.sent(D, 0);
        }
        ack(&mut e, NEXT, 0, None, &[NEXT]);
        assert_eq!(e.updates, 0);
        ack(&mut e, NEXT, 1, rep(0, 16), &[NEXT]);
        assert_eq!(e.updates, 1);
        ack(&mut e, NEXT, 1, rep(0, 16), &[NEXT]);
        assert_eq!(e.updates, 1, "a generation counts once");
        // P0 = (20 - 16) / 20 = 0.2; P̄ = 0 + (0.2 - 0) / 6.
        let p = 0.2 / 6.0;
        assert!((e.loss(D) - p).abs() < 1e-12);
        assert!((e.redundancy(D) - (0.4 + 1.0 / (1.0 - p))).abs() < 1e-12);
        // What this node reports of the ACK direction: the newest generation closed (lag 1).
        assert_eq!(counts(e.report(A)), [(NEXT, 0, 1)]);
        ack(&mut e, NEXT, 2, None, &[NEXT]);
        assert_eq!(counts(e.report(A)), [(NEXT, 1, 2)]);
    }

    #[test]
    fn a_steady_loss_is_reached_and_a_stale_report_ignored() {
        let mut e = LossEstimator::new(1.0 / 6.0, 1.4, 1, false);
        for g in 0..60u32 {
            for _ in 0..20 {
                e.sent(D, g);
            }
            // 40% of each generation lost; an older report arriving late changes nothing.
            ack(&mut e, NEXT, g, rep(g, 12), &[NEXT]);
            ack(&mut e, NEXT, g, rep(g.saturating_sub(1), 2), &[NEXT]);
        }
        assert!((e.loss(D) - 0.4).abs() < 0.01, "{}", e.loss(D));
        assert!((e.redundancy(D) - (0.4 + 1.0 / 0.6)).abs() < 0.05);
    }

    #[test]
    fn the_estimate_converges_to_a_random_link_loss() {
        use crate::engine::{Rng, StreamPurpose};
        // Generations of 20 combinations each lost with probability p; the next hop's
        // count is final once it reports the next generation.
        for p in [0.1, 0.3, 0.5] {
            let mut rng = Rng::stream(9, 0, StreamPurpose::FlowCoding);
            let mut e = LossEstimator::new(1.0 / 6.0, 1.4, 1, false);
            let mut tail = Vec::new();
            for g in 0..400u32 {
                let mut n = 0u16;
                for _ in 0..20 {
                    e.sent(D, g);
                    n += u16::from(!rng.chance(p));
                }
                ack(&mut e, NEXT, g, rep(g, n), &[NEXT]);
                if g >= 100 {
                    tail.push(e.loss(D));
                }
            }
            let mean = tail.iter().sum::<f64>() / tail.len() as f64;
            assert!((mean - p).abs() < 0.01, "p = {p}: mean estimate {mean}");
            assert!(
                tail.iter().all(|&x| (x - p).abs() < 0.12),
                "p = {p}: an estimate strays"
            );
        }
    }

    #[test]
    fn two_next_hops_sum_their_counts_and_a_silent_one_counts_as_loss() {
        // Generations of 20 spread over next hops 1 and 2 (10 each), 20% lost on each
        // link: each reports 8, and the sum gives 20%, not the 60% one report alone says.
        let mut e = LossEstimator::new(1.0 / 6.0, 1.4, 1, false);
        for g in 0..80u32 {
            for _ in 0..20 {
                e.sent(D, g);
            }
            ack(&mut e, 1, g + 1, rep(g, 8), &[1, 2]);
            if g == 0 {
                assert_eq!(e.updates, 0, "waits for the other next hop");
            }
            ack(&mut e, 2, g + 1, rep(g, 8), &[1, 2]);
        }
        assert_eq!(e.updates, 80);
        assert!((e.loss(D) - 0.2).abs() < 0.01, "{}", e.loss(D));
        // Next hop 2's link breaks: its reports stop. Each generation is taken once next
        // hop 1 is two generations on, with 10 of 20 received: the estimate goes to 50%.
        // (A single path's rule: no next hop 2, every report complete at once.)
        for g in 80..200u32 {
            for _ in 0..20 {
                e.sent(D, g);
            }
            ack(&mut e, 1, g + 1, rep(g, 10), &[1, 2]);
        }
        assert_eq!(e.updates, 80 + 118, "all but the last two generations");
        assert!((e.loss(D) - 0.5).abs() < 0.01, "{}", e.loss(D));
    }

    #[test]
    fn reports_go_to_each_upstream_neighbour_heard_lately() {
        let mut e = LossEstimator::new(1.0 / 6.0, 1.4, 1, false);
        // ACK-direction combinations (this node is their destination's side) from
        // neighbours 5 and 6: generation 0 closes at each when generation 1 starts (lag 1).
        for (from, n) in [(5, 3), (6, 4)] {
            for _ in 0..n {
                e.received(A, from, 0);
            }
            e.received(A, from, 1);
        }
        assert_eq!(counts(e.report(A)), [(5, 0, 3), (6, 0, 4)]);
        assert!(e.report(A).1, "two upstream neighbours: addressed");
        // Neighbour 6 falls silent; 5 goes on: 6 drops out once 5 is 5 generations on.
        for g in 2..=5 {
            e.received(A, 5, g);
        }
        assert_eq!(e.report(A).0.len(), 2);
        e.received(A, 5, 6);
        assert_eq!(counts(e.report(A)), [(5, 5, 1)]);
        assert!(e.report(A).1, "still addressed: 6 was heard");
    }

    #[test]
    fn a_next_hop_that_skipped_a_count_is_not_taken_for_a_dead_one() {
        let mut e = LossEstimator::new(1.0 / 6.0, 1.4, 1, false);
        for g in 0..4u32 {
            for _ in 0..20 {
                e.sent(D, g);
            }
        }
        // Next hop 2 reports generation 0, then skips 1 (it sent nothing back while 1 was
        // the newest it had closed) and reports 2; next hop 1 reports every generation.
        ack(&mut e, 1, 1, rep(0, 10), &[1, 2]);
        ack(&mut e, 2, 1, rep(0, 10), &[1, 2]);
        assert_eq!(e.updates, 1);
        ack(&mut e, 1, 2, rep(1, 10), &[1, 2]);
        ack(&mut e, 2, 3, rep(2, 10), &[1, 2]);
        ack(&mut e, 1, 3, rep(2, 10), &[1, 2]);
        ack(&mut e, 1, 4, rep(3, 10), &[1, 2]);
        assert_eq!(
            e.updates, 2,
            "generation 1 closed without a sample, 2 averaged"
        );
        assert!(e.loss(D).abs() < 1e-12, "no loss read: {}", e.loss(D));
    }

    #[test]
    fn a_count_waits_for_the_stragglers_of_its_generation() {
        // The queue below reorders: 3 combinations of generation 0 arrive after the first
        // of generation 1. With a lag of 2 they count; with 1 the count was already sent.
        let arrivals = [(0, 10), (1, 5), (0, 3), (1, 9)];
        for (lag, reported) in [(1, 10), (2, 13)] {
            let mut e = LossEstimator::new(1.0 / 6.0, 1.4, lag, false);
            let mut first = None;
            for (g, n) in arrivals {
                for _ in 0..n {
                    e.received(A, NEXT, g);
                    first = first.or(counts(e.report(A)).first().copied());
                }
            }
            e.received(A, NEXT, 2);
            first = first.or(counts(e.report(A)).first().copied());
            assert_eq!(first, Some((NEXT, 0, reported)), "lag {lag}");
        }
        // Lag 2: generation 1 is reported once 3 starts; a combination of 0 then is too
        // late to count anywhere, one of 2 (still counting) finds its place.
        let mut e = LossEstimator::new(1.0 / 6.0, 1.4, 2, false);
        for (g, n) in arrivals {
            for _ in 0..n {
                e.received(A, NEXT, g);
            }
        }
        e.received(A, NEXT, 3);
        assert_eq!(counts(e.report(A)), [(NEXT, 1, 14)]);
        e.received(A, NEXT, 0);
        e.received(A, NEXT, 2);
        e.received(A, NEXT, 4);
        assert_eq!(counts(e.report(A)), [(NEXT, 2, 1)]);
        e.received(A, NEXT, 5);
        assert_eq!(counts(e.report(A)), [(NEXT, 3, 1)]);
    }

    #[test]
    fn combinations_sent_out_of_order_count_in_their_own_generation() {
        // Generation 1 goes on the air before the rest of 0 (a coded pair jumped the
        // queue): M of 0 is 4 + 6, M of 1 is 5.
        let mut e = LossEstimator::new(1.0, 1.4, 1, false);
        let sends = [(0, 4), (1, 5), (0, 6)];
        for (g, n) in sends {
            for _ in 0..n {
                e.sent(D, g);
            }
        }
        ack(&mut e, NEXT, 2, rep(0, 5), &[NEXT]);
        assert!((e.loss(D) - 0.5).abs() < 1e-12, "{}", e.loss(D));
        ack(&mut e, NEXT, 2, rep(1, 5), &[NEXT]);
        assert!(e.loss(D).abs() < 1e-12, "{}", e.loss(D));
        // The first combination of a generation older than any kept starts a record, at
        // the front or between two others.
        let mut e = LossEstimator::new(1.0, 1.4, 1, false);
        for g in [3, 1, 1, 5, 4, 4, 4, 4] {
            e.sent(D, g);
        }
        ack(&mut e, NEXT, 2, rep(1, 1), &[NEXT]);
        assert!((e.loss(D) - 0.5).abs() < 1e-12, "{}", e.loss(D));
        ack(&mut e, NEXT, 5, rep(4, 3), &[NEXT]);
        assert!((e.loss(D) - 0.25).abs() < 1e-12, "{}", e.loss(D));
        // With KEPT generations on record, an older one is not recorded (no sample).
        let mut e = LossEstimator::new(1.0, 1.4, 1, false);
        for g in 10..10 + KEPT as u32 {
            e.sent(D, g);
        }
        e.sent(D, 2);
        ack(&mut e, NEXT, 3, rep(2, 1), &[NEXT]);
        assert_eq!(e.updates, 0);
    }
}
