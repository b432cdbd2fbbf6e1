//! `neff dump`: explain every byte of one slot (`offset | hex | field = value`).

use std::path::PathBuf;

use anyhow::bail;
use neff_isa::explain::{explain, write_rows};
use neff_isa::text::print_slot;
use neff_isa::{Dialect, EngineType, SlotIndex, slots};
use serde_json::json;

use super::disasm::{hex, load_streams};

/// Explain every byte of one slot of a `.bin` stream (or of one engine of a `.neff`).
///
/// `--json`: `{"member", "index", "offset", "text", "hex", "rows": [{"offset", "len", "hex",
/// "field", "value"}]}`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The `.bin` stream or `.neff` file.
    pub(crate) file: PathBuf,
    /// The slot index.
    #[arg(long)]
    pub(crate) slot: u32,
    /// The subgraph, for a `.neff`.
    #[arg(long)]
    pub(crate) subgraph: Option<String>,
    /// The engine, for a `.neff` (required when it has several engine streams).
    #[arg(long)]
    pub(crate) engine: Option<EngineType>,
    /// Use the legacy 4-byte events dialect (decision D2).
    #[arg(long)]
    pub(crate) legacy_events: bool,
    /// Print JSON (format above).
    #[arg(long)]
    pub(crate) json: bool,
    /// Do not check a NEFF's header hash.
    #[arg(long)]
    pub(crate) no_verify: bool,
}

/// Runs `neff dump`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let streams = load_streams(
        &args.file,
        args.subgraph.as_deref(),
        args.engine,
        args.no_verify,
    )?;
    let [stream] = streams.as_slice() else {
        bail!(
            "{}: several engine streams match; pick one with --subgraph and --engine",
            args.file.display()
        );
    };
    let name = stream
        .member
        .clone()
        .unwrap_or_else(|| args.file.display().to_string());
    let count = stream.bytes.len() / 64;
    let Some((idx, slot)) = slots(&stream.bytes).nth(args.slot as usize) else {
        bail!(
            "{name}: slot {} is out of range (the stream has {count} slots)",
            args.slot
        );
    };
    let dialect = if args.legacy_events {
        Dialect::Legacy4
    } else {
        Dialect::Semaphore8
    };
    let rows = explain(&slot, dialect);
    let mut text = String::new();
    print_slot(&slot, dialect, &mut text);
    if args.json {
        let rows: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({"offset": r.offset, "len": r.len, "field": r.field, "value": r.value,
                       "hex": hex(&slot.bytes()[r.offset..r.offset + r.len])})
            })
            .collect();
        let v = json!({"member": stream.member, "index": idx.0, "offset": idx.byte_offset().0,
                       "text": text, "hex": hex(slot.bytes()), "rows": rows});
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let mut out = format!(
        "{name}: slot {} at byte {}\n  {text}\n",
        idx.0,
        SlotIndex(idx.0).byte_offset()
    );
    write_rows(&slot, &rows, &mut out);
    print!("{out}");
    Ok(())
}
