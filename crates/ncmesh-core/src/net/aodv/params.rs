//! AODV's configuration parameters with RFC 3561 §10's names and defaults, and the
//! values §10 derives from them.

use crate::engine::{Time, MILLIS};

/// The parameters of one node's AODV (RFC 3561 §10), times in simulator units.
#[derive(Debug, Clone, PartialEq)]
pub struct AodvParams {
    /// ACTIVE_ROUTE_TIMEOUT (3000 ms).
    pub active_route_timeout: Time,
    /// ALLOWED_HELLO_LOSS (2).
    pub allowed_hello_loss: u32,
    /// HELLO_INTERVAL (1000 ms).
    pub hello_interval: Time,
    /// Broadcast HELLO messages (§6.9, optional; off: link breaks only from the MAC).
    pub hello: bool,
    /// K of DELETE_PERIOD = K * max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL) (5).
    pub k: u32,
    /// LOCAL_ADD_TTL (2).
    pub local_add_ttl: u8,
    /// Repair a broken link locally (§6.12, optional).
    pub local_repair: bool,
    /// NET_DIAMETER (35).
    pub net_diameter: u8,
    /// NODE_TRAVERSAL_TIME (40 ms).
    pub node_traversal_time: Time,
    /// RERR_RATELIMIT (10 per second).
    pub rerr_ratelimit: u32,
    /// RREQ_RETRIES (2).
    pub rreq_retries: u32,
    /// RREQ_RATELIMIT (10 per second).
    pub rreq_ratelimit: u32,
    /// TIMEOUT_BUFFER (2).
    pub timeout_buffer: u32,
    /// TTL_START (1).
    pub ttl_start: u8,
    /// TTL_INCREMENT (2).
    pub ttl_increment: u8,
    /// TTL_THRESHOLD (7).
    pub ttl_threshold: u8,
    /// Packets waiting for a route, at most (RFC 3561 §6.3 leaves the buffer to the
    /// implementation; ns-3's MaxQueueLen 64).
    pub buffer_packets: usize,
    /// How long a packet waits for a route at most (ns-3's MaxQueueTime 30 s).
    pub buffer_time: Time,
    /// Forwarded RREQs wait a uniform [0, jitter] before going out (RFC 5148 §5; ns-3's
    /// 10 ms), so that neighbours do not rebroadcast in step.
    pub jitter: Time,
    /// Set the D flag on RREQs this node originates (§5.1).
    pub dest_only: bool,
    /// Set the G flag on RREQs this node originates (§6.6.3).
    pub gratuitous_rrep: bool,
    /// Increment a broken route's destination sequence number (§6.11; ns-3 3.44 does
    /// not).
    pub increment_seqno_on_break: bool,
    /// A RREQ makes an invalid reverse route valid (§6.5; ns-3 3.44 leaves it invalid).
    pub rreq_revalidates_route: bool,
}

impl Default for AodvParams {
    /// RFC 3561 §10's defaults: those of the scenario's `[routing.aodv]` (one source).
    fn default() -> Self {
        AodvParams::from_cfg(&crate::scenario::schema::AodvCfg::default())
    }
}

impl AodvParams {
    /// The parameters of a scenario's `[routing.aodv]` table (validated).
    pub fn from_cfg(c: &crate::scenario::schema::AodvCfg) -> AodvParams {
        let ms = |v: u32| Time::from(v) * MILLIS;
        let ttl = |v: u32| v.min(255) as u8;
        AodvParams {
            active_route_timeout: ms(c.active_route_timeout_ms),
            allowed_hello_loss: c.allowed_hello_loss,
            hello_interval: ms(c.hello_interval_ms),
            hello: c.hello,
            k: c.delete_period_k,
            local_add_ttl: ttl(c.local_add_ttl),
            local_repair: c.local_repair,
            net_diameter: ttl(c.net_diameter),
            node_traversal_time: ms(c.node_traversal_time_ms),
            rerr_ratelimit: c.rerr_ratelimit,
            rreq_retries: c.rreq_retries,
            rreq_ratelimit: c.rreq_ratelimit,
            timeout_buffer: c.timeout_buffer,
            ttl_start: ttl(c.ttl_start),
            ttl_increment: ttl(c.ttl_increment),
            ttl_threshold: ttl(c.ttl_threshold),
            buffer_packets: c.buffer_packets as usize,
            buffer_time: ms(c.buffer_time_ms),
            jitter: ms(c.jitter_ms),
            dest_only: c.destination_only,
            gratuitous_rrep: c.gratuitous_rrep,
            increment_seqno_on_break: c.increment_seqno_on_break,
            rreq_revalidates_route: c.rreq_revalidates_route,
        }
    }

    /// NET_TRAVERSAL_TIME = 2 * NODE_TRAVERSAL_TIME * NET_DIAMETER.
    pub fn net_traversal_time(&self) -> Time {
        2 * self.node_traversal_time * Time::from(self.net_diameter)
    }

    /// PATH_DISCOVERY_TIME = 2 * NET_TRAVERSAL_TIME.
    pub fn path_discovery_time(&self) -> Time {
        2 * self.net_traversal_time()
    }

    /// MY_ROUTE_TIMEOUT = 2 * ACTIVE_ROUTE_TIMEOUT.
    pub fn my_route_timeout(&self) -> Time {
        2 * self.active_route_timeout
    }

    /// DELETE_PERIOD = K * max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL).
    pub fn delete_period(&self) -> Time {
        Time::from(self.k) * self.active_route_timeout.max(self.hello_interval)
    }

    /// RING_TRAVERSAL_TIME = 2 * NODE_TRAVERSAL_TIME * (TTL_VALUE + TIMEOUT_BUFFER).
    pub fn ring_traversal_time(&self, ttl: u8) -> Time {
        2 * self.node_traversal_time * (Time::from(ttl) + Time::from(self.timeout_buffer))
    }

    /// MAX_REPAIR_TTL = 0.3 * NET_DIAMETER (rounded down).
    pub fn max_repair_ttl(&self) -> u8 {
        (u32::from(self.net_diameter) * 3 / 10) as u8
    }

    /// ALLOWED_HELLO_LOSS * HELLO_INTERVAL: a neighbour silent this long is gone (§6.9).
    pub fn hello_lifetime(&self) -> Time {
        Time::from(self.allowed_hello_loss) * self.hello_interval
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scenario_defaults_are_the_rfc_defaults() {
        let c = crate::scenario::schema::AodvCfg::default();
        assert_eq!(AodvParams::from_cfg(&c), AodvParams::default());
    }

    #[test]
    fn derived_values_of_rfc_3561_10() {
        let p = AodvParams::default();
        assert_eq!(p.net_traversal_time(), 2800 * MILLIS);
        assert_eq!(p.path_discovery_time(), 5600 * MILLIS);
        assert_eq!(p.my_route_timeout(), 6000 * MILLIS);
        assert_eq!(p.delete_period(), 15_000 * MILLIS);
        assert_eq!(p.ring_traversal_time(1), 240 * MILLIS);
        assert_eq!(p.max_repair_ttl(), 10);
    }
}
