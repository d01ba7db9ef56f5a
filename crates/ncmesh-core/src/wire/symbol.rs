//! What coding layers put inside network packets: a linear combination of a flow's
//! packets (intra-flow coding: Pipeline coding, TCP/NC, MORE, CoMP), and a layer's own
//! messages (MORE's batch acknowledgement, CoMP's feedback), which route like any packet.

use super::header::{downcast, same_header, Header, WireHeader};
use super::packet::{NodeId, Packet, IP_HEADER_BYTES, L4};
use std::sync::Arc;

/// Which of a flow's packets a combination spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// Generation `id` of `size` packets (Pipeline coding, MORE's batches).
    Generation {
        /// Generation number within the flow.
        id: u32,
        /// Packets in the generation.
        size: u16,
    },
    /// The sliding window of `len` packets from the `first` (TCP/NC, CoMP).
    Window {
        /// Index of the window's first packet in the flow.
        first: u64,
        /// Packets in the window.
        len: u16,
    },
}

/// The coefficient vector of a combination, one coefficient per spanned packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Coeffs {
    /// Over GF(2^8) (Pipeline coding, ComboCoding, MORE).
    Gf256(Box<[u8]>),
    /// Over GF(2^16) (CoMP).
    Gf65536(Box<[u16]>),
}

impl Coeffs {
    /// Coefficients in the vector.
    pub fn len(&self) -> usize {
        match self {
            Coeffs::Gf256(c) => c.len(),
            Coeffs::Gf65536(c) => c.len(),
        }
    }

    /// An empty vector?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes on the wire.
    pub fn bytes(&self) -> u32 {
        match self {
            Coeffs::Gf256(c) => c.len() as u32,
            Coeffs::Gf65536(c) => 2 * c.len() as u32,
        }
    }
}

/// A packet whose content is a linear combination of a flow's packets.
#[derive(Debug, Clone)]
pub struct CodedSymbol {
    /// The packets combined.
    pub span: Span,
    /// The coefficient of each.
    pub coeffs: Coeffs,
    /// The combination of the spanned packets' bytes, when the scenario carries payload
    /// bytes (`simulation.payload_bytes`); a decoder recovers each packet's bytes from it.
    pub payload: Option<Box<[u8]>>,
    /// The spanned packets as their source sent them, shared by every combination of
    /// the span: what decoding gives back. The simulator's stand-in for the headers
    /// inside the combined bytes; a decoder reads a packet only once its algebra says the
    /// packet is decoded (and, with payload bytes, takes the bytes it decoded itself).
    pub natives: Arc<[Packet]>,
    /// The coding family's end-to-end header fields (sizes the packet; capture block).
    pub header: Option<Header>,
}

impl CodedSymbol {
    /// This combination as a packet of its packets' flow from `src` to `dst`: as long as
    /// the longest packet it spans plus `header_bytes` (the family's header and the code
    /// vector). Its uid, creation time and TTL are set where it is sent.
    pub fn into_packet(self, src: NodeId, dst: NodeId, header_bytes: u32) -> Packet {
        let spanned = match self.span {
            Span::Generation { size, .. } => size,
            Span::Window { len, .. } => len,
        };
        let spanned = (spanned as usize).min(self.natives.len());
        let longest = self.natives[..spanned]
            .iter()
            .map(|p| p.ip_bytes)
            .max()
            .unwrap_or(0);
        Packet {
            uid: 0,
            flow: self.natives[0].flow,
            src,
            dst,
            ttl: 0,
            ip_bytes: longest + header_bytes,
            created: 0,
            l4: L4::Coded(Arc::new(self)),
            payload: None,
        }
    }

    /// The family header, if it is one of type `H` (as `Body::header_as`).
    pub fn header_as<H: WireHeader>(&self) -> Option<&H> {
        downcast(self.header.as_deref()?)
    }
}

impl PartialEq for CodedSymbol {
    fn eq(&self, o: &CodedSymbol) -> bool {
        self.span == o.span
            && self.coeffs == o.coeffs
            && self.payload == o.payload
            && self.natives == o.natives
            && same_header(&self.header, &o.header)
    }
}

/// A coding layer's own message, addressed to the same layer at the packet's destination.
#[derive(Debug, Clone)]
pub struct ControlMsg {
    /// The layer it is for.
    pub layer: Layer,
    /// Its fields (the family's type, read back with `fields_as`).
    pub fields: Header,
}

impl ControlMsg {
    /// A packet carrying `fields` for `layer` of flow `flow` from `src` to `dst` (IP
    /// header plus the fields' bytes); its uid, creation time and TTL are set by the
    /// simulator when the coding layer sends it.
    pub fn packet<H: WireHeader>(
        layer: Layer,
        fields: H,
        flow: u32,
        src: NodeId,
        dst: NodeId,
    ) -> Packet {
        Packet {
            uid: 0,
            flow,
            src,
            dst,
            ttl: 0,
            ip_bytes: IP_HEADER_BYTES + fields.bytes(),
            created: 0,
            l4: L4::Control(ControlMsg {
                layer,
                fields: Arc::new(fields),
            }),
            payload: None,
        }
    }

    /// The message's fields, if of type `H`.
    pub fn fields_as<H: WireHeader>(&self) -> Option<&H> {
        downcast(&*self.fields)
    }
}

impl PartialEq for ControlMsg {
    fn eq(&self, o: &ControlMsg) -> bool {
        self.layer == o.layer && Arc::ptr_eq(&self.fields, &o.fields)
    }
}

/// The two coding layers of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The per-hop (inter-flow) coder at the interface queue (`CodingScheme`).
    Hop,
    /// The end-to-end (intra-flow) coder between transport and network (`FlowCoder`).
    Flow,
}
