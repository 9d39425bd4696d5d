//! rustls's two crypto providers' AEADs opening TLS 1.3 records of 16 KiB, as a client reading a
//! 1 MB answer does: ring (what wirebench uses) against aws-lc-rs, for each TLS 1.3 cipher, in
//! rounds whose order alternates. Each open is checked (its tag, which covers every byte, and
//! three plaintext bytes) before a round's time counts. Prints each round and the median of aws-lc ÷ ring.
//!
//! Usage: cargo run --release -- [ROUNDS]   (pin it: `taskset -c 1`)

use std::time::Instant;

const RECORD: usize = 16 * 1024;
/// 320 MiB a round: about 40 ms, long enough that a timer tick is noise.
const RECORDS: usize = 20_000;

/// One provider's AEAD API (ring's and aws-lc-rs's are the same shape): the seconds `RECORDS`
/// opens take, each of a fresh copy of one sealed record, as rustls opens each record in place
/// in its deframer buffer after reading it there.
macro_rules! opens {
    ($name:ident, $krate:ident) => {
        fn $name(alg: usize, buf: &mut Vec<u8>) -> f64 {
            use $krate::aead::*;
            let algorithm = [&AES_128_GCM, &AES_256_GCM, &CHACHA20_POLY1305][alg];
            let key = vec![3u8; algorithm.key_len()];
            let key = LessSafeKey::new(UnboundKey::new(algorithm, &key).expect("key"));
            let nonce = [1u8; 12];
            let mut sealed = vec![7u8; RECORD];
            let tag = key
                .seal_in_place_separate_tag(Nonce::assume_unique_for_key(nonce), Aad::empty(), &mut sealed)
                .expect("seal");
            sealed.extend_from_slice(tag.as_ref());
            let start = Instant::now();
            let mut sum = 0u64;
            for _ in 0..RECORDS {
                buf.clear();
                buf.extend_from_slice(&sealed);
                let plain =
                    key.open_in_place(Nonce::assume_unique_for_key(nonce), Aad::empty(), buf).expect("the tag checks");
                sum += (plain[0] + plain[RECORD / 2] + plain[RECORD - 1]) as u64;
            }
            let took = start.elapsed().as_secs_f64();
            assert_eq!(sum, 21 * RECORDS as u64, "each record decrypted");
            took
        }
    };
}
opens!(ring_opens, ring);
opens!(aws_lc_opens, aws_lc_rs);

fn main() {
    let rounds: usize = std::env::args().nth(1).map_or(8, |a| a.parse().expect("ROUNDS is a count"));
    let mut buf = Vec::with_capacity(RECORD + 16);
    let gb = (RECORD * RECORDS) as f64 / 1e9;
    for (alg, name) in ["AES-128-GCM", "AES-256-GCM", "ChaCha20-Poly1305"].iter().enumerate() {
        let mut ratios = Vec::new();
        for round in 0..rounds {
            let (ring, aws) = if round % 2 == 0 {
                let r = ring_opens(alg, &mut buf);
                (r, aws_lc_opens(alg, &mut buf))
            } else {
                let a = aws_lc_opens(alg, &mut buf);
                (ring_opens(alg, &mut buf), a)
            };
            println!("{name} round {round}: ring {:.2} GB/s, aws-lc {:.2} GB/s", gb / ring, gb / aws);
            ratios.push(aws / ring);
        }
        ratios.sort_by(f64::total_cmp);
        let n = ratios.len();
        let median = if n % 2 == 1 { ratios[n / 2] } else { (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0 };
        println!(
            "{name}: aws-lc's time ÷ ring's, median of {n} rounds {median:.3} (range {:.3}–{:.3})",
            ratios[0],
            ratios[n - 1]
        );
    }
}
