//! `neff load FILE [-o/--output DIR] [--json]`: what the runtime's load does for a whole NEFF, minus
//! the silicon (spec 000): every subgraph's engines assembled into device images, staged, and
//! reported with their regions and patch rows.

use std::path::{Component, Path, PathBuf};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use neff_kelf::Kbin;
use neff_load::device_model::RegionModel;
use neff_load::model::{LoadOptions, LoadedModel, load_kbins_with_progress};
use neff_load::runtime_model::RuntimeRegions;
use neff_lower::LowerOptions;
use neff_profile::Capture;
use serde_json::Value;

use super::capture_model;
use super::device_model_arg::DeviceModelArg;
use super::input::NeffInput;

/// Load a NEFF the way the runtime does: assemble, stage and report every engine image.
///
/// `--json` (and DIR/load.json) prints {"device_model" (spec|runtime), "subgraphs": [{"name",
/// "engines": [{"engine" (pe|act|pool|dve|sp, in that order), "eng_type", "source_slots",
/// "lowered_slots" (MAIN + FUNCTION), "image_bytes", "base", "regions": {"preamble",
/// "model_switch", "main", "postamble", "function"} each {"offset", "size", "slots"},
/// "patches": [{"offset", "count", "type" (INSERT|MODIFY|DELETE), "section"
/// (PREAMBLE|POSTAMBLE|MAIN|FUNCTION)}], and under the runtime model "runtime": {"program_start",
/// "model_switch": [first, end), "preamble": [slot text], "postamble": [slot text]} (slot
/// indices; a slot's text is the instruction the hardware traces show there, in the profiler's
/// words, or "(opaque runtime slot)")}]}]} (docs/json.md).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    #[command(flatten)]
    model: DeviceModelArg,
    /// Write DIR/<subgraph>/<engine>.img (the exact image bytes) and DIR/load.json.
    #[arg(short, long = "output", visible_alias = "out", value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Hold every engine image against the runtime's own in CAPTURE (a raw `.ntff` of this
    /// NEFF), slot by slot: identical, different only in relocated address fields, or different
    /// (which fields); prints that report instead of the load's and exits 1 on a real difference
    /// (decision D466).
    #[arg(long, value_name = "CAPTURE")]
    #[arg(conflicts_with = "core")]
    compare: Option<PathBuf>,
    /// Show a progress bar on stderr even for a small input (never with --json; by default shown
    /// only when stderr is a terminal and the streams total at least 64 MiB).
    #[arg(long)]
    progress: bool,
}

/// Source stream bytes from which the progress bar is shown without `--progress`.
const PROGRESS_MIN_BYTES: u64 = 64 << 20;

/// Runs `neff load`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let neff = args.input.open()?;
    let kelf = args.input.kelf(&neff)?;
    let mut device = args.model.resolve(kelf.target, &args.input.read)?;
    // Every subgraph's kelf problem at once (issue 15 item 6), before the load stops at one.
    let kbins = args.input.kbins(&kelf, None)?;
    // The capture to compare with, read and parsed once.
    let bytes = (args.compare.as_deref())
        .map(capture_model::read_capture)
        .transpose()?;
    let capture = match (&args.compare, &bytes) {
        (Some(path), Some(b)) => Some((
            path,
            Capture::parse(b).with_context(|| path.display().to_string())?,
        )),
        _ => None,
    };
    // D816: the images held against a capture are placed on the cores it ran on.
    if let Some((path, cap)) = &capture
        && device.regions == RegionModel::Runtime
    {
        device.cores = capture_model::capture_cores(cap, path, &kbins);
    }
    // Without --out nothing reads the image bytes after the report: free each one once built.
    // Nothing reports the generated DMA descriptors: check them, keep none.
    let options = LoadOptions {
        device,
        drop_image_bytes: args.out.is_none() && args.compare.is_none(),
        lower: LowerOptions {
            skip_descriptors: true,
            ..LowerOptions::default()
        },
        ..LoadOptions::default()
    };
    capture_model::warn_untaught(&options.device, &kbins);
    let bar = progress_bar(&args, &kbins)?;
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n);
        }
    };
    let model = load_kbins_with_progress(&kbins, &options, &tick)
        .with_context(|| format!("loading {}", args.input.file.display()))?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    warn_trailing_bytes(&model);
    warn_empty_engines(&model);
    let label = capture_model::model_label(&options.device);
    let report = model.report_json(options.device.name());
    if let Some(dir) = &args.out {
        write_out(dir, &model, &report)?;
    }
    if let Some((path, cap)) = &capture {
        if !capture_model::compare(&model, &options.device, path, cap, args.json)? {
            bail!("the images differ from the runtime's in {}", path.display());
        }
        return Ok(());
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report_text(&model, &label));
    }
    Ok(())
}

/// Warns, on stderr, of every engine stream with a partial trailing slot: spec 004 §2 counts
/// `size >> 6` instructions, so those bytes are neither lowered nor staged (decision D77).
fn warn_trailing_bytes(model: &LoadedModel) {
    for sg in &model.subgraphs {
        for e in sg.engines_by_type().filter(|e| e.trailing_bytes != 0) {
            eprintln!(
                "warning: {}/{}: the instruction stream is not a multiple of 64 bytes; its last {} \
                 bytes are not an instruction and are not loaded (spec 004 §2)",
                sg.name, e.engine, e.trailing_bytes
            );
        }
    }
}

/// Warns, on stderr, of every engine with an empty or missing program (spec 003 §10.5: "Missing
/// engines ship a 0-byte .bin -> empty-placeholder instr_set + a load WARN"); the load goes on.
fn warn_empty_engines(model: &LoadedModel) {
    for sg in &model.subgraphs {
        for e in sg.engines_by_type() {
            if let Some(w) = e.source.warning() {
                eprintln!("warning: {}/{}: {w}", sg.name, e.engine);
            }
        }
    }
}

/// The bar over the source stream bytes, when asked for (`--progress`) or when stderr is a
/// terminal and the input is large; never in `--json` mode.
fn progress_bar(args: &Args, kbins: &[Kbin<'_>]) -> anyhow::Result<Option<ProgressBar>> {
    use std::io::IsTerminal;
    if args.json {
        return Ok(None);
    }
    let total: u64 = kbins
        .iter()
        .flat_map(|k| &k.engines)
        .map(|e| e.instr.len() as u64)
        .sum();
    let show = args.progress || (std::io::stderr().is_terminal() && total >= PROGRESS_MIN_BYTES);
    if !show {
        return Ok(None);
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        )?
        .progress_chars("=> "),
    );
    bar.set_message("loading");
    Ok(Some(bar))
}

/// The readable report: per subgraph and engine, slots, bytes, base, regions, row counts.
fn report_text(model: &LoadedModel, device_model: &str) -> String {
    use std::fmt::Write;
    let mut s = format!("device model: {device_model}\n");
    for sg in &model.subgraphs {
        let _ = writeln!(s, "{}", sg.name);
        for e in sg.engines_by_type() {
            let img = &e.image;
            let _ = writeln!(
                s,
                "  {:<4} source {} slots, lowered {} slots, image {} bytes at {:#x}",
                e.engine.key(),
                img.source_slots,
                img.lowered_slots(),
                e.block.inst_len,
                e.ib_addrs.base
            );
            let regions = [
                ("PREAMBLE", img.eib.preamble),
                ("MODEL_SWITCH", img.eib.model_switch),
                ("MAIN", img.eib.core),
                ("POSTAMBLE", img.postamble),
                ("FUNCTION", img.functions),
            ];
            for (name, r) in regions {
                let _ = writeln!(s, "       {name:<12} {:#08x} +{:#x}", r.offset, r.size);
            }
            let mut counts: Vec<(String, usize)> = Vec::new();
            for p in img.patches.locations() {
                let key = format!("{} {}", p.kind.name(), p.section.name());
                match counts.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((key, 1)),
                }
            }
            let list: Vec<String> = counts.iter().map(|(k, n)| format!("{k} x{n}")).collect();
            let _ = writeln!(s, "       patches: {}", list.join(", "));
            if let Some(r) = &img.runtime {
                let (pre, post) = (&r.preamble, &r.postamble);
                let _ = writeln!(
                    s,
                    "       runtime slots: PREAMBLE {} ({} traced), POSTAMBLE {} ({} traced), program start at slot {}",
                    pre.len(),
                    RuntimeRegions::traced(pre),
                    post.len(),
                    RuntimeRegions::traced(post),
                    r.program_start
                );
            }
        }
    }
    s
}

/// A subgraph name usable as one folder under DIR: a single normal path component.
fn safe_component(name: &str) -> anyhow::Result<&str> {
    let mut comps = Path::new(name).components();
    match (comps.next(), comps.next()) {
        (Some(Component::Normal(_)), None) if !name.contains(['/', '\\']) => Ok(name),
        _ => bail!("refusing to write subgraph {name:?} outside the output folder"),
    }
}

/// DIR/<subgraph>/<engine>.img and DIR/load.json, each written atomically.
fn write_out(dir: &Path, model: &LoadedModel, report: &Value) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for sg in &model.subgraphs {
        let sub = dir.join(safe_component(&sg.name)?);
        std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        for e in &sg.engines {
            let path = sub.join(format!("{}.img", e.engine.key()));
            neff_container::write_atomic(&path, &e.image.bytes)
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    let path = dir.join("load.json");
    let text = serde_json::to_string_pretty(report)? + "\n";
    neff_container::write_atomic(&path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
