//! One module per `neff` subcommand; each exposes `Args` (clap) and `run(Args)`.
pub(crate) mod asm;
pub(crate) mod bir;
pub(crate) mod cat;
pub(crate) mod disasm;
pub(crate) mod dump;
pub(crate) mod extract;
pub(crate) mod info;
pub(crate) mod input;
pub(crate) mod ip;
pub(crate) mod kbin;
pub(crate) mod limits;
pub(crate) mod load;
pub(crate) mod lower;
pub(crate) mod ls;
pub(crate) mod pack;
pub(crate) mod synth;
pub(crate) mod validate;
