//! Progressive Gaussian elimination over a window of a flow's packets: the one mechanism
//! behind a Pipeline-coding destination (decodes on arrival, Chen et al. Eq. 2), a relay
//! that drops non-innovative packets and recodes what it holds (Chen et al., "Intra-flow
//! coding"; MORE's forwarders), and TCP/NC's receiver, which acknowledges "seen" packets
//! (Sundararajan et al. §IV: packet k is seen once the receiver can form p_k plus a
//! combination of later packets only).
//!
//! The decoder keeps its rows in reduced row echelon form, each stored at its pivot: the
//! row of pivot j is 1 at column j, 0 at every other pivot column and before j. So
//! - a combination is innovative iff it is not zero after subtracting, for each non-zero
//!   entry at a pivot column, that pivot's row (one pass, ascending);
//! - its leading column after reduction becomes a new pivot: every innovative packet makes
//!   exactly one more packet seen, and the seen packets are the pivot columns;
//! - packet j is decoded when its row has no other non-zero entry.
//!
//! Columns are positions relative to `base` (a generation's first packet, or the first
//! packet of a sliding window); `slide_to` forgets the columns before a new base.
//! Payload bytes, when carried, are reduced with the coefficients, so a decoded row's
//! payload is the packet's bytes (padded to the longest payload seen).

use super::field::Field;
use crate::engine::Rng;
use crate::net::Packet;

/// What adding a combination did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// It raised the rank; this packet (absolute index) is newly seen.
    Innovative {
        /// The packet it made seen (its pivot).
        seen: u64,
    },
    /// It was in the span of what the decoder holds.
    NotInnovative,
    /// It has a non-zero coefficient for a packet before `base`, which the decoder has
    /// forgotten; it was not used.
    Stale,
}

/// A progressive decoder over GF(2^m) (see the module documentation).
#[derive(Debug, Clone)]
pub struct Decoder<F: Field> {
    base: u64,
    width: usize,
    /// width × width coefficients; the row of pivot j starts at j·width.
    rows: Vec<F::Elem>,
    pivot: Vec<bool>,
    decoded: Vec<bool>,
    /// One past the last column any stored row can have non-zero: the largest end of a
    /// combination added since the columns' base. Eliminations stop there (the rows are
    /// zero beyond it, and skipping zeros changes no value), so a wide window with few
    /// live columns costs its live columns only.
    extent: usize,
    /// The payload of the row of pivot j (empty when payloads are not carried).
    payloads: Vec<Vec<u8>>,
    payload_len: usize,
    rank: usize,
    scratch: Vec<F::Elem>,
    scratch_payload: Vec<u8>,
    newly: Vec<u64>,
}

impl<F: Field> Decoder<F> {
    /// An empty decoder for packets `base`, `base + 1`, ... (`width` columns to start
    /// with; it grows when a combination reaches beyond).
    pub fn new(base: u64, width: usize) -> Decoder<F> {
        Decoder {
            base,
            width,
            rows: vec![F::ZERO; width * width],
            pivot: vec![false; width],
            decoded: vec![false; width],
            extent: 0,
            payloads: vec![Vec::new(); width],
            payload_len: 0,
            rank: 0,
            scratch: vec![F::ZERO; width],
            scratch_payload: Vec::new(),
            newly: Vec::new(),
        }
    }

    /// Empties the decoder for packets from `base` on, keeping its memory.
    pub fn reset(&mut self, base: u64) {
        self.base = base;
        self.rows.fill(F::ZERO);
        self.pivot.fill(false);
        self.decoded.fill(false);
        self.extent = 0;
        for p in &mut self.payloads {
            p.clear();
        }
        self.payload_len = 0;
        self.rank = 0;
        self.newly.clear();
    }

    /// The first packet the decoder covers.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Independent combinations held (degrees of freedom).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Has packet `idx` been decoded?
    pub fn is_decoded(&self, idx: u64) -> bool {
        self.col(idx).is_some_and(|j| self.decoded[j])
    }

    /// Has packet `idx` been seen (a pivot)? Packets before `base` count as seen.
    pub fn is_seen(&self, idx: u64) -> bool {
        idx < self.base || self.col(idx).is_some_and(|j| self.pivot[j])
    }

    /// The first packet not seen: what TCP/NC's receiver acknowledges.
    pub fn first_unseen(&self) -> u64 {
        self.base + self.pivot.iter().position(|&p| !p).unwrap_or(self.width) as u64
    }

    /// The first packet not decoded (packets before it can go up in order).
    pub fn first_undecoded(&self) -> u64 {
        self.base + self.decoded.iter().position(|&d| !d).unwrap_or(self.width) as u64
    }

    /// The packets the last `add` decoded, ascending.
    pub fn newly_decoded(&self) -> &[u64] {
        &self.newly
    }

    /// The decoded payload of packet `idx` (zero-padded to the longest payload the
    /// decoder has seen), if decoded and payloads are carried.
    pub fn decoded_payload(&self, idx: u64) -> Option<&[u8]> {
        let j = self.col(idx)?;
        (self.decoded[j] && self.payload_len > 0).then(|| &self.payloads[j][..])
    }

    /// Packet `idx` as a sink hands it up: `stand_in` (the source's packet as a
    /// combination named it, kept for its headers) with the decoder's bytes in place of
    /// its own when payloads are carried. If the decoder has no bytes for it (a
    /// combination that lost its payload on the way), the bytes are dropped: the
    /// endpoint's payload check then counts the segment, so a sink can never pass the
    /// stand-in's own bytes off as decoded ones.
    pub fn native(&self, idx: u64, mut stand_in: Packet) -> Packet {
        if let Some(len) = stand_in.carried().map(<[u8]>::len) {
            match self.decoded_payload(idx) {
                Some(bytes) => stand_in.set_carried(bytes[..len.min(bytes.len())].into()),
                None => stand_in.clear_carried(),
            }
        }
        stand_in
    }

    fn col(&self, idx: u64) -> Option<usize> {
        let j = idx.checked_sub(self.base)?;
        (j < self.width as u64).then_some(j as usize)
    }

    /// Makes room for columns up to `width` (rare: a window wider than foreseen).
    fn grow(&mut self, width: usize) {
        let old = self.width;
        let mut rows = vec![F::ZERO; width * width];
        for j in 0..old {
            rows[j * width..j * width + old].copy_from_slice(&self.rows[j * old..(j + 1) * old]);
        }
        self.rows = rows;
        self.width = width;
        self.pivot.resize(width, false);
        self.decoded.resize(width, false);
        self.payloads.resize(width, Vec::new());
        self.scratch.resize(width, F::ZERO);
    }

    /// Pads every stored payload to `len` bytes (a longer payload arrived).
    fn widen_payloads(&mut self, len: usize) {
        let len = len.div_ceil(F::SYMBOL_BYTES) * F::SYMBOL_BYTES;
        if len <= self.payload_len {
            return;
        }
        self.payload_len = len;
        for (j, p) in self.payloads.iter_mut().enumerate() {
            if self.pivot[j] {
                p.resize(len, 0);
            }
        }
    }

    /// Reduces a combination by the stored pivots into the scratch vectors (payload too,
    /// if given) and returns its leading column with the extent it reaches (None: not
    /// innovative), or `Err` for a stale one.
    fn reduce(
        &mut self,
        first: u64,
        coeffs: &[F::Elem],
        payload: Option<&[u8]>,
    ) -> Result<Option<(usize, usize)>, ()> {
        // Coefficients of forgotten packets: usable only if all zero.
        let skip = (self.base.saturating_sub(first) as usize).min(coeffs.len());
        if coeffs[..skip].iter().any(|&c| c != F::ZERO) {
            return Err(());
        }
        let coeffs = &coeffs[skip..];
        let start = (first + skip as u64 - self.base) as usize;
        let end = start + coeffs.len();
        if end > self.width {
            self.grow(end.max(2 * self.width));
        }
        if let Some(p) = payload {
            self.widen_payloads(p.len());
        }
        let w = self.width;
        // The reduced combination is zero beyond the stored rows' extent and its own end.
        let e = self.extent.max(end);
        let Decoder {
            rows,
            pivot,
            payloads,
            scratch: v,
            scratch_payload: vp,
            ..
        } = self;
        v.fill(F::ZERO);
        v[start..end].copy_from_slice(coeffs);
        vp.clear();
        if let Some(p) = payload {
            vp.extend_from_slice(p);
            vp.resize(self.payload_len, 0);
        }
        // One ascending pass: a pivot's row is zero before its pivot and at every other
        // pivot, so subtracting it clears column j and touches no earlier pivot.
        for j in start..e {
            let c = v[j];
            if c != F::ZERO && pivot[j] {
                F::axpy(&mut v[j..e], c, &rows[j * w + j..j * w + e]);
                if payload.is_some() {
                    F::axpy_bytes(vp, c, &payloads[j]);
                }
            }
        }
        Ok(v[..e].iter().position(|&c| c != F::ZERO).map(|p| (p, e)))
    }

    /// Adds the combination with `coeffs` over packets `first`, `first + 1`, ... (and its
    /// payload bytes, if carried; a decoder is given payloads always or never).
    pub fn add(&mut self, first: u64, coeffs: &[F::Elem], payload: Option<&[u8]>) -> Added {
        self.newly.clear();
        let (p, e) = match self.reduce(first, coeffs, payload) {
            Err(()) => return Added::Stale,
            Ok(None) => return Added::NotInnovative,
            Ok(Some(pe)) => pe,
        };
        let w = self.width;
        self.extent = e;
        let Decoder {
            rows,
            pivot,
            payloads,
            scratch: v,
            scratch_payload: vp,
            ..
        } = self;
        // Normalise to a leading 1, then clear column p from the earlier pivots' rows.
        let inv = F::inv(v[p]).expect("non-zero");
        F::scale(&mut v[p..e], inv);
        if payload.is_some() {
            F::scale_bytes(vp, inv);
        }
        let mut touched = std::mem::take(&mut self.newly);
        for r in 0..p {
            let c = rows[r * w + p];
            if pivot[r] && c != F::ZERO {
                F::axpy(&mut rows[r * w + p..r * w + e], c, &v[p..e]);
                if payload.is_some() {
                    F::axpy_bytes(&mut payloads[r], c, vp);
                }
                touched.push(r as u64);
            }
        }
        rows[p * w..(p + 1) * w].copy_from_slice(v);
        if payload.is_some() {
            payloads[p].clear();
            payloads[p].extend_from_slice(vp);
        }
        pivot[p] = true;
        self.rank += 1;
        touched.push(p as u64);
        // Of the rows that changed, those left with their pivot alone are decoded.
        let mut newly = touched;
        newly.retain(|&r| {
            let r = r as usize;
            let done = !self.decoded[r]
                && self.rows[r * w + r + 1..r * w + e.max(r + 1)]
                    .iter()
                    .all(|&c| c == F::ZERO);
            self.decoded[r] |= done;
            done
        });
        for r in &mut newly {
            *r += self.base;
        }
        self.newly = newly;
        Added::Innovative {
            seen: self.base + p as u64,
        }
    }

    /// Would this combination raise the rank? (Nothing is stored.)
    pub fn is_innovative(&mut self, first: u64, coeffs: &[F::Elem]) -> bool {
        matches!(self.reduce(first, coeffs, None), Ok(Some(_)))
    }

    /// A fresh random combination of everything held (a relay's re-encoded packet, Ho
    /// et al.): every stored row times a random non-zero coefficient, so the result spans
    /// the same packets as what was received. Writes the coefficients from the returned
    /// first packet on (and the payload, if `payload` is given); None when nothing is held.
    pub fn recode(
        &self,
        rng: &mut Rng,
        coeffs: &mut Vec<F::Elem>,
        payload: Option<&mut Vec<u8>>,
    ) -> Option<u64> {
        let w = self.width;
        let lo = self.pivot.iter().position(|&p| p)?;
        let hi = (lo..w)
            .filter(|&j| self.pivot[j])
            .map(|j| {
                (j..w)
                    .rev()
                    .find(|&c| self.rows[j * w + c] != F::ZERO)
                    .unwrap_or(j)
            })
            .max()
            .unwrap_or(lo);
        coeffs.clear();
        coeffs.resize(hi - lo + 1, F::ZERO);
        let mut payload = payload;
        if let Some(p) = payload.as_deref_mut() {
            p.clear();
            p.resize(self.payload_len, 0);
        }
        for j in lo..=hi {
            if !self.pivot[j] {
                continue;
            }
            let c = F::random_nonzero(rng);
            F::axpy(
                &mut coeffs[j - lo..],
                c,
                &self.rows[j * w + j..j * w + hi + 1],
            );
            if let Some(p) = payload.as_deref_mut() {
                F::axpy_bytes(p, c, &self.payloads[j]);
            }
        }
        Some(self.base + lo as u64)
    }

    /// Forgets the packets before `base` (a sliding window moved on): their rows and
    /// columns go; rows of later pivots are zero there already.
    pub fn slide_to(&mut self, base: u64) {
        if base <= self.base {
            return;
        }
        let n = ((base - self.base) as usize).min(self.width);
        let w = self.width;
        let dropped = self.pivot[..n].iter().filter(|&&p| p).count();
        // Rows and columns from the extent on are zero: only the block before it moves.
        let e = self.extent;
        let m = e.saturating_sub(n);
        for j in 0..m {
            let (src, dst) = ((j + n) * w + n, j * w);
            self.rows.copy_within(src..src + m, dst);
            self.rows[dst + m..dst + e].fill(F::ZERO);
        }
        for j in m..e {
            self.rows[j * w..j * w + e].fill(F::ZERO);
        }
        self.extent = m;
        self.pivot.copy_within(n.., 0);
        self.pivot[w - n..].fill(false);
        self.decoded.copy_within(n.., 0);
        self.decoded[w - n..].fill(false);
        self.payloads.rotate_left(n);
        for p in &mut self.payloads[w - n..] {
            p.clear();
        }
        self.rank -= dropped;
        self.base = base;
        self.newly.clear();
    }
}
