//! Fits the cost model's constants on the hardware captures and profiles and prints the
//! generated part of `src/cost/table.rs` (run through `scripts/fit_costs.sh`, which writes it in
//! place). The method is the library's ([`neff_sim::cost::fit`]); this example only finds the
//! runs and loads them.
//!
//! `cargo run --release -p neff-sim --example fit_costs -- DIR...` where each DIR holds
//! `NAME.neff` with its capture (`NAME.ntff[.gz]`) or report (`NAME.profile.json[.gz]`) beside
//! it; one run counts once, its capture preferred (default: ../shared/fixtures/real and
//! ../shared/fixtures/real/profiled). Prints each run's in-sample sg00 span error on stderr.

use std::path::{Path, PathBuf};

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::device_model::DeviceModel;
use neff_load::model::{LoadOptions, LoadedModel, load};
use neff_profile::{Profile, ReadLimits};
use neff_sim::cost::fit::{Observation, fit_with_notes, profiles_beside, source};
use neff_sim::cost::{CostModel, fitted};
use neff_sim::{SimOptions, simulate};

fn main() {
    let mut dirs: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if dirs.is_empty() {
        dirs = vec![
            neff_fixtures::REAL_DIR.into(),
            neff_fixtures::PROFILED_DIR.into(),
        ];
    }
    let mut runs: Vec<(String, LoadedModel, Profile)> = Vec::new();
    for dir in &dirs {
        let mut neffs: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "neff"))
            .collect();
        neffs.sort();
        for neff in neffs {
            let Some((profile, from)) = read_profile(&neff) else {
                continue;
            };
            let name = neff.file_stem().unwrap().to_string_lossy().into_owned();
            eprintln!(
                "{name}: {} instructions ({})",
                profile.instructions.len(),
                from.display()
            );
            runs.push((name, load_runtime(&neff), profile));
        }
    }
    let obs: Vec<Observation<'_>> = (runs.iter())
        .map(|(_, model, profile)| Observation { model, profile })
        .collect();
    let (table, notes) = fit_with_notes(&obs, &fitted());
    let cost = CostModel {
        table: table.clone(),
        ..CostModel::default()
    };
    for (name, model, profile) in &runs {
        let options = SimOptions {
            cost: cost.clone(),
            record: true,
            ..SimOptions::default()
        };
        if let (Ok(r), Some(m)) = (simulate(model, &options), profile.span_ns("sg00")) {
            let p = r.subgraphs.first().map_or(0, |s| s.span_ns);
            let err = 100.0 * (p as f64 - m as f64) / m as f64;
            eprintln!("{name}: sg00 measured {m} ns, predicted {p} ns ({err:+.1}%)");
            if std::env::var("FIT_COMPARE").is_ok_and(|n| &n == name) {
                eprint!(
                    "{}",
                    neff_sim::compare::render(&neff_sim::compare::compare(&r, profile))
                );
            }
        }
    }
    print!("{}", source(&table, &notes));
}

/// The first profile beside `neff` that reads.
fn read_profile(neff: &Path) -> Option<(Profile, PathBuf)> {
    profiles_beside(neff).into_iter().find_map(|p| {
        let r = Profile::read(&p, &ReadLimits::default());
        if let Err(e) = &r {
            eprintln!("{}: {e} (next candidate)", p.display());
        }
        Some((r.ok()?, p))
    })
}

/// `neff` loaded under the runtime device model, whose pcs are the hardware's (D171-D174).
fn load_runtime(neff: &Path) -> LoadedModel {
    let bytes = std::fs::read(neff).expect("the NEFF");
    let neff = Neff::parse(&bytes).expect("NEFF");
    let kelf = Kelf::from_neff(&neff).expect("kelf");
    let opts = LoadOptions {
        device: DeviceModel::runtime(),
        ..LoadOptions::default()
    };
    load(&kelf, &opts).expect("load")
}
