//! Slot -> BIR instruction -> HLO op -> source line (D234): the chain the layers' `parents`
//! fields make, and the KLR map of NKI kernels for the line and loop iterations.

use neff_isa::EngineType;
use serde::Serialize;

use crate::debug_info::{DebugInfo, GraphDebug};
use crate::klr::Iteration;
use crate::layer::Layer;
use crate::wire::RecordFields;

/// The BIR instruction a slot was generated from.
#[derive(Clone, Copy, Debug)]
pub struct BirRef<'a> {
    /// Its id in the subgraph's BIR layers.
    pub id: u64,
    /// Its name (`I-72-0`, `inst.186-wait-0`).
    pub name: &'a str,
    /// The BIR layer holding it.
    pub layer: &'a Layer,
    /// The record.
    pub record: &'a RecordFields,
}

/// The HLO op a BIR instruction comes from (through its Penguin parent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HloRef<'a> {
    /// The HLO instruction text (`%op0 = dot(%x, %y)`).
    pub name: &'a str,
    /// Its `op_type` attribute (`NKIPy_Op`, `xla___op_<locals>CallImpl`), when not empty.
    pub op_type: Option<&'a str>,
}

/// A source location: file, line and the enclosing loop iterations (NKI kernels via KLR).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Source {
    /// The source file.
    pub file: String,
    /// The line (1-based).
    pub line: u64,
    /// The enclosing loop iterations, outermost first (empty outside KLR kernels).
    pub iters: Vec<Iteration>,
}

impl std::fmt::Display for Source {
    /// `file:line` then ` [var=val, ...]` when inside loops.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if !self.iters.is_empty() {
            f.write_str(" [")?;
            for (i, it) in self.iters.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{}={}", it.var, it.val)?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

/// Everything known about one slot.
#[derive(Clone, Debug, Default)]
pub struct SlotDebug<'a> {
    /// Its BIR instruction (None for the slots the compiler adds itself, e.g. the leading
    /// SET_ORDERING_MODE and branch label, whose asm records are empty).
    pub bir: Option<BirRef<'a>>,
    /// The HLO op.
    pub hlo: Option<HloRef<'a>>,
    /// The source location.
    pub source: Option<Source>,
}

impl DebugInfo {
    /// What the debug info says about slot `slot` of engine `engine` in subgraph `graph`.
    pub fn slot(&self, graph: &str, engine: EngineType, slot: usize) -> SlotDebug<'_> {
        let Some(g) = self.graph(graph) else {
            return SlotDebug::default();
        };
        let Some(bir) = slot_bir(g, engine, slot) else {
            return SlotDebug::default();
        };
        self.bir_debug(g, bir)
    }

    /// What the debug info says about a BIR instruction of `g`.
    pub fn bir_debug<'a>(&'a self, g: &'a GraphDebug, bir: BirRef<'a>) -> SlotDebug<'a> {
        SlotDebug {
            hlo: self.hlo(g, bir),
            source: self.source(g, bir),
            bir: Some(bir),
        }
    }

    /// The HLO op: BIR parent (a Penguin record) -> its parent (an HLO record).
    fn hlo<'a>(&'a self, g: &GraphDebug, bir: BirRef<'a>) -> Option<HloRef<'a>> {
        let penguin = self.module_layer(bir.layer.parent_file()?, &g.name)?;
        let p = penguin.get(*bir.record.parents.first()?)?;
        let hlo = self.module_layer(penguin.parent_file()?, &g.name)?;
        let h = hlo.get(*p.parents.first()?)?;
        Some(HloRef {
            name: h.name.as_deref()?,
            op_type: h.attribute("op_type").filter(|s| !s.is_empty()),
        })
    }

    /// The source line: the KLR map of the kernel whose Penguin record is the instruction's
    /// parent (with loop iterations), else the BIR record's own `kernel_file` / `kernel_line`.
    fn source(&self, _g: &GraphDebug, bir: BirRef<'_>) -> Option<Source> {
        let klr = self
            .kernels
            .iter()
            .filter(|k| {
                k.parent_tensorizer_id
                    .is_none_or(|id| bir.record.parents.contains(&id))
            })
            .find_map(|k| k.map.lookup_bir(bir.name));
        if let Some(site) = klr
            && let Some(line) = site.line
        {
            let file = site
                .file
                .as_deref()
                .or_else(|| bir.layer.kernel_file(bir.record))?;
            return Some(Source {
                file: file.to_owned(),
                line,
                iters: site.iters.clone(),
            });
        }
        let line: u64 = bir.record.attribute("kernel_line")?.parse().ok()?;
        let file = bir.layer.kernel_file(bir.record)?;
        (line != 0).then(|| Source {
            file: file.to_owned(),
            line,
            iters: Vec::new(),
        })
    }
}

/// The BIR instruction of a slot: the asm record at the slot's index names its id (asm records
/// are in slot order, one per slot; D230).
pub fn slot_bir(g: &GraphDebug, engine: EngineType, slot: usize) -> Option<BirRef<'_>> {
    let asm = g.asm(engine)?;
    let id = asm.bir_id(slot)?;
    let (layer, record) = g.bir(id)?;
    Some(BirRef {
        id,
        name: record.name.as_deref().unwrap_or(""),
        layer,
        record,
    })
}
