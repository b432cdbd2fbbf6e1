//! `neff ip FILE --engine E [--subgraph sgNN] ADDR...`: device PC -> NEFF instruction (spec 004
//! §3), one JSON line per address; `--reverse` maps NEFF IPs to device address ranges; `--pc`
//! takes and gives slot indices in the engine image (the profiler's `pc`) instead of addresses;
//! `--profile` checks a whole neuron-profile report against the NEFF (decision D177).

use neff_load::DeviceAddr;
use std::io::BufRead;
use std::path::PathBuf;

use anyhow::{Context, anyhow, bail};
use neff_debug::DebugInfo;
use neff_isa::continuation::{Pairing, pairing_at};
use neff_isa::text::print_slot;
use neff_isa::{Dialect, EngineType, SLOT_BYTES, SLOT_SHIFT, Slot};
use neff_load::ipmap::NeffIp;
use neff_load::model::{LoadOptions, LoadedEngine, load_kbins_with_progress};
use neff_load::runtime_model::{RegionSlot, RuntimeSlot, SlotText};
use neff_lower::LowerOptions;
use serde_json::json;

use super::device_model_arg::DeviceModelArg;
use super::input::NeffInput;
use super::ip_profile;

/// Map device instruction addresses of one engine back to NEFF instructions.
///
/// Prints one JSON line per address: {"device_ip", "neff_ip", "section" (MAIN|FUNCTION),
/// "text" (the source instruction's disassembly), "bir", "hlo", "source"}, plus "runtime_error"
/// when the runtime's walk would fail where neffkit answers ("Failed to find section 2 in the
/// patch list": a section without patch rows, decision D291), or {"device_ip", "error"} (a value
/// that is not a number: {"value", "error"}; the slot before MAIN, which the runtime's
/// main.base - 0x40 probe takes in, is an error naming that). With --reverse the values are NEFF IPs and each line is {"neff_ip", "section",
/// "device_start", "device_end", "text", "bir", "hlo", "source"} (no range for a deleted
/// instruction: "deleted": true; the continuation slot of a 128-byte DIRECT2D record maps to its
/// record's range with "continuation_of": the head's NEFF IP, decision D155). "bir", "hlo" and
/// "source" come from the NEFF's debug info as in
/// `neff disasm --json` (null when unknown). Under the runtime model an address in its PREAMBLE /
/// POSTAMBLE also gets "section" and "runtime_slot" (what the runtime runs there) on its error
/// line. With --pc, values and answers are device pcs, slot indices in the engine's image as
/// profilers report them ("device_pc"; reverse: "device_pc_start", "device_pc_end"). Values are
/// decimal or 0x-hex; with none given they are read one per line from stdin. Exits 1 when any
/// value could not be mapped (after printing every line).
///
/// With --profile PROFILE.json[.gz] (a neuron-profile report of this NEFF), checks every profiled
/// instruction instead: does the map give the profiler's slot both ways, does the mnemonic agree;
/// prints the figures and every disagreement (--json: {"device_model", "profile",
/// "neff_instructions", "forward_agree", "reverse_agree", "mnemonic_agree",
/// "runtime_instructions", "runtime_agree", "runtime_opaque", "disagreements": [{"subgraph",
/// "engine", "pc", "compiler_pc", "opcode", "what"}]}); exits 1 on any disagreement, and refuses
/// a profile whose neff_header (uuid, hash) is not this NEFF's.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    #[command(flatten)]
    model: DeviceModelArg,
    /// The engine: pe, act, pool, dve or sp (or PE, Activation, Pool, DVE, SP).
    #[arg(long, required_unless_present = "profile")]
    engine: Option<EngineType>,
    /// The subgraph (default: the first).
    #[arg(long)]
    subgraph: Option<String>,
    /// Treat the values as NEFF IPs and print their device address ranges.
    #[arg(long)]
    reverse: bool,
    /// Device values are pcs (slot indices in the engine's image) instead of byte addresses.
    #[arg(long)]
    pc: bool,
    /// Check this neuron-profile report (JSON, gzip or not) against the NEFF.
    #[arg(long, value_name = "PROFILE", conflicts_with_all = ["engine", "reverse", "pc", "values"])]
    profile: Option<PathBuf>,
    /// Print JSON: the address lines are always JSON lines (format above); with --profile the
    /// check is printed as one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Device addresses (or NEFF IPs with --reverse); none: read one per line from stdin.
    values: Vec<String>,
}

fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16).ok(),
        None => s.parse().ok(),
    }
}

/// The NEFF IP whose instruction `ip` is part of: the head's for a continuation slot (a 128-byte
/// record is one instruction, decision D155), else `ip`.
fn instruction_ip(source: &[u8], ip: u64) -> u64 {
    match ip.checked_sub(1).map(|i| pairing_at(source, i as usize)) {
        Some(Ok(Pairing::Continuation)) => ip - 1,
        _ => ip,
    }
}

/// Runs `neff ip`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    let neff = args.input.parse(&bytes)?;
    let kelf = args.input.kelf(&neff)?;
    if let Some(profile) = &args.profile {
        return ip_profile::run(
            &args.input.file,
            &neff,
            &kelf,
            profile,
            (&args.model, &args.input.read),
            args.json,
        );
    }
    let engine = args.engine.ok_or_else(|| anyhow!("--engine is required"))?;
    // Only the IP maps are read: free each image once built, keep no DMA descriptors.
    let options = LoadOptions {
        device: args.model.resolve(kelf.target, &args.input.read)?,
        drop_image_bytes: true,
        lower: LowerOptions {
            skip_descriptors: true,
            ..LowerOptions::default()
        },
        ..LoadOptions::default()
    };
    let kbins = kelf.kbins()?;
    let model = load_kbins_with_progress(&kbins, &options, &|_| {})
        .with_context(|| format!("loading {}", args.input.file.display()))?;
    let sg = match &args.subgraph {
        Some(name) => model.subgraphs.iter().find(|s| &s.name == name),
        None => model.subgraphs.first(),
    }
    .ok_or_else(|| anyhow!("no subgraph {:?}", args.subgraph.as_deref().unwrap_or("")))?;
    let e = sg
        .engine(engine)
        .ok_or_else(|| anyhow!("subgraph {} has no {engine}", sg.name))?;
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
            reverse_line(e, &at, v, args.pc)
        } else {
            forward_line(e, &at, v, args.pc)
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
    fn answer(&self, ip: u64, mut fields: serde_json::Value) -> serde_json::Value {
        if let Some(obj) = fields.as_object_mut() {
            obj.insert(
                "text".into(),
                neff_load::report::source_text(self.source, ip).into(),
            );
            self.debug_keys(ip, obj);
        }
        fields
    }

    /// Adds the debug-info keys (`bir`, `hlo`, `source`) of NEFF IP `ip` (1-based) to `obj`.
    fn debug_keys(&self, ip: u64, obj: &mut serde_json::Map<String, serde_json::Value>) {
        let slot = ip.saturating_sub(1) as usize;
        self.debug
            .slot(self.subgraph, self.engine, slot)
            .insert_json(obj);
    }
}

fn forward_line(e: &LoadedEngine, at: &Site<'_>, v: &str, pc: bool) -> serde_json::Value {
    let Some(n) = parse_u64(v) else {
        return json!({ "value": v.trim(), "error": format!("not a number: {:?}", v.trim()) });
    };
    let addr = if pc {
        n.checked_mul(SLOT_BYTES as u64)
            .and_then(|b| b.checked_add(e.ib_addrs.base))
    } else {
        Some(n)
    };
    let Some(addr) = addr else {
        return json!({ "device_pc": n, "error": format!("pc {n} is beyond the address space") });
    };
    let mut line = match e.ipmap.neff_ip(DeviceAddr(addr)) {
        Ok(hit) => neff_load::report::ip_hit_json(e, at.source, addr, &hit, |obj| {
            at.debug_keys(hit.neff_ip.0, obj)
        }),
        Err(err) => {
            let mut l = json!({ "device_ip": addr, "error": err.to_string() });
            if let Some((slot, at)) = runtime_slot(e, addr) {
                l["section"] = json!(slot.region);
                l["runtime_slot"] = json!(runtime_slot_text(slot, at));
            }
            l
        }
    };
    if pc {
        line["device_pc"] = json!(n);
    }
    line
}

/// What the runtime runs at image slot `at`: the disassembly of its own bytes where the
/// regions are learned (D850), else what the rules know of the slot.
fn runtime_slot_text(s: RegionSlot<'_>, at: usize) -> String {
    match s.bytes {
        Some(b) if s.slot == RuntimeSlot::Opaque => {
            let mut text = String::new();
            print_slot(&Slot::new(b), Dialect::Semaphore8, &mut text);
            text
        }
        _ => SlotText { slot: s.slot, at }.to_string(),
    }
}

/// Under the runtime model, the PREAMBLE / POSTAMBLE slot at `addr`, and its image slot.
fn runtime_slot(e: &LoadedEngine, addr: u64) -> Option<(RegionSlot<'_>, usize)> {
    let r = e.image.runtime.as_ref()?;
    let at = usize::try_from(addr.checked_sub(e.ib_addrs.base)? >> SLOT_SHIFT).ok()?;
    let post = usize::try_from(e.image.postamble.offset >> SLOT_SHIFT).ok()?;
    Some((r.at(at, post)?, at))
}

fn reverse_line(e: &LoadedEngine, at: &Site<'_>, v: &str, pc: bool) -> serde_json::Value {
    let Some(ip) = parse_u64(v) else {
        return json!({ "value": v.trim(), "error": format!("not a number: {:?}", v.trim()) });
    };
    // A continuation maps where its record does (D155), and says whose part it is.
    let head = instruction_ip(at.source, ip);
    match e.ipmap.device_range(NeffIp(head)) {
        Ok(Some(r)) => {
            let mut fields = json!({
                "neff_ip": ip,
                "section": r.section.name(),
                "device_start": r.start.0,
                "device_end": r.end.0,
            });
            if pc {
                fields["device_pc_start"] = json!((r.start.0 - e.ib_addrs.base) >> SLOT_SHIFT);
                fields["device_pc_end"] = json!((r.end.0 - e.ib_addrs.base) >> SLOT_SHIFT);
            }
            if head != ip {
                fields["continuation_of"] = json!(head);
            }
            at.answer(ip, fields)
        }
        Ok(None) => at.answer(ip, json!({ "neff_ip": ip, "deleted": true })),
        Err(err) => json!({ "neff_ip": ip, "error": err.to_string() }),
    }
}
