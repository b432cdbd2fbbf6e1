//! Every decision the sources cite exists in docs/decisions.md (spec README: "Code that depends on
//! such a choice names the entry"): a citation of a number no entry has (as `D57` once was) fails.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The `D<n>` numbers of the `## D<n>` headings.
fn entries() -> BTreeSet<u32> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("docs/decisions.md")).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("## D"))
        .filter_map(|rest| {
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            n.parse().ok()
        })
        .collect()
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() && p.file_name().is_some_and(|n| n != "target") {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The decision numbers cited in `text`: `decision D<n>` / `decisions D<n>`, and `D<n>` inside
/// parentheses or after a comma, slash or dash of such a list (`(D155)`, `D285/D286`, `D171-D174`).
fn citations(text: &str) -> Vec<u32> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for (i, _) in text.match_indices('D') {
        let before = if i == 0 { b' ' } else { b[i - 1] };
        let digits: String = text[i + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let after = b.get(i + 1 + digits.len()).copied().unwrap_or(b' ');
        if digits.is_empty() || after.is_ascii_alphanumeric() || after == b'_' {
            continue;
        }
        let cited = text[..i].ends_with("decision ")
            || text[..i].ends_with("decisions ")
            || (matches!(before, b'(' | b'/' | b'-') && !text[..i].ends_with("0x"));
        if cited {
            out.push(digits.parse().unwrap());
        }
    }
    out
}

#[test]
fn every_cited_decision_exists() {
    let known = entries();
    assert!(known.contains(&50) && known.contains(&285), "headings read");
    let mut files = Vec::new();
    sources(&Path::new(ROOT).join("crates"), &mut files);
    let mut missing = Vec::new();
    for f in files
        .iter()
        .filter(|f| !f.ends_with(file!().rsplit('/').next().unwrap()))
    {
        let text = std::fs::read_to_string(f).unwrap();
        for n in citations(&text) {
            if !known.contains(&n) {
                missing.push(format!("{}: D{n}", f.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "cited but not in docs/decisions.md:\n{}",
        missing.join("\n")
    );
}

#[test]
fn citation_forms_are_recognised() {
    assert_eq!(
        citations("decision D57 and (D155), D285/D286, D171-D174"),
        [57, 155, 286, 174]
    );
    assert!(citations("0xD9 DIRECT2D S3D3 2D").is_empty());
}

/// Decision entries as (number, title), in file order.
type Entries = Vec<(u32, String)>;

/// `docs/decisions.md` read as its `## D<n> — Title` headings, its index's `- [D<n>](#anchor)
/// Title` lines, and the lines that start like either but have neither form.
fn headings_and_index() -> (Entries, Entries, Vec<String>) {
    let text = std::fs::read_to_string(Path::new(ROOT).join("docs/decisions.md")).unwrap();
    let (mut heads, mut index, mut bad) = (Vec::new(), Vec::new(), Vec::new());
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("## D") {
            match rest.split_once(" — ") {
                Some((n, title)) if n.parse::<u32>().is_ok() => {
                    heads.push((n.parse().unwrap(), title.to_string()))
                }
                _ => bad.push(line.to_string()),
            }
        } else if let Some(rest) = line.strip_prefix("- [D") {
            let (n, rest) = rest.split_once(']').unwrap_or(("", ""));
            let title = rest.split_once(") ").map_or("", |(_, t)| t);
            match n.parse() {
                Ok(n) => index.push((n, title.to_string())),
                Err(_) => bad.push(line.to_string()),
            }
        }
    }
    (heads, index, bad)
}

/// Issue 15 item 8: entries in numeric order, one heading style, and an index that lists every
/// entry (a new entry goes in its place, with its index line).
#[test]
fn decisions_are_in_numeric_order_with_one_heading_style_and_an_index() {
    let (heads, index, bad) = headings_and_index();
    assert!(
        bad.is_empty(),
        "headings not `## D<n> — Title`:\n{}",
        bad.join("\n")
    );
    assert!(heads.len() > 100, "headings read");
    let out_of_order: Vec<_> = heads
        .windows(2)
        .filter(|w| w[0].0 >= w[1].0)
        .map(|w| format!("D{} before D{}", w[0].0, w[1].0))
        .collect();
    assert!(out_of_order.is_empty(), "{}", out_of_order.join("\n"));
    assert_eq!(
        index, heads,
        "the index lists every heading, in order, with its title"
    );
}
