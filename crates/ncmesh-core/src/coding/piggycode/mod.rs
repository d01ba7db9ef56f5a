//! DATA/ACK coding for TCP: PiggyCode (Scalia, Soldo & Gerla, as Takimoto et al. §II
//! and Chen et al.'s ComboCoding describe it), Takimoto et al.'s wait-time insertion
//! (§III) and wait-time configuration (§IV), and ComboCoding's network-layer timer T
//! (the same wait with T = 4 ms). One implementation; the schemes differ by parameters.

pub mod buffer;
pub mod config;
mod decoding;
pub mod header;
mod recent;
pub mod scheme;

pub use config::{PiggyCfg, PiggyParams, Placement, WaitRule};
pub use header::PiggyHeader;
pub use scheme::PiggyScheme;

crate::family_counters! {
    /// Per-node counters of the DATA/ACK family (result columns `piggy_*`).
    pub struct PiggyCounters, prefix "piggy_" {
        /// DATA packets coded with an ACK at this relay.
        data_coded: "packets",
        /// ACK packets coded with a DATA at this relay.
        ack_coded: "packets",
        /// Coded frames sent (MAC retries not counted).
        coded_tx: "frames",
        /// ACK packets this relay sent uncoded (Takimoto et al.'s Figs. 3, 6, 9).
        ack_uncoded: "packets",
        /// DATA packets that waited in the encoding queue.
        data_waited: "packets",
        /// Total time DATA packets waited, microseconds.
        wait_us_total: "µs",
        /// Longest wait of a DATA packet, microseconds.
        wait_us_max: "µs",
        /// Coded packets that waited in the decoding queue for their partner.
        decode_queued: "packets",
        /// Coded packets dropped because their partner never came.
        decode_failures: "packets",
    }
}
