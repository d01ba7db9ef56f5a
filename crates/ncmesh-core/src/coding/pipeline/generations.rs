//! The generations of one flow direction that a relay or destination is decoding: the
//! newest `kept` ones, each a progressive decoder over its k packets and the packets as
//! the source sent them (the longest `natives` seen: later combinations span more).

use super::header::PipelineHeader;
use crate::coding::rlnc::{Added, Decoder, Gf256};
use crate::coding::{CodedSymbol, Header};
use crate::net::Packet;
use std::collections::VecDeque;
use std::sync::Arc;

/// One generation being decoded.
#[derive(Debug)]
pub(super) struct Generation {
    /// Its number within the flow direction.
    pub(super) id: u32,
    /// Progressive decoder over its packets (positions 0..k).
    pub(super) dec: Decoder<Gf256>,
    /// Its packets as the source sent them, as far as any combination has spanned.
    pub(super) natives: Arc<[Packet]>,
    /// Its header as the source wrote it (relays copy it onto what they re-encode).
    pub(super) header: Header,
    /// The previous generation's length, from the header.
    pub(super) prev_len: usize,
}

/// Where a combination for generation `id` landed.
pub(super) enum Slot {
    /// In the kept generation at this index.
    At(usize),
    /// Older than every kept generation.
    TooOld,
}

/// The newest generations of a flow direction.
#[derive(Debug, Default)]
pub(super) struct Generations {
    gens: VecDeque<Generation>,
}

impl Generations {
    /// The slot of generation `id`, opening it (and dropping the oldest beyond `kept`)
    /// if it is newer than all; `evicted` gets the ids dropped.
    pub(super) fn slot(
        &mut self,
        sym: &CodedSymbol,
        id: u32,
        k: usize,
        kept: usize,
        evicted: &mut Vec<Generation>,
    ) -> Slot {
        if let Some(i) = self.gens.iter().position(|g| g.id == id) {
            return Slot::At(i);
        }
        // Kept generations ascend: older than the newest and not kept is too old.
        if self.gens.back().is_some_and(|g| id < g.id) {
            return Slot::TooOld;
        }
        let header = sym
            .header
            .clone()
            .expect("a Pipeline combination has its header");
        let prev_len = sym
            .header_as::<PipelineHeader>()
            .map_or(0, |h| h.prev_len as usize);
        self.gens.push_back(Generation {
            id,
            dec: Decoder::new(0, k),
            natives: Arc::from(Vec::new()),
            header,
            prev_len,
        });
        while self.gens.len() > kept {
            evicted.extend(self.gens.pop_front());
        }
        Slot::At(self.gens.len() - 1)
    }

    /// Adds a combination to the generation at `i`, keeping the longest natives.
    pub(super) fn add(
        &mut self,
        i: usize,
        coeffs: &[u8],
        payload: Option<&[u8]>,
        natives: &Arc<[Packet]>,
    ) -> Added {
        let g = &mut self.gens[i];
        let added = g.dec.add(0, coeffs, payload);
        if natives.len() > g.natives.len() {
            g.natives = natives.clone();
        }
        added
    }

    /// The generation at `i`.
    pub(super) fn get(&self, i: usize) -> &Generation {
        &self.gens[i]
    }

    /// The kept generation `id`, if kept.
    pub(super) fn find(&self, id: u32) -> Option<&Generation> {
        self.gens.iter().find(|g| g.id == id)
    }

    /// The oldest kept generation's id.
    pub(super) fn oldest(&self) -> Option<u32> {
        self.gens.front().map(|g| g.id)
    }

    /// Kept generations, oldest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Generation> {
        self.gens.iter()
    }

    /// Drops the generations before `id`.
    pub(super) fn drop_before(&mut self, id: u32) {
        while self.gens.front().is_some_and(|g| g.id < id) {
            self.gens.pop_front();
        }
    }
}
