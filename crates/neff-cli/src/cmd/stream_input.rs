//! The engine-stream argument shared by `neff disasm`, `neff validate` and `neff dump`: a raw
//! `.bin` stream, or a NEFF whose `sgNN/<engine>.bin` members are picked by `--subgraph` and
//! `--engine` ([`neff_kelf::select_streams`]: both member spellings, subgraph then engine order).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use neff_debug::DebugInfo;
use neff_isa::EngineType;
use neff_kelf::select_streams;

use super::input::{ReadFlags, holds_neff, parse_neff, read_file, scan_neff};

/// A `.bin` engine stream or a `.neff` with the engine streams to take from it.
#[derive(clap::Args, Debug)]
pub(crate) struct StreamInput {
    /// The `.bin` stream or `.neff` file, told apart by content (`-`: standard input).
    pub(crate) file: PathBuf,
    /// Only this subgraph of a NEFF (e.g. `sg00`).
    #[arg(long)]
    pub(crate) subgraph: Option<String>,
    /// Only this engine of a NEFF (`pe`, `act`, `pool`, `dve`, `sp`, or `PE`, `Activation`, ...).
    #[arg(long)]
    pub(crate) engine: Option<EngineType>,
    #[command(flatten)]
    pub(crate) read: ReadFlags,
}

/// One engine stream to work on, borrowed from the input (a NEFF's inflated package or a `.bin`
/// file's bytes): no copy of the streams is made.
pub(crate) struct Stream<'a> {
    /// `sg00/pool.bin` for a NEFF member, `None` for a raw `.bin`.
    pub(crate) member: Option<&'a str>,
    /// The subgraph folder (`sg00`).
    pub(crate) subgraph: Option<&'a str>,
    /// The engine the member's stem names.
    pub(crate) engine: Option<EngineType>,
    /// The stream bytes.
    pub(crate) bytes: &'a [u8],
}

impl StreamInput {
    /// Whether the input is a NEFF (by its header, [`holds_neff`]); anything else is a raw
    /// `.bin` stream.
    pub(crate) fn is_neff(&self) -> anyhow::Result<bool> {
        holds_neff(&self.file)
    }

    /// The path of a raw `.bin` input, for commands that stream it piece by piece
    /// ([`super::bin_chunks`]); `--subgraph`/`--engine` are an error there (they select NEFF
    /// members).
    pub(crate) fn bin_path(&self) -> anyhow::Result<&Path> {
        if self.subgraph.is_some() || self.engine.is_some() {
            bail!(
                "{}: --subgraph/--engine apply to a .neff input only",
                self.file.display()
            );
        }
        Ok(&self.file)
    }

    /// Calls `f` with the streams: the file itself for a `.bin`, else the selected engine members
    /// of the NEFF in subgraph then engine order (PE, ACT, POOL, DVE, SP), borrowed from the
    /// inflated package.
    pub(crate) fn with_streams<R>(
        &self,
        f: impl FnOnce(&[Stream<'_>]) -> anyhow::Result<R>,
    ) -> anyhow::Result<R> {
        self.with_streams_and_debug(None, |streams, _| f(streams))
    }

    /// Like [`with_streams`](Self::with_streams), and with `debug = Some(required)` the NEFF's
    /// debug info too (none for a `.bin`; see [`super::debug_info::load`] for `required`).
    pub(crate) fn with_streams_and_debug<R>(
        &self,
        debug: Option<bool>,
        f: impl FnOnce(&[Stream<'_>], Option<&DebugInfo>) -> anyhow::Result<R>,
    ) -> anyhow::Result<R> {
        if !self.is_neff()? {
            self.bin_path()?;
            let bytes = read_file(&self.file)?;
            let stream = Stream {
                member: None,
                subgraph: None,
                engine: None,
                bytes: &bytes,
            };
            return f(&[stream], None);
        }
        let bytes = read_file(&self.file)?;
        let Some(required) = debug else {
            // No debug info: stream through the package and keep only the selected streams
            // (decision D380), not the whole inflated tar.
            let (subgraph, engine) = (self.subgraph.as_deref(), self.engine);
            let scan = scan_neff(&self.file, &bytes, &self.read, |path, _| {
                select_streams([path], subgraph, engine).is_ok()
            })?;
            let paths = scan.members().map(|m| m.path);
            return f(&self.streams(paths, |path| scan.member(path))?, None);
        };
        let neff = parse_neff(&self.file, &bytes, &self.read)?;
        let info = super::debug_info::load(&self.file, &neff, required);
        let streams = self.streams(neff.members().map(|m| m.path), |path| neff.member(path))?;
        f(&streams, Some(&info))
    }

    /// The selected streams among the member `paths`, in subgraph then engine order, with the
    /// bytes `member(path)` gives.
    fn streams<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a str>,
        member: impl Fn(&str) -> Option<&'a [u8]>,
    ) -> anyhow::Result<Vec<Stream<'a>>> {
        let found = select_streams(paths, self.subgraph.as_deref(), self.engine)
            .with_context(|| self.file.display().to_string())?;
        Ok(found
            .into_iter()
            .map(|s| Stream {
                bytes: member(s.path).unwrap_or_default(),
                member: Some(s.path),
                subgraph: Some(s.subgraph),
                engine: Some(s.engine),
            })
            .collect())
    }
}
