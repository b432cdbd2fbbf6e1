//! Reading a large NEFF: header + verify (MD5) + inflate + tar index, the work of `neff info`.
//! Size from env `NEFFKIT_BENCH_MB` (default 200). Figures: docs/performance.md "Container read".

#![allow(missing_docs, unreachable_pub)]

#[path = "../examples/make_large.rs"]
mod make_large;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neff_container::{Neff, ReadOptions};

fn read(c: &mut Criterion) {
    let mb: usize = std::env::var("NEFFKIT_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let bytes = make_large::large_neff(mb);
    let inflated = Neff::parse(&bytes).expect("valid").tar_bytes().len();
    let mut group = c.benchmark_group("container_read");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(inflated as u64));
    group.bench_function("parse_verify", |b| {
        b.iter(|| Neff::parse(&bytes).expect("valid").member_count())
    });
    let no_verify = ReadOptions {
        verify: false,
        ..ReadOptions::default()
    };
    group.bench_function("parse_no_verify", |b| {
        b.iter(|| {
            Neff::parse_with(&bytes, &no_verify)
                .expect("valid")
                .member_count()
        })
    });
    group.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
