//! `neff run NEFF --input NAME=FILE.npy ... -o DIR`: execute the NEFF on the functional model
//! (neff-sim `func`) and write one `NAME.npy` per output; `--random-inputs SEED` for a smoke run;
//! `--signature` lists the inputs and outputs (docs/run.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use neff_sim::func::{self, HostTensor, RunOptions};

use super::input::NeffInput;

/// Execute a NEFF on the CPU (the functional model: what it computes, not when) and write its
/// outputs, one `NAME.npy` per output in DIR (each written atomically, after the whole run).
///
/// bf16 and fp8 tensors are read and written as float32 .npy (inputs rounded to the tensor's
/// type). `--signature --json` prints {"inputs": [{"name", "dtype", "shape"}], "outputs": [...]}.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
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
    /// With --signature, print JSON.
    #[arg(long)]
    json: bool,
    /// Slots the run may issue before it is stopped as a runaway.
    #[arg(long, value_name = "N", default_value_t = func::DEFAULT_MAX_STEPS)]
    max_steps: u64,
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
    let inputs: BTreeMap<String, HostTensor> = match args.random_inputs {
        Some(seed) => func::random_inputs(&sig, seed),
        None => {
            let mut m = BTreeMap::new();
            for spec in &args.inputs {
                let (name, t) = read_input(spec)?;
                if m.insert(name.clone(), t).is_some() {
                    bail!("input `{name}` is given twice");
                }
            }
            m
        }
    };
    let options = RunOptions {
        max_steps: args.max_steps,
        ..RunOptions::default()
    };
    let out = func::run(&neff, &kelf, &inputs, &options).with_context(|| file.clone())?;
    let dir = args.out.expect("clap requires -o without --signature");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let paths = (out.outputs.iter())
        .map(|(name, _)| output_path(&dir, name))
        .collect::<anyhow::Result<Vec<_>>>()?;
    for ((name, t), path) in out.outputs.iter().zip(&paths) {
        neff_container::write_atomic(path, &t.to_npy())
            .with_context(|| format!("writing output `{name}`"))?;
        eprintln!(
            "{}: {} {:?}",
            path.display(),
            func::convert::manifest_name(t.dtype),
            t.shape
        );
    }
    Ok(())
}
