//! The workspace's Cargo manifests (issue 15 item 7): every crate says what it is (`description`),
//! every dependency a crate declares is named by its code, and every `[workspace.dependencies]`
//! entry is used by some crate. The manifests are read as lines (`name.workspace = true` /
//! `name = ...` under a `[dependencies]`-style table), which is how this workspace writes them.

use std::path::{Path, PathBuf};

use crate::files::{read, rust_files, workspace};

/// The crates: every `crates/*`, `python`, `fuzz` and `xtask`.
fn crate_dirs() -> Vec<PathBuf> {
    let root = workspace();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.extend([root.join("python"), root.join("fuzz"), root.join("xtask")]);
    dirs.sort();
    dirs
}

/// The dependency names under table `table` (e.g. `dependencies`) of a manifest.
fn deps(manifest: &str, table: &str) -> Vec<String> {
    let header = format!("[{table}]");
    let mut inside = false;
    let mut out = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == header;
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            let key = line.split(['=', '.', ' ']).next().unwrap_or("");
            out.push(key.to_owned());
        }
    }
    out
}

/// The Rust identifier a dependency is used by.
fn ident(dep: &str) -> String {
    match dep {
        "md-5" => "md5".to_owned(),
        d => d.replace('-', "_"),
    }
}

/// The text of every `.rs` file below `dir`, appended to `out`.
fn sources(dir: &Path, out: &mut String) -> Result<(), String> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    for f in files {
        out.push_str(&read(&f)?);
    }
    Ok(())
}

fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let ok = |c: Option<char>| !c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        ok(text[..i].chars().next_back()) && ok(text[i + word.len()..].chars().next())
    })
}

/// Every crate says what it is (`description`).
pub(crate) fn every_crate_has_a_description() -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    for dir in crate_dirs() {
        let manifest = read(&dir.join("Cargo.toml"))?;
        if !manifest.lines().any(|l| l.starts_with("description = \"")) {
            problems.push(format!("{}: no description", dir.display()));
        }
    }
    Ok(problems)
}

/// Every dependency a crate declares is named by its code (a dev-dependency by its tests, benches
/// or examples too).
pub(crate) fn every_declared_dependency_is_used() -> Result<Vec<String>, String> {
    let mut unused = Vec::new();
    for dir in crate_dirs() {
        let manifest = read(&dir.join("Cargo.toml"))?;
        let mut lib = String::new();
        for d in ["src", "fuzz_targets"] {
            sources(&dir.join(d), &mut lib)?;
        }
        if let Ok(b) = std::fs::read_to_string(dir.join("build.rs")) {
            lib.push_str(&b);
        }
        let mut all = lib.clone();
        for d in ["tests", "benches", "examples"] {
            sources(&dir.join(d), &mut all)?;
        }
        for (table, text) in [("dependencies", &lib), ("dev-dependencies", &all)] {
            for dep in deps(&manifest, table) {
                if !names(text, &ident(&dep)) {
                    unused.push(format!(
                        "{}: [{table}] {dep} is declared but never named",
                        dir.display()
                    ));
                }
            }
        }
    }
    Ok(unused)
}

/// Every `[workspace.dependencies]` entry is used by some crate.
pub(crate) fn every_workspace_dependency_is_used() -> Result<Vec<String>, String> {
    let root = read(&workspace().join("Cargo.toml"))?;
    let mut declared = Vec::new();
    for dir in crate_dirs() {
        let m = read(&dir.join("Cargo.toml"))?;
        for t in ["dependencies", "dev-dependencies", "build-dependencies"] {
            declared.extend(deps(&m, t));
        }
    }
    Ok(deps(&root, "workspace.dependencies")
        .into_iter()
        .filter(|d| !declared.contains(d))
        .map(|d| format!("Cargo.toml: workspace dependency {d} is used by no crate"))
        .collect())
}
