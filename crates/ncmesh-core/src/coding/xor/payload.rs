//! XOR of payload bytes. A coded frame carries the XOR of its natives' payloads (zero
//! padded to the longest); a next hop XORs out the natives it holds to recover its own.

/// XOR of the given payloads, as long as the longest (missing payloads count as empty).
pub fn xor_all<'a>(payloads: impl Iterator<Item = Option<&'a [u8]>> + Clone) -> Box<[u8]> {
    let len = payloads
        .clone()
        .map(|p| p.map_or(0, |b| b.len()))
        .max()
        .unwrap_or(0);
    let mut out = vec![0u8; len];
    for p in payloads.flatten() {
        for (o, b) in out.iter_mut().zip(p) {
            *o ^= b;
        }
    }
    out.into_boxed_slice()
}

/// Recovers a payload of length `len` from `coded` and the other natives' payloads.
pub fn recover<'a>(
    coded: &[u8],
    others: impl Iterator<Item = Option<&'a [u8]>>,
    len: usize,
) -> Box<[u8]> {
    let mut out = coded.to_vec();
    for p in others.flatten() {
        for (o, b) in out.iter_mut().zip(p) {
            *o ^= b;
        }
    }
    out.truncate(len);
    out.resize(len, 0);
    out.into_boxed_slice()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xor_then_recover_gives_each_payload_back() {
        let a: &[u8] = &[1, 2, 3, 4];
        let b: &[u8] = &[9, 9];
        let c: &[u8] = &[7, 0, 7];
        let all = [Some(a), Some(b), Some(c)];
        let coded = xor_all(all.iter().copied());
        assert_eq!(coded.len(), 4);
        assert_eq!(&*recover(&coded, [Some(b), Some(c)].into_iter(), 4), a);
        assert_eq!(&*recover(&coded, [Some(a), Some(c)].into_iter(), 2), b);
        assert_eq!(&*recover(&coded, [Some(a), Some(b)].into_iter(), 3), c);
    }
}
