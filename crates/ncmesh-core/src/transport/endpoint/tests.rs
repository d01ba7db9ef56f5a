//! The endpoint without the engine: its outputs for each input, and whole flows over a
//! hand-run lossless link.

use super::*;
use crate::app::payload;
use crate::engine::{MILLIS, SECOND};
use std::collections::BTreeMap;

const SRC: NodeId = 0;
const DST: NodeId = 1;

fn cfg(tcp: Option<TcpConfig>, source: Source, stop: Time) -> EndpointCfg {
    EndpointCfg {
        flow: 7,
        src: SRC,
        dst: DST,
        source,
        tcp,
        start: 0,
        stop,
        end: 60 * SECOND,
        payloads: true,
        measure: (0, 60 * SECOND),
    }
}

fn no_delack() -> TcpConfig {
    TcpConfig {
        delayed_ack: false,
        ..TcpConfig::default()
    }
}

/// Every output the endpoint has now.
fn drain(ep: &mut Endpoint, now: Time) -> Vec<EndpointOutput> {
    let mut v = Vec::new();
    while ep.pending() > 0 {
        v.extend(ep.poll_output(now));
    }
    v
}

fn started(c: &EndpointCfg) -> (Endpoint, Vec<EndpointOutput>) {
    let mut ep = Endpoint::new(c);
    let first = drain(&mut ep, 0);
    assert!(matches!(
        first[0],
        EndpointOutput::Schedule {
            at: 0,
            timer: FlowTimer::Start
        }
    ));
    ep.handle_timeout(0, FlowTimer::Start);
    let out = drain(&mut ep, 0);
    (ep, out)
}

fn sent(out: &[EndpointOutput]) -> Vec<&Transmit> {
    out.iter()
        .filter_map(|o| match o {
            EndpointOutput::Transmit(t) => Some(t),
            _ => None,
        })
        .collect()
}

fn scheduled(out: &[EndpointOutput]) -> Vec<(Time, FlowTimer)> {
    out.iter()
        .filter_map(|o| match *o {
            EndpointOutput::Schedule { at, timer } => Some((at, timer)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_bulk_tcp_flow_starts_with_its_initial_window_and_one_rto() {
    let tcp = no_delack();
    let (iw, rto) = (tcp.initial_cwnd_segments as usize, tcp.initial_rto);
    let (ep, out) = started(&cfg(Some(tcp), Source::Bulk, 60 * SECOND));
    let segs = sent(&out);
    assert_eq!(segs.len(), iw);
    assert!(segs.iter().all(|t| t.from == SRC && t.to == DST));
    assert_eq!(scheduled(&out), vec![(rto, FlowTimer::Rto)]);
    assert_eq!(ep.tx_packets(), iw as u64);
}

#[test]
fn the_stop_is_scheduled_only_before_the_run_ends() {
    let mut ep = Endpoint::new(&cfg(None, Source::Bulk, 5 * SECOND));
    assert_eq!(
        scheduled(&drain(&mut ep, 0)),
        vec![(0, FlowTimer::Start), (5 * SECOND, FlowTimer::Stop)]
    );
    let mut ep = Endpoint::new(&cfg(None, Source::Bulk, 60 * SECOND));
    assert_eq!(scheduled(&drain(&mut ep, 0)), vec![(0, FlowTimer::Start)]);
}

#[test]
fn a_udp_rate_sends_one_datagram_per_tick_until_it_stops() {
    let source = Source::Cbr {
        interval: MILLIS,
        bytes: 500,
    };
    let (mut ep, mut out) = started(&cfg(None, source, 10 * MILLIS));
    let mut datagrams = 0;
    loop {
        datagrams += sent(&out).len();
        let now = match scheduled(&out)[..] {
            [(at, FlowTimer::AppTick)] => at,
            [] => break,
            ref other => panic!("unexpected timers {other:?}"),
        };
        ep.handle_timeout(now, FlowTimer::AppTick);
        out = drain(&mut ep, now);
    }
    // Writes at 0, 1, ..., 9 ms: the one at 10 ms is the stop.
    assert_eq!(datagrams, 10);
    assert_eq!(ep.tx_packets(), 10);
}

#[test]
fn lost_shortened_or_wrong_bytes_are_payload_errors() {
    let (mut ep, _) = started(&cfg(Some(no_delack()), Source::Bulk, 60 * SECOND));
    let seg = |seq| L4::Tcp(TcpHeader::data(seq, 100));
    ep.handle_packet(MILLIS, DST, &seg(0), Some(&payload(7, 0, 100)));
    assert_eq!(ep.payload_errors(), 0);
    ep.handle_packet(MILLIS, DST, &seg(100), None);
    ep.handle_packet(MILLIS, DST, &seg(200), Some(&payload(7, 200, 99)));
    ep.handle_packet(MILLIS, DST, &seg(300), Some(&payload(8, 300, 100)));
    assert_eq!(ep.payload_errors(), 3);

    let mut udp = Endpoint::new(&cfg(None, Source::Bulk, 60 * SECOND));
    let dgram = L4::Udp(UdpHeader { seq: 2, len: 50 });
    udp.handle_packet(MILLIS, DST, &dgram, Some(&payload(7, 100, 50)));
    udp.handle_packet(MILLIS, DST, &dgram, Some(&payload(7, 0, 50)));
    assert_eq!(udp.payload_errors(), 1);
    assert_eq!(udp.delivered(), 100);
}

#[test]
fn a_delayed_ack_goes_out_when_its_timer_fires() {
    let tcp = TcpConfig::default();
    assert!(tcp.delayed_ack, "the default delays ACKs");
    let wait = tcp.delayed_ack_timeout;
    let (mut ep, _) = started(&cfg(Some(tcp), Source::Bulk, 60 * SECOND));
    let seg = L4::Tcp(TcpHeader::data(0, 100));
    ep.handle_packet(MILLIS, DST, &seg, Some(&payload(7, 0, 100)));
    let out = drain(&mut ep, MILLIS);
    assert!(sent(&out).is_empty(), "one small segment: the ACK waits");
    assert_eq!(scheduled(&out), vec![(MILLIS + wait, FlowTimer::DelAck)]);
    ep.handle_timeout(MILLIS + wait, FlowTimer::DelAck);
    let out = drain(&mut ep, MILLIS + wait);
    let acks = sent(&out);
    assert_eq!(acks.len(), 1);
    assert_eq!((acks[0].from, acks[0].to), (DST, SRC));
    assert!(matches!(acks[0].l4, L4::Tcp(h) if h.ack == 100));
    assert!(scheduled(&out).is_empty(), "nothing left to delay");
}

#[test]
fn an_rto_event_whose_deadline_moved_arms_the_new_one() {
    let tcp = no_delack();
    let rto = tcp.initial_rto;
    let (mut ep, _) = started(&cfg(Some(tcp), Source::Bulk, 60 * SECOND));
    // An ACK of the first segment restarts the retransmission timer (RFC 6298 5.3):
    // a later deadline, so no new event yet ...
    let mut ack = TcpHeader::data(0, 0);
    ack.ack = ep.sender().unwrap().snd_una() + TcpConfig::default().mss as u64;
    ep.handle_packet(10 * MILLIS, SRC, &L4::Tcp(ack), None);
    let out = drain(&mut ep, 10 * MILLIS);
    assert!(!scheduled(&out).iter().any(|&(_, t)| t == FlowTimer::Rto));
    let moved = ep.sender().unwrap().rto_deadline().unwrap();
    assert!(moved > rto);
    // ... the first event finds the deadline ahead and asks for it.
    ep.handle_timeout(rto, FlowTimer::Rto);
    assert_eq!(
        scheduled(&drain(&mut ep, rto)),
        vec![(moved, FlowTimer::Rto)]
    );
    assert_eq!(ep.sender().unwrap().stats().timeouts, 0);
}

#[test]
fn an_input_handled_while_sending_has_its_outputs_first() {
    let mut ep = Endpoint::new(&cfg(Some(no_delack()), Source::Bulk, 60 * SECOND));
    drain(&mut ep, 0);
    ep.handle_timeout(0, FlowTimer::Start);
    // The source sends its first segment ...
    let first = ep.poll_output(0);
    assert!(matches!(first, Some(EndpointOutput::Transmit(ref t)) if t.from == SRC));
    let outer = ep.pending();
    // ... and a segment reaches the destination before it sends the next one.
    let seg = L4::Tcp(TcpHeader::data(0, 100));
    ep.handle_packet(0, DST, &seg, Some(&payload(7, 0, 100)));
    let mut nested = Vec::new();
    while ep.pending() > outer {
        nested.extend(ep.poll_output(0));
    }
    let acks = sent(&nested);
    assert_eq!(acks.len(), 1);
    assert_eq!(
        acks[0].from, DST,
        "the ACK goes out before the source's next segment"
    );
    // The source goes on where it was.
    assert!(matches!(ep.poll_output(0), Some(EndpointOutput::Transmit(ref t)) if t.from == SRC));
}

/// Runs a flow over a lossless link with `delay` each way until nothing is left to do.
fn run_over_a_link(c: &EndpointCfg, delay: Time) -> Endpoint {
    enum In {
        Timer(FlowTimer),
        Packet(Transmit),
    }
    let mut ep = Endpoint::new(c);
    let mut agenda: BTreeMap<(Time, u64), In> = BTreeMap::new();
    let mut seq = 0;
    let mut now = 0;
    loop {
        while ep.pending() > 0 {
            match ep.poll_output(now) {
                Some(EndpointOutput::Transmit(t)) => {
                    seq += 1;
                    agenda.insert((now + delay, seq), In::Packet(t));
                }
                Some(EndpointOutput::Schedule { at, timer }) => {
                    seq += 1;
                    agenda.insert((at, seq), In::Timer(timer));
                }
                None => {}
            }
        }
        let Some(((t, _), input)) = agenda.pop_first() else {
            return ep;
        };
        now = t;
        match input {
            In::Timer(timer) => ep.handle_timeout(now, timer),
            In::Packet(p) => ep.handle_packet(now, p.to, &p.l4, p.payload.as_deref()),
        }
    }
}

#[test]
fn over_a_lossless_link_every_byte_written_arrives_intact_and_once() {
    // TCP with delayed ACKs: a rate of 10 writes of 1000 bytes per second for 2 s.
    let source = Source::Cbr {
        interval: 100 * MILLIS,
        bytes: 1000,
    };
    let ep = run_over_a_link(
        &cfg(Some(TcpConfig::default()), source, 2 * SECOND),
        5 * MILLIS,
    );
    assert_eq!(ep.delivered(), 20 * 1000);
    assert_eq!(ep.payload_errors(), 0);
    let tx = ep.sender().unwrap();
    assert_eq!(tx.stats().retransmissions, 0);
    assert_eq!(tx.snd_una(), 20 * 1000, "everything acknowledged");
    assert!(ep.delay().mean_ms() >= 5.0, "at least the link's delay");

    // Bulk TCP that stops: what was sent is delivered.
    let ep = run_over_a_link(&cfg(Some(no_delack()), Source::Bulk, SECOND), MILLIS);
    let tx = ep.sender().unwrap();
    assert!(ep.delivered() > 0);
    assert_eq!(ep.delivered(), tx.snd_max());

    // UDP at a rate: every datagram.
    let source = Source::Cbr {
        interval: 10 * MILLIS,
        bytes: 200,
    };
    let ep = run_over_a_link(&cfg(None, source, SECOND), MILLIS);
    assert_eq!(ep.tx_packets(), 100);
    assert_eq!(ep.delivered(), 100 * 200);
    assert_eq!(ep.payload_errors(), 0);
}
