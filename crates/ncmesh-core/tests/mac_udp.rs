//! Whole-simulator checks of the 802.11 MAC with saturated UDP (no TCP dynamics).

use ncmesh_core::scenario::schema::*;
use ncmesh_core::scenario::{build, BuildOptions};
use ncmesh_core::sim::run;

fn udp_chain(hops: u64, rate_kbps: f64) -> Scenario {
    let mut s = build("chain", &BuildOptions::new().with("hops", hops)).unwrap();
    s.flows[0].transport = Transport::Udp;
    s.flows[0].app = AppKind::Cbr;
    s.flows[0].rate_kbps = Some(rate_kbps);
    s.flows[0].packet_bytes = 1000;
    s.simulation.duration_s = 20.0;
    s.simulation.measure_start_s = 5.0;
    s
}

/// One saturated hop: each 1000-byte datagram costs DIFS + mean backoff (15.5 slots)
/// + DATA (192 + 1064*8/2 us) + SIFS + ACK (304 us) = 5122 us -> 1561.9 kbit/s.
#[test]
fn one_hop_saturated_udp_matches_dcf_airtime() {
    let r = run(&udp_chain(1, 3000.0)).unwrap();
    let g = r.flows[0].goodput_kbps;
    let expected = 8000.0 / 5122e-6 / 1000.0;
    assert!(
        (g - expected).abs() / expected < 0.02,
        "goodput {g} vs {expected}"
    );
    assert!(r.conservation.balanced, "{:?}", r.conservation);
    assert_eq!(r.nodes[1].collisions, 0);
}

#[test]
fn unsaturated_udp_is_delivered_whole() {
    let r = run(&udp_chain(3, 200.0)).unwrap();
    let g = r.flows[0].goodput_kbps;
    assert!((g - 200.0).abs() < 2.0, "goodput {g}");
    assert!(r.conservation.balanced);
}
