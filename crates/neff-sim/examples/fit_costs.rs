//! Fits the cost model's constants on the hardware captures and profiles and prints the
//! generated part of `src/cost/table.rs` (run through `scripts/fit_costs.sh`, which writes it in
//! place). The method is the library's ([`neff_sim::cost::fit`]); this example only finds the
//! runs and loads them.
//!
//! `cargo run --release -p neff-sim --example fit_costs -- DIR...` where each DIR holds
//! `NAME.neff` with its capture (`NAME.ntff[.gz]`) or report (`NAME.profile.json[.gz]`) beside
//! it; one run counts once, its capture preferred (default: ../shared/fixtures/real and
//! ../shared/fixtures/real/profiled). Prints each run's in-sample sg00 span error on stderr.
//!
//! `--like CAPTURE`: the capture whose runtime the NEFFs are loaded like (D620; default the shared
//! baseline_attention capture).
//!
//! `--report` prints, instead of the table, the markdown of docs/performance.md "Cost model":
//! per run the sg00 span error in-sample (fitted on every run) and leave-one-out (fitted on
//! the others), and per (engine, class) the mean measured and predicted durations both ways.

use std::path::{Path, PathBuf};

use neff_load::device_model::DeviceModel;
use neff_load::model::LoadedModel;
use neff_profile::{Profile, ReadLimits};
use std::collections::BTreeMap;
use std::fmt::Write;

use neff_isa::EngineType;
use neff_sim::cost::fit::{
    Observation, fit_with_notes, leave_one_out, load_under, profiles_beside, runtime_like,
    sg00_options, source, span_error,
};
use neff_sim::cost::{CostClass, CostModel, CostTable, fitted};
use neff_sim::{SimOptions, simulate};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let report_mode = args.iter().any(|a| a == "--report");
    let like = (args.iter().position(|a| a == "--like"))
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    let mut dirs: Vec<PathBuf> = (args.iter().enumerate())
        .filter(|(i, a)| *a != "--report" && *a != "--like" && (*i == 0 || args[i - 1] != "--like"))
        .map(|(_, a)| PathBuf::from(a))
        .collect();
    let device = device_model(like.as_deref());
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
            runs.push((name, load_under(&neff, &device).expect("load"), profile));
        }
    }
    let obs: Vec<Observation<'_>> = (runs.iter())
        .map(|(_, model, profile)| Observation { model, profile })
        .collect();
    let (table, notes) = fit_with_notes(&obs, &fitted());
    if report_mode {
        print!("{}", report(&runs, &obs, &table));
        return;
    }
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
                    neff_sim_report::compare::render(&neff_sim_report::compare::compare(
                        &r, profile
                    ))
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

/// The device model the runs are loaded under (D620): runtime 2.30.51 as the reference capture
/// (`--like CAPTURE`, its NEFF beside it; default the shared baseline_attention capture) shows
/// it, so each profiled pc is the instruction the hardware ran; the plain runtime model when the
/// capture is absent.
fn device_model(like: Option<&Path>) -> DeviceModel {
    let capture = like.unwrap_or(Path::new(neff_fixtures::REFERENCE_CAPTURE));
    if !capture.is_file() {
        eprintln!("{}: absent, the plain runtime model", capture.display());
        return DeviceModel::runtime();
    }
    let name = capture.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.split('.').next().unwrap_or(name);
    let neff = capture.with_file_name(format!("{stem}.neff"));
    runtime_like(capture, &neff).unwrap_or_else(|e| panic!("{e}"))
}

/// Per (engine, class): (paired instructions, measured ns sum, predicted ns sum).
type ClassSums = BTreeMap<(EngineType, CostClass), (u64, f64, f64)>;

/// Per engine of sg00: (engine, measured busy ns, simulated busy ns), from the library's comparison.
type EngineBusy = Vec<(EngineType, u64, u64)>;

/// Adds the paired instructions of `o` simulated with `table` to `sums`; returns sg00's
/// per-engine busy times (measured by neff-profile, simulated by neff-sim).
fn class_sums(o: &Observation<'_>, table: &CostTable, sums: &mut ClassSums) -> EngineBusy {
    let Ok(r) = simulate(o.model, &sg00_options(table, true)) else {
        return Vec::new();
    };
    let mut busy = EngineBusy::new();
    for sg in neff_sim_report::compare::compare(&r, o.profile).subgraphs {
        if sg.name == "sg00" {
            busy.extend(
                (sg.engines.iter()).map(|e| (e.engine, e.measured_busy_ns, e.predicted_busy_ns)),
            );
        }
        for k in sg.classes {
            let e = sums.entry((k.engine, k.class)).or_default();
            e.0 += k.count;
            e.1 += k.measured_mean_ns * k.count as f64;
            e.2 += k.predicted_mean_ns * k.count as f64;
        }
    }
    busy
}

fn pct(p: f64, m: f64) -> f64 {
    if m == 0.0 { 0.0 } else { 100.0 * (p - m) / m }
}

/// The markdown tables: spans and classes, in-sample and leave-one-out side by side.
fn report(
    runs: &[(String, LoadedModel, Profile)],
    obs: &[Observation<'_>],
    all: &CostTable,
) -> String {
    let loo = leave_one_out(obs, &fitted());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| run | measured sg00 span | in-sample error | leave-one-out error |"
    );
    let _ = writeln!(s, "| --- | ---: | ---: | ---: |");
    let (mut ins, mut outs) = (Vec::new(), Vec::new());
    let (mut sums_in, mut sums_out) = (ClassSums::new(), ClassSums::new());
    let mut busy_rows: Vec<(String, EngineType, u64, u64, Option<u64>)> = Vec::new();
    for ((name, _, profile), (o, t)) in runs.iter().zip(obs.iter().zip(&loo)) {
        let m = profile.span_ns("sg00").unwrap_or(0);
        let (a, b) = (span_error(o, all), span_error(o, t));
        let f = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:+.1}%"));
        let _ = writeln!(
            s,
            "| {name} | {:.3} us | {} | {} |",
            m as f64 / 1000.0,
            f(a),
            f(b)
        );
        ins.extend(a.map(f64::abs));
        outs.extend(b.map(f64::abs));
        let bi = class_sums(o, all, &mut sums_in);
        let bo = class_sums(o, t, &mut sums_out);
        for (e, m, p) in &bi {
            let lo = (bo.iter()).find(|x| x.0 == *e).map(|x| x.2);
            busy_rows.push((name.clone(), *e, *m, *p, lo));
        }
    }
    let q = |v: &mut Vec<f64>, p: f64| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n == 0 {
            return 0.0;
        }
        if p == 0.5 && n.is_multiple_of(2) {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        } else {
            v[((p * n as f64).ceil() as usize).clamp(1, n) - 1]
        }
    };
    let _ = writeln!(
        s,
        "| **median / p90 of abs(error)** | | **{:.1}% / {:.1}%** | **{:.1}% / {:.1}%** |",
        q(&mut ins, 0.5),
        q(&mut ins, 0.9),
        q(&mut outs, 0.5),
        q(&mut outs, 0.9)
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| run | engine | measured sg00 busy | in-sample busy | error | leave-one-out busy | error |"
    );
    let _ = writeln!(s, "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    let (mut bins, mut bouts) = (Vec::new(), Vec::new());
    for (name, e, m, p, lo) in &busy_rows {
        // An engine the profile never saw busy has no relative error (pct's 0 would flatter; D710).
        if *m == 0 {
            continue;
        }
        let (a, b) = (
            pct(*p as f64, *m as f64),
            lo.map(|l| pct(l as f64, *m as f64)),
        );
        bins.push(a.abs());
        bouts.extend(b.map(f64::abs));
        let _ = writeln!(
            s,
            "| {name} | {} | {:.3} us | {:.3} us | {a:+.1}% | {} | {} |",
            e.key(),
            *m as f64 / 1000.0,
            *p as f64 / 1000.0,
            lo.map_or("-".to_string(), |l| format!("{:.3} us", l as f64 / 1000.0)),
            b.map_or("-".to_string(), |v| format!("{v:+.1}%"))
        );
    }
    let _ = writeln!(
        s,
        "| **median / p90 of abs(error), {} (run, engine) pairs** | | | | **{:.1}% / {:.1}%** | | **{:.1}% / {:.1}%** |",
        bins.len(),
        q(&mut bins, 0.5),
        q(&mut bins, 0.9),
        q(&mut bouts, 0.5),
        q(&mut bouts, 0.9)
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| engine | class | instructions | measured mean | in-sample predicted | error | leave-one-out predicted | error |"
    );
    let _ = writeln!(s, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (k, (n, m, p)) in &sums_in {
        let (mm, pm) = (m / *n as f64, p / *n as f64);
        let lo = sums_out.get(k).map_or(0.0, |x| x.2 / x.0.max(1) as f64);
        let _ = writeln!(
            s,
            "| {} | {} | {n} | {mm:.1} ns | {pm:.1} ns | {:+.1}% | {lo:.1} ns | {:+.1}% |",
            k.0.key(),
            k.1.name(),
            pct(pm, mm),
            pct(lo, mm)
        );
    }
    s
}
