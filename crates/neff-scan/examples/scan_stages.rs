//! Where `neff scan`'s time goes, per stage, on one core (docs/scale.md).
//!
//! `cargo run --release -p neff-scan --example scan_stages -- [--no-load] [--sim] PATH...`
//! reads every NEFF of PATH (files, folders, globs, as `neff scan`), scans each on a one-thread
//! pool and prints the wall time of each stage summed over the files, with MB/s of file bytes.

use std::time::{Duration, Instant};

use neff_scan::{ScanOptions, StageTimes, expand_paths, scan_bytes_timed};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut options = ScanOptions::default();
    let mut paths = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--no-load" => options.load = false,
            "--sim" => options.sim = true,
            _ => paths.push(arg),
        }
    }
    let files = expand_paths(&paths)?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let (mut times, mut read, mut bytes, mut failed) =
        (StageTimes::default(), Duration::ZERO, 0u64, 0usize);
    let start = Instant::now();
    pool.install(|| -> std::io::Result<()> {
        for f in &files {
            let t = Instant::now();
            let data = std::fs::read(f)?;
            read += t.elapsed();
            bytes += data.len() as u64;
            let (row, stage) = scan_bytes_timed(&f.display().to_string(), &data, &options);
            failed += usize::from(row.error.is_some());
            times += stage;
        }
        Ok(())
    })?;
    let wall = start.elapsed().as_secs_f64();
    let mb = bytes as f64 / 1e6;
    println!(
        "{} files, {mb:.1} MB, {failed} with an error; {wall:.2} s on one core: {:.1} NEFFs/s, {:.1} MB/s",
        files.len(),
        files.len() as f64 / wall,
        mb / wall
    );
    println!(
        "{:<8} {:>9} {:>6} {:>10}",
        "stage", "seconds", "share", "MB/s"
    );
    let stages = std::iter::once(("read", read)).chain(times.named());
    for (name, d) in stages {
        let s = d.as_secs_f64();
        let rate = if s > 0.0 { mb / s } else { f64::INFINITY };
        println!(
            "{name:<8} {s:>9.3} {:>5.1}% {rate:>10.0}",
            100.0 * s / wall.max(f64::EPSILON)
        );
    }
    Ok(())
}
