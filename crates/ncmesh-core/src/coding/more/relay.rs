//! A forwarder's state for one flow (Chachulski et al. §4.2): the current batch's
//! innovative packets heard from upstream (a decoder), and the credit counter, which
//! grows by the forwarder's TX credit for every packet of the batch heard from upstream
//! and pays one per recoded packet sent.

use super::source::coded_packet;
use crate::coding::rlnc::FieldCoeffs;
use crate::coding::rlnc::{Added, Decoder, Gf256};
use crate::coding::{CodedSymbol, Header};
use crate::engine::Rng;
use crate::net::Packet;
use std::sync::Arc;

/// What a heard packet did at a forwarder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Heard {
    /// Of a batch acknowledged already: ignored (its source may have missed the
    /// acknowledgement).
    Acked,
    /// Of an older batch: ignored.
    Stale,
    /// Used; whether it was innovative, and whether it flushed an older batch.
    Taken {
        /// It raised the rank (stored).
        innovative: bool,
        /// It began a newer batch, so the older batch's state went.
        flushed: bool,
    },
}

/// The current batch at a forwarder.
#[derive(Debug)]
struct State {
    batch: u32,
    dec: Decoder<Gf256>,
    natives: Arc<[Packet]>,
    header: Header,
    carried: bool,
}

/// One flow's forwarder state.
#[derive(Debug, Default)]
pub(super) struct Relay {
    state: Option<State>,
    /// The credit counter.
    pub(super) credit: f64,
    /// Batches up to this one are acknowledged: their packets are ignored.
    acked_through: Option<u32>,
    coeffs: Vec<u8>,
    buf: Vec<u8>,
}

impl Relay {
    /// The batch it holds, if any.
    pub(super) fn batch(&self) -> Option<u32> {
        self.state.as_ref().map(|s| s.batch)
    }

    /// Rank held of the current batch.
    pub(super) fn rank(&self) -> usize {
        self.state.as_ref().map_or(0, |s| s.dec.rank())
    }

    /// A packet of `batch` from upstream, worth `credit` (this forwarder's TX credit).
    pub(super) fn hear(&mut self, batch: u32, sym: &CodedSymbol, credit: f64) -> Heard {
        if self.acked_through.is_some_and(|a| batch <= a) {
            return Heard::Acked;
        }
        if self.batch().is_some_and(|b| batch < b) {
            return Heard::Stale;
        }
        let Some(coeffs) = <Gf256 as FieldCoeffs>::view(&sym.coeffs) else {
            return Heard::Stale;
        };
        let mut flushed = false;
        if self.batch() != Some(batch) {
            flushed = self.state.is_some();
            self.credit = 0.0;
            self.state = Some(State {
                batch,
                dec: Decoder::new(0, sym.natives.len()),
                natives: sym.natives.clone(),
                header: sym.header.clone().expect("a MORE packet has its header"),
                carried: sym.payload.is_some(),
            });
        }
        let st = self.state.as_mut().expect("set above");
        self.credit += credit;
        let added = st.dec.add(0, coeffs, sym.payload.as_deref());
        Heard::Taken {
            innovative: matches!(added, Added::Innovative { .. }),
            flushed,
        }
    }

    /// The destination acknowledged `batch`: forget it (and older); true if state went.
    pub(super) fn flush(&mut self, batch: u32) -> bool {
        self.acked_through = Some(self.acked_through.map_or(batch, |a| a.max(batch)));
        if self.batch().is_some_and(|b| b <= batch) {
            self.state = None;
            self.credit = 0.0;
            return true;
        }
        false
    }

    /// May it send (credit of at least one, something held)?
    pub(super) fn due(&self) -> bool {
        self.credit >= 1.0 && self.rank() > 0
    }

    /// A recoded packet of what it holds (Ho et al.'s random recombination), coded over
    /// the whole batch (zeros for packets it has not heard of).
    pub(super) fn recode(&mut self, rng: &mut Rng) -> Option<Packet> {
        let st = self.state.as_ref()?;
        let mut c = Vec::new();
        let pay = st.carried.then_some(&mut self.buf);
        let first = st.dec.recode(rng, &mut c, pay)? as usize;
        let n = st.natives.len();
        self.coeffs.clear();
        self.coeffs.resize(n, 0);
        self.coeffs[first..first + c.len()].copy_from_slice(&c);
        let payload = st.carried.then(|| self.buf.as_slice().into());
        Some(coded_packet(
            st.batch,
            &st.natives,
            &self.coeffs,
            payload,
            &st.header,
        ))
    }
}
