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
    // Keep alphabetical. One line per subcommand: `Variant => module,`.
    /// Assemble instruction text into a .bin engine stream.
    Asm => asm,
    /// Read, check, format, count and draw BIR JSON (the compiler's instruction IR).
    Bir => bir,
    /// Write one member's raw bytes to stdout.
    Cat => cat,
    /// Disassemble a .bin engine stream or every engine stream of a .neff.
    Disasm => disasm,
    /// Explain every byte of one instruction slot.
    Dump => dump,
    /// Extract every member into a folder, safely.
    Extract => extract,
    /// Show a NEFF's header, integrity, members and kelf graphs.
    Info => info,
    /// Map device PCs of one engine to NEFF instructions (and back with --reverse).
    Ip => ip,
    /// Show each subgraph's kbin: engine slots, DMA queues, mem refs, target (spec 004 §2).
    Kbin => kbin,
    /// Load a NEFF like the runtime: assemble, stage and report every engine image.
    Load => load,
    /// Lower pseudo-instructions into device records, per engine, with the patch rows.
    Lower => lower,
    /// List the members of a NEFF.
    Ls => ls,
    /// Pack a folder into a NEFF.
    Pack => pack,
    /// Write one self-contained HTML page of a NEFF: regions, mix, DMA, timeline.
    Report => report,
    /// One row per NEFF over files, folders and globs (JSON lines or Parquet), on all cores.
    Scan => scan,
    /// Simulate a NEFF on a model of the NeuronCore: span, per-engine time, deadlocks.
    Sim => sim,
    /// Write a synthetic NEFF shaped like real compiler output (tests, benchmarks).
    Synth => synth,
    /// Validate engine streams; every problem with slot index and byte offset.
    Validate => validate,
}

/// The neffkit tool for Neuron Executable File Format (NEFF) files.
#[derive(Parser)]
#[command(name = "neff", version, about, long_about = None, propagate_version = true, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    limits: cmd::limits::LimitArgs,
}

/// Exit codes and limit defaults, shown by `neff --help` (docs/robustness.md has the details).
const AFTER_HELP: &str = "\
Exit codes: 0 ok, 1 invalid input (the message names the file, member, offset or JSON pointer),
2 usage error, 3 internal error (a panic: a bug in neffkit, please report it).
With --json, an error is printed on stderr as {\"error\": {\"message\": ..., \"chain\": [...]}}.

Limits on untrusted input (flag, else environment, else default), checked before allocating:
  --max-members      NEFFKIT_MAX_MEMBERS      1000000 members
  --max-member-size  NEFFKIT_MAX_MEMBER_SIZE  16G per member
  --max-total-size   NEFFKIT_MAX_TOTAL_SIZE   4G inflated package (half the machine's memory if less)
  --max-ratio        NEFFKIT_MAX_RATIO        1100 inflated bytes per compressed byte";

/// Exit code for input neffkit refuses (a malformed file, a bad slot, a missing member).
const EXIT_INVALID_INPUT: u8 = 1;
/// Exit code for a panic: always a neffkit bug, never the user's input.
const EXIT_INTERNAL: u8 = 3;

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("neff: internal error (this is a bug in neffkit, please report it): {info}");
        std::process::exit(i32::from(EXIT_INTERNAL));
    }));
    let json = std::env::args_os().any(|a| a == "--json");
    let cli = Cli::parse();
    match cli.limits.install().and_then(|()| cli.command.run()) {
        Ok(()) => ExitCode::SUCCESS,
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
