//! Extra frame loss on top of the propagation model: per-link frame error rates,
//! constant or following a time schedule (e.g. Chen et al.'s 0% / 40% / 20% phases).

use crate::engine::{secs, Rng, Time};
use crate::scenario::schema::{LossCfg, LossFrames};

struct Phase {
    from: Time,
    to: Time,
    rate: f64,
}

struct Rule {
    /// Sorted directed links; empty = all links.
    links: Vec<(u32, u32)>,
    phases: Vec<Phase>,
    frames: LossFrames,
}

impl Rule {
    /// The rule's rate for a frame tx -> rx at `now`, if it applies.
    fn rate(&self, tx: u32, rx: u32, now: Time) -> Option<f64> {
        if !self.links.is_empty() && self.links.binary_search(&(tx, rx)).is_err() {
            return None;
        }
        self.phases
            .iter()
            .find(|p| p.from <= now && now < p.to)
            .map(|p| p.rate)
    }
}

/// All loss rules of a scenario; independent rules combine as 1 - prod(1 - p_i).
pub struct LossModel {
    rules: Vec<Rule>,
}

impl LossModel {
    /// The rules of the scenario's `[[loss]]` tables.
    pub fn new(cfgs: &[LossCfg]) -> LossModel {
        let rules = cfgs
            .iter()
            .map(|c| {
                let mut links: Vec<(u32, u32)> = c.links.iter().map(|l| (l[0], l[1])).collect();
                links.sort_unstable();
                let phases = if c.schedule.is_empty() {
                    vec![Phase {
                        from: 0,
                        to: Time::MAX,
                        rate: c.rate,
                    }]
                } else {
                    c.schedule
                        .iter()
                        .map(|p| Phase {
                            from: secs(p.from_s),
                            to: p.to_s.map_or(Time::MAX, secs),
                            rate: p.rate,
                        })
                        .collect()
                };
                Rule {
                    links,
                    phases,
                    frames: c.frames,
                }
            })
            .collect();
        LossModel { rules }
    }

    /// No rule at all.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Probability that a frame tx -> rx received at `now` is lost by the radio (the
    /// `data` and `all` rules).
    pub fn rate(&self, tx: u32, rx: u32, now: Time, is_data: bool) -> f64 {
        let mut keep = 1.0;
        for r in &self.rules {
            let applies = match r.frames {
                LossFrames::Data => is_data,
                LossFrames::All => true,
                LossFrames::Network => false,
            };
            if let Some(p) = r.rate(tx, rx, now).filter(|_| applies) {
                keep *= 1.0 - p;
            }
        }
        1.0 - keep
    }

    /// Probability that the packets of a data frame tx -> rx, received and acknowledged
    /// by the MAC at `now`, are dropped at the network layer (the `network` rules).
    pub fn network_rate(&self, tx: u32, rx: u32, now: Time) -> f64 {
        let mut keep = 1.0;
        for r in self
            .rules
            .iter()
            .filter(|r| r.frames == LossFrames::Network)
        {
            if let Some(p) = r.rate(tx, rx, now) {
                keep *= 1.0 - p;
            }
        }
        1.0 - keep
    }

    /// Draws whether the network layer of `rx` drops a data frame received from `tx`;
    /// draws from `rng` only when a `network` rule gives a positive rate.
    #[inline]
    pub fn network_lost(&self, tx: u32, rx: u32, now: Time, rng: &mut Rng) -> bool {
        let p = if self.rules.is_empty() {
            0.0
        } else {
            self.network_rate(tx, rx, now)
        };
        p > 0.0 && rng.chance(p)
    }

    /// Draws whether a frame the radio received intact from `tx` at `rx` is lost anyway:
    /// it survives the link's delivery probability `p_link` (link table) and every loss
    /// rule independently. Draws from `rng` only when a loss is possible.
    #[inline]
    pub fn frame_lost(
        &self,
        p_link: f64,
        tx: u32,
        rx: u32,
        now: Time,
        is_data: bool,
        rng: &mut Rng,
    ) -> bool {
        let p_loss = if p_link >= 1.0 && self.is_empty() {
            0.0
        } else {
            1.0 - p_link * (1.0 - self.rate(tx, rx, now, is_data))
        };
        p_loss > 0.0 && rng.chance(p_loss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::LossPhase;

    #[test]
    fn schedule_phases() {
        let m = LossModel::new(&[LossCfg {
            schedule: vec![
                LossPhase {
                    from_s: 20.0,
                    to_s: Some(50.0),
                    rate: 0.0,
                },
                LossPhase {
                    from_s: 50.0,
                    to_s: Some(80.0),
                    rate: 0.4,
                },
                LossPhase {
                    from_s: 80.0,
                    to_s: None,
                    rate: 0.2,
                },
            ],
            ..LossCfg::default()
        }]);
        assert_eq!(m.rate(0, 1, secs(10.0), true), 0.0);
        assert_eq!(m.rate(0, 1, secs(30.0), true), 0.0);
        assert!((m.rate(0, 1, secs(60.0), true) - 0.4).abs() < 1e-12);
        assert!((m.rate(3, 2, secs(1000.0), true) - 0.2).abs() < 1e-12);
        assert_eq!(
            m.rate(0, 1, secs(60.0), false),
            0.0,
            "MAC ACKs are not hit by data-frame loss"
        );
    }

    #[test]
    fn chosen_links_and_combination() {
        let m = LossModel::new(&[
            LossCfg {
                links: vec![[1, 2]],
                rate: 0.5,
                ..LossCfg::default()
            },
            LossCfg {
                rate: 0.1,
                frames: LossFrames::All,
                ..LossCfg::default()
            },
        ]);
        assert!((m.rate(1, 2, 0, true) - 0.55).abs() < 1e-12);
        assert!((m.rate(2, 1, 0, true) - 0.1).abs() < 1e-12);
        assert!((m.rate(2, 1, 0, false) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn frame_loss_draw_combines_link_and_rules() {
        use crate::engine::StreamPurpose;
        let mut rng = Rng::stream(3, 0, StreamPurpose::Channel);
        let none = LossModel::new(&[]);
        let before = rng.clone();
        assert!(!none.frame_lost(1.0, 0, 1, 0, true, &mut rng));
        assert_eq!(
            rng.next_u64(),
            before.clone().next_u64(),
            "no draw when nothing can be lost"
        );
        let mut rng = before;
        assert!(none.frame_lost(0.0, 0, 1, 0, true, &mut rng), "dead link");
        let half = LossModel::new(&[LossCfg {
            rate: 0.5,
            ..LossCfg::default()
        }]);
        // 0.8 link x 0.5 rule: 60 % lost
        let lost = (0..20_000)
            .filter(|_| half.frame_lost(0.8, 0, 1, 0, true, &mut rng))
            .count();
        assert!((lost as f64 / 20_000.0 - 0.6).abs() < 0.02, "{lost}");
        // data-only rule: ACKs see only the link
        assert!(!half.frame_lost(1.0, 0, 1, 0, false, &mut rng));
    }
}
