//! A flow's destination (Chachulski et al. §4.3): decodes the batch in flight and, at
//! full rank, hands its natives up in order and acknowledges it end to end.

use crate::coding::rlnc::FieldCoeffs;
use crate::coding::rlnc::{Added, Decoder, Gf256};
use crate::coding::CodedSymbol;
use crate::net::Packet;
use std::sync::Arc;

/// What a combination did at the destination.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Got {
    /// Of a batch decoded already (its acknowledgement may have been lost).
    Stale,
    /// Not innovative.
    NotInnovative,
    /// Innovative, the batch not decoded yet.
    Innovative,
    /// It completed the batch: its natives, in order, with the decoded bytes.
    Decoded(Vec<Packet>),
}

#[derive(Debug)]
struct State {
    batch: u32,
    dec: Decoder<Gf256>,
    natives: Arc<[Packet]>,
}

/// One flow's destination state.
#[derive(Debug, Default)]
pub(super) struct Sink {
    state: Option<State>,
    /// Batches up to this one are decoded.
    pub(super) decoded_through: Option<u32>,
}

impl Sink {
    /// A combination of `batch` arrives.
    pub(super) fn receive(&mut self, batch: u32, sym: &CodedSymbol) -> Got {
        if self.decoded_through.is_some_and(|d| batch <= d) {
            return Got::Stale;
        }
        if self.state.as_ref().is_some_and(|s| batch < s.batch) {
            return Got::Stale;
        }
        let Some(coeffs) = Gf256::view(&sym.coeffs) else {
            return Got::Stale;
        };
        if self.state.as_ref().is_none_or(|s| s.batch != batch) {
            self.state = Some(State {
                batch,
                dec: Decoder::new(0, sym.natives.len()),
                natives: sym.natives.clone(),
            });
        }
        let st = self.state.as_mut().expect("set above");
        match st.dec.add(0, coeffs, sym.payload.as_deref()) {
            Added::Innovative { .. } => {}
            _ => return Got::NotInnovative,
        }
        if st.dec.rank() < st.natives.len() {
            return Got::Innovative;
        }
        let natives = st
            .natives
            .iter()
            .enumerate()
            // The decoder's bytes, never the stand-in's (as TCP/NC's destination): a lost
            // payload path cannot pass.
            .map(|(i, n)| st.dec.native(i as u64, n.clone()))
            .collect();
        self.decoded_through = Some(batch);
        self.state = None;
        Got::Decoded(natives)
    }
}
