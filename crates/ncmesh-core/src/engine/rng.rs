//! Random streams: xoshiro256++ seeded by SplitMix64 from (master seed, owner, purpose).
//!
//! Each node (or flow) has one independent stream per purpose, so adding a flow or a
//! node never shifts the random numbers another one draws.

/// What a stream is used for; part of its seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum StreamPurpose {
    /// MAC backoff draws of one node.
    Backoff = 1,
    /// Frame loss, fading and shadowing draws at one receiving node.
    Channel = 2,
    /// Application traffic of one flow.
    App = 3,
    /// Coding scheme decisions of one node.
    Scheme = 4,
    /// Scenario builders (random topologies).
    Builder = 5,
    /// Static per-link draws (shadowing of the mean gain).
    Link = 6,
    /// End-to-end (intra-flow) coder decisions of one node.
    FlowCoding = 7,
    /// Routing protocol decisions of one node (AODV's RREQ jitter).
    Routing = 8,
}

/// A deterministic random stream (xoshiro256++ seeded by SplitMix64), one per owner and
/// purpose, so that adding draws in one place never shifts another's.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A stream for `owner` (node or flow index) and `purpose` under `seed`.
    pub fn stream(seed: u64, owner: u64, purpose: StreamPurpose) -> Rng {
        let mut x = seed;
        let a = splitmix64(&mut x);
        let mut y =
            a ^ owner.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ (purpose as u64).rotate_left(32);
        let s = [
            splitmix64(&mut y),
            splitmix64(&mut y),
            splitmix64(&mut y),
            splitmix64(&mut y),
        ];
        Rng { s }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = (s[0].wrapping_add(s[3])).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n] inclusive (unbiased, Lemire's method).
    #[inline]
    pub fn below_incl(&mut self, n: u32) -> u32 {
        let range = n as u64 + 1;
        let mut m = (self.next_u64() >> 32) * range;
        if (m & 0xFFFF_FFFF) < range {
            let t = (u32::MAX as u64 + 1 - range) % range;
            while (m & 0xFFFF_FFFF) < t {
                m = (self.next_u64() >> 32) * range;
            }
        }
        (m >> 32) as u32
    }

    /// True with probability p.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (p >= 1.0 || self.uniform() < p)
    }

    /// Exponential with mean 1 (Rayleigh fading power gain).
    pub fn exp1(&mut self) -> f64 {
        -(1.0 - self.uniform()).ln()
    }

    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = Rng::stream(7, 3, StreamPurpose::Backoff);
        let mut b = Rng::stream(7, 3, StreamPurpose::Backoff);
        let mut c = Rng::stream(7, 4, StreamPurpose::Backoff);
        let mut d = Rng::stream(7, 3, StreamPurpose::Channel);
        let va: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        let vd: Vec<u64> = (0..8).map(|_| d.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
        assert_ne!(va, vd);
    }

    #[test]
    fn below_incl_is_uniform_enough() {
        let mut r = Rng::stream(1, 0, StreamPurpose::Backoff);
        let mut counts = [0u32; 32];
        for _ in 0..320_000 {
            counts[r.below_incl(31) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{c}");
        }
    }

    #[test]
    fn uniform_mean() {
        let mut r = Rng::stream(2, 0, StreamPurpose::Channel);
        let m: f64 = (0..100_000).map(|_| r.uniform()).sum::<f64>() / 100_000.0;
        assert!((m - 0.5).abs() < 0.01);
        let e: f64 = (0..100_000).map(|_| r.exp1()).sum::<f64>() / 100_000.0;
        assert!((e - 1.0).abs() < 0.02);
    }
}
