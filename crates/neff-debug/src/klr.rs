//! The KLR source map of NKI kernels: `kernel_debug_info.json` lists `*.klir.debuginfo.json`
//! files, each a tree of `func` / `iter` / `inst` nodes (D232).
//!
//! ```json
//! [{"lnc": 1, "info": [{"func": {"name": "__main__.k", "line": 45, "file": "/k.py", "children": [
//!   {"iter": {"var": "h_t", "val": "0", "line": 122, "children": [
//!     {"inst": {"name": "inst.58", "line": 125}}]}}]}}]}]
//! ```

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};

/// `kernel_debug_info.json`: the KLR files of the NEFF.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct KernelDebugInfo {
    /// `debug_info_files`.
    pub debug_info_files: Vec<KernelDebugFile>,
    /// Other keys, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One entry of `debug_info_files`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct KernelDebugFile {
    /// `file_name`: the member holding the tree (`nki_moe_v6bkakepajm.klir.debuginfo.json`).
    pub file_name: String,
    /// `kernel_name` (`__main__.nki_moe_v6b`).
    pub kernel_name: Option<String>,
    /// `parent_tensorizer_id`: the id of the Penguin (tensorizer) record the kernel's BIR
    /// instructions name as their parent.
    pub parent_tensorizer_id: Option<u64>,
    /// Other keys, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One top-level entry of a `*.klir.debuginfo.json` file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct KlrUnit {
    /// `lnc`.
    pub lnc: Option<u64>,
    /// `info`: the node forest.
    #[serde(default)]
    pub info: Vec<KlrNode>,
    /// Other keys, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A node of the tree: exactly one of `func`, `iter`, `inst`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum KlrNode {
    /// A kernel function: its file holds every line below it.
    Func(KlrFunc),
    /// One iteration of a source loop.
    Iter(KlrIter),
    /// One KLR instruction.
    Inst(KlrInst),
}

/// `{"func": {...}}`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct KlrFunc {
    /// `name`.
    pub name: Option<String>,
    /// `line` of the definition.
    pub line: Option<u64>,
    /// `file`.
    pub file: Option<String>,
    /// `children`.
    #[serde(default)]
    pub children: Vec<KlrNode>,
}

/// `{"iter": {...}}`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct KlrIter {
    /// `var`: the loop variable.
    pub var: String,
    /// `val`: its value in this iteration, as written.
    pub val: String,
    /// `line` of the loop.
    pub line: Option<u64>,
    /// `children`.
    #[serde(default)]
    pub children: Vec<KlrNode>,
}

/// `{"inst": {...}}`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct KlrInst {
    /// `name` (`inst.58`): the BIR instruction name, or its stem.
    pub name: String,
    /// `line` (0 for instructions with no source line, e.g. `jmp.3`).
    pub line: Option<u64>,
}

/// One enclosing loop iteration of a source line.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Iteration {
    /// The loop variable.
    pub var: String,
    /// Its value.
    pub val: String,
}

/// Where a KLR instruction comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KlrSite {
    /// The source file (the enclosing `func`'s), if any.
    pub file: Option<String>,
    /// The line; `None` for line 0 (no source line).
    pub line: Option<u64>,
    /// The enclosing loop iterations, outermost first.
    pub iters: Vec<Iteration>,
}

/// The flattened map of one KLR file: instruction name -> site.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KlrMap {
    sites: HashMap<String, KlrSite>,
}

impl KlrMap {
    /// Parses a `*.klir.debuginfo.json` member.
    pub fn parse(bytes: &[u8]) -> Result<KlrMap, serde_json::Error> {
        let units: Vec<KlrUnit> = serde_json::from_slice(bytes)?;
        let mut map = KlrMap::default();
        for u in &units {
            let mut iters = Vec::new();
            for n in &u.info {
                map.walk(n, None, &mut iters);
            }
        }
        Ok(map)
    }

    /// Iterative in spirit, recursive in form: KLR nests one level per source loop, so depth is
    /// the kernel's loop depth (serde_json's own recursion limit of 128 bounds it first).
    fn walk(&mut self, node: &KlrNode, file: Option<&str>, iters: &mut Vec<Iteration>) {
        match node {
            KlrNode::Func(f) => {
                let file = f.file.as_deref().or(file);
                for c in &f.children {
                    self.walk(c, file, iters);
                }
            }
            KlrNode::Iter(it) => {
                iters.push(Iteration {
                    var: it.var.clone(),
                    val: it.val.clone(),
                });
                for c in &it.children {
                    self.walk(c, file, iters);
                }
                iters.pop();
            }
            KlrNode::Inst(i) => {
                let site = KlrSite {
                    file: file.map(str::to_owned),
                    line: i.line.filter(|&l| l != 0),
                    iters: iters.clone(),
                };
                // The first occurrence wins if a name repeats (none observed).
                self.sites.entry(i.name.clone()).or_insert(site);
            }
        }
    }

    /// The site of KLR instruction `name`.
    pub fn get(&self, name: &str) -> Option<&KlrSite> {
        self.sites.get(name)
    }

    /// The site of a BIR instruction: its own name, or the longest stem of it cut at a `-` that
    /// the map knows (`inst.186-wait-0` -> `inst.186`; D232).
    pub fn lookup_bir(&self, bir_name: &str) -> Option<&KlrSite> {
        let mut stem = bir_name;
        loop {
            if let Some(s) = self.sites.get(stem) {
                return Some(s);
            }
            stem = &stem[..stem.rfind('-')?];
        }
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.sites.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"[{"lnc": 1, "info": [{"inst": {"name": "jmp.3", "line": 0}},
      {"func": {"name": "k", "line": 45, "file": "/k.py", "children": [
        {"iter": {"var": "t", "val": "0", "line": 114, "children": [
          {"iter": {"var": "h_t", "val": "1", "line": 122, "children": [
            {"inst": {"name": "inst.63", "line": 125}}]}}]}}]}}]}]"#;

    #[test]
    fn nested_iterations_outermost_first() {
        let m = KlrMap::parse(SAMPLE.as_bytes()).unwrap();
        let s = m.get("inst.63").unwrap();
        assert_eq!(s.file.as_deref(), Some("/k.py"));
        assert_eq!(s.line, Some(125));
        let iters: Vec<(&str, &str)> = s
            .iters
            .iter()
            .map(|i| (i.var.as_str(), i.val.as_str()))
            .collect();
        assert_eq!(iters, [("t", "0"), ("h_t", "1")]);
        assert_eq!(m.get("jmp.3").unwrap().line, None);
    }

    #[test]
    fn bir_names_fall_back_to_their_stem() {
        let m = KlrMap::parse(SAMPLE.as_bytes()).unwrap();
        assert_eq!(m.lookup_bir("inst.63-wait-0").unwrap().line, Some(125));
        assert_eq!(m.lookup_bir("inst.63-act-PWP").unwrap().line, Some(125));
        assert!(m.lookup_bir("inst.6").is_none());
        assert!(m.lookup_bir("memset_zero_bias_0").is_none());
    }
}
