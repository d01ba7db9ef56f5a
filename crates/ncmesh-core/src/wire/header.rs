//! A coding family's header: its fields on the air, which size the frame, and its block
//! in packet captures.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

/// A coding family's per-hop header (its fields, per-hop feedback included). Each
/// family implements it beside its code; the simulator and the captures use it without
/// knowing the family.
pub trait WireHeader: Any + Debug + Send + Sync {
    /// Length on the air, bytes.
    fn bytes(&self) -> u32;
    /// The 64-bit tag of the ncmesh capture header (docs/pcap.md): what the family
    /// wants a capture reader to see first (e.g. coded or not).
    fn pcap_tag(&self) -> u64 {
        0
    }
    /// Length of the family's block in the ncmesh capture header, bytes.
    fn pcap_len(&self) -> usize;
    /// Writes the family's block (`pcap_len` bytes) into a capture.
    fn write_pcap(&self, out: &mut Vec<u8>);
}

/// A shared, immutable family header: cloning a frame (each transmission attempt puts a
/// copy on the air) only counts a reference.
pub type Header = Arc<dyn WireHeader>;

/// `h` as the family's type `H`, if it is one (how a family reads its header back).
pub fn downcast<H: WireHeader>(h: &dyn WireHeader) -> Option<&H> {
    let any: &dyn Any = h;
    any.downcast_ref::<H>()
}

/// The same header (the same shared object), or both absent.
pub(crate) fn same_header(a: &Option<Header>, b: &Option<Header>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        _ => false,
    }
}
