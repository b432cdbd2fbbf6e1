//! `neff run NEFF --input NAME=FILE.npy ... -o DIR`: execute the NEFF on the functional model
//! (neff-sim `func`) and write one `NAME.npy` per output; `--random-inputs SEED` for a smoke run;
//! `--signature` lists the inputs and outputs (docs/run.md). Races the semaphores do not order are
//! warnings (`--deny-races`: exit 1, no outputs; D681); `--trace NAME` lists every write to a
//! tensor with a summary of its values (D682) and the simulated time of the instruction that
//! wrote it, from `neff sim`'s timing model of the same NEFF (D751).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use neff_load::model::{LoadOptions, load};
use neff_sim::cost::{Clocks, CostModel, Knobs};
use neff_sim::func::{self, HostTensor, RunOptions};
use neff_sim::{SimOptions, simulate};

use super::device_model_arg::DeviceModelArg;
use super::input::NeffInput;

/// Execute a NEFF on the CPU (the functional model: what it computes, not when) and write its
/// outputs, one `NAME.npy` per output in DIR (each written atomically, after the whole run).
///
/// bf16 and fp8 tensors are read and written as float32 .npy (inputs rounded to the tensor's
/// type). `--signature --json` prints {"inputs": [{"name", "dtype", "shape"}], "outputs": [...]}.
/// A run with `--json` prints {"outputs": [{"name", "dtype", "shape", "path"}], "steps",
/// "races": {"races": [{"kind", "first", "second", "memory", "subgraph", "bytes",
/// "partitions"}], "more", "shadow_runs"}, "trace": {"writes": [{"step", "at", "ns", "end_ns",
/// "tensor", "bytes", "dtype", "elements", "min", "max", "mean", "first"}], "more"}}.
///
/// `--trace` times each write: `ns` / `end_ns` are the issue and completion of the writing
/// instruction in the timing model's run of the NEFF (what `neff sim` with the same
/// `--device-model` shows; ns from the start of the run), `null` where it has none.
///
/// Two accesses of the same bytes that no semaphore or event orders (one of them a write) are
/// races: each is printed as a warning (exit 0, the outputs are those of the order the run
/// took); with `--deny-races` a race is an error (exit 1, no outputs written).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    /// The device model the trace's times are simulated with (as `neff sim`'s).
    #[command(flatten)]
    model: DeviceModelArg,
    /// An input tensor: `NAME=FILE.npy` (repeat for each input).
    #[arg(long = "input", value_name = "NAME=FILE")]
    inputs: Vec<String>,
    /// Fill every input with uniform random values in [-1, 1) from this seed (a smoke run).
    #[arg(long, value_name = "SEED", conflicts_with = "inputs")]
    random_inputs: Option<u64>,
    /// The folder for the outputs (created if missing).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "DIR",
        required_unless_present = "signature"
    )]
    out: Option<PathBuf>,
    /// List the inputs and outputs with dtype and shape, and run nothing.
    #[arg(long)]
    signature: bool,
    /// Print JSON (the signature with --signature; else the run's outputs, races and trace).
    #[arg(long)]
    json: bool,
    /// Trace every write to these tensors (def.json DRAM vars), comma-separated: the simulated
    /// time (ns) of the instruction that wrote, step, instruction, bytes, and min / max / mean /
    /// first values of what was written.
    #[arg(long, value_name = "NAME[,NAME]", value_delimiter = ',')]
    trace: Vec<String>,
    /// A race is an error: exit 1 without writing outputs.
    #[arg(long, conflicts_with = "no_races")]
    deny_races: bool,
    /// Do not check for races (faster on large NEFFs).
    #[arg(long)]
    no_races: bool,
    /// Slots the run may issue before it is stopped as a runaway.
    #[arg(long, value_name = "N", default_value_t = func::DEFAULT_MAX_STEPS)]
    max_steps: u64,
    /// Keep SBUF and PSUM in ordinary pages mapped on first touch instead of 2 MiB pages
    /// faulted in up front (decision D825): less memory resident at the start, no wait for the
    /// kernel to find huge pages, slower element-wise work.
    #[arg(long)]
    small_pages: bool,
}

fn read_input(spec: &str) -> anyhow::Result<(String, HostTensor)> {
    let Some((name, file)) = spec.split_once('=') else {
        bail!("--input {spec}: expected NAME=FILE.npy");
    };
    let bytes = std::fs::read(file).with_context(|| format!("reading {file}"))?;
    let t = HostTensor::from_npy(&bytes).with_context(|| format!("{file} (input `{name}`)"))?;
    Ok((name.to_string(), t))
}

/// An output's file: `NAME.npy` in `dir`, for a name that is one plain path component.
fn output_path(dir: &Path, name: &str) -> anyhow::Result<PathBuf> {
    let plain =
        !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0']);
    if !plain {
        bail!("output `{name}` is not a file name");
    }
    Ok(dir.join(format!("{name}.npy")))
}

/// Runs `neff run`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    let neff = args.input.parse(&bytes)?;
    let kelf = args.input.kelf(&neff)?;
    let file = args.input.file.display().to_string();
    let sig = func::signature(&neff, &kelf).with_context(|| file.clone())?;
    if args.signature {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&sig)?);
        } else {
            for (what, list) in [("input", &sig.inputs), ("output", &sig.outputs)] {
                for t in list {
                    println!(
                        "{what:<6} {:<24} {:<9} {:?}",
                        t.name,
                        func::convert::manifest_name(t.dtype),
                        t.shape
                    );
                }
            }
        }
        return Ok(());
    }
    let inputs: Option<BTreeMap<String, HostTensor>> = match args.random_inputs {
        Some(_) => None,
        None => {
            let mut m = BTreeMap::new();
            for spec in &args.inputs {
                let (name, t) = read_input(spec)?;
                if m.insert(name.clone(), t).is_some() {
                    bail!("input `{name}` is given twice");
                }
            }
            Some(m)
        }
    };
    let options = RunOptions {
        max_steps: args.max_steps,
        races: !args.no_races,
        trace: args.trace.clone(),
        huge_pages: !args.small_pages,
        ..RunOptions::default()
    };
    // Inputs are consumed (each becomes its device bytes in place); random ones are made one
    // at a time as device bytes: the host never holds a large bf16 input as float32 beside it.
    let out = match (inputs, args.random_inputs) {
        (Some(inputs), _) => func::run_owned(&neff, &kelf, inputs, &options),
        (None, seed) => func::run_random(&neff, &kelf, seed.unwrap_or(0), &options),
    }
    .with_context(|| file.clone())?;
    let mut out = out;
    if !args.trace.is_empty() {
        time_trace(&args, &kelf, &mut out.trace);
    }
    report(&out, args.json);
    let races = out.races.races.len() as u64 + out.races.more;
    if args.deny_races && races > 0 {
        bail!("{file}: {races} race(s) (--deny-races); no outputs written");
    }
    let dir = args.out.expect("clap requires -o without --signature");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let paths = (out.outputs.iter())
        .map(|(name, _)| output_path(&dir, name))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut listed = Vec::new();
    for ((name, t), path) in out.outputs.iter().zip(&paths) {
        neff_container::write_atomic(path, &t.to_npy())
            .with_context(|| format!("writing output `{name}`"))?;
        let dtype = func::convert::manifest_name(t.dtype);
        if args.json {
            listed.push(serde_json::json!({
                "name": name, "dtype": dtype, "shape": t.shape, "path": path,
            }));
        } else {
            eprintln!("{}: {dtype} {:?}", path.display(), t.shape);
        }
    }
    if args.json {
        let v = serde_json::json!({
            "outputs": listed,
            "steps": out.steps,
            "races": out.races,
            "trace": out.trace,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    }
    Ok(())
}

/// Fills in the trace's simulated times from the timing model's run of the same NEFF (D751).
/// The values are the functional run's whatever the timing model says: a load or simulation
/// that fails leaves the times out, with a warning.
fn time_trace(args: &Args, kelf: &neff_kelf::Kelf, trace: &mut func::Trace) {
    let mut timed = || -> anyhow::Result<usize> {
        let device = args.model.resolve(kelf.target, &args.input.read)?;
        let options = LoadOptions {
            device,
            ..LoadOptions::default()
        };
        let model = load(kelf, &options).context("loading the NEFF for the timing model")?;
        let knobs = Knobs {
            clocks: Clocks::of_target(kelf.target),
            ..Knobs::default()
        };
        let sim = SimOptions {
            cost: CostModel::with_knobs(knobs),
            record: true,
            slice_text: false,
            ..SimOptions::default()
        };
        let result = simulate(&model, &sim).context("simulating the NEFF for the trace's times")?;
        Ok(trace.time(&result))
    };
    match timed() {
        Ok(0) => {}
        Ok(n) => eprintln!("warning: {n} traced write(s) have no instruction in the timing model"),
        Err(e) => eprintln!("warning: the trace has no times: {e:#}"),
    }
}

/// Prints the races as warnings (stderr) and, without `--json`, the trace (stdout).
fn report(out: &func::RunOutput, json: bool) {
    for r in &out.races.races {
        eprintln!("warning: {r}");
    }
    if out.races.more > 0 {
        eprintln!("warning: {} more race(s) not listed", out.races.more);
    }
    if json {
        return;
    }
    for w in &out.trace.writes {
        println!("{w}");
    }
    if out.trace.more > 0 {
        println!("... {} more write(s) not listed", out.trace.more);
    }
}
