//! How a coder generic over the field writes and reads the coefficient vectors a
//! combination carries (`wire::Coeffs`, one variant per field).

use super::field::{Field, Gf256, Gf65536};
use crate::wire::Coeffs;

/// A field whose coefficient vectors travel as one of the `Coeffs` variants: how a coder
/// generic over the field writes and reads them.
pub trait FieldCoeffs: Field {
    /// The vector `c` as carried.
    fn wrap(c: &[Self::Elem]) -> Coeffs;
    /// The carried vector, if it is over this field.
    fn view(c: &Coeffs) -> Option<&[Self::Elem]>;
}

impl FieldCoeffs for Gf256 {
    fn wrap(c: &[u8]) -> Coeffs {
        Coeffs::Gf256(c.into())
    }
    fn view(c: &Coeffs) -> Option<&[u8]> {
        match c {
            Coeffs::Gf256(v) => Some(v),
            Coeffs::Gf65536(_) => None,
        }
    }
}

impl FieldCoeffs for Gf65536 {
    fn wrap(c: &[u16]) -> Coeffs {
        Coeffs::Gf65536(c.into())
    }
    fn view(c: &Coeffs) -> Option<&[u16]> {
        match c {
            Coeffs::Gf65536(v) => Some(v),
            Coeffs::Gf256(_) => None,
        }
    }
}
