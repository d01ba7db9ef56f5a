//! Network layer: packets, routes (hop count, ETX, explicit, disjoint paths).

pub mod packet;
pub mod routing;

pub use packet::{DropReason, NodeId, Packet, BROADCAST, IP_HEADER_BYTES, L4};
pub use routing::Routes;
