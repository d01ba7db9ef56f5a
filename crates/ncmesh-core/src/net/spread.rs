//! Spreading a flow over its paths (`routing.spread = "round-robin"`): a node hands the
//! packets of each flow direction to its candidate next hops in turn.

use super::routing::NextHops;
use crate::wire::NodeId;

/// One node's turn counters, per (flow, destination): a handful per node, searched
/// linearly.
#[derive(Debug, Default)]
pub struct Turns {
    /// (flow, destination) -> the turn counter (the next candidate, modulo their number).
    next: Vec<((u32, NodeId), u32)>,
}

impl Turns {
    /// Puts the candidate whose turn it is first (the others follow in their order) and
    /// passes the turn on. A single candidate is left alone.
    pub fn rotate(&mut self, flow: u32, dst: NodeId, hops: &mut NextHops) {
        if hops.len() < 2 {
            return;
        }
        let i = match self.next.iter().position(|e| e.0 == (flow, dst)) {
            Some(i) => i,
            None => {
                self.next.push(((flow, dst), 0));
                self.next.len() - 1
            }
        };
        let turn = &mut self.next[i].1;
        let n = hops.len();
        hops.rotate_left(*turn as usize % n);
        *turn = turn.wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::NextHop;

    fn hops(nodes: &[NodeId]) -> NextHops {
        nodes
            .iter()
            .map(|&node| NextHop { node, cost: 1.0 })
            .collect()
    }

    #[test]
    fn candidates_take_turns_per_flow_direction() {
        let mut t = Turns::default();
        let firsts: Vec<NodeId> = (0..5)
            .map(|_| {
                let mut h = hops(&[1, 3]);
                t.rotate(0, 9, &mut h);
                h[0].node
            })
            .collect();
        assert_eq!(firsts, [1, 3, 1, 3, 1]);
        // Another direction of the same flow has its own turn.
        let mut h = hops(&[2, 4, 6]);
        t.rotate(0, 0, &mut h);
        assert_eq!(h[0].node, 2);
        t.rotate(0, 0, &mut h);
        assert_eq!(
            h.iter().map(|x| x.node).collect::<Vec<_>>(),
            [4, 6, 2],
            "the others follow in order"
        );
        let mut one = hops(&[5]);
        t.rotate(1, 9, &mut one);
        assert_eq!(one[0].node, 5);
    }
}
