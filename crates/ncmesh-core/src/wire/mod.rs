//! What travels: the packet and the headers it carries (IP, TCP, UDP), a coded symbol
//! (a linear combination of a flow's packets), a coding layer's control message and the
//! coding family's header. The bottom layer (smoltcp's `wire`): it imports nothing of the
//! crate but the time type, so the network layer reads packets without knowing transport
//! or coding, and every layer above builds them.

pub mod aodv;
pub mod header;
pub mod packet;
pub mod symbol;
pub mod tcp;
pub mod udp;

pub use header::{Header, WireHeader};
pub use packet::{NodeId, Packet, BROADCAST, IP_HEADER_BYTES, L4};
pub use symbol::{CodedSymbol, Coeffs, ControlMsg, Layer, Span};
pub use tcp::{SackBlock, TcpHeader, MAX_SACK_BLOCKS, TCP_HEADER_BYTES};
pub use udp::{UdpHeader, UDP_HEADER_BYTES};
