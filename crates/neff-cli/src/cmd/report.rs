//! `neff report FILE [--profile PROFILE.json[.gz]] [--device-model NAME] -o report.html`: one self-contained HTML page
//! of a NEFF (neff-report): header, members, per-engine region maps, patch rows and instruction
//! mix, DMA queues, the simulated timeline (neff-sim), and with a profile the comparison.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use neff_diff::{Input, Side};
use neff_load::model::{LoadOptions, LoadedModel, load_kbins_with_progress};
use neff_report::{ProfileInput, ReportInput, TimelineInput};
use neff_sim::{SimOptions, SimResult, simulate};

use super::device_model_arg::DeviceModelArg;
use super::input::{NeffInput, read_file};

/// Write one HTML file that opens offline (style, script and graphics inline) with the sections
/// `header`, `members`, `engines` (per subgraph and engine: the loaded image's regions to scale,
/// patch rows, instruction mix by kind), `dma` (queues, descriptors, bytes moved), `timeline`
/// (the run neff sim models: a lane per engine and DMA queue, zoom and pan) and, with --profile,
/// `profile-compare` (the measured timeline under the simulated one, per-class durations).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    /// The HTML file to write (atomically).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// A profile of the same NEFF to compare the run with: a raw capture (.ntff, plain or .gz)
    /// or a neuron-profile JSON report (plain or .gz). The page then opens with the answer.
    #[arg(long, value_name = "PROFILE")]
    profile: Option<PathBuf>,
    #[command(flatten)]
    model: DeviceModelArg,
    /// Instructions per subgraph before the simulation is stopped as a runaway.
    #[arg(long, value_name = "N", default_value_t = neff_sim::DEFAULT_MAX_STEPS)]
    max_steps: u64,
    /// Another NEFF to diff this one against (`neff diff FILE OTHER`, shown in section `against`).
    #[arg(long, value_name = "OTHER.neff")]
    against: Option<PathBuf>,
}

/// The last path component, for the page.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Runs `neff report`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    let neff = args.input.parse(&bytes)?;
    let kelf = args.input.kelf(&neff)?;
    let kbins = args.input.kbins(&kelf, None)?;
    let profile = match &args.profile {
        Some(p) => Some(read_profile(&args, p, neff.header())?),
        None => None,
    };
    let options = LoadOptions {
        device: args.model.resolve(kelf.target, &args.input.read)?,
        ..LoadOptions::default()
    };
    // A NEFF that does not load still gets its page: everything but the images (decision D273).
    let loaded = load_kbins_with_progress(&kbins, &options, &|_| {});
    let load_error = loaded.as_ref().err().map(|e| format!("{e:#}"));
    if let Some(e) = &load_error {
        warn(
            &args,
            &format!("not loaded ({e}); the page shows what does not need the load"),
        );
    }
    let run = loaded.as_ref().ok().map(|m| sim(&args, m, kelf.target));
    let (sim_result, sim_error) = match &run {
        Some(Ok(r)) => (Some(r), None),
        Some(Err(e)) => (None, Some(e.as_str())),
        None => (None, None),
    };
    if profile.is_some() && sim_result.is_none() {
        bail!(
            "{}: --profile needs a simulated run, and there is none ({})",
            args.input.file.display(),
            sim_error.or(load_error.as_deref()).unwrap_or_default()
        );
    }
    let comparison = profile
        .as_ref()
        .zip(sim_result)
        .map(|(p, r)| neff_sim_report::compare::compare(r, p));
    let not_run = format!(
        "No simulation is available: {}",
        sim_error.or(load_error.as_deref()).unwrap_or_default()
    );
    let name = file_name(&args.input.file);
    let profile_name = args.profile.as_deref().map(file_name).unwrap_or_default();
    let mut input = ReportInput::new(&name, &neff, &kelf, &kbins, loaded.as_ref());
    let label = super::capture_model::model_label(&options.device);
    input.device_model = &label;
    input.timeline = match sim_result {
        Some(r) => TimelineInput::Simulated(r),
        None => TimelineInput::Unavailable(&not_run),
    };
    let debug = match &profile {
        Some(_) => super::debug_info::load(&args.input.file, &neff, false),
        None => neff_debug::DebugInfo::default(),
    };
    input.profile = profile
        .as_ref()
        .zip(sim_result)
        .zip(comparison.as_ref())
        .map(|((profile, run), comparison)| ProfileInput {
            name: &profile_name,
            profile,
            run,
            comparison,
            debug: Some(&debug),
        });
    // `--against OTHER`: the diff of this NEFF (side A) against OTHER (side B), as `neff diff`.
    let other_name = args.against.as_deref().map(file_name).unwrap_or_default();
    let other = args.against.as_deref().map(read_file).transpose()?;
    let options = neff_diff::DiffOptions {
        read: args.input.read.options()?,
        time: Some(neff_diff::time::TimeOptions {
            regions: args.model.device_model,
            max_steps: args.max_steps,
        }),
        ..neff_diff::DiffOptions::default()
    };
    let neff_b = match &other {
        Some(b) => Some(Input::parse(Side::B, &other_name, b, &options.read)?),
        None => None,
    };
    let (ia, ib, diff);
    if let Some(nb) = &neff_b {
        ia = Input::new(Side::A, &name, &neff)?;
        ib = Input::new(Side::B, &other_name, nb)?;
        diff = neff_diff::diff(&ia, &ib, &options);
        input.against = Some(&diff);
    }
    let html = neff_report::render(&input);
    neff_container::write_atomic(&args.output, html.as_bytes())
        .with_context(|| format!("writing {}", args.output.display()))?;
    println!("{}: {} bytes", args.output.display(), html.len());
    Ok(())
}

/// The profile at `path`, refused when its `neff_header` names another NEFF (decisions D177,
/// D276).
fn read_profile(
    args: &Args,
    path: &Path,
    header: &neff_container::Header,
) -> anyhow::Result<neff_profile::Profile> {
    let profile = neff_profile::Profile::read(path, &neff_profile::ReadLimits::default())?;
    neff_load::profile_check::check_profile_header(&profile, header.uuid.as_bytes(), &header.hash)
        .with_context(|| {
            format!(
                "{} is not a profile of {}",
                path.display(),
                args.input.file.display()
            )
        })?;
    Ok(profile)
}

/// The simulated run with its timeline, or why there is none (a deadlock is a run: the page
/// shows it).
fn sim(args: &Args, model: &LoadedModel, target: neff_kelf::Target) -> Result<SimResult, String> {
    let options = SimOptions {
        cost: neff_sim::cost::CostModel::for_target(target),
        max_steps: args.max_steps,
        record: true,
        ..SimOptions::default()
    };
    let result = simulate(model, &options).map_err(|e| format!("the simulator stopped: {e}"));
    match &result {
        Ok(r) => r.warnings.iter().for_each(|w| warn(args, &w.to_string())),
        Err(e) => warn(args, e),
    }
    result
}

/// A warning on stderr naming the file.
fn warn(args: &Args, what: &str) {
    eprintln!("warning: {}: {what}", args.input.file.display());
}
