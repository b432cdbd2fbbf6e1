//! Leave-one-capture-out on the shared runs (fixtures/real and fixtures/real/profiled: seven
//! captures, four of them with the report made from them, each run counted once): the cost table
//! is fitted on every run but one and predicts the one held back, so the figure measures
//! prediction, not memory (issue 30; docs/performance.md "Cost model" has every figure).

use std::path::{Path, PathBuf};

use neff_load::device_model::DeviceModel;
use neff_load::model::LoadedModel;
use neff_profile::{Profile, ReadLimits};
use neff_sim::cost::fit::{
    Observation, fit, leave_one_out, load_under, profiles_beside, runtime_like, sg00_options,
    span_error,
};
use neff_sim::cost::{CostTable, fitted};
use neff_sim::simulate;

/// The median |sg00 span error| of the held-out runs must stay under this, percent. The issue's
/// goal is 10; timing the runtime-form images (D620-D622) the model reached 5.9%, the DIRECT2D
/// runs on the shared DMA path (D810) 3.9% (docs/performance.md "Cost model"): the bound is
/// what is reached plus a little.
const LOO_MEDIAN_BOUND_PCT: f64 = 6.0;

/// The 90th percentile (nearest rank: of seven, the largest) of the held-out |errors|, percent:
/// 13.8% reached (attn_v6, after D810; 18.4% after D742), the goal 25 (D623).
const LOO_P90_BOUND_PCT: f64 = 16.0;

/// The median |per-engine sg00 busy-time error| of the held-out runs must stay under this,
/// percent, over the (run, engine) pairs the capture saw busy (D710). The goal is 15;
/// D741-D743 reach 5.4% (35 pairs; 9.1% before them): the bound is what is reached plus a
/// little (docs/performance.md "Cost model").
const LOO_BUSY_MEDIAN_BOUND_PCT: f64 = 7.0;

/// The 90th percentile (nearest rank) of the held-out per-engine busy |errors|, percent: 10.7%
/// reached once the PE throttle's warm-up counts busy time (D856; 18.6% before), the bound what
/// is reached plus a little.
const LOO_BUSY_P90_BOUND_PCT: f64 = 13.0;

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

/// The 90th percentile of |v| (nearest rank).
fn p90_abs(v: &[f64]) -> f64 {
    let mut a: Vec<f64> = v.iter().map(|x| x.abs()).collect();
    a.sort_by(f64::total_cmp);
    a[((a.len() * 9).div_ceil(10)).saturating_sub(1)]
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

/// The sg00 busy-time error of each engine of `o` the capture saw busy, simulated with `table`,
/// percent of the measured busy time (neff-sim-report's comparison, as `fit_costs --report`).
fn busy_errors(o: &Observation<'_>, table: &CostTable) -> Vec<f64> {
    let r = simulate(o.model, &sg00_options(table, true)).unwrap();
    let cmp = neff_sim_report::compare::compare(&r, o.profile);
    (cmp.subgraphs.iter())
        .filter(|sg| sg.name == "sg00")
        .flat_map(|sg| sg.engines.iter())
        .filter(|e| e.measured_busy_ns > 0)
        .map(|e| {
            let m = e.measured_busy_ns as f64;
            100.0 * (e.predicted_busy_ns as f64 - m) / m
        })
        .collect()
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
    let busy: Vec<f64> = (obs.iter().zip(&tables))
        .flat_map(|(o, t)| busy_errors(o, t))
        .collect();
    let busy_med = median_abs(&busy);
    assert!(
        busy_med <= LOO_BUSY_MEDIAN_BOUND_PCT,
        "leave-one-out per-engine busy median |error| {busy_med:.1}% over {} (run, engine) pairs: {busy:?}",
        busy.len()
    );
    let busy_p90 = p90_abs(&busy);
    assert!(
        busy_p90 <= LOO_BUSY_P90_BOUND_PCT,
        "leave-one-out per-engine busy p90 |error| {busy_p90:.1}% over {} (run, engine) pairs: {busy:?}",
        busy.len()
    );
    let p90 = p90_abs(&errs);
    assert!(
        p90 <= LOO_P90_BOUND_PCT,
        "leave-one-out p90 |error| {p90:.1}% (held out: {:?})",
        names.iter().zip(&errs).collect::<Vec<_>>()
    );
}
