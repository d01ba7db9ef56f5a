//! Why a packet left the network undelivered.

/// Why a packet instance left the network without being delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// Interface queue full on arrival (drop-tail) or chosen by a queue policy.
    QueueFull,
    /// MAC gave up after its retry limit.
    RetryLimit,
    /// TTL reached zero.
    Ttl,
    /// No route to the destination.
    NoRoute,
    /// Waited for a route that on-demand routing did not find: AODV's route discovery
    /// failed, the packet's wait ran out, or the full buffer pushed it out.
    Discovery,
    /// Discarded by a coding scheme (e.g. a packet it could not decode).
    Scheme,
}
