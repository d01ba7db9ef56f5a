//! Physical layer: 802.11b/g frame timing, propagation (range, two-ray, shadowing,
//! link table) and the per-node radio that decides which frames are received.

pub mod channel;
pub mod error_cache;
pub mod error_model;
pub mod loss;
pub mod propagation;
pub mod radio;
pub mod timing;

pub use channel::{Channel, Link};
pub use radio::Radio;
pub use timing::PhyTiming;
