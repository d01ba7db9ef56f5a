//! Transport protocols: TCP (NewReno, SACK) and UDP, as state machines with no I/O.

pub mod tcp;
pub mod udp;
