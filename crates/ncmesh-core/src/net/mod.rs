//! Network layer: packets, the routing graph, routes (hop count, ETX, explicit,
//! reinforced paths, costs) and forwarding.

pub mod forward;
pub mod graph;
pub mod packet;
pub mod routing;

pub use forward::{forward, Forward};
pub use packet::{DropReason, NodeId, Packet, BROADCAST, IP_HEADER_BYTES, L4};
pub use routing::{NextHop, NextHops, PathCost, Routes};
