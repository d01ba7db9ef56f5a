//! Simulated time: integer nanoseconds since the start of the run.

/// A point in simulated time or a duration, nanoseconds.
pub type Time = u64;

/// One microsecond.
pub const MICROS: Time = 1_000;
/// One millisecond.
pub const MILLIS: Time = 1_000_000;
/// One second.
pub const SECOND: Time = 1_000_000_000;

/// Seconds (from a scenario file) to nanoseconds, rounded to the nearest nanosecond.
pub fn secs(s: f64) -> Time {
    debug_assert!(
        s.is_finite() && s >= 0.0,
        "time must be finite and non-negative: {s}"
    );
    (s * 1e9).round() as Time
}

/// Nanoseconds to seconds, for reporting.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        assert_eq!(secs(1.5), 1_500_000_000);
        assert_eq!(secs(0.000_000_001), 1);
        assert_eq!(to_secs(secs(60.0)), 60.0);
    }
}
