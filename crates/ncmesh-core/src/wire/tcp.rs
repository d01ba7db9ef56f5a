//! TCP segment header as carried in simulated packets.
//!
//! Only the fields the simulator needs are modelled: byte sequence numbers are `u64`
//! and never wrap, there are no flags (the connection exists from creation and is
//! never closed), and the only option is SACK (RFC 2018).

/// Fixed TCP header size without options, bytes (RFC 9293 section 3.1).
pub const TCP_HEADER_BYTES: u32 = 20;

/// Most SACK blocks one segment carries. Three fit in the 40 option bytes next to
/// the timestamp option, which is what real stacks send (RFC 2018 section 3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// One SACK block: the half-open byte range `[start, end)` held by the receiver
/// above the cumulative ACK. `end` is the sequence number just past the block, as on
/// the wire (RFC 2018 section 3, "right edge").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SackBlock {
    /// First byte of the block.
    pub start: u64,
    /// Just past the block's last byte.
    pub end: u64,
}

impl SackBlock {
    /// The block `[start, end)`.
    pub fn new(start: u64, end: u64) -> Self {
        debug_assert!(start <= end);
        SackBlock { start, end }
    }

    /// Bytes covered.
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    /// Covers no byte.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// A TCP header. Data segments set `seq` and `len`; ACKs set `ack`, `wnd` and the
/// SACK blocks (the first `nsack` entries of `sack` are valid).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpHeader {
    /// Sequence number of the first payload byte.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Cumulative acknowledgment: the next byte the receiver expects.
    pub ack: u64,
    /// Advertised receive window, bytes.
    pub wnd: u32,
    /// SACK blocks (RFC 2018), most recently changed first.
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    /// Number of valid entries in `sack`.
    pub nsack: u8,
}

impl TcpHeader {
    /// A data segment header for `[seq, seq + len)`.
    pub fn data(seq: u64, len: u32) -> Self {
        TcpHeader {
            seq,
            len,
            ..Default::default()
        }
    }

    /// Header bytes on the wire: 20, plus the SACK option when blocks are present,
    /// padded with two NOPs to a 4-byte boundary: NOP, NOP, kind, length, then 8 bytes
    /// per block (RFC 2018 section 3).
    pub fn wire_bytes(&self) -> u32 {
        let n = self.sack_blocks().len() as u32;
        if n == 0 {
            TCP_HEADER_BYTES
        } else {
            TCP_HEADER_BYTES + 4 + 8 * n
        }
    }

    /// The valid SACK blocks, most recent first.
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..(self.nsack as usize).min(MAX_SACK_BLOCKS)]
    }

    /// Sequence number just past the payload.
    pub fn end_seq(&self) -> u64 {
        self.seq + self.len as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_bytes_counts_sack_option() {
        let mut h = TcpHeader::data(0, 1000);
        assert_eq!(h.wire_bytes(), 20);
        h.nsack = 1;
        assert_eq!(h.wire_bytes(), 32);
        h.nsack = 2;
        assert_eq!(h.wire_bytes(), 40);
        h.nsack = 3;
        assert_eq!(h.wire_bytes(), 48);
        // A corrupt count never reads past the array.
        h.nsack = 9;
        assert_eq!(h.wire_bytes(), 48);
        assert_eq!(h.sack_blocks().len(), 3);
    }

    #[test]
    fn data_header_fields() {
        let h = TcpHeader::data(4000, 1000);
        assert_eq!((h.seq, h.len, h.ack, h.wnd, h.nsack), (4000, 1000, 0, 0, 0));
        assert_eq!(h.end_seq(), 5000);
        assert_eq!(SackBlock::new(10, 30).len(), 20);
    }
}
