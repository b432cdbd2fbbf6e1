//! The four profiled trn2 NEFFs (fixtures/real/profiled) under the runtime device model: every
//! subgraph runs to completion, and the engines start MAIN in the order the hardware does — the
//! order the runtime's `$S[2]` barrier chain releases them (decision D172).

use neff_container::Neff;
use neff_isa::EngineType;
use neff_kelf::Kelf;
use neff_load::device_model::DeviceModel;
use neff_load::model::{LoadOptions, LoadedModel, load};
use neff_profile::{Profile, ReadLimits};
use neff_sim::{SimOptions, simulate};

use neff_fixtures::{PROFILED_DIR as DIR, PROFILED_NAMES as NAMES};

/// Whether the profiled pairs are there (skipped with a message, or failing under the switch).
fn present() -> bool {
    neff_fixtures::present(DIR)
}

/// Profiled NEFF `name` loaded under `device` (a runtime model: its pcs are the hardware's,
/// D171-D174).
fn load_under(name: &str, device: DeviceModel) -> LoadedModel {
    let bytes = std::fs::read(format!("{DIR}/{name}.neff")).unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let opts = LoadOptions {
        device,
        ..LoadOptions::default()
    };
    load(&kelf, &opts).unwrap()
}

/// The neuron-profile report of profiled NEFF `name`.
fn profile(name: &str) -> Profile {
    Profile::read(
        format!("{DIR}/{name}.profile.json.gz").as_ref(),
        &ReadLimits::default(),
    )
    .unwrap()
}

/// Hardware starts closer than this are a tie (sg01: Activation and PE 0-1 ns apart).
const TIE_NS: f64 = 20.0;

/// The pairs of engines the hardware starts at least [`TIE_NS`] apart, each as (earlier,
/// later), and whether `sim` starts them in the same order.
fn disagreements(
    hw: &[(EngineType, f64)],
    sim: &[(EngineType, f64)],
) -> Vec<(EngineType, EngineType)> {
    let at = |v: &[(EngineType, f64)], e| v.iter().find(|x| x.0 == e).map(|x| x.1);
    let mut out = Vec::new();
    for &(a, ta) in hw {
        for &(b, tb) in hw {
            if tb - ta >= TIE_NS && !matches!((at(sim, a), at(sim, b)), (Some(x), Some(y)) if x < y)
            {
                out.push((a, b));
            }
        }
    }
    out
}

/// The last barrier round releases the engines SP, DVE, Pool, Activation, PE, one chain hop
/// apart; MAIN starts in that order when the barrier steps and DRAINs cost what the captures'
/// PREAMBLEs show (D741: the `BARRIER` and `DRAIN` rows), not MAIN's EVENT_SEMAPHORE costs.
/// Held on the rules' regions, whose INIT slots are opaque: with the runtime's own INIT bytes
/// (the default model since D850), each timed by its opcode's row, DVE starts after Pool on
/// baseline_attention (simulated 6.70 / 5.49 us, hardware 13.52 / 13.55 us; D850).
#[test]
fn profiled_neffs_run_and_start_main_in_the_hardware_order() {
    if !present() {
        return;
    }
    for name in NAMES {
        let sim = SimOptions {
            record: true,
            ..SimOptions::default()
        };
        let r = simulate(&load_under(name, DeviceModel::runtime_rules()), &sim).unwrap();
        assert!(r.deadlock.is_none(), "{name}: {:?}", r.deadlock);
        let p = profile(name);
        for sg in &r.subgraphs {
            let tl = sg.timeline.as_ref().unwrap();
            let sim_starts: Vec<(EngineType, f64)> = EngineType::ALL
                .iter()
                .filter_map(|&e| {
                    let s = tl
                        .slices
                        .iter()
                        .find(|s| s.engine == e && s.slot.is_some())?;
                    Some((e, s.start_ns))
                })
                .collect();
            let hw_starts: Vec<(EngineType, f64)> = EngineType::ALL
                .iter()
                .filter_map(|&e| {
                    let t = p
                        .neff_instructions(&sg.name)
                        .filter(|i| i.engine() == Some(e));
                    Some((e, t.map(|i| i.timestamp).min()? as f64))
                })
                .collect();
            assert_eq!(
                disagreements(&hw_starts, &sim_starts),
                vec![],
                "{name} {}: hardware {hw_starts:?}, simulated {sim_starts:?}",
                sg.name
            );
        }
    }
}

/// Each profile's measured MAIN span of sg00 (the subgraph that does the work) predicted by the
/// table fitted on every shared capture. Issue 16's goal was 10% on these four alone; fitted on
/// all seven runs (D443) they land at -12% to -28% (docs/performance.md "Cost model", D444), so
/// the bound is 30%; the held-out figure is tests/leave_one_out.rs's.
#[test]
fn sg00_spans_within_thirty_percent_of_the_hardware() {
    if !present() {
        return;
    }
    for name in NAMES {
        let r = simulate(
            &load_under(name, DeviceModel::runtime()),
            &SimOptions::default(),
        )
        .unwrap();
        let p = profile(name);
        let measured = p.span_ns("sg00").unwrap() as f64;
        let predicted = r.subgraphs[0].span_ns as f64;
        let err = (predicted - measured) / measured;
        assert!(
            err.abs() <= 0.30,
            "{name}: measured {measured} ns, predicted {predicted} ns ({:+.1}%)",
            100.0 * err
        );
    }
}
