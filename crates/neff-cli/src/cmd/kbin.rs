//! `neff kbin`: the kbin of each subgraph (spec 004 §2) — engine slots, DMA queues and rings, mem
//! refs, target, warnings — as neff-kelf's gen_kbin builds it.

use std::fmt::Write as _;

use neff_kelf::Kbin;
use serde_json::{Value, json};

use super::input::NeffInput;

/// Show each subgraph's kbin: engine slots (pe, act, pool, dve, sp, each with its kbin slot
/// index and true eng_type; ninstr = bytes >> 6), DMA queues with rings and descriptor counts,
/// mem refs by var_id, the target and any warnings.
///
/// `--json` prints {"subgraphs": [{"name", "target", "arch", "engines": [{slot, engine, eng_type,
/// ninstr, size}] (EngineType order, docs/json.md), "dma_queues": [{name, owner, type, semaphores, rings: [{name, descriptors,
/// blocks}]}], "mem_refs": [{var_id, name, type, size}], "warnings": [..]}]}.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    /// Only this subgraph (e.g. `sg00`).
    #[arg(long)]
    subgraph: Option<String>,
    /// Print JSON (format above) instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `neff kbin`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    let neff = args.input.parse(&bytes)?;
    let kelf = args.input.kelf(&neff)?;
    let kbins = args.input.kbins(&kelf, args.subgraph.as_deref())?;
    if args.json {
        let subgraphs: Vec<Value> = kbins.iter().map(Kbin::to_json).collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({ "subgraphs": subgraphs }))?
        );
    } else {
        let text: String = kbins.iter().map(kbin_text).collect::<Vec<_>>().join("\n");
        print!("{text}");
    }
    Ok(())
}

/// The text form of one kbin: a heading and three aligned tables.
fn kbin_text(k: &Kbin<'_>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: target {} (arch {})",
        k.name,
        k.target,
        k.target.arch()
    );
    let _ = writeln!(s, "  engines:");
    let _ = writeln!(
        s,
        "    {:<4} {:<5} {:<8} {:>7} {:>9}  member",
        "slot", "name", "eng_type", "ninstr", "bytes"
    );
    for e in k.engines_by_type() {
        let _ = writeln!(
            s,
            "    {:<4} {:<5} {:<8} {:>7} {:>9}  {}",
            e.slot, e.name, e.eng_type as u8, e.ninstr, e.size, e.member
        );
    }
    let _ = writeln!(s, "  dma queues: {}", k.dma_queues.len());
    for q in &k.dma_queues {
        let owner = q.owner.map_or("-", |o| o.key());
        let sems: Vec<String> = q.semaphores.iter().map(u32::to_string).collect();
        let _ = writeln!(
            s,
            "    {} owner={owner} type={} semaphores=[{}] rings={} blocks={} descriptors={}",
            q.name,
            q.ty,
            sems.join(","),
            q.rings.len(),
            q.blocks.len(),
            q.ndesc()
        );
    }
    let _ = writeln!(s, "  mem refs: {}", k.mem_refs.len());
    let _ = writeln!(
        s,
        "    {:<6} {:<14} {:<24} {:>10}",
        "var_id", "type", "name", "size"
    );
    for m in &k.mem_refs {
        let _ = writeln!(
            s,
            "    {:<6} {:<14} {:<24} {:>10}",
            m.var_id,
            m.ty.name(),
            m.name,
            m.size
        );
    }
    for w in &k.warnings {
        let _ = writeln!(s, "  warning: {w}");
    }
    s
}
