//! Whole runs of today's TCP (issue 31): CUBIC with SACK, RACK-TLP and PRR, BBR, and
//! the `linux` preset, on a 4-hop chain carrying payload bytes, with and without i.i.d.
//! loss on every link: packets conserved, every delivered byte the one the source
//! wrote, losses repaired, runs deterministic.

use ncmesh_core::metrics::RunResult;
use ncmesh_core::scenario::preset::overlay;
use ncmesh_core::scenario::schema::*;
use ncmesh_core::scenario::Preset;
use ncmesh_core::sim::run;

use crate::common::string;

#[test]
fn cubic_with_sack_rack_and_prr_delivers_every_byte_intact_over_four_hops() {
    for loss in [0.0, 0.02] {
        let mut s = string(4, "none", loss, LossFrames::Network, 20.0);
        s.tcp.variant = TcpVariant::Cubic;
        s.tcp.sack = true;
        s.tcp.rack = true;
        s.tcp.prr = true;
        let r = run(&s).unwrap();
        let what = format!("loss {loss}");
        assert!(r.conservation.balanced, "{what}: {:?}", r.conservation);
        let f = &r.flows[0];
        // The receiver acknowledges only what it delivered in order, so every byte
        // acknowledged is a byte delivered; each of them the source's.
        assert_eq!(f.payload_errors, 0, "{what}: delivered bytes differ");
        assert!(f.rx_bytes > 0, "{what}: {f:?}");
        if loss > 0.0 {
            assert!(f.retransmissions > 0, "{what}: losses were repaired");
        } else {
            assert!(f.goodput_kbps > 50.0, "{what}: {f:?}");
        }
        assert_repeats(&s, &r, &what);
    }
}

#[test]
fn the_linux_preset_runs_todays_tcp_on_a_lossy_chain() {
    let s = overlay(
        &string(4, "none", 0.02, LossFrames::Network, 10.0),
        Preset::Linux,
    )
    .unwrap();
    assert_eq!(s.tcp.variant, TcpVariant::Cubic);
    assert!(s.tcp.sack && s.tcp.rack && s.tcp.prr);
    let r = run(&s).unwrap();
    assert!(r.conservation.balanced, "{:?}", r.conservation);
    let f = &r.flows[0];
    assert_eq!(f.payload_errors, 0);
    assert!(f.rx_bytes > 0, "{f:?}");
}

#[test]
fn bbr_under_the_linux_preset_delivers_every_byte_intact_and_repeats_itself() {
    for loss in [0.0, 0.02] {
        let mut s = overlay(
            &string(4, "none", loss, LossFrames::Network, 20.0),
            Preset::Linux,
        )
        .unwrap();
        s.tcp.variant = TcpVariant::Bbr;
        let r = run(&s).unwrap();
        let what = format!("loss {loss}");
        assert!(r.conservation.balanced, "{what}: {:?}", r.conservation);
        let f = &r.flows[0];
        assert_eq!(f.payload_errors, 0, "{what}: delivered bytes differ");
        if loss > 0.0 {
            assert!(f.retransmissions > 0, "{what}: losses were repaired");
        }
        // Paced at its bandwidth estimate, BBR fills a 4-hop 802.11 chain as CUBIC does.
        assert!(f.goodput_kbps > 100.0, "{what}: {f:?}");
        assert_repeats(&s, &r, &what);
    }
}

/// The same scenario again gives the same bytes, packets and events.
fn assert_repeats(s: &Scenario, r: &RunResult, what: &str) {
    let again = run(s).unwrap();
    let f = &r.flows[0];
    assert_eq!(
        (
            again.flows[0].rx_bytes,
            again.flows[0].tx_packets,
            again.events
        ),
        (f.rx_bytes, f.tx_packets, r.events),
        "{what}: deterministic"
    );
}
