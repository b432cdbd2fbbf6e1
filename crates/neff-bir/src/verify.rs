//! The verifier (spec 002 §7: verification is keyed by opcode, and collects every problem). Each
//! problem names its instruction and the JSON pointer where it sits.

use std::collections::HashSet;

use crate::argument::{ArgKind, Argument, OperandList};
use crate::edge::{Edge, EdgeTarget};
use crate::edge_kind::EdgeKind;
use crate::engine::Engine;
use crate::ids::InstId;
use crate::instruction::Instruction;
use crate::instruction_type::{Opcode, OperandRule};
use crate::program::Program;

/// What kind of problem the verifier found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProblemKind {
    /// An edge from an instruction to itself (`assert(this != former)`, spec 002 §5).
    SelfEdge,
    /// An edge whose target names no instruction.
    UnknownTarget,
    /// The same (target, kind) twice in one list (the spec's set holds it once, §2).
    DuplicateEdge,
    /// An edge of kind `Invalid` (tag 0).
    InvalidKind,
    /// A cycle among normal (non-loop-carried) dependencies.
    Cycle,
    /// Two instructions with one name.
    DuplicateName,
    /// Two instructions with one unique id.
    DuplicateId,
    /// An operand of a kind the opcode cannot take (decision D95).
    OperandKind,
    /// An engine outside the opcode's validEngines (decision D94).
    Engine,
    /// An instance of an abstract family base (spec 002 §6; decision D92).
    AbstractOpcode,
}

impl ProblemKind {
    /// Every kind, in declaration order.
    pub const ALL: [ProblemKind; 10] = [
        ProblemKind::SelfEdge,
        ProblemKind::UnknownTarget,
        ProblemKind::DuplicateEdge,
        ProblemKind::InvalidKind,
        ProblemKind::Cycle,
        ProblemKind::DuplicateName,
        ProblemKind::DuplicateId,
        ProblemKind::OperandKind,
        ProblemKind::Engine,
        ProblemKind::AbstractOpcode,
    ];
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The kind of finding.
    pub kind: ProblemKind,
    /// The instruction it concerns (for a cycle, its first member).
    pub inst: String,
    /// JSON pointer of the offending instruction or value.
    pub pointer: String,
    /// What is wrong, in words.
    pub message: String,
}

impl Problem {
    /// `{"kind", "inst", "pointer", "message"}`: one item of `neff bir check --json`'s
    /// `problems` and of the Python package's `Program.problems`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": format!("{:?}", self.kind),
            "inst": self.inst,
            "pointer": self.pointer,
            "message": self.message,
        })
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: instruction {:?}: {}",
            self.pointer, self.inst, self.message
        )
    }
}

/// Checks `prog` and returns every problem found (empty = valid), in arena order, the cycle last.
pub fn verify(prog: &Program) -> Vec<Problem> {
    let mut out = Vec::new();
    let ids = UniqueIds::new(prog);
    for (id, inst) in prog.insts() {
        let mut report = |kind: ProblemKind, pointer: String, message: String| {
            out.push(Problem {
                kind,
                inst: inst.name.clone(),
                pointer,
                message,
            });
        };
        if prog.find(&inst.name) != Some(id) {
            report(
                ProblemKind::DuplicateName,
                prog.key_pointer(id, "name"),
                format!("name {:?} is used by an earlier instruction", inst.name),
            );
        }
        if let Some(uid) = inst.unique_id.get()
            && ids.first(uid) != Some(id)
        {
            report(
                ProblemKind::DuplicateId,
                prog.pointer(id),
                format!("unique_id {uid} is used by an earlier instruction"),
            );
        }
        check_opcode(prog, id, inst, &mut report);
        let sch = &inst.schedule;
        check_edges(
            prog,
            id,
            "dependencies",
            sch.dependencies.as_slice(),
            &mut report,
        );
        check_edges(
            prog,
            id,
            "loop_carried_dependencies",
            sch.loop_carried.as_slice(),
            &mut report,
        );
    }
    if let Some(cycle) = crate::cycle::find_cycle(prog) {
        let names: Vec<&str> = cycle
            .iter()
            .map(|&i| prog.inst(i).map_or("", |x| x.name.as_str()))
            .collect();
        out.push(Problem {
            kind: ProblemKind::Cycle,
            inst: names.first().copied().unwrap_or_default().to_owned(),
            pointer: prog.pointer(cycle[0]),
            message: format!(
                "cycle among dependencies ({} members): {} -> {}",
                names.len(),
                names.join(" -> "),
                names.first().copied().unwrap_or_default()
            ),
        });
    }
    out
}

/// First holder of each unique id: a table when ids are dense (the usual case), a map otherwise.
enum UniqueIds {
    Dense(Vec<u32>),
    Sparse(std::collections::HashMap<u32, u32>),
}

impl UniqueIds {
    const NONE: u32 = u32::MAX;

    fn new(prog: &Program) -> UniqueIds {
        let max = prog
            .insts()
            .filter_map(|(_, i)| i.unique_id.get())
            .max()
            .map_or(0, |m| m as usize + 1);
        if max <= prog.len().saturating_mul(4).saturating_add(1024) {
            let mut first = vec![Self::NONE; max];
            for (id, inst) in prog.insts() {
                if let Some(uid) = inst.unique_id.get()
                    && first[uid as usize] == Self::NONE
                {
                    first[uid as usize] = id.0;
                }
            }
            UniqueIds::Dense(first)
        } else {
            let mut first = std::collections::HashMap::new();
            for (id, inst) in prog.insts() {
                if let Some(uid) = inst.unique_id.get() {
                    first.entry(uid).or_insert(id.0);
                }
            }
            UniqueIds::Sparse(first)
        }
    }

    /// The first instruction carrying `uid`.
    fn first(&self, uid: u32) -> Option<InstId> {
        let v = match self {
            UniqueIds::Dense(t) => t.get(uid as usize).copied(),
            UniqueIds::Sparse(m) => m.get(&uid).copied(),
        };
        v.filter(|&v| v != Self::NONE).map(InstId)
    }
}

fn check_opcode(
    prog: &Program,
    id: InstId,
    inst: &Instruction,
    report: &mut impl FnMut(ProblemKind, String, String),
) {
    let Some(op) = inst.opcode.opcode() else {
        return;
    };
    let info = op.info();
    if info.is_abstract {
        report(
            ProblemKind::AbstractOpcode,
            prog.key_pointer(id, "opcode"),
            format!(
                "{} is an abstract family base and is never instantiated",
                info.name
            ),
        );
    }
    if let Engine::Known(e) = &inst.engine {
        if !op.accepts_engine(*e) {
            report(
                ProblemKind::Engine,
                prog.key_pointer(id, "engine"),
                engine_message(op, inst.engine.name()),
            );
        }
    } else if !info.valid_engines.is_empty() {
        report(
            ProblemKind::Engine,
            prog.key_pointer(id, "engine"),
            engine_message(op, inst.engine.name()),
        );
    }
    for list in [
        OperandList::Ins,
        OperandList::IndirectionIns,
        OperandList::Outs,
    ] {
        for (k, arg) in inst.operands(list).iter().enumerate() {
            if !operand_allowed(info.operands, list, arg) {
                report(
                    ProblemKind::OperandKind,
                    format!("{}/{}/{k}", prog.pointer(id), list.key()),
                    format!(
                        "{} cannot take a {} operand in {}",
                        info.name,
                        arg.kind.name(),
                        list.key()
                    ),
                );
            }
        }
    }
}

fn engine_message(op: Opcode, engine: &str) -> String {
    let valid: Vec<&str> = op.info().valid_engines.iter().map(|e| e.name()).collect();
    format!(
        "engine {engine} is not a valid engine of {} (valid: {})",
        op.name(),
        valid.join(", ")
    )
}

/// Decision D95: immediates are never outputs; Tensor and Register rules restrict further.
fn operand_allowed(rule: OperandRule, list: OperandList, arg: &Argument) -> bool {
    let k = &arg.kind;
    let is_out = list == OperandList::Outs;
    if is_out && k.is_immediate() {
        return false;
    }
    match rule {
        OperandRule::Any => true,
        OperandRule::Tensor if is_out => k.is_access_pattern(),
        OperandRule::Tensor => k.is_access_pattern() || k.is_immediate(),
        OperandRule::Register if is_out => *k == ArgKind::RegisterAccess,
        OperandRule::Register => matches!(k, ArgKind::RegisterAccess | ArgKind::ImmValue),
    }
}

fn check_edges(
    prog: &Program,
    id: InstId,
    key: &str,
    edges: &[Edge],
    report: &mut impl FnMut(ProblemKind, String, String),
) {
    let mut seen: HashSet<Edge> = HashSet::new();
    for (k, e) in edges.iter().enumerate() {
        let ptr = || format!("{}/{key}/{k}", prog.pointer(id));
        match e.target {
            EdgeTarget::Inst(t) if t == id => report(
                ProblemKind::SelfEdge,
                ptr(),
                format!("{key}: edge to itself ({})", e.kind),
            ),
            EdgeTarget::Inst(t) if prog.inst(t).is_none() => report(
                ProblemKind::UnknownTarget,
                ptr(),
                format!("{key}: edge to instruction #{} outside the program", t.0),
            ),
            EdgeTarget::Unknown(_) => report(
                ProblemKind::UnknownTarget,
                ptr(),
                format!(
                    "{key}: edge to unknown instruction {:?}",
                    prog.target_name(e.target)
                ),
            ),
            _ => {}
        }
        if e.kind == EdgeKind::Invalid {
            report(
                ProblemKind::InvalidKind,
                ptr(),
                format!(
                    "{key}: edge to {:?} has kind Invalid",
                    prog.target_name(e.target)
                ),
            );
        }
        let dup = if edges.len() <= 16 {
            edges[..k].contains(e)
        } else {
            !seen.insert(*e)
        };
        if dup {
            report(
                ProblemKind::DuplicateEdge,
                ptr(),
                format!(
                    "{key}: duplicate edge to {:?} ({})",
                    prog.target_name(e.target),
                    e.kind
                ),
            );
        }
    }
}
