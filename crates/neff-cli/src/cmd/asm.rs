//! `neff asm`: assemble text (the `neff disasm` syntax, decision D4) into an engine stream.

use std::path::PathBuf;

use anyhow::Context;
use neff_isa::Dialect;
use neff_isa::sp::assemble_sp;
use neff_isa::text::assemble;

/// Assemble a text file into a `.bin` engine stream (written atomically).
///
/// Accepts exactly what `neff disasm` prints for a `.bin`, plus comments (`#`, `//`), blank
/// lines and a trailing `;`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The text file (`-`: standard input).
    pub(crate) file: PathBuf,
    /// The output `.bin`.
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    /// Assemble 8-byte SP sequencer words (spec 003 §3.2).
    #[arg(long)]
    pub(crate) sp: bool,
    /// Use the legacy 4-byte events dialect (decision D2).
    #[arg(long)]
    pub(crate) legacy_events: bool,
}

/// Runs `neff asm`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let text = String::from_utf8(super::input::read_file(&args.file)?)
        .with_context(|| format!("reading {}: not UTF-8 text", args.file.display()))?;
    let dialect = if args.legacy_events {
        Dialect::Legacy4
    } else {
        Dialect::Semaphore8
    };
    let bytes = if args.sp {
        assemble_sp(&text)
    } else {
        assemble(&text, dialect)
    }
    .with_context(|| args.file.display().to_string())?;
    Ok(neff_container::write_atomic(&args.output, &bytes)?)
}
