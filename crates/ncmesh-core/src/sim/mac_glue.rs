//! Drives each node's DCF state (mac::dcf) and radio (phy::radio) with medium events:
//! channel access, transmissions, receptions, responses and timeouts.

use super::events::{Ev, Response};
use super::trace::{TraceKind, TraceRecord};
use super::Sim;
use crate::coding::Frame;
use crate::coding::TxOutcome;
use crate::mac::frame::FrameKind;
use crate::mac::TxState;
use crate::net::BROADCAST;
use crate::phy::radio::RxOutcome;
use crate::phy::timing::{CTS_BYTES, RTS_BYTES};

impl Sim {
    fn wants_access(&self, n: u32) -> bool {
        let nd = &self.nodes[n as usize];
        nd.dcf.state == TxState::Idle
            && (nd.dcf.job.is_some() || nd.dcf.backoff_running || self.coding_wants_frame(n))
    }

    /// Arms the access timer if the node has something to do and none is armed.
    pub(super) fn mac_rearm(&mut self, n: u32) {
        if self.nodes[n as usize].dcf.armed.is_some() || !self.wants_access(n) {
            return;
        }
        let nd = &mut self.nodes[n as usize];
        let idle = nd.dcf.idle_start(nd.radio.busy_until(), &self.mac);
        if let Some(at) = nd.dcf.arm(self.now, idle, &self.mac) {
            self.queue.schedule(at, Ev::Access { node: n });
        }
    }

    /// The medium turned busy for `n` (carrier sense, NAV, own transmission, EIFS):
    /// freeze the backoff and re-arm for the new idle time.
    fn mac_busy(&mut self, n: u32) {
        let nd = &mut self.nodes[n as usize];
        if nd.dcf.armed.is_some() {
            nd.dcf.freeze(self.now, &self.mac);
            self.mac_rearm(n);
        }
    }

    /// The scheme has a new packet: start contending if the MAC was idle. A backoff is
    /// drawn only if the medium is busy now (802.11-2016 10.3.4.2).
    pub(super) fn mac_packet_ready(&mut self, n: u32) {
        let now = self.now;
        let nd = &mut self.nodes[n as usize];
        let d = &mut nd.dcf;
        if d.state != TxState::Idle || d.armed.is_some() {
            return;
        }
        if d.job.is_none() && !d.backoff_running {
            let busy = nd.radio.busy_until() > now || d.nav_until > now || nd.radio.receiving(now);
            if busy {
                d.start_backoff(&mut nd.rng_backoff);
            } else {
                d.backoff = 0;
                d.access_request = now;
            }
        }
        self.mac_rearm(n);
    }

    pub(super) fn on_access(&mut self, n: u32) {
        let now = self.now;
        let nd = &mut self.nodes[n as usize];
        let (due, again) = nd.dcf.access_due(now);
        if let Some(at) = again {
            self.queue.schedule(at, Ev::Access { node: n });
        }
        if !due {
            return;
        }
        let idle = nd.dcf.idle_start(nd.radio.busy_until(), &self.mac);
        if idle > now {
            // Defensive: the medium is not idle long enough; wait again.
            nd.dcf.armed = None;
            self.mac_rearm(n);
            return;
        }
        nd.dcf.armed = None;
        nd.dcf.backoff = 0;
        nd.dcf.backoff_running = false;
        if nd.dcf.state != TxState::Idle {
            return;
        }
        if nd.dcf.job.is_none() {
            let Some(f) = self.coding_next_frame(n) else {
                return;
            };
            self.nodes[n as usize].dcf.load(f);
        }
        self.mac_send_job(n);
    }

    /// Sends the frame in service (or its RTS).
    fn mac_send_job(&mut self, n: u32) {
        let t = &self.mac.timing;
        let (sifs, ack_time) = (t.sifs, t.ack_time);
        let nd = &mut self.nodes[n as usize];
        let needs_rts = nd.dcf.needs_rts(&self.mac);
        let job = nd.dcf.job.as_mut().expect("job in service");
        let retry = job.sent_once;
        job.sent_once = true;
        let mpdu = job.frame.mpdu_bytes();
        let to = job.frame.mac_rx;
        let data_air = t.airtime(
            mpdu,
            if to == BROADCAST {
                t.basic_rate_mbps
            } else {
                t.data_rate_mbps
            },
        );
        if needs_rts {
            let cts_time = t.airtime(CTS_BYTES, t.basic_rate_mbps);
            let frame = Frame {
                kind: FrameKind::Rts,
                tx: n,
                rx: to,
                seq: job.seq,
                retry,
                nav: 3 * sifs + cts_time + data_air + ack_time,
                mpdu_bytes: RTS_BYTES,
                rate_mbps: t.basic_rate_mbps,
                airtime: t.airtime(RTS_BYTES, t.basic_rate_mbps),
                data: None,
            };
            nd.dcf.state = TxState::WaitCts;
            self.transmit(n, frame, false);
            self.arm_response_timeout(n);
        } else {
            self.send_data(n, retry, data_air);
        }
    }

    fn send_data(&mut self, n: u32, retry: bool, airtime: crate::engine::Time) {
        let t = &self.mac.timing;
        let nav_unicast = t.sifs + t.ack_time;
        let nd = &mut self.nodes[n as usize];
        let job = nd.dcf.job.as_ref().expect("job in service");
        let broadcast = job.frame.mac_rx == BROADCAST;
        let frame = Frame {
            kind: FrameKind::Data,
            tx: n,
            rx: job.frame.mac_rx,
            seq: job.seq,
            retry,
            nav: if broadcast { 0 } else { nav_unicast },
            mpdu_bytes: job.frame.mpdu_bytes(),
            rate_mbps: if broadcast {
                t.basic_rate_mbps
            } else {
                t.data_rate_mbps
            },
            airtime,
            data: Some(job.frame.body.clone()),
        };
        nd.stats.mac_data_frames_sent += 1;
        if retry {
            nd.stats.mac_retries += 1;
        }
        nd.dcf.state = if broadcast {
            TxState::Broadcasting
        } else {
            TxState::WaitAck
        };
        self.transmit(n, frame, false);
        if !broadcast {
            self.arm_response_timeout(n);
        }
    }

    fn arm_response_timeout(&mut self, n: u32) {
        let nd = &mut self.nodes[n as usize];
        nd.dcf.timeout_gen = nd.dcf.timeout_gen.wrapping_add(1);
        nd.dcf.timeout_deferred = false;
        let at = nd.radio.tx_until + self.mac.timing.response_timeout();
        self.queue.schedule(
            at,
            Ev::Timeout {
                node: n,
                gen: nd.dcf.timeout_gen,
            },
        );
    }

    /// Puts a frame on the air: the signal reaches every linked node after its
    /// propagation delay.
    fn transmit(&mut self, n: u32, frame: Frame, response: bool) {
        let now = self.now;
        let airtime = frame.airtime;
        {
            let nd = &mut self.nodes[n as usize];
            if nd.radio.start_tx(now, airtime) {
                nd.stats.collisions += 1; // a reception abandoned for our own transmission
            }
            nd.stats.mac_frames_sent += 1;
        }
        self.mac_busy(n);
        if self.trace.is_some() {
            self.record(n, TraceKind::TxStart, &frame);
        }
        let (slot, _uid) = self.air.put(frame);
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

    pub(super) fn on_tx_end(&mut self, n: u32, response: bool) {
        if !response && self.nodes[n as usize].dcf.state == TxState::Broadcasting {
            let nd = &mut self.nodes[n as usize];
            nd.dcf.state = TxState::Idle;
            nd.dcf.on_success(&mut nd.rng_backoff, &self.mac);
            let job = nd.dcf.job.take().expect("broadcast job");
            self.coding_tx_outcome(n, job.frame, TxOutcome::Delivered);
        }
        self.mac_rearm(n);
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
        if arr.sensed {
            self.mac_busy(n);
        }
    }

    pub(super) fn on_rx_end(&mut self, n: u32, slot: u32) {
        let now = self.now;
        let uid = self.air.uid(slot);
        let nd = &mut self.nodes[n as usize];
        let outcome = nd
            .radio
            .finish(now, uid, self.rx_model, &mut nd.rng_channel);
        match outcome {
            None => {}
            Some(RxOutcome::Collided) => {
                self.trace_rx(n, slot, TraceKind::RxCollided);
                self.nodes[n as usize].stats.collisions += 1;
                self.rx_failed(n);
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
                    self.rx_failed(n);
                } else {
                    self.trace_rx(n, slot, TraceKind::RxOk);
                    self.rx_ok(n, slot);
                }
            }
        }
        self.air.release(slot);
        let d = &self.nodes[n as usize].dcf;
        if d.timeout_deferred && matches!(d.state, TxState::WaitAck | TxState::WaitCts) {
            // The response timeout expired during this reception, which was not the response.
            self.mac_fail(n);
        }
    }

    fn trace_rx(&mut self, n: u32, slot: u32, what: TraceKind) {
        if let Some(t) = &mut self.trace {
            t.push(TraceRecord::new(self.now, n, what, self.air.frame(slot)));
        }
    }

    fn rx_failed(&mut self, n: u32) {
        self.nodes[n as usize].dcf.rx_error_end = Some(self.now);
        self.mac_busy(n);
    }

    fn rx_ok(&mut self, n: u32, slot: u32) {
        let now = self.now;
        let sifs = self.mac.timing.sifs;
        let f = self.air.frame(slot);
        let (kind, tx, rx, nav, seq, retry) = (f.kind, f.tx, f.rx, f.nav, f.seq, f.retry);
        let nd = &mut self.nodes[n as usize];
        nd.dcf.rx_error_end = None;
        if rx == n || rx == BROADCAST {
            nd.stats.mac_frames_received += 1;
        }
        match kind {
            FrameKind::Ack => {
                if rx == n && nd.dcf.state == TxState::WaitAck {
                    self.mac_succeed(n);
                }
            }
            FrameKind::Cts => {
                if rx == n && nd.dcf.state == TxState::WaitCts {
                    nd.dcf.state = TxState::DataAfterCts;
                    nd.dcf.timeout_gen = nd.dcf.timeout_gen.wrapping_add(1);
                    nd.dcf.timeout_deferred = false;
                    self.queue.schedule(
                        now + sifs,
                        Ev::Respond {
                            node: n,
                            resp: Response::DataAfterCts,
                        },
                    );
                }
            }
            FrameKind::Rts => {
                // Answer only if our NAV does not say the medium is reserved (10.3.2.7).
                if rx == n && nd.dcf.nav_until <= now {
                    let cts_time = self
                        .mac
                        .timing
                        .airtime(CTS_BYTES, self.mac.timing.basic_rate_mbps);
                    let nav_ns = nav.saturating_sub(sifs + cts_time) as u32;
                    self.queue.schedule(
                        now + sifs,
                        Ev::Respond {
                            node: n,
                            resp: Response::Cts { to: tx, nav_ns },
                        },
                    );
                }
            }
            FrameKind::Data => {
                if rx == n {
                    self.queue.schedule(
                        now + sifs,
                        Ev::Respond {
                            node: n,
                            resp: Response::Ack { to: tx },
                        },
                    );
                    if nd.dcf.is_duplicate(tx, seq, retry) {
                        nd.stats.mac_duplicates += 1;
                    } else {
                        self.coding_rx(n, slot, true);
                    }
                } else if rx == BROADCAST {
                    self.coding_rx(n, slot, true);
                } else {
                    nd.stats.mac_frames_overheard += 1;
                    self.coding_rx(n, slot, false);
                }
            }
        }
        if rx != n && rx != BROADCAST {
            // Virtual carrier sense from the Duration field (10.3.2.4).
            let nd = &mut self.nodes[n as usize];
            if now + nav > nd.dcf.nav_until {
                nd.dcf.nav_until = now + nav;
                self.mac_busy(n);
            }
        }
    }

    fn mac_succeed(&mut self, n: u32) {
        let nd = &mut self.nodes[n as usize];
        nd.dcf.timeout_gen = nd.dcf.timeout_gen.wrapping_add(1);
        nd.dcf.timeout_deferred = false;
        nd.dcf.state = TxState::Idle;
        nd.dcf.on_success(&mut nd.rng_backoff, &self.mac);
        let job = nd.dcf.job.take().expect("acknowledged job");
        self.coding_tx_outcome(n, job.frame, TxOutcome::Delivered);
        self.mac_rearm(n);
    }

    fn mac_fail(&mut self, n: u32) {
        if let Some(t) = &mut self.trace {
            let job = self.nodes[n as usize].dcf.job.as_ref().expect("failed job");
            t.push(TraceRecord::failure(self.now, n, job.frame.mac_rx, job.seq));
        }
        let nd = &mut self.nodes[n as usize];
        let long = nd.dcf.state == TxState::WaitAck && nd.dcf.needs_rts(&self.mac);
        nd.dcf.state = TxState::Idle;
        nd.dcf.timeout_deferred = false;
        if nd.dcf.on_failure(&mut nd.rng_backoff, &self.mac, long) {
            let job = nd.dcf.job.take().expect("failed job");
            self.coding_tx_outcome(n, job.frame, TxOutcome::Failed);
        }
        self.mac_rearm(n);
    }

    pub(super) fn on_timeout(&mut self, n: u32, gen: u32) {
        let nd = &mut self.nodes[n as usize];
        if gen != nd.dcf.timeout_gen || !matches!(nd.dcf.state, TxState::WaitAck | TxState::WaitCts)
        {
            return;
        }
        if nd.radio.receiving(self.now) {
            // A frame started in time: wait for its end (it may be our response).
            nd.dcf.timeout_deferred = true;
            return;
        }
        nd.dcf.timeout_end = self.now;
        self.mac_fail(n);
    }

    pub(super) fn on_respond(&mut self, n: u32, resp: Response) {
        let t = &self.mac.timing;
        let basic = t.basic_rate_mbps;
        match resp {
            Response::Ack { to } => {
                let frame = Frame {
                    kind: FrameKind::Ack,
                    tx: n,
                    rx: to,
                    seq: 0,
                    retry: false,
                    nav: 0,
                    mpdu_bytes: crate::phy::timing::ACK_BYTES,
                    rate_mbps: basic,
                    airtime: t.ack_time,
                    data: None,
                };
                self.transmit(n, frame, true);
            }
            Response::Cts { to, nav_ns } => {
                let nav = nav_ns as crate::engine::Time;
                let frame = Frame {
                    kind: FrameKind::Cts,
                    tx: n,
                    rx: to,
                    seq: 0,
                    retry: false,
                    nav,
                    mpdu_bytes: CTS_BYTES,
                    rate_mbps: basic,
                    airtime: t.airtime(CTS_BYTES, basic),
                    data: None,
                };
                self.transmit(n, frame, true);
            }
            Response::DataAfterCts => {
                let nd = &self.nodes[n as usize];
                if nd.dcf.state != TxState::DataAfterCts {
                    return;
                }
                let job = nd.dcf.job.as_ref().expect("job after CTS");
                let retry = job.long_retries > 0;
                let air = t.airtime(job.frame.mpdu_bytes(), t.data_rate_mbps);
                self.send_data(n, retry, air);
            }
        }
    }
}
