//! The decoding buffer (Takimoto et al. §II-A, §III-B): a copy of every TCP packet a
//! node sends, kept for a while so that a coded packet naming it can be decoded. Copies
//! are kept in the order they were stored, for expiry, and found through an index
//! sorted by uid: a buffer holds a second of traffic (thousands of copies at 54 Mbit/s),
//! and a relay stores DATA and ACKs whose uids interleave, so a linear search would
//! cost the buffer's length on every store and lookup.

use crate::engine::Time;
use crate::net::Packet;
use std::collections::VecDeque;

/// Copies of sent packets, each kept `keep` after it was stored.
#[derive(Debug)]
pub struct DecodingBuffer {
    keep: Time,
    /// Copies in the order they were stored, oldest first, with the time stored.
    copies: VecDeque<(Time, Packet)>,
    /// How many copies have expired so far: copy number `n` (counted from the first ever
    /// stored) is at `copies[n - expired]`.
    expired: u64,
    /// (uid, copy number) of every copy held, sorted by uid. A uid is held at most once.
    /// Uids are given in increasing order when packets are made, so most stores append,
    /// and most expiries remove from the front: both ends of a deque are cheap.
    by_uid: VecDeque<(u64, u64)>,
}

impl DecodingBuffer {
    /// An empty buffer whose copies live `keep`.
    pub fn new(keep: Time) -> DecodingBuffer {
        DecodingBuffer {
            keep,
            copies: VecDeque::new(),
            expired: 0,
            by_uid: VecDeque::new(),
        }
    }

    /// Stores a copy of `p` sent at `now` (a resend refreshes nothing: the first copy
    /// serves, its bytes are the same).
    pub fn store(&mut self, now: Time, p: &Packet) {
        self.expire(now);
        let number = self.expired + self.copies.len() as u64;
        match self.by_uid.back() {
            Some(&(last, _)) if p.uid <= last => match self.index_of(p.uid) {
                Ok(_) => return,
                Err(i) => self.by_uid.insert(i, (p.uid, number)),
            },
            _ => self.by_uid.push_back((p.uid, number)),
        }
        self.copies.push_back((now, p.clone()));
    }

    /// Where `uid` is (Ok) or would go (Err) in the sorted index.
    fn index_of(&self, uid: u64) -> Result<usize, usize> {
        self.by_uid.binary_search_by_key(&uid, |&(u, _)| u)
    }

    /// The copy of packet `uid`, if held.
    pub fn get(&self, uid: u64) -> Option<&Packet> {
        let i = self.index_of(uid).ok()?;
        let number = self.by_uid[i].1;
        Some(&self.copies[(number - self.expired) as usize].1)
    }

    /// Forgets copies older than `keep`.
    pub fn expire(&mut self, now: Time) {
        while self
            .copies
            .front()
            .is_some_and(|(t, _)| *t + self.keep <= now)
        {
            let (_, p) = self.copies.pop_front().expect("a front copy");
            self.expired += 1;
            // Mostly the smallest uid held: no search.
            if self.by_uid.front().is_some_and(|&(u, _)| u == p.uid) {
                self.by_uid.pop_front();
            } else {
                let i = self.index_of(p.uid).expect("every copy is indexed");
                self.by_uid.remove(i);
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::L4;
    use crate::wire::udp::UdpHeader;
    use proptest::prelude::*;

    /// Packet `uid`, stamped with when it was stored (`created`): a copy that a resend
    /// replaced would tell by its stamp.
    fn packet(uid: u64, now: Time) -> Packet {
        Packet {
            uid,
            flow: 0,
            src: 0,
            dst: 1,
            ttl: 64,
            ip_bytes: 100,
            created: now,
            l4: L4::Udp(UdpHeader { seq: uid, len: 72 }),
            payload: None,
        }
    }

    /// What the buffer must answer, kept the obvious way: every copy in store order,
    /// found by a scan.
    #[derive(Default)]
    struct Model {
        copies: Vec<(Time, u64)>,
    }

    impl Model {
        fn store(&mut self, now: Time, uid: u64, keep: Time) {
            self.copies.retain(|&(t, _)| t + keep > now);
            if !self.copies.iter().any(|&(_, u)| u == uid) {
                self.copies.push((now, uid));
            }
        }
    }

    proptest! {
        /// Stores of uids in any order (a relay's DATA and ACKs interleave, a resend
        /// repeats a uid), at non-decreasing times, with expiry (some by `expire` alone):
        /// the buffer holds exactly the copies the scan model holds, and finds each one's
        /// first copy.
        #[test]
        fn holds_and_finds_what_a_scan_would(
            ops in prop::collection::vec((0u64..40, 0u64..3, any::<bool>()), 1..300),
            keep in 1u64..20,
        ) {
            let mut buf = DecodingBuffer::new(keep);
            let mut model = Model::default();
            let mut now = 0;
            for (uid, dt, only_expire) in ops {
                now += dt;
                if only_expire {
                    buf.expire(now);
                    model.copies.retain(|&(t, _)| t + keep > now);
                } else {
                    buf.store(now, &packet(uid, now));
                    model.store(now, uid, keep);
                }
                prop_assert_eq!(buf.len(), model.copies.len());
                for u in 0..40 {
                    let held = model.copies.iter().find(|&&(_, m)| m == u);
                    let got = buf.get(u).map(|p| (p.created, p.uid));
                    prop_assert_eq!(got, held.copied(), "uid {}", u);
                }
            }
        }
    }

    #[test]
    fn a_copy_expires_keep_after_it_was_stored_and_a_resend_does_not_refresh_it() {
        let mut buf = DecodingBuffer::new(10);
        buf.store(0, &packet(7, 0));
        buf.store(5, &packet(7, 5)); // a resend: the first copy serves
        buf.store(6, &packet(3, 6));
        assert_eq!(buf.len(), 2);
        buf.expire(9);
        assert_eq!(buf.get(7).map(|p| p.created), Some(0));
        buf.expire(10);
        assert!(
            buf.get(7).is_none(),
            "kept 10 after the first store, not the resend"
        );
        assert_eq!(buf.get(3).map(|p| p.uid), Some(3));
        buf.expire(16);
        assert!(buf.is_empty());
    }
}
