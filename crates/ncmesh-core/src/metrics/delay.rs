//! Application-to-application delay of a TCP byte stream (Chen et al., ComboCoding,
//! Table 1 "Delay": from generation at the source application to reception by the
//! destination application).
//!
//! A saturated (bulk) application has its data ready at all times and the simulator
//! keeps no send buffer, so a segment's data is taken as generated when TCP first sends
//! it; it is received when the receiver hands it up in order. The delay thus holds
//! queueing, coding, retransmission and reordering delays, not time spent waiting for
//! the window (docs/assumptions.md).

use crate::engine::{to_secs, Time};
use std::collections::VecDeque;

/// First-send times of the data in flight and the delays of the data delivered.
#[derive(Debug, Default, Clone)]
pub struct StreamDelay {
    /// (end offset, first sent) of each new segment not yet delivered, in stream order.
    in_flight: VecDeque<(u64, Time)>,
    /// The highest end offset ever sent: data below it is a retransmission, even when
    /// it was delivered already (its ACK lost) and nothing is in flight.
    sent_to: u64,
    sum_s: f64,
    count: u64,
}

impl StreamDelay {
    /// TCP sent the stream's bytes up to `end` at `now`; new data when beyond what it
    /// sent before (a retransmission keeps its first time).
    pub fn sent(&mut self, end: u64, now: Time) {
        if end > self.sent_to {
            self.sent_to = end;
            self.in_flight.push_back((end, now));
        }
    }

    /// The receiver has handed up the stream's bytes up to `delivered` at `now`; the
    /// segments that completed count when `counted` (inside the measurement window).
    pub fn delivered(&mut self, delivered: u64, now: Time, counted: bool) {
        while let Some(&(end, t)) = self.in_flight.front() {
            if end > delivered {
                break;
            }
            self.in_flight.pop_front();
            if counted {
                self.sum_s += to_secs(now.saturating_sub(t));
                self.count += 1;
            }
        }
    }

    /// Mean delay of the counted segments, milliseconds (0 without any).
    pub fn mean_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_s / self.count as f64 * 1e3
        }
    }

    /// Segments counted.
    pub fn count(&self) -> u64 {
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::secs;

    #[test]
    fn a_retransmission_keeps_the_first_send_time_and_a_hole_holds_later_data() {
        let mut d = StreamDelay::default();
        d.sent(1000, secs(1.0));
        d.sent(2000, secs(1.1));
        d.sent(1000, secs(2.0)); // retransmission of the first segment
        d.delivered(0, secs(1.2), true); // second segment above a hole: nothing handed up
        assert_eq!(d.count(), 0);
        d.delivered(2000, secs(2.1), true);
        assert_eq!(d.count(), 2);
        // (2.1 - 1.0) and (2.1 - 1.1)
        assert!((d.mean_ms() - 1050.0).abs() < 1e-6);
    }

    #[test]
    fn data_sent_again_after_its_delivery_is_not_counted_twice() {
        let mut d = StreamDelay::default();
        d.sent(1000, secs(1.0));
        d.delivered(1000, secs(1.1), true);
        // Its ACK was lost: TCP times out and sends the delivered segment again.
        d.sent(1000, secs(2.1));
        d.delivered(1000, secs(2.2), true);
        d.sent(2000, secs(2.3));
        d.delivered(2000, secs(2.4), true);
        assert_eq!(d.count(), 2);
        assert!((d.mean_ms() - 100.0).abs() < 1e-6);
    }

    #[test]
    fn only_deliveries_inside_the_window_count() {
        let mut d = StreamDelay::default();
        d.sent(1000, secs(0.5));
        d.sent(2000, secs(0.6));
        d.delivered(1000, secs(0.7), false);
        d.delivered(2000, secs(0.9), true);
        assert_eq!(d.count(), 1);
        assert!((d.mean_ms() - 300.0).abs() < 1e-6);
        assert_eq!(StreamDelay::default().mean_ms(), 0.0);
    }
}
