//! HyStart++ (RFC 9406): leaves slow start before it overshoots, on a rise of the round
//! trip's minimum RTT, through a phase of slower growth (Conservative Slow Start, CSS) that
//! goes back to slow start if the rise was spurious.
//!
//! A state machine without I/O, fed by its congestion controller: `on_round_check` with each
//! cumulative ACK (a round ends when the ACK covers what was next to send at its start,
//! §4.2 `windowEnd`), `on_rtt` with each RTT sample, and asked `growth_divisor` for the
//! slow-start increase. It runs in the initial slow start only (§4.3: later slow starts,
//! after a timeout, are RFC 5681's). ncmesh's senders grow the window by at most one SMSS
//! per ACK (RFC 5681), so the L limit of §4.2 never binds.

use crate::engine::{Time, MILLIS};

/// RFC 9406 §4.3's constants, with its names and recommended values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HyStartParams {
    /// MIN_RTT_THRESH: 4 ms.
    pub min_rtt_thresh: Time,
    /// MAX_RTT_THRESH: 16 ms.
    pub max_rtt_thresh: Time,
    /// MIN_RTT_DIVISOR: 8.
    pub min_rtt_divisor: u64,
    /// N_RTT_SAMPLE: 8 RTT samples per round before a decision.
    pub n_rtt_sample: u32,
    /// CSS_GROWTH_DIVISOR: 4.
    pub css_growth_divisor: u64,
    /// CSS_ROUNDS: 5.
    pub css_rounds: u32,
}

impl Default for HyStartParams {
    fn default() -> Self {
        HyStartParams {
            min_rtt_thresh: 4 * MILLIS,
            max_rtt_thresh: 16 * MILLIS,
            min_rtt_divisor: 8,
            n_rtt_sample: 8,
            css_growth_divisor: 4,
            css_rounds: 5,
        }
    }
}

/// Where HyStart++ stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start, watching the RTT.
    SlowStart,
    /// Conservative Slow Start.
    Css {
        /// cssBaselineMinRtt: the round minimum that started it.
        baseline: Time,
        /// Rounds completed in CSS.
        rounds: u32,
    },
    /// Done: CSS ran its rounds, or a loss or timeout ended slow start; RFC 5681 from now on.
    Done,
}

/// What a round boundary asks of the controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundEnd {
    /// Nothing.
    Continue,
    /// CSS ran CSS_ROUNDS rounds: enter congestion avoidance (ssthresh = cwnd, §4.2).
    EnterCongestionAvoidance,
}

/// HyStart++ of one connection.
#[derive(Debug, Clone)]
pub struct HyStart {
    p: HyStartParams,
    phase: Phase,
    /// windowEnd: the round ends when a cumulative ACK reaches it; `None` before the first.
    window_end: Option<u64>,
    /// lastRoundMinRTT and currentRoundMinRTT (`None`: infinity).
    last_round_min_rtt: Option<Time>,
    current_round_min_rtt: Option<Time>,
    /// rttSampleCount of the current round.
    samples: u32,
}

impl HyStart {
    /// HyStart++ at the start of a connection (in slow start).
    pub fn new(p: HyStartParams) -> Self {
        HyStart {
            p,
            phase: Phase::SlowStart,
            window_end: None,
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            samples: 0,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The slow-start increase is divided by this: CSS_GROWTH_DIVISOR in CSS, else 1.
    pub fn growth_divisor(&self) -> u64 {
        match self.phase {
            Phase::Css { .. } => self.p.css_growth_divisor,
            _ => 1,
        }
    }

    /// A cumulative ACK of `ack` with `snd_nxt` next to send. At a round's end (§4.2): the
    /// round's minimum becomes lastRoundMinRTT, a new round starts at windowEnd = snd_nxt,
    /// and a CSS round is counted; after CSS_ROUNDS of them, congestion avoidance.
    pub fn on_round_check(&mut self, ack: u64, snd_nxt: u64) -> RoundEnd {
        if self.phase == Phase::Done || self.window_end.is_some_and(|end| ack < end) {
            return RoundEnd::Continue;
        }
        let first = self.window_end.is_none();
        self.window_end = Some(snd_nxt.max(ack + 1));
        self.last_round_min_rtt = self.current_round_min_rtt;
        self.current_round_min_rtt = None;
        self.samples = 0;
        if let Phase::Css { baseline, rounds } = self.phase {
            if !first {
                let rounds = rounds + 1;
                if rounds >= self.p.css_rounds {
                    self.phase = Phase::Done;
                    return RoundEnd::EnterCongestionAvoidance;
                }
                self.phase = Phase::Css { baseline, rounds };
            }
        }
        RoundEnd::Continue
    }

    /// An RTT sample (§4.2): the round's minimum; after N_RTT_SAMPLE samples, slow start
    /// enters CSS when the minimum rose by RttThresh over the last round's, and CSS goes
    /// back to slow start when it fell below the baseline.
    pub fn on_rtt(&mut self, rtt: Time) {
        if self.phase == Phase::Done {
            return;
        }
        let cur = self.current_round_min_rtt.map_or(rtt, |m| m.min(rtt));
        self.current_round_min_rtt = Some(cur);
        self.samples += 1;
        if self.samples < self.p.n_rtt_sample {
            return;
        }
        match self.phase {
            Phase::SlowStart => {
                let Some(last) = self.last_round_min_rtt else {
                    return;
                };
                let thresh = (last / self.p.min_rtt_divisor)
                    .clamp(self.p.min_rtt_thresh, self.p.max_rtt_thresh);
                if cur >= last + thresh {
                    self.phase = Phase::Css {
                        baseline: cur,
                        rounds: 0,
                    };
                }
            }
            Phase::Css { baseline, .. } if cur < baseline => {
                // The rise was spurious: back to slow start (cssBaselineMinRtt = infinity).
                self.phase = Phase::SlowStart;
            }
            _ => {}
        }
    }

    /// A loss or a timeout ends slow start, and HyStart++ with it (§4.2, §4.3).
    pub fn on_congestion(&mut self) {
        self.phase = Phase::Done;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = MILLIS;

    /// One round: a round-boundary ACK, then `n` samples of `rtt`.
    fn round(h: &mut HyStart, k: &mut u64, n: u32, rtt: Time) -> RoundEnd {
        *k += 10;
        let end = h.on_round_check(*k, *k + 10);
        for _ in 0..n {
            h.on_rtt(rtt);
        }
        end
    }

    #[test]
    fn a_rise_by_the_threshold_after_eight_samples_enters_css() {
        // §4.2: RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms): 100 ms -> 12.5 ms.
        for (rtt, css) in [(112 * MS, false), (113 * MS, true)] {
            let mut h = HyStart::new(HyStartParams::default());
            let mut k = 0;
            round(&mut h, &mut k, 8, 100 * MS);
            assert_eq!(h.phase(), Phase::SlowStart, "no last round yet");
            round(&mut h, &mut k, 8, rtt);
            if css {
                let baseline = rtt;
                assert_eq!(
                    h.phase(),
                    Phase::Css {
                        baseline,
                        rounds: 0
                    }
                );
                assert_eq!(h.growth_divisor(), 4);
            } else {
                assert_eq!(h.phase(), Phase::SlowStart, "12 ms < 12.5 ms");
                assert_eq!(h.growth_divisor(), 1);
            }
        }
    }

    #[test]
    fn fewer_than_n_rtt_sample_samples_decide_nothing() {
        let mut h = HyStart::new(HyStartParams::default());
        let mut k = 0;
        round(&mut h, &mut k, 8, 100 * MS);
        round(&mut h, &mut k, 7, 200 * MS);
        assert_eq!(h.phase(), Phase::SlowStart);
        h.on_rtt(200 * MS);
        assert!(matches!(h.phase(), Phase::Css { .. }), "the eighth sample");
    }

    #[test]
    fn the_threshold_is_clamped_to_4_and_16_ms() {
        for (last, rise, css) in [
            (10 * MS, 4 * MS, true),    // 10/8 = 1.25 ms -> 4 ms
            (10 * MS, 3 * MS, false),   //
            (400 * MS, 16 * MS, true),  // 400/8 = 50 ms -> 16 ms
            (400 * MS, 15 * MS, false), //
        ] {
            let mut h = HyStart::new(HyStartParams::default());
            let mut k = 0;
            round(&mut h, &mut k, 8, last);
            round(&mut h, &mut k, 8, last + rise);
            assert_eq!(
                matches!(h.phase(), Phase::Css { .. }),
                css,
                "{last} + {rise}"
            );
        }
    }

    #[test]
    fn css_goes_back_to_slow_start_below_its_baseline_and_ends_after_css_rounds() {
        let mut h = HyStart::new(HyStartParams::default());
        let mut k = 0;
        round(&mut h, &mut k, 8, 100 * MS);
        round(&mut h, &mut k, 8, 120 * MS);
        assert!(matches!(h.phase(), Phase::Css { .. }));
        round(&mut h, &mut k, 8, 110 * MS);
        assert_eq!(h.phase(), Phase::SlowStart, "a spurious rise");
        assert_eq!(h.growth_divisor(), 1);
        // Rise again (110 -> 130), then CSS_ROUNDS = 5 rounds at the baseline.
        round(&mut h, &mut k, 8, 130 * MS);
        let mut ends = Vec::new();
        for _ in 0..5 {
            ends.push(round(&mut h, &mut k, 8, 130 * MS));
        }
        assert_eq!(ends[..4], [RoundEnd::Continue; 4]);
        assert_eq!(ends[4], RoundEnd::EnterCongestionAvoidance);
        assert_eq!(h.phase(), Phase::Done);
        assert_eq!(h.growth_divisor(), 1);
    }

    #[test]
    fn acks_inside_a_round_do_not_end_it() {
        let mut h = HyStart::new(HyStartParams::default());
        assert_eq!(h.on_round_check(0, 100), RoundEnd::Continue);
        for rtt in [100, 101, 102, 103] {
            h.on_rtt(rtt * MS);
        }
        h.on_round_check(50, 150); // below windowEnd (100): same round
        for rtt in [104, 105, 106, 107] {
            h.on_rtt(rtt * MS);
        }
        h.on_round_check(100, 200); // the round ends: its minimum is 100 ms
        for _ in 0..8 {
            h.on_rtt(113 * MS);
        }
        assert!(matches!(h.phase(), Phase::Css { .. }), "113 >= 100 + 12.5");
    }

    #[test]
    fn a_loss_ends_it_for_good() {
        let mut h = HyStart::new(HyStartParams::default());
        let mut k = 0;
        round(&mut h, &mut k, 8, 100 * MS);
        h.on_congestion();
        round(&mut h, &mut k, 8, 200 * MS);
        assert_eq!(h.phase(), Phase::Done);
        assert_eq!(h.growth_divisor(), 1);
    }
}
