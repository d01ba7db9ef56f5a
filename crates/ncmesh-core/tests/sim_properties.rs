//! Whole-run properties: packet conservation, determinism, independent random
//! streams, payload integrity, mobility, loss schedules, the other channel models.

use ncmesh_core::metrics::RunResult;
use ncmesh_core::scenario::schema::*;
use ncmesh_core::scenario::{build, BuildOptions};
use ncmesh_core::sim::run;

fn chain(hops: u64) -> Scenario {
    let mut s = build("chain", &BuildOptions::new().with("hops", hops)).unwrap();
    s.simulation.duration_s = 30.0;
    s.simulation.measure_start_s = 5.0;
    s
}

fn strip_wall(mut r: RunResult) -> RunResult {
    r.wall_time_s = 0.0;
    r
}

#[test]
fn every_packet_is_delivered_dropped_or_held() {
    let mut s = chain(4);
    s.mac.queue_packets = 5;
    s.loss.push(LossCfg {
        rate: 0.3,
        ..LossCfg::default()
    });
    s.mac.short_retry_limit = 2;
    let r = run(&s).unwrap();
    let c = &r.conservation;
    assert!(c.balanced, "{c:?}");
    assert_eq!(
        c.originated + c.received_from_mac,
        c.delivered + c.handed_over + c.dropped + c.held_at_end
    );
    let queue_drops: u64 = r.nodes.iter().map(|n| n.drops_queue_full).sum();
    let retry_drops: u64 = r.nodes.iter().map(|n| n.drops_retry_limit).sum();
    assert!(
        queue_drops > 0 && retry_drops > 0,
        "the test must exercise both drop paths: {queue_drops} {retry_drops}"
    );
    assert_eq!(
        c.dropped,
        r.nodes
            .iter()
            .map(|n| n.drops_queue_full
                + n.drops_retry_limit
                + n.drops_ttl
                + n.drops_no_route
                + n.drops_scheme
                + n.drops_discovery)
            .sum::<u64>()
    );
    assert!(r.flows[0].goodput_kbps > 0.0);
}

#[test]
fn same_seed_same_result_other_seed_other_result() {
    let s = chain(3);
    let a = strip_wall(run(&s).unwrap());
    let b = strip_wall(run(&s).unwrap());
    assert_eq!(a, b);
    let mut s2 = s.clone();
    s2.simulation.seed = 2;
    let c = strip_wall(run(&s2).unwrap());
    assert_ne!(a.flows[0].rx_bytes, c.flows[0].rx_bytes);
    assert_ne!(a.events, c.events);
}

#[test]
fn a_flow_elsewhere_does_not_reshuffle_this_one() {
    // Two 2-hop chains 10 km apart: they cannot interact, and the random streams of
    // one must not move when the other exists.
    let mut s = chain(2);
    let one = strip_wall(run(&s).unwrap());
    let base = s.nodes.len() as u32;
    for n in s.nodes.clone() {
        s.nodes.push(NodeCfg {
            x: n.x + 10_000.0,
            ..n
        });
    }
    let mut f = s.flows[0].clone();
    f.src += base;
    f.dst += base;
    f.start_s = 1.37;
    s.flows.push(f);
    let two = strip_wall(run(&s).unwrap());
    assert_eq!(one.flows[0].rx_bytes, two.flows[0].rx_bytes);
    assert_eq!(one.flows[0].retransmissions, two.flows[0].retransmissions);
    assert_eq!(one.nodes[1].mac_frames_sent, two.nodes[1].mac_frames_sent);
}

#[test]
fn payload_bytes_arrive_intact_and_do_not_change_timing() {
    let mut s = chain(3);
    s.loss.push(LossCfg {
        rate: 0.05,
        ..LossCfg::default()
    });
    let plain = strip_wall(run(&s).unwrap());
    s.simulation.payload_bytes = true;
    let with = strip_wall(run(&s).unwrap());
    assert_eq!(with.flows[0].payload_errors, 0);
    assert_eq!(plain.flows[0].rx_bytes, with.flows[0].rx_bytes);
    assert_eq!(plain.events, with.events);
}

#[test]
fn a_relay_walking_away_cuts_the_flow() {
    // Chen et al.-style: the middle node of a 2-hop chain walks out of range at 10-12 s.
    let mut s = chain(2);
    s.nodes[1].waypoints = vec![
        Waypoint {
            t_s: 10.0,
            x: 200.0,
            y: 0.0,
        },
        Waypoint {
            t_s: 12.0,
            x: 200.0,
            y: 400.0,
        },
    ];
    s.simulation.series_interval_s = 1.0;
    let r = run(&s).unwrap();
    let gp = |t0: f64, t1: f64| -> f64 {
        r.flow_series
            .iter()
            .filter(|x| x.t_s > t0 && x.t_s <= t1)
            .map(|x| x.goodput_kbps)
            .sum()
    };
    assert!(gp(3.0, 10.0) > 1000.0, "flowing before: {}", gp(3.0, 10.0));
    assert_eq!(gp(14.0, 30.0), 0.0, "nothing after the relay left");
    assert!(
        (r.nodes[1].y - 400.0).abs() < 1e-9,
        "final position reported"
    );
}

#[test]
fn kept_routes_break_with_the_relay_that_leaves_followed_ones_go_round() {
    // Two 2-hop paths; path 1's relay (node 1) walks away at 10-12 s.
    let run_with = |follow: bool| {
        let mut s = super::common::two_path_relay_leaves();
        s.routing.follow_mobility = follow;
        let r = run(&s).unwrap();
        let late: f64 = r
            .flow_series
            .iter()
            .filter(|x| x.t_s > 15.0)
            .map(|x| x.goodput_kbps)
            .sum();
        (r, late)
    };
    let (kept, late) = run_with(false);
    assert_eq!(
        late, 0.0,
        "the routes of the start lead to the relay that left"
    );
    assert_eq!(
        kept.flows[0].path,
        vec![0, 1, 3],
        "path 1 (lower ids) at the start"
    );
    let (followed, late) = run_with(true);
    assert!(late > 1000.0, "re-routed through node 2: {late}");
    assert_eq!(followed.flows[0].path, vec![0, 2, 3]);
}

#[test]
fn loss_schedule_shapes_goodput_in_time() {
    let mut s = chain(2);
    s.loss.push(LossCfg {
        schedule: vec![LossPhase {
            from_s: 10.0,
            to_s: Some(20.0),
            rate: 0.4,
        }],
        ..LossCfg::default()
    });
    let r = run(&s).unwrap();
    let mean = |t0: f64, t1: f64| {
        let v: Vec<f64> = r
            .flow_series
            .iter()
            .filter(|x| x.t_s > t0 && x.t_s <= t1)
            .map(|x| x.goodput_kbps)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let (before, during, after) = (mean(3.0, 10.0), mean(11.0, 20.0), mean(22.0, 30.0));
    assert!(
        during < 0.8 * before && during < 0.8 * after,
        "{before} {during} {after}"
    );
}

#[test]
fn ttl_expiry_is_a_drop() {
    let mut s = chain(4);
    s.routing.ttl = 2;
    let r = run(&s).unwrap();
    assert_eq!(r.flows[0].rx_bytes, 0);
    assert!(r.nodes.iter().map(|n| n.drops_ttl).sum::<u64>() > 0);
    assert!(r.conservation.balanced);
}

#[test]
fn rate_limited_tcp_carries_its_rate() {
    let mut s = chain(3);
    s.flows[0].app = AppKind::Cbr;
    s.flows[0].rate_kbps = Some(200.0);
    let r = run(&s).unwrap();
    assert!(
        (r.flows[0].goodput_kbps - 200.0).abs() < 10.0,
        "{}",
        r.flows[0].goodput_kbps
    );
}

#[test]
fn data_bytes_on_the_air_are_the_frames_mpdus() {
    use ncmesh_core::phy::timing::{LLC_BYTES, MAC_DATA_OVERHEAD};
    use ncmesh_core::wire::udp::UDP_HEADER_BYTES;
    use ncmesh_core::wire::IP_HEADER_BYTES;
    // One hop of fixed-size UDP datagrams: every data frame is the same MPDU.
    let mut s = chain(1);
    s.flows[0].transport = Transport::Udp;
    s.flows[0].app = AppKind::Cbr;
    s.flows[0].rate_kbps = Some(200.0);
    let r = run(&s).unwrap();
    let mpdu = u64::from(MAC_DATA_OVERHEAD + LLC_BYTES + IP_HEADER_BYTES + UDP_HEADER_BYTES)
        + u64::from(s.flows[0].packet_bytes);
    let n = &r.nodes[0];
    assert!(n.mac_data_frames_sent > 100);
    assert_eq!(n.mac_data_bytes_sent, n.mac_data_frames_sent * mpdu);
    assert_eq!(
        (
            r.nodes[1].mac_data_frames_sent,
            r.nodes[1].mac_data_bytes_sent
        ),
        (0, 0)
    );
}

#[test]
fn two_ray_senses_two_hops_away() {
    let mut s = chain(4);
    s.channel.model = ChannelModel::Tworay;
    let r = run(&s).unwrap();
    assert!(r.flows[0].goodput_kbps > 100.0);
    assert!(r.conservation.balanced);
    // With 550 m carrier sense, node 2 senses node 0's frames but cannot decode them:
    // nothing from node 0 is overheard at node 2, yet node 2 is busy more often than
    // under the 250 m range model.
    let mut s2 = chain(4);
    s2.simulation.seed = s.simulation.seed;
    let r2 = run(&s2).unwrap();
    assert!(
        r.nodes[2].airtime_busy > r2.nodes[2].airtime_busy,
        "{} vs {}",
        r.nodes[2].airtime_busy,
        r2.nodes[2].airtime_busy
    );
}

#[test]
fn fading_and_shadowing_models_run_and_conserve() {
    for (model, fading) in [
        (ChannelModel::Tworay, Fading::Rayleigh),
        (ChannelModel::Shadowing, Fading::None),
    ] {
        let mut s = chain(3);
        s.nodes
            .iter_mut()
            .enumerate()
            .for_each(|(i, n)| n.x = i as f64 * 120.0);
        s.channel.model = model;
        s.channel.fading = fading;
        s.channel.path_loss_exponent = 2.7;
        s.routing.metric = RouteMetric::Etx;
        let r = run(&s).unwrap();
        assert!(r.conservation.balanced);
        assert!(
            r.flows[0].goodput_kbps > 50.0,
            "{model:?}/{fading:?}: {}",
            r.flows[0].goodput_kbps
        );
        assert!(
            r.nodes
                .iter()
                .map(|n| n.channel_losses + n.collisions)
                .sum::<u64>()
                > 0
        );
    }
}

#[test]
fn link_table_channel_delivers_with_its_probabilities() {
    let mut s = chain(2);
    s.channel.model = ChannelModel::Linktable;
    s.channel.links = vec![
        LinkCfg {
            a: 0,
            b: 1,
            p_ab: 0.8,
            p_ba: 0.8,
        },
        LinkCfg {
            a: 1,
            b: 2,
            p_ab: 0.8,
            p_ba: 0.8,
        },
    ];
    let r = run(&s).unwrap();
    let losses: u64 = r.nodes.iter().map(|n| n.channel_losses).sum();
    let rx: u64 = r
        .nodes
        .iter()
        .map(|n| n.mac_frames_received + n.mac_frames_overheard)
        .sum();
    let frac = losses as f64 / (losses + rx) as f64;
    assert!((frac - 0.2).abs() < 0.03, "loss fraction {frac}");
    assert!(r.flows[0].goodput_kbps > 100.0);
}

#[test]
fn sack_and_newreno_both_recover_from_loss() {
    let mut s = chain(3);
    // losses TCP must repair itself: MAC retries that can run out
    s.loss.push(LossCfg {
        rate: 0.2,
        ..LossCfg::default()
    });
    s.mac.short_retry_limit = 3;
    let nr = run(&s).unwrap();
    s.tcp.sack = true;
    let sack = run(&s).unwrap();
    assert!(nr.flows[0].fast_retransmits > 0 && sack.flows[0].fast_retransmits > 0);
    assert!(nr.flows[0].goodput_kbps > 50.0 && sack.flows[0].goodput_kbps > 50.0);
    assert!(sack.conservation.balanced);
}

#[test]
fn delay_covers_the_path_and_grows_when_losses_hold_data_back() {
    // A 200 kbit/s TCP flow over 2 hops at 2 Mbit/s: no queue builds up, and a 1000-byte
    // segment is on the air 192 us + 1068 * 8 / 2 us = 4.46 ms per hop, so the mean delay
    // lies between 8.9 ms and a few more for contention.
    let paced = || {
        let mut s = chain(2);
        s.flows[0].app = AppKind::Cbr;
        s.flows[0].rate_kbps = Some(200.0);
        s
    };
    let clean = run(&paced()).unwrap();
    let f = &clean.flows[0];
    assert!(
        f.delay_mean_ms > 8.9 && f.delay_mean_ms < 15.0,
        "{}",
        f.delay_mean_ms
    );
    // Losses the MAC cannot repair: segments wait at the receiver for retransmissions of
    // the ones before them, which the delay counts from their first transmission.
    let mut s = paced();
    s.loss.push(LossCfg {
        rate: 0.05,
        frames: LossFrames::Network,
        ..LossCfg::default()
    });
    let lossy = run(&s).unwrap();
    let g = &lossy.flows[0];
    assert!(g.retransmissions > 0);
    assert!(
        g.delay_mean_ms > 3.0 * f.delay_mean_ms,
        "{} vs {}",
        g.delay_mean_ms,
        f.delay_mean_ms
    );
    // UDP has no delay measure.
    let mut u = paced();
    u.flows[0].transport = Transport::Udp;
    assert_eq!(run(&u).unwrap().flows[0].delay_mean_ms, 0.0);
}
