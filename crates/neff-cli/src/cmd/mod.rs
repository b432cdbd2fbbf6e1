//! One module per `neff` subcommand; each exposes `Args` (clap) and `run(Args)`.
