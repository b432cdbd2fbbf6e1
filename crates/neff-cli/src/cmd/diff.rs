//! `neff diff A B [--stat | --json]`: what changed between two NEFFs and what it costs
//! (neff-diff), or the measured time of two captures. Exit status like diff(1): 0 the same, 1
//! different, 2 trouble (decision D500).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::bail;

use neff_diff::text::{TextOptions, write_stat, write_text};
use neff_diff::time::TimeOptions;
use neff_diff::{DiffOptions, Input, Side};
use neff_isa::Dialect;

use super::device_model_arg::DeviceModelArg;
use super::input::{ReadFlags, read_file};

/// Compare two NEFFs: header and feature bits, members (size, SHA-256), manifests by key (kelf,
/// def.json vars and DMA queues, engine JSON), per engine an instruction diff (identical slots,
/// then the rest paired by BIR instruction and source line when both carry debug info, else by
/// opcode; changed operands field by field) and the simulated time of each side per subgraph,
/// engine and source line.
///
/// A and B may instead be two captures (`.ntff` or neuron-profile JSON, plain or gzip, of the
/// same NEFF or of two): measured time A vs B per instruction (subgraph, engine, NEFF slot), per
/// DMA queue and, with --neff-a/--neff-b, per source line; `--json` prints {"a", "b",
/// "subgraphs", "instructions", "queues", "lines"}, rows {"key", "detail", "what_a", "what_b",
/// "a_ns", "b_ns", "delta_ns", "count_a", "count_b"} (docs/json.md).
///
/// Exit status as diff(1): 0 when the NEFFs are the same, 1 when they differ, 2 on trouble (a
/// side that cannot be read: the message names the side, A or B, and where).
///
/// `--json` prints {"a", "b", "same", "header": {"changed": [{"field", "a", "b"}],
/// "feature_bits_added", "feature_bits_removed"}, "members": {"unchanged", "changes": [{"path",
/// "status", "size_a", "size_b", "sha256_a", "sha256_b"}]}, "manifests": [{"member", "pointer",
/// "a", "b"}], "engines": [{"subgraph", "engine", "member_a", "member_b", "aligned_by",
/// "slots_a", "slots_b", "unchanged", "added", "removed", "changed", "ops": [{"op", "a"?, "b"?,
/// "len"}], "trailing_a", "trailing_b", "trailing_differs", "changed_fields",
/// "changed_fields_truncated"}], "time": null | {"a_ns", "b_ns", "a_error", "b_error",
/// "subgraphs", "engines", "lines"}} (docs/json.md).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The first NEFF (`-` lines).
    a: PathBuf,
    /// The second NEFF (`+` lines).
    b: PathBuf,
    #[command(flatten)]
    read: ReadFlags,
    #[command(flatten)]
    model: DeviceModelArg,
    /// Print the JSON document (format above).
    #[arg(long, conflicts_with = "stat")]
    json: bool,
    /// Print per-engine counts only.
    #[arg(long)]
    stat: bool,
    /// Unchanged instructions shown around each edit.
    #[arg(short = 'U', long, value_name = "N", default_value_t = 3)]
    context: u32,
    /// Source lines listed under the time (largest change first).
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,
    /// With --json, the changed slot pairs per engine whose fields are listed.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max_fields: usize,
    /// Do not simulate the two sides (no time).
    #[arg(long)]
    no_time: bool,
    /// Instructions per subgraph before a run is stopped as a runaway.
    #[arg(long, value_name = "N", default_value_t = neff_sim::DEFAULT_MAX_STEPS)]
    max_steps: u64,
    /// Use the legacy 4-byte events dialect (decision D2).
    #[arg(long)]
    legacy_events: bool,
    /// When A and B are captures: A's NEFF, whose debug info adds per-source-line rows.
    #[arg(long, value_name = "NEFF", requires = "neff_b")]
    neff_a: Option<PathBuf>,
    /// When A and B are captures: B's NEFF.
    #[arg(long, value_name = "NEFF", requires = "neff_a")]
    neff_b: Option<PathBuf>,
}

/// Exit status of two NEFFs that differ (diff(1)).
const EXIT_DIFFERENT: i32 = 1;
/// Exit status of trouble (diff(1)); clap's usage errors are 2 as well.
const EXIT_TROUBLE: i32 = 2;

/// Runs `neff diff`: never returns to main's exit-code mapping (D500).
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let code = match compare(&args) {
        Ok(true) => 0,
        Ok(false) => EXIT_DIFFERENT,
        Err(err) if is_broken_pipe(&err) => 0,
        Err(err) => {
            if args.json {
                let chain: Vec<String> = err.chain().map(ToString::to_string).collect();
                let report =
                    serde_json::json!({"error": {"message": format!("{err:#}"), "chain": chain}});
                eprintln!("{report}");
            } else {
                eprintln!("error: {err:#}");
            }
            EXIT_TROUBLE
        }
    };
    std::process::exit(code)
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Reads both sides, prints the diff; `Ok(true)` when the NEFFs are the same.
fn compare(args: &Args) -> anyhow::Result<bool> {
    let bytes_a = side_bytes(Side::A, &args.a)?;
    let bytes_b = side_bytes(Side::B, &args.b)?;
    match (is_neff(&bytes_a), is_neff(&bytes_b)) {
        (true, true) => compare_neffs(args, &bytes_a, &bytes_b),
        (false, false) => compare_captures(args, &bytes_a, &bytes_b),
        (a, _) => {
            let (neff, other) = if a {
                (Side::A, Side::B)
            } else {
                (Side::B, Side::A)
            };
            bail!(
                "side {neff} is a NEFF and side {other} is not: compare two NEFFs or two captures"
            )
        }
    }
}

/// The bytes of one side; the error names it.
fn side_bytes(side: Side, path: &Path) -> anyhow::Result<Vec<u8>> {
    read_file(path).map_err(|e| e.context(format!("side {side}")))
}

/// Whether `bytes` start like a NEFF (its header), not a capture or JSON report.
fn is_neff(bytes: &[u8]) -> bool {
    neff_container::is_neff(&bytes[..bytes.len().min(neff_container::IDENTIFY_LEN)])
}

/// Two captures (`.ntff` or neuron-profile JSON, plain or gzip): measured time per instruction,
/// DMA queue and, with `--neff-a/--neff-b`, source line. Captures never compare "the same":
/// two runs differ in their timestamps, so the exit status is 1 unless trouble.
fn compare_captures(args: &Args, bytes_a: &[u8], bytes_b: &[u8]) -> anyhow::Result<bool> {
    let limits = neff_profile::ReadLimits::default();
    let profile = |side: Side, path: &Path, bytes: &[u8]| {
        neff_profile::Profile::parse(path, bytes, &limits)
            .map_err(|e| anyhow::Error::new(e).context(format!("side {side}")))
    };
    let pa = profile(Side::A, &args.a, bytes_a)?;
    let pb = profile(Side::B, &args.b, bytes_b)?;
    let debug = |side: Side, path: &Path| -> anyhow::Result<neff_debug::DebugInfo> {
        let bytes = side_bytes(side, path)?;
        let neff = Input::parse(
            side,
            &path.display().to_string(),
            &bytes,
            &args.read.options()?,
        )?;
        Ok(super::debug_info::load(path, &neff, true))
    };
    let infos = match (&args.neff_a, &args.neff_b) {
        (Some(a), Some(b)) => Some((debug(Side::A, a)?, debug(Side::B, b)?)),
        _ => None,
    };
    let d = neff_diff::capture::diff_captures(
        (&args.a.display().to_string(), &pa),
        (&args.b.display().to_string(), &pb),
        infos.as_ref().map(|(a, b)| (a, b)),
    );
    let mut out = BufWriter::new(std::io::stdout().lock());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &d)?;
        out.write_all(b"\n")?;
    } else {
        let top = if args.stat { 0 } else { args.top };
        neff_diff::capture::write_capture_text(&d, top, &mut out)?;
    }
    out.flush()?;
    Ok(false)
}

/// Two NEFFs.
fn compare_neffs(args: &Args, bytes_a: &[u8], bytes_b: &[u8]) -> anyhow::Result<bool> {
    let options = DiffOptions {
        read: args.read.options()?,
        dialect: if args.legacy_events {
            Dialect::Legacy4
        } else {
            Dialect::Semaphore8
        },
        time: (!args.no_time).then_some(TimeOptions {
            regions: args.model.device_model,
            max_steps: args.max_steps,
        }),
    };
    let (fa, fb) = (args.a.display().to_string(), args.b.display().to_string());
    let neff_a = Input::parse(Side::A, &fa, bytes_a, &options.read)?;
    let neff_b = Input::parse(Side::B, &fb, bytes_b, &options.read)?;
    let a = Input::new(Side::A, &fa, &neff_a)?;
    let b = Input::new(Side::B, &fb, &neff_b)?;
    let d = neff_diff::diff(&a, &b, &options);
    let mut out = BufWriter::new(std::io::stdout().lock());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &neff_diff::json::to_json(&d, args.max_fields))?;
        out.write_all(b"\n")?;
    } else if args.stat {
        write_stat(&d, &mut out)?;
    } else {
        let opts = TextOptions {
            context: args.context,
            top_lines: args.top,
        };
        write_text(&d, &opts, &mut out)?;
    }
    out.flush()?;
    Ok(d.same)
}
