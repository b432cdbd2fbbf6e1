//! Decision citations (docs/decisions.md): every cited number has an entry; entries are in numeric
//! order, one heading style, listed in the index.

use std::collections::BTreeSet;

use crate::files::{read, rust_files, workspace};

/// The `D<n>` numbers of the `## D<n>` headings.
fn entries(text: &str) -> BTreeSet<u32> {
    text.lines()
        .filter_map(|l| l.strip_prefix("## D"))
        .filter_map(|rest| {
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            n.parse().ok()
        })
        .collect()
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
        if cited && let Ok(n) = digits.parse() {
            out.push(n);
        }
    }
    out
}

/// Every `decision D<n>` the sources under `crates/`, `python/` and `fuzz/` cite has an entry in
/// docs/decisions.md (spec README: "Code that depends on such a choice names the entry"): a
/// citation of a number no entry has (as `D57` once was) is a problem.
pub(crate) fn every_cited_decision_exists() -> Result<Vec<String>, String> {
    let root = workspace();
    let known = entries(&read(&root.join("docs/decisions.md"))?);
    if !(known.contains(&50) && known.contains(&285)) {
        return Err("docs/decisions.md: headings not read".into());
    }
    let mut files = Vec::new();
    for d in ["crates", "python", "fuzz"] {
        rust_files(&root.join(d), &mut files);
    }
    let mut missing = Vec::new();
    for f in files {
        for n in citations(&read(&f)?) {
            if !known.contains(&n) {
                missing.push(format!(
                    "{}: D{n} is cited but not in docs/decisions.md",
                    f.display()
                ));
            }
        }
    }
    Ok(missing)
}

/// Decision entries as (number, title), in file order.
type Entries = Vec<(u32, String)>;

/// `docs/decisions.md` read as its `## D<n> — Title` headings, its index's `- [D<n>](#anchor)
/// Title` lines, and the lines that start like either but have neither form.
fn headings_and_index(text: &str) -> (Entries, Entries, Vec<String>) {
    let (mut heads, mut index, mut bad) = (Vec::new(), Vec::new(), Vec::new());
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("## D") {
            match rest.split_once(" — ") {
                Some((n, title)) if n.parse::<u32>().is_ok() => {
                    heads.push((n.parse().unwrap_or(0), title.to_string()))
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
pub(crate) fn decisions_are_ordered_and_indexed() -> Result<Vec<String>, String> {
    let text = read(&workspace().join("docs/decisions.md"))?;
    let (heads, index, bad) = headings_and_index(&text);
    let mut problems: Vec<String> = bad
        .into_iter()
        .map(|l| format!("docs/decisions.md: heading not `## D<n> — Title`: {l}"))
        .collect();
    if heads.len() <= 100 {
        problems.push("docs/decisions.md: headings not read".into());
    }
    problems.extend(
        heads
            .windows(2)
            .filter(|w| w[0].0 >= w[1].0)
            .map(|w| format!("docs/decisions.md: D{} before D{}", w[0].0, w[1].0)),
    );
    for (n, t) in heads.iter().filter(|h| !index.contains(h)) {
        problems.push(format!("docs/decisions.md: the index lacks D{n} {t}"));
    }
    for (n, t) in index.iter().filter(|i| !heads.contains(i)) {
        problems.push(format!(
            "docs/decisions.md: the index lists D{n} {t}, which no heading has"
        ));
    }
    if problems.is_empty() && index != heads {
        problems.push("docs/decisions.md: the index is not in heading order".into());
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citation_forms_are_recognised() {
        assert_eq!(
            citations("decision D57 and (D155), D285/D286, D171-D174"),
            [57, 155, 286, 174]
        );
        assert!(citations("0xD9 DIRECT2D S3D3 2D").is_empty());
    }
}
