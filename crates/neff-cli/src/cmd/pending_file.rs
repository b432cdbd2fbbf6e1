//! An output file written whole or not at all: a temporary file beside it, renamed onto it when
//! complete (the streamed outputs of `neff scan` and `neff profile`; never a partial file).

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// Output buffer: large writes, few syscalls.
const OUT_BUFFER: usize = 1 << 20;

/// An output file being written: a temporary file beside FILE, renamed onto it at the end
/// (never a partial output file).
pub(crate) struct PendingFile {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
}

impl PendingFile {
    pub(crate) fn create(path: &Path) -> anyhow::Result<Self> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let tmp = tempfile::NamedTempFile::new_in(dir)
            .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
        Ok(Self {
            tmp,
            path: path.to_path_buf(),
        })
    }

    pub(crate) fn writer(&self) -> anyhow::Result<BufWriter<std::fs::File>> {
        let file = self.tmp.reopen().with_context(|| self.context())?;
        Ok(BufWriter::with_capacity(OUT_BUFFER, file))
    }

    pub(crate) fn context(&self) -> String {
        format!("writing {}", self.path.display())
    }

    pub(crate) fn persist(self) -> anyhow::Result<()> {
        let context = self.context();
        self.tmp
            .persist(&self.path)
            .map_err(|e| e.error)
            .context(context)?;
        Ok(())
    }
}
