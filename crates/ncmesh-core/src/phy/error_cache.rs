//! A memo of the bit-error model for one receiver.
//!
//! Under the "ber" reception model every chunk of every frame a radio locks on costs one
//! [`Modulation::success`]; for OFDM that is the NIST union bound over the code's
//! distance spectrum (some 17,500 instructions with `powi`/`powf`), and it dominates
//! 802.11g runs. Its costly part, the error probability per bit, is a pure function of
//! the modulation and the SINR, and SINRs repeat: positions are mostly static, so a
//! receiver sees one SINR per neighbour when the air is clean and one per set of
//! overlapping interferers otherwise. Only the cheap last step, `(1 - p)^bits`, depends
//! on the chunk's length; each slot also keeps its last two lengths and answers (that step
//! is a `powf`, and a link carries frames of a few lengths: DATA, and the ACKs back).
//!
//! The memo is exact: it is keyed on the modulation and the SINR's bits (`f64::to_bits`),
//! so a hit returns the very double the model computes, and a miss computes it. It is
//! direct-mapped (one slot per index, a new key overwrites the old one): no probing, no
//! hasher, and a collision costs only a recomputation. Each radio owns its memo, so
//! results cannot depend on what other simulations or threads computed.

use super::error_model::Modulation;

/// Slots per receiver (a power of two). A receiver's distinct (modulation, SINR) pairs
/// are a few per neighbour; 64 slots keep collisions rare at 3.5 KiB per node.
const SLOTS_LOG2: u32 = 6;
const SLOTS: usize = 1 << SLOTS_LOG2;

#[derive(Clone, Copy)]
struct Slot {
    /// `None` until the slot is first filled.
    modulation: Option<Modulation>,
    sinr_bits: u64,
    error_per_bit: f64,
    /// The survival probability of the last two lengths asked at this key, newest first,
    /// each as (the length's bits, the probability). An entry never filled holds the
    /// bits of 0.0, a length never asked (lengths <= 0 answer before the memo).
    survival_by_length: [(u64, f64); 2],
}

const EMPTY: Slot = Slot {
    modulation: None,
    sinr_bits: 0,
    error_per_bit: 0.0,
    survival_by_length: [(0, 0.0); 2],
};

/// Memoised [`Modulation::success`] for one receiver (see the module comment).
#[derive(Default)]
pub struct ErrorCache {
    /// Empty until first used: radios under the capture model never pay for it.
    slots: Vec<Slot>,
}

impl std::fmt::Debug for ErrorCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let filled = self.slots.iter().filter(|s| s.modulation.is_some()).count();
        f.debug_struct("ErrorCache")
            .field("filled", &filled)
            .finish()
    }
}

impl ErrorCache {
    /// Probability that `bits` bits at `m` all survive at linear `sinr`: the same double
    /// as `m.success(sinr, bits)`, bit for bit.
    pub fn success(&mut self, m: Modulation, sinr: f64, bits: f64) -> f64 {
        if bits <= 0.0 {
            return 1.0;
        }
        if self.slots.is_empty() {
            self.slots = vec![EMPTY; SLOTS];
        }
        let key = sinr.to_bits();
        let slot = &mut self.slots[index(m, key)];
        if slot.sinr_bits != key || slot.modulation != Some(m) {
            *slot = Slot {
                modulation: Some(m),
                sinr_bits: key,
                error_per_bit: m.error_per_bit(sinr),
                survival_by_length: [(0, 0.0); 2],
            };
        }
        // `bits` > 0, so its bits are never 0.0's: a fresh slot always computes.
        let length = bits.to_bits();
        match slot.survival_by_length {
            [(l, p), _] if l == length => p,
            [newer, (l, p)] if l == length => {
                slot.survival_by_length = [(l, p), newer];
                p
            }
            [newer, _] => {
                let p = m.survival(slot.error_per_bit, bits);
                slot.survival_by_length = [(length, p), newer];
                p
            }
        }
    }
}

/// The slot of a key: the SINR's bits, folded with the modulation, by a multiplicative
/// (Fibonacci) fold, whose top bits depend on every bit of the key: computed SINRs from
/// different links may share their high bits (exponent, leading mantissa), and a frame's
/// header and payload chunks share the SINR under two modulations.
#[inline]
fn index(m: Modulation, sinr_bits: u64) -> usize {
    let tag = match m {
        Modulation::Dbpsk => 1,
        Modulation::Dqpsk => 2,
        Modulation::Cck55 => 3,
        Modulation::Cck11 => 4,
        Modulation::Ofdm { m, rate } => 5 + u64::from(m) * 4 + rate as u64,
    };
    ((sinr_bits ^ tag.rotate_right(8)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS_LOG2))
        as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::error_model::CodeRate;

    fn all_modulations() -> Vec<Modulation> {
        let mut v = vec![
            Modulation::Dbpsk,
            Modulation::Dqpsk,
            Modulation::Cck55,
            Modulation::Cck11,
        ];
        for m in [2, 4, 16, 64] {
            for rate in [CodeRate::Half, CodeRate::TwoThirds, CodeRate::ThreeQuarters] {
                v.push(Modulation::Ofdm { m, rate });
            }
        }
        v
    }

    /// SINRs from -20 to +40 dB in 0.25 dB steps, the edges of the closed forms' special
    /// cases (CCK's 0.1 and 10, exp's underflow), zero, a negative, an infinity and a NaN.
    fn sinrs() -> Vec<f64> {
        let mut v: Vec<f64> = (-80..=160)
            .map(|q| 10f64.powf(q as f64 * 0.25 / 10.0))
            .collect();
        v.extend([
            0.0,
            -0.0,
            -1.0,
            0.1,
            10.0,
            745.0 / 22.0,
            f64::MIN_POSITIVE,
            1e300,
            f64::INFINITY,
            f64::NAN,
        ]);
        v
    }

    #[test]
    fn memo_equals_the_model_bit_for_bit() {
        let lengths = [-1.0, 0.0, 1.0, 16.0, 112.0, 192.0, 8608.0, 12_000.0, 1e6];
        let mut cache = ErrorCache::default();
        // Twice over: the first pass fills (and overwrites) slots, the second mostly hits.
        for _ in 0..2 {
            for m in all_modulations() {
                for &sinr in &sinrs() {
                    for &bits in &lengths {
                        let direct = m.success(sinr, bits);
                        let memo = cache.success(m, sinr, bits);
                        // A NaN's sign and payload are not specified (Rust's floating-point
                        // semantics): any NaN answers for any other.
                        let same = memo.to_bits() == direct.to_bits()
                            || (memo.is_nan() && direct.is_nan());
                        assert!(same, "{m:?} {sinr} {bits}: {memo:e} against {direct:e}");
                    }
                }
            }
        }
    }

    #[test]
    fn lengths_that_alternate_on_a_key_answer_alike() {
        // A link's DATA and ACKs alternate (both entries hit), then a third length comes
        // (the older one goes) and the first comes back.
        let m = Modulation::Ofdm {
            m: 64,
            rate: CodeRate::ThreeQuarters,
        };
        let mut cache = ErrorCache::default();
        for &sinr in &[3.0, 20.0, 1e300] {
            for bits in [
                12_000.0, 112.0, 12_000.0, 112.0, 304.0, 12_000.0, 304.0, 112.0,
            ] {
                let memo = cache.success(m, sinr, bits);
                assert_eq!(
                    memo.to_bits(),
                    m.success(sinr, bits).to_bits(),
                    "{sinr} {bits}"
                );
            }
        }
    }

    #[test]
    fn one_key_per_slot_and_modulation() {
        // The same SINR under two modulations (a frame's header and payload) must not
        // answer for each other, even when they share a slot.
        let mut cache = ErrorCache::default();
        let (a, b) = (
            Modulation::Dbpsk,
            Modulation::Ofdm {
                m: 64,
                rate: CodeRate::ThreeQuarters,
            },
        );
        let sinr = 20.0;
        for _ in 0..3 {
            assert_eq!(
                cache.success(a, sinr, 8000.0).to_bits(),
                a.success(sinr, 8000.0).to_bits()
            );
            assert_eq!(
                cache.success(b, sinr, 8000.0).to_bits(),
                b.success(sinr, 8000.0).to_bits()
            );
        }
        assert_ne!(a.success(sinr, 8000.0), b.success(sinr, 8000.0));
    }
}
