//! Intra-flow random linear coding for TCP: Pipeline coding (Chen, Oh, Tao, Gerla &
//! Sanadidi, ICMU 2010, as Chen et al.'s ComboCoding paper describes it in "Intra-flow
//! coding", Eq. 1-2): a source codes each packet at once with the packets of its
//! generation so far, relays re-encode innovative packets and drop the rest, and the
//! destination decodes progressively and hands packets up in order. TCP above is
//! unmodified. The codec is `coding::rlnc`.

mod adapt;
pub mod coder;
pub mod config;
mod generations;
pub mod header;
mod sink;
mod source;

pub use coder::PipelineCoder;

use crate::coding::{CodedSymbol, Coeffs, Span};
use crate::net::{Packet, L4};

/// A Pipeline combination's parts: the symbol, its generation and its GF(2^8)
/// coefficients (None: not one of this family's combinations).
fn generation_of(p: &Packet) -> Option<(&CodedSymbol, u32, &[u8])> {
    match &p.l4 {
        L4::Coded(s) => match (&s.span, &s.coeffs) {
            (Span::Generation { id, .. }, Coeffs::Gf256(c)) => Some((s, *id, c)),
            _ => None,
        },
        _ => None,
    }
}

use crate::coding::keyed::value_or_default as entry;
pub use config::{PipelineCfg, PipelineParams};
pub use header::PipelineHeader;

crate::family_counters! {
    /// Per-node counters of Pipeline coding (result columns `pl_*`).
    pub struct PipelineCounters, prefix "pl_" {
        /// Combinations this node sent as a source.
        source_coded: "combinations",
        /// Re-encoded combinations this node sent as a relay.
        recoded: "combinations",
        /// Innovative combinations received (relay or destination).
        innovative: "combinations",
        /// Non-innovative combinations received (a relay drops them).
        not_innovative: "combinations",
        /// Combinations for a generation already delivered, given up or no longer kept.
        late: "combinations",
        /// Packets decoded and handed up at a destination.
        decoded: "packets",
        /// Packets a destination gave up on (never decoded in time).
        given_up: "packets",
        /// Loss adaptation: updates of the smoothed loss (one per generation reported).
        loss_updates: "updates",
        /// Loss adaptation: the highest smoothed loss of the node's outgoing links at the
        /// end of the run, per mille.
        loss_permille: "per mille",
    }
}
