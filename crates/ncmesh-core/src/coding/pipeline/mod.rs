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

/// The entry of key `k` in a small keyed list, added with its default if missing (a
/// node sees a handful of flow directions: a linear search, no hashing).
fn entry<K: PartialEq, T: Default>(v: &mut Vec<(K, T)>, k: K) -> &mut T {
    let i = match v.iter().position(|e| e.0 == k) {
        Some(i) => i,
        None => {
            v.push((k, T::default()));
            v.len() - 1
        }
    };
    &mut v[i].1
}
pub use config::{PipelineCfg, PipelineParams};
pub use header::PipelineHeader;

/// Per-node counters of Pipeline coding (result columns `pl_*`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PipelineCounters {
    /// Combinations this node sent as a source.
    pub source_coded: u64,
    /// Re-encoded combinations this node sent as a relay.
    pub recoded: u64,
    /// Innovative combinations received (relay or destination).
    pub innovative: u64,
    /// Non-innovative combinations received (a relay drops them).
    pub not_innovative: u64,
    /// Combinations for a generation already delivered, given up or no longer kept.
    pub late: u64,
    /// Packets decoded and handed up at a destination.
    pub decoded: u64,
    /// Packets a destination gave up on (never decoded in time).
    pub given_up: u64,
    /// Loss adaptation: updates of the smoothed loss (one per generation reported).
    pub loss_updates: u64,
    /// Loss adaptation: the highest smoothed loss of the node's outgoing links at the
    /// end of the run, per mille.
    pub loss_permille: u64,
}

impl PipelineCounters {
    /// The counters' names in results, in `values` order.
    pub const NAMES: [&'static str; 9] = [
        "pl_source_coded",
        "pl_recoded",
        "pl_innovative",
        "pl_not_innovative",
        "pl_late",
        "pl_decoded",
        "pl_given_up",
        "pl_loss_updates",
        "pl_loss_permille",
    ];

    /// The counters in `NAMES` order.
    pub fn values(&self) -> [u64; 9] {
        [
            self.source_coded,
            self.recoded,
            self.innovative,
            self.not_innovative,
            self.late,
            self.decoded,
            self.given_up,
            self.loss_updates,
            self.loss_permille,
        ]
    }
}
