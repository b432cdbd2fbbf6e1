//! `neff dump`: explain every byte of one slot (`offset | hex | field = value`).

use anyhow::bail;
use neff_isa::continuation::Pairing;
use neff_isa::explain::{explain, explain_continuation, write_rows};
use neff_isa::text::print_stream_slot;
use neff_isa::{Dialect, SLOT_BYTES, SlotIndex, slots};
use serde_json::json;

use super::disasm::hex;
use super::stream_input::{Stream, StreamInput};

/// Explain every byte of one slot of a `.bin` stream (or of one engine of a `.neff`).
///
/// `--json`: `{"member", "index", "offset", "text", "hex", "rows": [{"offset", "len", "hex",
/// "field", "value"}]}`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    // A `.bin`, or one engine stream of a `.neff` (--subgraph and --engine pick it when several
    // match).
    #[command(flatten)]
    pub(crate) input: StreamInput,
    /// The slot index.
    #[arg(long)]
    pub(crate) slot: u32,
    /// Use the legacy 4-byte events dialect (decision D2).
    #[arg(long)]
    pub(crate) legacy_events: bool,
    /// Print JSON (format above) instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Runs `neff dump`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    args.input.with_streams(|streams| dump(&args, streams))
}

/// Explains the slot of the one selected stream.
fn dump(args: &Args, streams: &[Stream<'_>]) -> anyhow::Result<()> {
    let [stream] = streams else {
        bail!(
            "{}: several engine streams match; pick one with --subgraph and --engine",
            args.input.file.display()
        );
    };
    let name = stream
        .member
        .map_or_else(|| args.input.file.display().to_string(), str::to_owned);
    let count = stream.bytes.len() / SLOT_BYTES;
    let Some((idx, slot)) = slots(stream.bytes).nth(args.slot as usize) else {
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
    // The text is the instruction's (a 0xD4 with its continuation: one line, decision D155); a
    // continuation's bytes are explained as PSEUDO_DMA_EXT, without header or events.
    let mut text = String::new();
    let rows = match print_stream_slot(stream.bytes, idx.0 as usize, dialect, &mut text) {
        Pairing::Continuation => explain_continuation(&slot),
        _ => explain(&slot, dialect),
    };
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
