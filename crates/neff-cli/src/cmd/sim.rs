//! `neff sim FILE [--json] [--trace OUT.json] [--compare PROFILE.json[.gz]]`: run the loaded
//! program on a model of the NeuronCore (neff-sim) and report the time, per engine and on the
//! critical path; a deadlock is reported with its wait cycle and exits 1.

use std::path::PathBuf;

use anyhow::{Context, bail};
use neff_load::lower::LowerOptions;
use neff_load::model::{LoadOptions, load};
use neff_sim::{SimOptions, simulate};

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
    /// Compare with a neuron-profile JSON report (plain or .gz) of the same NEFF: measured vs
    /// predicted span, per-engine busy time, per-class mean duration, largest errors.
    #[arg(long, value_name = "PROFILE")]
    compare: Option<PathBuf>,
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

/// Runs `neff sim`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    let neff = args.input.parse(&bytes)?;
    let kelf = args.input.kelf(&neff)?;
    let options = LoadOptions {
        device: args.model.resolve(kelf.target, &args.input.read)?,
        lower: LowerOptions::default(),
        ..LoadOptions::default()
    };
    let model =
        load(&kelf, &options).with_context(|| format!("loading {}", args.input.file.display()))?;
    if let Some(sg) = &args.subgraph
        && !model.subgraphs.iter().any(|s| &s.name == sg)
    {
        bail!("{}: no subgraph `{sg}`", args.input.file.display());
    }
    let sim_options = SimOptions {
        max_steps: args.max_steps,
        record: true,
        // Only the trace shows a slice's disassembly (D367).
        slice_text: args.trace.is_some(),
        subgraphs: args.subgraph.iter().cloned().collect(),
        ..SimOptions::default()
    };
    let result = simulate(&model, &sim_options)
        .with_context(|| format!("simulating {}", args.input.file.display()))?;
    for w in &result.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(path) = &args.trace {
        let text = neff_sim::trace::chrome_trace(&result);
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
        .map(|p| neff_sim::compare::compare(&result, p));
    let by_source = args.by_source.then(|| {
        let info = super::debug_info::load(&args.input.file, &neff, true);
        neff_sim::by_source::by_source(&result, &info, profile.as_ref())
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
        print!("{}", neff_sim::text::render(&result));
        if let Some(c) = &comparison {
            print!("{}", neff_sim::compare::render(c));
        }
        if let Some(b) = &by_source {
            print!("{}", neff_sim::by_source::render(b, args.top));
        }
    }
    if let Some(d) = &result.deadlock {
        bail!("{}", d.message);
    }
    Ok(())
}
