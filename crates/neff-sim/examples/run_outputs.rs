//! Writes the outputs `neff run NEFF --random-inputs SEED -o DIR` writes (one `NAME.npy` per
//! output, the same `func::run_random` and `.npy` bytes) from the release build of neff-sim
//! alone: the byte-identity check of a change to the functional model (`sha256sum DIR/*.npy`
//! before and after; COMMON standards, docs/performance.md "neff run").
//!
//! `cargo run --release -p neff-sim --example run_outputs -- NEFF SEED DIR`

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_sim::func::{self, RunOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: run_outputs NEFF SEED DIR";
    let path = args.next().ok_or(usage)?;
    let seed: u64 = args.next().ok_or(usage)?.parse()?;
    let dir = std::path::PathBuf::from(args.next().ok_or(usage)?);
    let bytes = std::fs::read(&path)?;
    let neff = Neff::parse(&bytes)?;
    let kelf = Kelf::from_neff(&neff)?;
    let out = func::run_random(&neff, &kelf, seed, &RunOptions::default())?;
    std::fs::create_dir_all(&dir)?;
    for (name, t) in &out.outputs {
        std::fs::write(dir.join(format!("{name}.npy")), t.to_npy())?;
    }
    println!("{path}: {} outputs, {} slots", out.outputs.len(), out.steps);
    Ok(())
}
