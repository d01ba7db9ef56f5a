//! Network layer: packets, the routing graph, routes (hop count, ETX, explicit,
//! reinforced paths, costs), forwarding, and spreading a flow over its paths.

pub mod aodv;
pub mod drop;
pub mod forward;
pub mod graph;
pub mod route_view;
pub mod routing;
pub mod spread;

pub use crate::wire::{NodeId, Packet, BROADCAST, IP_HEADER_BYTES, L4};
pub use drop::DropReason;
pub use forward::{forward, Forward};
pub use route_view::RouteView;
pub use routing::{NextHop, NextHops, PathCost, Routes};
pub use spread::Turns;
