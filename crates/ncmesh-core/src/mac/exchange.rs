//! The frame exchange of the frame in service (IEEE 802.11-2016 10.3.5, 10.3.6):
//! RTS -> CTS -> DATA -> ACK, DATA -> ACK, or a group addressed DATA alone; the
//! Duration values that protect it (9.2.5, 9.3.1.2); the response timeout and its
//! deferral while a frame is being received (10.3.2.7, 10.3.2.9).

use super::frame::{Frame, FrameKind, MacBody, OutFrame};
use super::io::Attempt;
use super::params::MacParams;
use crate::engine::Time;
use crate::net::{NodeId, BROADCAST};
use crate::phy::timing::{CTS_BYTES, RTS_BYTES};
use crate::phy::PhyTiming;

/// Where the exchange of the frame in service stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TxState {
    /// Nothing outstanding (contending or idle).
    Idle,
    /// Our RTS is out; waiting for the CTS.
    WaitCts,
    /// CTS received; the data frame goes out after SIFS.
    DataAfterCts,
    /// Our unicast data frame is out; waiting for the ACK.
    WaitAck,
    /// Our group addressed frame is on the air.
    Broadcasting,
}

/// The frame in service.
#[derive(Debug)]
struct Job<B> {
    frame: OutFrame<B>,
    seq: u16,
    /// Has this frame (or its RTS) been sent at least once (the Retry bit of later
    /// copies)?
    sent_once: bool,
}

/// What a response timeout that fires means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TimeoutAction {
    /// Stale: the exchange moved on.
    Ignore,
    /// A frame is being received: decide when it ends (it may be the response).
    Defer,
    /// The attempt failed.
    Fail,
}

/// A frame to send, described: the station builds it when the caller takes it, straight
/// where the caller wants it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Outgoing {
    /// The data frame in service.
    Data { retry: bool, airtime: Time },
    /// The RTS for the frame in service.
    Rts { retry: bool, duration: Time },
    /// An ACK (10.3.2.9).
    Ack { to: NodeId },
    /// A CTS with its Duration (10.3.2.7).
    Cts { to: NodeId, duration: Time },
}

impl Outgoing {
    /// Transmission time.
    pub(super) fn airtime(&self, t: &PhyTiming) -> Time {
        match *self {
            Outgoing::Data { airtime, .. } => airtime,
            Outgoing::Rts { .. } => t.airtime(RTS_BYTES, t.basic_rate_mbps),
            Outgoing::Ack { .. } => t.ack_time,
            Outgoing::Cts { .. } => t.airtime(CTS_BYTES, t.basic_rate_mbps),
        }
    }
}

#[derive(Debug)]
pub(super) struct Exchange<B> {
    state: TxState,
    job: Option<Job<B>>,
    /// Sequence number of the next frame (modulo 4096, 9.2.4.4).
    next_seq: u16,
    /// The attempt whose response timeout is in force.
    attempt: u32,
    /// The response timeout expired while a frame was being received.
    deferred: bool,
}

impl<B: MacBody> Exchange<B> {
    pub(super) fn new() -> Exchange<B> {
        Exchange {
            state: TxState::Idle,
            job: None,
            next_seq: 0,
            attempt: 0,
            deferred: false,
        }
    }

    /// No exchange under way (the station may contend).
    pub(super) fn idle(&self) -> bool {
        self.state == TxState::Idle
    }

    /// Is a frame in service?
    pub(super) fn has_frame(&self) -> bool {
        self.job.is_some()
    }

    /// The frame in service.
    pub(super) fn in_service(&self) -> Option<&OutFrame<B>> {
        self.job.as_ref().map(|j| &j.frame)
    }

    /// Takes a new frame into service with the next sequence number.
    pub(super) fn load(&mut self, frame: OutFrame<B>) {
        let seq = self.next_seq;
        self.next_seq = (self.next_seq + 1) & 0x0FFF;
        self.job = Some(Job {
            frame,
            seq,
            sent_once: false,
        });
    }

    /// Hands the frame in service back (its service is over).
    pub(super) fn take(&mut self) -> OutFrame<B> {
        self.job.take().expect("a frame in service").frame
    }

    /// Does the frame in service go after RTS/CTS? Unicast frames longer than
    /// dot11RTSThreshold do (10.3.2.5).
    fn needs_rts(&self, p: &MacParams) -> bool {
        self.job
            .as_ref()
            .is_some_and(|j| j.frame.mac_rx != BROADCAST && j.frame.mpdu_bytes() > p.rts_threshold)
    }

    /// The first frame of an attempt: the RTS, or the data frame itself. Retry bit on
    /// every copy after the first (9.2.4.1).
    pub(super) fn first_frame(&mut self, p: &MacParams) -> Outgoing {
        let t = &p.timing;
        let needs_rts = self.needs_rts(p);
        let job = self.job.as_mut().expect("a frame in service");
        let retry = job.sent_once;
        job.sent_once = true;
        let data_air = t.airtime(job.frame.mpdu_bytes(), data_rate(job.frame.mac_rx, t));
        if needs_rts {
            // RTS Duration: CTS + DATA + ACK + 3 SIFS (9.3.1.2).
            let cts_air = t.airtime(CTS_BYTES, t.basic_rate_mbps);
            let duration = 3 * t.sifs + cts_air + data_air + t.ack_time;
            self.state = TxState::WaitCts;
            Outgoing::Rts { retry, duration }
        } else {
            self.data(retry, data_air)
        }
    }

    /// A CTS for our RTS arrived: the data frame follows after SIFS (10.3.5); the
    /// CTSTimeout no longer applies. False if we were not waiting for one.
    pub(super) fn cts_received(&mut self) -> bool {
        if self.state != TxState::WaitCts {
            return false;
        }
        self.state = TxState::DataAfterCts;
        self.cancel_timeout();
        true
    }

    /// The data frame after the CTS, if the exchange still stands there. Its Retry bit
    /// is set when data frames of this frame already failed after a CTS.
    pub(super) fn data_after_cts(&mut self, t: &PhyTiming, long_retries: u32) -> Option<Outgoing> {
        if self.state != TxState::DataAfterCts {
            return None;
        }
        let mpdu = self
            .job
            .as_ref()
            .expect("a frame after CTS")
            .frame
            .mpdu_bytes();
        let air = t.airtime(mpdu, t.data_rate_mbps);
        Some(self.data(long_retries > 0, air))
    }

    fn data(&mut self, retry: bool, airtime: Time) -> Outgoing {
        let broadcast = self.job.as_ref().expect("a frame in service").frame.mac_rx == BROADCAST;
        self.state = if broadcast {
            TxState::Broadcasting
        } else {
            TxState::WaitAck
        };
        Outgoing::Data { retry, airtime }
    }

    /// The data frame of the frame in service. Duration: SIFS + ACK for an individually
    /// addressed frame, 0 for a group addressed one (9.2.5).
    pub(super) fn data_frame(
        &self,
        me: NodeId,
        retry: bool,
        airtime: Time,
        t: &PhyTiming,
    ) -> Frame<B> {
        let job = self.job.as_ref().expect("a frame in service");
        let broadcast = job.frame.mac_rx == BROADCAST;
        Frame {
            kind: FrameKind::Data,
            tx: me,
            rx: job.frame.mac_rx,
            seq: job.seq,
            retry,
            nav: if broadcast { 0 } else { t.sifs + t.ack_time },
            mpdu_bytes: job.frame.mpdu_bytes(),
            rate_mbps: data_rate(job.frame.mac_rx, t),
            airtime,
            data: Some(job.frame.body.clone()),
        }
    }

    /// The RTS of the frame in service.
    pub(super) fn rts_frame(
        &self,
        me: NodeId,
        retry: bool,
        duration: Time,
        t: &PhyTiming,
    ) -> Frame<B> {
        let job = self.job.as_ref().expect("a frame in service");
        Frame::rts(me, job.frame.mac_rx, job.seq, retry, duration, t)
    }

    /// Does the frame just sent call for a response (CTS or ACK)?
    pub(super) fn awaits_response(&self) -> bool {
        matches!(self.state, TxState::WaitCts | TxState::WaitAck)
    }

    /// Starts the response timeout of the attempt just sent; the caller schedules it
    /// at the end of the frame + SIFS + slot + the response's PLCP (10.3.2.7 CTSTimeout,
    /// 10.3.2.9 AckTimeout).
    pub(super) fn start_timeout(&mut self) -> Attempt {
        self.attempt = self.attempt.wrapping_add(1);
        self.deferred = false;
        Attempt(self.attempt)
    }

    fn cancel_timeout(&mut self) {
        self.attempt = self.attempt.wrapping_add(1);
        self.deferred = false;
    }

    /// The response timeout of `attempt` fires. A reception that started in time
    /// defers the decision to its end (10.3.2.7, 10.3.2.9).
    pub(super) fn timeout(&mut self, attempt: Attempt, receiving: bool) -> TimeoutAction {
        if attempt.0 != self.attempt || !self.awaits_response() {
            TimeoutAction::Ignore
        } else if receiving {
            self.deferred = true;
            TimeoutAction::Defer
        } else {
            TimeoutAction::Fail
        }
    }

    /// A reception ended: did the response timeout expire during it without the
    /// response arriving?
    pub(super) fn deferred_failure(&self) -> bool {
        self.deferred && self.awaits_response()
    }

    /// The ACK for our data frame arrived (10.3.2.9). False if we were not waiting
    /// for one.
    pub(super) fn ack_received(&mut self) -> bool {
        if self.state != TxState::WaitAck {
            return false;
        }
        self.cancel_timeout();
        self.state = TxState::Idle;
        true
    }

    /// Our group addressed frame ended: it is done, unacknowledged (10.3.6). False if
    /// the transmission that ended was not one.
    pub(super) fn broadcast_sent(&mut self) -> bool {
        if self.state != TxState::Broadcasting {
            return false;
        }
        self.state = TxState::Idle;
        true
    }

    /// The receiver and sequence number of the attempt under way.
    pub(super) fn attempt_of(&self) -> (NodeId, u16) {
        let job = self.job.as_ref().expect("a frame in service");
        (job.frame.mac_rx, job.seq)
    }

    /// The attempt failed: the exchange ends. True if the data frame itself went after
    /// RTS/CTS (the long retry count applies, 10.3.4.4); false for a failed RTS or a
    /// frame sent without RTS (the short one).
    pub(super) fn failed(&mut self, p: &MacParams) -> bool {
        let long = self.state == TxState::WaitAck && self.needs_rts(p);
        self.state = TxState::Idle;
        self.deferred = false;
        long
    }
}

/// Group addressed frames go at a basic rate, unicast data at the data rate (10.7).
fn data_rate(to: NodeId, t: &PhyTiming) -> f64 {
    if to == BROADCAST {
        t.basic_rate_mbps
    } else {
        t.data_rate_mbps
    }
}
