//! One flow's two ends as a state machine with no I/O (the shape of the MAC station and
//! of quinn-proto's `Connection`): the source application and its transport (a TCP
//! sender, or UDP datagrams), and the destination's (a TCP receiver, or a datagram
//! count), with the payload check, the delay statistics and one timer table.
//!
//! The simulator feeds it inputs (`handle_timeout`, `handle_packet`) and then takes its
//! outputs in order with `poll_output`: packets to put on the network at either end, and
//! timers to schedule. An input handled while the outputs of another are still being
//! taken (a packet that comes back to this flow while its sender is sending) has its
//! outputs first, as a nested call would.

use super::tcp::{TcpConfig, TcpHeader, TcpReceiver, TcpSender};
use crate::app::{payload, payload_intact, Source};
use crate::engine::{Time, TimerSlot};
use crate::metrics::StreamDelay;
use crate::net::{NodeId, L4};
use crate::wire::udp::{UdpHeader, UDP_HEADER_BYTES};
use std::collections::VecDeque;

/// The timers of a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowTimer {
    /// The application starts.
    Start,
    /// The application stops writing.
    Stop,
    /// The next write of a constant-bit-rate application.
    AppTick,
    /// The TCP sender's retransmission timer (RFC 6298), which with RACK-TLP also
    /// carries the reordering and probe timers (RFC 8985 §8).
    Rto,
    /// A paced TCP sender may send again.
    Pace,
    /// The TCP receiver's delayed ACK (RFC 1122 4.2.3.2).
    DelAck,
}

/// A packet one end hands to the network layer.
#[derive(Debug)]
pub struct Transmit {
    /// The node sending it.
    pub from: NodeId,
    /// The node it is for.
    pub to: NodeId,
    /// Its transport header.
    pub l4: L4,
    /// Bytes above IP (header and application data).
    pub l4_bytes: u32,
    /// Its application bytes, when the run carries them.
    pub payload: Option<Box<[u8]>>,
}

/// What the endpoint asks of the simulator.
#[derive(Debug)]
pub enum EndpointOutput {
    /// Originate this packet.
    Transmit(Transmit),
    /// Call `handle_timeout(timer)` at `at`.
    Schedule {
        /// When.
        at: Time,
        /// Which timer.
        timer: FlowTimer,
    },
}

/// A step still to be taken, in order. `Pump` and `Arm` are evaluated when they are
/// reached, against the state at that moment.
#[derive(Debug)]
enum Step {
    Send(Transmit),
    /// Segments while the window and the application allow.
    Pump,
    /// Schedule a TCP timer if its deadline asks for one.
    Arm(FlowTimer),
    Schedule(Time, FlowTimer),
}

/// The TCP timers, in the timer table.
const TCP_TIMERS: [FlowTimer; 3] = [FlowTimer::Rto, FlowTimer::Pace, FlowTimer::DelAck];

/// How a flow is set up.
#[derive(Debug, Clone)]
pub struct EndpointCfg {
    /// The flow's index (its packets' `flow`, the payload stream's key).
    pub flow: u32,
    /// Source node.
    pub src: NodeId,
    /// Destination node.
    pub dst: NodeId,
    /// How the application writes (bulk over UDP already resolved to a rate).
    pub source: Source,
    /// TCP, with this configuration; UDP if `None`.
    pub tcp: Option<TcpConfig>,
    /// The application starts at `start` and stops writing at `stop`.
    pub start: Time,
    /// See `start`.
    pub stop: Time,
    /// The run's end: a stop at or after it is not scheduled.
    pub end: Time,
    /// Packets carry the application's bytes (`simulation.payload_bytes`).
    pub payloads: bool,
    /// The delay statistics count data delivered within this window.
    pub measure: (Time, Time),
}

/// One flow's two ends.
#[derive(Debug)]
pub struct Endpoint {
    flow: u32,
    src: NodeId,
    dst: NodeId,
    source: Source,
    stop: Time,
    payloads: bool,
    measure: (Time, Time),
    tx: Option<TcpSender>,
    rx: Option<TcpReceiver>,
    /// Bytes the application has written so far (u64::MAX: unlimited).
    app_bytes: u64,
    /// Highest stream offset sent.
    max_sent: u64,
    active: bool,
    udp_seq: u64,
    udp_rx_bytes: u64,
    tx_packets: u64,
    payload_errors: u64,
    delay: StreamDelay,
    timers: [TimerSlot; 3],
    agenda: VecDeque<Step>,
}

impl Endpoint {
    /// A flow as `cfg` sets it up; its first outputs schedule the start and the stop.
    pub fn new(cfg: &EndpointCfg) -> Endpoint {
        let mut agenda = VecDeque::with_capacity(8);
        agenda.push_back(Step::Schedule(cfg.start, FlowTimer::Start));
        if cfg.stop < cfg.end {
            agenda.push_back(Step::Schedule(cfg.stop, FlowTimer::Stop));
        }
        Endpoint {
            flow: cfg.flow,
            src: cfg.src,
            dst: cfg.dst,
            source: cfg.source,
            stop: cfg.stop,
            payloads: cfg.payloads,
            measure: cfg.measure,
            tx: cfg.tcp.as_ref().map(TcpSender::new),
            rx: cfg.tcp.as_ref().map(TcpReceiver::new),
            app_bytes: 0,
            max_sent: 0,
            active: false,
            udp_seq: 0,
            udp_rx_bytes: 0,
            tx_packets: 0,
            payload_errors: 0,
            delay: StreamDelay::default(),
            timers: [TimerSlot::default(); 3],
            agenda,
        }
    }

    // ------------------------------------------------------------------ inputs

    /// A timer scheduled by an earlier output fired.
    pub fn handle_timeout(&mut self, now: Time, timer: FlowTimer) {
        if let Some(slot) = self.slot(timer) {
            slot.fire(now);
        }
        match timer {
            FlowTimer::Start => {
                self.active = true;
                match self.source {
                    Source::Bulk => {
                        self.app_bytes = u64::MAX;
                        self.plan([Step::Pump, ARM_RTO, ARM_PACE]);
                    }
                    Source::Cbr { .. } => self.app_tick(now),
                }
            }
            FlowTimer::Stop => {
                self.active = false;
                if self.tx.is_some() {
                    // Stop writing: whatever was sent still gets delivered.
                    self.app_bytes = self.app_bytes.min(self.max_sent);
                }
            }
            FlowTimer::AppTick => self.app_tick(now),
            FlowTimer::Rto => {
                let tx = self.tx.as_mut().expect("an RTO belongs to a TCP sender");
                match tx.timer_deadline() {
                    Some(d) if d <= now => {
                        tx.on_timer(now);
                        self.plan([Step::Pump, ARM_RTO, ARM_PACE]);
                    }
                    // The deadline moved on since this event was scheduled.
                    _ => self.plan([ARM_RTO]),
                }
            }
            FlowTimer::Pace => self.plan([Step::Pump, ARM_RTO, ARM_PACE]),
            FlowTimer::DelAck => {
                let rx = self
                    .rx
                    .as_mut()
                    .expect("a delayed ACK belongs to a TCP receiver");
                let ack = match rx.delack_deadline() {
                    Some(d) if d <= now => rx.on_delack_timeout(now),
                    _ => None,
                };
                let ack = ack.map(|a| Step::Send(self.ack(a)));
                self.plan(ack.into_iter().chain([ARM_DELACK]));
            }
        }
    }

    /// A packet of this flow reached its destination's transport (`at == dst`: data)
    /// or its source's (an ACK). `payload`: the bytes it brought, if any.
    pub fn handle_packet(&mut self, now: Time, at: NodeId, l4: &L4, payload: Option<&[u8]>) {
        match *l4 {
            L4::Tcp(h) if at == self.dst => {
                // With payload bytes on, a data segment must bring all of its bytes, each
                // the one the source wrote (a decoder that loses or shortens them counts).
                self.check_payload(h.seq, h.len, payload);
                let rx = self.rx.as_mut().expect("a TCP flow has a receiver");
                let ack = rx.on_segment(now, &h);
                let (m0, m1) = self.measure;
                self.delay
                    .delivered(rx.delivered_bytes(), now, (m0..=m1).contains(&now));
                let ack = ack.map(|a| Step::Send(self.ack(a)));
                self.plan(ack.into_iter().chain([ARM_DELACK]));
            }
            L4::Tcp(h) => {
                let tx = self.tx.as_mut().expect("a TCP flow has a sender");
                tx.on_ack(now, &h);
                self.plan([Step::Pump, ARM_RTO, ARM_PACE]);
            }
            L4::Udp(h) => {
                self.check_payload(h.seq * h.len as u64, h.len, payload);
                self.udp_rx_bytes += h.len as u64;
            }
            L4::Coded(_) | L4::Control(_) | L4::Aodv(_) => unreachable!("not a transport packet"),
        }
    }

    /// The source's path now has `hops` hops (TCP-AP estimates per-hop delays from it).
    pub fn set_path_hops(&mut self, hops: u32) {
        if let Some(tx) = self.tx.as_mut() {
            tx.set_path_hops(hops);
        }
    }

    // ----------------------------------------------------------------- outputs

    /// Steps not yet taken; `poll_output` until it drops back to what it was before an
    /// input to take exactly that input's outputs.
    pub fn pending(&self) -> usize {
        self.agenda.len()
    }

    /// Takes the next step: an output, or `None` when the step needed none (a timer whose
    /// slot already has an earlier event, a sender with nothing more to send).
    pub fn poll_output(&mut self, now: Time) -> Option<EndpointOutput> {
        if matches!(self.agenda.front(), Some(Step::Pump)) {
            let seg = self.next_segment(now);
            if seg.is_none() {
                self.agenda.pop_front();
            }
            return seg.map(EndpointOutput::Transmit);
        }
        match self.agenda.pop_front()? {
            Step::Send(t) => Some(EndpointOutput::Transmit(t)),
            Step::Schedule(at, timer) => Some(EndpointOutput::Schedule { at, timer }),
            Step::Arm(timer) => self
                .arm(timer, now)
                .map(|at| EndpointOutput::Schedule { at, timer }),
            Step::Pump => unreachable!("taken above"),
        }
    }

    // ----------------------------------------------------------------- queries

    /// Source node.
    pub fn src(&self) -> NodeId {
        self.src
    }
    /// Destination node.
    pub fn dst(&self) -> NodeId {
        self.dst
    }
    /// The TCP sender (`None` for UDP).
    pub fn sender(&self) -> Option<&TcpSender> {
        self.tx.as_ref()
    }
    /// The TCP receiver (`None` for UDP).
    pub fn receiver(&self) -> Option<&TcpReceiver> {
        self.rx.as_ref()
    }
    /// Bytes the destination application got: in order for TCP, every datagram for UDP.
    pub fn delivered(&self) -> u64 {
        match &self.rx {
            Some(r) => r.delivered_bytes(),
            None => self.udp_rx_bytes,
        }
    }
    /// Data packets the source sent (segments with retransmissions, or datagrams).
    pub fn tx_packets(&self) -> u64 {
        self.tx_packets
    }
    /// Delivered packets whose bytes differ from what the source wrote.
    pub fn payload_errors(&self) -> u64 {
        self.payload_errors
    }
    /// Application-to-application delay of the TCP stream.
    pub fn delay(&self) -> &StreamDelay {
        &self.delay
    }

    // ----------------------------------------------------------------- internals

    /// Puts `steps`, in order, before the steps of any input still being handled.
    fn plan<I>(&mut self, steps: I)
    where
        I: IntoIterator<Item = Step>,
        I::IntoIter: DoubleEndedIterator,
    {
        for s in steps.into_iter().rev() {
            self.agenda.push_front(s);
        }
    }

    /// One write of a constant-bit-rate application: a datagram, or bytes appended to
    /// the TCP sender's buffer; then the next write, while the application runs.
    fn app_tick(&mut self, now: Time) {
        let Source::Cbr { interval, bytes } = self.source else {
            return;
        };
        if !self.active {
            return;
        }
        let next = now + interval;
        let tick = (next < self.stop).then_some(Step::Schedule(next, FlowTimer::AppTick));
        if self.tx.is_some() {
            self.app_bytes = self.app_bytes.saturating_add(bytes as u64);
            self.plan([Step::Pump, ARM_RTO, ARM_PACE]);
            if let Some(t) = tick {
                let at = 3; // after the pump and the two timers just planned
                self.agenda.insert(at, t);
            }
        } else {
            let h = UdpHeader {
                seq: self.udp_seq,
                len: bytes,
            };
            self.udp_seq += 1;
            self.tx_packets += 1;
            let body = self
                .payloads
                .then(|| payload(self.flow, h.seq * bytes as u64, bytes));
            let datagram = Step::Send(Transmit {
                from: self.src,
                to: self.dst,
                l4: L4::Udp(h),
                l4_bytes: UDP_HEADER_BYTES + bytes,
                payload: body,
            });
            self.plan([datagram].into_iter().chain(tick));
        }
    }

    /// The sender's next segment, if the window and the application allow one.
    fn next_segment(&mut self, now: Time) -> Option<Transmit> {
        if !self.active && self.app_bytes == 0 {
            return None;
        }
        let h = self.tx.as_mut()?.next_segment(now, self.app_bytes)?;
        self.max_sent = self.max_sent.max(h.seq + h.len as u64);
        if h.len > 0 {
            self.delay.sent(h.seq + h.len as u64, now);
        }
        self.tx_packets += 1;
        Some(Transmit {
            from: self.src,
            to: self.dst,
            l4: L4::Tcp(h),
            l4_bytes: h.wire_bytes() + h.len,
            payload: self.payloads.then(|| payload(self.flow, h.seq, h.len)),
        })
    }

    /// The receiver's ACK `a`, from the destination.
    fn ack(&self, a: TcpHeader) -> Transmit {
        Transmit {
            from: self.dst,
            to: self.src,
            l4: L4::Tcp(a),
            l4_bytes: a.wire_bytes(),
            payload: None,
        }
    }

    /// The time to schedule `timer` at, if its deadline needs an event.
    fn arm(&mut self, timer: FlowTimer, now: Time) -> Option<Time> {
        let deadline = match timer {
            FlowTimer::Rto => self.tx.as_ref()?.timer_deadline()?,
            // A pacing deadline that has passed holds nothing back.
            FlowTimer::Pace => self.tx.as_ref()?.pacing_deadline().filter(|&t| t > now)?,
            FlowTimer::DelAck => self.rx.as_ref()?.delack_deadline()?,
            _ => unreachable!("only TCP's timers are armed"),
        };
        self.slot(timer)?.arm(deadline, now)
    }

    /// The timer table's slot of a TCP timer.
    fn slot(&mut self, timer: FlowTimer) -> Option<&mut TimerSlot> {
        let i = TCP_TIMERS.iter().position(|&t| t == timer)?;
        Some(&mut self.timers[i])
    }

    /// Counts a delivered packet whose bytes are not the source's (offset `offset` of
    /// the flow's stream, `len` bytes).
    fn check_payload(&mut self, offset: u64, len: u32, bytes: Option<&[u8]>) {
        if !payload_intact(self.flow, offset, len, bytes, self.payloads) {
            self.payload_errors += 1;
        }
    }
}

const ARM_RTO: Step = Step::Arm(FlowTimer::Rto);
const ARM_PACE: Step = Step::Arm(FlowTimer::Pace);
const ARM_DELACK: Step = Step::Arm(FlowTimer::DelAck);

#[cfg(test)]
mod tests;
