//! The NEFF file argument shared by every command that reads one: the path and `--no-verify`.

use std::path::PathBuf;

use anyhow::Context;
use neff_container::{Neff, ReadOptions};

/// A NEFF to read.
#[derive(clap::Args, Debug)]
pub(crate) struct NeffInput {
    /// The .neff file.
    pub(crate) file: PathBuf,
    /// Do not check the header hash against the payload (a mismatch is otherwise an error).
    #[arg(long)]
    pub(crate) no_verify: bool,
}

impl NeffInput {
    /// The file's bytes.
    pub(crate) fn read(&self) -> anyhow::Result<Vec<u8>> {
        std::fs::read(&self.file).with_context(|| format!("reading {}", self.file.display()))
    }

    /// Parses bytes read by [`read`](Self::read), honouring `--no-verify`.
    pub(crate) fn parse<'a>(&self, bytes: &'a [u8]) -> anyhow::Result<Neff<'a>> {
        let options = ReadOptions {
            verify: !self.no_verify,
            limits: super::limits::current(),
        };
        Neff::parse_with(bytes, &options).with_context(|| format!("{}", self.file.display()))
    }
}
