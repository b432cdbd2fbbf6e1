//! One run, one payload, every inflate backend (issue 20, decision D330): each inflates the same
//! gzip payload (a NEFF's bytes after its 1024-byte header) `ROUNDS` times, interleaved, and the
//! table gives the median and best on-CPU MB/s of inflated output (this thread's scheduled time,
//! /proc/thread-self/schedstat: the machine is shared, so wall time measures the neighbours).
//! "whole buffer" inflates into one pre-faulted buffer of ISIZE bytes (libdeflate can do nothing
//! else); "window" streams through a reused 256 KiB window, as `neff_container::scan` does.
//!
//! Usage: inflate-backends PAYLOAD.gz [ROUNDS=5] [NAME-FILTER]
use std::io::Read;
/// This thread's on-CPU seconds (/proc/thread-self/schedstat, first field, ns).
fn oncpu() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    s.split_whitespace().next().unwrap().parse::<f64>().unwrap() / 1e9
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let payload = std::fs::read(&a[1]).unwrap();
    let rounds: usize = a.get(2).map_or(5, |s| s.parse().unwrap());
    println!(
        "| backend | median MB/s (on-CPU) | best MB/s | median s |\n| --- | ---: | ---: | ---: |"
    );
    let only: Option<&str> = a.get(3).map(|s| s.as_str());
    // One gzip member with a 10-byte header (a NEFF's: flags 0), then zero padding (D26): find
    // the end of the deflate body by inflating once, then read ISIZE from the trailer.
    let body_len = {
        let mut d = flate2::Decompress::new(false);
        let mut sink = vec![0u8; 1 << 20];
        while d
            .decompress(
                &payload[10 + d.total_in() as usize..],
                &mut sink,
                flate2::FlushDecompress::None,
            )
            .unwrap()
            != flate2::Status::StreamEnd
        {}
        d.total_in() as usize
    };
    let end = 10 + body_len + 8;
    let isz = u32::from_le_bytes(payload[end - 4..end].try_into().unwrap()) as usize;
    let mut out = vec![1u8; isz + 64];
    let mut win = vec![1u8; 256 << 10];
    let backends: Vec<(&str, Box<dyn Fn(&mut [u8], &mut [u8]) -> usize>)> = vec![
        (
            "zlib-rs (flate2 1.1.11, zlib-rs 0.6.8, runtime_detection) whole buffer",
            Box::new(|out: &mut [u8], _w: &mut [u8]| {
                let mut d = flate2::Decompress::new(false);
                d.decompress(&payload[10..], out, flate2::FlushDecompress::Finish)
                    .unwrap();
                d.total_out() as usize
            }),
        ),
        (
            "zlib-rs 256 KiB window",
            Box::new(|_o: &mut [u8], w: &mut [u8]| {
                let mut d = flate2::Decompress::new(false);
                loop {
                    let before = d.total_out();
                    let st = d
                        .decompress(
                            &payload[10 + d.total_in() as usize..],
                            w,
                            flate2::FlushDecompress::None,
                        )
                        .unwrap();
                    std::hint::black_box(&w[..(d.total_out() - before) as usize]);
                    if st == flate2::Status::StreamEnd {
                        break;
                    }
                }
                d.total_out() as usize
            }),
        ),
        (
            "libdeflate (libdeflater 1.26.1) whole buffer",
            Box::new(|out: &mut [u8], _w: &mut [u8]| {
                let mut d = libdeflater::Decompressor::new();
                d.gzip_decompress(&payload[..end], out).unwrap()
            }),
        ),
        (
            "ISA-L (isal-rs 0.5.3) stateless whole buffer",
            Box::new(|out: &mut [u8], _w: &mut [u8]| {
                isal::decompress_into(&payload[10..end - 8], out, isal::Codec::Deflate).unwrap()
            }),
        ),
        (
            "ISA-L 256 KiB window (read::DeflateDecoder)",
            Box::new(|_o: &mut [u8], w: &mut [u8]| {
                let mut d = isal::read::DeflateDecoder::new(&payload[10..end - 8]);
                let mut n = 0;
                loop {
                    let k = d.read(w).unwrap();
                    if k == 0 {
                        break;
                    }
                    std::hint::black_box(&w[..k]);
                    n += k;
                }
                n
            }),
        ),
    ];
    let mut times: Vec<Vec<f64>> = vec![vec![]; backends.len()];
    for _ in 0..rounds {
        for (i, (name, f)) in backends.iter().enumerate() {
            if only.is_some_and(|o| !name.contains(o)) {
                continue;
            }
            let c0 = oncpu();
            let n = f(&mut out, &mut win);
            let s = oncpu() - c0;
            assert_eq!(n, isz, "{name}");
            times[i].push(s);
        }
    }
    for (i, (name, _)) in backends.iter().enumerate() {
        let t = &mut times[i];
        if t.is_empty() {
            continue;
        }
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let med = t[t.len() / 2];
        println!(
            "| {name} | {:.0} | {:.0} | {:.3} s |",
            isz as f64 / med / 1e6,
            isz as f64 / t[0] / 1e6,
            med
        );
    }
}
