//! Safe extraction of the members into a folder: never writes outside it, never follows a
//! symlink, never overwrites an existing file unless forced, never leaves half a file.

use std::fs;
use std::path::{Path, PathBuf};

use crate::atomic::write_atomic;
use crate::error::ContainerError;
use crate::neff::Neff;

/// How to extract.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExtractOptions {
    /// Overwrite existing regular files.
    pub force: bool,
}

/// Writes every member of `neff` under `dir` (created if missing) and returns the written paths.
///
/// Member paths were validated by the reader (relative, no `..`). Before anything is written,
/// every target is checked: a directory component that exists must be a real directory (not a
/// symlink), and an existing file is refused unless `force`. Each file is written atomically.
pub fn extract(
    neff: &Neff<'_>,
    dir: &Path,
    options: ExtractOptions,
) -> Result<Vec<PathBuf>, ContainerError> {
    fs::create_dir_all(dir).map_err(|e| ContainerError::io(dir, e))?;
    let targets: Vec<(PathBuf, &[u8])> =
        neff.members().map(|m| (dir.join(m.path), m.data)).collect();
    for (target, _) in &targets {
        check_target(dir, target, options.force)?;
    }
    for (target, data) in &targets {
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| ContainerError::io(parent, e))?;
            check_target(dir, target, options.force)?; // re-check: nothing raced a symlink in
        }
        write_atomic(target, data)?;
    }
    Ok(targets.into_iter().map(|(t, _)| t).collect())
}

/// Refuses a target whose path below `dir` crosses a symlink or a non-directory, or that exists
/// (unless `force`, and then only as a regular file).
fn check_target(dir: &Path, target: &Path, force: bool) -> Result<(), ContainerError> {
    let relative = target
        .strip_prefix(dir)
        .map_err(|_| ContainerError::UnsafeTarget {
            path: target.to_owned(),
            reason: "outside the target folder",
        })?;
    let mut at = dir.to_path_buf();
    let mut components = relative.components().peekable();
    while let Some(component) = components.next() {
        at.push(component);
        let Ok(meta) = fs::symlink_metadata(&at) else {
            return Ok(()); // the rest does not exist yet
        };
        if meta.file_type().is_symlink() {
            return Err(ContainerError::UnsafeTarget {
                path: at,
                reason: "is a symlink",
            });
        }
        let last = components.peek().is_none();
        if !last && !meta.is_dir() {
            return Err(ContainerError::UnsafeTarget {
                path: at,
                reason: "is not a directory",
            });
        }
        if last && meta.is_dir() {
            return Err(ContainerError::UnsafeTarget {
                path: at,
                reason: "is a directory",
            });
        }
        if last && !force {
            return Err(ContainerError::WouldOverwrite { path: at });
        }
    }
    Ok(())
}
