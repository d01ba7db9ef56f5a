//! Network layer: packets, routes (hop count, ETX, explicit, disjoint paths).

pub mod packet;
pub mod routing;

pub use packet::{DropReason, L4, NodeId, Packet, BROADCAST, IP_HEADER_BYTES};
pub use routing::Routes;
