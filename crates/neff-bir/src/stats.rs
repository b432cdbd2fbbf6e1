//! Program statistics: instructions per opcode and engine, edges per kind, the critical path over
//! normal dependencies and the scheduled span (spec 002 §2 `scheduled_start`/`scheduled_end`).

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::edge_kind::EdgeKind;
use crate::program::Program;

/// Counts and spans of one program. Serializes (for `--json`) with the field names below.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Number of functions.
    pub functions: usize,
    /// Number of blocks (loop bodies included).
    pub blocks: usize,
    /// Number of nested loops.
    pub loops: usize,
    /// Number of instructions.
    pub instructions: usize,
    /// Instructions per opcode name.
    pub per_opcode: BTreeMap<String, usize>,
    /// Instructions per engine name.
    pub per_engine: BTreeMap<String, usize>,
    /// Normal dependency edges per kind name.
    pub dependencies: BTreeMap<&'static str, usize>,
    /// Loop-carried dependency edges per kind name.
    pub loop_carried_dependencies: BTreeMap<&'static str, usize>,
    /// Edges whose target names no instruction.
    pub unresolved_edges: usize,
    /// Instructions on the longest chain of normal dependencies; `null` when they have a cycle.
    pub critical_path: Option<usize>,
    /// Smallest `scheduled_start` over the program, if any instruction is scheduled.
    pub scheduled_start: Option<i64>,
    /// Largest `scheduled_end`.
    pub scheduled_end: Option<i64>,
    /// `scheduled_end - scheduled_start`, the scheduled span in cycles.
    pub scheduled_span: Option<i64>,
}

impl Stats {
    /// Computes the statistics of `prog`.
    pub fn of(prog: &Program) -> Stats {
        let mut s = Stats {
            functions: prog.functions.len(),
            blocks: prog.blocks.len(),
            loops: prog.loops.len(),
            instructions: prog.len(),
            ..Stats::default()
        };
        for k in EdgeKind::ALL {
            s.dependencies.insert(k.name(), 0);
            s.loop_carried_dependencies.insert(k.name(), 0);
        }
        for (_, inst) in prog.insts() {
            *s.per_opcode
                .entry(inst.opcode.name().to_owned())
                .or_default() += 1;
            *s.per_engine
                .entry(inst.engine.name().to_owned())
                .or_default() += 1;
            let sch = &inst.schedule;
            for (list, counts) in [
                (&sch.dependencies, &mut s.dependencies),
                (&sch.loop_carried, &mut s.loop_carried_dependencies),
            ] {
                for e in list.as_slice() {
                    *counts.entry(e.kind.name()).or_default() += 1;
                    s.unresolved_edges += usize::from(e.target.inst().is_none());
                }
            }
            if let Some(v) = sch.scheduled_start {
                s.scheduled_start = Some(s.scheduled_start.map_or(v, |m| m.min(v)));
            }
            if let Some(v) = sch.scheduled_end {
                s.scheduled_end = Some(s.scheduled_end.map_or(v, |m| m.max(v)));
            }
        }
        s.critical_path = crate::cycle::critical_path(prog);
        if let (Some(a), Some(b)) = (s.scheduled_start, s.scheduled_end) {
            s.scheduled_span = Some(b.saturating_sub(a));
        }
        s
    }
}

fn opt<T: fmt::Display>(v: &Option<T>, none: &str) -> String {
    v.as_ref()
        .map_or_else(|| none.to_owned(), ToString::to_string)
}

impl fmt::Display for Stats {
    /// The text report of `neff bir stats`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "functions {}  blocks {}  loops {}  instructions {}",
            self.functions, self.blocks, self.loops, self.instructions
        )?;
        writeln!(f, "instructions per opcode:")?;
        for (k, v) in &self.per_opcode {
            writeln!(f, "  {k:<32} {v}")?;
        }
        writeln!(f, "instructions per engine:")?;
        for (k, v) in &self.per_engine {
            writeln!(f, "  {k:<32} {v}")?;
        }
        writeln!(f, "edges per kind:              dependencies  loop_carried")?;
        for k in EdgeKind::ALL {
            let (a, b) = (
                self.dependencies[k.name()],
                self.loop_carried_dependencies[k.name()],
            );
            writeln!(f, "  {:<26} {a:>12}  {b:>12}", k.name())?;
        }
        writeln!(f, "unresolved edges: {}", self.unresolved_edges)?;
        writeln!(
            f,
            "critical path: {}",
            opt(&self.critical_path, "none (dependency cycle)")
        )?;
        writeln!(
            f,
            "scheduled span: {} (start {}, end {})",
            opt(&self.scheduled_span, "-"),
            opt(&self.scheduled_start, "-"),
            opt(&self.scheduled_end, "-")
        )
    }
}
