//! `neff asm`: assemble text (the `neff disasm` syntax, decision D4) into an engine stream.

use std::io::Write;
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
    /// The text file.
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
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("reading {}", args.file.display()))?;
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
    write_atomic(&args.output, &bytes)
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`: never a half
/// file.
fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(path)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
