//! A flow's source (Chachulski et al. §4.1): TCP's segments fill batches of K natives;
//! one batch is in flight at a time, and while it is unacknowledged every transmission
//! opportunity carries a fresh random combination of its natives; the next closed batch
//! starts when the destination acknowledges it.

use super::header::MoreHeader;
use crate::coding::rlnc::{combine_packets, random_coeffs, Gf256};
use crate::coding::{CodedSymbol, Coeffs, Header, Span};
use crate::engine::{Rng, Time};
use crate::net::{NodeId, Packet};
use std::collections::VecDeque;
use std::sync::Arc;

/// A coded packet of batch `batch` of `natives` (coefficients: one per native), from the
/// flow's source to its destination: as long as the longest native plus the MORE
/// header and the code vector.
pub(super) fn coded_packet(
    batch: u32,
    natives: &Arc<[Packet]>,
    coeffs: &[u8],
    payload: Option<Box<[u8]>>,
    header: &Header,
) -> Packet {
    debug_assert_eq!(coeffs.len(), natives.len());
    let coeffs = Coeffs::Gf256(coeffs.into());
    let header_bytes = header.bytes() + coeffs.bytes();
    let (src, dst) = (natives[0].src, natives[0].dst);
    CodedSymbol {
        span: Span::Generation {
            id: batch,
            size: natives.len() as u16,
        },
        coeffs,
        payload,
        natives: natives.clone(),
        header: Some(header.clone()),
    }
    .into_packet(src, dst, header_bytes)
}

/// The batch in flight.
#[derive(Debug)]
pub(super) struct Batch {
    /// Its number.
    pub(super) id: u32,
    /// Its natives, in TCP's order.
    pub(super) natives: Arc<[Packet]>,
    /// Its MORE header (the plan).
    pub(super) header: Header,
}

/// One flow's source state.
#[derive(Debug)]
pub(super) struct Source {
    /// The flow.
    pub(super) flow: u32,
    /// The candidate forwarders, closest to the destination first (the destination
    /// first), without the source.
    pub(super) cands: Vec<NodeId>,
    /// The batch being filled.
    open: Vec<Packet>,
    /// Closed batches waiting for their turn.
    closed: VecDeque<Vec<Packet>>,
    /// The batch in flight.
    pub(super) current: Option<Batch>,
    next_id: u32,
    /// When the last segment joined the open batch.
    pub(super) last_new: Time,
    coeffs: Vec<u8>,
    buf: Vec<u8>,
}

impl Source {
    /// A flow's source, with its candidate forwarders.
    pub(super) fn new(flow: u32, cands: Vec<NodeId>) -> Source {
        Source {
            flow,
            cands,
            open: Vec::new(),
            closed: VecDeque::new(),
            current: None,
            next_id: 0,
            last_new: 0,
            coeffs: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// Natives waiting for their batch's turn (open and closed batches).
    pub(super) fn waiting(&self) -> usize {
        self.open.len() + self.closed.iter().map(Vec::len).sum::<usize>()
    }

    /// Natives in the open batch.
    #[cfg(test)]
    pub(super) fn open_len(&self) -> usize {
        self.open.len()
    }

    /// Closed batches waiting.
    #[cfg(test)]
    pub(super) fn closed_len(&self) -> usize {
        self.closed.len()
    }

    /// Is the segment starting at byte `seq` in a batch not yet acknowledged?
    pub(super) fn holds(&self, seq: u64) -> bool {
        let is = |p: &Packet| p.tcp().is_some_and(|h| h.seq == seq);
        self.open.iter().any(is)
            || self.closed.iter().flatten().any(is)
            || self
                .current
                .as_ref()
                .is_some_and(|b| b.natives.iter().any(is))
    }

    /// A segment joins the open batch at `now`; the batch closes at `k` natives
    /// (returns true then).
    pub(super) fn push(&mut self, p: Packet, k: usize, now: Time) -> bool {
        self.open.push(p);
        self.last_new = now;
        if self.open.len() >= k {
            self.close();
            return true;
        }
        false
    }

    /// Closes the open batch, if it has natives (true then).
    pub(super) fn close(&mut self) -> bool {
        if self.open.is_empty() {
            return false;
        }
        self.closed.push_back(std::mem::take(&mut self.open));
        true
    }

    /// Can a batch start (none in flight, one closed)?
    pub(super) fn can_start(&self) -> bool {
        self.current.is_none() && !self.closed.is_empty()
    }

    /// Starts the first closed batch with the plan `header`; returns its number.
    pub(super) fn start(&mut self, header: MoreHeader) -> u32 {
        let natives = self.closed.pop_front().expect("a closed batch");
        let id = self.next_id;
        self.next_id += 1;
        self.current = Some(Batch {
            id,
            natives: natives.into(),
            header: Arc::new(header),
        });
        id
    }

    /// The destination acknowledged `batch`: true if it was the one in flight, which
    /// ends.
    pub(super) fn acked(&mut self, batch: u32) -> bool {
        if self.current.as_ref().is_some_and(|b| b.id == batch) {
            self.current = None;
            return true;
        }
        false
    }

    /// A fresh random combination of the batch in flight (None: none in flight).
    pub(super) fn combination(&mut self, rng: &mut Rng) -> Option<Packet> {
        let b = self.current.as_ref()?;
        random_coeffs::<Gf256>(rng, b.natives.len(), &mut self.coeffs);
        let payload = combine_packets::<Gf256>(&self.coeffs, &b.natives, &mut self.buf);
        Some(coded_packet(
            b.id,
            &b.natives,
            &self.coeffs,
            payload,
            &b.header,
        ))
    }
}
