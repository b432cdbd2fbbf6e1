//! Lookups per second of device IP -> NEFF IP: the spec's linear walk (spec 004 §3, decision
//! D71) vs the indexed map, at 10, 1k and 100k patch rows; printed as one `key=value` line per
//! size for scripts/bench.sh. Run: `cargo run --release -p neff-load --example ipmap_rate`.
//!
//! The rows are those of the criterion bench (`benches/ipmap.rs`, shared in `benches/workload`): MAIN rows INSERT
//! 3 / MODIFY / DELETE in turn, each after a 4-slot pass-through run; probes spread evenly.

use neff_load::DeviceAddr;
use std::hint::black_box;
use std::time::{Duration, Instant};

use neff_load::ipmap::IpMap;
use neff_load::ipmap::walk::device_ip_to_neff_ip;

#[path = "../benches/workload/mod.rs"]
mod workload;
use workload::rows;

/// Lookups per second of `f` over `probes`, repeated until at least `min` has passed.
fn rate(probes: &[DeviceAddr], min: Duration, mut f: impl FnMut(DeviceAddr)) -> f64 {
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < min {
        for &p in probes {
            f(p);
        }
        n += probes.len() as u64;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let min = Duration::from_millis(
        std::env::args()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(500),
    );
    for n in [10u32, 1_000, 100_000] {
        let (rows, layout) = rows(n);
        let map = IpMap::new(&rows, &layout).expect("well-formed rows");
        let slots = layout.core.size / 64;
        let probes: Vec<DeviceAddr> = (0..1024u64)
            .map(|k| layout.base.plus((slots * k / 1024) * 64))
            .collect();
        for &p in &probes {
            let a = device_ip_to_neff_ip(&rows, &layout, p)
                .ok()
                .map(|h| h.neff_ip);
            let b = map.neff_ip(p).ok().map(|h| h.neff_ip);
            assert_eq!(a, b, "walk and index disagree at {p}");
        }
        let walk = rate(&probes, min, |p| {
            black_box(device_ip_to_neff_ip(&rows, &layout, p).ok());
        });
        let indexed = rate(&probes, min, |p| {
            black_box(map.neff_ip(p).ok());
        });
        println!(
            "rows={n} walk_per_s={walk:.0} indexed_per_s={indexed:.0} ratio={:.1}",
            indexed / walk
        );
    }
}
