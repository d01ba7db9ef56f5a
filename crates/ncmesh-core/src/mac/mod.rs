//! IEEE 802.11 DCF MAC: frames and the per-node DCF state machine. The simulator
//! (sim::mac_glue) drives it with medium events.

pub mod dcf;
pub mod frame;

pub use dcf::{Dcf, MacParams, TxState};
pub use frame::{Frame, FrameKind, MacBody, OutFrame};
