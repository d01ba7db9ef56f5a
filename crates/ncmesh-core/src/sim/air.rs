//! Frames on the air, kept until every receiver that locked on them is done, with the
//! per-receiver arrival draws made when the transmission started. Slots (and their
//! arrival buffers) are reused, so steady-state transmissions allocate nothing.

use crate::coding::Frame;
use crate::phy::channel::Arrival;

#[derive(Default)]
struct AirSlot {
    uid: u32,
    frame: Option<Frame>,
    refs: u32,
    arrivals: Vec<(u32, Arrival)>,
}

#[derive(Default)]
pub(super) struct Air {
    slots: Vec<AirSlot>,
    free: Vec<u32>,
    next_uid: u32,
}

impl Air {
    /// Stores a frame; returns its slot. The slot's uid (`uid`) tells signals apart
    /// even after a slot is reused.
    pub(super) fn put(&mut self, frame: Frame) -> u32 {
        self.next_uid = self.next_uid.wrapping_add(1);
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(AirSlot::default());
                (self.slots.len() - 1) as u32
            }
        };
        let s = &mut self.slots[slot as usize];
        s.uid = self.next_uid;
        s.frame = Some(frame);
        s.refs = 0;
        s.arrivals.clear();
        slot
    }

    /// Records that `node` will receive the frame as `arr`; returns its index.
    pub(super) fn add_arrival(&mut self, slot: u32, node: u32, arr: Arrival) -> u32 {
        let s = &mut self.slots[slot as usize];
        s.refs += 1;
        s.arrivals.push((node, arr));
        (s.arrivals.len() - 1) as u32
    }

    pub(super) fn arrival(&self, slot: u32, idx: u32) -> (u32, Arrival) {
        self.slots[slot as usize].arrivals[idx as usize]
    }

    /// Drops one reference; frees the slot when none is left.
    pub(super) fn release(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        s.refs -= 1;
        if s.refs == 0 {
            s.frame = None;
            self.free.push(slot);
        }
    }

    /// Frees a slot nobody referenced (a frame no one can hear).
    pub(super) fn release_if_unused(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        if s.refs == 0 && s.frame.is_some() {
            s.frame = None;
            self.free.push(slot);
        }
    }

    pub(super) fn frame(&self, slot: u32) -> &Frame {
        self.slots[slot as usize]
            .frame
            .as_ref()
            .expect("live air frame")
    }

    pub(super) fn uid(&self, slot: u32) -> u32 {
        self.slots[slot as usize].uid
    }
}
