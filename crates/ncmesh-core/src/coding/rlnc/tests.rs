//! The codec's behaviour: decoding of random and lower-triangular systems with real
//! payload bytes, partial recovery (Chen et al. Fig. 1), innovativeness against an
//! independent rank computation, TCP/NC's seen packets, sliding, and relay recoding.

use super::*;
use crate::engine::rng::StreamPurpose;
use crate::engine::Rng;

fn rng(seed: u64) -> Rng {
    Rng::stream(seed, 0, StreamPurpose::FlowCoding)
}

/// k random payloads of 1..=len bytes (varied lengths: TCP segments and ACKs mix).
fn natives(r: &mut Rng, k: usize, len: usize) -> Vec<Vec<u8>> {
    (0..k)
        .map(|_| {
            let n = 1 + r.below_incl(len as u32 - 1) as usize;
            (0..n).map(|_| r.next_u64() as u8).collect()
        })
        .collect()
}

/// The combination of natives first.. with `coeffs`, as a source sends it.
fn symbol<F: Field>(nat: &[Vec<u8>], first: usize, coeffs: &[F::Elem]) -> Vec<u8> {
    let views: Vec<&[u8]> = nat[first..first + coeffs.len()]
        .iter()
        .map(|p| &p[..])
        .collect();
    let mut out = Vec::new();
    combine::<F>(coeffs, &views, &mut out);
    out
}

fn assert_decoded<F: Field>(d: &Decoder<F>, nat: &[Vec<u8>], idx: usize) {
    let got = d.decoded_payload(idx as u64).expect("decoded with payload");
    assert_eq!(
        &got[..nat[idx].len()],
        &nat[idx][..],
        "packet {idx}'s bytes"
    );
    assert!(
        got[nat[idx].len()..].iter().all(|&b| b == 0),
        "padding of {idx}"
    );
}

/// The rank of a set of vectors by plain Gaussian elimination on a copy: an oracle
/// independent of the decoder's incremental form.
fn rank_of<F: Field>(vs: &[Vec<F::Elem>]) -> usize {
    let mut m: Vec<Vec<F::Elem>> = vs.to_vec();
    let cols = m.iter().map(Vec::len).max().unwrap_or(0);
    let mut rank = 0;
    for c in 0..cols {
        let Some(p) = (rank..m.len()).find(|&r| m[r][c] != F::ZERO) else {
            continue;
        };
        m.swap(rank, p);
        let inv = F::inv(m[rank][c]).unwrap();
        let pivot: Vec<F::Elem> = m[rank].iter().map(|&x| F::mul(x, inv)).collect();
        for (r, row) in m.iter_mut().enumerate() {
            if r != rank && row[c] != F::ZERO {
                let f = row[c];
                for (x, &y) in row.iter_mut().zip(&pivot) {
                    *x = F::add(*x, F::mul(f, y));
                }
            }
        }
        rank += 1;
    }
    rank
}

fn random_system_decodes<F: Field>(k: usize) {
    let mut r = rng(k as u64);
    let nat = natives(&mut r, k, 1500);
    let mut d = Decoder::<F>::new(0, k);
    let mut c = Vec::new();
    let mut got = 0;
    let mut sent = 0;
    while d.rank() < k {
        random_coeffs::<F>(&mut r, k, &mut c);
        d.add(0, &c, Some(&symbol::<F>(&nat, 0, &c)));
        got += d.newly_decoded().len();
        sent += 1;
        // A dense system decodes only at full rank.
        assert_eq!(d.newly_decoded().is_empty(), d.rank() < k);
    }
    assert!(sent <= k + 2, "{} random combinations for rank {k}", sent);
    assert_eq!(got, k);
    for i in 0..k {
        assert_decoded(&d, &nat, i);
    }
}

#[test]
fn random_systems_decode_to_the_exact_bytes() {
    for k in [1, 16, 32, 64] {
        random_system_decodes::<Gf256>(k);
        random_system_decodes::<Gf65536>(k);
    }
}

fn pipeline_decodes_on_arrival<F: Field>() {
    // Chen et al. Eq. 2: c_m combines p_1..p_m, so each arrival decodes p_m at once.
    let k = 16;
    let mut r = rng(5);
    let nat = natives(&mut r, k, 1500);
    let mut d = Decoder::<F>::new(0, k);
    let mut c = Vec::new();
    for m in 1..=k {
        random_coeffs::<F>(&mut r, m, &mut c);
        let added = d.add(0, &c, Some(&symbol::<F>(&nat, 0, &c)));
        assert_eq!(added, Added::Innovative { seen: m as u64 - 1 });
        assert_eq!(d.newly_decoded(), &[m as u64 - 1]);
        assert_decoded(&d, &nat, m - 1);
        assert_eq!(d.first_undecoded(), m as u64);
    }
}

#[test]
fn a_lower_triangular_system_decodes_on_arrival() {
    pipeline_decodes_on_arrival::<Gf256>();
    pipeline_decodes_on_arrival::<Gf65536>();
}

#[test]
fn losing_c10_loses_p7_and_p8_but_not_p5_and_p6() {
    // Chen et al. Fig. 1's second generation (p5..p8, k = 4, r = 1.25: five combinations
    // c6..c10), in the pipeline's lower-triangular order, with the redundant combination
    // sent while p5 and p6 were the generation's packets and c9, c10 the two covering p7
    // and p8. c10 is lost: the decoder must deliver p5 and p6 and neither p7 nor p8.
    let mut r = rng(10);
    let nat = natives(&mut r, 4, 200);
    let mut d = Decoder::<Gf256>::new(5, 4);
    let spans = [1usize, 2, 2, 4]; // c6, c7, c8, c9 (c10, span 4, lost)
    let mut c = Vec::new();
    let mut decoded = Vec::new();
    for m in spans {
        random_coeffs::<Gf256>(&mut r, m, &mut c);
        d.add(5, &c, Some(&symbol::<Gf256>(&nat, 0, &c)));
        decoded.extend_from_slice(d.newly_decoded());
    }
    assert_eq!(decoded, vec![5, 6]);
    assert_eq!(d.rank(), 3);
    assert!(!d.is_decoded(7) && !d.is_decoded(8));
    assert_eq!(d.first_undecoded(), 7);
    for (i, p) in [5u64, 6].iter().enumerate() {
        assert_eq!(&d.decoded_payload(*p).unwrap()[..nat[i].len()], &nat[i][..]);
    }
    // With c10 they decode.
    random_coeffs::<Gf256>(&mut r, 4, &mut c);
    d.add(5, &c, Some(&symbol::<Gf256>(&nat, 0, &c)));
    assert_eq!(d.newly_decoded(), &[7, 8]);
    assert_eq!(&d.decoded_payload(8).unwrap()[..nat[3].len()], &nat[3][..]);
}

fn innovative_iff_rank_rises<F: Field>(draw: impl Fn(&mut Rng) -> F::Elem) {
    // Sparse random vectors over 12 packets (many dependent ones): the decoder's verdict
    // and rank equal a plain elimination of all vectors so far.
    let mut r = rng(21);
    for trial in 0..200 {
        let mut d = Decoder::<F>::new(0, 4); // grows
        let mut all: Vec<Vec<F::Elem>> = Vec::new();
        for _ in 0..16 {
            let first = r.below_incl(8) as usize;
            let len = 1 + r.below_incl((12 - first - 1) as u32) as usize;
            let mut v: Vec<F::Elem> = (0..len)
                .map(|_| if r.chance(0.5) { F::ZERO } else { draw(&mut r) })
                .collect();
            if trial % 3 == 0 {
                v.iter_mut().for_each(|x| {
                    if *x != F::ZERO {
                        *x = F::ONE
                    }
                });
            }
            let mut full = vec![F::ZERO; 12];
            full[first..first + len].copy_from_slice(&v);
            let before = rank_of::<F>(&all);
            all.push(full);
            let after = rank_of::<F>(&all);
            let probe = d.is_innovative(first as u64, &v);
            let added = d.add(first as u64, &v, None);
            assert_eq!(probe, after > before);
            assert_eq!(matches!(added, Added::Innovative { .. }), after > before);
            assert_eq!(d.rank(), after);
            // Seen packets are the pivots: as many as the rank.
            assert_eq!((0..12).filter(|&i| d.is_seen(i)).count(), after);
        }
    }
}

#[test]
fn innovativeness_and_rank_agree_with_plain_elimination() {
    innovative_iff_rank_rises::<Gf256>(|r| r.next_u64() as u8);
    innovative_iff_rank_rises::<Gf65536>(|r| r.next_u64() as u16);
}

#[test]
fn each_innovative_combination_sees_exactly_one_new_packet() {
    // TCP/NC (Sundararajan et al. §IV): combinations over a window [first, first + len)
    // that slides forward; the receiver acknowledges the first unseen packet.
    let mut r = rng(33);
    let mut d = Decoder::<Gf65536>::new(0, 8);
    let mut c = Vec::new();
    let mut acks = Vec::new();
    // The sender's window moves on by one packet per combination.
    for (first, step) in (0..40usize).enumerate() {
        let first = first as u64;
        let len = 4 + (step % 3);
        random_coeffs::<Gf65536>(&mut r, len, &mut c);
        let seen_before: Vec<bool> = (0..64).map(|i| d.is_seen(i)).collect();
        match d.add(first, &c, None) {
            Added::Innovative { seen } => {
                let newly: Vec<u64> = (0..64)
                    .filter(|&i| d.is_seen(i) && !seen_before[i as usize])
                    .collect();
                assert_eq!(newly, vec![seen]);
            }
            other => panic!("a fresh combination over new packets was {other:?}"),
        }
        acks.push(d.first_unseen());
    }
    assert!(
        acks.windows(2).all(|w| w[0] <= w[1]),
        "acknowledgements never go back"
    );
    assert_eq!(
        *acks.last().unwrap(),
        40,
        "40 innovative combinations see 40 packets"
    );
}

#[test]
fn sliding_forgets_decoded_packets_and_keeps_decoding() {
    let mut r = rng(44);
    let nat = natives(&mut r, 40, 300);
    let mut d = Decoder::<Gf256>::new(0, 8);
    let mut c = Vec::new();
    let mut delivered = 0u64;
    // A window of 6 packets that moves on by one every second combination; the receiver
    // forgets a packet once it has delivered it and the source no longer codes it.
    for j in 0..70usize {
        let first = j / 2;
        random_coeffs::<Gf256>(&mut r, 6, &mut c);
        d.add(first as u64, &c, Some(&symbol::<Gf256>(&nat, first, &c)));
        while d.is_decoded(delivered) {
            assert_decoded(&d, &nat, delivered as usize);
            delivered += 1;
        }
        d.slide_to((first as u64).min(delivered));
    }
    assert!(delivered >= 33, "delivered {delivered}");
    // A late combination that still names a forgotten packet is stale, and changes nothing.
    let rank = d.rank();
    random_coeffs::<Gf256>(&mut r, 6, &mut c);
    assert_eq!(d.add(0, &c, None), Added::Stale);
    assert_eq!(d.rank(), rank);
}

#[test]
fn irregular_windows_jumps_and_sparse_combinations_decode_exactly() {
    // Eliminations stop at the rows' extent (the largest end of a combination since the
    // base): windows of varying width and start, half their coefficients zero, slides
    // by one or past everything held, and windows wider than the decoder's start width
    // (it grows) must still decode every packet to its bytes.
    fn run<F: Field>(seed: u64) {
        let mut r = rng(seed);
        let nat = natives(&mut r, 400, 64);
        let mut d = Decoder::<F>::new(0, 4);
        let mut c: Vec<F::Elem> = Vec::new();
        let mut delivered = 0u64;
        let mut first = 0usize;
        while first + 24 < nat.len() {
            let len = 1 + r.below_incl(23) as usize;
            c.clear();
            c.extend((0..len).map(|i| {
                if i == 0 || r.chance(0.5) {
                    F::random_nonzero(&mut r)
                } else {
                    F::ZERO
                }
            }));
            let sym = symbol::<F>(&nat, first, &c);
            d.add(first as u64, &c, Some(&sym));
            while d.is_decoded(delivered) {
                assert_decoded(&d, &nat, delivered as usize);
                delivered += 1;
            }
            // Mostly forward by what was delivered; now and then past everything held.
            if r.chance(0.05) {
                first += 30;
                d.slide_to(first as u64);
                delivered = delivered.max(first as u64);
                assert_eq!(d.rank(), 0, "a jump past the window forgets every row");
            } else {
                first = first
                    .max(delivered as usize)
                    .max(first + r.below_incl(1) as usize);
                d.slide_to(delivered.min(first as u64));
            }
        }
        assert!(delivered > 300, "{} delivered {delivered}", F::NAME);
    }
    for seed in 0..4 {
        run::<Gf256>(seed);
        run::<Gf65536>(seed);
    }
}

fn relays_recode_without_losing_decodability<F: Field>() {
    // source -> relay -> destination, k = 16: the relay hears 12 of 20 combinations and
    // sends 20 recoded packets of whatever it holds; the destination ends with exactly
    // the relay's rank, and every packet the relay could decode, the destination decodes
    // with its exact bytes.
    let k = 16;
    let mut r = rng(55);
    let nat = natives(&mut r, k, 1000);
    let mut relay = Decoder::<F>::new(0, k);
    let mut dst = Decoder::<F>::new(0, k);
    let mut c = Vec::new();
    for i in 0..20 {
        // Pipeline order: the i-th combination spans the packets that have arrived.
        random_coeffs::<F>(&mut r, (i + 1).min(k), &mut c);
        if i % 5 < 3 {
            relay.add(0, &c, Some(&symbol::<F>(&nat, 0, &c)));
        }
    }
    assert!(relay.rank() < k);
    let mut rc = Vec::new();
    let mut rp = Vec::new();
    for _ in 0..20 {
        let first = relay.recode(&mut r, &mut rc, Some(&mut rp)).unwrap();
        let before = relay.rank();
        assert_eq!(
            relay.add(first, &rc.clone(), Some(&rp.clone())),
            Added::NotInnovative,
            "a recoded packet is in the relay's span"
        );
        assert_eq!(relay.rank(), before);
        dst.add(first, &rc, Some(&rp));
    }
    assert_eq!(dst.rank(), relay.rank());
    for i in 0..k as u64 {
        assert_eq!(dst.is_decoded(i), relay.is_decoded(i), "packet {i}");
        if dst.is_decoded(i) {
            assert_decoded(&dst, &nat, i as usize);
        }
    }
}

#[test]
fn recoding_at_relays_keeps_decodability() {
    relays_recode_without_losing_decodability::<Gf256>();
    relays_recode_without_losing_decodability::<Gf65536>();
}

#[test]
fn reset_empties_the_decoder_and_an_empty_one_recodes_nothing() {
    let mut r = rng(66);
    let mut d = Decoder::<Gf256>::new(0, 4);
    let mut c = Vec::new();
    random_coeffs::<Gf256>(&mut r, 4, &mut c);
    d.add(0, &c, None);
    d.reset(16);
    assert_eq!((d.rank(), d.base(), d.first_unseen()), (0, 16, 16));
    assert_eq!(d.recode(&mut r, &mut c, None), None);
    assert_eq!(d.add(16, &[0, 0], None), Added::NotInnovative);
}

#[test]
fn a_native_goes_up_with_the_decoders_bytes_or_none() {
    // The stand-in carries wrong bytes: with payloads decoded they are replaced, without
    // them they are dropped (the endpoint's payload check counts that), never passed.
    let mut stand_in = crate::coding::tcpnc::source::tests::segment(0);
    stand_in.payload = Some(vec![0xaa; 3].into());
    let mut with = Decoder::<Gf256>::new(0, 2);
    with.add(0, &[1], Some(&[1, 2, 3]));
    assert_eq!(
        with.native(0, stand_in.clone()).carried(),
        Some(&[1u8, 2, 3][..])
    );
    let mut without = Decoder::<Gf256>::new(0, 2);
    without.add(0, &[1], None);
    assert!(without.is_decoded(0));
    assert_eq!(without.native(0, stand_in.clone()).carried(), None);
    // A packet without bytes stays without.
    stand_in.payload = None;
    assert_eq!(with.native(0, stand_in).carried(), None);
}
