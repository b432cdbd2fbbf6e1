//! `neff man`: the manual pages, generated from the clap definitions (clap_mangen, issue 15
//! item 9), so they say what `--help` says.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::CommandFactory;

/// Print the neff(1) manual page (roff) on stdout, or write one page per command to a folder.
///
/// `neff man | man -l -` reads it; `neff man -o DIR` writes DIR/neff.1 and DIR/neff-<command>.1
/// for every command (e.g. into `~/.local/share/man/man1`).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Write neff.1 and one neff-<command>.1 per command into this folder instead.
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
}

/// Runs `neff man`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let cmd = crate::Cli::command();
    match args.output {
        Some(dir) => {
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            clap_mangen::generate_to(cmd, &dir)
                .with_context(|| format!("writing manual pages into {}", dir.display()))
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut page)?;
            std::io::stdout().lock().write_all(&page)?;
            Ok(())
        }
    }
}
