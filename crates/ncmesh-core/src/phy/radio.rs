//! One node's radio: carrier sense, the frame it is locked on, and the signals that
//! overlap it. Whether a locked frame survives is decided when it ends, from the
//! signals that overlapped it, by one of two reception models:
//! - `Ber` (ns-3 InterferenceHelper): the frame is cut into chunks of constant SINR;
//!   it survives with probability prod (1 - BER(SINR))^bits, with the header's and the
//!   payload's modulations; a frame is only locked on if its SINR at the start passes
//!   the preamble-detection threshold.
//! - `Capture` (ns-2): it survives iff SINR >= the capture threshold throughout.

use super::channel::Arrival;
use super::error_cache::ErrorCache;
use super::error_model::Modulation;
use crate::engine::{Rng, Time};

/// The reception model in force, with its parameters (linear ratios, watts).
#[derive(Debug, Clone, Copy)]
pub enum RxModel {
    /// Per-chunk bit error rates from the SINR (ns-3's InterferenceHelper).
    Ber {
        /// Thermal noise floor, W.
        noise_w: f64,
        /// Minimum SINR at a frame's start for the radio to lock on (linear).
        preamble_min_sinr: f64,
    },
    /// The ns-2 capture rule: a frame survives iff its SINR stays at or above `ratio`.
    Capture {
        /// Thermal noise floor, W.
        noise_w: f64,
        /// Capture threshold (linear SINR).
        ratio: f64,
    },
}

/// How a frame's bits are sent: PLCP header, then payload.
#[derive(Debug, Clone, Copy)]
pub struct FrameModes {
    /// Duration of the PLCP preamble and header.
    pub header_dur: Time,
    /// Modulation of the PLCP header.
    pub header: Modulation,
    /// Bit rate of the PLCP header, Mbit/s.
    pub header_rate_mbps: f64,
    /// Modulation of the MAC frame (payload).
    pub payload: Modulation,
    /// Bit rate of the MAC frame, Mbit/s.
    pub payload_rate_mbps: f64,
}

#[derive(Debug, Clone, Copy)]
struct Signal {
    frame: u32,
    start: Time,
    end: Time,
    power_w: f64,
}

/// The frame a radio is locked on and receiving.
#[derive(Debug, Clone, Copy)]
pub struct Lock {
    /// The frame's identifier on the air (its air slot's uid).
    pub frame: u32,
    /// When its first bit arrived.
    pub start: Time,
    /// When its last bit arrives.
    pub end: Time,
    /// Received power, W.
    pub power_w: f64,
    /// How its bits are sent.
    pub modes: FrameModes,
}

/// How a locked frame ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RxOutcome {
    /// Every bit survived.
    Received,
    /// Destroyed by overlapping signals.
    Collided,
}

/// One node's half-duplex radio (see the module comment).
#[derive(Debug, Default)]
pub struct Radio {
    signals: Vec<Signal>,
    lock: Option<Lock>,
    /// End of this node's own transmission in progress (or the last one).
    pub tx_until: Time,
    /// End of the latest signal above the carrier-sense threshold.
    pub cca_until: Time,
    busy_total: Time,
    busy_mark: Time,
    /// The bit-error model's memo for the frames this radio receives ("ber" model).
    errors: ErrorCache,
}

impl Radio {
    /// An idle radio.
    pub fn new() -> Radio {
        Radio {
            signals: Vec::with_capacity(8),
            ..Radio::default()
        }
    }

    /// The medium is busy (carrier sense or own transmission) until this time.
    #[inline]
    pub fn busy_until(&self) -> Time {
        self.cca_until.max(self.tx_until)
    }

    /// Is a frame being received at `now`?
    #[inline]
    pub fn receiving(&self, now: Time) -> bool {
        self.lock.is_some_and(|l| l.end > now)
    }

    /// The frame being received, if any (it may have ended; see [`receiving`](Self::receiving)).
    pub fn lock(&self) -> Option<Lock> {
        self.lock
    }

    fn mark_busy(&mut self, from: Time, to: Time) {
        if from >= self.busy_mark {
            self.busy_total += to - from;
            self.busy_mark = to;
        } else if to > self.busy_mark {
            self.busy_total += to - self.busy_mark;
            self.busy_mark = to;
        }
    }

    /// Busy airtime seen up to `end`.
    pub fn busy_time(&self, end: Time) -> Time {
        self.busy_total - self.busy_mark.saturating_sub(end).min(self.busy_total)
    }

    /// A signal starts arriving at `now` and lasts `dur`. Returns true if the radio
    /// locks on to it (idle, not transmitting, decodable, preamble detected): the
    /// caller then schedules the end of reception.
    pub fn on_arrival(
        &mut self,
        now: Time,
        frame: u32,
        dur: Time,
        a: Arrival,
        modes: FrameModes,
        model: RxModel,
    ) -> bool {
        let keep_from = self.lock.map_or(now, |l| l.start.min(now));
        self.signals.retain(|s| s.end > keep_from);
        let end = now + dur;
        self.signals.push(Signal {
            frame,
            start: now,
            end,
            power_w: a.power_w,
        });
        if a.sensed {
            self.cca_until = self.cca_until.max(end);
            self.mark_busy(now, end);
        }
        if self.tx_until > now || self.receiving(now) || !a.decodable {
            return false;
        }
        if let RxModel::Ber {
            noise_w,
            preamble_min_sinr,
        } = model
        {
            let i: f64 = self
                .signals
                .iter()
                .filter(|s| s.frame != frame && s.start <= now && now < s.end)
                .map(|s| s.power_w)
                .sum();
            if a.power_w < preamble_min_sinr * (noise_w + i) {
                return false;
            }
        }
        self.lock = Some(Lock {
            frame,
            start: now,
            end,
            power_w: a.power_w,
            modes,
        });
        true
    }

    /// Our own transmission starts: a reception in progress is abandoned (half duplex).
    /// Returns true if one was.
    pub fn start_tx(&mut self, now: Time, dur: Time) -> bool {
        self.tx_until = now + dur;
        self.mark_busy(now, now + dur);
        let aborted = self.receiving(now);
        if aborted {
            self.lock = None;
        }
        aborted
    }

    /// The locked frame `frame` ends now. None if the lock was abandoned meanwhile.
    pub fn finish(
        &mut self,
        now: Time,
        frame: u32,
        model: RxModel,
        rng: &mut Rng,
    ) -> Option<RxOutcome> {
        let l = self.lock.filter(|l| l.frame == frame && l.end == now)?;
        self.lock = None;
        let others = || {
            self.signals
                .iter()
                .filter(move |s| s.frame != l.frame && s.start < l.end && s.end > l.start)
        };
        let ok = match model {
            RxModel::Capture { noise_w, ratio } => {
                // Interference only rises when a signal starts, so its maximum over the
                // frame is reached at the frame's start or at an overlapping signal's start.
                let at = |t: Time| {
                    others()
                        .filter(|s| s.start <= t && t < s.end)
                        .map(|s| s.power_w)
                        .sum::<f64>()
                };
                let worst = others()
                    .map(|s| at(s.start.max(l.start)))
                    .fold(0.0, f64::max);
                l.power_w >= ratio * (noise_w + worst)
            }
            RxModel::Ber { noise_w, .. } => {
                let psr = self.chunk_success(&l, noise_w);
                psr >= 1.0 || rng.uniform() < psr
            }
        };
        Some(if ok {
            RxOutcome::Received
        } else {
            RxOutcome::Collided
        })
    }

    /// Probability that every bit of the locked frame survives: the product over
    /// chunks of constant interference (and of constant modulation) of the chunk's
    /// success probability.
    fn chunk_success(&mut self, l: &Lock, noise_w: f64) -> f64 {
        let header_end = (l.start + l.modes.header_dur).min(l.end);
        let mut cuts: smallvec::SmallVec<[Time; 16]> =
            smallvec::smallvec![l.start, header_end, l.end];
        for s in &self.signals {
            if s.frame != l.frame && s.start < l.end && s.end > l.start {
                cuts.push(s.start.max(l.start));
                cuts.push(s.end.min(l.end));
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        let mut psr = 1.0;
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let i: f64 = self
                .signals
                .iter()
                .filter(|s| s.frame != l.frame && s.start <= a && a < s.end)
                .map(|s| s.power_w)
                .sum();
            let sinr = l.power_w / (noise_w + i);
            let (m, rate) = if a < header_end {
                (l.modes.header, l.modes.header_rate_mbps)
            } else {
                (l.modes.payload, l.modes.payload_rate_mbps)
            };
            let bits = (b - a) as f64 * 1e-3 * rate;
            psr *= self.errors.success(m, sinr, bits);
        }
        psr
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::StreamPurpose;

    const CAPTURE: RxModel = RxModel::Capture {
        noise_w: 0.0,
        ratio: 10.0,
    };
    const BER: RxModel = RxModel::Ber {
        noise_w: 1e-12,
        preamble_min_sinr: 2.512,
    };

    fn arr(p: f64) -> Arrival {
        Arrival {
            power_w: p,
            decodable: true,
            sensed: true,
            p_link: 1.0,
        }
    }

    /// An 802.11b 2 Mbit/s frame with a long preamble (durations in ns as used here).
    fn modes() -> FrameModes {
        FrameModes {
            header_dur: 192_000,
            header: Modulation::Dbpsk,
            header_rate_mbps: 1.0,
            payload: Modulation::Dqpsk,
            payload_rate_mbps: 2.0,
        }
    }

    fn rng() -> Rng {
        Rng::stream(1, 0, StreamPurpose::Channel)
    }

    #[test]
    fn clean_reception() {
        let mut r = Radio::new();
        assert!(r.on_arrival(100, 1, 50, arr(1.0), modes(), CAPTURE));
        assert!(r.receiving(120));
        assert_eq!(r.busy_until(), 150);
        assert_eq!(
            r.finish(150, 1, CAPTURE, &mut rng()),
            Some(RxOutcome::Received)
        );
        assert!(!r.receiving(150));
    }

    #[test]
    fn equal_power_overlap_destroys_the_locked_frame_under_capture() {
        let mut r = Radio::new();
        assert!(r.on_arrival(100, 1, 50, arr(1.0), modes(), CAPTURE));
        assert!(
            !r.on_arrival(140, 2, 50, arr(1.0), modes(), CAPTURE),
            "second frame is not locked"
        );
        assert_eq!(
            r.finish(150, 1, CAPTURE, &mut rng()),
            Some(RxOutcome::Collided)
        );
        assert_eq!(r.busy_until(), 190);
    }

    #[test]
    fn interference_that_ended_before_does_not_count() {
        let mut r = Radio::new();
        r.start_tx(0, 40);
        assert!(
            !r.on_arrival(10, 7, 100, arr(1.0), modes(), CAPTURE),
            "no lock while transmitting"
        );
        // frame 7 still on the air at 70 -> the new frame is hit by it
        assert!(r.on_arrival(70, 1, 50, arr(1.0), modes(), CAPTURE));
        assert_eq!(
            r.finish(120, 1, CAPTURE, &mut rng()),
            Some(RxOutcome::Collided)
        );
        assert!(r.on_arrival(200, 2, 50, arr(1.0), modes(), CAPTURE));
        assert_eq!(
            r.finish(250, 2, CAPTURE, &mut rng()),
            Some(RxOutcome::Received)
        );
    }

    #[test]
    fn capture_of_a_strong_frame() {
        let mut r = Radio::new();
        assert!(r.on_arrival(0, 1, 100, arr(20.0), modes(), CAPTURE));
        r.on_arrival(10, 2, 100, arr(1.0), modes(), CAPTURE);
        assert_eq!(
            r.finish(100, 1, CAPTURE, &mut rng()),
            Some(RxOutcome::Received),
            "20 > 10 x 1"
        );
        assert!(r.on_arrival(200, 3, 100, arr(20.0), modes(), CAPTURE));
        r.on_arrival(210, 4, 100, arr(1.0), modes(), CAPTURE);
        r.on_arrival(220, 5, 100, arr(1.5), modes(), CAPTURE);
        assert_eq!(
            r.finish(300, 3, CAPTURE, &mut rng()),
            Some(RxOutcome::Collided),
            "20 < 10 x 2.5"
        );
    }

    #[test]
    fn own_transmission_aborts_reception() {
        let mut r = Radio::new();
        assert!(r.on_arrival(0, 1, 100, arr(1.0), modes(), CAPTURE));
        assert!(r.start_tx(50, 10));
        assert_eq!(r.finish(100, 1, CAPTURE, &mut rng()), None);
    }

    #[test]
    fn busy_time_is_a_union() {
        let mut r = Radio::new();
        r.on_arrival(0, 1, 100, arr(1.0), modes(), CAPTURE);
        r.on_arrival(50, 2, 100, arr(1.0), modes(), CAPTURE);
        r.start_tx(300, 10);
        assert_eq!(r.busy_time(1000), 160);
        assert_eq!(r.busy_time(305), 155);
    }

    #[test]
    fn preamble_detection_needs_sinr_at_start() {
        let mut r = Radio::new();
        r.start_tx(0, 1_000);
        // arrives while we transmit: sensed, not locked, still on the air later
        assert!(!r.on_arrival(500, 1, 5_000_000, arr(1.0), modes(), BER));
        // a frame of equal power starting after our transmission: SINR 0 dB < 4 dB
        assert!(!r.on_arrival(2_000, 2, 5_000_000, arr(1.0), modes(), BER));
        // 10x stronger: detected
        assert!(r.on_arrival(3_000, 3, 5_000_000, arr(10.0), modes(), BER));
    }

    #[test]
    fn ber_model_survival_rate_follows_the_overlap() {
        // 4.5 ms frame (192 us header + 4304 us DQPSK payload); an equal-power
        // interferer overlapping the last `overlap` ns of it.
        let survival = |overlap: Time| {
            let mut rng = rng();
            let n = 4000;
            let mut ok = 0;
            for k in 0..n {
                let mut r = Radio::new();
                let base = k as Time * 10_000_000;
                assert!(r.on_arrival(base, 1, 4_496_000, arr(1.0), modes(), BER));
                if overlap > 0 {
                    r.on_arrival(
                        base + 4_496_000 - overlap,
                        2,
                        4_496_000,
                        arr(1.0),
                        modes(),
                        BER,
                    );
                }
                if r.finish(base + 4_496_000, 1, BER, &mut rng) == Some(RxOutcome::Received) {
                    ok += 1;
                }
            }
            ok as f64 / n as f64
        };
        assert_eq!(survival(0), 1.0);
        let full = Modulation::Dqpsk.success(1.0, 8608.0);
        let s_full = survival(4_304_000);
        assert!((s_full - full).abs() < 0.03, "{s_full} vs {full}");
        let s_half = survival(2_152_000);
        assert!(
            (s_half - full.sqrt()).abs() < 0.03,
            "{s_half} vs {}",
            full.sqrt()
        );
    }
}
