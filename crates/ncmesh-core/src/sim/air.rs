//! Frames on the air, kept until every receiver that locked on them is done.

use crate::mac::Frame;

struct AirFrame {
    uid: u32,
    frame: Frame,
    refs: u32,
}

#[derive(Default)]
pub struct Air {
    slots: Vec<Option<AirFrame>>,
    free: Vec<u32>,
    next_uid: u32,
}

impl Air {
    /// Stores a frame; returns (slot, uid). The uid tells signals apart even after a
    /// slot is reused.
    pub fn put(&mut self, frame: Frame) -> (u32, u32) {
        self.next_uid = self.next_uid.wrapping_add(1);
        let af = AirFrame { uid: self.next_uid, frame, refs: 0 };
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(af);
                s
            }
            None => {
                self.slots.push(Some(af));
                (self.slots.len() - 1) as u32
            }
        };
        (slot, self.next_uid)
    }

    pub fn hold(&mut self, slot: u32) {
        self.slots[slot as usize].as_mut().expect("live air frame").refs += 1;
    }

    /// Drops one reference; frees the slot when none is left.
    pub fn release(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        let af = s.as_mut().expect("live air frame");
        af.refs -= 1;
        if af.refs == 0 {
            *s = None;
            self.free.push(slot);
        }
    }

    /// Frees a slot nobody referenced (a frame no one can hear).
    pub fn release_if_unused(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        if s.as_ref().is_some_and(|a| a.refs == 0) {
            *s = None;
            self.free.push(slot);
        }
    }

    pub fn frame(&self, slot: u32) -> &Frame {
        &self.slots[slot as usize].as_ref().expect("live air frame").frame
    }

    pub fn uid(&self, slot: u32) -> u32 {
        self.slots[slot as usize].as_ref().expect("live air frame").uid
    }
}
