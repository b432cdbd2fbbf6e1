//! Planted faults: one deliberate defect of each kind the verifier must find.

use serde_json::json;

use crate::argument::{Argument, OperandList};
use crate::edge::{Edge, EdgeTarget};
use crate::edge_kind::EdgeKind;
use crate::engine::{Engine, EngineKind};
use crate::error::ModelError;
use crate::ids::InstId;
use crate::instruction_type::{InstructionType, Opcode};
use crate::program::Program;
use crate::unique_id::UniqueId;
use crate::verify::ProblemKind;

use super::rng::Rng;

/// A fault [`plant`] can inject: one per kind of problem the verifier reports, so a planted fault
/// is found as the [`ProblemKind`] of the same name.
pub type Fault = ProblemKind;

/// Injects `fault` into `prog` (at least two instructions) at a place chosen by `seed`; returns the
/// name of the instruction the verifier should blame.
pub fn plant(prog: &mut Program, fault: Fault, seed: u64) -> Result<String, ModelError> {
    let n = prog.len();
    if n < 2 {
        return Err(ModelError::NoSuchInstruction(InstId(1)));
    }
    let mut rng = Rng::new(seed);
    let j = 1 + rng.below(n - 1);
    let i = rng.below(j);
    let (ji, ii) = (InstId(j as u32), InstId(i as u32));
    let name = prog.insts[j].name.clone();
    match fault {
        Fault::SelfEdge => dep_list(prog, j).push_unchecked(Edge::new(ji, EdgeKind::Flow)),
        Fault::UnknownTarget => {
            let k = prog.unknown_targets.len() as u32;
            prog.unknown_targets.push(format!("ghost_{seed}"));
            dep_list(prog, j).push_unchecked(Edge {
                target: EdgeTarget::Unknown(k),
                kind: EdgeKind::Flow,
            });
        }
        Fault::DuplicateEdge => {
            let e = Edge::new(ii, EdgeKind::Output);
            prog.add_dependency(ji, ii, EdgeKind::Output, false)?;
            dep_list(prog, j).push_unchecked(e);
        }
        Fault::InvalidKind => {
            prog.add_dependency(ji, ii, EdgeKind::Invalid, false)?;
        }
        Fault::Cycle => {
            prog.add_dependency(ji, ii, EdgeKind::Flow, false)?;
            prog.add_dependency(ii, ji, EdgeKind::Anti, false)?;
        }
        Fault::DuplicateName => {
            let first = prog.insts[i].name.clone();
            let old = std::mem::replace(&mut prog.insts[j].name, first);
            prog.names.remove(&old);
            return Ok(prog.insts[j].name.clone());
        }
        Fault::DuplicateId => {
            let uid = prog.insts[i].unique_id.get().unwrap_or(0);
            let mut slot = UniqueId::uninit();
            slot.init(uid, &name)?;
            prog.insts[j].unique_id = slot;
        }
        Fault::OperandKind => {
            // The verifier judges operands only against a known opcode's rule; an unknown
            // opcode name (kept, not rejected) has none, so plant on a known one.
            let inst = &mut prog.insts[j];
            if inst.opcode.opcode().is_none() {
                inst.opcode = InstructionType::Known(Opcode::Matmult);
                inst.engine = Engine::Known(EngineKind::Pe);
            }
            inst.add_operand(OperandList::Outs, Argument::imm("float32", json!(0)))
        }
        Fault::Engine => {
            let inst = &mut prog.insts[j];
            inst.opcode = InstructionType::Known(Opcode::Matmult);
            inst.engine = Engine::Known(EngineKind::Dve);
        }
        Fault::AbstractOpcode => prog.insts[j].opcode = InstructionType::Known(Opcode::MatmultBase),
    }
    Ok(name)
}

fn dep_list(p: &mut Program, k: usize) -> &mut crate::DepList {
    &mut p.insts[k].schedule.dependencies
}
