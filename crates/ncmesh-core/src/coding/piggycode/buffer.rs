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
    /// The copies' uids, in the same order: searched instead of the copies themselves
    /// (a dense column of integers rather than a stride of whole packets).
    uids: VecDeque<u64>,
    /// The largest uid ever stored: packets get increasing uids when they are made, so
    /// a packet above it is not held, and storing it needs no search.
    max_uid: u64,
}

impl DecodingBuffer {
    /// An empty buffer whose copies live `keep`.
    pub fn new(keep: Time) -> DecodingBuffer {
        DecodingBuffer {
            keep,
            copies: VecDeque::new(),
            uids: VecDeque::new(),
            max_uid: 0,
        }
    }

    /// Stores a copy of `p` sent at `now` (a resend refreshes nothing: the first copy
    /// serves, its bytes are the same).
    pub fn store(&mut self, now: Time, p: &Packet) {
        self.expire(now);
        if p.uid > self.max_uid || self.position(p.uid).is_none() {
            self.max_uid = self.max_uid.max(p.uid);
            self.copies.push_back((now, p.clone()));
            self.uids.push_back(p.uid);
        }
    }

    /// Where the copy of packet `uid` is, searching from the newest.
    fn position(&self, uid: u64) -> Option<usize> {
        self.uids.iter().rposition(|&u| u == uid)
    }

    /// The copy of packet `uid`, if held.
    pub fn get(&self, uid: u64) -> Option<&Packet> {
        self.position(uid).map(|i| &self.copies[i].1)
    }

    /// Forgets copies older than `keep`.
    pub fn expire(&mut self, now: Time) {
        while self
            .copies
            .front()
            .is_some_and(|(t, _)| *t + self.keep <= now)
        {
            self.copies.pop_front();
            self.uids.pop_front();
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
