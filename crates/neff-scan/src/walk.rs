//! Which files a scan reads: the PATH arguments expanded (decision D260). A file named on the
//! command line is scanned whatever its name; a folder is walked recursively for `*.neff`
//! (case-insensitive), following symbolic links (loops are detected); an argument that is no
//! existing path but holds `*`, `?` or `[` is a glob (`**` crosses folders), each match then
//! treated as above. Every folder's files come in path order, each file once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// An argument that names nothing to scan.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    /// Neither an existing path nor a glob.
    #[error("{0}: no such file or folder")]
    NotFound(String),
    /// A glob that does not parse.
    #[error("{arg}: bad glob pattern: {message}")]
    BadGlob {
        /// The argument.
        arg: String,
        /// What is wrong with it.
        message: String,
    },
    /// A glob that matches no path.
    #[error("{0}: the pattern matches no file or folder")]
    NoMatch(String),
}

/// The extension of the files a folder walk picks.
const NEFF_EXTENSION: &str = "neff";

/// Whether a folder walk picks `path` (a `.neff` file, any case).
fn is_neff_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(NEFF_EXTENSION))
}

/// Expands `args` into the files to scan, in order, each once. A folder entry that cannot be
/// read is kept as a path so that its scan row carries the error.
pub fn expand_paths<S: AsRef<str>>(args: &[S]) -> Result<Vec<PathBuf>, WalkError> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut push = |p: PathBuf, out: &mut Vec<PathBuf>| {
        if seen.insert(p.clone()) {
            out.push(p);
        }
    };
    for arg in args {
        let arg = arg.as_ref();
        let path = Path::new(arg);
        if path.exists() {
            expand_one(path, &mut |p| push(p, &mut out));
        } else if arg.contains(['*', '?', '[']) {
            let matches = glob::glob(arg).map_err(|e| WalkError::BadGlob {
                arg: arg.to_owned(),
                message: e.to_string(),
            })?;
            let mut found: Vec<PathBuf> = matches
                .map(|m| m.unwrap_or_else(|e| e.path().to_path_buf()))
                .collect();
            if found.is_empty() {
                return Err(WalkError::NoMatch(arg.to_owned()));
            }
            found.sort();
            for p in found {
                expand_one(&p, &mut |p| push(p, &mut out));
            }
        } else {
            return Err(WalkError::NotFound(arg.to_owned()));
        }
    }
    Ok(out)
}

/// A folder's `.neff` files in path order, or the path itself.
fn expand_one(path: &Path, push: &mut impl FnMut(PathBuf)) {
    if !path.is_dir() {
        push(path.to_path_buf());
        return;
    }
    let walk = walkdir::WalkDir::new(path)
        .follow_links(true)
        .sort_by_file_name();
    for entry in walk {
        match entry {
            Ok(e) if e.file_type().is_file() && is_neff_name(e.path()) => {
                push(e.into_path());
            }
            Ok(_) => {}
            // An unreadable folder or a link loop: its row says why (the read fails the same
            // way); an error with no path has nothing to report a row for.
            Err(e) => {
                if let Some(p) = e.path().filter(|p| is_neff_name(p) || p.is_dir()) {
                    push(p.to_path_buf());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, rel: &str) -> PathBuf {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, b"x").unwrap();
        p
    }

    #[test]
    fn folders_give_their_neff_files_in_order_and_named_files_come_as_given() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let b = touch(d, "b/model.NEFF");
        let a = touch(d, "a/x.neff");
        let notes = touch(d, "a/notes.txt");
        touch(d, "a/deeper/y.neff");
        let args = [
            d.display().to_string(),
            notes.display().to_string(),
            a.display().to_string(),
        ];
        let got = expand_paths(&args).unwrap();
        assert_eq!(got, [d.join("a/deeper/y.neff"), a, b, notes]);
    }

    #[test]
    fn globs_expand_and_missing_paths_are_errors() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let x = touch(d, "c1/x.neff");
        let y = touch(d, "c2/sub/y.neff");
        touch(d, "c2/sub/y.json");
        let pattern = format!("{}/**/*.neff", d.display());
        assert_eq!(expand_paths(&[pattern]).unwrap(), [x, y]);
        let missing = d.join("nope.neff").display().to_string();
        assert!(matches!(
            expand_paths(&[missing]),
            Err(WalkError::NotFound(_))
        ));
        let none = format!("{}/*.zzz", d.display());
        assert!(matches!(expand_paths(&[none]), Err(WalkError::NoMatch(_))));
    }
}
