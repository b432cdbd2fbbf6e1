//! Real BIR from a NEFF: one subgraph's BIR instructions and dependency edges rebuilt from its
//! backend debug info into neff-bir's model (issue 21 part 3; D235).
//!
//! What the debug info gives: each instruction's name, engine (the layer it is in), dependencies
//! with their EdgeKind, and provenance (id, source line, HLO op). What it does not give is left
//! empty and listed in [`NOT_GIVEN`]: no value is invented.

use std::collections::HashMap;

use neff_bir::{EdgeKind, Engine, EngineKind, InstId, Instruction, InstructionType, Program};
use neff_isa::EngineType;
use serde::Serialize;
use serde_json::json;

use crate::debug_info::{BirLayer, DebugInfo, GraphDebug};
use crate::slot_source::BirRef;
use crate::wire::RecordFields;

/// The parts of a BIR instruction the debug info does not carry; a rebuilt program leaves them
/// empty (opcode `""`).
pub const NOT_GIVEN: &str = "opcode, operands (ins, indirection_ins, outs), loopnest, predicates, \
     loop-carried and unroll dependencies, schedule (order, scheduled_start/end), sync_info";

/// The name of the one block a rebuilt function has (the debug info has no blocks).
pub const BLOCK: &str = "debug_info";

/// What the rebuild did with the edges it read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RebuildReport {
    /// The subgraph rebuilt.
    pub subgraph: String,
    /// Instructions (BIR records of every layer).
    pub instructions: usize,
    /// Edges added from the dependency list (field 4).
    pub dependency_edges: usize,
    /// Edges added from the second list (field 5) that the first does not hold.
    pub sync_edges: usize,
    /// Edges naming an id that no BIR record of the subgraph has: not added.
    pub edges_to_missing_ids: usize,
    /// Edges whose list has no kind for them (the DMA blocks' field 5): not added.
    pub edges_without_kind: usize,
    /// Edges whose kind tag does not fit the 3-bit field: not added.
    pub edges_with_bad_kind: usize,
    /// Edges from an instruction to itself: not added (`addDependency` refuses them).
    pub self_edges: usize,
    /// Records repeating an id of an earlier one: added as instructions, edges go to the first.
    pub repeated_ids: usize,
}

/// A rebuilt program and its report.
#[derive(Clone, Debug)]
pub struct RebuiltBir {
    /// The program: one function named for the subgraph, one block ([`BLOCK`]).
    pub program: Program,
    /// What was read, added and left out.
    pub report: RebuildReport,
}

impl DebugInfo {
    /// Rebuilds the BIR of subgraph `graph` from its backend debug info; `None` when the
    /// subgraph has no debug info.
    pub fn rebuild_bir(&self, graph: &str) -> Option<RebuiltBir> {
        let g = self.graph(graph)?;
        let mut program = Program::new();
        let f = program.add_function(graph);
        let block = program.add_block(f, BLOCK).ok()?;
        let mut report = RebuildReport {
            subgraph: graph.to_owned(),
            ..RebuildReport::default()
        };
        let mut ids: HashMap<u64, InstId> = HashMap::new();
        let mut order = Vec::new();
        for bl in &g.backend {
            for r in bl.layer.records() {
                let inst = self.rebuilt_instruction(g, bl, r);
                let id = program.push(block, inst).ok()?;
                if ids.insert(r.id, id).is_some() {
                    report.repeated_ids += 1;
                }
                order.push((id, &r.msg));
            }
        }
        report.instructions = order.len();
        for (id, r) in order {
            add_edges(&mut program, &ids, id, r, &mut report);
        }
        Some(RebuiltBir { program, report })
    }

    /// One instruction: name, engine, and its provenance under `"debug"`.
    fn rebuilt_instruction(&self, g: &GraphDebug, bl: &BirLayer, r: &RecordFields) -> Instruction {
        let name = r.name.clone().unwrap_or_default();
        let mut inst = Instruction::new(name, InstructionType::Unknown("".into()));
        inst.engine = Engine::Known(bl.engine.map_or(EngineKind::Dma, engine_kind));
        let bir = BirRef {
            id: r.id,
            name: r.name.as_deref().unwrap_or(""),
            layer: &bl.layer,
            record: r,
        };
        let d = self.bir_debug(g, bir);
        inst.schedule.debug = Some(json!({
            "debug_info_id": r.id,
            "source": d.source,
            "hlo": d.hlo,
        }));
        inst
    }
}

/// neff-bir's engine for a sequencer engine (the JSON names of reference §5.1).
fn engine_kind(e: EngineType) -> EngineKind {
    match e {
        EngineType::Pe => EngineKind::Pe,
        EngineType::Act => EngineKind::Activation,
        EngineType::Pool => EngineKind::Pool,
        EngineType::Dve => EngineKind::Dve,
        EngineType::Sp => EngineKind::Sp,
    }
}

/// The edges of record `r` (instruction `id`): field 4 with kinds from field 9, then the field-5
/// entries that field 4 does not hold, kinds from field 10 (D235).
fn add_edges(
    p: &mut Program,
    ids: &HashMap<u64, InstId>,
    id: InstId,
    r: &RecordFields,
    report: &mut RebuildReport,
) {
    for (k, &target) in r.dependencies.iter().enumerate() {
        if add_edge(p, ids, id, target, r.dependency_kinds.get(k), report) {
            report.dependency_edges += 1;
        }
    }
    for (k, &target) in r.sync_dependencies.iter().enumerate() {
        if r.dependencies.contains(&target) {
            continue;
        }
        if add_edge(p, ids, id, target, r.sync_dependency_kinds.get(k), report) {
            report.sync_edges += 1;
        }
    }
}

/// Adds one edge, or counts why not; whether it was added.
fn add_edge(
    p: &mut Program,
    ids: &HashMap<u64, InstId>,
    id: InstId,
    target: u64,
    kind: Option<&u32>,
    report: &mut RebuildReport,
) -> bool {
    let Some(&former) = ids.get(&target) else {
        report.edges_to_missing_ids += 1;
        return false;
    };
    let Some(&kind) = kind else {
        report.edges_without_kind += 1;
        return false;
    };
    let Some(kind) = u8::try_from(kind)
        .ok()
        .and_then(|b| EdgeKind::from_bits(b).ok())
    else {
        report.edges_with_bad_kind += 1;
        return false;
    };
    if former == id {
        report.self_edges += 1;
        return false;
    }
    p.add_dependency(id, former, kind, false).unwrap_or(false)
}
