//! One slot size (issue 15 item 7): the library code of every crate converts between slot counts
//! and byte lengths through `neff_isa::SLOT_BYTES` / `SLOT_SHIFT`, never through a literal 64, a
//! `<< 6` / `>> 6` or a constant of its own. This check reads `crates/*/src` (test modules and
//! comments skipped) and `python/src`, and names each stray use; the few 64s that are not slot sizes are listed
//! below with the reason.

use crate::files::{read, rust_files, workspace};

/// Literal 64s that are no slot size: (file, text of the line, why).
const NOT_A_SLOT: &[(&str, &str, &str)] = &[
    (
        "crates/neff-sim/src/cost/fit/dma.rs",
        "const CONTROL_RECORD_BYTES: u64 = 64;",
        "a DMA record size: control records (semaphore writes, ring words) are at most 64 bytes (D621)",
    ),
    (
        "crates/neff-sim/src/cost/fit/dma.rs",
        "const MIN_BURST_RECORDS: usize = 64;",
        "a count of DMA records in a burst (D621)",
    ),
    (
        "crates/neff-container/src/header.rs",
        "pub tpb_per_node: [u8; 64],",
        "a header field of 64 bytes (spec 002)",
    ),
    (
        "crates/neff-container/src/tar_read.rs",
        "const MAX_LONG_NAME: u64 = 64 * 1024;",
        "the GNU long-name cap, 64 KiB",
    ),
    (
        "crates/neff-scan/src/ordered.rs",
        "window: threads * 64,",
        "64 rows of output per worker",
    ),
];

/// The one definition.
const HOME: &str = "crates/neff-isa/src/slot.rs";

/// Whether `line` does slot arithmetic or names a slot-sized type or constant with a literal.
fn is_slot_literal(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    let t: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    let ends_number = |s: &str, n: &str| {
        s.match_indices(n).any(|(i, _)| {
            let after = s[i + n.len()..].chars().next();
            !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        })
    };
    let starts_number = |s: &str, n: &str| {
        s.match_indices(n).any(|(i, _)| {
            let before = s[..i].chars().next_back();
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    [
        "/ 64",
        "* 64",
        "% 64",
        ">> 6",
        "<< 6",
        "[u8; 64]",
        "is_multiple_of(64)",
    ]
    .iter()
    .any(|p| ends_number(&t, p))
        || starts_number(&t, "64 *")
        || (t.contains("const ") && (t.ends_with("= 64;") || t.ends_with("= 0x40;")) && {
            let name = t.split("const ").nth(1).unwrap_or("").to_ascii_uppercase();
            ["SLOT", "INST", "RECORD", "NBYTES"]
                .iter()
                .any(|w| name.split(':').next().unwrap_or("").contains(w))
        })
}

/// The stray uses of `file`: `(line number, line)`, test modules and comments skipped.
fn strays(file: &str, text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        let trimmed = line.trim();
        if trimmed.starts_with("//") || !is_slot_literal(trimmed) {
            continue;
        }
        if NOT_A_SLOT
            .iter()
            .any(|(f, l, _)| *f == file && trimmed == *l)
        {
            continue;
        }
        out.push((n + 1, trimmed.to_owned()));
    }
    out
}

/// Every stray slot-size literal in library code, as `file:line: text`.
pub(crate) fn library_code_uses_the_one_slot_size() -> Result<Vec<String>, String> {
    let root = workspace();
    let mut files = Vec::new();
    let crates = std::fs::read_dir(root.join("crates")).map_err(|e| format!("crates/: {e}"))?;
    for krate in crates.flatten() {
        rust_files(&krate.path().join("src"), &mut files);
    }
    rust_files(&root.join("python/src"), &mut files);
    if files.len() <= 100 {
        return Err("the workspace's sources were not read".into());
    }
    let mut found = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        if rel == HOME || rel.ends_with("/tests.rs") {
            continue;
        }
        for (n, line) in strays(&rel, &read(&path)?) {
            found.push(format!(
                "{rel}:{n}: {line} (use neff_isa::SLOT_BYTES / SLOT_SHIFT, or list a 64 that is no \
                 slot size in NOT_A_SLOT)"
            ));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checker_sees_each_form() {
        for line in [
            "let n = bytes.len() / 64;",
            "let end = at + run * 64;",
            "let ninstr = size >> 6;",
            "x << 6",
            "fn f(s: &[u8; 64]) {}",
            "const SLOT: u64 = 64;",
            "pub const TPB_INST_NBYTES: usize = 0x40;",
            "if !len.is_multiple_of(64) {",
            "let a = 64 * i;",
        ] {
            assert!(is_slot_literal(line), "{line}");
        }
        for line in [
            "let n = bytes.len() / SLOT_BYTES;",
            "const SHARDS: usize = 64;",
            "let x = 640 / 64.0;",
            "let y = z >> 60;",
            "let w = 0x1000 * 64_000;",
            "// a .bin is `ninstr * 64` bytes",
        ] {
            assert!(!is_slot_literal(line), "{line}");
        }
    }
}
