//! Mean received power as a function of distance (ns-2 propagation models).

use crate::scenario::schema::ChannelCfg;

const C: f64 = 299_792_458.0;

/// Friis free space: Pt * lambda^2 / (4 pi d)^2 (unit gains, system loss 1).
pub fn friis_w(pt_w: f64, freq_hz: f64, d_m: f64) -> f64 {
    let lambda = C / freq_hz;
    let x = 4.0 * std::f64::consts::PI * d_m;
    pt_w * lambda * lambda / (x * x)
}

/// ns-2 / ns-3 TwoRayGround: Friis below the crossover distance 4 pi ht hr / lambda,
/// Pt ht^2 hr^2 / d^4 beyond it.
pub fn two_ray_w(pt_w: f64, freq_hz: f64, h_m: f64, d_m: f64) -> f64 {
    let lambda = C / freq_hz;
    let crossover = 4.0 * std::f64::consts::PI * h_m * h_m / lambda;
    if d_m <= crossover {
        friis_w(pt_w, freq_hz, d_m.max(1e-3))
    } else {
        pt_w * h_m.powi(2) * h_m.powi(2) / d_m.powi(4)
    }
}

/// ns-2 Shadowing, mean part: Friis at d0, then 10 beta log10(d/d0) dB of path loss.
pub fn log_distance_w(pt_w: f64, freq_hz: f64, d0_m: f64, beta: f64, d_m: f64) -> f64 {
    let p0 = friis_w(pt_w, freq_hz, d0_m);
    if d_m <= d0_m {
        return p0;
    }
    p0 * (d0_m / d_m).powf(beta)
}

/// Mean received power for the physical models (tworay, shadowing).
pub fn mean_power_w(cfg: &ChannelCfg, d_m: f64) -> f64 {
    use crate::scenario::schema::ChannelModel::*;
    match cfg.model {
        Tworay => two_ray_w(cfg.tx_power_w, cfg.frequency_hz, cfg.antenna_height_m, d_m),
        Shadowing => log_distance_w(
            cfg.tx_power_w,
            cfg.frequency_hz,
            cfg.reference_distance_m,
            cfg.path_loss_exponent,
            d_m,
        ),
        Range | Linktable => 1.0,
    }
}

/// Largest distance at which the mean power is still at least `p_w` (bisection; the
/// models are monotone in distance).
pub fn reach_m(cfg: &ChannelCfg, p_w: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while mean_power_w(cfg, hi) >= p_w && hi < 1e7 {
        hi *= 2.0;
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if mean_power_w(cfg, mid) >= p_w {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::ChannelModel;

    #[test]
    fn ns2_two_ray_thresholds_give_250_and_550_m() {
        let cfg = ChannelCfg {
            model: ChannelModel::Tworay,
            ..ChannelCfg::default()
        };
        let rx = reach_m(&cfg, cfg.rx_threshold_w);
        let cs = reach_m(&cfg, cfg.cs_threshold_w);
        assert!((rx - 250.0).abs() < 0.5, "rx range {rx}");
        assert!((cs - 550.0).abs() < 1.0, "cs range {cs}");
    }

    #[test]
    fn friis_below_crossover() {
        // crossover at 914 MHz, 1.5 m antennas is about 86 m.
        let p = two_ray_w(0.2818, 914e6, 1.5, 50.0);
        assert!((p - friis_w(0.2818, 914e6, 50.0)).abs() < 1e-15);
    }

    #[test]
    fn log_distance_slope() {
        let a = log_distance_w(1.0, 914e6, 1.0, 3.0, 10.0);
        let b = log_distance_w(1.0, 914e6, 1.0, 3.0, 100.0);
        assert!(((a / b).log10() * 10.0 - 30.0).abs() < 1e-9);
    }
}
