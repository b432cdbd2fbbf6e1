//! Leave-one-capture-out on the shared runs (fixtures/real and fixtures/real/profiled: seven
//! captures, four of them with the report made from them, each run counted once): the cost table
//! is fitted on every run but one and predicts the one held back, so the figure measures
//! prediction, not memory (issue 30; docs/performance.md "Cost model" has every figure).

use std::path::{Path, PathBuf};

use neff_load::device_model::DeviceModel;
use neff_load::model::LoadedModel;
use neff_profile::{Profile, ReadLimits};
use neff_sim::cost::fit::{
    Observation, fit, leave_one_out, load_under, profiles_beside, runtime_like, span_error,
};
use neff_sim::cost::fitted;

/// The median |sg00 span error| of the held-out runs must stay under this, percent. The issue's
/// goal is 10 and is NOT met: the model reaches 22.4% (docs/performance.md "Cost model", D444);
/// the bound keeps it from getting worse.
const LOO_MEDIAN_BOUND_PCT: f64 = 25.0;

/// The device model every run is loaded under: runtime 2.30.51 as the reference capture shows
/// it (D620), so the images timed are the ones the hardware ran.
fn like_the_hardware() -> DeviceModel {
    runtime_like(
        Path::new(neff_fixtures::REFERENCE_CAPTURE),
        Path::new(neff_fixtures::REFERENCE_CAPTURE_NEFF),
    )
    .unwrap()
}

/// Every shared NEFF with a profile beside it, the first candidate that reads (the capture).
fn runs() -> Vec<(String, LoadedModel, Profile)> {
    let device = like_the_hardware();
    let mut out = Vec::new();
    for dir in [neff_fixtures::REAL_DIR, neff_fixtures::PROFILED_DIR] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut neffs: Vec<PathBuf> = entries
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "neff"))
            .collect();
        neffs.sort();
        for neff in neffs {
            let profile = (profiles_beside(&neff).iter())
                .find_map(|p| Profile::read(p, &ReadLimits::default()).ok());
            if let Some(p) = profile {
                let name = neff.file_stem().unwrap().to_string_lossy().into_owned();
                out.push((name, load_under(&neff, &device).unwrap(), p));
            }
        }
    }
    out
}

fn median_abs(v: &[f64]) -> f64 {
    let mut a: Vec<f64> = v.iter().map(|x| x.abs()).collect();
    a.sort_by(f64::total_cmp);
    let n = a.len();
    if n % 2 == 1 {
        a[n / 2]
    } else {
        (a[n / 2 - 1] + a[n / 2]) / 2.0
    }
}

#[test]
fn held_out_captures_are_predicted() {
    if !neff_fixtures::present(neff_fixtures::REAL_DIR) {
        return;
    }
    let runs = runs();
    // Seven runs: each capture once (a report beside its capture is the same run).
    assert_eq!(
        runs.len(),
        7,
        "{:?}",
        runs.iter().map(|r| &r.0).collect::<Vec<_>>()
    );
    let obs: Vec<Observation<'_>> = (runs.iter())
        .map(|(_, model, profile)| Observation { model, profile })
        .collect();
    let tables = leave_one_out(&obs, &fitted());
    let errs: Vec<f64> = (obs.iter().zip(&tables))
        .map(|(o, t)| span_error(o, t).unwrap())
        .collect();
    let all = fit(&obs, &fitted());
    // The fit is a function of its runs, and a run held out really is out of its table.
    assert_eq!(fit(&obs, &fitted()), all);
    assert!(tables.iter().all(|t| *t != all));
    let in_sample: Vec<f64> = obs.iter().map(|o| span_error(o, &all).unwrap()).collect();
    let names: Vec<&str> = runs.iter().map(|r| r.0.as_str()).collect();
    let med = median_abs(&errs);
    assert!(
        med <= LOO_MEDIAN_BOUND_PCT,
        "leave-one-out median |error| {med:.1}% (held out: {:?}; in-sample {:?})",
        names.iter().zip(&errs).collect::<Vec<_>>(),
        in_sample
    );
}
