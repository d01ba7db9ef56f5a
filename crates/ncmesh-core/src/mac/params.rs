//! The MAC's configuration, validated from the scenario's `[mac]` table.

use crate::phy::PhyTiming;
use crate::scenario::schema::MacCfg;

/// Timing and limits one station works with.
#[derive(Debug, Clone)]
pub struct MacParams {
    /// Slot, SIFS, DIFS, EIFS, CWmin/CWmax, rates and airtimes of the PHY in use.
    pub timing: PhyTiming,
    /// Unicast frames with a longer MPDU go after an RTS/CTS exchange
    /// (dot11RTSThreshold, 10.3.2.5 and 10.3.5).
    pub(crate) rts_threshold: u32,
    /// Max transmission attempts for frames not protected by RTS/CTS, and for RTS
    /// (dot11ShortRetryLimit, 10.3.4.4).
    pub(crate) short_attempts: u32,
    /// Max transmission attempts for frames sent after RTS/CTS (dot11LongRetryLimit).
    pub(crate) long_attempts: u32,
    /// CW back to CWmin after a drop at the retry limit (10.3.3); ns-3 keeps it.
    pub(crate) cw_reset_after_drop: bool,
}

impl MacParams {
    /// The parameters of `[mac]`; with `retransmissions = false` every frame gets one
    /// attempt only.
    pub fn new(cfg: &MacCfg) -> MacParams {
        let (s, l) = if cfg.retransmissions {
            (cfg.short_retry_limit, cfg.long_retry_limit)
        } else {
            (1, 1)
        };
        MacParams {
            timing: PhyTiming::new(cfg),
            rts_threshold: cfg.rts_threshold_bytes,
            short_attempts: s,
            long_attempts: l,
            cw_reset_after_drop: cfg.cw_reset_after_drop,
        }
    }
}
