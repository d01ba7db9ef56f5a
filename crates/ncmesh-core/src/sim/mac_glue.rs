//! MAC glue: runs each node's 802.11 station (mac::Station) on the simulator. Builds its
//! context from the radio, maps its outputs to events, puts frames on the air (air
//! slots, arrivals), ends receptions at the radio and hands data frames to the coding
//! layer (through the `coding_*` methods).

use super::events::Ev;
use super::trace::{TraceKind, TraceRecord};
use super::Sim;
use crate::coding;
use crate::mac::{FrameKind, MacCount, MacCx, MacOutput, MacTimer, RxError, Station};
use crate::phy::radio::RxOutcome;

impl Sim {
    fn mac_cx(&self, n: u32) -> MacCx {
        let nd = &self.nodes[n as usize];
        MacCx {
            now: self.now,
            cca_until: nd.radio.cca_until,
            receiving: nd.radio.receiving(self.now),
            // The station reads it only with nothing in service.
            upper_has_frame: nd.mac.in_service().is_none() && self.coding_wants_frame(n),
        }
    }

    /// After the layer above acted on `Deliver` or `Done`.
    fn mac_resume(&mut self, n: u32) {
        if self.nodes[n as usize].mac.resume_pending() {
            let cx = self.mac_cx(n);
            self.nodes[n as usize].mac.resume(cx);
        }
    }

    /// Gives node `n`'s station an input, then acts on its outputs in order. `rx_slot`:
    /// the air slot of the frame whose reception ended (for `Deliver`).
    fn mac_input(
        &mut self,
        n: u32,
        rx_slot: Option<u32>,
        input: impl FnOnce(&mut Station<coding::Body>, MacCx),
    ) {
        let cx = self.mac_cx(n);
        input(&mut self.nodes[n as usize].mac, cx);
        while let Some(o) = self.nodes[n as usize].mac.poll_output() {
            match o {
                MacOutput::Schedule { at, timer } => {
                    self.queue.schedule(at, Ev::Mac { node: n, timer })
                }
                MacOutput::Transmit { response } => {
                    let slot = self.air.put(self.nodes[n as usize].mac.take_transmit());
                    self.transmit(n, slot, response);
                }
                MacOutput::NeedFrame => {
                    if let Some(f) = self.coding_next_frame(n) {
                        let cx = self.mac_cx(n);
                        self.nodes[n as usize].mac.load(cx, f);
                    }
                }
                MacOutput::Deliver(a) => {
                    let slot = rx_slot.expect("a delivery follows a reception");
                    self.coding_rx(n, slot, a);
                    self.mac_resume(n);
                }
                MacOutput::Done(outcome) => {
                    let frame = self.nodes[n as usize].mac.take_done();
                    self.coding_tx_outcome(n, frame, outcome);
                    self.mac_resume(n);
                }
                MacOutput::AttemptFailed { to, seq } => {
                    if let Some(t) = &mut self.trace {
                        t.push(TraceRecord::failure(self.now, n, to, seq));
                    }
                }
                MacOutput::Count(c) => {
                    let s = &mut self.nodes[n as usize].stats;
                    match c {
                        MacCount::Received => s.mac_frames_received += 1,
                        MacCount::Overheard => s.mac_frames_overheard += 1,
                        MacCount::Duplicate => s.mac_duplicates += 1,
                    }
                }
            }
        }
    }

    /// The scheme of `n` has a new frame to send.
    pub(super) fn mac_packet_ready(&mut self, n: u32) {
        self.mac_input(n, None, |m, cx| m.handle_frame_ready(cx));
    }

    pub(super) fn on_mac_timer(&mut self, n: u32, timer: MacTimer) {
        self.mac_input(n, None, |m, cx| m.handle_timeout(cx, timer));
    }

    pub(super) fn on_tx_end(&mut self, n: u32, response: bool) {
        self.mac_input(n, None, |m, cx| m.handle_tx_end(cx, response));
    }

    /// Puts the frame in air slot `slot` on the air: the signal reaches every linked
    /// node after its propagation delay.
    fn transmit(&mut self, n: u32, slot: u32, response: bool) {
        let now = self.now;
        let frame = self.air.frame(slot);
        let airtime = frame.airtime;
        let nd = &mut self.nodes[n as usize];
        if nd.radio.start_tx(now, airtime) {
            nd.stats.collisions += 1; // a reception abandoned for our own transmission
        }
        nd.stats.mac_frames_sent += 1;
        if frame.kind == FrameKind::Data {
            nd.stats.mac_data_frames_sent += 1;
            nd.stats.mac_data_bytes_sent += u64::from(frame.mpdu_bytes);
            if frame.retry {
                nd.stats.mac_retries += 1;
            } else if let (Some(flow), Some(body)) = (&mut nd.flow, &frame.data) {
                // What went on the air, for a flow coder that counts it (ComboCoding's M).
                for p in &body.packets[..body.held_packets()] {
                    if !matches!(p.l4, crate::net::L4::Aodv(_)) {
                        flow.handle_on_air(p);
                    }
                }
            }
        }
        if let Some(t) = &mut self.trace {
            t.push(TraceRecord::new(now, n, TraceKind::TxStart, frame));
        }
        for link in self.channel.links_from(n) {
            let rng = &mut self.nodes[link.to as usize].rng_channel;
            if let Some(arr) = self.channel.arrival(link, rng) {
                let idx = self.air.add_arrival(slot, link.to, arr);
                self.queue
                    .schedule(now + link.delay, Ev::Arrival { slot, idx });
            }
        }
        self.air.release_if_unused(slot);
        self.queue
            .schedule(now + airtime, Ev::TxEnd { node: n, response });
    }

    pub(super) fn on_arrival(&mut self, slot: u32, idx: u32) {
        let now = self.now;
        let (n, arr) = self.air.arrival(slot, idx);
        let uid = self.air.uid(slot);
        let f = self.air.frame(slot);
        let (airtime, modes) = (f.airtime, self.mac.timing.modes(f.rate_mbps));
        let locked =
            self.nodes[n as usize]
                .radio
                .on_arrival(now, uid, airtime, arr, modes, self.rx_model);
        if locked {
            self.queue
                .schedule(now + airtime, Ev::RxEnd { node: n, slot });
        } else {
            self.air.release(slot);
        }
        if arr.sensed && self.nodes[n as usize].mac.contending() {
            self.mac_input(n, None, |m, cx| m.handle_medium_busy(cx));
        }
    }

    pub(super) fn on_rx_end(&mut self, n: u32, slot: u32) {
        let now = self.now;
        let uid = self.air.uid(slot);
        let nd = &mut self.nodes[n as usize];
        let rx = match nd
            .radio
            .finish(now, uid, self.rx_model, &mut nd.rng_channel)
        {
            None => Err(RxError::Aborted),
            Some(RxOutcome::Collided) => {
                self.trace_rx(n, slot, TraceKind::RxCollided);
                self.nodes[n as usize].stats.collisions += 1;
                Err(RxError::Corrupted)
            }
            Some(RxOutcome::Received) => {
                let f = self.air.frame(slot);
                let p_link = self.channel.link(f.tx, n).map_or(1.0, |l| l.p_link);
                let nd = &mut self.nodes[n as usize];
                let is_data = f.kind == FrameKind::Data;
                if self
                    .loss
                    .frame_lost(p_link, f.tx, n, now, is_data, &mut nd.rng_channel)
                {
                    nd.stats.channel_losses += 1;
                    self.trace_rx(n, slot, TraceKind::RxLost);
                    Err(RxError::Corrupted)
                } else {
                    self.trace_rx(n, slot, TraceKind::RxOk);
                    Ok(self.air.frame(slot).header())
                }
            }
        };
        self.mac_input(n, Some(slot), |m, cx| m.handle_rx_end(cx, rx));
        self.air.release(slot);
    }

    fn trace_rx(&mut self, n: u32, slot: u32, what: TraceKind) {
        if let Some(t) = &mut self.trace {
            t.push(TraceRecord::new(self.now, n, what, self.air.frame(slot)));
        }
    }
}
