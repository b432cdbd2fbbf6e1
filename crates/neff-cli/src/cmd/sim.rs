//! `neff sim FILE [--json] [--trace OUT.json] [--compare PROFILE.json[.gz]]`: run the loaded
//! program on a model of the NeuronCore (neff-sim) and report the time, per engine and on the
//! critical path; a deadlock is reported with its wait cycle and exits 1.

use std::path::PathBuf;

use anyhow::{Context, bail};
use neff_debug::DebugInfo;
use neff_isa::EngineType;
use neff_kelf::Target;
use neff_load::DeviceModel;
use neff_load::LoadError;
use neff_load::model::{LoadOptions, LoadedModel, load, load_kbins_viewing};
use neff_lower::LowerOptions;
use neff_sim::cost::{Clocks, CostModel, Knobs};
use neff_sim::{CompiledModel, SimOptions, simulate};

use super::device_model_arg::DeviceModelArg;
use super::input::NeffInput;

/// Simulate a NEFF on a model of the NeuronCore: span, per-engine time, critical path,
/// deadlocks.
///
/// `--json` prints {"subgraphs": [{"name", "span_ns", "main_start_ns", "total_ns", "engines":
/// [{"engine", "busy_ns", "wait_ns", "idle_ns", "instructions", "total_instructions"}],
/// "queues": [{"name", "transfers", "bytes", "busy_ns"}], "classes": [{"engine", "class",
/// "count", "mean_ns"}], "critical_path": [{"on", "start_ns", "end_ns", "instructions",
/// "first_slot", "last_slot", "what"}], "deadlocked"}], "deadlock": null | {"subgraph",
/// "at_ns", "blocked": [{"engine", "region", "slot", "offset", "text", "waits": [{"object",
/// "condition", "value", "writers"}]}], "cycle", "message"}, "warnings": [...]}; with
/// --compare, a "compare" key (see --help of --compare); with --by-source, "busy_ns",
/// "no_source_ns", "no_bir_ns", "by_source": [{"file", "line", "busy_ns", "measured_ns"?,
/// "instructions"}] and "by_bir": [{"subgraph", "bir", "busy_ns", "measured_ns"?,
/// "instructions"}] (docs/json.md).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    #[command(flatten)]
    model: DeviceModelArg,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Write a Chrome trace-event JSON (open in https://ui.perfetto.dev or chrome://tracing).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Compare with a profile of the same NEFF — a raw capture (`.ntff`) or a neuron-profile
    /// JSON report, plain or .gz: measured vs predicted span, per-engine busy time, residuals
    /// per class, per DMA queue and per source line, largest errors. A trn2 NEFF compared with
    /// a raw capture, without --device-model or --like, is loaded like the runtime that
    /// capture shows (learned from it: the images the hardware ran).
    #[arg(long, value_name = "PROFILE")]
    compare: Option<PathBuf>,
    /// What-if: the engines' clock, GHz (the non-PE engines; the PE array keeps its ratio to
    /// them). Default: the NEFF's target (trn2 1.2 GHz, PE 2.4; trn1 1.4 GHz).
    #[arg(long, value_name = "GHZ")]
    clock: Option<f64>,
    /// What-if: the core's DMA bandwidth, GB/s, shared by its DMA engines (default: the fitted
    /// per-engine rate, 16 engines x ~27 GB/s).
    #[arg(long, value_name = "GBPS")]
    dma_bandwidth: Option<f64>,
    /// What-if: an engine's speed factor, `ENGINE=FACTOR` (pe, act, pool, dve, sp; 2 halves
    /// its costs); repeat or separate by commas.
    #[arg(long, value_name = "ENGINE=FACTOR", value_delimiter = ',')]
    engine_speed: Vec<String>,
    /// Sum the simulated time (and with --compare the measured time) per source line and per
    /// BIR instruction, from the NEFF's debug info: which line of the kernel is the bottleneck.
    #[arg(long)]
    by_source: bool,
    /// With --by-source, how many lines and BIR instructions the text shows.
    #[arg(long, value_name = "N", default_value_t = 20)]
    top: usize,
    /// Only this subgraph.
    #[arg(long)]
    subgraph: Option<String>,
    /// Instructions per subgraph before a run is stopped as a runaway.
    #[arg(long, value_name = "N", default_value_t = neff_sim::DEFAULT_MAX_STEPS)]
    max_steps: u64,
}

/// The device model: the one asked for; with neither `--device-model` nor `--like` and a raw
/// capture to compare with, the runtime that capture shows, learned from it and this NEFF
/// (decision D620: the images timed are the ones the hardware ran, so every measured pc pairs
/// with its instruction); the default when that capture cannot be learned from (said on stderr).
fn device_model(args: &Args, target: Target) -> anyhow::Result<DeviceModel> {
    let asked = args.model.asked();
    let file = &args.input.file;
    let capture = match &args.compare {
        Some(p) if !asked && target == Target::Cayman && file.as_os_str() != "-" => {
            let (kind, _) = neff_profile::input::load(p, &neff_profile::ReadLimits::default())?;
            (kind == neff_profile::input::InputKind::Capture).then_some(p)
        }
        _ => None,
    };
    if let Some(p) = capture {
        match super::capture_model::learn(
            std::slice::from_ref(p),
            Some(file),
            &args.input.read,
            false,
        ) {
            Ok(d) => return Ok(d),
            Err(e) => eprintln!("note: {e:#}; the default device model is used"),
        }
    }
    args.model.resolve(target, &args.input.read)
}

/// Runs `neff sim`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let (model, compiled, target, debug) = load_model(&args)?;
    let sim_options = sim_options(&args, target)?;
    let result = match &compiled {
        Some(c) => neff_sim::simulate_compiled(&model, c, &sim_options),
        None => simulate(&model, &sim_options),
    }
    .with_context(|| format!("simulating {}", args.input.file.display()))?;
    for w in &result.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(path) = &args.trace {
        let text = neff_sim_report::trace::chrome_trace(&result);
        neff_container::write_atomic(path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let profile = match &args.compare {
        Some(p) => Some(neff_profile::Profile::read(
            p,
            &neff_profile::ReadLimits::default(),
        )?),
        None => None,
    };
    let comparison = profile
        .as_ref()
        .map(|p| neff_sim_report::compare::compare(&result, p));
    let by_source = debug.map(|d| {
        let info = super::debug_info::report(&args.input.file, d, true);
        neff_sim_report::by_source::by_source(&result, &info, profile.as_ref())
    });
    if args.json {
        let mut v = result.report_json();
        if let Some(obj) = v.as_object_mut() {
            if let Some(c) = &comparison {
                obj.insert("compare".into(), serde_json::to_value(c)?);
            }
            if let Some(serde_json::Value::Object(b)) =
                by_source.as_ref().map(serde_json::to_value).transpose()?
            {
                obj.extend(b);
            }
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", neff_sim_report::text::render(&result));
        if let Some(c) = &comparison {
            print!("{}", neff_sim_report::compare::render(c));
        }
        if let Some(b) = &by_source {
            print!("{}", neff_sim_report::by_source::render(b, args.top));
        }
    }
    if let Some(d) = &result.deadlock {
        bail!("{}", d.message);
    }
    Ok(())
}

/// The simulator's options the flags ask for.
fn sim_options(args: &Args, target: Target) -> anyhow::Result<SimOptions> {
    Ok(SimOptions {
        cost: CostModel::with_knobs(knobs(args, target)?),
        max_steps: args.max_steps,
        record: true,
        // Only the trace, the comparison and the per-source sums read the timeline (D760).
        timeline: args.trace.is_some() || args.compare.is_some() || args.by_source,
        // Only the trace shows a slice's disassembly (D367).
        slice_text: args.trace.is_some(),
        subgraphs: args.subgraph.iter().cloned().collect(),
    })
}

/// Reads, parses and loads the NEFF: the loaded model, its programs when compiled already, the
/// NEFF's target and, with `--by-source`, its debug info (read now, reported after the run). The
/// file is freed once inflated (D831). Without `--trace` the images are loaded as views of the
/// package and compiled into the simulator's programs at once (D834): the package and the views
/// are then freed before the run, so the images never cost a second copy of their streams and the
/// run's records never sit beside the package. `--trace` shows every slice's disassembly, so it
/// keeps its images (the model owns them, and the package is freed here, before the simulator
/// builds its programs and records, D760).
fn load_model(
    args: &Args,
) -> anyhow::Result<(
    LoadedModel,
    Option<CompiledModel>,
    Target,
    Option<DebugInfo>,
)> {
    let loading = || format!("loading {}", args.input.file.display());
    let neff = args.input.open()?;
    let kelf = args.input.kelf(&neff)?;
    let target = kelf.target;
    let options = LoadOptions {
        device: device_model(args, target)?,
        lower: LowerOptions::default(),
        ..LoadOptions::default()
    };
    if args.trace.is_some() {
        let model = load(&kelf, &options).with_context(loading)?;
        check_subgraph(args, &model)?;
        let debug = args.by_source.then(|| DebugInfo::load(&neff));
        return Ok((model, None, target, debug));
    }
    // As `load` reads them (its errors included); dropped with the kelf before decoding.
    let (model, views) = (kelf.kbins())
        .map_err(|e| LoadError::Input(e.to_string()))
        .and_then(|kbins| load_kbins_viewing(&kbins, &options))
        .with_context(loading)?;
    drop(kelf);
    check_subgraph(args, &model)?;
    let debug = args.by_source.then(|| DebugInfo::load(&neff));
    let compiled = neff_sim::compile_views(&model, &views, &sim_options(args, target)?);
    // The views borrow the package: both go now, before the run allocates its records.
    drop(views);
    drop(neff);
    Ok((model, Some(compiled), target, debug))
}

/// `--subgraph` names a subgraph of the model.
fn check_subgraph(args: &Args, model: &LoadedModel) -> anyhow::Result<()> {
    if let Some(sg) = &args.subgraph
        && !model.subgraphs.iter().any(|s| &s.name == sg)
    {
        bail!("{}: no subgraph `{sg}`", args.input.file.display());
    }
    Ok(())
}

/// The machine the flags describe.
fn knobs(args: &Args, target: Target) -> anyhow::Result<Knobs> {
    let positive = |what: &str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            bail!("{what} must be a positive number, not {v}")
        }
    };
    let mut k = Knobs {
        clocks: Clocks::of_target(target),
        ..Knobs::default()
    };
    if let Some(c) = args.clock {
        k.clocks = k.clocks.at(positive("--clock", c)?);
    }
    if let Some(b) = args.dma_bandwidth {
        k.dma_gbps = Some(positive("--dma-bandwidth", b)?);
    }
    for spec in &args.engine_speed {
        let Some((name, factor)) = spec.split_once('=') else {
            bail!("--engine-speed {spec}: expected ENGINE=FACTOR (e.g. pe=1.5)");
        };
        let Some(engine) = EngineType::ALL.into_iter().find(|e| e.key() == name) else {
            bail!("--engine-speed {spec}: unknown engine `{name}` (pe, act, pool, dve, sp)");
        };
        let f: f64 = factor
            .parse()
            .with_context(|| format!("--engine-speed {spec}: `{factor}` is not a number"))?;
        k.set_speed(engine, positive("--engine-speed", f)?);
    }
    Ok(k)
}
