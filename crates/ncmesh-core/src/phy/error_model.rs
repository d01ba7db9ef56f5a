//! Bit error rates of the 802.11 modulations, as functions of SINR, for the
//! "ber" reception model: a frame is received with probability prod (1 - BER)^bits
//! over the chunks of constant interference it spans (the approach of ns-3's
//! InterferenceHelper with its DsssErrorRateModel and NistErrorRateModel).

use crate::scenario::schema::Standard;

/// How the bits of one part of a frame are modulated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Modulation {
    /// 802.11b 1 Mbit/s.
    Dbpsk,
    /// 802.11b 2 Mbit/s.
    Dqpsk,
    /// 802.11b 5.5 Mbit/s CCK.
    Cck55,
    /// 802.11b 11 Mbit/s CCK.
    Cck11,
    /// 802.11a/g OFDM: constellation size (2, 4, 16, 64) and code rate.
    Ofdm {
        /// Constellation size: 2 (BPSK), 4 (QPSK), 16 or 64 (QAM).
        m: u32,
        /// Convolutional code rate.
        rate: CodeRate,
    },
}

/// Convolutional code rate of an OFDM mode (IEEE 802.11-2016 17.3.5.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeRate {
    /// 1/2.
    Half,
    /// 2/3.
    TwoThirds,
    /// 3/4.
    ThreeQuarters,
}

impl Modulation {
    /// The modulation used for data at `rate_mbps` under `standard`.
    pub fn for_rate(standard: Standard, rate_mbps: f64) -> Modulation {
        let r = (rate_mbps * 10.0).round() as u32;
        match standard {
            Standard::B => match r {
                10 => Modulation::Dbpsk,
                20 => Modulation::Dqpsk,
                55 => Modulation::Cck55,
                _ => Modulation::Cck11,
            },
            Standard::G => {
                let (m, rate) = match r {
                    60 => (2, CodeRate::Half),
                    90 => (2, CodeRate::ThreeQuarters),
                    120 => (4, CodeRate::Half),
                    180 => (4, CodeRate::ThreeQuarters),
                    240 => (16, CodeRate::Half),
                    360 => (16, CodeRate::ThreeQuarters),
                    480 => (64, CodeRate::TwoThirds),
                    _ => (64, CodeRate::ThreeQuarters),
                };
                Modulation::Ofdm { m, rate }
            }
        }
    }

    /// Probability that `bits` bits at this modulation all survive at linear `sinr`.
    /// (A radio asks through its [`ErrorCache`](super::error_cache::ErrorCache), which
    /// returns the same doubles.)
    pub fn success(self, sinr: f64, bits: f64) -> f64 {
        if bits <= 0.0 {
            return 1.0;
        }
        self.survival(self.error_per_bit(sinr), bits)
    }

    /// The costly part of [`success`](Self::success), which does not depend on the
    /// length: the bit error rate (DSSS/CCK) or the coded first-event error probability
    /// per bit (OFDM) at linear `sinr`.
    pub(crate) fn error_per_bit(self, sinr: f64) -> f64 {
        match self {
            Modulation::Ofdm { m, rate } => ofdm_error_per_bit(m, rate, sinr),
            _ => self.dsss_ber(sinr),
        }
    }

    /// Probability that `bits` (> 0) bits survive an error probability `e` per bit.
    pub(crate) fn survival(self, e: f64, bits: f64) -> f64 {
        match self {
            Modulation::Ofdm { .. } => (1.0 - e).powf(bits),
            _ if e <= 0.0 => 1.0,
            _ => (1.0 - e).powf(bits),
        }
    }

    /// DSSS/CCK bit error rates with the 22 MHz spreading gain (ns-3 DsssErrorRateModel,
    /// its closed forms for DBPSK/DQPSK and its curve fits for CCK).
    fn dsss_ber(self, sinr: f64) -> f64 {
        const PERFECT: f64 = 10.0;
        const IMPOSSIBLE: f64 = 0.1;
        match self {
            // exp(-x) underflows to 0 beyond x ~ 745; skip the slow path of exp.
            Modulation::Dbpsk if sinr * 22.0 > 745.0 => 0.0,
            Modulation::Dqpsk if sinr * 11.0 * (2.0 - std::f64::consts::SQRT_2) > 745.0 => 0.0,
            Modulation::Dbpsk => 0.5 * (-(sinr * 22.0)).exp(),
            Modulation::Dqpsk => {
                let x = sinr * 22.0 / 2.0;
                (std::f64::consts::SQRT_2 + 1.0)
                    / (8.0 * std::f64::consts::PI * std::f64::consts::SQRT_2).sqrt()
                    * (1.0 / x.sqrt())
                    * (-(2.0 - std::f64::consts::SQRT_2) * x).exp()
            }
            Modulation::Cck55 | Modulation::Cck11 if sinr > PERFECT => 0.0,
            Modulation::Cck55 | Modulation::Cck11 if sinr < IMPOSSIBLE => 0.5,
            Modulation::Cck55 => {
                let (a1, a2, a3, a4) = (
                    0.536_816_343_440_562,
                    0.003_309_243_002_560_859,
                    0.416_543_723_610_04,
                    1.028_898_143_435_887,
                );
                a1 * (-((sinr - a2) / a3).powf(a4)).exp()
            }
            Modulation::Cck11 => {
                let (a1, a2, a3) = (
                    0.007_905_674_226_533_346,
                    -0.183_974_493_991_763_6,
                    1.074_068_946_870_724,
                );
                let (a4, a5, a6) = (
                    1.052_331_690_450_255,
                    0.305_522_987_464_966_9,
                    2.203_271_512_869_844,
                );
                (a1 * sinr * sinr + a2 * sinr + a3)
                    / (sinr * sinr * sinr + a4 * sinr * sinr + a5 * sinr + a6)
            }
            Modulation::Ofdm { .. } => unreachable!("OFDM handled in success()"),
        }
    }
}

/// Complementary error function (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7).
pub(crate) fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let y = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))))
        * (-z * z).exp();
    if x >= 0.0 {
        y
    } else {
        2.0 - y
    }
}

/// Uncoded BER of the OFDM subcarrier constellations (NIST model, Pei & Henderson 2010).
fn uncoded_ber(m: u32, snr: f64) -> f64 {
    match m {
        2 => 0.5 * erfc(snr.sqrt()),
        4 => 0.5 * erfc((snr / 2.0).sqrt()),
        16 => 0.75 * 0.5 * erfc((snr / 10.0).sqrt()),
        _ => 7.0 / 12.0 * 0.5 * erfc((snr / 42.0).sqrt()),
    }
}

/// First-event error probability per bit of the K=7 convolutional code (17.3.5.6): union
/// bound with the distance spectra of the 802.11 punctured codes; a chunk of `bits` bits
/// survives with probability (1 - pe)^bits.
fn ofdm_error_per_bit(m: u32, rate: CodeRate, snr: f64) -> f64 {
    let p = uncoded_ber(m, snr).min(0.5);
    // (free distance, coefficients c_d for d = dfree, dfree+1, ...), from the NIST model
    let (dfree, coeffs, b): (u32, &[f64], f64) = match rate {
        CodeRate::Half => (
            10,
            &[
                11.0, 0.0, 38.0, 0.0, 193.0, 0.0, 1331.0, 0.0, 7275.0, 0.0, 40406.0,
            ],
            1.0,
        ),
        CodeRate::TwoThirds => (
            6,
            &[
                1.0, 16.0, 48.0, 158.0, 642.0, 2435.0, 9174.0, 34701.0, 131203.0, 499312.0,
            ],
            2.0,
        ),
        CodeRate::ThreeQuarters => (
            5,
            &[
                8.0, 31.0, 160.0, 892.0, 4512.0, 23297.0, 120976.0, 624304.0, 3229885.0, 16721329.0,
            ],
            3.0,
        ),
    };
    let pd = |d: u32| -> f64 {
        // probability that the decoder picks a path at Hamming distance d
        let dd = d as f64;
        if d % 2 == 1 {
            (d.div_ceil(2)..=d)
                .map(|k| binom(d, k) * p.powi(k as i32) * (1.0 - p).powi((d - k) as i32))
                .sum::<f64>()
        } else {
            let half = d / 2;
            0.5 * binom(d, half) * p.powf(dd / 2.0) * (1.0 - p).powf(dd / 2.0)
                + ((half + 1)..=d)
                    .map(|k| binom(d, k) * p.powi(k as i32) * (1.0 - p).powi((d - k) as i32))
                    .sum::<f64>()
        }
    };
    let pe: f64 = coeffs
        .iter()
        .enumerate()
        .map(|(i, c)| c * pd(dfree + i as u32))
        .sum::<f64>()
        / b;
    pe.min(1.0)
}

fn binom(n: u32, k: u32) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    #[test]
    fn dsss_processing_gain_makes_equal_power_collisions_survivable() {
        // Equal-power interference (SINR 0 dB) over a whole 1076-byte frame at 2 Mbit/s:
        // survives with probability (1 - BER)^8608 where BER ~ 2e-4.
        let p = Modulation::Dqpsk.success(1.0, 8608.0);
        assert!(p > 0.1 && p < 0.3, "{p}");
        // A 1 Mbit/s ACK at 0 dB almost always survives.
        assert!(Modulation::Dbpsk.success(1.0, 112.0) > 0.999_999);
        // At -10 dB everything is lost.
        assert!(Modulation::Dqpsk.success(db(-10.0), 8608.0) < 1e-6);
    }

    #[test]
    fn cck_curves_are_monotone_and_ordered() {
        // ns-3 ships two CCK models (GSL-based and a Matlab curve fit); we use the fit.
        let mut last = (0.0, 0.0);
        for snr_db in [-10.0, -5.0, 0.0, 3.0, 6.0, 9.0, 12.0] {
            let a = Modulation::Cck55.success(db(snr_db), 8192.0);
            let b = Modulation::Cck11.success(db(snr_db), 8192.0);
            assert!(a >= last.0 && b >= last.1);
            assert!(a >= b, "5.5 Mbit/s is more robust than 11 at {snr_db} dB");
            last = (a, b);
        }
        assert_eq!(last, (1.0, 1.0));
    }

    #[test]
    fn ofdm_is_monotone_and_ordered_by_rate() {
        let mut last = 0.0;
        for snr_db in [0.0, 3.0, 6.0, 9.0, 12.0, 20.0] {
            let p = Modulation::for_rate(Standard::G, 6.0).success(db(snr_db), 8000.0);
            assert!(p >= last);
            last = p;
        }
        assert!(last > 0.999);
        let slow = Modulation::for_rate(Standard::G, 6.0).success(db(8.0), 8000.0);
        let fast = Modulation::for_rate(Standard::G, 54.0).success(db(8.0), 8000.0);
        assert!(slow > 0.9 && fast < 0.01, "{slow} {fast}");
    }
}
