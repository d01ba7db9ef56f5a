//! Discrete-event machinery: integer-nanosecond time, the event queue, random streams.

pub mod queue;
pub mod rng;
pub mod time;
pub mod timer;

pub use queue::EventQueue;
pub use rng::{Rng, StreamPurpose};
pub use time::{secs, to_secs, Time, MICROS, MILLIS, SECOND};
pub use timer::TimerSlot;
