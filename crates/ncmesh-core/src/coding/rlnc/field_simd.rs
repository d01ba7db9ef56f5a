//! SSSE3 and AVX2 kernels for `field`'s row operations (dst += c · src, dst = c · dst),
//! by the split-nibble tables of Plank, Greenan and Miller ("Screaming Fast Galois Field
//! Arithmetic Using Intel SIMD Instructions", FAST 2013; Intel ISA-L and gf-complete use
//! them). Multiplying by a constant c is linear over GF(2), so c · s is the XOR of c times
//! each 4-bit nibble of s in its place; each term is one of 16 values, and PSHUFB (VPSHUFB)
//! looks up 16 (32) bytes in a 16-byte table at once.
//!
//! GF(2^8): c · s = lo[s & 15] ^ hi[s >> 4], two tables. GF(2^16): four nibbles, each of
//! whose 16 products has a high and a low byte, so eight byte tables; the kernels split a
//! row's byte pairs into their even and odd bytes, look both up, and interleave the two
//! product bytes back. The tables are built for the row's byte order (big-endian payload
//! symbols, or u16 coefficients as they lie in memory), so one kernel serves both.
//!
//! The kernels do whole blocks only and say how many bytes they did; `field`'s table loops
//! do the rest, and all of a row on other CPUs. A `Simd` value exists only for an
//! instruction set the CPU was found to have: that is what makes its kernels safe to call.

// Off x86-64 there are no kernels: `Simd::best` is None and the rest is never reached.
#![cfg_attr(not(target_arch = "x86_64"), allow(unused))]

/// The tables for multiplying GF(2^8) bytes by one constant c.
pub(super) struct Nibbles8 {
    /// c · n for each nibble n.
    pub(super) lo: [u8; 16],
    /// c · (n << 4).
    pub(super) hi: [u8; 16],
}

/// What the kernels build the tables for multiplying GF(2^16) symbols by a constant c
/// from: `basis[j]` = c · x^j, c times each bit of a symbol (c · s is the XOR of those of
/// the bits of s), for a row whose symbols are stored big-endian (payloads) or not (u16
/// coefficients in memory on x86-64).
pub(super) struct Nibbles16 {
    pub(super) basis: [u16; 16],
    pub(super) big_endian: bool,
}

/// The eight byte tables of `Nibbles16` in the kernels' order, `[out][j]`: for the even
/// (out = 0) or odd (out = 1) byte of the products, the contribution of the low (j = 0)
/// and high (j = 1) nibble of each symbol's even byte and of its odd byte (j = 2, 3).
/// `lo[k]` and `hi[k]` are the low and high bytes of c · (n << 4k) for each nibble n.
#[inline]
fn by_place<V: Copy>(lo: [V; 4], hi: [V; 4], big_endian: bool) -> [[V; 4]; 2] {
    if big_endian {
        // The even byte is the high one, nibbles 2 and 3 of a symbol.
        [[hi[2], hi[3], hi[0], hi[1]], [lo[2], lo[3], lo[0], lo[1]]]
    } else {
        [lo, hi]
    }
}

/// An instruction set with kernels here, which this CPU has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Simd(Isa);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Isa {
    #[cfg(target_arch = "x86_64")]
    Ssse3,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Isa {
    /// Every instruction set with kernels here, widest last.
    #[cfg(target_arch = "x86_64")]
    const ALL: &[Isa] = &[Isa::Ssse3, Isa::Avx2];
    #[cfg(not(target_arch = "x86_64"))]
    const ALL: &[Isa] = &[];

    /// Whether this CPU has it (the standard library caches the CPUID answers).
    fn detected(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Ssse3 => is_x86_feature_detected!("ssse3"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => is_x86_feature_detected!("avx2"),
        }
    }
}

/// The kernels do rows in whole blocks of 16 bytes (one SSE register), 8 GF(2^16) symbols.
const BLOCK: usize = 16;

impl Simd {
    /// The kernels for a row of n bytes, if it has at least `min` (a block or more): for
    /// shorter rows the caller's loop costs what it did without them.
    #[inline]
    pub(super) fn for_row(n: usize, min: usize) -> Option<Simd> {
        if n < min {
            None
        } else {
            Self::best()
        }
    }

    /// The widest instruction set this CPU has kernels for, if any.
    fn best() -> Option<Simd> {
        Isa::ALL
            .iter()
            .rev()
            .copied()
            .find(|isa| isa.detected())
            .map(Simd)
    }

    /// All that this CPU has (the tests run each).
    #[cfg(test)]
    pub(super) fn available() -> impl Iterator<Item = Simd> {
        Isa::ALL
            .iter()
            .copied()
            .filter(|isa| isa.detected())
            .map(Simd)
    }

    /// dst[i] ^= c · src[i] over the longest common prefix of whole blocks; its length.
    pub(super) fn axpy8(self, t: &Nibbles8, dst: &mut [u8], src: &[u8]) -> usize {
        let n = prefix(dst.len().min(src.len()), BLOCK);
        let (dst, src) = (&mut dst[..n], &src[..n]);
        match self.0 {
            // SAFETY (each arm): a Simd holds only an instruction set the CPU has.
            #[cfg(target_arch = "x86_64")]
            Isa::Ssse3 => unsafe { ssse3::axpy8(t, dst, src) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { avx2::axpy8(t, dst, src) },
        }
        n
    }

    /// dst[i] = c · dst[i] over the longest prefix of whole blocks; its length.
    pub(super) fn scale8(self, t: &Nibbles8, dst: &mut [u8]) -> usize {
        let n = prefix(dst.len(), BLOCK);
        let dst = &mut dst[..n];
        match self.0 {
            // SAFETY (each arm): a Simd holds only an instruction set the CPU has.
            #[cfg(target_arch = "x86_64")]
            Isa::Ssse3 => unsafe { ssse3::scale8(t, dst) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { avx2::scale8(t, dst) },
        }
        n
    }

    /// `axpy8` over GF(2^16) symbols.
    pub(super) fn axpy16(self, t: &Nibbles16, dst: &mut [u8], src: &[u8]) -> usize {
        let n = prefix(dst.len().min(src.len()), BLOCK);
        let (dst, src) = (&mut dst[..n], &src[..n]);
        match self.0 {
            // SAFETY (each arm): a Simd holds only an instruction set the CPU has.
            #[cfg(target_arch = "x86_64")]
            Isa::Ssse3 => unsafe { ssse3::axpy16(&ssse3::tables16(t), dst, src) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { avx2::axpy16(t, dst, src) },
        }
        n
    }

    /// `scale8` over GF(2^16) symbols.
    pub(super) fn scale16(self, t: &Nibbles16, dst: &mut [u8]) -> usize {
        let n = prefix(dst.len(), BLOCK);
        let dst = &mut dst[..n];
        match self.0 {
            // SAFETY (each arm): a Simd holds only an instruction set the CPU has.
            #[cfg(target_arch = "x86_64")]
            Isa::Ssse3 => unsafe { ssse3::scale16(&ssse3::tables16(t), dst) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { avx2::scale16(t, dst) },
        }
        n
    }

    /// `axpy16` over u16 elements in memory order; the elements done.
    pub(super) fn axpy16_elems(self, t: &Nibbles16, dst: &mut [u16], src: &[u16]) -> usize {
        self.axpy16(t, bytes_mut(dst), bytes(src)) / 2
    }

    /// `scale16` over u16 elements in memory order; the elements done.
    pub(super) fn scale16_elems(self, t: &Nibbles16, dst: &mut [u16]) -> usize {
        self.scale16(t, bytes_mut(dst)) / 2
    }
}

/// n rounded down to whole blocks.
fn prefix(n: usize, block: usize) -> usize {
    n - n % block
}

/// The bytes of a u16 row, in memory order.
fn bytes(v: &[u16]) -> &[u8] {
    // SAFETY: the same 2 · len bytes, borrowed for as long as v; a u16 has no padding and
    // every byte is a valid u8, whose alignment (1) any address meets.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), 2 * v.len()) }
}

/// The bytes of a u16 row, in memory order, to write.
fn bytes_mut(v: &mut [u16]) -> &mut [u8] {
    // SAFETY: as in `bytes`; the borrow is as exclusive as v's, and every u8 written is
    // half of a valid u16.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), 2 * v.len()) }
}

/// 16 bytes at a time. Its functions are safe to call from others with SSSE3 on (those of
/// `avx2`), and from anywhere else once SSSE3 is detected (`Simd`).
#[cfg(target_arch = "x86_64")]
mod ssse3 {
    use super::{Nibbles16, Nibbles8};
    use std::arch::x86_64::*;

    #[target_feature(enable = "ssse3")]
    pub(super) fn load(b: &[u8; 16]) -> __m128i {
        // SAFETY: b is 16 readable bytes; an unaligned load reads exactly those.
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    }

    #[target_feature(enable = "ssse3")]
    fn store(b: &mut [u8; 16], v: __m128i) {
        // SAFETY: b is 16 writable bytes; an unaligned store writes exactly those.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
    }

    /// Each byte's low and high nibble, as shuffle indices.
    #[target_feature(enable = "ssse3")]
    fn nibbles(v: __m128i) -> [__m128i; 2] {
        let m = _mm_set1_epi8(0x0f);
        [_mm_and_si128(v, m), _mm_and_si128(_mm_srli_epi16(v, 4), m)]
    }

    /// c · s for 16 GF(2^8) bytes, with c's tables [lo, hi] loaded.
    #[target_feature(enable = "ssse3")]
    fn mul8(t: &[__m128i; 2], s: __m128i) -> __m128i {
        let [lo, hi] = nibbles(s);
        _mm_xor_si128(_mm_shuffle_epi8(t[0], lo), _mm_shuffle_epi8(t[1], hi))
    }

    #[target_feature(enable = "ssse3")]
    pub(super) fn axpy8(t: &Nibbles8, dst: &mut [u8], src: &[u8]) {
        let t = [load(&t.lo), load(&t.hi)];
        for (d, s) in dst.as_chunks_mut().0.iter_mut().zip(src.as_chunks().0) {
            store(d, _mm_xor_si128(load(d), mul8(&t, load(s))));
        }
    }

    #[target_feature(enable = "ssse3")]
    pub(super) fn scale8(t: &Nibbles8, dst: &mut [u8]) {
        let t = [load(&t.lo), load(&t.hi)];
        for d in dst.as_chunks_mut().0 {
            store(d, mul8(&t, load(d)));
        }
    }

    /// One byte of 16 GF(2^16) products: the XOR of the four nibbles' lookups.
    #[target_feature(enable = "ssse3")]
    fn lookup(t: &[__m128i; 4], nib: &[__m128i; 4]) -> __m128i {
        let a = _mm_xor_si128(
            _mm_shuffle_epi8(t[0], nib[0]),
            _mm_shuffle_epi8(t[1], nib[1]),
        );
        let b = _mm_xor_si128(
            _mm_shuffle_epi8(t[2], nib[2]),
            _mm_shuffle_epi8(t[3], nib[3]),
        );
        _mm_xor_si128(a, b)
    }

    /// c · s for the 16 GF(2^16) symbols of s = [a, b] (byte pairs). The even bytes of a
    /// and then of b are gathered into one register, the odd ones into another; the
    /// products' bytes come out in the same places, so interleaving the two pairs them.
    #[target_feature(enable = "ssse3")]
    fn mul16(t: &Tables16, [a, b]: [__m128i; 2]) -> [__m128i; 2] {
        let split = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
        let (a, b) = (_mm_shuffle_epi8(a, split), _mm_shuffle_epi8(b, split));
        let [even_lo, even_hi] = nibbles(_mm_unpacklo_epi64(a, b));
        let [odd_lo, odd_hi] = nibbles(_mm_unpackhi_epi64(a, b));
        let nib = [even_lo, even_hi, odd_lo, odd_hi];
        let (even, odd) = (lookup(&t[0], &nib), lookup(&t[1], &nib));
        [_mm_unpacklo_epi8(even, odd), _mm_unpackhi_epi8(even, odd)]
    }

    /// 16 u16 values, in two registers.
    #[target_feature(enable = "ssse3")]
    fn load_u16(v: &[u16; 16]) -> [__m128i; 2] {
        let p = v.as_ptr();
        // SAFETY: v is 32 readable bytes; the unaligned loads read the first and last 16.
        unsafe { [_mm_loadu_si128(p.cast()), _mm_loadu_si128(p.add(8).cast())] }
    }

    /// `PICK[k][b]`: shuffle indices that take basis entry 4k + b into the table entries n
    /// with bit b set, and zero (index 0x80) into the others.
    const PICK: [[[u8; 16]; 4]; 4] = {
        let mut pick = [[[0x80; 16]; 4]; 4];
        let mut i = 0;
        while i < 4 * 4 * 16 {
            let (k, b, n) = (i / 64, i / 16 % 4, i % 16);
            if n >> b & 1 == 1 {
                pick[k][b][n] = (4 * k + b) as u8;
            }
            i += 1;
        }
        pick
    };

    /// The table of nibble k from one byte of the basis products: entry n is the XOR of
    /// the basis entries 4k + b over the bits b of n.
    #[target_feature(enable = "ssse3")]
    fn nibble_table(basis_bytes: __m128i, k: usize) -> __m128i {
        let bit = |b: usize| _mm_shuffle_epi8(basis_bytes, load(&PICK[k][b]));
        _mm_xor_si128(_mm_xor_si128(bit(0), bit(1)), _mm_xor_si128(bit(2), bit(3)))
    }

    /// The byte tables in `by_place`'s order, built in registers (scalar stores read back
    /// as vectors would stall). No `array::map` here or in `avx2`: a generic function
    /// left out of line takes and returns its vectors through memory (it cost more than
    /// the kernels on short rows in one build).
    #[target_feature(enable = "ssse3")]
    pub(super) fn tables16(t: &Nibbles16) -> Tables16 {
        let m = _mm_set1_epi16(0xff);
        let [a, b] = load_u16(&t.basis);
        let lo = _mm_packus_epi16(_mm_and_si128(a, m), _mm_and_si128(b, m));
        let hi = _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8));
        let tables = |b| {
            [
                nibble_table(b, 0),
                nibble_table(b, 1),
                nibble_table(b, 2),
                nibble_table(b, 3),
            ]
        };
        super::by_place(tables(lo), tables(hi), t.big_endian)
    }

    /// The GF(2^16) kernels with the tables built (`avx2` has them for its last block).
    pub(super) type Tables16 = [[__m128i; 4]; 2];

    /// Blocks go in pairs (`mul16` fills both registers' lookups); an odd last block goes
    /// alone, paired with itself, so that a row leaves at most one symbol to `field`.
    #[target_feature(enable = "ssse3")]
    pub(super) fn axpy16(t: &Tables16, dst: &mut [u8], src: &[u8]) {
        let (pairs, last) = dst.as_chunks_mut().0.as_chunks_mut();
        let (src_pairs, src_last) = src.as_chunks().0.as_chunks();
        for ([d0, d1], [s0, s1]) in pairs.iter_mut().zip(src_pairs) {
            let [p0, p1] = mul16(t, [load(s0), load(s1)]);
            store(d0, _mm_xor_si128(load(d0), p0));
            store(d1, _mm_xor_si128(load(d1), p1));
        }
        if let ([d], [s]) = (last, src_last) {
            let [p, _] = mul16(t, [load(s), load(s)]);
            store(d, _mm_xor_si128(load(d), p));
        }
    }

    #[target_feature(enable = "ssse3")]
    pub(super) fn scale16(t: &Tables16, dst: &mut [u8]) {
        let (pairs, last) = dst.as_chunks_mut().0.as_chunks_mut();
        for [d0, d1] in pairs {
            let [p0, p1] = mul16(t, [load(d0), load(d1)]);
            store(d0, p0);
            store(d1, p1);
        }
        if let [d] = last {
            let [p, _] = mul16(t, [load(d), load(d)]);
            store(d, p);
        }
    }
}

/// 32 bytes at a time: the same steps as `ssse3` in each 128-bit half (VPSHUFB and the
/// unpacks stay within halves, so the tables are loaded into both).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{ssse3, Nibbles16, Nibbles8};
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2")]
    fn load(b: &[u8; 32]) -> __m256i {
        // SAFETY: b is 32 readable bytes; an unaligned load reads exactly those.
        unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx2")]
    fn store(b: &mut [u8; 32], v: __m256i) {
        // SAFETY: b is 32 writable bytes; an unaligned store writes exactly those.
        unsafe { _mm256_storeu_si256(b.as_mut_ptr().cast(), v) }
    }

    /// A 16-byte table in both halves.
    #[target_feature(enable = "avx2")]
    fn table(t: &[u8; 16]) -> __m256i {
        _mm256_broadcastsi128_si256(ssse3::load(t))
    }

    #[target_feature(enable = "avx2")]
    fn nibbles(v: __m256i) -> [__m256i; 2] {
        let m = _mm256_set1_epi8(0x0f);
        [
            _mm256_and_si256(v, m),
            _mm256_and_si256(_mm256_srli_epi16(v, 4), m),
        ]
    }

    #[target_feature(enable = "avx2")]
    fn mul8(t: &[__m256i; 2], s: __m256i) -> __m256i {
        let [lo, hi] = nibbles(s);
        _mm256_xor_si256(_mm256_shuffle_epi8(t[0], lo), _mm256_shuffle_epi8(t[1], hi))
    }

    /// The rows' lengths are multiples of 16 bytes: a last half block goes to SSSE3's
    /// kernel (AVX2 implies SSSE3), as in `scale8`.
    #[target_feature(enable = "avx2")]
    pub(super) fn axpy8(tables: &Nibbles8, dst: &mut [u8], src: &[u8]) {
        let t = [table(&tables.lo), table(&tables.hi)];
        let (blocks, rest) = dst.as_chunks_mut();
        let (src_blocks, src_rest) = src.as_chunks();
        for (d, s) in blocks.iter_mut().zip(src_blocks) {
            store(d, _mm256_xor_si256(load(d), mul8(&t, load(s))));
        }
        ssse3::axpy8(tables, rest, src_rest);
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn scale8(tables: &Nibbles8, dst: &mut [u8]) {
        let t = [table(&tables.lo), table(&tables.hi)];
        let (blocks, rest) = dst.as_chunks_mut();
        for d in blocks {
            store(d, mul8(&t, load(d)));
        }
        ssse3::scale8(tables, rest);
    }

    #[target_feature(enable = "avx2")]
    fn lookup(t: &[__m256i; 4], nib: &[__m256i; 4]) -> __m256i {
        let a = _mm256_xor_si256(
            _mm256_shuffle_epi8(t[0], nib[0]),
            _mm256_shuffle_epi8(t[1], nib[1]),
        );
        let b = _mm256_xor_si256(
            _mm256_shuffle_epi8(t[2], nib[2]),
            _mm256_shuffle_epi8(t[3], nib[3]),
        );
        _mm256_xor_si256(a, b)
    }

    /// As `ssse3::mul16`, for 32 symbols: each half of the even register holds even bytes
    /// of a's half and b's same half, which unpacking puts back where they came from.
    #[target_feature(enable = "avx2")]
    fn mul16(t: &[[__m256i; 4]; 2], [a, b]: [__m256i; 2]) -> [__m256i; 2] {
        #[rustfmt::skip]
        let split = _mm256_setr_epi8(
            0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
            0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
        );
        let (a, b) = (_mm256_shuffle_epi8(a, split), _mm256_shuffle_epi8(b, split));
        let [even_lo, even_hi] = nibbles(_mm256_unpacklo_epi64(a, b));
        let [odd_lo, odd_hi] = nibbles(_mm256_unpackhi_epi64(a, b));
        let nib = [even_lo, even_hi, odd_lo, odd_hi];
        let (even, odd) = (lookup(&t[0], &nib), lookup(&t[1], &nib));
        [
            _mm256_unpacklo_epi8(even, odd),
            _mm256_unpackhi_epi8(even, odd),
        ]
    }

    /// The 16-byte tables in both halves.
    #[target_feature(enable = "avx2")]
    fn tables16(t: &ssse3::Tables16) -> [[__m256i; 4]; 2] {
        let b = |out: &[__m128i; 4]| {
            [
                _mm256_broadcastsi128_si256(out[0]),
                _mm256_broadcastsi128_si256(out[1]),
                _mm256_broadcastsi128_si256(out[2]),
                _mm256_broadcastsi128_si256(out[3]),
            ]
        };
        [b(&t[0]), b(&t[1])]
    }

    /// The bytes of a row that `mul16` does in pairs of 32-byte blocks.
    fn paired(n: usize) -> usize {
        n - n % 64
    }

    /// Pairs of 32-byte blocks; the rest (up to three 16-byte blocks) goes to SSSE3's
    /// kernel, as in `scale16`.
    #[target_feature(enable = "avx2")]
    pub(super) fn axpy16(tables: &Nibbles16, dst: &mut [u8], src: &[u8]) {
        let half = ssse3::tables16(tables);
        let t = tables16(&half);
        let (dst, rest) = dst.split_at_mut(paired(dst.len()));
        let (src, src_rest) = src.split_at(dst.len());
        let pairs = dst.as_chunks_mut().0.as_chunks_mut().0;
        for ([d0, d1], [s0, s1]) in pairs.iter_mut().zip(src.as_chunks().0.as_chunks().0) {
            let [p0, p1] = mul16(&t, [load(s0), load(s1)]);
            store(d0, _mm256_xor_si256(load(d0), p0));
            store(d1, _mm256_xor_si256(load(d1), p1));
        }
        ssse3::axpy16(&half, rest, src_rest);
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn scale16(tables: &Nibbles16, dst: &mut [u8]) {
        let half = ssse3::tables16(tables);
        let t = tables16(&half);
        let (dst, rest) = dst.split_at_mut(paired(dst.len()));
        for [d0, d1] in dst.as_chunks_mut().0.as_chunks_mut().0 {
            let [p0, p1] = mul16(&t, [load(d0), load(d1)]);
            store(d0, p0);
            store(d1, p1);
        }
        ssse3::scale16(&half, rest);
    }
}
