//! The output-queue seam of the XOR-coding schemes: COPE keeps natives and codes at each
//! transmission opportunity (`fifo`), NCAQM keeps codes and codes at enqueue
//! (`coding::ncaqm`). Both decide with the same decodability rule (`entry::can_join`).

use super::entry::{can_join, Knowledge, Native};
use crate::engine::{Rng, Time};
use smallvec::SmallVec;

/// Natives that leave together in one frame (one element: a native frame).
pub type Code = SmallVec<[Native; 4]>;

/// What a queue may consult during a call.
pub struct QueueCx<'a> {
    /// The instant of the call.
    pub now: Time,
    /// The node's coding random stream (random choices among equal candidates).
    pub rng: &'a mut Rng,
    /// Queue capacity now, slots (one slot holds a native or one code).
    pub capacity: usize,
    /// Minimum probability that every next hop decodes (COPE's G).
    pub threshold: f64,
    /// At most this many natives per code (0: no limit besides one per next hop).
    pub max_code: usize,
    /// Encode Once (Xu et al. §IV-A): a native already sent coded goes out alone.
    pub encode_once: bool,
    /// Two-hop codes allowed (BFLY, Seferoglu & Markopoulou §VII).
    pub two_hop: bool,
    /// What the node believes its neighbours hold.
    pub knowledge: &'a dyn Knowledge,
}

impl QueueCx<'_> {
    /// May `n` be coded at all under Encode Once?
    pub fn may_code(&self, n: &Native) -> bool {
        !(self.encode_once && n.was_coded)
    }
    /// May a code of `len` natives take one more?
    pub fn room_in_code(&self, len: usize) -> bool {
        self.max_code == 0 || len < self.max_code
    }
    /// May `n` join `members` (see [`can_join`])?
    pub fn can_join(&self, members: &[&Native], n: &Native) -> bool {
        can_join(members, n, self.knowledge, self.threshold, self.two_hop)
    }
}

/// An XOR scheme's output queue: where natives wait and how codes are formed.
pub trait OutputQueue: Send {
    /// A new native packet. Returns what was dropped to make room (maybe `n` itself).
    fn push(&mut self, cx: &mut QueueCx, n: Native) -> SmallVec<[Native; 1]>;
    /// Natives that must leave together (a two-hop code received for forwarding). They
    /// take one slot (NCAQM) or sit together (FIFO); returned if there is no room.
    fn push_bound(&mut self, cx: &mut QueueCx, code: Code) -> Code;
    /// A native to resend before everything else (COPE §3.5: an unacknowledged packet
    /// goes back to the head of the queue). Not subject to capacity.
    fn push_front(&mut self, cx: &mut QueueCx, n: Native);
    /// The code for this transmission opportunity: the head, plus whatever may join it.
    fn pop(&mut self, cx: &mut QueueCx) -> Option<Code>;
    /// Periodic maintenance (NCAQM's re-coding pass, Alg. 1).
    fn tick(&mut self, _cx: &mut QueueCx) {}
    /// A frame carrying `code` went on the air (NCAQM's traffic-splitting window).
    fn on_sent(&mut self, _code: &[Native]) {}
    /// Takes out the first native held on its own (not bound in a two-hop code) that
    /// satisfies `f`, e.g. a retransmission whose acknowledgement came late.
    fn take_native(&mut self, f: &mut dyn FnMut(&Native) -> bool) -> Option<Native>;
    /// Does any native held satisfy `f`?
    fn any_native(&self, f: &mut dyn FnMut(&Native) -> bool) -> bool;
    /// Native packets held.
    fn packets(&self) -> usize;
    /// Slots used (natives, or codes stored as one).
    fn slots(&self) -> usize;
}
