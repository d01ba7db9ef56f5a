//! Random linear codec benchmark (not a test: speed targets live here).
//!
//!     ncmesh-codec-bench [--payload BYTES] [--seconds S]
//!
//! Combinations per second at generation sizes 16, 32 and 64 over GF(2^8) and GF(2^16):
//! a source's encoding (coefficients and payload), a decoder filled with dense random
//! combinations to full rank and with Pipeline coding's lower-triangular ones, and a
//! relay's recoding from a full decoder; each coefficient-only (the simulator's default)
//! and with payload bytes. Then the row operations under all of these, alone: nanoseconds
//! per `axpy_bytes` (dst += c · src) on rows of 32, 64 and 1500 bytes and per `scale_bytes`
//! on 1500 bytes. Best of three timed batches of about S/3 seconds each.

use ncmesh_core::coding::rlnc::{combine, random_coeffs, Decoder, Field, Gf256, Gf65536};
use ncmesh_core::engine::{Rng, StreamPurpose};
use std::hint::black_box;
use std::time::Instant;

/// Combinations per second of `op`, which does `per_call` combinations per call.
fn rate(seconds: f64, per_call: usize, mut op: impl FnMut()) -> f64 {
    let mut calls = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..calls {
            op();
        }
        if t.elapsed().as_secs_f64() > 0.02 {
            break;
        }
        calls *= 2;
    }
    let batch = seconds / 3.0;
    let mut best = 0.0f64;
    for _ in 0..3 {
        let t = Instant::now();
        let mut n = 0usize;
        while t.elapsed().as_secs_f64() < batch {
            for _ in 0..calls {
                op();
            }
            n += calls;
        }
        best = best.max((n * per_call) as f64 / t.elapsed().as_secs_f64());
    }
    best
}

fn row<F: Field>(k: usize, payload_bytes: usize, seconds: f64) {
    let mut rng = Rng::stream(1, 0, StreamPurpose::FlowCoding);
    let natives: Vec<Vec<u8>> = (0..k)
        .map(|_| (0..payload_bytes).map(|_| rng.next_u64() as u8).collect())
        .collect();
    let views: Vec<&[u8]> = natives.iter().map(|p| &p[..]).collect();
    let mut coeffs = Vec::new();
    let mut out = Vec::new();
    // Dense and lower-triangular systems, with their payloads, drawn once.
    let dense: Vec<(Vec<F::Elem>, Vec<u8>)> = (0..k + 4)
        .map(|_| {
            random_coeffs::<F>(&mut rng, k, &mut coeffs);
            combine::<F>(&coeffs, &views, &mut out);
            (coeffs.clone(), out.clone())
        })
        .collect();
    let pipeline: Vec<(Vec<F::Elem>, Vec<u8>)> = (1..=k)
        .map(|m| {
            random_coeffs::<F>(&mut rng, m, &mut coeffs);
            combine::<F>(&coeffs, &views[..m], &mut out);
            (coeffs.clone(), out.clone())
        })
        .collect();
    let mut d = Decoder::<F>::new(0, k);
    let mut fill = |system: &[(Vec<F::Elem>, Vec<u8>)], with_payload: bool| {
        d.reset(0);
        for (c, p) in system {
            d.add(0, c, with_payload.then_some(&p[..]));
            if d.rank() == k {
                break;
            }
        }
        black_box(d.rank());
    };
    let mut cells = Vec::new();
    cells.push(rate(seconds, 1, || {
        random_coeffs::<F>(&mut rng, k, &mut coeffs);
        combine::<F>(&coeffs, &views, &mut out);
        black_box(&out);
    }));
    for with_payload in [false, true] {
        cells.push(rate(seconds, k, || fill(&dense, with_payload)));
        cells.push(rate(seconds, k, || fill(&pipeline, with_payload)));
    }
    let mut full = Decoder::<F>::new(0, k);
    for (c, p) in &dense {
        full.add(0, c, Some(p));
    }
    let mut rp = Vec::new();
    cells.push(rate(seconds, 1, || {
        black_box(full.recode(&mut rng, &mut coeffs, None));
    }));
    cells.push(rate(seconds, 1, || {
        black_box(full.recode(&mut rng, &mut coeffs, Some(&mut rp)));
    }));
    let cells: Vec<String> = cells.iter().map(|c| format!("{:.0}", c)).collect();
    println!("| {} | {k} | {} |", F::NAME, cells.join(" | "));
}

/// Nanoseconds per row operation over `F`, on short rows (coefficient vectors) and a
/// 1500-byte payload.
fn row_ops<F: Field>(seconds: f64) {
    let mut rng = Rng::stream(2, 0, StreamPurpose::FlowCoding);
    let c = F::random_nonzero(&mut rng);
    let mut bytes = |n: usize| -> Vec<u8> { (0..n).map(|_| rng.next_u64() as u8).collect() };
    let (src, mut dst) = (bytes(1500), bytes(1500));
    let ns = |calls_per_second: f64| format!("{:.1}", 1e9 / calls_per_second);
    let mut cells = Vec::new();
    for len in [32, 64, 1500] {
        cells.push(ns(rate(seconds, 1, || {
            F::axpy_bytes(
                black_box(&mut dst[..len]),
                black_box(c),
                black_box(&src[..len]),
            );
        })));
    }
    cells.push(ns(rate(seconds, 1, || {
        F::scale_bytes(black_box(&mut dst[..]), black_box(c));
    })));
    println!("| {} | {} |", F::NAME, cells.join(" | "));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let fail = |what: &str| -> ! {
        eprintln!("error: {what}");
        std::process::exit(2)
    };
    let payload: usize = get("--payload").map_or(1460, |v| {
        v.parse().unwrap_or_else(|_| fail("--payload BYTES"))
    });
    let seconds: f64 =
        get("--seconds").map_or(0.6, |v| v.parse().unwrap_or_else(|_| fail("--seconds S")));
    if payload == 0 || seconds.is_nan() || seconds <= 0.0 {
        fail("--payload must be at least 1 byte and --seconds above 0");
    }
    println!("Combinations per second ({payload}-byte payloads):\n");
    println!(
        "| field | k | encode (payload) | decode dense | decode pipeline | decode dense (payload) \
         | decode pipeline (payload) | recode | recode (payload) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for k in [16, 32, 64] {
        row::<Gf256>(k, payload, seconds);
    }
    for k in [16, 32, 64] {
        row::<Gf65536>(k, payload, seconds);
    }
    println!("\nNanoseconds per row operation:\n");
    println!("| field | axpy 32 B | axpy 64 B | axpy 1500 B | scale 1500 B |");
    println!("|---|---:|---:|---:|---:|");
    row_ops::<Gf256>(seconds);
    row_ops::<Gf65536>(seconds);
}
