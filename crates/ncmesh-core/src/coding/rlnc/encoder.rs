//! The source side of random linear coding: a combination of the packets a source holds
//! (Chen et al. Eq. 1: random coefficients over the packets currently in the generation;
//! TCP/NC and CoMP: over the coding window), and its payload bytes.

use super::field::Field;
use crate::engine::Rng;
use crate::net::Packet;

/// Draws `n` random non-zero coefficients into `coeffs` (non-zero, so that every packet
/// of the span is in the combination: Eq. 2's lower-triangular structure needs the newest
/// packet's coefficient to be non-zero, and a zero elsewhere would only waste it).
pub fn random_coeffs<F: Field>(rng: &mut Rng, n: usize, coeffs: &mut Vec<F::Elem>) {
    coeffs.clear();
    coeffs.extend((0..n).map(|_| F::random_nonzero(rng)));
}

/// The payload of the combination `coeffs` of `payloads` (one per coefficient; shorter
/// ones are zero-padded), padded to whole field symbols.
pub fn combine<F: Field>(coeffs: &[F::Elem], payloads: &[&[u8]], out: &mut Vec<u8>) {
    debug_assert_eq!(coeffs.len(), payloads.len());
    let len = payloads.iter().map(|p| p.len()).max().unwrap_or(0);
    out.clear();
    out.resize(len.div_ceil(F::SYMBOL_BYTES) * F::SYMBOL_BYTES, 0);
    for (&c, p) in coeffs.iter().zip(payloads) {
        F::axpy_bytes(out, c, p);
    }
}

/// The payload of the combination `coeffs` of `natives` (one coefficient per native;
/// a native without bytes counts as empty), or `None` when none carries bytes
/// (coefficient-only runs). `buf` is reused between calls.
pub fn combine_packets<F: Field>(
    coeffs: &[F::Elem],
    natives: &[Packet],
    buf: &mut Vec<u8>,
) -> Option<Box<[u8]>> {
    if natives.iter().all(|p| p.payload.is_none()) {
        return None;
    }
    let views: Vec<&[u8]> = natives
        .iter()
        .map(|p| p.payload.as_deref().unwrap_or(&[]))
        .collect();
    combine::<F>(coeffs, &views, buf);
    Some(buf.as_slice().into())
}
