//! Writing a file so that it is either complete or absent: a temporary file in the same folder,
//! flushed, then renamed over the target (DESIGN "never a partial output file").

use std::io::Write;
use std::path::Path;

use crate::error::ContainerError;

/// Writes `bytes` to `path` atomically: the data goes to a temporary file beside `path`, which is
/// synced and then renamed onto `path`. On any error `path` is left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ContainerError> {
    if is_special(path) {
        return write_in_place(path, bytes);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".neffkit-").suffix(".tmp");
    #[cfg(unix)]
    {
        // An ordinary output file (rw-r--r-- before umask), not tempfile's private 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(|e| ContainerError::io(dir, without_tempfile_path(e)))?;
    tmp.write_all(bytes)
        .map_err(|e| ContainerError::io(tmp.path(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| ContainerError::io(tmp.path(), e))?;
    tmp.persist(path)
        .map_err(|e| ContainerError::io(path, e.error))?;
    Ok(())
}

/// Whether `path` (symlinks followed) exists and is neither a regular file nor a folder: a
/// device or FIFO (`-o /dev/null`, `-o /dev/stdout`). Renaming a temporary file over it would
/// replace the node itself with a regular file (`neff asm -o /dev/null` as root did that to
/// /dev/null), and there is no partial file to avoid: it is written in place.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

fn write_in_place(path: &Path, bytes: &[u8]) -> Result<(), ContainerError> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| ContainerError::io(path, e))
}

/// tempfile's errors read "{os error} at path {temporary file}" and also carry the OS error as
/// their source, so the error would be said twice (D301). The folder is named by our own
/// error already: keep the OS error alone.
fn without_tempfile_path(e: std::io::Error) -> std::io::Error {
    let os_code = e
        .get_ref()
        .and_then(|inner| inner.source())
        .and_then(|cause| cause.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::raw_os_error);
    os_code.map_or(e, std::io::Error::from_raw_os_error)
}
