//! `neff completions SHELL`: a shell completion script generated from the clap definitions
//! (clap_complete, issue 15 item 9), so it can never disagree with `neff --help`.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

/// Print a completion script for SHELL on stdout.
///
/// bash: `neff completions bash > ~/.local/share/bash-completion/completions/neff`;
/// zsh: `neff completions zsh > "${fpath[1]}/_neff"`;
/// fish: `neff completions fish > ~/.config/fish/completions/neff.fish`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The shell the script is for.
    shell: Shell,
}

/// Runs `neff completions`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let mut cmd = crate::Cli::command();
    // Generated into memory first: clap_complete panics on a write error, a closed stdout
    // must end quietly (D300).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "neff", &mut script);
    std::io::stdout().lock().write_all(&script)?;
    Ok(())
}
