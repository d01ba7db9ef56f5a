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
//!
//! Bad input (a START_S or an ACK time that is not a finite number of seconds in
//! [0, 1e9], an ACK earlier than START_S or than the ACK before it, an ACK line without
//! exactly two fields, an ACK number or offset that is not an integer in range) stops it
//! before any output with one line on standard error naming the field, the value and
//! what is allowed, and exit status 2. Blank lines in ACKS are skipped.

use ncmesh_core::engine::{secs, to_secs, Time};
use ncmesh_core::scenario::schema::{RttSampling, TcpCfg};
use ncmesh_core::transport::tcp::{TcpConfig, TcpHeader, TcpSender};
use std::io::{BufRead, BufWriter, StdoutLock, Write};

/// The latest time accepted, START_S or an ACK's, in seconds: far beyond any run, and
/// small enough that the nanosecond clock (u64) cannot overflow.
const MAX_TIME_S: f64 = 1e9;
/// The largest `--offset`: TCP sequence numbers are 32-bit.
const MAX_OFFSET: u64 = u32::MAX as u64;

fn fail(msg: &str) -> ! {
    eprintln!("tcp_replay: {msg}");
    std::process::exit(2);
}

/// `v` as seconds if it is a finite number in [lo, MAX_TIME_S].
fn seconds_in(v: &str, lo: f64) -> Option<f64> {
    v.parse::<f64>()
        .ok()
        .filter(|t| t.is_finite() && *t >= lo && *t <= MAX_TIME_S)
}

/// The ACK arrivals in `path` ("time_s ack_number" per line, blank lines skipped), checked:
/// exactly two fields, times finite, in [start, MAX_TIME_S] and non-decreasing, ACK
/// numbers non-negative integers. The first bad line ends the program (`fail`).
fn read_acks(path: &str, start: f64) -> Vec<(f64, u64)> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| fail(&format!("ACKS: {path}: {e}")));
    let mut acks: Vec<(f64, u64)> = vec![];
    let mut prev_line = 0;
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let n = n + 1;
        let line = line.unwrap_or_else(|e| fail(&format!("ACKS: {path} line {n}: {e}")));
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        let [t, a] = f.as_slice() else {
            fail(&format!(
                "ACKS line {n}: {:?} has {} field{} and is not allowed: expected 2, \"time_s ack_number\"",
                line.trim(),
                f.len(),
                if f.len() == 1 { "" } else { "s" }
            ))
        };
        let (raw_t, raw_a) = (*t, *a);
        let t = seconds_in(raw_t, start).unwrap_or_else(|| {
            fail(&format!(
                "ACKS line {n}: time {raw_t:?} is not allowed: expected a finite number of seconds \
                 in [START_S, {MAX_TIME_S:e}] = [{start}, {MAX_TIME_S:e}]"
            ))
        });
        if let Some(&(p, _)) = acks.last() {
            if t < p {
                fail(&format!(
                    "ACKS line {n}: time {raw_t:?} is not allowed: expected no earlier than line \
                     {prev_line}'s {p} (ACK times must not decrease)"
                ))
            }
        }
        let a = raw_a.parse::<u64>().unwrap_or_else(|_| {
            fail(&format!(
                "ACKS line {n}: ack number {raw_a:?} is not allowed: expected an integer in [0, {}]",
                u64::MAX
            ))
        });
        acks.push((t, a));
        prev_line = n;
    }
    acks
}

/// Standard output, buffered: a long silence between ACKs (up to 1e9 s) makes millions of
/// timeout lines. A failed write (a closed pipe) ends the program (`fail`).
struct Out(BufWriter<StdoutLock<'static>>);

impl Out {
    fn line(&mut self, args: std::fmt::Arguments) {
        writeln!(self.0, "{args}").unwrap_or_else(|e| fail(&format!("writing the output: {e}")));
    }
}

/// Sends everything the sender allows now, printing each segment.
fn drain(out: &mut Out, s: &mut TcpSender, now: Time, offset: u64, sent: &mut u64) {
    while let Some(h) = s.next_segment(now, u64::MAX) {
        out.line(format_args!("{:.9} SEND {}", to_secs(now), h.seq + offset));
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
                let v = it.next().unwrap_or_else(|| {
                    fail(&format!(
                        "--offset needs a value: expected an integer in [0, {MAX_OFFSET}]"
                    ))
                });
                offset = v
                    .parse()
                    .ok()
                    .filter(|&o| o <= MAX_OFFSET)
                    .unwrap_or_else(|| {
                        fail(&format!(
                            "--offset {v:?} is not allowed: expected an integer in [0, {MAX_OFFSET}]"
                        ))
                    });
            }
            s if s.starts_with("--") => fail(&format!(
                "{s} is not an option: expected --every-ack, --limited-transmit, --careful or --offset N"
            )),
            _ => pos.push(a.clone()),
        }
    }
    let [acks, start] = pos.as_slice() else {
        fail(&format!(
            "expected two arguments, ACKS (a file) and START_S (seconds), got {}",
            pos.len()
        ))
    };
    let start = seconds_in(start, 0.0).unwrap_or_else(|| {
        fail(&format!(
            "START_S {start:?} is not allowed: expected a finite number of seconds in [0, {MAX_TIME_S:e}]"
        ))
    });
    // All of ACKS is read and checked before the first line of output.
    let acks = read_acks(acks, start);
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
    let mut out = Out(BufWriter::new(std::io::stdout().lock()));
    drain(&mut out, &mut s, secs(start), offset, &mut sent);
    for (t, a) in acks {
        let now = secs(t);
        // The sender's own timer fires first if it is due before this ACK.
        while let Some(d) = s.timer_deadline().filter(|&d| d <= now) {
            out.line(format_args!("{:.9} TIMER", to_secs(d)));
            s.on_timer(d);
            drain(&mut out, &mut s, d, offset, &mut sent);
        }
        let h = TcpHeader {
            ack: a.saturating_sub(offset),
            wnd: 65_535,
            ..Default::default()
        };
        s.on_ack(now, &h);
        out.line(format_args!(
            "{:.9} ACK {} cwnd={} ssthresh={} state={:?}",
            to_secs(now),
            a,
            s.cwnd_bytes(),
            s.ssthresh_bytes(),
            s.recovery_state()
        ));
        drain(&mut out, &mut s, now, offset, &mut sent);
    }
    let st = s.stats();
    out.line(format_args!(
        "SUMMARY fast_retransmits={} timeouts={} segments_sent={}",
        st.fast_retransmits, st.timeouts, sent
    ));
    out.0
        .flush()
        .unwrap_or_else(|e| fail(&format!("writing the output: {e}")));
}
