//! Two-hop codes being forwarded (BFLY's second hop, Seferoglu & Markopoulou §VII): the node received
//! an XOR of natives it cannot decode and must send that XOR on to the hops after it.
//! Its natives are handed to the network layer (their headers travel in the XOR
//! header) and come back to the scheme one by one; they are bound into one group, and
//! the group's copies let the node resend the XOR after one of them was acknowledged.

use super::entry::Native;
use super::queue::Code;
use crate::net::NodeId;
use smallvec::SmallVec;

struct Group {
    id: u64,
    /// Packets of the XOR and who decodes each.
    expect: SmallVec<[(u64, NodeId); 2]>,
    /// Natives arrived back from the network layer, not yet queued.
    waiting: SmallVec<[Native; 2]>,
    /// Copies of every member once the group is complete (padding for resends).
    copies: SmallVec<[Native; 2]>,
    /// Members not yet acknowledged or dropped.
    open: usize,
}

/// The open two-hop groups (BFLY): natives that left together in one two-hop code
/// and must stay together until each is acknowledged or dropped.
#[derive(Default)]
pub struct Groups {
    next_id: u64,
    groups: Vec<Group>,
}

impl Groups {
    /// A two-hop code arrived: (uid, decoder) of each native.
    pub fn open(&mut self, members: &[(u64, NodeId)]) {
        self.next_id += 1;
        self.groups.push(Group {
            id: self.next_id,
            expect: members.iter().copied().collect(),
            waiting: SmallVec::new(),
            copies: SmallVec::new(),
            open: members.len(),
        });
    }

    /// A native came back from the network layer. `Err(n)`: it belongs to no group (an
    /// ordinary packet); `Ok(None)`: it waits for the rest of its group;
    /// `Ok(Some(code))`: the group is complete and goes to the queue as one code.
    // The native goes back by value: boxing it would allocate for every forwarded packet.
    #[allow(clippy::result_large_err)]
    pub fn arrive(&mut self, mut n: Native) -> Result<Option<Code>, Native> {
        let Some(g) = self
            .groups
            .iter_mut()
            .find(|g| g.copies.is_empty() && g.expect.iter().any(|e| e.0 == n.pkt.uid))
        else {
            return Err(n);
        };
        n.bound = g.id;
        n.then = None;
        g.waiting.push(n);
        if g.waiting.len() < g.expect.len() {
            return Ok(None);
        }
        g.copies = g.waiting.clone();
        Ok(Some(std::mem::take(&mut g.waiting).into_iter().collect()))
    }

    /// Natives waiting for the rest of their group.
    pub fn waiting(&self) -> usize {
        self.groups.iter().map(|g| g.waiting.len()).sum()
    }

    /// The other members of `code`'s group not in `code` (the XOR still contains them).
    pub fn padding(&self, code: &[Native]) -> SmallVec<[Native; 2]> {
        let Some(b) = code.first().map(|n| n.bound).filter(|&b| b != 0) else {
            return SmallVec::new();
        };
        let Some(g) = self.groups.iter().find(|g| g.id == b) else {
            return SmallVec::new();
        };
        g.copies
            .iter()
            .filter(|c| !code.iter().any(|n| n.pkt.uid == c.pkt.uid))
            .cloned()
            .collect()
    }

    /// The other members of `n`'s group (none if `n` is not bound).
    pub fn others<'a>(&'a self, n: &'a Native) -> impl Iterator<Item = &'a Native> + 'a {
        self.groups
            .iter()
            .filter(move |g| n.bound != 0 && g.id == n.bound)
            .flat_map(|g| g.copies.iter())
            .filter(move |c| c.pkt.uid != n.pkt.uid)
    }

    /// A bound member was acknowledged or dropped.
    pub fn resolve(&mut self, bound: u64) {
        if bound == 0 {
            return;
        }
        if let Some(i) = self.groups.iter().position(|g| g.id == bound) {
            let g = &mut self.groups[i];
            g.open = g.open.saturating_sub(1);
            if g.open == 0 {
                self.groups.swap_remove(i);
            }
        }
    }
}
