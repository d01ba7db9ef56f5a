//! Node motion: a node starts at its (x, y) and moves in straight lines at constant speed
//! through its waypoints (ns-3's WaypointMobilityModel, ns-2's setdest), then stays at the
//! last one.

use crate::scenario::schema::NodeCfg;

/// Position of a node at time t_s: it starts at (x, y) at t = 0 and moves in straight
/// lines through its waypoints, staying at the last one.
pub fn position_at(n: &NodeCfg, t_s: f64) -> (f64, f64) {
    let (mut t0, mut p0) = (0.0, (n.x, n.y));
    for w in &n.waypoints {
        if t_s <= w.t_s {
            let f = if w.t_s > t0 {
                (t_s - t0) / (w.t_s - t0)
            } else {
                1.0
            };
            return (p0.0 + f * (w.x - p0.0), p0.1 + f * (w.y - p0.1));
        }
        (t0, p0) = (w.t_s, (w.x, w.y));
    }
    p0
}

/// Positions of all nodes at time t_s.
pub fn positions_at(nodes: &[NodeCfg], t_s: f64) -> Vec<(f64, f64)> {
    nodes.iter().map(|n| position_at(n, t_s)).collect()
}

/// Does any node move?
pub fn any_moves(nodes: &[NodeCfg]) -> bool {
    nodes.iter().any(|n| !n.waypoints.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::Waypoint;

    #[test]
    fn waypoint_interpolation() {
        let n = NodeCfg {
            x: 0.0,
            y: 0.0,
            waypoints: vec![
                Waypoint {
                    t_s: 10.0,
                    x: 0.0,
                    y: 0.0,
                },
                Waypoint {
                    t_s: 20.0,
                    x: 100.0,
                    y: 0.0,
                },
                Waypoint {
                    t_s: 30.0,
                    x: 100.0,
                    y: 50.0,
                },
            ],
        };
        assert_eq!(position_at(&n, 5.0), (0.0, 0.0));
        assert_eq!(position_at(&n, 15.0), (50.0, 0.0));
        assert_eq!(position_at(&n, 25.0), (100.0, 25.0));
        assert_eq!(position_at(&n, 99.0), (100.0, 50.0));
    }
}
