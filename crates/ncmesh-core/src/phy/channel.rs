//! Who hears whom: for every transmitter, the nodes its signal reaches, with mean power
//! and propagation delay, plus the per-frame draw of received power (fading, shadowing).
//!
//! Neighbour lists are built with a spatial grid, so building them and transmitting
//! cost grows with the number of neighbours, not with the square of the node count.

use super::error_model::erfc;
use super::propagation::{mean_power_w, reach_m};
use crate::engine::{Rng, Time};
use crate::scenario::schema::{ChannelCfg, ChannelModel, Fading};

/// A directed radio link from a transmitter to one node its signal reaches.
#[derive(Debug, Clone, Copy)]
pub struct Link {
    /// The node reached.
    pub to: u32,
    /// Mean received power, W (1.0 for the range and link-table models).
    pub mean_w: f64,
    /// Propagation delay.
    pub delay: Time,
    /// Range model: inside the receive range. Link table: always.
    pub in_rx_range: bool,
    /// Range model: inside the carrier-sense range. Link table: always.
    pub in_cs_range: bool,
    /// Link table: probability a frame is delivered (applied after reception).
    pub p_link: f64,
}

/// How one transmitter's frame arrives at one receiver.
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    /// Received power, W.
    pub power_w: f64,
    /// At or above the receive threshold: the radio may lock on to it.
    pub decodable: bool,
    /// At or above the carrier-sense threshold: it makes the medium busy.
    pub sensed: bool,
    /// Link-table delivery probability, applied when the frame ends (1 otherwise).
    pub p_link: f64,
}

/// The channel of one scenario: its model and every node's outgoing links.
pub struct Channel {
    cfg: ChannelCfg,
    links: Vec<Vec<Link>>,
}

/// Factor above the mean that a Rayleigh draw exceeds with probability e^-30.
const RAYLEIGH_HEADROOM: f64 = 30.0;
/// Shadowing draws beyond 6 sigma are ignored (probability ~1e-9).
const SHADOW_SIGMAS: f64 = 6.0;

impl Channel {
    /// The channel `cfg` describes over nodes at `positions` (metres).
    pub fn new(cfg: &ChannelCfg, positions: &[(f64, f64)]) -> Channel {
        let mut ch = Channel {
            cfg: cfg.clone(),
            links: vec![Vec::new(); positions.len()],
        };
        ch.rebuild(positions);
        ch
    }

    /// The scenario's `[channel]` table.
    pub fn config(&self) -> &ChannelCfg {
        &self.cfg
    }

    /// Nodes reached by `tx`'s signal.
    #[inline]
    pub fn links_from(&self, tx: u32) -> &[Link] {
        &self.links[tx as usize]
    }

    /// The directed link a -> b, if b is reached by a.
    pub fn link(&self, a: u32, b: u32) -> Option<&Link> {
        self.links[a as usize].iter().find(|l| l.to == b)
    }

    fn headroom(&self) -> f64 {
        let mut h = 1.0;
        if self.cfg.fading == Fading::Rayleigh {
            h *= RAYLEIGH_HEADROOM;
        }
        if self.cfg.model == ChannelModel::Shadowing {
            h *= 10f64.powf(SHADOW_SIGMAS * self.cfg.shadowing_sigma_db / 10.0);
        }
        h
    }

    /// Recomputes every neighbour list from node positions (start, and after motion).
    pub fn rebuild(&mut self, positions: &[(f64, f64)]) {
        for l in &mut self.links {
            l.clear();
        }
        let c = self.cfg.propagation_speed_mps;
        let delay = |d: f64| (d / c * 1e9).round() as Time;
        match self.cfg.model {
            ChannelModel::Linktable => {
                for lk in &self.cfg.links {
                    let (a, b) = (lk.a as usize, lk.b as usize);
                    // Measured topologies carry map coordinates; cap the delay at 1 km so
                    // nodes without coordinates (placed at the origin) stay plausible.
                    let d = dist(positions[a], positions[b]).min(1000.0);
                    let mk = |to: usize, p: f64| Link {
                        to: to as u32,
                        mean_w: 1.0,
                        delay: delay(d),
                        in_rx_range: true,
                        in_cs_range: true,
                        p_link: p,
                    };
                    self.links[a].push(mk(b, lk.p_ab));
                    self.links[b].push(mk(a, lk.p_ba));
                }
                for l in &mut self.links {
                    l.sort_by_key(|x| x.to);
                }
            }
            model => {
                let reach = match model {
                    ChannelModel::Range => self
                        .cfg
                        .rx_range_m
                        .max(self.cfg.cs_range_m)
                        .max(self.cfg.interference_range_m),
                    _ => reach_m(&self.cfg, self.cfg.cs_threshold_w / self.headroom()),
                };
                let grid = Grid::new(positions, reach.max(1.0));
                for (i, &pi) in positions.iter().enumerate() {
                    grid.for_each_near(pi, |j| {
                        if j == i {
                            return;
                        }
                        let d = dist(pi, positions[j]);
                        if d > reach {
                            return;
                        }
                        let link = match model {
                            ChannelModel::Range => Link {
                                to: j as u32,
                                mean_w: 1.0,
                                delay: delay(d),
                                in_rx_range: d <= self.cfg.rx_range_m,
                                in_cs_range: d <= self.cfg.cs_range_m,
                                p_link: 1.0,
                            },
                            _ => Link {
                                to: j as u32,
                                mean_w: mean_power_w(&self.cfg, d),
                                delay: delay(d),
                                in_rx_range: false,
                                in_cs_range: false,
                                p_link: 1.0,
                            },
                        };
                        self.links[i].push(link);
                    });
                    self.links[i].sort_by_key(|x| x.to);
                }
            }
        }
    }

    /// Draws how one frame arrives over `link` (fading and shadowing are per frame and
    /// receiver, as in ns-2). None: too weak to matter (below carrier sense, ns-2 style).
    #[inline]
    pub fn arrival(&self, link: &Link, rng: &mut Rng) -> Option<Arrival> {
        match self.cfg.model {
            ChannelModel::Range | ChannelModel::Linktable => Some(Arrival {
                power_w: link.mean_w,
                decodable: link.in_rx_range,
                sensed: link.in_cs_range,
                p_link: link.p_link,
            }),
            ChannelModel::Tworay | ChannelModel::Shadowing => {
                let mut p = link.mean_w;
                if self.cfg.model == ChannelModel::Shadowing && self.cfg.shadowing_sigma_db > 0.0 {
                    p *= 10f64.powf(self.cfg.shadowing_sigma_db * rng.normal() / 10.0);
                }
                if self.cfg.fading == Fading::Rayleigh {
                    p *= rng.exp1();
                }
                if p < self.cfg.cs_threshold_w {
                    return None;
                }
                Some(Arrival {
                    power_w: p,
                    decodable: p >= self.cfg.rx_threshold_w,
                    sensed: true,
                    p_link: 1.0,
                })
            }
        }
    }

    /// Probability that a frame a -> b is decoded in the absence of interference and of
    /// extra loss rules: the link delivery estimate schemes and ETX routing use.
    pub fn delivery_prob(&self, a: u32, b: u32) -> f64 {
        let Some(l) = self.link(a, b) else { return 0.0 };
        match self.cfg.model {
            ChannelModel::Range => f64::from(u8::from(l.in_rx_range)),
            ChannelModel::Linktable => l.p_link,
            ChannelModel::Tworay | ChannelModel::Shadowing => {
                let thr = self.cfg.rx_threshold_w;
                let sigma = if self.cfg.model == ChannelModel::Shadowing {
                    self.cfg.shadowing_sigma_db
                } else {
                    0.0
                };
                let rayleigh = self.cfg.fading == Fading::Rayleigh;
                // Success given a mean power m: Rayleigh exp(-thr/m), else m >= thr.
                let p_at = |m: f64| {
                    if rayleigh {
                        (-thr / m).exp()
                    } else {
                        f64::from(u8::from(m >= thr))
                    }
                };
                if sigma == 0.0 {
                    return p_at(l.mean_w);
                }
                if !rayleigh {
                    let z = (10.0 * (thr / l.mean_w).log10()) / sigma;
                    return 0.5 * erfc(z / std::f64::consts::SQRT_2);
                }
                // Average over the log-normal term (midpoint rule on +-6 sigma).
                let n = 241;
                let (mut acc, mut wsum) = (0.0, 0.0);
                for k in 0..n {
                    let z = -6.0 + 12.0 * (k as f64 + 0.5) / n as f64;
                    let w = (-0.5 * z * z).exp();
                    acc += w * p_at(l.mean_w * 10f64.powf(sigma * z / 10.0));
                    wsum += w;
                }
                acc / wsum
            }
        }
    }
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// Uniform grid of square cells of side `cell` over the node positions.
struct Grid {
    cell: f64,
    x0: f64,
    y0: f64,
    nx: i64,
    ny: i64,
    /// Node indices sorted by cell; `start[c]..start[c+1]` are the nodes of cell c.
    order: Vec<usize>,
    start: Vec<usize>,
}

impl Grid {
    fn new(pos: &[(f64, f64)], cell: f64) -> Grid {
        let x0 = pos.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let y0 = pos.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let x1 = pos.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
        let y1 = pos.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        let (x0, y0) = if pos.is_empty() { (0.0, 0.0) } else { (x0, y0) };
        // Cap the number of cells at ~4 per node so sparse, spread-out maps stay small.
        let mut cell = cell;
        let cap = (4 * pos.len()).max(1) as f64;
        while ((x1 - x0) / cell + 1.0) * ((y1 - y0) / cell + 1.0) > cap && pos.len() > 1 {
            cell *= 2.0;
        }
        let nx = (((x1 - x0) / cell).floor() as i64 + 1).max(1);
        let ny = (((y1 - y0) / cell).floor() as i64 + 1).max(1);
        let ncell = (nx * ny) as usize;
        let cid = |p: (f64, f64)| {
            let cx = ((p.0 - x0) / cell).floor() as i64;
            let cy = ((p.1 - y0) / cell).floor() as i64;
            (cy * nx + cx) as usize
        };
        let mut count = vec![0usize; ncell + 1];
        for &p in pos {
            count[cid(p) + 1] += 1;
        }
        for c in 0..ncell {
            count[c + 1] += count[c];
        }
        let start = count.clone();
        let mut fill = count;
        let mut order = vec![0; pos.len()];
        for (i, &p) in pos.iter().enumerate() {
            let c = cid(p);
            order[fill[c]] = i;
            fill[c] += 1;
        }
        Grid {
            cell,
            x0,
            y0,
            nx,
            ny,
            order,
            start,
        }
    }

    /// Calls f for every node in the 3x3 cells around p (a superset of those within `cell`).
    fn for_each_near(&self, p: (f64, f64), mut f: impl FnMut(usize)) {
        let cx = ((p.0 - self.x0) / self.cell).floor() as i64;
        let cy = ((p.1 - self.y0) / self.cell).floor() as i64;
        for y in (cy - 1).max(0)..=(cy + 1).min(self.ny - 1) {
            for x in (cx - 1).max(0)..=(cx + 1).min(self.nx - 1) {
                let c = (y * self.nx + x) as usize;
                for &j in &self.order[self.start[c]..self.start[c + 1]] {
                    f(j);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::LinkCfg;

    fn chain(n: usize, spacing: f64) -> Vec<(f64, f64)> {
        (0..n).map(|i| (i as f64 * spacing, 0.0)).collect()
    }

    #[test]
    fn range_model_chain_neighbours() {
        let ch = Channel::new(&ChannelCfg::default(), &chain(5, 200.0));
        let to: Vec<u32> = ch.links_from(2).iter().map(|l| l.to).collect();
        assert_eq!(to, vec![1, 3]);
        assert_eq!(ch.links_from(0).len(), 1);
        // 200 m at the speed of light: 667 ns.
        assert_eq!(ch.links_from(0)[0].delay, 667);
        assert_eq!(ch.delivery_prob(0, 1), 1.0);
        assert_eq!(ch.delivery_prob(0, 2), 0.0);
    }

    #[test]
    fn range_model_separate_ranges() {
        let cfg = ChannelCfg {
            cs_range_m: 450.0,
            interference_range_m: 650.0,
            ..ChannelCfg::default()
        };
        let ch = Channel::new(&cfg, &chain(5, 200.0));
        let l: Vec<(u32, bool, bool)> = ch
            .links_from(0)
            .iter()
            .map(|l| (l.to, l.in_rx_range, l.in_cs_range))
            .collect();
        assert_eq!(
            l,
            vec![(1, true, true), (2, false, true), (3, false, false)]
        );
    }

    #[test]
    fn two_ray_senses_to_550_m() {
        let cfg = ChannelCfg {
            model: ChannelModel::Tworay,
            ..ChannelCfg::default()
        };
        let ch = Channel::new(&cfg, &chain(5, 200.0));
        let mut rng = Rng::stream(1, 0, crate::engine::StreamPurpose::Channel);
        let a: Vec<(u32, bool)> = ch
            .links_from(0)
            .iter()
            .filter_map(|l| ch.arrival(l, &mut rng).map(|a| (l.to, a.decodable)))
            .collect();
        assert_eq!(a, vec![(1, true), (2, false)]);
    }

    #[test]
    fn grid_matches_brute_force_on_random_layout() {
        let mut rng = Rng::stream(3, 0, crate::engine::StreamPurpose::Builder);
        let pos: Vec<(f64, f64)> = (0..300)
            .map(|_| (rng.uniform() * 3000.0, rng.uniform() * 3000.0))
            .collect();
        let ch = Channel::new(&ChannelCfg::default(), &pos);
        for i in 0..pos.len() {
            let mut brute: Vec<u32> = (0..pos.len())
                .filter(|&j| j != i && dist(pos[i], pos[j]) <= 250.0)
                .map(|j| j as u32)
                .collect();
            brute.sort();
            let got: Vec<u32> = ch.links_from(i as u32).iter().map(|l| l.to).collect();
            assert_eq!(got, brute);
        }
    }

    #[test]
    fn rayleigh_delivery_estimate_matches_draws() {
        let cfg = ChannelCfg {
            model: ChannelModel::Tworay,
            fading: Fading::Rayleigh,
            ..ChannelCfg::default()
        };
        let ch = Channel::new(&cfg, &chain(2, 200.0));
        let mut rng = Rng::stream(9, 1, crate::engine::StreamPurpose::Channel);
        let l = ch.links_from(0)[0];
        let n = 200_000;
        let ok = (0..n)
            .filter(|_| ch.arrival(&l, &mut rng).is_some_and(|a| a.decodable))
            .count();
        let est = ch.delivery_prob(0, 1);
        assert!(
            (ok as f64 / n as f64 - est).abs() < 0.005,
            "{} vs {est}",
            ok as f64 / n as f64
        );
    }

    #[test]
    fn shadowing_delivery_estimate_matches_draws() {
        let cfg = ChannelCfg {
            model: ChannelModel::Shadowing,
            path_loss_exponent: 2.7,
            shadowing_sigma_db: 4.0,
            ..ChannelCfg::default()
        };
        let ch = Channel::new(&cfg, &chain(2, 100.0));
        let mut rng = Rng::stream(9, 1, crate::engine::StreamPurpose::Channel);
        let l = *ch.link(0, 1).unwrap();
        let n = 200_000;
        let ok = (0..n)
            .filter(|_| ch.arrival(&l, &mut rng).is_some_and(|a| a.decodable))
            .count();
        let est = ch.delivery_prob(0, 1);
        assert!(
            est > 0.05 && est < 0.95,
            "pick a distance in the grey zone: {est}"
        );
        assert!((ok as f64 / n as f64 - est).abs() < 0.005);
    }

    #[test]
    fn link_table_is_directed() {
        let cfg = ChannelCfg {
            model: ChannelModel::Linktable,
            links: vec![LinkCfg {
                a: 0,
                b: 1,
                p_ab: 0.9,
                p_ba: 0.5,
            }],
            ..ChannelCfg::default()
        };
        let ch = Channel::new(&cfg, &[(0.0, 0.0), (0.0, 0.0), (5.0, 5.0)]);
        assert_eq!(ch.delivery_prob(0, 1), 0.9);
        assert_eq!(ch.delivery_prob(1, 0), 0.5);
        assert_eq!(ch.delivery_prob(0, 2), 0.0);
        assert!(ch.links_from(2).is_empty());
    }
}
