//! The NEFF file argument shared by every command that reads one: the path, `--no-verify` and
//! the `--max-*` limits ([`ReadFlags`]), the one place a NEFF is parsed, and its kelf and kbins
//! picked by `--subgraph`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::Context;
use neff_container::{Neff, ReadOptions, Scan};
use neff_kelf::{Kbin, Kelf, KelfError};

use super::limits::LimitArgs;
use super::problems::first_or_all;

/// A NEFF to read.
#[derive(clap::Args, Debug)]
pub(crate) struct NeffInput {
    /// The `.neff` file (`-`: standard input).
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) read: ReadFlags,
}

/// How a NEFF is read: `--no-verify` and the limits. Every command that reads a NEFF flattens
/// this (directly or through [`NeffInput`]), so only those commands list the limit flags (D342)
/// and none can read a NEFF without them.
#[derive(clap::Args, Debug)]
pub(crate) struct ReadFlags {
    /// Do not check a NEFF's header hash against its payload (a mismatch is otherwise an error).
    #[arg(long)]
    pub(crate) no_verify: bool,
    #[command(flatten)]
    limits: LimitArgs,
}

impl ReadFlags {
    /// Hash checking unless `--no-verify`, under the limits (flag, environment, default).
    pub(crate) fn options(&self) -> anyhow::Result<ReadOptions> {
        Ok(ReadOptions {
            verify: !self.no_verify,
            limits: self.limits.resolve()?,
            ..ReadOptions::default()
        })
    }
}

impl NeffInput {
    /// The file's bytes.
    pub(crate) fn read(&self) -> anyhow::Result<Vec<u8>> {
        read_file(&self.file)
    }

    /// Reads and parses the file, freeing its compressed bytes once inflated (decision D831):
    /// for a command that needs nothing of the file but its package.
    pub(crate) fn open(&self) -> anyhow::Result<Neff<'static>> {
        Neff::parse_owned(self.read()?, &self.read.options()?)
            .with_context(|| self.file.display().to_string())
    }

    /// Parses bytes read by [`read`](Self::read), honouring `--no-verify`.
    pub(crate) fn parse<'a>(&self, bytes: &'a [u8]) -> anyhow::Result<Neff<'a>> {
        parse_neff(&self.file, bytes, &self.read)
    }

    /// Streams through the package without holding it (decision D27): every limit applies as
    /// each tar header is read, so a bomb is refused early; `keep(path, size)` picks the members
    /// whose bytes the command needs.
    pub(crate) fn scan<'a>(
        &self,
        bytes: &'a [u8],
        keep: impl FnMut(&str, u64) -> bool + Send,
    ) -> anyhow::Result<Scan<'a>> {
        scan_neff(&self.file, bytes, &self.read, keep)
    }

    /// The kelf of a NEFF parsed by [`parse`](Self::parse) (spec 004 §1); the error names the
    /// file and lists every problem of the kelf (issue 15 item 6).
    pub(crate) fn kelf<'a>(&self, neff: &'a Neff<'_>) -> anyhow::Result<Kelf<'a>> {
        Kelf::from_neff(neff)
            .map_err(|first| first_or_all(first, neff_kelf::kelf_problems(neff)))
            .with_context(|| self.file.display().to_string())
    }

    /// The kbin of every subgraph (spec 004 §2), or only of `subgraph` (`--subgraph`), which
    /// must exist; the error lists every subgraph's problem (issue 15 item 6).
    pub(crate) fn kbins<'a>(
        &self,
        kelf: &Kelf<'a>,
        subgraph: Option<&str>,
    ) -> anyhow::Result<Vec<Kbin<'a>>> {
        kelf.kbins_of(subgraph)
            .map_err(|first| match first {
                KelfError::NoSuchSubgraph { .. } => first.into(),
                _ => first_or_all(first, kelf.kbins_all().1),
            })
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
    let context = || format!("reading {}", path.display());
    #[cfg(unix)]
    if let Some(bytes) = read_in_halves(path).with_context(context)? {
        return Ok(bytes);
    }
    std::fs::read(path).with_context(context)
}

/// Regular files from this size on are read by [`read_in_halves`].
#[cfg(unix)]
const HALVES_MIN: u64 = 8 << 20;

/// A large regular file read by two threads, each copying (and first-touching) one half: the
/// read comes before any other work of the command, so its time is all wall time (decision
/// D380; issue 20's 26 MB NEFF: ~18 ms on one core). `None` when the file is small, not a
/// regular file, or changed size while read (the caller then reads it the ordinary way).
#[cfg(unix)]
fn read_in_halves(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    let Ok(len) = usize::try_from(meta.len()) else {
        return Ok(None);
    };
    if !meta.is_file() || meta.len() < HALVES_MIN {
        return Ok(None);
    }
    let mut bytes = vec![0u8; len];
    let (first, second) = bytes.split_at_mut(len / 2);
    let read = std::thread::scope(|s| {
        let other = s.spawn(|| file.read_exact_at(second, (len / 2) as u64));
        let mine = file.read_exact_at(first, 0);
        mine.and(
            other
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
        )
    });
    match read {
        Ok(()) if file.metadata()?.len() == meta.len() => Ok(Some(bytes)),
        Ok(()) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

/// A reader over `path`, or over standard input for `-`.
pub(crate) fn open_file(path: &Path) -> anyhow::Result<Box<dyn Read + Send>> {
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

/// Streams through the bytes of the NEFF `path` as `flags` say, keeping the members `keep`
/// picks ([`neff_container::scan`], decision D27); the error is headed by the file name.
pub(crate) fn scan_neff<'a>(
    path: &Path,
    bytes: &'a [u8],
    flags: &ReadFlags,
    keep: impl FnMut(&str, u64) -> bool + Send,
) -> anyhow::Result<Scan<'a>> {
    neff_container::scan(bytes, &flags.options()?, keep).with_context(|| path.display().to_string())
}

/// Parses the bytes of the NEFF `path` as `flags` say; the error is headed by the file name.
pub(crate) fn parse_neff<'a>(
    path: &Path,
    bytes: &'a [u8],
    flags: &ReadFlags,
) -> anyhow::Result<Neff<'a>> {
    Neff::parse_with(bytes, &flags.options()?).with_context(|| path.display().to_string())
}
