//! The spec sample (spec 003 §7) simulated: it runs to completion along the dataflow of
//! spec 003 §7.3; with POOL's first trigger gated on `$S[22]` it deadlocks, POOL and PE each
//! waiting on the other.

use neff_container::{Neff, NeffBuilder};
use neff_isa::EngineType;
use neff_kelf::Kelf;
use neff_load::model::{LoadOptions, LoadedModel, load};
use neff_sim::{SimOptions, simulate};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");

fn load_bytes(bytes: &[u8]) -> LoadedModel {
    let neff = Neff::parse(bytes).expect("NEFF");
    let kelf = Kelf::from_neff(&neff).expect("kelf");
    load(&kelf, &LoadOptions::default()).expect("load")
}

/// The sample with POOL slot 0 (`PSEUDO_DMA_TRIGGER q_gradient_in`) made to wait `$S[22]>0`:
/// `$S[22]` is raised only by PE's collective, which waits on `$S[10]`, raised only by that
/// trigger's transfer.
pub fn deadlocking_sample() -> Vec<u8> {
    let bytes = std::fs::read(SAMPLE).expect("sample");
    let neff = Neff::parse(&bytes).expect("NEFF");
    let mut pool = neff.member("sg00/pool.bin").expect("pool.bin").to_vec();
    pool[4] = 0x04; // wait_mode SEM_GT_IMM (spec 003 §7.2 slot 1 uses the same)
    pool[5] = 22;
    let mut b = NeffBuilder::from_neff(&neff);
    b.replace("sg00/pool.bin", pool).expect("member");
    b.build().expect("build")
}

fn record() -> SimOptions {
    SimOptions {
        record: true,
        ..SimOptions::default()
    }
}

#[test]
fn the_sample_runs_to_completion_in_dataflow_order() {
    let model = load_bytes(&std::fs::read(SAMPLE).unwrap());
    let r = simulate(&model, &record()).unwrap();
    assert!(r.deadlock.is_none());
    let sg = &r.subgraphs[0];
    assert!(sg.span_ns > 0 && !sg.deadlocked);
    let n = |e: EngineType| sg.engines.iter().find(|x| x.engine == e).unwrap();
    assert_eq!(n(EngineType::Pool).instructions, 3);
    assert_eq!(n(EngineType::Pe).instructions, 1);
    // spec 003 §7.3: POOL slot 0 -> transfer (sem 10) -> PE collective ($S[22]) -> POOL slot 1
    // -> transfer (sem 11) -> POOL slot 2.
    let tl = sg.timeline.as_ref().unwrap();
    let start = |e: EngineType, slot: u32| {
        tl.slices
            .iter()
            .find(|s| s.engine == e && s.slot == Some(slot))
            .map(|s| (s.start_ns, s.start_ns + s.dur_ns))
            .unwrap()
    };
    let (p0, _) = start(EngineType::Pool, 0);
    let (c0, c1) = start(EngineType::Pe, 0);
    let (p1, _) = start(EngineType::Pool, 1);
    let (p2, _) = start(EngineType::Pool, 2);
    let t_in = &tl.transfers[0];
    assert_eq!(
        (t_in.queue.as_str(), t_in.semaphore),
        ("q_gradient_in", Some(10))
    );
    assert!(
        p0 <= t_in.start_ns && c0 + 1e-6 >= t_in.start_ns + t_in.dur_ns,
        "{p0} {c0} {t_in:?}"
    );
    assert!(
        p1 + 1e-6 >= c1,
        "POOL slot 1 waits for the collective's $S[22]++@complete"
    );
    let t_out = &tl.transfers[1];
    assert_eq!(
        (t_out.queue.as_str(), t_out.semaphore),
        ("q_gradient_out", Some(11))
    );
    assert!(p2 + 1e-6 >= t_out.start_ns + t_out.dur_ns);
    // The sample leaves its semaphores raised (the spec-built POSTAMBLE resets none).
    assert!(
        r.warnings.iter().any(|w| matches!(
            w,
            neff_sim::SimWarning::SemaphoresNotRestored { semaphores, .. }
                if semaphores.iter().any(|&(i, now, _)| (i, now) == (22, 1))
        )),
        "{:?}",
        r.warnings
    );
}

#[test]
fn gating_the_first_trigger_on_s22_deadlocks_pool_and_pe() {
    let model = load_bytes(&deadlocking_sample());
    let r = simulate(&model, &SimOptions::default()).unwrap();
    let d = r.deadlock.expect("a deadlock");
    assert_eq!(d.subgraph, "sg00");
    let pool = d
        .blocked
        .iter()
        .find(|b| b.engine == EngineType::Pool)
        .unwrap();
    let pe = d
        .blocked
        .iter()
        .find(|b| b.engine == EngineType::Pe)
        .unwrap();
    assert_eq!((pool.slot, pe.slot), (Some(0), Some(0)));
    assert_eq!(pool.waits[0].condition, "$S[22] > 0");
    assert_eq!(pool.waits[0].writers, vec!["pe"]);
    assert_eq!(pe.waits[0].condition, "$S[10] > 0");
    assert_eq!(pe.waits[0].writers, vec!["queue q_gradient_in (pool)"]);
    assert!(pe.text.starts_with("WRITE $S[10]>0"), "{}", pe.text);
    assert_eq!(d.cycle.len(), 3);
    assert_eq!(d.cycle.first(), d.cycle.last());
    assert!(d.cycle.contains(&EngineType::Pool) && d.cycle.contains(&EngineType::Pe));
    assert!(d.message.contains("wait cycle"), "{}", d.message);
    assert!(r.subgraphs[0].deadlocked);
}

#[test]
fn the_step_bound_stops_a_run() {
    let model = load_bytes(&std::fs::read(SAMPLE).unwrap());
    let opts = SimOptions {
        max_steps: 3,
        ..SimOptions::default()
    };
    let e = simulate(&model, &opts).unwrap_err();
    assert!(e.to_string().contains("step bound"), "{e}");
}

/// D760: without the timeline, recording still gives the same totals, classes and critical
/// path (they read the records), and no timeline is built.
#[test]
fn recording_without_the_timeline_keeps_every_total() {
    let model = load_bytes(&std::fs::read(SAMPLE).unwrap());
    let with = simulate(&model, &record()).unwrap();
    let without = simulate(
        &model,
        &SimOptions {
            timeline: false,
            ..record()
        },
    )
    .unwrap();
    let (a, b) = (&with.subgraphs[0], &without.subgraphs[0]);
    assert!(a.timeline.as_ref().is_some_and(|t| !t.slices.is_empty()));
    assert!(b.timeline.is_none());
    assert!(!b.critical_path.is_empty() && !b.classes.is_empty());
    assert_eq!(with.report_json(), without.report_json());
}

/// D834: the programs compiled from a viewing load's images, run after the views and the package
/// are gone, give `simulate`'s result — the deadlock's disassembled instructions (read from the
/// kept records) included.
#[test]
fn programs_compiled_from_views_give_simulates_result() {
    let no_text = SimOptions {
        slice_text: false,
        ..record()
    };
    let samples = [std::fs::read(SAMPLE).unwrap(), deadlocking_sample()];
    for (bytes, options) in samples
        .iter()
        .flat_map(|b| [(b, record()), (b, no_text.clone())])
    {
        let whole = simulate(&load_bytes(bytes), &options).unwrap();
        let (model, compiled) = {
            let neff = Neff::parse(bytes).expect("NEFF");
            let kelf = Kelf::from_neff(&neff).expect("kelf");
            let kbins = kelf.kbins().expect("kbins");
            let (model, views) =
                neff_load::model::load_kbins_viewing(&kbins, &LoadOptions::default())
                    .expect("load");
            assert!(
                model.subgraphs[0]
                    .engines
                    .iter()
                    .all(|e| e.image.bytes.is_empty())
            );
            let compiled = neff_sim::compile_views(&model, &views, &options);
            (model, compiled)
        };
        let viewed = neff_sim::simulate_compiled(&model, &compiled, &options).unwrap();
        assert_eq!(format!("{viewed:?}"), format!("{whole:?}"));
        if let Some(d) = &viewed.deadlock {
            assert!(d.blocked.iter().all(|b| !b.text.is_empty()), "{d:?}");
        }
    }
}

/// D816: under the runtime model the sample's static triggers are broadcast WRITEs to its core's
/// DMA banks (D580); placed on any core, the image is moved there and the simulator still reads
/// each WRITE as its queue's trigger: the same run, both queues moving their block.
#[test]
fn the_runtime_models_sample_runs_alike_on_every_core() {
    use neff_load::DeviceModel;
    use neff_load::physical_core::PhysicalCore;

    let bytes = std::fs::read(SAMPLE).expect("sample");
    let neff = Neff::parse(&bytes).expect("NEFF");
    let kelf = Kelf::from_neff(&neff).expect("kelf");
    let run = |core: u64| {
        let options = LoadOptions {
            device: DeviceModel {
                cores: vec![PhysicalCore::new(core).unwrap()],
                ..DeviceModel::runtime()
            },
            ..LoadOptions::default()
        };
        let model = load(&kelf, &options).expect("load");
        simulate(&model, &SimOptions::default())
            .expect("sim")
            .report_json()
    };
    let frame = run(4);
    let queues = frame["subgraphs"][0]["queues"].as_array().expect("queues");
    assert_eq!(queues.len(), 2, "{queues:?}");
    assert!(queues.iter().all(|q| q["transfers"] == 1), "{queues:?}");
    for core in [0, 1, 5, 7] {
        assert_eq!(run(core), frame, "core {core}");
    }
}
