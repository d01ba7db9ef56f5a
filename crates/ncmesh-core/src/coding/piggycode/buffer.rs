//! The decoding buffer (Takimoto et al. §II-A, §III-B): a copy of every TCP packet a
//! node sends, kept for a while so that a coded packet naming it can be decoded. Ordered
//! by time; a partner is almost always recent, so lookups search from the newest end.

use crate::engine::Time;
use crate::net::Packet;
use std::collections::VecDeque;

/// Copies of sent packets, each kept `keep` after it was stored.
#[derive(Debug)]
pub struct DecodingBuffer {
    keep: Time,
    copies: VecDeque<(Time, Packet)>,
}

impl DecodingBuffer {
    /// An empty buffer whose copies live `keep`.
    pub fn new(keep: Time) -> DecodingBuffer {
        DecodingBuffer {
            keep,
            copies: VecDeque::new(),
        }
    }

    /// Stores a copy of `p` sent at `now` (a resend refreshes nothing: the first copy
    /// serves, its bytes are the same).
    pub fn store(&mut self, now: Time, p: &Packet) {
        self.expire(now);
        if self.get(p.uid).is_none() {
            self.copies.push_back((now, p.clone()));
        }
    }

    /// The copy of packet `uid`, if held.
    pub fn get(&self, uid: u64) -> Option<&Packet> {
        self.copies
            .iter()
            .rev()
            .find(|(_, p)| p.uid == uid)
            .map(|(_, p)| p)
    }

    /// Forgets copies older than `keep`.
    pub fn expire(&mut self, now: Time) {
        while self
            .copies
            .front()
            .is_some_and(|(t, _)| *t + self.keep <= now)
        {
            self.copies.pop_front();
        }
    }

    /// Copies held.
    pub fn len(&self) -> usize {
        self.copies.len()
    }

    /// No copy held.
    pub fn is_empty(&self) -> bool {
        self.copies.is_empty()
    }
}
