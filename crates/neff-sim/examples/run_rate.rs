//! The functional model's rates on one NEFF (scripts/bench-run.sh, docs/performance.md "neff
//! run"): one timed `neff_sim::func::run_random` for `SEED` (the random inputs made one at a time
//! as device bytes, setup, every slot, the outputs; `no-races` after the seed turns the race
//! detector off, `small-pages` keeps SBUF and PSUM in 4 KiB pages, D825), then matmul GFLOP/s,
//! element-wise M elements/s (in all, and per op class over the wall time inside its slots) and
//! DMA MB/s over that wall time, and the bytes the run must hold (the NEFF's DRAM vars are the
//! inputs, outputs and constants).
//!
//! The CPU time of the run (this process's user + system time, from `/proc/self/stat`, 10 ms
//! ticks; 0 where there is no procfs) is printed beside the wall time: on a shared machine the
//! rates over CPU time are the model's own speed.
//!
//! `cargo run --release -p neff-sim --example run_rate -- NEFF [SEED] [no-races] [small-pages]`

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_sim::func::{self, RunOptions};

/// This process's user + system CPU seconds (`/proc/self/stat` fields 14 and 15, in the usual
/// 100 Hz clock ticks), or 0.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    let rest = stat.rsplit_once(')').map_or("", |r| r.1);
    let f: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<f64>() / 100.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: run_rate NEFF [SEED]")?;
    let seed: u64 = args.next().map_or(Ok(1), |s| s.parse())?;
    // `no-races` after the seed runs without the race detector (its cost, measured apart);
    // `small-pages` keeps SBUF and PSUM in 4 KiB pages mapped on first touch (D825's baseline).
    let rest: Vec<String> = args.collect();
    let races = !rest.iter().any(|a| a == "no-races");
    let huge_pages = !rest.iter().any(|a| a == "small-pages");
    let bytes = std::fs::read(&path)?;
    let neff = Neff::parse(&bytes)?;
    let kelf = Kelf::from_neff(&neff)?;
    let sig = func::signature(&neff, &kelf)?;
    let tensors: u64 = sig
        .inputs
        .iter()
        .chain(&sig.outputs)
        .filter_map(|t| t.bytes())
        .sum();
    let (t, cpu0) = (std::time::Instant::now(), cpu_seconds());
    let options = RunOptions {
        races,
        huge_pages,
        ..RunOptions::default()
    };
    let out = func::run_random(&neff, &kelf, seed, &options)?;
    let (dt, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - cpu0);
    let w = out.work;
    println!(
        "{path}: {} slots in {dt:.3} s (CPU {cpu:.2} s); matmul {:.3} GFLOP ({:.3} GFLOP/s); element-wise {:.2} M \
         ({:.1} M elements/s); DMA {:.1} MB ({:.1} MB/s); inputs+outputs {:.1} MB",
        out.steps,
        w.matmul_flops as f64 / 1e9,
        w.matmul_flops as f64 / 1e9 / dt,
        w.elementwise as f64 / 1e6,
        w.elementwise as f64 / 1e6 / dt,
        w.dma_bytes as f64 / 1e6,
        w.dma_bytes as f64 / 1e6 / dt,
        tensors as f64 / 1e6,
    );
    println!(
        "element-wise alone: {:.2} M elements in {:.3} s ({:.1} M elements/s)",
        w.elementwise as f64 / 1e6,
        w.elementwise_ns as f64 / 1e9,
        w.elementwise as f64 * 1e3 / (w.elementwise_ns.max(1) as f64)
    );
    for (class, c) in func::OpClass::ALL.iter().zip(&w.classes) {
        if c.elements > 0 {
            println!(
                "  {:<14} {:>9.3} M elements in {:.4} s ({:.1} M elements/s)",
                class.name(),
                c.elements as f64 / 1e6,
                c.ns as f64 / 1e9,
                c.elements as f64 * 1e3 / (c.ns.max(1) as f64)
            );
        }
    }
    let r = &out.races;
    println!(
        "races: {} (+{} more); shadow runs {}",
        r.races.len(),
        r.more,
        r.shadow_runs
    );
    for race in &r.races {
        eprintln!("{race}");
    }
    Ok(())
}
