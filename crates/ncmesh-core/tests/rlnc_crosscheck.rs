//! The codec against an independent implementation, the `rlnc` crate (itzmeanjan, GF(2^8)
//! with the same polynomial): fed the same coded pieces, both decoders call the same pieces
//! useful, and both give back the original bytes at full rank; pieces recoded by `rlnc`'s
//! relay from a partial set are useless to both once that set is held.

use ncmesh_core::coding::rlnc::{Added, Decoder, Gf256};
use rand::{rngs::StdRng, SeedableRng};
use rlnc::full::{Decoder as Their, Encoder, Recoder};
use rlnc::RLNCError;

/// Feeds one full coded piece (coefficients, then data) to both; true if useful.
fn feed(ours: &mut Decoder<Gf256>, theirs: &mut Their, k: usize, piece: &[u8]) -> bool {
    let (coeffs, data) = piece.split_at(k);
    let our = matches!(ours.add(0, coeffs, Some(data)), Added::Innovative { .. });
    let their = match theirs.decode(piece) {
        Ok(()) => true,
        Err(RLNCError::PieceNotUseful) | Err(RLNCError::ReceivedAllPieces) => false,
        Err(e) => panic!("rlnc: {e}"),
    };
    assert_eq!(
        our, their,
        "the two decoders disagree on a piece's usefulness"
    );
    our
}

fn crosscheck(k: usize, data_len: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let data: Vec<u8> = (0..data_len)
        .map(|i| ((i as u64 * 2_654_435_761) ^ seed) as u8)
        .collect();
    let enc = Encoder::new(data.clone(), k).unwrap();
    let piece_len = enc.get_piece_byte_len();
    let mut theirs = Their::new(piece_len, k).unwrap();
    let mut ours = Decoder::<Gf256>::new(0, k);

    // A relay's partial set: the first k/2 pieces, recoded by rlnc's Recoder.
    let partial: Vec<Vec<u8>> = (0..k / 2).map(|_| enc.code(&mut rng)).collect();
    for p in &partial {
        assert!(feed(&mut ours, &mut theirs, k, p));
    }
    let mut recoder =
        Recoder::new(partial.concat(), enc.get_full_coded_piece_byte_len(), k).unwrap();
    for _ in 0..k {
        assert!(
            !feed(&mut ours, &mut theirs, k, &recoder.recode(&mut rng)),
            "a recoded piece of a held set is not useful"
        );
    }
    // Duplicates are useless too; fresh pieces fill the rank.
    assert!(!feed(&mut ours, &mut theirs, k, &partial[0]));
    let mut useful = k / 2;
    while useful < k {
        useful += feed(&mut ours, &mut theirs, k, &enc.code(&mut rng)) as usize;
    }
    assert_eq!(ours.rank(), k);
    let mut mine = Vec::new();
    for i in 0..k as u64 {
        mine.extend_from_slice(ours.decoded_payload(i).expect("decoded at full rank"));
    }
    assert_eq!(&mine[..data_len], &data[..], "our decoded bytes");
    assert_eq!(
        theirs.get_decoded_data().unwrap(),
        data,
        "rlnc's decoded bytes"
    );
}

#[test]
fn both_decoders_agree_piece_by_piece_and_recover_the_same_bytes() {
    for (k, len, seed) in [
        (4, 1000, 1),
        (16, 16 * 1460, 2),
        (32, 5000, 3),
        (64, 64 * 100, 4),
    ] {
        crosscheck(k, len, seed);
    }
}
