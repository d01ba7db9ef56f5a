//! Packet captures: one classic pcap file per node, as a radio next to the node would
//! record it (802.11 MAC frames with the LLC, IPv4 and TCP/UDP headers inside).
//!
//! Built from the trace (`Sim::enable_trace`). Node `i`'s file holds every frame `i`
//! started to transmit (time stamped at the frame's start) and every frame `i` decoded
//! intact, addressed to it or overheard (time stamped at the frame's start as seen at
//! `i`: end of reception minus airtime). Collided or lost receptions and failed attempts
//! are not in the files: a radio capture would not see them either.
//!
//! Format (docs/pcap.md has the details): nanosecond pcap (magic 0xa1b23c4d),
//! LINKTYPE_IEEE802_11 (105), no FCS, no radiotap header. Node `n` is MAC address
//! 02:00:n3:n2:n1:n0 (its id as 32 bits, big-endian) and IPv4 address 10.n2.n1.n0;
//! the ad hoc BSSID is [`BSSID`]. A TCP or UDP flow `f` runs from port
//! 50000 + f mod 4096 at its source to port 40000 + f mod 1024 at its destination.
//! Sequence numbers go on the wire modulo 2^32 with an initial sequence number of 0.
//! Frames that carry more than one packet or a scheme header (coded frames) carry the
//! ncmesh coding header (ethertype [`NCMESH_ETHERTYPE`]) before the IP datagrams; the
//! coding family's own block (`WireHeader::write_pcap`) follows its packet descriptors.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::trace::{TraceKind, TraceRecord};
use super::Sim;
use crate::coding::{Body, CodedSymbol, Coeffs, Span};
use crate::engine::Time;
use crate::mac::FrameKind;
use crate::metrics::RunResult;
use crate::net::{NodeId, Packet, BROADCAST, L4};
use crate::scenario::{Scenario, ScenarioError};
use crate::wire::aodv::AODV_PORT;

/// Classic pcap magic number for nanosecond time stamps.
pub const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_IEEE802_11: 802.11 frames without radiotap header.
pub const LINKTYPE_IEEE802_11: u32 = 105;
/// Largest record the files declare (records are never truncated).
pub const SNAPLEN: u32 = 262_144;
/// The BSSID of the simulated ad hoc network ("NCMSH", locally administered).
pub const BSSID: [u8; 6] = [0x02, 0x4e, 0x43, 0x4d, 0x53, 0x48];
/// Ethertype of the ncmesh coding header (IEEE 802 Local Experimental Ethertype 1).
pub const NCMESH_ETHERTYPE: u16 = 0x88b5;
/// First bytes of the ncmesh coding header.
pub const NCMESH_MAGIC: [u8; 2] = *b"NC";
/// Version of the ncmesh coding header layout.
pub const NCMESH_VERSION: u8 = 1;
/// Port of a flow's source: `SRC_PORT_BASE + flow % 4096`.
pub const SRC_PORT_BASE: u16 = 50000;
/// Port of a flow's destination: `DST_PORT_BASE + flow % 1024`.
pub const DST_PORT_BASE: u16 = 40000;
/// Fixed part of the ncmesh coding header, bytes.
pub const NCMESH_FIXED_BYTES: usize = 28;
/// Bytes per packet descriptor in the ncmesh coding header.
pub const NCMESH_PACKET_BYTES: usize = 16;

const LLC_SNAP: [u8; 6] = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00];
const ETHERTYPE_IPV4: u16 = 0x0800;
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
/// IP protocol of coded packets and coding control messages: RFC 3692's numbers for
/// experimentation.
const PROTO_CODED: u8 = 253;
const PROTO_CONTROL: u8 = 254;
/// Fixed part of a coded packet's block: 4 flag bytes, u16 count, u64 span, u16 size.
pub const CODED_FIXED_BYTES: usize = 16;
const TCP_ACK: u8 = 0x10;
const TCP_PSH: u8 = 0x08;

/// MAC address of node `n` (ff:ff:ff:ff:ff:ff for BROADCAST).
pub fn mac_address(n: NodeId) -> [u8; 6] {
    if n == BROADCAST {
        return [0xff; 6];
    }
    let b = n.to_be_bytes();
    [0x02, 0x00, b[0], b[1], b[2], b[3]]
}

/// IPv4 address of node `n`: 10.x.y.z with x.y.z the low 24 bits of its id.
pub fn ip_address(n: NodeId) -> [u8; 4] {
    let b = n.to_be_bytes();
    [10, b[1], b[2], b[3]]
}

/// Ports of flow `flow`'s source and destination.
pub fn flow_ports(flow: u32) -> (u16, u16) {
    (
        SRC_PORT_BASE + (flow % 4096) as u16,
        DST_PORT_BASE + (flow % 1024) as u16,
    )
}

/// The file of node `node` in `dir`.
pub fn pcap_path(dir: &Path, node: usize) -> PathBuf {
    dir.join(format!("node-{node}.pcap"))
}

/// The capture time stamp of a record at its node, if the node's capture holds it:
/// the frame's start for a transmission, the start as seen by the node for a frame it
/// decoded. None for records a capture does not see.
pub fn capture_time(r: &TraceRecord) -> Option<Time> {
    match r.what {
        TraceKind::TxStart => Some(r.t),
        TraceKind::RxOk => Some(r.t.saturating_sub(r.airtime)),
        TraceKind::RxCollided | TraceKind::RxLost | TraceKind::TxFailed => None,
    }
}

/// The records of `node`'s capture with their time stamps, in time order (trace order
/// for equal times).
pub fn node_records(trace: &[TraceRecord], node: u32) -> Vec<(Time, &TraceRecord)> {
    let mut v: Vec<(Time, &TraceRecord)> = trace
        .iter()
        .filter(|r| r.node == node)
        .filter_map(|r| capture_time(r).map(|t| (t, r)))
        .collect();
    v.sort_by_key(|&(t, _)| t);
    v
}

/// Writes `dir/node-<i>.pcap` for every node `i < nodes` (creating `dir` if needed).
pub fn write_pcaps(trace: &[TraceRecord], nodes: usize, dir: &Path) -> io::Result<()> {
    if let Some(r) = trace.iter().find(|r| r.node as usize >= nodes) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("trace record of node {} but only {nodes} nodes", r.node),
        ));
    }
    fs::create_dir_all(dir)?;
    // Bucket once, then write one file at a time.
    let mut per_node: Vec<Vec<(Time, usize)>> = vec![Vec::new(); nodes];
    for (i, r) in trace.iter().enumerate() {
        if let Some(t) = capture_time(r) {
            per_node[r.node as usize].push((t, i));
        }
    }
    let mut buf = Vec::with_capacity(4096);
    for (n, recs) in per_node.iter_mut().enumerate() {
        recs.sort_by_key(|&(t, _)| t);
        let mut w = BufWriter::with_capacity(1 << 16, File::create(pcap_path(dir, n))?);
        write_global_header(&mut w)?;
        for &(t, i) in recs.iter() {
            buf.clear();
            frame_bytes_into(&trace[i], &mut buf);
            write_record(&mut w, t, &buf)?;
        }
        w.flush()?;
    }
    Ok(())
}

/// The 24-byte pcap global header.
pub fn write_global_header(w: &mut impl Write) -> io::Result<()> {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone, sigfigs: 0
    h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_IEEE802_11.to_le_bytes());
    w.write_all(&h)
}

/// One pcap record (16-byte header, then the frame) stamped `t` ns after the epoch.
pub fn write_record(w: &mut impl Write, t: Time, frame: &[u8]) -> io::Result<()> {
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&((t / 1_000_000_000) as u32).to_le_bytes());
    h[4..8].copy_from_slice(&((t % 1_000_000_000) as u32).to_le_bytes());
    h[8..12].copy_from_slice(&(frame.len() as u32).to_le_bytes());
    h[12..16].copy_from_slice(&(frame.len() as u32).to_le_bytes());
    w.write_all(&h)?;
    w.write_all(frame)
}

/// The 802.11 frame (no FCS) of a trace record.
pub fn frame_bytes(r: &TraceRecord) -> Vec<u8> {
    let mut v = Vec::with_capacity(r.mpdu_bytes as usize + 64);
    frame_bytes_into(r, &mut v);
    v
}

/// Duration field: the NAV in microseconds, rounded up, at most 32767.
fn duration_us(nav: Time) -> u16 {
    nav.div_ceil(1000).min(32767) as u16
}

fn frame_bytes_into(r: &TraceRecord, out: &mut Vec<u8>) {
    let fc0 = match r.kind {
        FrameKind::Data => 0x08,
        FrameKind::Ack => 0xd4,
        FrameKind::Rts => 0xb4,
        FrameKind::Cts => 0xc4,
    };
    let fc1 = if r.retry { 0x08 } else { 0x00 };
    out.extend_from_slice(&[fc0, fc1]);
    out.extend_from_slice(&duration_us(r.nav).to_le_bytes());
    out.extend_from_slice(&mac_address(r.rx));
    match r.kind {
        FrameKind::Ack | FrameKind::Cts => {}
        FrameKind::Rts => out.extend_from_slice(&mac_address(r.tx)),
        FrameKind::Data => {
            out.extend_from_slice(&mac_address(r.tx));
            out.extend_from_slice(&BSSID);
            out.extend_from_slice(&((r.seq & 0x0fff) << 4).to_le_bytes());
            if let Some(body) = r.frame.as_ref().and_then(|f| f.data.as_ref()) {
                msdu_into(body, out);
            }
        }
    }
}

/// Whether a data body goes on the wire as a coded frame (ncmesh header) rather than
/// as one plain IP datagram.
pub fn is_coded(body: &Body) -> bool {
    body.packets.len() != 1 || body.header_bytes != 0
}

fn llc(out: &mut Vec<u8>, ethertype: u16) {
    out.extend_from_slice(&LLC_SNAP);
    out.extend_from_slice(&ethertype.to_be_bytes());
}

fn msdu_into(body: &Body, out: &mut Vec<u8>) {
    if !is_coded(body) {
        llc(out, ETHERTYPE_IPV4);
        datagram_into(&body.packets[0], out);
        return;
    }
    llc(out, NCMESH_ETHERTYPE);
    let ni = body.intended.len().min(u16::MAX as usize);
    let np = body.packets.len().min(u16::MAX as usize);
    let family = body.header.as_deref();
    let hdr_len =
        NCMESH_FIXED_BYTES + 4 * ni + NCMESH_PACKET_BYTES * np + family.map_or(0, |h| h.pcap_len());
    out.extend_from_slice(&NCMESH_MAGIC);
    out.push(NCMESH_VERSION);
    out.push(u8::from(body.coded_payload.is_some()) | (u8::from(family.is_some()) << 1));
    out.extend_from_slice(&(hdr_len.min(u16::MAX as usize) as u16).to_be_bytes());
    out.extend_from_slice(&(ni as u16).to_be_bytes());
    out.extend_from_slice(&(np as u16).to_be_bytes());
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&family.map_or(0, |h| h.pcap_tag()).to_be_bytes());
    out.extend_from_slice(&body.msdu_bytes.to_be_bytes());
    out.extend_from_slice(&body.header_bytes.to_be_bytes());
    for &n in &body.intended[..ni] {
        out.extend_from_slice(&n.to_be_bytes());
    }
    for p in &body.packets[..np] {
        out.extend_from_slice(&p.uid.to_be_bytes());
        out.extend_from_slice(&p.flow.to_be_bytes());
        out.extend_from_slice(&(datagram_len(p) as u16).to_be_bytes());
        out.extend_from_slice(&0u16.to_be_bytes());
    }
    if let Some(h) = family {
        h.write_pcap(out);
    }
    for p in &body.packets[..np] {
        datagram_into(p, out);
    }
}

/// Transport header bytes on the wire: TCP's 20 plus the SACK option, UDP's 8, or the
/// coding block of a coded packet or control message (docs/pcap.md).
fn l4_header_len(p: &Packet) -> usize {
    match &p.l4 {
        L4::Tcp(h) => h.wire_bytes() as usize,
        L4::Udp(_) => 8,
        L4::Coded(c) => {
            CODED_FIXED_BYTES
                + c.coeffs.bytes() as usize
                + c.header.as_deref().map_or(0, |h| h.pcap_len())
        }
        L4::Control(m) => m.fields.pcap_len(),
        L4::Aodv(m) => 8 + m.bytes() as usize,
    }
}

/// Writes the coding block of a coded packet: field size (8 or 16 bits), span kind
/// (0 generation, 1 window), a pad byte, a flag (1: family block follows), the number
/// of coefficients (u16), the span's generation id or first packet (u64) and its size
/// (u16), then the coefficients and the family's block.
fn coded_block_into(c: &CodedSymbol, out: &mut Vec<u8>) {
    let (bits, n) = match &c.coeffs {
        Coeffs::Gf256(v) => (8u8, v.len()),
        Coeffs::Gf65536(v) => (16u8, v.len()),
    };
    let (kind, first, len) = match c.span {
        Span::Generation { id, size } => (0u8, u64::from(id), size),
        Span::Window { first, len } => (1u8, first, len),
    };
    out.extend_from_slice(&[bits, kind, 0, u8::from(c.header.is_some())]);
    out.extend_from_slice(&(n.min(u16::MAX as usize) as u16).to_be_bytes());
    out.extend_from_slice(&first.to_be_bytes());
    out.extend_from_slice(&len.to_be_bytes());
    match &c.coeffs {
        Coeffs::Gf256(v) => out.extend_from_slice(v),
        Coeffs::Gf65536(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_be_bytes())),
    }
    if let Some(h) = &c.header {
        h.write_pcap(out);
    }
}

/// Bytes of the datagram as written: `ip_bytes`, or the bare headers if `ip_bytes`
/// is smaller than them; at most 65535.
fn datagram_len(p: &Packet) -> usize {
    (p.ip_bytes as usize).clamp(20 + l4_header_len(p), u16::MAX as usize)
}

/// The packet as an IPv4 datagram: headers, then the payload (its real bytes when the
/// simulation carries them, zeros otherwise).
fn datagram_into(p: &Packet, out: &mut Vec<u8>) {
    let total = datagram_len(p);
    let start = out.len();
    let (proto, from_dst) = match &p.l4 {
        L4::Tcp(h) => (PROTO_TCP, h.len == 0),
        L4::Udp(_) => (PROTO_UDP, false),
        L4::Coded(_) => (PROTO_CODED, false),
        L4::Control(_) => (PROTO_CONTROL, false),
        L4::Aodv(_) => (PROTO_UDP, false),
    };
    // IPv4 header (RFC 791).
    let ttl = p.ttl.min(255) as u8;
    out.extend_from_slice(&[0x45, 0x00]);
    out.extend_from_slice(&(total as u16).to_be_bytes());
    out.extend_from_slice(&(p.uid as u16).to_be_bytes());
    out.extend_from_slice(&[0x00, 0x00, ttl, proto, 0x00, 0x00]);
    let (src, dst) = (ip_address(p.src), ip_address(p.dst));
    out.extend_from_slice(&src);
    out.extend_from_slice(&dst);
    let c = checksum(&out[start..start + 20], 0);
    out[start + 10..start + 12].copy_from_slice(&c.to_be_bytes());

    // Transport header; pure ACKs travel from the flow's destination to its source.
    let l4_start = out.len();
    let (sport, dport) = match p.l4 {
        L4::Aodv(_) => (AODV_PORT, AODV_PORT),
        _ => flow_ports(p.flow),
    };
    let (sport, dport) = if from_dst {
        (dport, sport)
    } else {
        (sport, dport)
    };
    let hl = l4_header_len(p);
    let payload_len = total - 20 - hl;
    match &p.l4 {
        L4::Tcp(h) => {
            out.extend_from_slice(&sport.to_be_bytes());
            out.extend_from_slice(&dport.to_be_bytes());
            out.extend_from_slice(&(h.seq as u32).to_be_bytes());
            out.extend_from_slice(&(h.ack as u32).to_be_bytes());
            let flags = if h.len > 0 {
                TCP_ACK | TCP_PSH
            } else {
                TCP_ACK
            };
            out.extend_from_slice(&[((hl / 4) as u8) << 4, flags]);
            // The sender's own receive window is not modelled: data segments say 65535.
            let wnd = if h.len > 0 && h.wnd == 0 {
                65535
            } else {
                h.wnd.min(65535)
            };
            out.extend_from_slice(&(wnd as u16).to_be_bytes());
            out.extend_from_slice(&[0, 0, 0, 0]); // checksum (below), urgent pointer
            let blocks = h.sack_blocks();
            if !blocks.is_empty() {
                out.extend_from_slice(&[1, 1, 5, (2 + 8 * blocks.len()) as u8]);
                for b in blocks {
                    out.extend_from_slice(&(b.start as u32).to_be_bytes());
                    out.extend_from_slice(&(b.end as u32).to_be_bytes());
                }
            }
        }
        L4::Udp(_) => {
            out.extend_from_slice(&sport.to_be_bytes());
            out.extend_from_slice(&dport.to_be_bytes());
            out.extend_from_slice(&((total - 20) as u16).to_be_bytes());
            out.extend_from_slice(&[0, 0]);
        }
        L4::Coded(c) => coded_block_into(c, out),
        L4::Control(m) => m.fields.write_pcap(out),
        L4::Aodv(m) => {
            // UDP to port 654 (RFC 3561 §4), then the message (§5).
            out.extend_from_slice(&sport.to_be_bytes());
            out.extend_from_slice(&dport.to_be_bytes());
            out.extend_from_slice(&((total - 20) as u16).to_be_bytes());
            out.extend_from_slice(&[0, 0]);
            m.encode(out);
        }
    }
    // Payload: the real bytes if carried (a coded packet's combined bytes), zero-filled
    // to the datagram length.
    let pay_start = out.len();
    let bytes = match &p.l4 {
        L4::Coded(c) => c.payload.as_deref(),
        _ => p.payload.as_deref(),
    };
    if let Some(b) = bytes {
        out.extend_from_slice(&b[..b.len().min(payload_len)]);
    }
    out.resize(pay_start + payload_len, 0);
    if matches!(p.l4, L4::Coded(_) | L4::Control(_)) {
        return; // no transport checksum
    }

    // Transport checksum over the pseudo-header (RFC 9293 3.1, RFC 768).
    let l4_len = (total - 20) as u32;
    let mut pseudo = 0u32;
    for w in [&src, &dst] {
        pseudo += u32::from(u16::from_be_bytes([w[0], w[1]]));
        pseudo += u32::from(u16::from_be_bytes([w[2], w[3]]));
    }
    pseudo += u32::from(proto) + l4_len;
    let mut c = checksum(&out[l4_start..], pseudo);
    let at = match proto {
        PROTO_TCP => l4_start + 16,
        _ => {
            if c == 0 {
                c = 0xffff; // 0 means "no checksum" in UDP
            }
            l4_start + 6
        }
    };
    out[at..at + 2].copy_from_slice(&c.to_be_bytes());
}

/// The Internet checksum (RFC 1071) of `data`, starting from the partial sum `sum`.
pub fn checksum(data: &[u8], mut sum: u32) -> u16 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
        if sum > 0xffff_0000 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
    }
    if let [last] = chunks.remainder() {
        sum += u32::from(*last) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Why `run_with_pcaps` failed.
#[derive(Debug)]
pub enum PcapRunError {
    /// The scenario did not build.
    Scenario(ScenarioError),
    /// A capture file could not be written.
    Io(io::Error),
}

impl std::fmt::Display for PcapRunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PcapRunError::Scenario(e) => e.fmt(f),
            PcapRunError::Io(e) => write!(f, "writing packet captures: {e}"),
        }
    }
}

impl std::error::Error for PcapRunError {}

/// Runs a scenario like `sim::run`, with the trace on, and writes one capture per node
/// to `dir` (see `write_pcaps`).
pub fn run_with_pcaps(s: &Scenario, dir: &Path) -> Result<RunResult, PcapRunError> {
    let t0 = std::time::Instant::now();
    let mut sim = Sim::new(s).map_err(PcapRunError::Scenario)?;
    sim.enable_trace();
    sim.run_to_end();
    let wall = t0.elapsed().as_secs_f64();
    write_pcaps(sim.trace(), sim.nodes.len(), dir).map_err(PcapRunError::Io)?;
    Ok(sim.result(wall))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(mac_address(0x0102), [2, 0, 0, 0, 1, 2]);
        assert_eq!(mac_address(BROADCAST), [0xff; 6]);
        assert_eq!(ip_address(0x0102), [10, 0, 1, 2]);
        assert_eq!(flow_ports(3), (50003, 40003));
    }

    #[test]
    fn checksum_rfc1071_example() {
        // RFC 1071 section 3: 0001 f203 f4f5 f6f7 sums to ddf2, complement 220d.
        assert_eq!(
            checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7], 0),
            0x220d
        );
        // Odd length pads with a zero byte.
        assert_eq!(checksum(&[0x01], 0), !0x0100);
    }

    #[test]
    fn duration_rounds_up_and_clamps() {
        assert_eq!(duration_us(0), 0);
        assert_eq!(duration_us(1), 1);
        assert_eq!(duration_us(314_000), 314);
        assert_eq!(duration_us(u64::MAX / 2), 32767);
    }
}
