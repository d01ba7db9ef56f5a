//! Which packet to drop when the queue is full and the arrival found no code to join
//! (Seferoglu & Markopoulou §V-A2, Alg. 2): the flow with the largest network-coded queue size loses
//! its last uncoded packet.

use super::hqueue::{flow_counts, sizes_of, ties_max};
use super::split::SplitEstimator;
use crate::coding::xor::entry::{Entry, FlowKey, Native};
use crate::engine::Rng;
use smallvec::SmallVec;
use std::collections::VecDeque;

/// The packet Alg. 2 drops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropChoice {
    /// The native entry at this index of the queue (head = 0).
    Queued(usize),
    /// The arriving packet.
    Arrival,
}

/// The flow to drop from: largest Q̃_s, ties broken uniformly with `rng` (drawn only when
/// there is a tie). `None` only when there is no flow at all.
pub fn choose_flow(
    queue: &VecDeque<Entry>,
    arriving: Option<&Native>,
    est: &SplitEstimator,
    rng: &mut Rng,
) -> Option<FlowKey> {
    let counts = flow_counts(queue, arriving);
    let sizes = sizes_of(&counts, est);
    let max = sizes
        .iter()
        .map(|&(_, s)| s)
        .fold(f64::NEG_INFINITY, f64::max);
    let tied: SmallVec<[FlowKey; 8]> = sizes
        .iter()
        .filter(|&&(_, s)| ties_max(s, max))
        .map(|&(f, _)| f)
        .collect();
    match tied.len() {
        0 => None,
        1 => Some(tied[0]),
        k => Some(tied[rng.below_incl(k as u32 - 1) as usize]),
    }
}

/// Seferoglu & Markopoulou §V-A2, Alg. 2: drop the chosen flow's last uncoded packet, the arrival
/// counting as the newest; if every packet of the flow here is coded, drop the arrival.
pub fn choose_drop(
    queue: &VecDeque<Entry>,
    arriving: &Native,
    est: &SplitEstimator,
    rng: &mut Rng,
) -> DropChoice {
    let Some(flow) = choose_flow(queue, Some(arriving), est, rng) else {
        return DropChoice::Arrival;
    };
    if arriving.flow() == flow {
        return DropChoice::Arrival;
    }
    queue
        .iter()
        .rposition(|e| !e.is_coded() && e.has_flow(flow))
        .map_or(DropChoice::Arrival, DropChoice::Queued)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::ncaqm::hqueue::coded_queue_sizes;
    use crate::coding::ncaqm::testutil::{a, b, c, code, nat, rng};

    fn coded_ab_history() -> SplitEstimator {
        let mut est = SplitEstimator::new(100);
        for u in 0..20 {
            est.record(&[a(u), b(u + 1000)]);
        }
        est
    }

    #[test]
    fn dominant_flow_loses_its_last_uncoded_packet() {
        // a and b always leave coded together (ĥ = 1 each); a has more packets here, so
        // a dominates the code and loses its newest uncoded packet (index 4).
        let est = coded_ab_history();
        let q: VecDeque<Entry> = vec![
            code(&[a(1), b(2)]),
            code(&[a(3)]),
            code(&[b(4)]),
            code(&[a(5)]),
            code(&[a(6)]),
        ]
        .into();
        let sizes = coded_queue_sizes(&q, Some(&c(7)), &est);
        assert_eq!(
            sizes,
            vec![(a(0).flow(), 4.0), (b(0).flow(), 0.0), (c(0).flow(), 1.0)]
        );
        for seed in 0..8 {
            let mut r = rng(seed);
            assert_eq!(choose_drop(&q, &c(7), &est, &mut r), DropChoice::Queued(4));
            // A b arrival (Q_b = 3) does not change the choice.
            assert_eq!(choose_drop(&q, &b(8), &est, &mut r), DropChoice::Queued(4));
        }
    }

    #[test]
    fn flow_with_most_packets_but_never_dominant_is_spared() {
        // a's transmissions are split evenly between codes with b and with c (ĥ = 1/2);
        // b and c always leave coded with a (ĥ = 1).
        let mut est = SplitEstimator::new(100);
        for u in 0..10 {
            est.record(&[a(u), b(u + 1000)]);
            est.record(&[a(u + 100), c(u + 2000)]);
        }
        let mut q: VecDeque<Entry> = vec![code(&[a(1), b(1)]), code(&[a(2), c(2)])].into();
        for u in 3..7 {
            q.push_back(code(&[a(u)]));
        }
        for u in 7..10 {
            q.push_back(code(&[b(u)]));
        }
        for u in 10..14 {
            q.push_back(code(&[c(u)]));
        }
        // With the arrival: Q_a = 7, Q_b = 4, Q_c = 5. Code ab: a 3.5 < b 4; code ac:
        // a 3.5 < c 5; a's native code: ĥ = 0. a dominates nothing: Q̃_a = 0.
        let sizes = coded_queue_sizes(&q, Some(&a(20)), &est);
        assert_eq!(
            sizes,
            vec![(a(0).flow(), 0.0), (b(0).flow(), 4.0), (c(0).flow(), 5.0)]
        );
        for seed in 0..8 {
            let mut r = rng(seed);
            // c's last uncoded packet (index 12), though a holds the most packets.
            assert_eq!(
                choose_drop(&q, &a(20), &est, &mut r),
                DropChoice::Queued(12)
            );
        }
    }

    #[test]
    fn tie_is_broken_at_random_and_reproducibly() {
        let est = coded_ab_history();
        let q: VecDeque<Entry> = vec![code(&[a(1), b(2)]), code(&[a(3)]), code(&[b(4)])].into();
        let mut seen = [0u32; 2];
        for seed in 0..64 {
            let first = choose_drop(&q, &c(5), &est, &mut rng(seed));
            let again = choose_drop(&q, &c(5), &est, &mut rng(seed));
            assert_eq!(first, again);
            match first {
                DropChoice::Queued(1) => seen[0] += 1,
                DropChoice::Queued(2) => seen[1] += 1,
                other => panic!("unexpected {other:?}"),
            }
        }
        assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
    }

    #[test]
    fn no_tie_draws_nothing() {
        let est = coded_ab_history();
        let q: VecDeque<Entry> = vec![code(&[a(1)]), code(&[a(3)]), code(&[b(4)])].into();
        let mut r = rng(3);
        let mut untouched = rng(3);
        choose_drop(&q, &c(5), &est, &mut r);
        assert_eq!(r.next_u64(), untouched.next_u64());
    }

    #[test]
    fn all_coded_flow_drops_the_arrival() {
        // No history: Q̃ = Q. a has the most packets but all of them are coded.
        let est = SplitEstimator::new(100);
        let q: VecDeque<Entry> = vec![
            code(&[a(1), b(1)]),
            code(&[a(2), c(2)]),
            code(&[a(3), b(3)]),
            code(&[c(4)]),
        ]
        .into();
        let d = nat(5, 4, 50, 60, 50);
        assert_eq!(
            choose_flow(&q, Some(&d), &est, &mut rng(0)),
            Some(a(0).flow())
        );
        assert_eq!(choose_drop(&q, &d, &est, &mut rng(0)), DropChoice::Arrival);
    }

    #[test]
    fn arrival_of_the_chosen_flow_is_its_last_uncoded_packet() {
        let est = SplitEstimator::new(100);
        let q: VecDeque<Entry> = vec![code(&[a(1)]), code(&[a(2)]), code(&[b(3)])].into();
        assert_eq!(
            choose_drop(&q, &a(4), &est, &mut rng(0)),
            DropChoice::Arrival
        );
        // Another flow's arrival: a's newest queued native goes.
        assert_eq!(
            choose_drop(&q, &b(4), &est, &mut rng(0)),
            DropChoice::Queued(1)
        );
    }

    #[test]
    fn empty_queue_drops_the_arrival() {
        let est = SplitEstimator::new(100);
        let q: VecDeque<Entry> = VecDeque::new();
        assert_eq!(
            choose_drop(&q, &a(1), &est, &mut rng(0)),
            DropChoice::Arrival
        );
    }
}
