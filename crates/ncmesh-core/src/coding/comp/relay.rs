//! A CoMP relay's coding buffer (Gheorghiu et al. Alg. 4, §II-E): the innovative
//! combinations it received, kept in reduced form by the progressive decoder, from which
//! it makes fresh combinations when it holds a credit. A combination whose window starts
//! later than the buffer's first packet makes the buffer forget the older packets first
//! (the source has slid past them).

use crate::coding::rlnc::FieldCoeffs;
use crate::coding::rlnc::{Added, Decoder, Gf65536, StandIns};
use crate::coding::tcpnc::TcpNcHeader;
use crate::coding::{CodedSymbol, Header, Span};
use crate::engine::Rng;
use crate::net::{NodeId, Packet};
use std::sync::Arc;

/// Decoder columns to start with (it grows with the window).
const INITIAL_WIDTH: usize = 64;

/// One flow's coding buffer at a relay.
#[derive(Debug)]
pub(crate) struct Relay {
    dec: Decoder<Gf65536>,
    /// Packets `dec.base()`, ... as their source sent them, as far as a received
    /// combination has spanned.
    natives: StandIns,
    /// The last span made and its stand-ins (consecutive combinations often share it),
    /// or the span of the last combination received, whose stand-ins it carried.
    shared: Option<(u64, usize, Arc<[Packet]>)>,
    /// Combinations carry payload bytes (the scenario's `simulation.payload_bytes`).
    with_payload: bool,
    /// The end-to-end header every combination carries (window start and length).
    header: Header,
    coeffs: Vec<u16>,
    payload: Vec<u8>,
}

impl Relay {
    pub(crate) fn new() -> Relay {
        Relay {
            dec: Decoder::new(0, INITIAL_WIDTH),
            natives: StandIns::default(),
            shared: None,
            with_payload: false,
            header: Arc::new(TcpNcHeader {
                id: 0,
                with_id: false,
            }),
            coeffs: Vec::new(),
            payload: Vec::new(),
        }
    }

    /// Degrees of freedom held.
    pub(crate) fn rank(&self) -> usize {
        self.dec.rank()
    }

    /// A combination over the window from `first`: forget what it has slid past, then
    /// keep it if innovative (Alg. 4, lines 2-5).
    pub(crate) fn receive(&mut self, sym: &CodedSymbol, first: u64) -> Added {
        let Some(coeffs) = Gf65536::view(&sym.coeffs) else {
            return Added::Stale;
        };
        self.slide_to(first);
        self.with_payload = sym.payload.is_some();
        // The stand-ins of the packets newly spanned (the buffer's first packet is now at
        // or before `first`, so none is skipped).
        self.natives.extend(first, &sym.natives);
        let added = self.dec.add(first, coeffs, sym.payload.as_deref());
        if matches!(added, Added::Innovative { .. }) {
            // A recoded combination over exactly this span reuses its stand-ins.
            self.shared = Some((first, sym.natives.len(), sym.natives.clone()));
        }
        added
    }

    /// One past the last packet its buffer spans.
    pub(crate) fn end(&self) -> u64 {
        self.natives.end().max(self.dec.base())
    }

    /// Empties the buffer if the destination has seen every packet it spans (an
    /// acknowledgement naming `first_unseen` passed on its way to the source): the
    /// source has dropped them too, and the destination needs no more of them. Returns
    /// whether it did.
    pub(crate) fn flush(&mut self, first_unseen: u64) -> bool {
        if self.rank() == 0 || self.end() > first_unseen {
            return false;
        }
        self.slide_to(first_unseen);
        true
    }

    /// Forgets the packets before `base` (the source's window has moved past them:
    /// a newer combination, or the destination's acknowledgement on its way back).
    pub(crate) fn slide_to(&mut self, base: u64) {
        if base <= self.dec.base() {
            return;
        }
        self.natives.slide_to(base);
        self.dec.slide_to(base);
        self.shared = None;
    }

    /// A fresh random combination of everything held, as a packet of the flow from
    /// `src` to `dst` (None: nothing held).
    pub(crate) fn recode(&mut self, rng: &mut Rng, src: NodeId, dst: NodeId) -> Option<Packet> {
        let with_payload = self.with_payload;
        let lo = self.dec.recode(
            rng,
            &mut self.coeffs,
            with_payload.then_some(&mut self.payload),
        )?;
        let len = self.coeffs.len();
        let natives = match &self.shared {
            Some((f, l, n)) if *f == lo && *l == len => n.clone(),
            _ => {
                let n: Arc<[Packet]> = self.natives.range(lo, len).cloned().collect();
                self.shared = Some((lo, len, n.clone()));
                n
            }
        };
        let coeffs = Gf65536::wrap(&self.coeffs);
        let header_bytes = super::e2e_header_bytes() + coeffs.bytes();
        let symbol = CodedSymbol {
            span: Span::Window {
                first: lo,
                len: len.min(u16::MAX as usize) as u16,
            },
            coeffs,
            payload: with_payload.then(|| std::mem::take(&mut self.payload).into_boxed_slice()),
            natives,
            header: Some(self.header.clone()),
        };
        Some(symbol.into_packet(src, dst, header_bytes))
    }
}
