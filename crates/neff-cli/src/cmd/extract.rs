//! `neff extract`: the members into a folder, safely.

use std::path::PathBuf;

use anyhow::Context;
use neff_container::{ExtractOptions, extract};

use super::input::NeffInput;

/// Extract every member into a folder. Never writes outside it, never follows symlinks, and
/// refuses to overwrite existing files unless --force.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    /// Target folder (created if missing). `-C/--directory` as in tar; `-o/--output` as every
    /// other command that writes (D342).
    #[arg(
        short = 'C',
        long = "directory",
        value_name = "DIR",
        visible_short_alias = 'o',
        visible_alias = "output"
    )]
    dir: PathBuf,
    /// Overwrite existing files.
    #[arg(long)]
    force: bool,
}

/// Runs `neff extract`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    let neff = args.input.parse(&bytes)?;
    let written = extract(&neff, &args.dir, ExtractOptions { force: args.force })
        .with_context(|| format!("extracting into {}", args.dir.display()))?;
    eprintln!(
        "extracted {} members into {}",
        written.len(),
        args.dir.display()
    );
    Ok(())
}
