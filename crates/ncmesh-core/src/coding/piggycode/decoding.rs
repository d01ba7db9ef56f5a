//! The receiving side of DATA/ACK coding (Takimoto et al. §II-A, §III-B): the DATA's
//! next hop gets a coded frame as its MAC receiver, the ACK's next hop overhears it;
//! each XORs out the partner it holds in its decoding buffer (the copy it sent). A
//! coded packet whose partner is missing waits in the decoding queue, checked
//! periodically, and is dropped as a decode failure after `max_wait`.

use super::buffer::DecodingBuffer;
use super::header::PiggyHeader;
use super::recent::Recent;
use super::PiggyCounters;
use crate::coding::xor::payload::recover;
use crate::coding::{Addressed, Rx, SchemeCx};
use crate::engine::Time;
use crate::net::{DropReason, NodeId, Packet};

/// A coded packet waiting for its partner.
#[derive(Debug)]
struct Pending {
    /// The packet this node is to recover.
    pkt: Packet,
    /// The partner it needs.
    partner: u64,
    /// The frame's XORed payload, when payloads are carried.
    coded: Option<Box<[u8]>>,
    /// Where it came from.
    from: NodeId,
    since: Time,
}

/// Decoding buffer, decoding queue and the overheard-duplicate filter of one node.
#[derive(Debug)]
pub(super) struct Decoder {
    buffer: DecodingBuffer,
    queue: Vec<Pending>,
    overheard: Recent,
    max_wait: Time,
}

/// `pkt` recovered from a coded frame with the partner's copy (its payload bytes, when
/// carried, XORed out of the frame's coded payload).
fn decode(pkt: &Packet, coded: Option<&[u8]>, partner: &Packet) -> Packet {
    let mut out = pkt.clone();
    if let (Some(c), Some(own)) = (coded, pkt.carried()) {
        out.set_carried(recover(c, [partner.carried()].into_iter(), own.len()));
    }
    out
}

impl Decoder {
    /// Copies kept `buffer` long; a packet waits at most `max_wait` for its partner.
    pub(super) fn new(buffer: Time, max_wait: Time) -> Decoder {
        Decoder {
            buffer: DecodingBuffer::new(buffer),
            queue: Vec::new(),
            overheard: Recent::default(),
            max_wait,
        }
    }

    /// This node sends `p`: keep a copy to decode with.
    pub(super) fn store(&mut self, now: Time, p: &Packet) {
        self.buffer.store(now, p);
    }

    /// Coded packets waiting for their partner.
    pub(super) fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// A coded frame received intact. Delivers this node's packet when it holds the
    /// partner; queues it otherwise (returns true: the caller arranges a check).
    pub(super) fn receive(
        &mut self,
        cx: &mut SchemeCx,
        rx: &Rx<'_>,
        h: &PiggyHeader,
        came_from: &mut Recent,
        counters: &mut PiggyCounters,
    ) -> bool {
        let (want, partner) = if rx.addressed == Addressed::ToMe && h.data_next == cx.node {
            (0, h.ack_uid)
        } else if rx.addressed == Addressed::Overheard && h.ack_next == cx.node {
            // A MAC retry of the frame is overheard again: deliver the ACK once.
            if self.overheard.from(h.ack_uid).is_some() {
                return false;
            }
            self.overheard.note(h.ack_uid, rx.tx);
            (1, h.data_uid)
        } else {
            return false;
        };
        let pkt = &rx.body.packets[want];
        match self.buffer.get(partner) {
            Some(copy) => {
                let out = decode(pkt, rx.body.coded_payload.as_deref(), copy);
                came_from.note(out.uid, rx.tx);
                cx.deliver(out);
                false
            }
            None => {
                counters.decode_queued += 1;
                cx.absorb(1);
                self.queue.push(Pending {
                    pkt: pkt.clone(),
                    partner,
                    coded: rx.body.coded_payload.clone(),
                    from: rx.tx,
                    since: cx.now,
                });
                true
            }
        }
    }

    /// The periodic check: releases the packets whose partner has come, drops those
    /// that waited `max_wait`. Returns true while packets still wait.
    pub(super) fn poll(
        &mut self,
        cx: &mut SchemeCx,
        came_from: &mut Recent,
        counters: &mut PiggyCounters,
    ) -> bool {
        self.buffer.expire(cx.now);
        let mut i = 0;
        while i < self.queue.len() {
            let e = &self.queue[i];
            if let Some(copy) = self.buffer.get(e.partner) {
                let out = decode(&e.pkt, e.coded.as_deref(), copy);
                came_from.note(out.uid, e.from);
                self.queue.swap_remove(i);
                cx.release(out);
            } else if cx.now >= e.since + self.max_wait {
                let e = self.queue.swap_remove(i);
                counters.decode_failures += 1;
                cx.drop_packet(e.pkt, DropReason::Scheme);
            } else {
                i += 1;
            }
        }
        !self.queue.is_empty()
    }
}
