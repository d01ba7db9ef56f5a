//! What a station is told and what it asks for: its context, the timers it sets and
//! the outputs the caller acts on.

use crate::engine::Time;
use crate::net::NodeId;

/// What a station needs to know at each call: the time and the state of the medium
/// and of the layer above. Built fresh for every call.
#[derive(Debug, Clone, Copy)]
pub struct MacCx {
    /// The current time.
    pub now: Time,
    /// Physical carrier sense: the medium is busy with others' signals until then
    /// (the station adds its own transmissions, 10.3.2.1).
    pub cca_until: Time,
    /// The radio is receiving a frame now.
    pub receiving: bool,
    /// The layer above has a frame to send. Read only while the station has no frame in
    /// service ([`Station::in_service`](super::Station::in_service) is `None`), so a
    /// caller may skip asking the layer above otherwise.
    pub upper_has_frame: bool,
}

/// A timer a station asks for ([`MacOutput::Schedule`]) and gets back through
/// [`Station::handle_timeout`](super::Station::handle_timeout). Timers are never
/// cancelled: one that no longer applies is ignored when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacTimer {
    /// Channel access: the backoff may be over (10.3.4.3).
    Access,
    /// No CTS or ACK started in time (CTSTimeout 10.3.2.7, AckTimeout 10.3.2.9).
    ResponseTimeout(Attempt),
    /// SIFS after a reception: a frame goes out without contention.
    Sifs(SifsResponse),
}

/// Which transmission attempt a response timeout belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt(pub(super) u32);

/// The frame a station sends SIFS after a reception.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SifsResponse {
    /// ACK to the sender of a data frame (10.3.2.9).
    Ack {
        /// The data frame's transmitter.
        to: NodeId,
    },
    /// CTS to the sender of an RTS (10.3.2.7).
    Cts {
        /// The RTS's transmitter.
        to: NodeId,
        /// The CTS Duration field, ns (at most 32.767 ms, so it fits).
        duration_ns: u32,
    },
    /// Our data frame, after the CTS we asked for (10.3.5).
    DataAfterCts,
}

/// How a reception ended without an intact frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RxError {
    /// The frame was lost (collision, channel error): EIFS follows (10.3.2.3.7).
    Corrupted,
    /// The radio gave the reception up for a transmission of ours.
    Aborted,
}

/// How a received data frame concerns this station.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addressed {
    /// We are its MAC receiver (it was acknowledged).
    ToMe,
    /// Group addressed (not acknowledged, 10.3.6).
    Broadcast,
    /// Addressed to another station, heard in promiscuous mode.
    Overheard,
}

/// The end of a frame's service at the MAC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxOutcome {
    /// Acknowledged by the MAC receiver (or sent, for broadcast).
    Delivered,
    /// Retry limit reached without an acknowledgement.
    Failed,
}

/// A MAC counter to increment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacCount {
    /// A frame addressed to us (or broadcast) was received intact.
    Received,
    /// A data frame addressed to another station was received intact.
    Overheard,
    /// A retransmitted data frame we had received already (10.3.2.11).
    Duplicate,
}

/// What a station asks its caller to do, in order. [`MacOutput::NeedFrame`],
/// [`MacOutput::Deliver`] and [`MacOutput::Done`] involve the layer above and are
/// always the last output of a call; the station continues when told the result
/// ([`Station::load`](super::Station::load), [`Station::resume`](super::Station::resume)).
/// Frames are not part of the output (it stays small and cheap to move): the caller
/// takes them from the station when told to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacOutput {
    /// Call [`Station::handle_timeout`](super::Station::handle_timeout) with `timer`
    /// at `at`.
    Schedule {
        /// When.
        at: Time,
        /// What to hand back.
        timer: MacTimer,
    },
    /// Put the frame [`Station::take_transmit`](super::Station::take_transmit) gives on
    /// the air now; its airtime says when the transmission ends. `response`: an ACK or
    /// CTS, not the frame in service (tell
    /// [`Station::handle_tx_end`](super::Station::handle_tx_end) so).
    Transmit {
        /// Sent SIFS after a reception (ACK, CTS).
        response: bool,
    },
    /// The station has won access with nothing in service: ask the layer above for a
    /// frame and [`Station::load`](super::Station::load) it (nothing to do if none).
    NeedFrame,
    /// Hand the data frame just received to the layer above, then
    /// [`Station::resume`](super::Station::resume).
    Deliver(Addressed),
    /// The frame in service is done with, acknowledged (or broadcast) or given up: give
    /// it ([`Station::take_done`](super::Station::take_done)) back to the layer above,
    /// then [`Station::resume`](super::Station::resume).
    Done(TxOutcome),
    /// An attempt got no response in time (for traces): its receiver and sequence
    /// number.
    AttemptFailed {
        /// The frame's MAC receiver.
        to: NodeId,
        /// Its sequence number.
        seq: u16,
    },
    /// Increment a counter.
    Count(MacCount),
}
