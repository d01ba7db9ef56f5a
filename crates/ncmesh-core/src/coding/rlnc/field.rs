//! The finite fields of random linear coding: GF(2^8) (Pipeline coding and ComboCoding,
//! Chen et al. Eq. 1; MORE) and GF(2^16) (CoMP, Gheorghiu et al. §II). Addition is XOR;
//! multiplication and inversion go through logarithm and exponent tables built at compile
//! time, so a product is two or three table reads and never a loop.
//!
//! Rows ("add c times this row", "multiply this row by c") over coefficients and payload
//! bytes go through the SSSE3 or AVX2 kernels of `field_simd` in whole blocks of 16
//! bytes where the CPU has them, and through the tables here for the rest of a row, rows
//! too short to repay the kernels' own tables, and other CPUs; both give the same bytes.
//!
//! Why no crate: `g2p` and `gf256` provide the arithmetic, but the codec's inner loops are
//! rows, which want one table row per constant (GF(2^8)) or one logarithm per constant
//! (GF(2^16)); both are a few lines over the same tables (docs/assumptions.md, random
//! linear coding). The crates with SIMD row kernels fix other fields: reed-solomon-erasure
//! uses x^8 + x^4 + x^3 + x^2 + 1 (0x11D) and builds its 16-bit field as an extension of
//! that one, reed-solomon-simd Leopard's Cantor basis. Another field would code with other
//! bytes (and no longer match the `rlnc` crate's GF(2^8)), so `field_simd` writes the
//! standard split-nibble kernels for these two polynomials (Plank, Greenan and Miller,
//! "Screaming Fast Galois Field Arithmetic Using Intel SIMD Instructions", FAST 2013).

use super::field_simd::{Nibbles16, Nibbles8, Simd};
use crate::engine::Rng;
use std::fmt::Debug;

/// A field GF(2^m) whose elements are stored as unsigned integers (the `Coeffs` vectors
/// of `coding::symbol` carry them as they are).
pub trait Field: Copy + Debug + Send + Sync + 'static {
    /// An element (u8 or u16).
    type Elem: Copy + Eq + Default + Debug + Send + Sync + 'static;
    /// The field's name, for output: "GF(2^8)".
    const NAME: &'static str;
    /// Bytes of payload one element covers (payloads are vectors over the field).
    const SYMBOL_BYTES: usize;
    /// The additive identity.
    const ZERO: Self::Elem;
    /// The multiplicative identity.
    const ONE: Self::Elem;

    /// a + b (= a − b).
    fn add(a: Self::Elem, b: Self::Elem) -> Self::Elem;
    /// a · b.
    fn mul(a: Self::Elem, b: Self::Elem) -> Self::Elem;
    /// The inverse of a non-zero element (None for zero).
    fn inv(a: Self::Elem) -> Option<Self::Elem>;
    /// A uniformly drawn non-zero element.
    fn random_nonzero(rng: &mut Rng) -> Self::Elem;
    /// dst[i] += c · src[i] over coefficient vectors of equal length.
    fn axpy(dst: &mut [Self::Elem], c: Self::Elem, src: &[Self::Elem]);
    /// dst[i] = c · dst[i].
    fn scale(dst: &mut [Self::Elem], c: Self::Elem);
    /// The same as `axpy`, over payload bytes read as field symbols (big-endian for
    /// GF(2^16)); `dst` holds whole symbols, `src` may be shorter or end in half a symbol
    /// (it is zero beyond its end).
    fn axpy_bytes(dst: &mut [u8], c: Self::Elem, src: &[u8]);
    /// The same as `scale`, over payload bytes (whole symbols).
    fn scale_bytes(dst: &mut [u8], c: Self::Elem);
}

/// Builds the exponent (doubled, so that a sum of two logarithms needs no reduction) and
/// logarithm tables of GF(2^M) with reduction polynomial `poly` (x^M included) and
/// generator x (`plus_one = false`) or x + 1. The loop walks g^0, g^1, ...; a generator
/// that is not primitive would revisit 1 before 2^M − 1 steps, which the tests rule out.
macro_rules! tables {
    ($elem:ty, $m:expr, $poly:expr, $plus_one:expr, $exp:ident, $log:ident) => {
        static $exp: [$elem; 2 * ((1 << $m) - 1)] = {
            let order = (1usize << $m) - 1;
            let mut t = [0 as $elem; 2 * ((1 << $m) - 1)];
            let mut x: u32 = 1;
            let mut i = 0;
            while i < order {
                t[i] = x as $elem;
                t[i + order] = x as $elem;
                let mut y = x << 1;
                if y & (1 << $m) != 0 {
                    y ^= $poly;
                }
                x = if $plus_one { y ^ x } else { y };
                i += 1;
            }
            t
        };
        static $log: [u32; 1 << $m] = {
            let order = (1usize << $m) - 1;
            let mut t = [0u32; 1 << $m];
            let mut x: u32 = 1;
            let mut i = 0;
            while i < order {
                t[x as usize] = i as u32;
                let mut y = x << 1;
                if y & (1 << $m) != 0 {
                    y ^= $poly;
                }
                x = if $plus_one { y ^ x } else { y };
                i += 1;
            }
            t
        };
    };
}

// x^8 + x^4 + x^3 + x + 1 (0x11B, AES's), the polynomial of the `rlnc` crate, so that the
// cross-check test (tests/rlnc_crosscheck.rs) decodes the same bytes; x + 1 generates it.
tables!(u8, 8, 0x11B, true, EXP8, LOG8);
// x^16 + x^12 + x^3 + x + 1 (0x1100B), primitive: x generates all 65535 elements.
tables!(u16, 16, 0x1100B, false, EXP16, LOG16);

/// The full GF(2^8) product table (64 KiB): `MUL8[c]` is the row "times c", which the
/// payload loops index once per byte.
static MUL8: [[u8; 256]; 256] = {
    let mut t = [[0u8; 256]; 256];
    let mut a = 1;
    while a < 256 {
        let mut b = 1;
        while b < 256 {
            t[a][b] = EXP8[(LOG8[a] + LOG8[b]) as usize];
            b += 1;
        }
        a += 1;
    }
    t
};

/// The shortest rows, in bytes, given to the SIMD kernels (`Simd::for_row`). GF(2^8): one
/// block, its two tables being the starts of two `MUL8` rows (a 16-byte row took 6.4 ns
/// against the table loop's 9.3). GF(2^16): its eight tables take about 10 ns to build from
/// c's logarithm, so a row of 32 bytes took 17 ns against 14 by logarithms, and 48 bytes
/// 20 against 20.5 on random rows but 15 on rows two thirds zero (which the logarithm loop
/// skips); from 64 bytes (32 symbols) the kernels won on both, 19 ns against 28 and 20.
/// (Best of 7 × 200,000 calls, varying c, test-release build, 2026-11-29.) The SIMD paths
/// (`*_simd`) stay out of line, so that a shorter row's loop is inlined in the decoder as
/// it was before them.
const SIMD_FROM8: usize = 16;
const SIMD_FROM16: usize = 64;

/// Whether u16 coefficients lie in memory big-endian (the SIMD kernels see their bytes).
const IN_MEMORY_BIG_ENDIAN: bool = cfg!(target_endian = "big");

/// GF(2^8) with x^8 + x^4 + x^3 + x + 1.
#[derive(Debug, Clone, Copy)]
pub struct Gf256;

/// GF(2^16) with x^16 + x^12 + x^3 + x + 1.
#[derive(Debug, Clone, Copy)]
pub struct Gf65536;

impl Field for Gf256 {
    type Elem = u8;
    const NAME: &'static str = "GF(2^8)";
    const SYMBOL_BYTES: usize = 1;
    const ZERO: u8 = 0;
    const ONE: u8 = 1;

    #[inline]
    fn add(a: u8, b: u8) -> u8 {
        a ^ b
    }
    #[inline]
    fn mul(a: u8, b: u8) -> u8 {
        MUL8[a as usize][b as usize]
    }
    #[inline]
    fn inv(a: u8) -> Option<u8> {
        (a != 0).then(|| EXP8[(255 - LOG8[a as usize]) as usize % 255])
    }
    fn random_nonzero(rng: &mut Rng) -> u8 {
        1 + rng.below_incl(254) as u8
    }
    #[inline]
    fn axpy(dst: &mut [u8], c: u8, src: &[u8]) {
        Self::axpy_bytes(dst, c, src)
    }
    #[inline]
    fn scale(dst: &mut [u8], c: u8) {
        Self::scale_bytes(dst, c)
    }
    #[inline]
    fn axpy_bytes(dst: &mut [u8], c: u8, src: &[u8]) {
        match Simd::for_row(dst.len().min(src.len()), SIMD_FROM8) {
            Some(simd) => Self::axpy_simd(simd, dst, c, src),
            None => Self::axpy_row(dst, c, src),
        }
    }
    #[inline]
    fn scale_bytes(dst: &mut [u8], c: u8) {
        match Simd::for_row(dst.len(), SIMD_FROM8) {
            Some(simd) => Self::scale_simd(simd, dst, c),
            None => Self::scale_row(dst, c),
        }
    }
}

impl Gf256 {
    /// `axpy_bytes` by c's row of products.
    #[inline]
    fn axpy_row(dst: &mut [u8], c: u8, src: &[u8]) {
        if c == 0 {
            return;
        }
        let row = &MUL8[c as usize];
        for (d, &s) in dst.iter_mut().zip(src) {
            *d ^= row[s as usize];
        }
    }

    /// `scale_bytes` by c's row of products.
    #[inline]
    fn scale_row(dst: &mut [u8], c: u8) {
        let row = &MUL8[c as usize];
        for d in dst {
            *d = row[*d as usize];
        }
    }

    /// c's split-nibble tables: c · n, and c · (n << 4) = (c · 16) · n.
    fn nibbles(c: u8) -> Nibbles8 {
        let first16 = |c: u8| MUL8[c as usize][..16].try_into().expect("16 entries");
        Nibbles8 {
            lo: first16(c),
            hi: first16(Self::mul(c, 16)),
        }
    }

    /// `axpy_row` with `simd`'s kernel for the whole blocks.
    #[inline(never)]
    fn axpy_simd(simd: Simd, dst: &mut [u8], c: u8, src: &[u8]) {
        if c == 0 {
            return;
        }
        let done = simd.axpy8(&Self::nibbles(c), dst, src);
        Self::axpy_row(&mut dst[done..], c, &src[done..]);
    }

    /// `scale_row` with `simd`'s kernel for the whole blocks.
    #[inline(never)]
    fn scale_simd(simd: Simd, dst: &mut [u8], c: u8) {
        let done = simd.scale8(&Self::nibbles(c), dst);
        Self::scale_row(&mut dst[done..], c);
    }
}

impl Gf65536 {
    /// c · s given log(c).
    #[inline]
    fn mul_log(log_c: u32, s: u16) -> u16 {
        if s == 0 {
            0
        } else {
            EXP16[(log_c + LOG16[s as usize]) as usize]
        }
    }
}

impl Field for Gf65536 {
    type Elem = u16;
    const NAME: &'static str = "GF(2^16)";
    const SYMBOL_BYTES: usize = 2;
    const ZERO: u16 = 0;
    const ONE: u16 = 1;

    #[inline]
    fn add(a: u16, b: u16) -> u16 {
        a ^ b
    }
    #[inline]
    fn mul(a: u16, b: u16) -> u16 {
        if a == 0 || b == 0 {
            0
        } else {
            EXP16[(LOG16[a as usize] + LOG16[b as usize]) as usize]
        }
    }
    #[inline]
    fn inv(a: u16) -> Option<u16> {
        (a != 0).then(|| EXP16[(65535 - LOG16[a as usize]) as usize % 65535])
    }
    fn random_nonzero(rng: &mut Rng) -> u16 {
        1 + rng.below_incl(65534) as u16
    }
    #[inline]
    fn axpy(dst: &mut [u16], c: u16, src: &[u16]) {
        match Simd::for_row(2 * dst.len().min(src.len()), SIMD_FROM16) {
            Some(simd) => Self::axpy_simd(simd, dst, c, src),
            None => Self::axpy_logs(dst, c, src),
        }
    }
    #[inline]
    fn scale(dst: &mut [u16], c: u16) {
        match Simd::for_row(2 * dst.len(), SIMD_FROM16) {
            Some(simd) => Self::scale_simd(simd, dst, c),
            None => Self::scale_logs(dst, c),
        }
    }
    // Not `#[inline]`, as before the kernels: payload rows are long enough to pay for
    // a call, and the decoder's coefficient-only loops do not carry their code.
    fn axpy_bytes(dst: &mut [u8], c: u16, src: &[u8]) {
        match Simd::for_row(dst.len().min(src.len()), SIMD_FROM16) {
            Some(simd) => Self::axpy_bytes_simd(simd, dst, c, src),
            None => Self::axpy_bytes_logs(dst, c, src),
        }
    }
    fn scale_bytes(dst: &mut [u8], c: u16) {
        match Simd::for_row(dst.len(), SIMD_FROM16) {
            Some(simd) => Self::scale_bytes_simd(simd, dst, c),
            None => Self::scale_bytes_logs(dst, c),
        }
    }
}

impl Gf65536 {
    /// `axpy` by logarithms.
    #[inline]
    fn axpy_logs(dst: &mut [u16], c: u16, src: &[u16]) {
        if c == 0 {
            return;
        }
        let lc = LOG16[c as usize];
        for (d, &s) in dst.iter_mut().zip(src) {
            *d ^= Self::mul_log(lc, s);
        }
    }

    /// `scale` by logarithms.
    #[inline]
    fn scale_logs(dst: &mut [u16], c: u16) {
        if c == 0 {
            dst.fill(0);
            return;
        }
        let lc = LOG16[c as usize];
        for d in dst {
            *d = Self::mul_log(lc, *d);
        }
    }

    /// `axpy_bytes` by logarithms.
    fn axpy_bytes_logs(dst: &mut [u8], c: u16, src: &[u8]) {
        debug_assert!(dst.len().is_multiple_of(2), "whole GF(2^16) symbols");
        if c == 0 {
            return;
        }
        let lc = LOG16[c as usize];
        let n = dst.len().min(src.len());
        for i in (0..n).step_by(2) {
            let lo = src.get(i + 1).copied().unwrap_or(0);
            let p = Self::mul_log(lc, u16::from_be_bytes([src[i], lo])).to_be_bytes();
            dst[i] ^= p[0];
            dst[i + 1] ^= p[1];
        }
    }

    /// `scale_bytes` by logarithms.
    fn scale_bytes_logs(dst: &mut [u8], c: u16) {
        debug_assert!(dst.len().is_multiple_of(2), "whole GF(2^16) symbols");
        if c == 0 {
            dst.fill(0);
            return;
        }
        let lc = LOG16[c as usize];
        for pair in dst.chunks_exact_mut(2) {
            let p = Self::mul_log(lc, u16::from_be_bytes([pair[0], pair[1]])).to_be_bytes();
            pair.copy_from_slice(&p);
        }
    }

    /// What the kernels build c's tables from, for symbols stored big-endian or not:
    /// c · x^j = EXP16[log c + j] for j < 16, x being the generator.
    fn nibbles(c: u16, big_endian: bool) -> Nibbles16 {
        debug_assert_ne!(c, 0, "zero has no logarithm");
        let lc = LOG16[c as usize] as usize;
        let basis = EXP16[lc..lc + 16].try_into().expect("16 entries");
        Nibbles16 { basis, big_endian }
    }

    /// `axpy_logs` with `simd`'s kernel for the whole blocks.
    #[inline(never)]
    fn axpy_simd(simd: Simd, dst: &mut [u16], c: u16, src: &[u16]) {
        if c == 0 {
            return;
        }
        let done = simd.axpy16_elems(&Self::nibbles(c, IN_MEMORY_BIG_ENDIAN), dst, src);
        Self::axpy_logs(&mut dst[done..], c, &src[done..]);
    }

    /// `scale_logs` with `simd`'s kernel for the whole blocks.
    #[inline(never)]
    fn scale_simd(simd: Simd, dst: &mut [u16], c: u16) {
        let done = match c {
            0 => 0,
            _ => simd.scale16_elems(&Self::nibbles(c, IN_MEMORY_BIG_ENDIAN), dst),
        };
        Self::scale_logs(&mut dst[done..], c);
    }

    /// `axpy_bytes_logs` with `simd`'s kernel for the whole blocks (an even number of
    /// bytes, so the rest starts on a symbol).
    #[inline(never)]
    fn axpy_bytes_simd(simd: Simd, dst: &mut [u8], c: u16, src: &[u8]) {
        if c == 0 {
            return;
        }
        let done = simd.axpy16(&Self::nibbles(c, true), dst, src);
        Self::axpy_bytes_logs(&mut dst[done..], c, &src[done..]);
    }

    /// `scale_bytes_logs` with `simd`'s kernel for the whole blocks.
    #[inline(never)]
    fn scale_bytes_simd(simd: Simd, dst: &mut [u8], c: u16) {
        let done = match c {
            0 => 0,
            _ => simd.scale16(&Self::nibbles(c, true), dst),
        };
        Self::scale_bytes_logs(&mut dst[done..], c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::StreamPurpose;

    /// Carry-less multiplication reduced by `poly`: the definition the tables must agree with.
    fn slow_mul(a: u32, b: u32, m: u32, poly: u32) -> u32 {
        let mut r = 0;
        let (mut a, mut b) = (a, b);
        while b != 0 {
            if b & 1 != 0 {
                r ^= a;
            }
            b >>= 1;
            a <<= 1;
            if a & (1 << m) != 0 {
                a ^= poly;
            }
        }
        r
    }

    #[test]
    fn the_generators_are_primitive() {
        // g^i for i < 2^m − 1 are all different: every non-zero element has a logarithm.
        let mut seen = vec![false; 256];
        for &e in &EXP8[..255] {
            assert!(!seen[e as usize], "x + 1 is not primitive mod 0x11B");
            seen[e as usize] = true;
        }
        let mut seen = vec![false; 65536];
        for &e in &EXP16[..65535] {
            assert!(!seen[e as usize], "x is not primitive mod 0x1100B");
            seen[e as usize] = true;
        }
        assert!(!seen[0]);
    }

    #[test]
    fn gf256_products_and_inverses_agree_with_the_definition() {
        for a in 0..256u32 {
            for b in 0..256u32 {
                let p = Gf256::mul(a as u8, b as u8) as u32;
                assert_eq!(p, slow_mul(a, b, 8, 0x11B), "{a}·{b}");
            }
            match Gf256::inv(a as u8) {
                None => assert_eq!(a, 0),
                Some(i) => assert_eq!(Gf256::mul(a as u8, i), 1, "{a}·{a}^-1"),
            }
        }
    }

    #[test]
    fn gf65536_products_and_inverses_agree_with_the_definition() {
        let mut rng = Rng::stream(7, 0, StreamPurpose::FlowCoding);
        for _ in 0..200_000 {
            let a = rng.next_u64() as u16 as u32;
            let b = rng.next_u64() as u16 as u32;
            let p = Gf65536::mul(a as u16, b as u16) as u32;
            assert_eq!(p, slow_mul(a, b, 16, 0x1100B), "{a}·{b}");
        }
        for a in 1..=65535u16 {
            assert_eq!(Gf65536::mul(a, Gf65536::inv(a).unwrap()), 1, "{a}·{a}^-1");
        }
        assert_eq!(Gf65536::inv(0), None);
    }

    fn axioms<F: Field>(draw: impl Fn(&mut Rng) -> F::Elem) {
        let mut rng = Rng::stream(11, 0, StreamPurpose::FlowCoding);
        for _ in 0..20_000 {
            let (a, b, c) = (draw(&mut rng), draw(&mut rng), draw(&mut rng));
            assert_eq!(F::add(a, b), F::add(b, a));
            assert_eq!(F::mul(a, b), F::mul(b, a));
            assert_eq!(F::mul(F::mul(a, b), c), F::mul(a, F::mul(b, c)));
            assert_eq!(F::add(F::add(a, b), c), F::add(a, F::add(b, c)));
            assert_eq!(F::mul(a, F::add(b, c)), F::add(F::mul(a, b), F::mul(a, c)));
            assert_eq!(F::add(a, F::ZERO), a);
            assert_eq!(F::add(a, a), F::ZERO);
            assert_eq!(F::mul(a, F::ONE), a);
            assert_eq!(F::mul(a, F::ZERO), F::ZERO);
            let nz = F::random_nonzero(&mut rng);
            assert_ne!(nz, F::ZERO);
            assert_eq!(F::mul(F::mul(a, nz), F::inv(nz).unwrap()), a);
        }
    }

    #[test]
    fn both_fields_satisfy_the_field_axioms() {
        axioms::<Gf256>(|r| r.next_u64() as u8);
        axioms::<Gf65536>(|r| r.next_u64() as u16);
    }

    #[test]
    fn byte_loops_equal_the_element_loops() {
        let mut rng = Rng::stream(3, 0, StreamPurpose::FlowCoding);
        let src: Vec<u8> = (0..101).map(|_| rng.next_u64() as u8).collect();
        let dst0: Vec<u8> = (0..102).map(|_| rng.next_u64() as u8).collect();
        // GF(2^8): a byte is an element.
        let c = 0x53;
        let mut d = dst0.clone();
        Gf256::axpy_bytes(&mut d, c, &src);
        for i in 0..101 {
            assert_eq!(d[i], dst0[i] ^ Gf256::mul(c, src[i]));
        }
        // GF(2^16): big-endian pairs, the source's odd last byte padded with zero.
        let c = 0xBEEF;
        let mut d = dst0.clone();
        Gf65536::axpy_bytes(&mut d, c, &src);
        let mut s = d.clone();
        Gf65536::axpy_bytes(&mut s, c, &src);
        assert_eq!(s, dst0, "adding twice cancels");
        let p = Gf65536::mul(c, u16::from_be_bytes([src[0], src[1]])).to_be_bytes();
        assert_eq!([d[0], d[1]], [dst0[0] ^ p[0], dst0[1] ^ p[1]]);
        let p = Gf65536::mul(c, u16::from_be_bytes([src[100], 0])).to_be_bytes();
        assert_eq!([d[100], d[101]], [dst0[100] ^ p[0], dst0[101] ^ p[1]]);
        // A shorter source is zero beyond its end.
        let mut d = dst0.clone();
        Gf65536::axpy_bytes(&mut d, c, &src[..10]);
        assert_eq!(d[10..], dst0[10..]);
        let mut e = d.clone();
        Gf65536::scale_bytes(&mut e, c);
        Gf65536::scale_bytes(&mut e, Gf65536::inv(c).unwrap());
        assert_eq!(e, d);
    }

    /// A way of doing a row operation: the table loop (None) or a SIMD path.
    type Way = Option<Simd>;

    /// The table loop and every SIMD path this CPU has.
    fn ways() -> Vec<Way> {
        std::iter::once(None)
            .chain(Simd::available().map(Some))
            .collect()
    }

    /// For rows of 0 to 300 and 1500, 1501 elements (src), starting at unaligned places,
    /// `public(dst, src)` (the `Field` method, which picks its way by the row's length) and
    /// `by(way, dst, src)` for each of `ways()` leave the row, and the elements around it,
    /// as `reference(dst, src)` does. dst is `dst_len(src's length)` long.
    fn rows_agree<T: Copy + Eq + Debug>(
        what: &str,
        buf: &[T],
        dst_len: impl Fn(usize) -> usize,
        reference: impl Fn(&mut [T], &[T]),
        public: impl Fn(&mut [T], &[T]),
        by: impl Fn(Way, &mut [T], &[T]),
    ) {
        let ways = ways();
        for len in (0..=300).chain([1500, 1501]) {
            for (at_dst, at_src) in [(0, 0), (1, 3), (6, 1)] {
                let src = &buf[at_src..at_src + len];
                let row = at_dst..at_dst + dst_len(len);
                let initial = &buf[buf.len() - row.end - 8..];
                let mut want = initial.to_vec();
                reference(&mut want[row.clone()], src);
                let mut got = initial.to_vec();
                public(&mut got[row.clone()], src);
                assert!(got == want, "{what}, public, {len} at +{at_dst}, +{at_src}");
                for &way in &ways {
                    let mut got = initial.to_vec();
                    by(way, &mut got[row.clone()], src);
                    assert!(
                        got == want,
                        "{what}, {way:?}, {len} at +{at_dst}, +{at_src}"
                    );
                }
            }
        }
    }

    fn random_bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
        (0..n).map(|_| rng.next_u64() as u8).collect()
    }

    /// The tests below run each path `Simd::available` gives: it must miss none.
    #[test]
    fn every_simd_path_the_cpu_has_is_tested() {
        #[cfg(target_arch = "x86_64")]
        let want = usize::from(is_x86_feature_detected!("ssse3"))
            + usize::from(is_x86_feature_detected!("avx2"));
        #[cfg(not(target_arch = "x86_64"))]
        let want = 0;
        assert_eq!(Simd::available().count(), want);
    }

    #[test]
    fn gf256_rows_equal_products_one_at_a_time_for_every_constant() {
        let buf = random_bytes(&mut Rng::stream(5, 0, StreamPurpose::FlowCoding), 4000);
        for c in 0..=255u8 {
            rows_agree(
                &format!("axpy c = {c}"),
                &buf,
                |n| n,
                |d, s| {
                    d.iter_mut()
                        .zip(s)
                        .for_each(|(d, &s)| *d ^= Gf256::mul(c, s))
                },
                |d, s| Gf256::axpy(d, c, s),
                |way, d, s| match way {
                    None => Gf256::axpy_row(d, c, s),
                    Some(simd) => Gf256::axpy_simd(simd, d, c, s),
                },
            );
            rows_agree(
                &format!("scale c = {c}"),
                &buf,
                |n| n,
                |d, _| d.iter_mut().for_each(|d| *d = Gf256::mul(c, *d)),
                |d, _| Gf256::scale(d, c),
                |way, d, _| match way {
                    None => Gf256::scale_row(d, c),
                    Some(simd) => Gf256::scale_simd(simd, d, c),
                },
            );
        }
    }

    #[test]
    fn gf65536_rows_equal_products_one_at_a_time() {
        let mut rng = Rng::stream(6, 0, StreamPurpose::FlowCoding);
        let bytes = random_bytes(&mut rng, 8000);
        let elems: Vec<u16> = (0..4000).map(|_| rng.next_u64() as u16).collect();
        let special = [0, 1, 0xFFFF].into_iter().chain((0..16).map(|b| 1 << b));
        let drawn: Vec<u16> = (0..200).map(|_| rng.next_u64() as u16).collect();
        // A payload row holds whole symbols; its source may end in half of one, which is
        // read as if a zero byte followed.
        let whole = |n: usize| n.next_multiple_of(2);
        let symbol =
            |s: &[u8], i: usize| u16::from_be_bytes([s[i], s.get(i + 1).map_or(0, |&b| b)]);
        for c in special.chain(drawn) {
            rows_agree(
                &format!("axpy_bytes c = {c}"),
                &bytes,
                whole,
                |d, s| {
                    for i in (0..s.len()).step_by(2) {
                        let p = Gf65536::mul(c, symbol(s, i)).to_be_bytes();
                        d[i] ^= p[0];
                        d[i + 1] ^= p[1];
                    }
                },
                |d, s| Gf65536::axpy_bytes(d, c, s),
                |way, d, s| match way {
                    None => Gf65536::axpy_bytes_logs(d, c, s),
                    Some(simd) => Gf65536::axpy_bytes_simd(simd, d, c, s),
                },
            );
            rows_agree(
                &format!("scale_bytes c = {c}"),
                &bytes,
                whole,
                |d, _| {
                    for i in (0..d.len()).step_by(2) {
                        let p = Gf65536::mul(c, symbol(d, i)).to_be_bytes();
                        d[i..i + 2].copy_from_slice(&p);
                    }
                },
                |d, _| Gf65536::scale_bytes(d, c),
                |way, d, _| match way {
                    None => Gf65536::scale_bytes_logs(d, c),
                    Some(simd) => Gf65536::scale_bytes_simd(simd, d, c),
                },
            );
            rows_agree(
                &format!("axpy c = {c}"),
                &elems,
                |n| n,
                |d, s| {
                    d.iter_mut()
                        .zip(s)
                        .for_each(|(d, &s)| *d ^= Gf65536::mul(c, s))
                },
                |d, s| Gf65536::axpy(d, c, s),
                |way, d, s| match way {
                    None => Gf65536::axpy_logs(d, c, s),
                    Some(simd) => Gf65536::axpy_simd(simd, d, c, s),
                },
            );
            rows_agree(
                &format!("scale c = {c}"),
                &elems,
                |n| n,
                |d, _| d.iter_mut().for_each(|d| *d = Gf65536::mul(c, *d)),
                |d, _| Gf65536::scale(d, c),
                |way, d, _| match way {
                    None => Gf65536::scale_logs(d, c),
                    Some(simd) => Gf65536::scale_simd(simd, d, c),
                },
            );
        }
    }
}
