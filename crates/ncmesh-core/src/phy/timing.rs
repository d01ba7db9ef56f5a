//! IEEE 802.11b (DSSS/CCK, clause 16/17) and 802.11g (ERP-OFDM, clause 19) timing.

use super::error_model::Modulation;
use super::radio::FrameModes;
use crate::engine::{Time, MICROS};
use crate::scenario::schema::{MacCfg, Preamble, Standard};

/// MAC header (24) + FCS (4) of a data frame.
pub const MAC_DATA_OVERHEAD: u32 = 28;
/// LLC/SNAP header carried in front of every IP packet.
pub const LLC_BYTES: u32 = 8;
/// ACK frame, FCS included (IEEE 802.11-2016 9.3.1.4).
pub const ACK_BYTES: u32 = 14;
/// CTS frame, FCS included (9.3.1.3).
pub const CTS_BYTES: u32 = 14;
/// RTS frame, FCS included (9.3.1.2).
pub const RTS_BYTES: u32 = 20;

/// Interframe spaces, slot, contention window and the rates in use.
#[derive(Debug, Clone)]
pub struct PhyTiming {
    /// 802.11b or g.
    pub standard: Standard,
    /// Long or short PLCP preamble (802.11b).
    pub preamble: Preamble,
    /// aSlotTime.
    pub slot: Time,
    /// aSIFSTime.
    pub sifs: Time,
    /// DIFS = SIFS + 2 slots (10.3.2.3.5).
    pub difs: Time,
    /// aCWmin, slots.
    pub cw_min: u32,
    /// aCWmax, slots.
    pub cw_max: u32,
    /// Rate of data frames, Mbit/s.
    pub data_rate_mbps: f64,
    /// Basic rate (control frames, PLCP of control responses), Mbit/s.
    pub basic_rate_mbps: f64,
    /// Airtime of a MAC ACK (and CTS) at the basic rate.
    pub ack_time: Time,
    /// EIFS = SIFS + ACK airtime at the lowest rate + DIFS (802.11-2016 10.3.2.3.7).
    pub eifs: Time,
    /// PLCP preamble + header of a control response.
    pub response_plcp: Time,
}

impl PhyTiming {
    /// The timing the `[mac]` table selects.
    pub fn new(mac: &MacCfg) -> PhyTiming {
        let (slot, sifs, cw_min) = match mac.standard {
            // 802.11b DSSS PHY characteristics (Table 16-2): 20 us slot, 10 us SIFS, CWmin 31.
            Standard::B => (20 * MICROS, 10 * MICROS, 31),
            // 802.11g ERP with short slots only (19.4.4): 9 us slot, 10 us SIFS, CWmin 15.
            Standard::G => (9 * MICROS, 10 * MICROS, 15),
        };
        let difs = sifs + 2 * slot;
        let mut t = PhyTiming {
            standard: mac.standard,
            preamble: mac.preamble,
            slot,
            sifs,
            difs,
            cw_min: mac.cw_min.unwrap_or(cw_min),
            cw_max: mac.cw_max.unwrap_or(1023),
            data_rate_mbps: mac.data_rate_mbps,
            basic_rate_mbps: mac.basic_rate_mbps,
            ack_time: 0,
            eifs: 0,
            response_plcp: 0,
        };
        t.ack_time = t.airtime(ACK_BYTES, mac.basic_rate_mbps);
        t.eifs = sifs + t.ack_time + difs;
        t.response_plcp = t.plcp(mac.basic_rate_mbps);
        t
    }

    /// PLCP preamble + header duration.
    pub fn plcp(&self, rate_mbps: f64) -> Time {
        match self.standard {
            // Long: 144 us preamble + 48 us header; short (not at 1 Mbps): 72 + 24 (17.2.2).
            Standard::B => {
                if self.preamble == Preamble::Short && rate_mbps > 1.0 {
                    96 * MICROS
                } else {
                    192 * MICROS
                }
            }
            // 16 us training + 4 us SIGNAL (19.3.2.4 / 17.3.2.4).
            Standard::G => 20 * MICROS,
        }
    }

    /// Airtime of an MPDU of `bytes` at `rate_mbps`.
    pub fn airtime(&self, bytes: u32, rate_mbps: f64) -> Time {
        match self.standard {
            Standard::B => {
                // PSDU duration rounded up to whole microseconds (17.3.4: LENGTH field).
                let us = ((bytes as f64 * 8.0) / rate_mbps).ceil() as Time;
                self.plcp(rate_mbps) + us * MICROS
            }
            Standard::G => {
                // 16 SERVICE bits + data + 6 tail bits in 4 us OFDM symbols, plus the
                // 6 us signal extension of ERP-OFDM (19.3.2.4).
                let bits_per_symbol = rate_mbps * 4.0;
                let symbols = ((16.0 + 8.0 * bytes as f64 + 6.0) / bits_per_symbol).ceil() as Time;
                self.plcp(rate_mbps) + symbols * 4 * MICROS + 6 * MICROS
            }
        }
    }

    /// How a frame sent at `rate_mbps` is modulated: PLCP header, then payload.
    pub fn modes(&self, rate_mbps: f64) -> FrameModes {
        let (header, header_rate_mbps) = match self.standard {
            // DSSS PLCP preamble and header at 1 Mbit/s DBPSK (17.2.2; the short
            // preamble's header at 2 Mbit/s is approximated at 1).
            Standard::B => (Modulation::Dbpsk, 1.0),
            // OFDM SIGNAL field: 24 bits, BPSK rate 1/2, over the 20 us PLCP (19.3.2).
            Standard::G => (Modulation::for_rate(Standard::G, 6.0), 1.2),
        };
        FrameModes {
            header_dur: self.plcp(rate_mbps),
            header,
            header_rate_mbps,
            payload: Modulation::for_rate(self.standard, rate_mbps),
            payload_rate_mbps: rate_mbps,
        }
    }

    /// How long a sender waits for the start of a response (ACK or CTS) after its frame
    /// ends: SIFS + slot + the response's PLCP (802.11-2016 10.3.2.9 AckTimeout).
    pub fn response_timeout(&self) -> Time {
        self.sifs + self.slot + self.response_plcp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b() -> PhyTiming {
        PhyTiming::new(&MacCfg::default())
    }

    #[test]
    fn dsss_durations() {
        let t = b();
        // 1076-byte MPDU (1000-byte TCP segment) at 2 Mbps: 192 + 4304 us.
        assert_eq!(t.airtime(1076, 2.0), 4496 * MICROS);
        // ACK at 1 Mbps: 192 + 112 us.
        assert_eq!(t.ack_time, 304 * MICROS);
        assert_eq!(t.difs, 50 * MICROS);
        assert_eq!(t.eifs, (10 + 304 + 50) * MICROS);
        // 11 Mbps rounds up: 1076*8/11 = 782.5 -> 783 us.
        assert_eq!(t.airtime(1076, 11.0), (192 + 783) * MICROS);
    }

    #[test]
    fn ofdm_durations() {
        let mac = MacCfg {
            standard: Standard::G,
            data_rate_mbps: 54.0,
            basic_rate_mbps: 6.0,
            ..MacCfg::default()
        };
        let t = PhyTiming::new(&mac);
        assert_eq!(t.slot, 9 * MICROS);
        assert_eq!(t.difs, 28 * MICROS);
        // 1500 bytes at 54 Mbps: ceil((16+12000+6)/216) = 56 symbols -> 20 + 224 + 6 us.
        assert_eq!(t.airtime(1500, 54.0), 250 * MICROS);
        // ACK at 6 Mbps: ceil((16+112+6)/24) = 6 symbols -> 20 + 24 + 6 us.
        assert_eq!(t.ack_time, 50 * MICROS);
    }
}
