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

pub use config::{PiggyCfg, PiggyParams, WaitRule};
pub use header::PiggyHeader;
pub use scheme::PiggyScheme;

/// Per-node counters of the DATA/ACK family (result columns `piggy_*`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PiggyCounters {
    /// DATA packets coded with an ACK at this relay.
    pub data_coded: u64,
    /// ACK packets coded with a DATA at this relay.
    pub ack_coded: u64,
    /// Coded frames sent (MAC retries not counted).
    pub coded_tx: u64,
    /// ACK packets this relay sent uncoded (Takimoto et al.'s Figs. 3, 6, 9).
    pub ack_uncoded: u64,
    /// DATA packets that waited in the encoding queue.
    pub data_waited: u64,
    /// Total time DATA packets waited, microseconds.
    pub wait_us_total: u64,
    /// Longest wait of a DATA packet, microseconds.
    pub wait_us_max: u64,
    /// Coded packets that waited in the decoding queue for their partner.
    pub decode_queued: u64,
    /// Coded packets dropped because their partner never came.
    pub decode_failures: u64,
}

impl PiggyCounters {
    /// The counters' names in results, in `values` order.
    pub const NAMES: [&'static str; 9] = [
        "piggy_data_coded",
        "piggy_ack_coded",
        "piggy_coded_tx",
        "piggy_ack_uncoded",
        "piggy_data_waited",
        "piggy_wait_us_total",
        "piggy_wait_us_max",
        "piggy_decode_queued",
        "piggy_decode_failures",
    ];

    /// The counters in `NAMES` order.
    pub fn values(&self) -> [u64; 9] {
        [
            self.data_coded,
            self.ack_coded,
            self.coded_tx,
            self.ack_uncoded,
            self.data_waited,
            self.wait_us_total,
            self.wait_us_max,
            self.decode_queued,
            self.decode_failures,
        ]
    }
}
