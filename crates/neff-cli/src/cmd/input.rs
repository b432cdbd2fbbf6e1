//! The NEFF file argument shared by every command that reads one: the path and `--no-verify`,
//! the one place a NEFF is parsed (with the global `--max-*` limits, [`super::limits`]), and
//! its kelf and kbins picked by `--subgraph`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::Context;
use neff_container::{Neff, ReadOptions, Scan};
use neff_kelf::{Kbin, Kelf};

/// A NEFF to read.
#[derive(clap::Args, Debug)]
pub(crate) struct NeffInput {
    /// The `.neff` file (`-`: standard input).
    pub(crate) file: PathBuf,
    /// Do not check a NEFF's header hash against its payload (a mismatch is otherwise an error).
    #[arg(long)]
    pub(crate) no_verify: bool,
}

impl NeffInput {
    /// The file's bytes.
    pub(crate) fn read(&self) -> anyhow::Result<Vec<u8>> {
        read_file(&self.file)
    }

    /// Parses bytes read by [`read`](Self::read), honouring `--no-verify`.
    pub(crate) fn parse<'a>(&self, bytes: &'a [u8]) -> anyhow::Result<Neff<'a>> {
        parse_neff(&self.file, bytes, self.no_verify)
    }

    /// Streams through the package without holding it (decision D27): every limit applies as
    /// each tar header is read, so a bomb is refused early; `keep(path, size)` picks the members
    /// whose bytes the command needs.
    pub(crate) fn scan<'a>(
        &self,
        bytes: &'a [u8],
        keep: impl FnMut(&str, u64) -> bool,
    ) -> anyhow::Result<Scan<'a>> {
        neff_container::scan(bytes, &self.read_options(), keep)
            .with_context(|| self.file.display().to_string())
    }

    /// The read options: `--no-verify` and the process's limits.
    pub(crate) fn read_options(&self) -> ReadOptions {
        read_options(self.no_verify)
    }

    /// The kelf of a NEFF parsed by [`parse`](Self::parse) (spec 004 §1); the error names the
    /// file.
    pub(crate) fn kelf<'a>(&self, neff: &'a Neff<'_>) -> anyhow::Result<Kelf<'a>> {
        Kelf::from_neff(neff).with_context(|| self.file.display().to_string())
    }

    /// The kbin of every subgraph (spec 004 §2), or only of `subgraph` (`--subgraph`), which
    /// must exist.
    pub(crate) fn kbins<'a>(
        &self,
        kelf: &Kelf<'a>,
        subgraph: Option<&str>,
    ) -> anyhow::Result<Vec<Kbin<'a>>> {
        kelf.kbins_of(subgraph)
            .with_context(|| self.file.display().to_string())
    }
}

/// Whether `path` is `-`, standard input (D302).
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Standard input, read once and kept: a command may look at it twice (first to tell a NEFF
/// from an engine stream, then to read it).
fn stdin_bytes() -> anyhow::Result<&'static [u8]> {
    static STDIN: OnceLock<Vec<u8>> = OnceLock::new();
    if let Some(bytes) = STDIN.get() {
        return Ok(bytes);
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .context("reading standard input")?;
    Ok(STDIN.get_or_init(|| bytes))
}

/// The bytes of `path`, or of standard input for `-`; the error names the file.
pub(crate) fn read_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    if is_stdin(path) {
        return Ok(stdin_bytes()?.to_vec());
    }
    std::fs::read(path).with_context(|| format!("reading {}", path.display()))
}

/// A reader over `path`, or over standard input for `-`.
pub(crate) fn open_file(path: &Path) -> anyhow::Result<Box<dyn Read>> {
    if is_stdin(path) {
        return Ok(Box::new(stdin_bytes()?));
    }
    let file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(Box::new(file))
}

/// Whether `path` holds a NEFF by its content ([`neff_container::is_neff`], D302). A file
/// named `.neff` counts too, so that a broken one gets the parser's error instead of being
/// read as an engine stream.
pub(crate) fn holds_neff(path: &Path) -> anyhow::Result<bool> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("neff"))
    {
        return Ok(true);
    }
    let mut prefix = Vec::with_capacity(neff_container::IDENTIFY_LEN);
    open_file(path)?
        .take(neff_container::IDENTIFY_LEN as u64)
        .read_to_end(&mut prefix)
        .with_context(|| format!("reading {}", path.display()))?;
    Ok(neff_container::is_neff(&prefix))
}

/// Parses the bytes of the NEFF `path` under the process's limits, checking the header hash
/// unless `no_verify`; the error is headed by the file name.
pub(crate) fn parse_neff<'a>(
    path: &Path,
    bytes: &'a [u8],
    no_verify: bool,
) -> anyhow::Result<Neff<'a>> {
    Neff::parse_with(bytes, &read_options(no_verify)).with_context(|| path.display().to_string())
}

/// Hash checking unless `no_verify`, under the process's limits ([`super::limits`]).
pub(crate) fn read_options(no_verify: bool) -> ReadOptions {
    ReadOptions {
        verify: !no_verify,
        limits: super::limits::current(),
    }
}
