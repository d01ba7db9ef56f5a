//! Random linear network coding over GF(2^8) and GF(2^16): the codec of the intra-flow and
//! multipath families (Pipeline coding and ComboCoding, Chen et al.; TCP/NC, MORE and
//! CoMP, Gheorghiu et al.).
//!
//! - `field`: the two fields, with table arithmetic over elements and payload bytes;
//! - `field_simd`: its SSSE3 and AVX2 kernels for whole rows;
//! - `encoder`: a source's random combination of the packets it holds;
//! - `decoder`: progressive elimination, with rank, innovativeness, packets decoded on
//!   arrival, TCP/NC's seen packets, sliding windows and relay recoding.
//!
//! By default the simulator computes coefficients only; with `simulation.payload_bytes`
//! it combines and decodes the payload bytes as well, and the tests compare every decoded
//! packet with the original.

pub mod coeffs;
pub mod decoder;
pub mod encoder;
pub mod field;
mod field_simd;
pub mod standins;

pub use coeffs::FieldCoeffs;
pub use decoder::{Added, Decoder};
pub use encoder::{combine, combine_packets, random_coeffs};
pub use field::{Field, Gf256, Gf65536};
pub use standins::StandIns;

#[cfg(test)]
mod tests;
