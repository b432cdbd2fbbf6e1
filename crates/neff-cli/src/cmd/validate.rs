//! `neff validate`: check engine streams (spec 003 §5 validity check, spec 001 §1) and report
//! every problem with its slot index and byte offset.

use anyhow::bail;
use neff_isa::validate::{Diagnostic, ValidateOptions, validate_into};
use neff_isa::{Dialect, Generation, SLOT_BYTES, SLOT_SHIFT};
use serde_json::json;

use super::stream_input::StreamInput;

/// Validate a `.bin` stream or every engine stream of a `.neff`; exit 1 on any diagnostic.
///
/// Checks: inst_word_len == 16, opcode known (for `--generation`), no pseudo with `--lowered`,
/// non-empty DMA-trigger queue name, known event modes; a partial trailing slot is a warning
/// (spec 004 §2), printed with `warning:` and exit 0. `--json`:
/// `{"file", "ok", "streams": [{"member", "slots", "diagnostics": [{"index", "offset",
/// "message", "severity"}]}]}`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) input: StreamInput,
    /// Target generation (`v2`/`sunda`, `v3`/`cayman`, `v4`, `v5`, `v1`/`tonga`); default: any v2+.
    #[arg(long, value_parser = parse_generation)]
    pub(crate) generation: Option<Generation>,
    /// The stream is lowered (device-ready): pseudo opcodes are errors.
    #[arg(long)]
    pub(crate) lowered: bool,
    /// Use the legacy 4-byte events dialect (decision D2).
    #[arg(long)]
    pub(crate) legacy_events: bool,
    /// Print JSON (format above) instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// A stream whose length is not a multiple of 64 is a warning, not an error: the runtime copies
/// the blob and counts `size >> 6` slots without a remainder check (spec 004 §2; decision D120).
fn is_warning(d: &neff_isa::validate::Diagnostic) -> bool {
    matches!(d.kind, neff_isa::validate::DiagnosticKind::TrailingBytes(_))
}

fn parse_generation(s: &str) -> Result<Generation, String> {
    Generation::from_name(s).ok_or_else(|| {
        format!("unknown generation `{s}` (v1..v5, tonga, sunda, cayman, mariana, maverick)")
    })
}

/// Runs `neff validate`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let dialect = if args.legacy_events {
        Dialect::Legacy4
    } else {
        Dialect::Semaphore8
    };
    let opts = ValidateOptions {
        generation: args.generation,
        lowered: args.lowered,
        dialect,
    };
    let file = args.input.file.display().to_string();
    let mut checked = Vec::new();
    if !args.input.is_neff()? {
        let mut d = Vec::new();
        let len = super::bin_chunks::for_each_piece(args.input.bin_path()?, |at, piece| {
            validate_piece(piece, at, &opts, &mut d);
            Ok(())
        })?;
        checked.push((None, len as usize / SLOT_BYTES, d));
    } else {
        args.input.with_streams(|streams| {
            for s in streams {
                let mut d = Vec::new();
                validate_into(s.bytes, &opts, &mut d);
                checked.push((s.member.map(str::to_owned), s.bytes.len() / SLOT_BYTES, d));
            }
            Ok(())
        })?;
    }
    let mut total = 0;
    let mut report = Vec::new();
    let mut lines = String::new();
    for (member, slots, d) in &checked {
        total += d.iter().filter(|x| !is_warning(x)).count();
        let name = member.as_deref().unwrap_or(&file);
        for x in d {
            let severity = if is_warning(x) { "warning: " } else { "" };
            lines.push_str(&format!("{severity}{name}: {x}\n"));
        }
        report.push(json!({
            "member": member,
            "slots": slots,
            "diagnostics": d.iter().map(|x| json!({
                "index": x.index.0, "offset": x.offset.0, "message": x.to_string(),
                "severity": if is_warning(x) { "warning" } else { "error" },
            })).collect::<Vec<_>>(),
        }));
    }
    if args.json {
        let v = json!({"file": file, "ok": total == 0, "streams": report});
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else if total == 0 {
        print!("{lines}");
        let slots: usize = checked.iter().map(|c| c.1).sum();
        println!("{file}: ok ({} streams, {slots} slots)", checked.len());
    } else {
        print!("{lines}");
    }
    if total > 0 {
        bail!("{file}: {total} problem(s) found");
    }
    Ok(())
}

/// Validates one slot-aligned piece of a stream that starts `at` bytes in, with the
/// diagnostics' slot indexes and byte offsets made absolute (a piece is at most
/// [`super::bin_chunks::PIECE`] bytes, so the piece-relative values cannot overflow).
fn validate_piece(piece: &[u8], at: u64, opts: &ValidateOptions, out: &mut Vec<Diagnostic>) {
    let from = out.len();
    validate_into(piece, opts, out);
    for d in &mut out[from..] {
        d.index.0 = d
            .index
            .0
            .saturating_add(u32::try_from(at >> SLOT_SHIFT).unwrap_or(u32::MAX));
        d.offset.0 += at;
    }
}
