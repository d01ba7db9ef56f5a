//! Open-loop replay of a TCP sender: ncmesh's NewReno sender (no SACK, the ns-3 anchor's
//! settings) is driven by a recorded stream of ACK arrivals, such as the ACKs another
//! simulator's source received, and prints what it sends in answer. Because the sender is
//! a state machine with no I/O, the same ACKs at the same times must give the same
//! segments if both senders follow the same rules; the first segment that differs shows
//! where the rules part (`benchmarks/tcp_replay_ns3.py` compares with ns-3's own sends).
//!
//!     cargo run --release -p ncmesh-core --example tcp_replay -- ACKS START_S [--every-ack]
//!         [--limited-transmit] [--careful] [--offset N]
//!
//! ACKS: one ACK per line, "time_s ack_number"; START_S: when the sender may first send
//! (the first data segment's time); `--offset N`: subtracted from every ACK number (ns-3
//! numbers data from 1 after its SYN; ncmesh from 0) and added to every printed sequence
//! number. The options set `tcp.rtt_sampling = "every-ack"`, `tcp.limited_transmit` and
//! `tcp.newreno_careful`. Output: "time SEND seq" and "time ACK ack cwnd ssthresh state"
//! lines, then a summary line with the fast retransmits, timeouts and segments sent.

use ncmesh_core::engine::{secs, to_secs, Time};
use ncmesh_core::scenario::schema::{RttSampling, TcpCfg};
use ncmesh_core::transport::tcp::{TcpConfig, TcpHeader, TcpSender};
use std::io::BufRead;

fn fail(msg: &str) -> ! {
    eprintln!("tcp_replay: {msg}");
    std::process::exit(2);
}

/// Sends everything the sender allows now, printing each segment.
fn drain(s: &mut TcpSender, now: Time, offset: u64, sent: &mut u64) {
    while let Some(h) = s.next_segment(now, u64::MAX) {
        println!("{:.9} SEND {}", to_secs(now), h.seq + offset);
        *sent += 1;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut pos = vec![];
    let (mut every_ack, mut limited, mut careful, mut offset) = (false, false, false, 0u64);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--every-ack" => every_ack = true,
            "--limited-transmit" => limited = true,
            "--careful" => careful = true,
            "--offset" => {
                let v = it.next().unwrap_or_else(|| fail("--offset needs a number"));
                offset = v
                    .parse()
                    .unwrap_or_else(|_| fail(&format!("--offset: {v} is not a non-negative integer")));
            }
            s if s.starts_with("--") => fail(&format!(
                "{s} is not an option: expected --every-ack, --limited-transmit, --careful or --offset N"
            )),
            _ => pos.push(a.clone()),
        }
    }
    let [acks, start] = pos.as_slice() else {
        fail("expected two arguments, ACKS (a file) and START_S (seconds)")
    };
    let start: f64 = start
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .unwrap_or_else(|| {
            fail(&format!(
                "START_S: {start} is not a non-negative number of seconds"
            ))
        });
    let file = std::fs::File::open(acks).unwrap_or_else(|e| fail(&format!("ACKS: {acks}: {e}")));
    // The scenario's default TCP, which is the ns-3 anchor's: NewReno without SACK,
    // 1000-byte segments, initial window 10, RTO 1 s minimum and initial, DupThresh 3.
    let cfg = TcpConfig::from_cfg(&TcpCfg {
        rtt_sampling: if every_ack {
            RttSampling::EveryAck
        } else {
            RttSampling::Timed
        },
        limited_transmit: limited,
        newreno_careful: careful,
        ..TcpCfg::default()
    });
    let mut s = TcpSender::new(&cfg);
    let mut sent = 0u64;
    drain(&mut s, secs(start), offset, &mut sent);
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.unwrap_or_else(|e| fail(&format!("ACKS: {acks}: {e}")));
        let mut f = line.split_whitespace();
        let (Some(t), Some(a)) = (f.next(), f.next()) else {
            continue;
        };
        let (Ok(t), Ok(a)) = (t.parse::<f64>(), a.parse::<u64>()) else {
            fail(&format!(
                "ACKS: {acks} line {}: expected \"time_s ack_number\", got {line:?}",
                n + 1
            ))
        };
        let now = secs(t);
        // The sender's own timer fires first if it is due before this ACK.
        while let Some(d) = s.timer_deadline().filter(|&d| d <= now) {
            println!("{:.9} TIMER", to_secs(d));
            s.on_timer(d);
            drain(&mut s, d, offset, &mut sent);
        }
        let h = TcpHeader {
            ack: a.saturating_sub(offset),
            wnd: 65_535,
            ..Default::default()
        };
        s.on_ack(now, &h);
        println!(
            "{:.9} ACK {} cwnd={} ssthresh={} state={:?}",
            to_secs(now),
            a,
            s.cwnd_bytes(),
            s.ssthresh_bytes(),
            s.recovery_state()
        );
        drain(&mut s, now, offset, &mut sent);
    }
    let st = s.stats();
    println!(
        "SUMMARY fast_retransmits={} timeouts={} segments_sent={}",
        st.fast_retransmits, st.timeouts, sent
    );
}
