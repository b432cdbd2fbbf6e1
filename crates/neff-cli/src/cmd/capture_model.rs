//! A device model from a capture (`--like CAPTURE`, decision D463) and a load held against a
//! capture (`neff load --compare CAPTURE`, decision D466). The capture is read by neff-profile;
//! what is learned and compared lives in neff-load's runtime model.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use neff_load::DeviceModel;
use neff_load::model::{LoadOptions, LoadedModel, load_kbins_with_progress};
use neff_load::physical_core::PhysicalCore;
use neff_load::runtime_model::teacher_check::check_stream;
use neff_load::runtime_model::{
    EngineComparison, LearnedRuntime, Relocation, captured_streams, compare_engine, learn_capture,
};
use neff_lower::LowerOptions;
use neff_profile::{Capture, ReadLimits};
use serde_json::{Value, json};

use super::input::{ReadFlags, parse_neff, read_file};

/// A capture's decompressed bytes; the error names the file.
pub(crate) fn read_capture(path: &Path) -> anyhow::Result<Vec<u8>> {
    let (_, bytes) = neff_profile::input::load(path, &ReadLimits::default())?;
    Ok(bytes)
}

/// The NEFF a capture was made of: `neff` when given, else the `.neff` beside the capture
/// (`NAME.ntff[.gz]` -> `NAME.neff`).
fn captured_neff(capture: &Path, neff: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(n) = neff {
        return Ok(n.to_path_buf());
    }
    let name = capture
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let stem = name
        .strip_suffix(".ntff.gz")
        .or_else(|| name.strip_suffix(".ntff"))
        .unwrap_or(name);
    let beside = capture.with_file_name(format!("{stem}.neff"));
    if !beside.is_file() {
        bail!(
            "{}: learning a runtime needs the NEFF the capture ran (its content keys the regions); \
             none at {} — give it with --like-neff",
            capture.display(),
            beside.display()
        );
    }
    Ok(beside)
}

/// One capture read with the NEFF it ran.
struct Teacher {
    path: PathBuf,
    capture: Vec<u8>,
    neff_path: PathBuf,
    neff: Vec<u8>,
}

impl Teacher {
    fn read(capture: &Path, neff: Option<&Path>) -> anyhow::Result<Self> {
        let neff_path = captured_neff(capture, neff)?;
        Ok(Self {
            path: capture.to_path_buf(),
            capture: read_capture(capture)?,
            neff: read_file(&neff_path)?,
            neff_path,
        })
    }
}

/// Learns the runtime of `captures` (the regions of every stream, keyed by the content of the
/// captured NEFF's subgraphs; several captures of one runtime merged, each key from the first
/// that shows it: decision D854) and returns the device model that loads like it, once every
/// capture's own NEFF loads to its streams (decision D843; `unchecked`: a warning otherwise).
/// `neff` names the one capture's NEFF.
pub(crate) fn learn(
    captures: &[PathBuf],
    neff: Option<&Path>,
    read: &ReadFlags,
    unchecked: bool,
) -> anyhow::Result<DeviceModel> {
    let teachers = (captures.iter())
        .map(|c| Teacher::read(c, neff))
        .collect::<anyhow::Result<Vec<_>>>()?;
    // Each capture and NEFF parsed once, for learning and for the teacher check.
    let caps = (teachers.iter())
        .map(|t| Capture::parse(&t.capture).with_context(|| t.path.display().to_string()))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let neffs = (teachers.iter())
        .map(|t| parse_neff(&t.neff_path, &t.neff, read))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let kelfs = (neffs.iter().zip(&teachers))
        .map(|(n, t)| {
            neff_kelf::Kelf::from_neff(n).with_context(|| t.neff_path.display().to_string())
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let kbins = (kelfs.iter().zip(&teachers))
        .map(|(k, t)| k.kbins().with_context(|| t.neff_path.display().to_string()))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut learned = Vec::new();
    for ((t, cap), kbins) in teachers.iter().zip(&caps).zip(&kbins) {
        let l = learn_capture(cap, kbins).with_context(|| {
            format!(
                "learning the runtime of {} (run of {})",
                t.path.display(),
                t.neff_path.display()
            )
        })?;
        learned.push(l.named(t.path.display().to_string()));
    }
    let learned = match learned.len() {
        1 => learned.remove(0),
        _ => {
            let names: Vec<_> = captures.iter().map(|c| c.display().to_string()).collect();
            LearnedRuntime::merged(learned)
                .context("learning one runtime from the --like captures")?
                .named(names.join(", "))
        }
    };
    warn_unconfirmed(&learned);
    let device = DeviceModel::like(learned);
    for ((t, cap), kbins) in teachers.iter().zip(&caps).zip(&kbins) {
        match check_teacher(cap, kbins, &device, &t.path) {
            Err(e) if unchecked => eprintln!("warning: {e:#} (--like-unchecked: loading anyway)"),
            r => r?,
        }
    }
    Ok(device)
}

/// Warns, on stderr, of each engine and key whose PREAMBLE data words do not follow a rule for
/// the capture's own NEFF (decision D841): those words are the capture's for every NEFF.
fn warn_unconfirmed(learned: &LearnedRuntime) {
    for v in &learned.variants {
        for (holds, rule) in [
            (v.confirmed.masks, "DGE queue masks (D770)"),
            (v.confirmed.counts, "queue-14 DMA counts (D771)"),
        ] {
            if !holds {
                eprintln!(
                    "warning: {}: {} {}: the PREAMBLE's {rule} do not follow the rule for the \
                     capture's own NEFF; the capture's words are kept for every NEFF",
                    learned.capture, v.subgraph, v.engine
                );
            }
        }
    }
}

/// Warns, on stderr, of each pseudo-instruction kind of `kbins` the `--like` capture's NEFF never
/// uses, for a capture of another version than 2.30.51 (decision D845): its form is 2.30.51's,
/// unconfirmed.
pub(crate) fn warn_untaught(device: &DeviceModel, kbins: &[neff_kelf::Kbin<'_>]) {
    let Some(learned) = &device.learned else {
        return;
    };
    for k in kbins {
        for e in &k.engines {
            for u in learned.untaught_forms(&k.name, e.eng_type, e.instr) {
                eprintln!("warning: {u}");
            }
        }
    }
}

/// Loads the capture's own NEFF as the runtime learned from it and holds every stream against
/// the capture's, length and opcodes (decision D843): a learner that misread this runtime's
/// layout stops here, naming the capture, subgraph, engine and slot.
fn check_teacher(
    cap: &Capture<'_>,
    kbins: &[neff_kelf::Kbin<'_>],
    device: &DeviceModel,
    capture: &Path,
) -> anyhow::Result<()> {
    let options = LoadOptions {
        device: device.clone(),
        lower: LowerOptions {
            skip_descriptors: true,
            ..LowerOptions::default()
        },
        ..LoadOptions::default()
    };
    let name = capture.display().to_string();
    let model = load_kbins_with_progress(kbins, &options, &|_| {})
        .with_context(|| format!("{name}: loading the capture's own NEFF as learned from it"))?;
    for sg in &cap.facts.subgraphs {
        let loaded = model.subgraphs.iter().find(|s| s.name == sg.name);
        for s in &captured_streams(cap, sg) {
            let image = loaded
                .and_then(|l| l.engine(s.engine))
                .map_or(&[][..], |e| &e.image.bytes);
            check_stream(&name, &sg.name, image, s)?;
        }
    }
    Ok(())
}

/// One line naming the runtime a model is, for every report (the version with `--like`).
pub(crate) fn model_label(device: &DeviceModel) -> String {
    let built_in =
        |l| std::sync::Arc::ptr_eq(l, &neff_load::runtime_model::builtin::runtime_2_30_51());
    match &device.learned {
        // The runtime model's own regions (D850): the model is `runtime`, as before them.
        Some(l) if built_in(l) => device.name().to_owned(),
        Some(l) => format!(
            "{} (runtime {}, learned from {})",
            device.name(),
            l.version,
            l.capture
        ),
        None => device.name().to_owned(),
    }
}

/// The physical core each subgraph of `kbins` ran on in the capture `cap` (read from `capture`), in
/// kbin order (decision D816): what `--compare` loads for. A subgraph the capture lacks keeps the
/// default place (subgraph `i` on core `4 + i`), and so, with a note on stderr, does one whose
/// core number is not a trn2 device's 0-7 (the map's windows are per device).
pub(crate) fn capture_cores(
    cap: &Capture<'_>,
    capture: &Path,
    kbins: &[neff_kelf::Kbin<'_>],
) -> Vec<PhysicalCore> {
    let cores = kbins.iter().enumerate().map(|(i, k)| {
        let default = PhysicalCore::FRAME.plus(i).unwrap_or(PhysicalCore::FRAME);
        let Some(sg) = cap.facts.subgraphs.iter().find(|s| s.name == k.name) else {
            return default;
        };
        PhysicalCore::new(sg.core).unwrap_or_else(|| {
            eprintln!(
                "note: {}: {} ran on core {}, not a trn2 device's 0-7: loaded for {default}, its \
                 core words compared as they are",
                capture.display(),
                k.name,
                sg.core
            );
            default
        })
    });
    cores.collect()
}

/// Holds every loaded engine against the stream of the capture `cap` (read from `capture`);
/// prints the report (text or JSON) and returns whether every engine matched up to relocation.
pub(crate) fn compare(
    model: &LoadedModel,
    device: &DeviceModel,
    capture: &Path,
    cap: &Capture<'_>,
    json: bool,
) -> anyhow::Result<bool> {
    let mut rows = Vec::new();
    let mut all = true;
    for sg in &cap.facts.subgraphs {
        let Some(loaded) = model.subgraphs.iter().find(|s| s.name == sg.name) else {
            bail!(
                "{}: subgraph {} is not in the NEFF",
                capture.display(),
                sg.name
            );
        };
        let streams = captured_streams(cap, sg);
        let reloc = Relocation::between(device, &streams);
        for s in &streams {
            let Some(e) = loaded.engine(s.engine) else {
                bail!(
                    "{}: {} {} is not in the NEFF",
                    capture.display(),
                    sg.name,
                    s.engine
                );
            };
            let c = compare_engine(&e.image.bytes, s, &reloc);
            all &= c.matches();
            rows.push((sg.name.clone(), c));
        }
    }
    let runtime = cap.facts.runtime.as_ref().map(ToString::to_string);
    if let Some(l) = &device.learned
        && runtime.as_deref() != Some(l.version.as_str())
    {
        eprintln!(
            "note: {} is a capture of runtime {}, the model loads as runtime {}: `--like` a \
             capture of that runtime loads as it does",
            capture.display(),
            runtime.as_deref().unwrap_or("unknown"),
            l.version
        );
    }
    if json {
        let v = json!({
            "device_model": model_label(device),
            "capture_runtime": runtime,
            "matches": all,
            "engines": rows.iter().map(|(sg, c)| engine_json(sg, c)).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!(
            "compared with {} (runtime {}), device model {}",
            capture.display(),
            runtime.as_deref().unwrap_or("unknown"),
            model_label(device)
        );
        for (sg, c) in &rows {
            print!("{}", engine_text(sg, c));
        }
        let (slots, same, reloc) = rows.iter().fold((0, 0, 0), |(n, i, r), (_, c)| {
            (n + c.captured_slots, i + c.identical, r + c.relocated)
        });
        println!(
            "total: {same} of {slots} slots identical ({:.1}%), {} after relocation ({:.1}%): {}",
            percent(same, slots),
            same + reloc,
            percent(same + reloc, slots),
            if all { "match" } else { "DIFFERENT" }
        );
    }
    Ok(all)
}

fn percent(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

/// Slots listed per engine before the rest are counted.
const SHOWN_DIFFS: usize = 8;

fn engine_text(sg: &str, c: &EngineComparison) -> String {
    let mut s = format!(
        "{sg} {:<4} slots {} (capture {}), opcodes {}, identical {} ({:.1}%), relocated {}, differs {}\n",
        c.engine.key(),
        c.model_slots,
        c.captured_slots,
        if c.opcodes_equal { "same" } else { "DIFFER" },
        c.identical,
        percent(c.identical, c.captured_slots),
        c.relocated,
        c.differs.len()
    );
    for (slot, d) in c.differs.iter().take(SHOWN_DIFFS) {
        let fields: Vec<_> = d.iter().map(|f| f.field.as_str()).collect();
        s += &format!("    slot {slot}: {}\n", fields.join(", "));
    }
    if c.differs.len() > SHOWN_DIFFS {
        s += &format!("    ... {} more\n", c.differs.len() - SHOWN_DIFFS);
    }
    s
}

fn engine_json(sg: &str, c: &EngineComparison) -> Value {
    json!({
        "subgraph": sg,
        "engine": c.engine.key(),
        "slots": c.model_slots,
        "captured_slots": c.captured_slots,
        "opcodes_equal": c.opcodes_equal,
        "identical": c.identical,
        "relocated": c.relocated,
        "runtime_slots_identical": c.runtime_identical.0,
        "runtime_slots": c.runtime_identical.1,
        "differs": c.differs.iter().map(|(slot, d)| json!({
            "slot": slot,
            "fields": d.iter().map(|f| json!({
                "field": f.field, "bytes": [f.bytes.start, f.bytes.end],
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}
