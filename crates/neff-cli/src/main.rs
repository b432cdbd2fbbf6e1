//! `neff`: the neffkit command-line tool.
//!
//! Every subcommand is a thin shell over the library crates; it lives in its own file under
//! `cmd/` with an `Args` struct (clap) and a `run` function. Exit codes are documented in the
//! README: 0 ok, 1 invalid input, 2 usage (clap), 3 internal error (a panic; a bug in neffkit).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

/// Declares the subcommand enum and its dispatch from one list, so adding a command is one line
/// here plus its module in `cmd/`.
macro_rules! commands {
    ($($(#[$doc:meta])* $variant:ident => $module:ident,)*) => {
        #[derive(Subcommand)]
        enum Command {
            $($(#[$doc])* $variant(cmd::$module::Args),)*
        }

        impl Command {
            fn run(self) -> anyhow::Result<()> {
                match self {
                    $(Command::$variant(args) => cmd::$module::run(args),)*
                }
            }
        }
    };
}

commands! {
    // Keep alphabetical. One line per subcommand: `Variant => module,`. No doc comment here:
    // a variant's doc would replace the `Args` struct's (its `--help`, JSON format included).
    Asm => asm,
    Bir => bir,
    Cat => cat,
    Completions => completions,
    Diff => diff,
    Disasm => disasm,
    Dump => dump,
    Extract => extract,
    Info => info,
    Ip => ip,
    Kbin => kbin,
    Load => load,
    Lower => lower,
    Ls => ls,
    Man => man,
    Pack => pack,
    Profile => profile,
    Report => report,
    Run => run,
    Scan => scan,
    Sim => sim,
    Synth => synth,
    Validate => validate,
}

/// The neffkit tool for Neuron Executable File Format (NEFF) files.
#[derive(Parser)]
#[command(name = "neff", version, about, long_about = None, propagate_version = true, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Exit codes and how the limits apply, shown by `neff --help` (docs/robustness.md has the details).
const AFTER_HELP: &str = "\
Exit codes: 0 ok, 1 invalid input (the message names the file, member, offset or JSON pointer),
2 usage error, 3 internal error (a panic: a bug in neffkit, please report it).
With --json, an error is printed on stderr as {\"error\": {\"message\": ..., \"chain\": [...]}}.

Every command that reads a NEFF takes the --max-* limits on what it may declare (flag, else
environment, else default, checked before allocating; docs/robustness.md). `-` reads standard
input wherever a file is read.";

/// Exit code for input neffkit refuses (a malformed file, a bad slot, a missing member).
const EXIT_INVALID_INPUT: u8 = 1;
/// Exit code for a panic: always a neffkit bug, never the user's input.
const EXIT_INTERNAL: u8 = 3;

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        if is_closed_stdout_panic(info) {
            std::process::exit(0);
        }
        eprintln!("neff: internal error (this is a bug in neffkit, please report it): {info}");
        std::process::exit(i32::from(EXIT_INTERNAL));
    }));
    let json = std::env::args_os().any(|a| a == "--json");
    let cli = Cli::parse();
    match cli.command.run() {
        Ok(()) => ExitCode::SUCCESS,
        // D300: the reader went away (`neff disasm x | head`): end quietly, like `cat`.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) if json => {
            let chain: Vec<String> = err.chain().map(ToString::to_string).collect();
            let report =
                serde_json::json!({"error": {"message": format!("{err:#}"), "chain": chain}});
            eprintln!("{report}");
            ExitCode::from(EXIT_INVALID_INPUT)
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(EXIT_INVALID_INPUT)
        }
    }
}

/// Whether `err` comes from writing to a pipe whose reader is gone (D300).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Whether a panic is `println!` failing on a closed stdout (D300). `println!` panics with
/// "failed printing to stdout: {io error}"; the error of a gone reader is EPIPE, whose text is
/// "Broken pipe" on Linux and macOS. Any other stdout failure (a full disk) is still reported.
fn is_closed_stdout_panic(info: &std::panic::PanicHookInfo<'_>) -> bool {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    message.starts_with("failed printing to stdout") && message.contains("Broken pipe")
}
