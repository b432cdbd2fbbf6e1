//! `neff synth`: write a synthetic NEFF shaped like real compiler output (neff-synth).

use std::path::PathBuf;

use anyhow::Context as _;
use neff_synth::{Shape, SynthOptions, SynthTarget};

/// Write a synthetic NEFF whose engine streams look like real ones: the instruction mix of
/// real files (MATMUL/LDWEIGHTS on PE, ACTIVATE or COPY/CAST on ACT, TENSOR_TENSOR on DVE, DMA
/// triggers on SP/Pool, EVENT_SEMAPHOREs everywhere), labels and branches, rare collectives,
/// and with --functions, calls, an exit and callable functions. Deterministic for a seed.
///
/// Total stream bytes = subgraphs x 5 x slots-per-engine x 64 (e.g. --subgraphs 4
/// --slots-per-engine 838861 is 1 GiB). The real-shaped options (--engine-slots,
/// --descs-per-block, --extra-vars, --debug-info, or --conv2d-like for all four) make manifests
/// like large real ones: uneven streams, thousands of DMA descriptors, many vars, debug info. `--json` prints {"path", "target", "subgraphs",
/// "slots_per_engine", "functions", "seed", "slots", "stream_bytes", "file_bytes", "dma",
/// "collectives", "labels", "branches", "calls"}.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Output file (written atomically).
    #[arg(short, long)]
    output: PathBuf,
    /// Number of subgraphs (sg00, sg01, ...), 1-100.
    #[arg(long, default_value_t = 1)]
    subgraphs: u32,
    /// Slots (64-byte instructions) in each engine stream.
    #[arg(long, default_value_t = 1024)]
    slots_per_engine: u64,
    /// Callable functions per engine stream (each called once from MAIN).
    #[arg(long, default_value_t = 0)]
    functions: u32,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Generation imitated: sunda (trn1) or cayman (trn2).
    #[arg(long, default_value = "sunda", value_parser = parse_target)]
    target: SynthTarget,
    /// Slots of each stream, PE,ACT,POOL,DVE,SP (e.g. 161000,6000,4000,2000,3000), in place
    /// of --slots-per-engine.
    #[arg(long, value_delimiter = ',')]
    engine_slots: Option<Vec<u64>>,
    /// Descriptors in each trn1 DMA block (one per partition row when > 1).
    #[arg(long, default_value_t = 1)]
    descs_per_block: u32,
    /// tmp-buf vars added to def.json, named by the DMA descriptors.
    #[arg(long, default_value_t = 0)]
    extra_vars: u32,
    /// Write the debug-info members (asm and backend per engine) and their def.json keys.
    #[arg(long)]
    debug_info: bool,
    /// The real trn1 conv2d shape of issue 34 (161000,6000,4000,2000,3000 slots, 40
    /// descriptors per block, 200 extra vars, debug info); the four options above are ignored.
    #[arg(long)]
    conv2d_like: bool,
    /// Print a JSON summary instead of a line of text.
    #[arg(long)]
    json: bool,
}

/// The shape the options ask for.
fn shape(args: &Args) -> anyhow::Result<Shape> {
    if args.conv2d_like {
        return Ok(Shape::conv2d_like());
    }
    let engine_slots = match args.engine_slots.as_deref() {
        None => None,
        Some(v) => Some(<[u64; 5]>::try_from(v).map_err(|_| {
            anyhow::anyhow!(
                "--engine-slots takes five counts (PE,ACT,POOL,DVE,SP), got {}",
                v.len()
            )
        })?),
    };
    Ok(Shape {
        engine_slots,
        descs_per_block: args.descs_per_block,
        extra_vars: args.extra_vars,
        debug_info: args.debug_info,
    })
}

fn parse_target(s: &str) -> Result<SynthTarget, String> {
    SynthTarget::from_name(s)
        .ok_or_else(|| format!("unknown target `{s}` (expected sunda or cayman)"))
}

/// Runs `neff synth`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let options = SynthOptions {
        subgraphs: args.subgraphs,
        slots_per_engine: args.slots_per_engine,
        functions: args.functions,
        seed: args.seed,
        target: args.target,
    };
    let s = neff_synth::write_shaped(&options, &shape(&args)?, &args.output)
        .with_context(|| format!("synthesizing {}", args.output.display()))?;
    if args.json {
        let v = serde_json::json!({
            "path": args.output.display().to_string(),
            "target": options.target.name(),
            "subgraphs": options.subgraphs,
            "slots_per_engine": options.slots_per_engine,
            "functions": options.functions,
            "seed": options.seed,
            "slots": s.slots,
            "stream_bytes": s.stream_bytes,
            "file_bytes": s.file_bytes,
            "dma": s.dma,
            "collectives": s.collectives,
            "labels": s.labels,
            "branches": s.branches,
            "calls": s.calls,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!(
            "{}: {} {} subgraph(s), {} slots ({} stream bytes) -> {} bytes; {} DMA, {} collectives, {} labels, {} branches, {} calls",
            args.output.display(),
            options.target.name(),
            options.subgraphs,
            s.slots,
            s.stream_bytes,
            s.file_bytes,
            s.dma,
            s.collectives,
            s.labels,
            s.branches,
            s.calls
        );
    }
    Ok(())
}
