//! AODV without the simulator: nodes on a hand-built topology exchange messages through
//! a tiny event loop (1 ms a hop, no losses); a unicast to a node that is no longer a
//! neighbour fails as the MAC's retry limit would.

use super::table::RouteState;
use super::*;
use crate::engine::{StreamPurpose, MILLIS};
use crate::wire::udp::UdpHeader;
use crate::wire::L4;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const HOP: Time = MILLIS;

enum Ev {
    Msg {
        to: NodeId,
        from: NodeId,
        ttl: u8,
        msg: AodvMsg,
    },
    Data {
        at: NodeId,
        packet: Packet,
    },
}

struct Net {
    nodes: Vec<Aodv>,
    links: Vec<(NodeId, NodeId)>,
    q: BinaryHeap<Reverse<(Time, u64)>>,
    evs: Vec<Option<Ev>>,
    now: Time,
    rng: Rng,
    /// (time, sender, receiver or BROADCAST, IP TTL, message)
    sent: Vec<(Time, NodeId, NodeId, u8, AodvMsg)>,
    delivered: Vec<(Time, Packet)>,
    dropped: Vec<(NodeId, Packet, DropReason)>,
    uid: u64,
}

impl Net {
    fn new(n: usize, links: &[(NodeId, NodeId)], p: AodvParams) -> Net {
        Net {
            nodes: (0..n as NodeId).map(|i| Aodv::new(i, p.clone())).collect(),
            links: links.to_vec(),
            q: BinaryHeap::new(),
            evs: Vec::new(),
            now: 0,
            rng: Rng::stream(1, 0, StreamPurpose::Routing),
            sent: Vec::new(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            uid: 0,
        }
    }

    fn linked(&self, a: NodeId, b: NodeId) -> bool {
        self.links.contains(&(a, b)) || self.links.contains(&(b, a))
    }

    fn cut(&mut self, a: NodeId, b: NodeId) {
        self.links.retain(|&l| l != (a, b) && l != (b, a));
    }

    fn at(&mut self, t: Time, ev: Ev) {
        self.q.push(Reverse((t, self.evs.len() as u64)));
        self.evs.push(Some(ev));
    }

    /// Acts on node `i`'s outputs.
    fn drain(&mut self, i: NodeId) {
        while let Some(o) = self.nodes[i as usize].poll_output() {
            match o {
                Output::Send { to, ttl, msg } => {
                    self.sent.push((self.now, i, to, ttl, msg.clone()));
                    if to == BROADCAST {
                        for j in 0..self.nodes.len() as NodeId {
                            if self.linked(i, j) {
                                let msg = msg.clone();
                                self.at(
                                    self.now + HOP,
                                    Ev::Msg {
                                        to: j,
                                        from: i,
                                        ttl,
                                        msg,
                                    },
                                );
                            }
                        }
                    } else if self.linked(i, to) {
                        self.at(
                            self.now + HOP,
                            Ev::Msg {
                                to,
                                from: i,
                                ttl,
                                msg,
                            },
                        );
                    } else {
                        self.nodes[i as usize].handle_link_failure(self.now, to, None);
                    }
                }
                Output::Forward {
                    packet, next_hop, ..
                } => self.hop(i, packet, next_hop),
                Output::Drop { packet, why } => self.dropped.push((i, packet, why)),
            }
        }
    }

    fn hop(&mut self, i: NodeId, packet: Packet, next_hop: NodeId) {
        if self.linked(i, next_hop) {
            self.at(
                self.now + HOP,
                Ev::Data {
                    at: next_hop,
                    packet,
                },
            );
        } else {
            let ends = (packet.src, packet.dst);
            self.dropped.push((i, packet, DropReason::RetryLimit));
            self.nodes[i as usize].handle_link_failure(self.now, next_hop, Some(ends));
        }
    }

    /// Packet `p` at node `at`: delivered, sent on, or given to AODV.
    fn data(&mut self, at: NodeId, p: Packet) {
        if p.dst == at {
            self.delivered.push((self.now, p));
            return;
        }
        let now = self.now;
        match self.nodes[at as usize].next_hop(now, p.src, p.dst) {
            Some((nh, _)) => self.hop(at, p, nh),
            None => self.nodes[at as usize].handle_unrouted(now, p),
        }
        self.drain(at);
    }

    /// A new UDP packet from `src` to `dst` (unique uid).
    fn packet(&mut self, src: NodeId, dst: NodeId) -> Packet {
        self.uid += 1;
        Packet {
            uid: self.uid,
            flow: 0,
            src,
            dst,
            ttl: 64,
            ip_bytes: 100,
            created: self.now,
            l4: L4::Udp(UdpHeader {
                seq: self.uid,
                len: 72,
            }),
            payload: None,
        }
    }

    /// `src` originates a packet for `dst`.
    fn send(&mut self, src: NodeId, dst: NodeId) {
        let p = self.packet(src, dst);
        self.data(src, p);
    }

    fn run_until(&mut self, end: Time) {
        loop {
            let timer = self
                .nodes
                .iter()
                .enumerate()
                .filter_map(|(i, n)| n.poll_timeout().map(|t| (t, i)))
                .min();
            let ev = self.q.peek().map(|r| r.0 .0);
            match (timer, ev) {
                (Some((t, i)), e) if t <= end && e.is_none_or(|e| t < e) => {
                    self.now = self.now.max(t);
                    self.nodes[i].handle_timeout(self.now);
                    self.drain(i as NodeId);
                }
                (_, Some(t)) if t <= end => {
                    let Reverse((t, k)) = self.q.pop().unwrap();
                    self.now = t;
                    match self.evs[k as usize].take().unwrap() {
                        Ev::Msg { to, from, ttl, msg } => {
                            let now = self.now;
                            self.nodes[to as usize].handle_message(
                                now,
                                from,
                                ttl,
                                &msg,
                                &mut self.rng,
                            );
                            self.drain(to);
                        }
                        Ev::Data { at, packet } => self.data(at, packet),
                    }
                }
                _ => break,
            }
        }
        self.now = end;
    }

    /// RREQs sent by `node` for originator `orig`: (time, IP TTL, RREQ).
    fn rreqs(&self, node: NodeId, orig: NodeId) -> Vec<(Time, u8, Rreq)> {
        self.sent
            .iter()
            .filter(|s| s.1 == node)
            .filter_map(|s| match &s.4 {
                AodvMsg::Rreq(r) if r.orig == orig => Some((s.0, s.3, *r)),
                _ => None,
            })
            .collect()
    }

    fn count(&self, node: NodeId, f: impl Fn(&AodvMsg) -> bool) -> usize {
        self.sent.iter().filter(|s| s.1 == node && f(&s.4)).count()
    }
}

fn chain(n: u32) -> Vec<(NodeId, NodeId)> {
    (0..n - 1).map(|i| (i, i + 1)).collect()
}

fn no_jitter() -> AodvParams {
    AodvParams {
        jitter: 0,
        ..AodvParams::default()
    }
}

#[test]
fn discovery_on_a_chain_with_expanding_ring_search() {
    let mut net = Net::new(5, &chain(5), no_jitter());
    net.send(0, 4);
    assert_eq!(net.nodes[0].buffered(), 1, "the packet waits for its route");
    net.run_until(5 * SECOND);
    assert_eq!(
        net.delivered.len(),
        1,
        "the packet arrives once the route is found"
    );
    // §6.4: TTL_START 1, then + TTL_INCREMENT 2 each RING_TRAVERSAL_TIME(ttl); node 4
    // is four hops away, so the third RREQ (TTL 5) finds it.
    let r = net.rreqs(0, 0);
    let ttls: Vec<u8> = r.iter().map(|x| x.1).collect();
    assert_eq!(ttls, vec![1, 3, 5]);
    let times: Vec<Time> = r.iter().map(|x| x.0).collect();
    assert_eq!(
        times,
        vec![0, 240 * MILLIS, 640 * MILLIS],
        "RING_TRAVERSAL_TIME 240, 400 ms"
    );
    // §6.1: the originator increments its sequence number before each RREQ; the IDs grow.
    let ids: Vec<(u32, u32)> = r.iter().map(|x| (x.2.rreq_id, x.2.orig_seqno)).collect();
    assert_eq!(ids, vec![(1, 1), (2, 2), (3, 3)]);
    assert!(
        r.iter().all(|x| x.2.unknown_seqno),
        "no sequence number known for 4"
    );
    // Node 3 got the TTL-3 RREQ with TTL 1: it does not rebroadcast it.
    assert_eq!(
        net.rreqs(3, 0).len(),
        1,
        "only the TTL-5 RREQ goes on from node 3"
    );
    // Forward route at the source, reverse route at the destination.
    let f = net.nodes[0].entry(net.now, 4).unwrap();
    assert_eq!((f.state, f.next_hop, f.hops), (RouteState::Valid, 1, 4));
    let b = net.nodes[4].entry(net.now, 0).unwrap();
    assert_eq!(
        (b.next_hop, b.hops, b.seqno),
        (3, 4, 3),
        "the originator's seqno"
    );
    // §6.7: precursors towards the destination are the upstream neighbours.
    for v in 1..4u32 {
        let e = net.nodes[v as usize].entry(net.now, 4).unwrap();
        assert_eq!(e.precursors.as_slice(), &[v - 1], "node {v}");
    }
    assert_eq!(net.nodes[0].stats().discoveries, 1);
    assert_eq!(net.nodes[0].stats().rreq_tx, 3);
    assert_eq!(net.count(4, |m| matches!(m, AodvMsg::Rrep(_))), 1);
}

#[test]
fn an_intermediate_node_with_a_fresh_route_replies() {
    // 5 hangs off node 2 of the chain 0..4.
    let mut links = chain(5);
    links.push((5, 2));
    let mut net = Net::new(6, &links, no_jitter());
    net.send(0, 4);
    net.run_until(2 * SECOND);
    let before = net.sent.len();
    net.send(5, 4);
    net.run_until(3 * SECOND);
    assert_eq!(net.delivered.len(), 2);
    // Node 5's first RREQ (TTL 1) reaches node 2, whose route to 4 answers it (§6.6.2).
    assert_eq!(net.rreqs(5, 5).len(), 1);
    let later = &net.sent[before..];
    assert!(later
        .iter()
        .all(|s| s.1 != 3 && s.1 != 4 || !matches!(s.4, AodvMsg::Rreq(_))));
    let reply = later
        .iter()
        .find(|s| s.1 == 2 && matches!(s.4, AodvMsg::Rrep(_)))
        .expect("node 2 replies");
    match &reply.4 {
        AodvMsg::Rrep(r) => assert_eq!((r.dest, r.orig, r.hop_count), (4, 5, 2)),
        _ => unreachable!(),
    }
    // §6.6.2: the replying node's route to 4 gets node 5 as a precursor.
    let e = net.nodes[2].entry(net.now, 4).unwrap();
    assert!(e.precursors.contains(&5) && e.precursors.contains(&1));
    assert_eq!(net.nodes[5].entry(net.now, 4).unwrap().hops, 3);
}

#[test]
fn the_destination_only_flag_keeps_intermediate_nodes_quiet() {
    let mut links = chain(5);
    links.push((5, 2));
    let p = AodvParams {
        dest_only: true,
        ..no_jitter()
    };
    let mut net = Net::new(6, &links, p);
    net.send(0, 4);
    net.run_until(2 * SECOND);
    net.send(5, 4);
    net.run_until(4 * SECOND);
    assert_eq!(net.delivered.len(), 2);
    assert!(net.rreqs(5, 5).len() > 1, "the TTL-1 RREQ found no reply");
    assert_eq!(
        net.count(3, |m| matches!(m, AodvMsg::Rrep(r) if r.orig == 5)),
        1,
        "the reply comes from beyond node 2, which had a route but the D flag"
    );
    assert_eq!(
        net.count(4, |m| matches!(m, AodvMsg::Rrep(r) if r.orig == 5)),
        1,
        "the destination itself replied"
    );
}

#[test]
fn duplicate_rreqs_are_suppressed() {
    // A diamond: 0 - {1, 2} - 3 - 4. Node 3 hears every RREQ twice.
    let links = [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)];
    let mut net = Net::new(5, &links, no_jitter());
    net.send(0, 4);
    net.run_until(3 * SECOND);
    assert_eq!(net.delivered.len(), 1);
    let from3 = net.rreqs(3, 0);
    let mut ids: Vec<u32> = from3.iter().map(|x| x.2.rreq_id).collect();
    let n = ids.len();
    ids.dedup();
    assert_eq!(
        ids.len(),
        n,
        "each RREQ ID rebroadcast once by node 3: {from3:?}"
    );
    assert!(n >= 1);
    // The first copy wins the reverse route: lowest-numbered neighbour here (1 ms hops,
    // node 1 heard first since it was scheduled first).
    assert_eq!(net.nodes[3].entry(net.now, 0).unwrap().hops, 2);
    assert_eq!(net.nodes[0].rreq_id, net.rreqs(0, 0).len() as u32);
}

#[test]
fn a_link_failure_sends_rerr_to_the_precursors_back_to_the_source() {
    let mut net = Net::new(5, &chain(5), no_jitter());
    net.send(0, 4);
    net.run_until(2 * SECOND);
    let seq = net.nodes[0].entry(net.now, 4).unwrap().seqno;
    net.cut(2, 3);
    let before = net.sent.len();
    let (s, d) = (0, 4);
    // A packet along the route: node 2's unicast to 3 fails (the MAC's retry limit).
    net.send(s, d);
    net.run_until(net.now + 10 * MILLIS);
    assert!(net
        .dropped
        .iter()
        .any(|x| x.0 == 2 && x.2 == DropReason::RetryLimit));
    let rerrs: Vec<_> = net.sent[before..]
        .iter()
        .filter(|x| matches!(x.4, AodvMsg::Rerr(_)))
        .map(|x| (x.1, x.2))
        .collect();
    // §6.11: node 2's only precursor for 4 (and for 3) is 1, node 1's is 0: unicast.
    assert_eq!(rerrs, vec![(2, 1), (1, 0)]);
    match &net.sent.iter().rev().find(|x| x.1 == 1).unwrap().4 {
        AodvMsg::Rerr(e) => assert!(e.unreachable.contains(&(4, seq + 1)), "{e:?}"),
        m => panic!("{m:?}"),
    }
    // The routes through the break are invalid with the incremented sequence number;
    // downstream of it nothing changed.
    for v in 0..3 {
        let e = net.nodes[v].entry(net.now, 4).unwrap();
        assert_eq!(
            (e.state, e.seqno),
            (RouteState::Invalid, seq + 1),
            "node {v}"
        );
    }
    assert_eq!(
        net.nodes[3].entry(net.now, 4).unwrap().state,
        RouteState::Valid
    );
    assert_eq!(net.nodes[2].stats().route_breaks, 1);
}

#[test]
fn rediscovery_after_a_break_asks_for_a_fresher_route() {
    // A ladder: 0-1-2-3-4 and 1-5-3 (two hops longer through 5? no: equal length).
    let links = [(0, 1), (1, 2), (2, 3), (3, 4), (1, 5), (5, 6), (6, 3)];
    let mut net = Net::new(7, &links, no_jitter());
    net.send(0, 4);
    net.run_until(2 * SECOND);
    assert_eq!(net.nodes[0].entry(net.now, 4).unwrap().hops, 4, "through 2");
    net.cut(2, 3);
    net.send(0, 4); // lost at node 2, which sends the RERR
    net.run_until(net.now + 50 * MILLIS);
    assert_eq!(
        net.nodes[0].entry(net.now, 4).unwrap().state,
        RouteState::Invalid
    );
    let n_before = net.delivered.len();
    let t = net.now;
    net.send(0, 4);
    net.run_until(t + 5 * SECOND);
    assert_eq!(
        net.delivered.len(),
        n_before + 1,
        "delivered over the other path"
    );
    let e = net.nodes[0].entry(net.now, 4).unwrap();
    assert_eq!((e.hops, e.next_hop, e.seqno), (5, 1, 1));
    // The new RREQ asks for the incremented number (§6.11 (i), §6.3), so the destination
    // raises its own to it (§6.1) and node 1's stale knowledge cannot answer.
    let last = net.rreqs(0, 0).last().unwrap().2;
    assert_eq!((last.dest_seqno, last.unknown_seqno), (1, false));
    assert_eq!(net.nodes[4].seqno(), 1);
    // The first RREQ's TTL is the last hop count + TTL_INCREMENT (§6.4).
    let again: Vec<u8> = net
        .rreqs(0, 0)
        .iter()
        .filter(|x| x.0 >= t)
        .map(|x| x.1)
        .collect();
    assert_eq!(again[0], 6);
}

#[test]
fn keeping_the_sequence_number_on_a_break_lets_a_neighbour_answer_the_rediscovery() {
    // The destination's reverse route (3 -> 0) breaks on a failed unicast and the link
    // comes back. RFC 3561 §6.11 increments the route's number, so node 2's route to 0
    // is too old to answer (§6.6.2) and the RREQ goes on to 0; ns-3 3.44 keeps the
    // number, so node 2 replies and the RREQ stops there.
    for (increment, node2_forwards) in [(true, true), (false, false)] {
        let p = AodvParams {
            increment_seqno_on_break: increment,
            ..no_jitter()
        };
        let mut net = Net::new(4, &chain(4), p);
        net.send(0, 3);
        net.run_until(2 * SECOND);
        let seq = net.nodes[3].entry(net.now, 0).unwrap().seqno;
        net.cut(2, 3);
        net.send(3, 0); // node 3's unicast to 2 fails: the route to 0 breaks
        net.run_until(net.now + 10 * MILLIS);
        let e = net.nodes[3].entry(net.now, 0).unwrap();
        let want = if increment { seq + 1 } else { seq };
        assert_eq!((e.state, e.seqno), (RouteState::Invalid, want));
        net.links.push((2, 3));
        let before = net.sent.len();
        let t = net.now;
        net.send(3, 0);
        net.run_until(t + 3 * SECOND);
        let later = &net.sent[before..];
        let forwarded = later
            .iter()
            .any(|s| s.1 == 2 && matches!(&s.4, AodvMsg::Rreq(r) if r.orig == 3));
        let node0_replied = later
            .iter()
            .any(|s| s.1 == 0 && matches!(&s.4, AodvMsg::Rrep(r) if r.orig == 3 && r.dest == 0));
        let rreps_by_2 = net.count(2, |m| matches!(m, AodvMsg::Rrep(r) if r.orig == 3));
        assert_eq!(forwarded, node2_forwards, "increment {increment}");
        assert_eq!(node0_replied, node2_forwards, "increment {increment}");
        assert_eq!(rreps_by_2, 1, "node 2 answers, or forwards 0's answer");
        assert_eq!(net.delivered.len(), 2, "increment {increment}");
    }
}

#[test]
fn a_new_rreq_makes_a_relays_invalid_reverse_route_valid_again() {
    // Node 2's route back to 0 breaks (its unicast to 1 fails) and the link returns
    // before DELETE_PERIOD has removed the invalid entry. 0's next RREQ carries a newer
    // originator sequence number, so the reverse route it leaves at node 2 is taken
    // (§6.5 with §6.2's rule) and valid: 3's packets back to 0 pass node 2. ns-3 3.44's
    // RecvRequest updates such an entry but leaves it invalid
    // (`rreq_revalidates_route = false`): the RREP still travels it, so 0's packet gets
    // through, but 3's first packet back is dropped at node 2 with a RERR.
    for revalidates in [true, false] {
        let p = AodvParams {
            rreq_revalidates_route: revalidates,
            ..no_jitter()
        };
        let mut net = Net::new(4, &chain(4), p);
        net.send(0, 3);
        net.send(3, 0);
        net.run_until(2 * SECOND);
        assert_eq!(net.delivered.len(), 2);
        net.cut(1, 2);
        net.send(0, 3); // node 1's unicast to 2 fails: 0 hears a RERR
        net.send(3, 0); // node 2's unicast to 1 fails: its route to 0 breaks
        net.run_until(net.now + 50 * MILLIS);
        let state = |net: &mut Net, at: usize, to| net.nodes[at].entry(net.now, to).unwrap().state;
        assert_eq!(state(&mut net, 2, 0), RouteState::Invalid);
        assert_eq!(state(&mut net, 0, 3), RouteState::Invalid);
        net.links.push((1, 2));
        let t = net.now;
        net.send(0, 3);
        net.run_until(t + 3 * SECOND);
        assert_eq!(
            net.delivered.len(),
            3,
            "0's packet after the rediscovery ({revalidates})"
        );
        let want = if revalidates {
            RouteState::Valid
        } else {
            RouteState::Invalid
        };
        assert_eq!(state(&mut net, 2, 0), want);
        // A packet from 3 to 0 reaches node 2 (3's own route is not the point here).
        let rerrs = net.count(2, |m| matches!(m, AodvMsg::Rerr(_)));
        let back = net.packet(3, 0);
        let uid = back.uid;
        net.data(2, back);
        net.run_until(net.now + 50 * MILLIS);
        let dropped_at_2 = net.dropped.iter().any(|d| d.0 == 2 && d.1.uid == uid);
        assert_eq!(dropped_at_2, !revalidates);
        assert_eq!(net.delivered.len(), if revalidates { 4 } else { 3 });
        let new_rerrs = net.count(2, |m| matches!(m, AodvMsg::Rerr(_))) - rerrs;
        assert_eq!(
            new_rerrs,
            usize::from(!revalidates),
            "RERR for the dropped packet"
        );
    }
}

#[test]
fn buffer_limits_and_failed_discovery_drop_with_their_own_reason() {
    // Node 3 is alone: discovery fails.
    let p = AodvParams {
        buffer_packets: 2,
        ..no_jitter()
    };
    let mut net = Net::new(4, &[(0, 1), (1, 2)], p);
    for _ in 0..3 {
        net.send(0, 3);
    }
    assert_eq!(net.nodes[0].buffered(), 2);
    assert_eq!(
        net.dropped.len(),
        1,
        "the full buffer pushes the oldest out"
    );
    assert_eq!(
        (net.dropped[0].1.uid, net.dropped[0].2),
        (1, DropReason::Discovery)
    );
    net.run_until(30 * SECOND);
    // TTLs 1, 3, 5, 7, then NET_DIAMETER once and RREQ_RETRIES (2) more, with binary
    // exponential backoff (§6.3): waits 240, 400, 560, 720 ms, then 2.8, 5.6, 11.2 s.
    let r = net.rreqs(0, 0);
    let ttls: Vec<u8> = r.iter().map(|x| x.1).collect();
    assert_eq!(ttls, vec![1, 3, 5, 7, 35, 35, 35]);
    let times: Vec<Time> = r.iter().map(|x| x.0 / MILLIS).collect();
    assert_eq!(times, vec![0, 240, 640, 1200, 1920, 4720, 10320]);
    assert_eq!(net.dropped.len(), 3);
    assert!(net.dropped.iter().all(|d| d.2 == DropReason::Discovery));
    assert_eq!(net.nodes[0].buffered(), 0);
    assert!(!net.nodes[0].discovering(3));
    let st = net.nodes[0].stats();
    assert_eq!(
        (st.discoveries, st.discoveries_failed, st.buffered),
        (1, 1, 3)
    );
    // The last two dropped when the last wait (11.2 s) ended.
    assert_eq!(net.delivered.len(), 0);
}

#[test]
fn a_packet_waits_no_longer_than_the_buffer_time() {
    let p = AodvParams {
        buffer_time: SECOND,
        ..no_jitter()
    };
    let mut net = Net::new(3, &[(0, 1)], p);
    net.send(0, 2);
    net.run_until(999 * MILLIS);
    assert!(net.dropped.is_empty());
    net.run_until(SECOND);
    assert_eq!(net.dropped.len(), 1);
    assert_eq!(net.dropped[0].2, DropReason::Discovery);
    assert!(net.nodes[0].discovering(2), "the discovery goes on");
}

#[test]
fn a_forwarded_packet_without_route_is_dropped_with_a_rerr() {
    let mut net = Net::new(3, &chain(3), no_jitter());
    net.send(0, 2);
    net.run_until(2 * SECOND);
    // Node 1 forgets its route (expired long ago), then gets a packet for 2 from 0.
    net.run_until(30 * SECOND);
    assert!(
        net.nodes[1].entry(net.now, 2).is_none(),
        "deleted after DELETE_PERIOD"
    );
    assert!(net.nodes[0].entry(net.now, 2).is_none());
    let before = net.sent.len();
    let p = net.packet(0, 2); // from 0, arriving at node 1
    net.data(1, p);
    assert_eq!(
        net.dropped.last().map(|d| (d.0, d.2)),
        Some((1, DropReason::NoRoute))
    );
    // No precursors and no route to the source: no one to tell.
    assert_eq!(net.sent.len(), before);
}

#[test]
fn local_repair_finds_a_detour_without_telling_the_source() {
    // 0-1-2-3-4 with a detour 2-5-3.
    let links = [(0, 1), (1, 2), (2, 3), (3, 4), (2, 5), (5, 3)];
    let p = AodvParams {
        local_repair: true,
        ..no_jitter()
    };
    let mut net = Net::new(6, &links, p);
    net.send(0, 4);
    net.run_until(2 * SECOND);
    assert_eq!(net.nodes[2].entry(net.now, 4).unwrap().next_hop, 3);
    net.cut(2, 3);
    let before = net.sent.len();
    net.send(0, 4); // fails at node 2: repair starts
    net.run_until(net.now + 5 * MILLIS);
    assert_eq!(net.nodes[2].stats().local_repairs, 1);
    assert_eq!(
        net.nodes[2].entry(net.now, 4).unwrap().state,
        RouteState::Repairing
    );
    net.send(0, 4); // waits at node 2 for the repair
    net.run_until(net.now + SECOND);
    assert_eq!(
        net.delivered.len(),
        2,
        "the packet sent during the repair arrives"
    );
    let e = net.nodes[2].entry(net.now, 4).unwrap();
    assert_eq!((e.state, e.next_hop, e.hops), (RouteState::Valid, 5, 3));
    assert!(
        net.sent[before..]
            .iter()
            .all(|x| !matches!(x.4, AodvMsg::Rerr(_))
                || matches!(&x.4, AodvMsg::Rerr(e) if e.unreachable.iter().all(|u| u.0 != 4))),
        "no RERR for the repaired destination"
    );
    assert_eq!(
        net.nodes[0].entry(net.now, 4).unwrap().state,
        RouteState::Valid
    );
    // §6.12: TTL = max(MIN_REPAIR_TTL = 2, 0.5 * 2 hops to the source) + LOCAL_ADD_TTL.
    assert_eq!(net.rreqs(2, 2).last().unwrap().1, 4);
}

#[test]
fn hello_messages_detect_a_silent_neighbour() {
    let p = AodvParams {
        hello: true,
        ..no_jitter()
    };
    let mut net = Net::new(3, &chain(3), p);
    net.send(0, 2);
    net.run_until(3 * SECOND);
    assert!(net.count(2, |m| matches!(m, AodvMsg::Rrep(r) if r.dest == r.orig)) > 0);
    let e = net.nodes[1].entry(net.now, 2).unwrap();
    assert_eq!(e.state, RouteState::Valid);
    net.cut(1, 2);
    let t = net.now;
    // ALLOWED_HELLO_LOSS * HELLO_INTERVAL = 2 s without a word from 2: the link is gone.
    net.run_until(t + 2500 * MILLIS);
    assert_ne!(
        net.nodes[1].entry(net.now, 2).map(|e| e.state),
        Some(RouteState::Valid)
    );
    assert!(net.nodes[1].stats().route_breaks >= 1);
}

#[test]
fn rreq_origination_is_rate_limited() {
    let p = AodvParams {
        rreq_ratelimit: 2,
        ..no_jitter()
    };
    // Three unreachable destinations asked for at once: the third RREQ waits 1 s.
    let mut net = Net::new(5, &[(0, 1)], p);
    for d in 2..5 {
        net.send(0, d);
    }
    net.run_until(1500 * MILLIS);
    let t: Vec<Time> = net
        .rreqs(0, 0)
        .iter()
        .map(|x| x.0 / MILLIS)
        .take(3)
        .collect();
    assert_eq!(t[..2], [0, 0]);
    assert!(t[2] >= 1000, "{t:?}");
}

#[test]
fn a_schemes_route_view_reads_the_nodes_active_aodv_routes() {
    use crate::net::RouteView;
    let mut net = Net::new(4, &chain(4), no_jitter());
    net.send(0, 3);
    net.run_until(2 * SECOND);
    assert_eq!(net.delivered.len(), 1);
    // The static tables of another topology (every node isolated): the view must not
    // read them when the node runs AODV.
    let statics = crate::net::Routes::new(vec![Vec::new(); 4], &[3], 1);
    fn view<'a>(statics: &'a crate::net::Routes, net: &'a Net, n: NodeId) -> RouteView<'a> {
        RouteView::of(statics, Some(&net.nodes[n as usize]), n, net.now)
    }
    let src = view(&statics, &net, 0);
    assert_eq!(src.next_hop(3, 0), Some(1));
    let hops = src.next_hops(3, 0);
    assert_eq!(
        (hops.len(), hops[0].node, hops[0].cost),
        (1, 1, 3.0),
        "one route, its hop count"
    );
    assert_eq!(src.next_hops_taken(3, 0).len(), 1);
    assert_eq!(src.cost(3).map(|c| c.hops), Some(3));
    assert_eq!(src.cost(0).map(|c| c.hops), Some(0), "to itself");
    // A relay knows both ends: the forward route and the reverse route the RREQ left.
    let relay = view(&statics, &net, 2);
    assert_eq!(relay.cost(3).map(|c| c.hops), Some(1));
    assert_eq!(relay.cost(0).map(|c| c.hops), Some(2));
    assert_eq!(relay.next_hop(0, 0), Some(1));
    // AODV estimates no link's loss.
    assert_eq!(src.link_delivery(1), None);
    assert_eq!(src.path_delivery(3, 0), None);
    assert_eq!(view(&statics, &net, 1).next_hop(3, 0), Some(2));
    // No route once its lifetime has passed without traffic to extend it (§6.2).
    let later = net.nodes[0].entry(net.now, 3).unwrap().lifetime;
    let expired = RouteView::of(&statics, Some(&net.nodes[0]), 0, later);
    assert_eq!(expired.next_hop(3, 0), None);
    assert!(expired.next_hops(3, 0).is_empty());
    assert_eq!(expired.cost(3), None);
    // Without AODV the view is the static tables'.
    let stat = RouteView::of(&statics, None, 0, net.now);
    assert_eq!(stat.next_hop(3, 0), None);
}

#[test]
fn a_long_routes_rediscovery_starts_at_its_hop_count_plus_ttl_increment() {
    // §6.4: after a break on a 6-hop route the first RREQ has TTL 6 + 2 = 8, above
    // TTL_THRESHOLD (7), and waits RING_TRAVERSAL_TIME(8); only the next goes at
    // NET_DIAMETER. The break is at the source's own link, healed before the RREQ.
    let mut net = Net::new(7, &chain(7), no_jitter());
    net.send(0, 6);
    net.run_until(2 * SECOND);
    assert_eq!(net.nodes[0].entry(net.now, 6).unwrap().hops, 6);
    net.cut(4, 5);
    net.send(0, 6); // lost at node 4, which sends the RERR back
    net.run_until(net.now + 50 * MILLIS);
    let t = net.now;
    net.send(0, 6);
    net.run_until(t + 10 * SECOND);
    let again: Vec<(Time, u8)> = net
        .rreqs(0, 0)
        .iter()
        .filter(|x| x.0 >= t)
        .map(|x| (x.0, x.1))
        .collect();
    let p = no_jitter();
    assert_eq!(again[0].1, 8, "hop count + TTL_INCREMENT");
    assert_eq!(again[1].1, p.net_diameter, "then NET_DIAMETER");
    assert_eq!(
        again[1].0 - again[0].0,
        p.ring_traversal_time(8),
        "the first waits RING_TRAVERSAL_TIME(8), not NET_TRAVERSAL_TIME"
    );
}
