//! Transport protocols: TCP (NewReno, SACK) and UDP, as state machines with no I/O, and
//! a flow's two ends around them (`endpoint`).

pub mod endpoint;
pub mod tcp;
