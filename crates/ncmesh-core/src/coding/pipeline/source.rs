//! A flow direction's source (Chen et al. Eq. 1): each packet joins the current
//! generation and triggers combinations of the packets in it so far, r per packet on
//! average; after k packets the next generation begins.

use super::config::PipelineParams;
use super::header::PipelineHeader;
use crate::coding::rlnc::{combine_packets, random_coeffs, Gf256};
use crate::coding::{CodedSymbol, Coeffs, Header, Span};
use crate::engine::{Rng, Time};
use crate::net::{NodeId, Packet};
use std::sync::Arc;

/// Bytes a coded packet adds to the longest packet it spans: generation number (4),
/// packets spanned (1), the previous generation's length (1), one coefficient per packet
/// (docs/assumptions.md).
pub(super) fn header_bytes(spanned: usize) -> u32 {
    6 + spanned as u32
}

/// A coded packet of generation `gen` over `natives[..coeffs.len()]`, from `src` to `dst`.
pub(super) fn coded_packet(
    src: NodeId,
    gen: u32,
    natives: &Arc<[Packet]>,
    coeffs: &[u8],
    payload: Option<Box<[u8]>>,
    header: &Header,
) -> Packet {
    let m = coeffs.len();
    CodedSymbol {
        span: Span::Generation {
            id: gen,
            size: m as u16,
        },
        coeffs: Coeffs::Gf256(coeffs.into()),
        payload,
        natives: natives.clone(),
        header: Some(header.clone()),
    }
    .into_packet(src, natives[0].dst, header_bytes(m))
}

/// One flow direction's source state.
#[derive(Debug)]
pub(super) struct Source {
    gen: u32,
    /// The open generation's header (the previous generation's length).
    header: Header,
    natives: Vec<Packet>,
    /// When the last packet joined the open generation.
    last: Time,
    credit: f64,
    coeffs: Vec<u8>,
    buf: Vec<u8>,
}

impl Default for Source {
    fn default() -> Source {
        Source {
            gen: 0,
            header: Arc::new(PipelineHeader {
                prev_len: 0,
                feedback: None,
            }),
            natives: Vec::new(),
            last: 0,
            credit: 0.0,
            coeffs: Vec::new(),
            buf: Vec::new(),
        }
    }
}

impl Source {
    /// Closes the open generation: the next packet starts generation `gen + 1`.
    fn close(&mut self) {
        self.header = Arc::new(PipelineHeader {
            prev_len: self.natives.len() as u16,
            feedback: None,
        });
        self.gen += 1;
        self.natives.clear();
    }

    /// Packet `p` from the transport of `node` at `now`: joins the generation; the combinations it triggers
    /// (`redundancy` per packet on average) go to `send`. Returns the generation and how
    /// many were sent.
    pub(super) fn push(
        &mut self,
        (now, node): (Time, NodeId),
        p: Packet,
        redundancy: f64,
        params: &PipelineParams,
        rng: &mut Rng,
        send: &mut impl FnMut(Packet),
    ) -> (u32, u64) {
        if !self.natives.is_empty() && now - self.last > params.close_idle {
            self.close();
        }
        self.last = now;
        self.natives.push(p);
        let natives: Arc<[Packet]> = self.natives.as_slice().into();
        let m = natives.len();
        self.credit += redundancy;
        let (gen, mut sent) = (self.gen, 0);
        while self.credit >= 1.0 {
            self.credit -= 1.0;
            random_coeffs::<Gf256>(rng, m, &mut self.coeffs);
            let payload = combine_packets::<Gf256>(&self.coeffs, &natives, &mut self.buf);
            send(coded_packet(
                node,
                self.gen,
                &natives,
                &self.coeffs,
                payload,
                &self.header,
            ));
            sent += 1;
        }
        if m == params.generation_size {
            self.close();
        }
        (gen, sent)
    }
}
