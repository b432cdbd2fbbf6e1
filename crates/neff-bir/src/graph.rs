//! Graphviz DOT export of the dependency graph: one node per instruction, one cluster per block,
//! an arrow from each dependency's target to the instruction that waits for it, styled by kind.

use std::fmt::Write;

use crate::edge::Edge;
use crate::edge_kind::EdgeKind;
use crate::ids::BlockId;
use crate::program::{Item, Program};

/// What to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DotOptions {
    /// Draw loop-carried edges (dashed back edges that do not constrain the layout).
    pub loop_carried: bool,
}

impl Default for DotOptions {
    fn default() -> DotOptions {
        DotOptions { loop_carried: true }
    }
}

/// The style of an edge of `kind`: Flow solid black, Anti dashed red, Output dotted blue, Ordered
/// bold gray, Invalid magenta.
pub fn edge_style(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Flow => "style=solid, color=black",
        EdgeKind::Anti => "style=dashed, color=red",
        EdgeKind::Output => "style=dotted, color=blue",
        EdgeKind::Ordered => "style=bold, color=gray50",
        EdgeKind::Invalid => "style=solid, color=magenta",
    }
}

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The DOT text of `prog`'s dependency graph. Deterministic: program order for nodes, list order
/// for edges.
pub fn to_dot(prog: &Program, opts: DotOptions) -> String {
    let mut out = String::new();
    out.push_str("digraph bir {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
    let mut cluster = 0usize;
    for (fi, f) in prog.functions.iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph cluster_f{fi} {{\n    label={};",
            quote(&f.name)
        );
        for &b in &f.blocks {
            block_nodes(prog, b, &mut cluster, &mut out, 2);
        }
        out.push_str("  }\n");
    }
    for (_, inst) in prog.insts() {
        let to = quote(&inst.name);
        let sch = &inst.schedule;
        let lists: [(&[Edge], bool); 2] = [
            (sch.dependencies.as_slice(), false),
            (sch.loop_carried.as_slice(), true),
        ];
        for (edges, lc) in lists {
            if lc && !opts.loop_carried {
                continue;
            }
            for e in edges {
                let from = quote(prog.target_name(e.target));
                let extra = if lc {
                    ", constraint=false, label=\"lc\""
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "  {from} -> {to} [{}{extra}, tooltip={}];",
                    edge_style(e.kind),
                    quote(e.kind.name())
                );
            }
        }
    }
    out.push_str("}\n");
    out
}

fn block_nodes(prog: &Program, b: BlockId, cluster: &mut usize, out: &mut String, depth: usize) {
    let Some(block) = prog.block(b) else { return };
    let pad = "  ".repeat(depth);
    let _ = writeln!(
        out,
        "{pad}subgraph cluster_b{} {{\n{pad}  label={};",
        *cluster,
        quote(&block.name)
    );
    *cluster += 1;
    for item in &block.items {
        match *item {
            Item::Inst(id) => {
                if let Some(inst) = prog.inst(id) {
                    let label = format!(
                        "{}\n{} @{}",
                        inst.name,
                        inst.opcode.name(),
                        inst.engine.name()
                    );
                    let _ = writeln!(
                        out,
                        "{pad}  {} [label={}];",
                        quote(&inst.name),
                        quote(&label)
                    );
                }
            }
            Item::Loop(l) => {
                if let Some(lp) = prog.loop_(l) {
                    for &inner in &lp.blocks {
                        block_nodes(prog, inner, cluster, out, depth + 1);
                    }
                }
            }
        }
    }
    let _ = writeln!(out, "{pad}}}");
}
