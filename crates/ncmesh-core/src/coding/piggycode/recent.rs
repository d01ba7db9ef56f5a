//! A short memory of recently received packets: where each came from (a relay pairs a
//! DATA with an ACK only if each came from the other's next hop) and which were already
//! delivered from overheard frames (no MAC duplicate filter protects that side).

use crate::net::NodeId;
use std::collections::VecDeque;

/// Packets remembered.
pub(super) const RECENT: usize = 256;

/// The last [`RECENT`] (uid, node) pairs, newest last.
#[derive(Debug, Default)]
pub(super) struct Recent(VecDeque<(u64, NodeId)>);

impl Recent {
    /// Remembers that packet `uid` came from `from` (forgetting the oldest when full).
    pub(super) fn note(&mut self, uid: u64, from: NodeId) {
        if self.0.len() == RECENT {
            self.0.pop_front();
        }
        self.0.push_back((uid, from));
    }

    /// Where packet `uid` came from, if remembered.
    pub(super) fn from(&self, uid: u64) -> Option<NodeId> {
        self.0
            .iter()
            .rev()
            .find(|(u, _)| *u == uid)
            .map(|&(_, n)| n)
    }
}
