//! Packet captures (sim::pcap): written per node, read back and checked field by field.

use std::path::{Path, PathBuf};

use ncmesh_core::coding::xor::header::XorHeader;
use ncmesh_core::coding::WireHeader;
use ncmesh_core::mac::FrameKind;
use ncmesh_core::net::L4;
use ncmesh_core::scenario::schema::*;
use ncmesh_core::scenario::{build, BuildOptions};
use ncmesh_core::sim::pcap::{self, checksum, ip_address, mac_address, write_pcaps, BSSID};
use ncmesh_core::sim::trace::{TraceKind, TraceRecord};
use ncmesh_core::sim::Sim;
use std::sync::Arc;

fn chain(hops: u64, secs: f64) -> Scenario {
    let mut s = build("chain", &BuildOptions::new().with("hops", hops)).unwrap();
    s.simulation.duration_s = secs;
    s.simulation.measure_start_s = 0.0;
    s
}

fn traced(s: &Scenario) -> (Vec<TraceRecord>, usize) {
    let mut sim = Sim::new(s).unwrap();
    sim.enable_trace();
    sim.run_to_end();
    (sim.trace().to_vec(), s.nodes.len())
}

fn tmp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ncmesh-pcap-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

struct Rec {
    t_ns: u64,
    data: Vec<u8>,
}

/// Parses a classic nanosecond pcap file; checks the global header.
fn read_pcap(path: &Path) -> Vec<Rec> {
    let b = std::fs::read(path).unwrap();
    assert!(b.len() >= 24, "{path:?} too short");
    let u32le = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let u16le = |o: usize| u16::from_le_bytes(b[o..o + 2].try_into().unwrap());
    assert_eq!(u32le(0), 0xa1b2_3c4d, "nanosecond magic");
    assert_eq!((u16le(4), u16le(6)), (2, 4), "version 2.4");
    assert_eq!(u32le(20), 105, "LINKTYPE_IEEE802_11");
    let snaplen = u32le(16) as usize;
    let mut out = Vec::new();
    let mut o = 24;
    while o < b.len() {
        assert!(o + 16 <= b.len(), "truncated record header");
        let (sec, ns, incl, orig) = (u32le(o), u32le(o + 4), u32le(o + 8), u32le(o + 12));
        assert!(ns < 1_000_000_000);
        assert_eq!(incl, orig, "records are never truncated");
        assert!(incl as usize <= snaplen);
        let data = b[o + 16..o + 16 + incl as usize].to_vec();
        out.push(Rec {
            t_ns: sec as u64 * 1_000_000_000 + ns as u64,
            data,
        });
        o += 16 + incl as usize;
    }
    out
}

fn be16(b: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([b[o], b[o + 1]])
}

fn be32(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes(b[o..o + 4].try_into().unwrap())
}

/// Offset of the IPv4 header in a plain data frame (24-byte MAC header + 8-byte LLC).
const IP: usize = 32;

fn is_plain_ip_data(f: &[u8]) -> bool {
    f[0] == 0x08 && f.len() > IP + 20 && f[24..32] == [0xaa, 0xaa, 3, 0, 0, 0, 8, 0]
}

#[test]
fn two_hop_chain_captures_read_back() {
    let s = chain(2, 3.0);
    let (trace, nodes) = traced(&s);
    assert_eq!(nodes, 3);
    let dir = tmp_dir("chain");
    write_pcaps(&trace, nodes, &dir).unwrap();

    for n in 0..nodes {
        let recs = read_pcap(&dir.join(format!("node-{n}.pcap")));
        let expected: Vec<&TraceRecord> = trace
            .iter()
            .filter(|r| {
                r.node == n as u32 && matches!(r.what, TraceKind::TxStart | TraceKind::RxOk)
            })
            .collect();
        assert_eq!(
            recs.len(),
            expected.len(),
            "node {n}: one record per frame sent or decoded"
        );
        assert!(recs.len() > 100, "node {n}: {} records", recs.len());
        assert!(
            recs.windows(2).all(|w| w[0].t_ns <= w[1].t_ns),
            "time order"
        );
        // Every frame is as long as the MPDU it models, minus the FCS (all frames are
        // plain in a chain without coding).
        let mut want: Vec<u32> = expected.iter().map(|r| r.mpdu_bytes - 4).collect();
        let mut got: Vec<u32> = recs.iter().map(|r| r.data.len() as u32).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "node {n}: frame lengths");
        // Timestamps: transmissions at the start, receptions at end - airtime.
        let mut want_t: Vec<u64> = expected
            .iter()
            .map(|r| {
                if r.what == TraceKind::TxStart {
                    r.t
                } else {
                    r.t - r.airtime
                }
            })
            .collect();
        want_t.sort();
        assert_eq!(recs.iter().map(|r| r.t_ns).collect::<Vec<_>>(), want_t);
    }

    // Node 0: the TCP sender. Its data frames carry IPv4 + TCP from 10.0.0.0 to 10.0.0.2.
    let recs = read_pcap(&dir.join("node-0.pcap"));
    let data: Vec<&[u8]> = recs
        .iter()
        .map(|r| r.data.as_slice())
        .filter(|f| is_plain_ip_data(f) && f[IP + 9] == 6 && f[10..16] == mac_address(0))
        .collect();
    assert!(data.len() > 50, "{} data frames sent by node 0", data.len());
    let first = data[0];
    assert_eq!(first[4..10], mac_address(1), "addr1: next hop");
    assert_eq!(first[16..22], BSSID, "addr3: BSSID");
    let ip = &first[IP..];
    assert_eq!(ip[0], 0x45);
    assert_eq!(checksum(&ip[..20], 0), 0, "IPv4 header checksum valid");
    assert_eq!(
        be16(ip, 2) as usize,
        ip.len(),
        "IPv4 total length = datagram"
    );
    assert_eq!(ip[12..16], ip_address(0));
    assert_eq!(ip[16..20], ip_address(2));
    assert_eq!(ip.len(), 20 + 20 + 1000, "one MSS of payload");
    // TCP checksum over the pseudo-header.
    let mut pseudo = 0u32;
    for o in [12, 14, 16, 18] {
        pseudo += be16(ip, o) as u32;
    }
    pseudo += 6 + (ip.len() - 20) as u32;
    assert_eq!(checksum(&ip[20..], pseudo), 0, "TCP checksum valid");

    // Sequence numbers of first transmissions (no 802.11 retry bit) grow by one MSS
    // until the first TCP retransmission, if any.
    let seqs: Vec<u32> = data
        .iter()
        .filter(|f| f[1] & 0x08 == 0)
        .map(|f| be32(f, IP + 24))
        .collect();
    assert_eq!(seqs[0], 0, "initial sequence number 0");
    let mut run = 1;
    while run < seqs.len() && seqs[run] == seqs[run - 1] + 1000 {
        run += 1;
    }
    assert!(
        run >= 50,
        "seq increases by 1000 for {run} frames: {:?}",
        &seqs[..run.min(60) + 1]
    );
    let retx = trace.iter().any(|r| {
        r.node == 0
            && r.what == TraceKind::TxStart
            && r.frame.as_ref().is_some_and(|f| {
                f.data.as_ref().is_some_and(|b| match &b.packets[0].l4 {
                    L4::Tcp(h) => h.len > 0 && (h.seq as u32) < seqs[run - 1] && !f.retry,
                    _ => false,
                })
            })
    });
    assert!(
        run == seqs.len() || retx,
        "the sequence breaks only at a TCP retransmission"
    );

    // ACK, RTS and CTS frames have their 802.11 sizes (no FCS).
    for r in &recs {
        match r.data[0] {
            0xd4 | 0xc4 => assert_eq!(r.data.len(), 10),
            0xb4 => assert_eq!(r.data.len(), 16),
            0x08 => {}
            x => panic!("unexpected frame control {x:#x}"),
        }
    }

    // Node 1 (the relay) decodes TCP ACKs from node 2 and forwards them: ports reversed.
    let relay = read_pcap(&dir.join("node-1.pcap"));
    let ack = relay
        .iter()
        .map(|r| r.data.as_slice())
        .find(|f| is_plain_ip_data(f) && f[10..16] == mac_address(2))
        .expect("a TCP ACK from node 2");
    let ip = &ack[IP..];
    assert_eq!(
        (ip[12..16].to_vec(), ip[16..20].to_vec()),
        (ip_address(2).to_vec(), ip_address(0).to_vec())
    );
    assert_eq!(
        (be16(ip, 20), be16(ip, 22)),
        (40000, 50000),
        "ACK ports reversed"
    );
    assert_eq!(ip[33] & 0x10, 0x10, "ACK flag");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn captures_are_deterministic_and_frames_match_the_trace() {
    let s = chain(2, 1.5);
    let (trace, nodes) = traced(&s);
    let (a, b) = (tmp_dir("det-a"), tmp_dir("det-b"));
    write_pcaps(&trace, nodes, &a).unwrap();
    write_pcaps(&trace, nodes, &b).unwrap();
    for n in 0..nodes {
        let name = format!("node-{n}.pcap");
        assert_eq!(
            std::fs::read(a.join(&name)).unwrap(),
            std::fs::read(b.join(&name)).unwrap()
        );
    }
    // The frame of every record in node 1's file comes from pcap::frame_bytes.
    let recs = read_pcap(&a.join("node-1.pcap"));
    let want: Vec<Vec<u8>> = pcap::node_records(&trace, 1)
        .into_iter()
        .map(|(_, r)| pcap::frame_bytes(r))
        .collect();
    assert_eq!(
        recs.iter().map(|r| r.data.clone()).collect::<Vec<_>>(),
        want
    );
    // Retry bit and sequence control follow the trace.
    for (rec, (_, r)) in recs.iter().zip(pcap::node_records(&trace, 1)) {
        assert_eq!(rec.data[1] & 0x08 != 0, r.retry);
        if r.kind == FrameKind::Data {
            assert_eq!(
                u16::from_le_bytes([rec.data[22], rec.data[23]]) >> 4,
                r.seq & 0xfff
            );
        }
    }
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn coded_frames_carry_the_ncmesh_header() {
    // Build a coded frame by hand from a traced native one: two packets and a scheme
    // header, as a coding scheme would send them.
    let (trace, _) = traced(&chain(2, 1.5));
    let mut r = trace
        .iter()
        .find(|r| r.what == TraceKind::TxStart && r.kind == FrameKind::Data && r.node == 1)
        .cloned()
        .expect("a data frame from the relay");
    let body = r.frame.as_mut().unwrap().data.as_mut().unwrap();
    let ack = trace
        .iter()
        .filter_map(|r| r.frame.as_ref()?.data.as_ref())
        .map(|b| b.packets[0].clone())
        .find(|p| p.tcp().is_some_and(|h| h.len == 0))
        .expect("a TCP ACK");
    body.packets.push(ack.clone());
    body.intended.push(0);
    body.header_bytes = 12;
    body.header = Some(Arc::new(Tagged(0x0102_0304_0506_0708)));
    let (p0, n_int) = (body.packets[0].clone(), body.intended.len());
    let f = pcap::frame_bytes(&r);
    assert_eq!(
        f[24..32],
        [0xaa, 0xaa, 3, 0, 0, 0, 0x88, 0xb5],
        "LLC/SNAP, ethertype 0x88b5"
    );
    let h = &f[32..];
    assert_eq!(&h[0..2], b"NC");
    assert_eq!(h[2], 1, "version");
    assert_eq!(h[3], 0b10, "flags: a family block, no coded payload");
    let hdr_len = be16(h, 4) as usize;
    assert_eq!(be16(h, 6) as usize, n_int);
    assert_eq!(be16(h, 8), 2);
    assert_eq!(
        u64::from_be_bytes(h[12..20].try_into().unwrap()),
        0x0102_0304_0506_0708
    );
    assert_eq!(be32(h, 24), 12, "scheme header bytes");
    assert_eq!(
        hdr_len,
        28 + 4 * n_int + 16 * 2 + 4,
        "with the family's 4-byte block"
    );
    let d = 28 + 4 * n_int;
    assert_eq!(u64::from_be_bytes(h[d..d + 8].try_into().unwrap()), p0.uid);
    assert_eq!(&h[hdr_len - 4..hdr_len], b"TAGD", "the family's block");
    let len0 = be16(h, d + 12) as usize;
    let len1 = be16(h, d + 16 + 12) as usize;
    assert_eq!((len0, len1), (p0.ip_bytes as usize, ack.ip_bytes as usize));
    assert_eq!(
        h.len(),
        hdr_len + len0 + len1,
        "the datagrams follow, back to back"
    );
    let (ip0, ip1) = (&h[hdr_len..hdr_len + len0], &h[hdr_len + len0..]);
    assert_eq!(checksum(&ip0[..20], 0), 0);
    assert_eq!(checksum(&ip1[..20], 0), 0);
    assert_eq!(be16(ip1, 2) as usize, len1);

    // With an XOR-coding header (COPE family): flags bit 1 and the XOR block after
    // the descriptors.
    let mut r2 = r.clone();
    let body = r2.frame.as_mut().unwrap().data.as_mut().unwrap();
    let hdr_len = hdr_len - 4;
    let mut x = XorHeader::default();
    x.next_hops.extend([2, 0]);
    x.reports = vec![(0, 77)];
    x.acks = vec![(2, 99), (2, 100)];
    x.reports_complete_at = Some(5_000);
    body.header = Some(Arc::new(x));
    let f2 = pcap::frame_bytes(&r2);
    let h2 = &f2[32..];
    assert_eq!(h2[3], 0b10, "flags: XOR block, no coded payload");
    let hdr2 = be16(h2, 4) as usize;
    assert_eq!(hdr2, hdr_len + 20 + 4 * 2 + 12 + 12 * 2);
    let xb = &h2[hdr_len..];
    assert_eq!(
        [
            be16(xb, 0),
            be16(xb, 2),
            be16(xb, 4),
            be16(xb, 6),
            be16(xb, 8)
        ],
        [2, 0, 0, 1, 2]
    );
    assert_eq!(xb[10], 1, "reports complete");
    assert_eq!(u64::from_be_bytes(xb[12..20].try_into().unwrap()), 5_000);
    assert_eq!((be32(xb, 20), be32(xb, 24)), (2, 0), "next hops");
    assert_eq!(be32(xb, 28), 0);
    assert_eq!(
        u64::from_be_bytes(xb[32..40].try_into().unwrap()),
        77,
        "report uid"
    );
    assert_eq!(
        u64::from_be_bytes(xb[56..64].try_into().unwrap()),
        100,
        "second ack uid"
    );
    assert_eq!(
        f2.len(),
        f.len() + (hdr2 - hdr_len - 4),
        "datagrams follow the block"
    );

    // As a broadcast, in a capture file: tshark (when installed) reads it cleanly.
    r.rx = ncmesh_core::net::BROADCAST;
    r.frame.as_mut().unwrap().rx = r.rx;
    let f = pcap::frame_bytes(&r);
    assert_eq!(f[4..10], [0xff; 6], "addr1: broadcast");
    let dir = tmp_dir("coded");
    write_pcaps(&[r], 2, &dir).unwrap();
    let recs = read_pcap(&dir.join("node-1.pcap"));
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].data, f);
    if let Some(out) = tshark(&[
        "-r",
        dir.join("node-1.pcap").to_str().unwrap(),
        "-T",
        "fields",
        "-e",
        "llc.type",
        "-e",
        "wlan.da",
        "-e",
        "_ws.malformed",
    ]) {
        assert_eq!(out, "0x88b5\tff:ff:ff:ff:ff:ff\t\n", "tshark: {out:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A family header that only sets the capture tag and writes a 4-byte block.
#[derive(Debug)]
struct Tagged(u64);

impl WireHeader for Tagged {
    fn bytes(&self) -> u32 {
        12
    }
    fn pcap_tag(&self) -> u64 {
        self.0
    }
    fn pcap_len(&self) -> usize {
        4
    }
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"TAGD");
    }
}

/// tshark's standard output, or None when tshark is not installed.
fn tshark(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("tshark")
        .args(args)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn write_pcaps_rejects_unknown_nodes_and_writes_empty_files() {
    let (trace, nodes) = traced(&chain(1, 1.2));
    let dir = tmp_dir("nodes");
    assert!(
        write_pcaps(&trace, 1, &dir).is_err(),
        "records of node 1 with 1 node"
    );
    write_pcaps(&[], nodes, &dir).unwrap();
    for n in 0..nodes {
        assert!(read_pcap(&dir.join(format!("node-{n}.pcap"))).is_empty());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cope_run_captures_coded_frames_that_tshark_reads() {
    let mut s = build("x", &BuildOptions::new().with("spacing", 150.0)).unwrap();
    s.simulation.duration_s = 4.0;
    s.simulation.measure_start_s = 1.0;
    s.scheme.name = "cope".into();
    let (trace, n) = traced(&s);
    let dir = tmp_dir("cope");
    write_pcaps(&trace, n, &dir).unwrap();
    // The relay's capture: some frames it sent are XORs of two or more natives.
    let recs = read_pcap(&dir.join("node-1.pcap"));
    let coded = recs
        .iter()
        .filter(|r| {
            r.data.len() > 40 && r.data[30..32] == [0x88, 0xb5] && be16(&r.data[32..], 8) >= 2
        })
        .count();
    assert!(coded > 0, "no coded frame in the relay's capture");
    if let Some(out) = tshark(&[
        "-r",
        dir.join("node-1.pcap").to_str().unwrap(),
        "-Y",
        "_ws.malformed || _ws.expert.severity == error",
    ]) {
        assert_eq!(out, "", "tshark finds malformed frames: {out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A DATA/ACK-coded frame of a PiggyCode run: tag 1, the DATA then the ACK as
/// descriptors, and the family's block naming both with their next hops.
#[test]
fn piggycode_frames_carry_their_block() {
    let mut s = chain(2, 5.0);
    s.scheme.name = "waittime".into();
    s.tcp.delayed_ack = false;
    let (trace, _) = traced(&s);
    let r = trace
        .iter()
        .find(|r| {
            r.what == TraceKind::TxStart
                && r.node == 1
                && r.frame
                    .as_ref()
                    .and_then(|f| f.data.as_ref())
                    .is_some_and(|b| b.packets.len() == 2)
        })
        .expect("a coded frame from the relay");
    let body = r.frame.as_ref().unwrap().data.as_ref().unwrap();
    let (data, ack) = (&body.packets[0], &body.packets[1]);
    assert!(data.tcp().unwrap().len > 0 && ack.tcp().unwrap().len == 0);
    assert_eq!(r.rx, 2, "unicast to the DATA's next hop");
    let f = pcap::frame_bytes(r);
    let h = &f[32..];
    assert_eq!(&h[0..2], b"NC");
    assert_eq!(
        u64::from_be_bytes(h[12..20].try_into().unwrap()),
        1,
        "tag: coded"
    );
    assert_eq!(be16(h, 8), 2);
    let n_int = be16(h, 6) as usize;
    let hdr_len = be16(h, 4) as usize;
    assert_eq!(hdr_len, 28 + 4 * n_int + 16 * 2 + 24);
    let b = &h[hdr_len - 24..hdr_len];
    assert_eq!(u64::from_be_bytes(b[0..8].try_into().unwrap()), data.uid);
    assert_eq!(u64::from_be_bytes(b[8..16].try_into().unwrap()), ack.uid);
    assert_eq!(
        (be32(b, 16), be32(b, 20)),
        (2, 0),
        "next hops of DATA and ACK"
    );
}

#[test]
fn horizon_frames_carry_their_advertisement() {
    use ncmesh_core::coding::horizon::HorizonHeader;
    let mut s = build("diamond", &BuildOptions::new()).unwrap();
    s.simulation.duration_s = 3.0;
    s.simulation.measure_start_s = 0.0;
    s.scheme.name = "horizon".into();
    let (trace, _) = traced(&s);
    let r = trace
        .iter()
        .find(|r| r.what == TraceKind::TxStart && r.kind == FrameKind::Data && r.node == 0)
        .expect("a data frame from the source");
    let body = r.frame.as_ref().unwrap().data.as_ref().unwrap();
    let hz = body.header_as::<HorizonHeader>().expect("Horizon's header");
    let n = hz.entries.len();
    assert!(n >= 1);
    assert_eq!(body.header_bytes, 1 + 6 * n as u32);
    let f = pcap::frame_bytes(r);
    let h = &f[32..];
    assert_eq!(&h[0..2], b"NC");
    assert_eq!(h[3] & 0b10, 0b10, "the family's block follows");
    let n_int = be16(h, 6) as usize;
    let hdr_len = be16(h, 4) as usize;
    assert_eq!(hdr_len, 28 + 4 * n_int + 16 + 4 + 16 * n);
    let b = &h[28 + 4 * n_int + 16..hdr_len];
    assert_eq!(be32(b, 0) as usize, n);
    let e = &hz.entries[0];
    assert_eq!(
        (be32(b, 4), be32(b, 8), be32(b, 12)),
        (e.flow, e.dst, e.backlog)
    );
    assert_eq!(f32::from_bits(be32(b, 16)), e.cost as f32);
}
