//! `neff ip FILE --engine E [--subgraph sgNN] ADDR...`: device PC -> NEFF instruction (spec 004
//! §3), one JSON line per address; `--reverse` maps NEFF IPs to device address ranges.

use std::io::BufRead;

use anyhow::{anyhow, bail};
use neff_debug::DebugInfo;
use neff_isa::text::print_slot;
use neff_isa::{Dialect, EngineType, Slot};
use neff_load::ipmap::NeffIp;
use neff_load::lower::LowerOptions;
use neff_load::model::{LoadOptions, LoadedEngine, load};
use serde_json::json;

use super::input::NeffInput;

/// Map device instruction addresses of one engine back to NEFF instructions.
///
/// Prints one JSON line per address: {"device_ip", "neff_ip", "section" (MAIN|FUNCTION),
/// "text" (the source instruction's disassembly), "bir", "hlo", "source"}, or {"device_ip",
/// "error"}. With --reverse the values are NEFF IPs and each line is {"neff_ip", "section",
/// "device_start", "device_end", "text", "bir", "hlo", "source"} (no range for a deleted
/// instruction: "deleted": true). "bir", "hlo" and "source" come from the NEFF's debug info as in
/// `neff disasm --json` (null when unknown). Values are decimal or 0x-hex;
/// with none given they are read one per line from stdin. Exits 1 when any value could not be
/// mapped (after printing every line).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    /// The engine: pe, act, pool, dve or sp (or PE, Activation, Pool, DVE, SP).
    #[arg(long)]
    engine: EngineType,
    /// The subgraph (default: the first).
    #[arg(long)]
    subgraph: Option<String>,
    /// Treat the values as NEFF IPs and print their device address ranges.
    #[arg(long)]
    reverse: bool,
    /// Device addresses (or NEFF IPs with --reverse).
    values: Vec<String>,
}

fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16).ok(),
        None => s.parse().ok(),
    }
}

/// The disassembly of source slot `ip` (1-based) of the engine stream.
fn source_text(source: &[u8], ip: u64) -> String {
    let at = (ip.saturating_sub(1) as usize).saturating_mul(64);
    let mut out = String::new();
    if let Some(slot) = source.get(at..at + 64).and_then(Slot::from_slice) {
        print_slot(&slot, Dialect::Semaphore8, &mut out);
    }
    out
}

/// Runs `neff ip`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let engine = args.engine;
    let bytes = args.input.read()?;
    let neff = args.input.parse(&bytes)?;
    let kelf = args.input.kelf(&neff)?;
    // Only the IP maps are read: free each image once built, keep no DMA descriptors.
    let options = LoadOptions {
        drop_image_bytes: true,
        lower: LowerOptions {
            skip_descriptors: true,
            ..LowerOptions::default()
        },
        ..LoadOptions::default()
    };
    let model = load(&kelf, &options)?;
    let sg = match &args.subgraph {
        Some(name) => model.subgraphs.iter().find(|s| &s.name == name),
        None => model.subgraphs.first(),
    }
    .ok_or_else(|| anyhow!("no subgraph {:?}", args.subgraph.as_deref().unwrap_or("")))?;
    let e = sg
        .engine(engine)
        .ok_or_else(|| anyhow!("subgraph {} has no {engine}", sg.name))?;
    let kbins = kelf.kbins()?;
    let source = kbins
        .iter()
        .find(|k| k.name == sg.name)
        .and_then(|k| k.engines.iter().find(|s| s.eng_type == engine))
        .map_or(&[][..], |s| s.instr);
    let debug = super::debug_info::load(&args.input.file, &neff, false);
    let at = Site {
        source,
        debug: &debug,
        subgraph: &sg.name,
        engine,
    };
    let values: Vec<String> = if args.values.is_empty() {
        std::io::stdin().lock().lines().collect::<Result<_, _>>()?
    } else {
        args.values.clone()
    };
    let mut failed = 0usize;
    for v in values.iter().filter(|v| !v.trim().is_empty()) {
        let line = if args.reverse {
            reverse_line(e, &at, v)
        } else {
            forward_line(e, &at, v)
        };
        failed += usize::from(line.get("error").is_some());
        println!("{line}");
    }
    // Every value gets its line; the exit status still says whether all of them mapped.
    if failed > 0 {
        bail!("{failed} of the values could not be mapped (see their error lines)");
    }
    Ok(())
}

/// Where the answers point: the engine's source stream and its debug info.
struct Site<'a> {
    source: &'a [u8],
    debug: &'a DebugInfo,
    subgraph: &'a str,
    engine: EngineType,
}

impl Site<'_> {
    /// An answer for NEFF IP `ip` (1-based): `fields` plus its text and debug-info keys.
    fn answer(&self, ip: u64, fields: serde_json::Value) -> serde_json::Value {
        let mut v = fields;
        if let Some(obj) = v.as_object_mut() {
            obj.insert("text".into(), source_text(self.source, ip).into());
            let slot = ip.saturating_sub(1) as usize;
            self.debug
                .slot(self.subgraph, self.engine, slot)
                .insert_json(obj);
        }
        v
    }
}

fn forward_line(e: &LoadedEngine, at: &Site<'_>, v: &str) -> serde_json::Value {
    let Some(addr) = parse_u64(v) else {
        return json!({ "device_ip": v.trim(), "error": format!("not a number: {:?}", v.trim()) });
    };
    match e.ipmap.neff_ip(addr) {
        Ok(hit) => at.answer(
            hit.neff_ip.0,
            json!({
                "device_ip": addr,
                "neff_ip": hit.neff_ip.0,
                "section": hit.section.name(),
            }),
        ),
        Err(err) => json!({ "device_ip": addr, "error": err.to_string() }),
    }
}

fn reverse_line(e: &LoadedEngine, at: &Site<'_>, v: &str) -> serde_json::Value {
    let Some(ip) = parse_u64(v) else {
        return json!({ "neff_ip": v.trim(), "error": format!("not a number: {:?}", v.trim()) });
    };
    match e.ipmap.device_range(NeffIp(ip)) {
        Ok(Some(r)) => at.answer(
            ip,
            json!({
                "neff_ip": ip,
                "section": r.section.name(),
                "device_start": r.start,
                "device_end": r.end,
            }),
        ),
        Ok(None) => at.answer(ip, json!({ "neff_ip": ip, "deleted": true })),
        Err(err) => json!({ "neff_ip": ip, "error": err.to_string() }),
    }
}
