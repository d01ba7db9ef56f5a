//! Time-bounded memories of packet ids: the packet pool of opportunistic listening
//! (COPE §3.1: overheard and sent packets are kept for a limited time, ~0.5 s), what
//! each neighbour reported (§3.4), and the ids already delivered (duplicates of
//! retransmitted packets are acknowledged again but not delivered twice).

use crate::engine::Time;
use crate::net::{NodeId, Packet};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// Multiplicative hash of a u64 key: deterministic (no random state) and cheap.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// Key of "neighbour `nb` holds packet `uid`" (uids stay below 2^48).
pub fn nb_key(nb: NodeId, uid: u64) -> u64 {
    uid ^ ((nb as u64).wrapping_add(1) << 48)
}

/// A map from u64 keys that forgets each entry `keep` after its time; the one
/// mechanism behind the set and the pool below.
struct Expiring<V> {
    keep: Time,
    map: KeyMap<(Time, V)>,
    order: VecDeque<(Time, u64)>,
}

impl<V> Expiring<V> {
    fn new(keep: Time) -> Self {
        Expiring {
            keep,
            map: KeyMap::default(),
            order: VecDeque::new(),
        }
    }

    fn expire(&mut self, now: Time) {
        while let Some(&(t, k)) = self.order.front() {
            if t + self.keep > now {
                break;
            }
            self.order.pop_front();
            // Only the entry's current time removes it (a refreshed entry stays).
            if self.map.get(&k).is_some_and(|(at, _)| *at == t) {
                self.map.remove(&k);
            }
        }
    }

    /// Inserts `key` (its value made by `make`); returns false if it was present. A
    /// present entry gets time `now` if `refresh`, else keeps its first time.
    fn insert(&mut self, now: Time, key: u64, make: impl FnOnce() -> V, refresh: bool) -> bool {
        self.expire(now);
        if let Some(slot) = self.map.get_mut(&key) {
            if refresh {
                slot.0 = now;
                self.order.push_back((now, key));
            }
            return false;
        }
        self.map.insert(key, (now, make()));
        self.order.push_back((now, key));
        true
    }

    fn get(&self, now: Time, key: u64) -> Option<&V> {
        self.map
            .get(&key)
            .filter(|(t, _)| *t + self.keep > now)
            .map(|(_, v)| v)
    }
}

/// A set of u64 keys that forgets each key `keep` after it was first inserted.
pub struct ExpiringSet(Expiring<()>);

impl ExpiringSet {
    /// An empty set whose keys live `keep`.
    pub fn new(keep: Time) -> ExpiringSet {
        ExpiringSet(Expiring::new(keep))
    }

    /// Inserts `key`; returns false if it was already present (its time is kept: a
    /// neighbour's copy of a packet expires pool_time after it first had it, however
    /// often that is reported again).
    pub fn insert(&mut self, now: Time, key: u64) -> bool {
        self.0.insert(now, key, || (), false)
    }

    /// Is `key` present and not expired at `now`?
    pub fn contains(&self, now: Time, key: u64) -> bool {
        self.0.get(now, key).is_some()
    }

    /// Keys stored (expired ones not yet swept included).
    pub fn len(&self) -> usize {
        self.0.map.len()
    }

    /// No key stored.
    pub fn is_empty(&self) -> bool {
        self.0.map.is_empty()
    }
}

/// The packet pool: copies of overheard, decoded and sent packets, by uid; a packet
/// seen again stays another `keep`.
pub struct PacketPool(Expiring<Packet>);

impl PacketPool {
    /// An empty pool whose packets live `keep`.
    pub fn new(keep: Time) -> PacketPool {
        PacketPool(Expiring::new(keep))
    }

    /// Stores a copy of `p`; returns false if the pool already held it.
    pub fn insert(&mut self, now: Time, p: &Packet) -> bool {
        self.0.insert(now, p.uid, || p.clone(), true)
    }

    /// The packet `uid`, if held and not expired at `now`.
    pub fn get(&self, now: Time, uid: u64) -> Option<&Packet> {
        self.0.get(now, uid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_expire_after_keep_time() {
        let mut s = ExpiringSet::new(100);
        assert!(s.insert(0, 7));
        assert!(!s.insert(50, 7));
        assert!(s.contains(99, 7));
        assert!(!s.contains(100, 7), "the first insertion counts");
        assert!(s.insert(150, 7), "gone, then new again");
        s.insert(260, 8);
        assert_eq!(s.len(), 1, "7 expired at 250");
        assert_ne!(nb_key(1, 5), nb_key(2, 5));
    }
}
