//! `neff cat`: one member's raw bytes to stdout.

use std::io::Write;

use anyhow::bail;

use super::input::NeffInput;

/// Write one member's raw bytes to stdout.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    /// Member path inside the NEFF, e.g. `sg00/def.json`.
    member: String,
}

/// Runs `neff cat`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    let neff = args.input.parse(&bytes)?;
    let path = args.member.strip_prefix("./").unwrap_or(&args.member);
    let Some(data) = neff.member(path) else {
        bail!(
            "{}: no member `{path}` (see `neff ls`)",
            args.input.file.display()
        );
    };
    let mut out = std::io::stdout().lock();
    out.write_all(data)?;
    out.flush()?;
    Ok(())
}
