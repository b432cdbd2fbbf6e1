//! The JSON writer: `Instruction::toJson` (spec 002 §4) over the document form of reference §5.1.
//!
//! Header keys come first in the fixed order of decision D93, each behind its emit guard; then the
//! per-opcode keys in the order read. Output is deterministic: writing the same program twice gives
//! the same bytes, and a document already in this form is reproduced byte for byte.

use std::io::Write;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::argument::{ApDim, Argument};
use crate::edge::Edge;
use crate::instruction::{DEFAULT_OPTIN_PASSES, Instruction};
use crate::program::{Item, Program};

/// The 18 base header keys in emit order, then the 19th (`dma_blocks`, InstructionType 67 only).
/// Decision D93 (spec 002 §4's table is missing).
pub const HEADER_KEYS: [&str; 19] = [
    "opcode",
    "name",
    "optin_passes",
    "engine",
    "engine_id",
    "loopnest",
    "predicates",
    "ins",
    "indirection_ins",
    "outs",
    "order",
    "dependencies",
    "loop_carried_dependencies",
    "unroll_dependencies",
    "scheduled_start",
    "scheduled_end",
    "sync_info",
    "debug",
    "dma_blocks",
];

/// Output layout (decision D98).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Two-space indented (serde_json's pretty printer), newline-terminated.
    Pretty,
    /// The canonical form: compact, one line, newline-terminated. Byte-stable.
    Canonical,
}

/// Writes `prog` to `out` in `style`.
pub fn to_writer<W: Write>(out: W, prog: &Program, style: Style) -> std::io::Result<()> {
    let mut out = out;
    match style {
        Style::Pretty => {
            let mut ser = serde_json::Serializer::pretty(&mut out);
            ProgramSer(prog).serialize(&mut ser)?;
        }
        Style::Canonical => {
            let mut ser = serde_json::Serializer::new(&mut out);
            ProgramSer(prog).serialize(&mut ser)?;
        }
    }
    out.write_all(b"\n")
}

/// The document as bytes in `style`.
pub fn to_vec(prog: &Program, style: Style) -> Vec<u8> {
    let mut out = Vec::with_capacity(prog.len() * 256);
    // Writing into a Vec cannot fail.
    let _ = to_writer(&mut out, prog, style);
    out
}

/// The document as a string in `style`.
pub fn to_string(prog: &Program, style: Style) -> String {
    // serde_json writes UTF-8 only.
    String::from_utf8(to_vec(prog, style)).unwrap_or_default()
}

struct ProgramSer<'a>(&'a Program);

impl Serialize for ProgramSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        let mut m = s.serialize_map(None)?;
        if let Some(v) = &p.attributes {
            m.serialize_entry("attributes", v)?;
        }
        m.serialize_entry(
            "functions",
            &Seq(p.functions.iter().map(|f| FunctionSer(p, f))),
        )?;
        if let Some(v) = &p.arch {
            m.serialize_entry("arch", v)?;
        }
        if let Some(v) = &p.version {
            m.serialize_entry("version", v)?;
        }
        for (k, v) in &p.extras {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// Serializes an iterator as a JSON array (cloned per use: the iterators here are cheap).
struct Seq<I>(I);

impl<I: Iterator<Item = T> + Clone, T: Serialize> Serialize for Seq<I> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for item in self.0.clone() {
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

struct FunctionSer<'a>(&'a Program, &'a crate::program::Function);

impl Serialize for FunctionSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (p, f) = (self.0, self.1);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &f.name)?;
        if let Some(v) = &f.attributes {
            m.serialize_entry("attributes", v)?;
        }
        if let Some(v) = &f.allocations {
            m.serialize_entry("allocations", v)?;
        }
        m.serialize_entry("blocks", &Seq(f.blocks.iter().map(|&b| BlockSer(p, b))))?;
        for (k, v) in &f.extras {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

struct BlockSer<'a>(&'a Program, crate::ids::BlockId);

impl Serialize for BlockSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        let Some(b) = p.block(self.1) else {
            return s.serialize_none();
        };
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &b.name)?;
        m.serialize_entry("instructions", &Seq(b.items.iter().map(|&i| ItemSer(p, i))))?;
        for (k, v) in &b.extras {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

struct ItemSer<'a>(&'a Program, Item);

impl Serialize for ItemSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        match self.1 {
            Item::Inst(id) => match p.inst(id) {
                Some(inst) => InstSer(p, inst).serialize(s),
                None => s.serialize_none(),
            },
            Item::Loop(id) => {
                let Some(lp) = p.loop_(id) else {
                    return s.serialize_none();
                };
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("opcode", crate::json_read::LOOP_OPCODE)?;
                for (k, v) in &lp.fields {
                    m.serialize_entry(k, v)?;
                }
                m.serialize_entry("blocks", &Seq(lp.blocks.iter().map(|&b| BlockSer(p, b))))?;
                m.end()
            }
        }
    }
}

struct InstSer<'a>(&'a Program, &'a Instruction);

impl Serialize for InstSer<'_> {
    /// The header of decision D93 with its emit guards, then the per-opcode keys.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (p, i) = (self.0, self.1);
        let sch = &i.schedule;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("opcode", i.opcode.name())?;
        m.serialize_entry("name", &i.name)?;
        if i.optin_passes != DEFAULT_OPTIN_PASSES {
            m.serialize_entry("optin_passes", &i.optin_passes)?;
        }
        m.serialize_entry("engine", i.engine.name())?;
        if i.engine_id != 0 {
            m.serialize_entry("engine_id", &i.engine_id)?;
        }
        if !i.loopnest.is_empty() {
            m.serialize_entry("loopnest", &i.loopnest)?;
        }
        if !i.predicates.is_empty() {
            m.serialize_entry("predicates", &i.predicates)?;
        }
        m.serialize_entry("ins", &Seq(i.ins.iter().map(ArgSer)))?;
        if !i.indirection_ins.is_empty() {
            m.serialize_entry(
                "indirection_ins",
                &Seq(i.indirection_ins.iter().map(ArgSer)),
            )?;
        }
        m.serialize_entry("outs", &Seq(i.outs.iter().map(ArgSer)))?;
        if !sch.order.is_empty() {
            m.serialize_entry("order", &sch.order)?;
        }
        if !sch.dependencies.is_empty() {
            m.serialize_entry("dependencies", &edges(p, sch.dependencies.as_slice()))?;
        }
        if !sch.loop_carried.is_empty() {
            m.serialize_entry(
                "loop_carried_dependencies",
                &edges(p, sch.loop_carried.as_slice()),
            )?;
        }
        if !sch.unroll.is_empty() {
            m.serialize_entry("unroll_dependencies", &edges(p, &sch.unroll))?;
        }
        if let Some(v) = sch.scheduled_start {
            m.serialize_entry("scheduled_start", &v)?;
        }
        if let Some(v) = sch.scheduled_end {
            m.serialize_entry("scheduled_end", &v)?;
        }
        if let Some(v) = &sch.sync_info {
            m.serialize_entry("sync_info", v)?;
        }
        if let Some(v) = &sch.debug {
            m.serialize_entry("debug", v)?;
        }
        // Key 19: only behind the IT == 67 guard (spec 002 §4).
        if i.is_dma_trigger()
            && let Some(v) = &i.dma_blocks
        {
            m.serialize_entry("dma_blocks", v)?;
        }
        for (k, v) in &i.op_fields {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

fn edges<'a>(p: &'a Program, list: &'a [Edge]) -> Seq<impl Iterator<Item = EdgeSer<'a>> + Clone> {
    Seq(list.iter().map(move |&e| EdgeSer(p, e)))
}

struct EdgeSer<'a>(&'a Program, Edge);

impl Serialize for EdgeSer<'_> {
    /// `{"target": "<instruction name>", "kind": "Flow"}` (spec 002 §4, §5).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("target", self.0.target_name(self.1.target))?;
        m.serialize_entry("kind", self.1.kind.name())?;
        m.end()
    }
}

struct ArgSer<'a>(&'a Argument);

/// The typed argument keys in their fallback order.
const TYPED_ARG_KEYS: [&str; 6] = ["ap", "dtype", "offset", "memsetref", "memref", "regref"];

impl ArgSer<'_> {
    /// Emits typed key `key` if present; returns whether it is a typed key at all.
    fn typed<M: SerializeMap>(&self, m: &mut M, key: &str) -> Result<bool, M::Error> {
        let a = self.0;
        match key {
            "ap" => {
                if let Some(ap) = &a.ap {
                    m.serialize_entry("ap", ap)?;
                }
            }
            "dtype" => {
                if let Some(v) = &a.dtype {
                    m.serialize_entry("dtype", v)?;
                }
            }
            "offset" => {
                if let Some(v) = &a.offset {
                    m.serialize_entry("offset", v)?;
                }
            }
            "memsetref" => {
                if let Some(v) = &a.memsetref {
                    m.serialize_entry("memsetref", v)?;
                }
            }
            "memref" => {
                if let Some(v) = &a.memref {
                    m.serialize_entry("memref", v)?;
                }
            }
            "regref" => {
                if let Some(v) = &a.regref {
                    m.serialize_entry("regref", v)?;
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

impl Serialize for ArgSer<'_> {
    /// `"kind"`, then the kind's keys in reference §5.1 order, then other typed keys, then the rest
    /// in the order read (decision D96).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let order = a.kind.key_order();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", a.kind.name())?;
        for key in order {
            if !self.typed(&mut m, key)?
                && let Some(v) = a.extras.get(*key)
            {
                m.serialize_entry(key, v)?;
            }
        }
        for key in TYPED_ARG_KEYS {
            if !order.contains(&key) {
                self.typed(&mut m, key)?;
            }
        }
        for (k, v) in &a.extras {
            if !order.contains(&k.as_str()) {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

impl Serialize for ApDim {
    /// `[step, num]`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.step, self.num).serialize(s)
    }
}
