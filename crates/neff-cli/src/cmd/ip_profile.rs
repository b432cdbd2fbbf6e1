//! `neff ip FILE --profile PROFILE`: a neuron-profile report checked against the NEFF it is of
//! (decision D177): figures, then every disagreement; exit 1 on any.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, bail};
use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::model::{LoadOptions, load};
use neff_load::profile_check::{ProfileCheck, check_profile, check_profile_header};
use neff_lower::LowerOptions;
use neff_profile::{Profile, ReadLimits};
use serde_json::{Value, json};

use super::device_model_arg::DeviceModelArg;
use super::input::ReadFlags;

/// Runs the check; `Err` (exit 1) when the pair does not belong together or anything disagrees.
pub(crate) fn run(
    file: &Path,
    neff: &Neff<'_>,
    kelf: &Kelf<'_>,
    profile_path: &Path,
    (model, read): (&DeviceModelArg, &ReadFlags),
    as_json: bool,
) -> anyhow::Result<()> {
    let profile = Profile::read(profile_path, &ReadLimits::default())?;
    let h = neff.header();
    check_profile_header(&profile, h.uuid.as_bytes(), &h.hash).with_context(|| {
        format!(
            "{} is not a profile of {}",
            profile_path.display(),
            file.display()
        )
    })?;
    let options = LoadOptions {
        device: device_model(file, (profile_path, &profile), kelf, (model, read))?,
        drop_image_bytes: true,
        lower: LowerOptions {
            skip_descriptors: true,
            ..LowerOptions::default()
        },
        ..LoadOptions::default()
    };
    let loaded = load(kelf, &options).with_context(|| format!("loading {}", file.display()))?;
    let kbins = kelf.kbins()?;
    let source = |sg: &str, e| {
        kbins
            .iter()
            .find(|k| k.name == sg)
            .and_then(|k| k.engine(e))
            .map(|s| s.instr)
    };
    let check = check_profile(&profile, &loaded, &source);
    let label = super::capture_model::model_label(&options.device);
    let name = label.as_str();
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report_json(&check, name, profile_path))?
        );
    } else {
        print!("{}", report_text(&check, name, profile_path));
    }
    if !check.all_agree() {
        bail!(
            "{} disagreement(s) between the NEFF and the profile",
            check.disagreements.len()
        );
    }
    Ok(())
}

/// The device model the report is checked under: the one asked for; with neither
/// `--device-model` nor `--like`, a raw capture of another runtime version than the built-in
/// one (D850) teaches its own runtime (decision D853; as `neff sim --compare` does, D620: the pcs are that
/// runtime's), said on stderr; else the default.
fn device_model(
    file: &Path,
    (profile_path, profile): (&Path, &Profile),
    kelf: &Kelf<'_>,
    (model, read): (&DeviceModelArg, &ReadFlags),
) -> anyhow::Result<neff_load::DeviceModel> {
    let asked = model.asked();
    if !asked && kelf.target == neff_kelf::Target::Cayman {
        // The capture's facts, kept by the profile already read (a JSON report has none).
        if let Some(facts) = &profile.capture {
            let version = facts.runtime.as_ref().map(ToString::to_string);
            let built_in = neff_load::runtime_model::builtin::runtime_2_30_51();
            if version.as_deref() != Some(built_in.version.as_str()) {
                eprintln!(
                    "note: {} is a capture of runtime {}; its own runtime is learned from it (the \
                     built-in model is {})",
                    profile_path.display(),
                    version.as_deref().unwrap_or("unknown"),
                    built_in.version
                );
                return super::capture_model::learn(
                    &[profile_path.to_path_buf()],
                    Some(file),
                    read,
                    false,
                );
            }
        }
    }
    model.resolve(kelf.target, read)
}

/// `n/of (pct%)`.
fn ratio(n: usize, of: usize) -> String {
    let pct = if of == 0 {
        100.0
    } else {
        100.0 * n as f64 / of as f64
    };
    format!("{n}/{of} ({pct:.1}%)")
}

fn report_text(c: &ProfileCheck, model: &str, profile: &Path) -> String {
    let n = c.neff_instructions;
    let mut s = String::new();
    let _ = writeln!(s, "profile {} (device model: {model})", profile.display());
    let _ = writeln!(s, "NEFF instructions profiled  {n}");
    let _ = writeln!(
        s,
        "  device pc -> instruction  {}",
        ratio(c.forward_agree, n)
    );
    let _ = writeln!(
        s,
        "  instruction -> device pc  {}",
        ratio(c.reverse_agree, n)
    );
    let _ = writeln!(
        s,
        "  mnemonic                  {}",
        ratio(c.mnemonic_agree, n)
    );
    if c.runtime_instructions > 0 {
        let _ = writeln!(
            s,
            "runtime instructions        {} on the model's slots ({} of them opaque)",
            ratio(c.runtime_agree, c.runtime_instructions),
            c.runtime_opaque
        );
    }
    for d in &c.disagreements {
        let i = &d.instruction;
        let cpc = i.compiler_pc.map_or("-".to_string(), |c| c.to_string());
        let _ = writeln!(
            s,
            "disagree: {} {} pc {} compiler_pc {cpc} {}: {}",
            i.subgraph, i.label, i.pc, i.opcode, d.what
        );
    }
    s
}

fn report_json(c: &ProfileCheck, model: &str, profile: &Path) -> Value {
    let dis: Vec<Value> = c
        .disagreements
        .iter()
        .map(|d| {
            let i = &d.instruction;
            json!({
                "subgraph": i.subgraph,
                "engine": i.engine().map(|e| e.key()),
                "pc": i.pc,
                "compiler_pc": i.compiler_pc,
                "opcode": i.opcode,
                "what": d.what,
            })
        })
        .collect();
    json!({
        "device_model": model,
        "profile": profile.display().to_string(),
        "neff_instructions": c.neff_instructions,
        "forward_agree": c.forward_agree,
        "reverse_agree": c.reverse_agree,
        "mnemonic_agree": c.mnemonic_agree,
        "runtime_instructions": c.runtime_instructions,
        "runtime_agree": c.runtime_agree,
        "runtime_opaque": c.runtime_opaque,
        "disagreements": dis,
    })
}
